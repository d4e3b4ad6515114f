//! The context of `on_load` ([`LoadCtx`]).

use crate::host::connection::Mode;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What `on_load` gets.
#[derive(Clone)]
pub struct LoadCtx {
    pub(crate) name: String,
    pub(crate) cwd: PathBuf,
    pub(crate) mode: Mode,
    pub(crate) snapshot: Option<Value>,
    /// pi's event bus for this process.
    pub(crate) bus: Option<crate::host::bus::Bus>,
}

impl std::fmt::Debug for LoadCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadCtx")
            .field("name", &self.name)
            .field("cwd", &self.cwd)
            .field("mode", &self.mode)
            .field("snapshot", &self.snapshot)
            .finish_non_exhaustive()
    }
}

impl LoadCtx {
    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// pi's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// How pi was started.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// After a hot reload: what the previous process's `on_unload`
    /// returned, decoded as `T`. `None` on a normal start or if it does not
    /// decode (a changed snapshot type).
    pub fn snapshot<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        self.snapshot
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    /// Listen on a channel of pi's event bus for as long as the process
    /// runs (or until the [`Subscription`](crate::host::api::Subscription) is
    /// dropped): spawn a task that receives from it and keep what it learns
    /// in the state. See [`crate::host::api::Api::subscribe`].
    ///
    /// # Errors
    ///
    /// When the bridge could not subscribe (the connection to pi is gone).
    pub async fn subscribe(
        &self,
        channel: &str,
    ) -> Result<crate::host::api::Subscription, crate::host::api::ApiError> {
        let fail = |message: String| crate::host::api::ApiError {
            method: "subscribe".into(),
            message,
        };
        let bus = self
            .bus
            .as_ref()
            .ok_or_else(|| fail("no connection to pi".into()))?;
        bus.subscribe(channel).await.map_err(|e| fail(e.message))
    }
}
