//! The connection's start and end: `initialize` (the handshake, loading the
//! extensions) and `unload` (a hot reload's hand-over).

use super::*;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeParams {
    protocol: u32,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    has_ui: Option<bool>,
    #[serde(default)]
    cwd: Option<std::path::PathBuf>,
    #[serde(default)]
    pi: Option<String>,
    /// pi's package directory (bridges since this field).
    #[serde(default)]
    pi_dir: Option<std::path::PathBuf>,
    /// How the running pi was started (bridges since this field).
    #[serde(default)]
    pi_command: Option<crate::host::connection::PiCommand>,
    /// Where the extension's index.js is.
    #[serde(default)]
    extension_dir: Option<std::path::PathBuf>,
    /// Hot reload: what the previous process's `on_unload`s returned.
    #[serde(default)]
    snapshots: serde_json::Map<String, Value>,
}

/// What `initialize` set up before the extensions load.
pub(super) struct StartedSession {
    cwd: std::path::PathBuf,
    mode: Mode,
    /// Hot reload: what the previous process's `on_unload`s returned.
    snapshots: serde_json::Map<String, Value>,
}

impl Dispatcher {
    /// Run every `on_unload` (once per process) and return the snapshots.
    pub(crate) async fn unload_once(&self) -> serde_json::Map<String, Value> {
        if self.unloaded.swap(true, Ordering::SeqCst) || self.session.get().is_none() {
            return serde_json::Map::new();
        }
        crate::registry::lifecycle::unload_all(&self.registry.extensions, &self.shared).await
    }

    /// The synchronous half of `initialize`: check the protocol version and
    /// set the session.
    pub(super) fn begin_session(&self, params: Box<RawValue>) -> Result<StartedSession, RpcError> {
        let p: InitializeParams = from_raw(&params).map_err(|e| {
            RpcError::new(codes::INVALID_PARAMS, format!("bad initialize params: {e}"))
        })?;
        if p.protocol != PROTOCOL_VERSION {
            return Err(RpcError::new(
                codes::VERSION_MISMATCH,
                format!(
                    "protocol version mismatch: the pi bridge speaks {}, extension `{}` (pi-ext {}) speaks {}. \
                     Rebuild the extension and run `<binary> install` again so the bridge and the binary match.",
                    p.protocol, self.registry.name, SDK_VERSION, PROTOCOL_VERSION
                ),
            ));
        }
        let mode = p.mode.unwrap_or_default();
        let session = Session {
            mode,
            has_ui: p.has_ui.unwrap_or_else(|| mode.has_ui()),
            cwd: p
                .cwd
                .unwrap_or_else(|| std::env::current_dir().unwrap_or_default()),
            extension_dir: p.extension_dir,
            pi_version: p.pi.unwrap_or_default(),
            pi_dir: p.pi_dir,
            pi_command: p.pi_command,
        };
        let (cwd, mode) = (session.cwd.clone(), session.mode);
        if self.session.set(Arc::new(session)).is_err() {
            log("initialize received twice; keeping the first session");
            return Err(RpcError::new(codes::INVALID_REQUEST, "already initialized"));
        }
        #[cfg(feature = "tui")]
        self.install_message_views(mode);
        Ok(StartedSession {
            cwd,
            mode,
            snapshots: p.snapshots,
        })
    }

    /// The rest of `initialize`: run every `on_load` and answer with the
    /// manifest.
    pub(super) async fn load_extensions(&self, session: StartedSession) -> Value {
        let StartedSession {
            cwd,
            mode,
            snapshots,
        } = session;
        let bus = crate::host::bus::Bus {
            peer: self.peer.clone(),
            subscribers: self.shared.subscribers.clone(),
            call: Default::default(),
        };
        let failed = crate::registry::lifecycle::load_all(
            &self.registry.extensions,
            &cwd,
            mode,
            &snapshots,
            &self.shared,
            Some(bus),
        )
        .await;
        #[cfg_attr(not(feature = "settings"), allow(unused_mut))]
        let mut manifest = self.registry.manifest_without(&failed);
        // Say at once which settings are wrong (the extension runs with
        // defaults for them).
        #[cfg(feature = "settings")]
        for e in &self.registry.extensions {
            let Some(decl) = &e.settings else { continue };
            let problems = (decl.problems)(e.name, &cwd);
            crate::settings::registered::shown_at_start(&self.shared, e.name, &cwd, &problems);
            manifest
                .problems
                .extend(problems.into_iter().map(|p| format!("settings: {p}")));
        }
        for problem in &manifest.problems {
            log(problem);
        }
        json!({
            "protocol": PROTOCOL_VERSION,
            "sdk": SDK_VERSION,
            "manifest": manifest,
            "mirror": MIRROR_VERSION,
        })
    }
}
