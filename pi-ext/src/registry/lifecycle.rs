//! Extension lifecycle: state built by `on_load`, torn down by `on_unload`,
//! several extensions per binary loaded in dependency order.
//!
//! ```no_run
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use pi_ext::prelude::*;
//! use pi_ext::lifecycle::LoadCtx;
//!
//! /// Counts greetings, across hot reloads.
//! #[extension(name = "counter", on_load = load, on_unload = unload)]
//! struct Counter {
//!     greeted: AtomicU64,
//! }
//!
//! async fn load(ctx: LoadCtx) -> Result<Counter, Error> {
//!     // A hot reload hands over what the old process's `unload` returned.
//!     let greeted = ctx.snapshot::<u64>().unwrap_or(0);
//!     Ok(Counter { greeted: AtomicU64::new(greeted) })
//! }
//!
//! async fn unload(state: &Counter) -> Option<pi_ext::serde_json::Value> {
//!     Some(state.greeted.load(Ordering::Relaxed).into())
//! }
//!
//! /// Greet, counting.
//! #[tool]
//! async fn greet(counter: &Counter, name: String) -> String {
//!     let n = counter.greeted.fetch_add(1, Ordering::Relaxed) + 1;
//!     format!("Hello, {name}! (greeting #{n})")
//! }
//! # fn main() {}
//! ```
//!
//! - **State:** the `#[extension]` type *is* the state. Tools, commands and
//!   hooks take it as `&MyExtension` (shared across concurrent calls: use
//!   atomics or locks inside for mutation). Without `on_load`, a unit struct
//!   is its own state and any other type is built with `Default`.
//! - **`on_load = f`:** `async fn f(ctx: LoadCtx) -> Result<Self, E>` (or
//!   `-> Self`), run once per process, after the handshake, while pi is
//!   still loading extensions (so pi's action methods are not available yet:
//!   use a `session_start` hook for those). A failure is reported to the user
//!   and that extension's tools, commands and hooks are left out; the others
//!   load.
//! - **`on_unload = f`:** `async fn f(state: &Self) -> Option<Value>`, run on
//!   pi's `session_shutdown` (quit, `/reload`, session switch) and before a
//!   hot reload, in reverse load order. The returned value is the snapshot the
//!   next process's `on_load` gets from [`LoadCtx::snapshot`] after a hot
//!   reload.
//! - **Dependencies:** `#[extension(dependencies = ["other"])]`. A host
//!   binary that links several extension crates serves them all; they load
//!   in dependency order (then by name), and their hooks run in that order
//!   too. A missing dependency or a cycle is reported with the names
//!   involved; the extensions not affected still load.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

pub use crate::context::LoadCtx;
use crate::host::connection::{Mode, Shared};
use crate::registry::ExtensionEntry;

/// Run `on_load` of `order`; returns the crates whose extension failed, with
/// the reason. An extension whose dependency failed is not loaded either.
pub(crate) async fn load_all(
    order: &[&'static ExtensionEntry],
    cwd: &Path,
    mode: Mode,
    snapshots: &serde_json::Map<String, Value>,
    shared: &Shared,
    bus: Option<crate::host::bus::Bus>,
) -> BTreeMap<String, String> {
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    let mut failed_names: Vec<&str> = Vec::new();
    for e in order {
        if let Some(d) = e.dependencies.iter().find(|d| failed_names.contains(d)) {
            failed_names.push(e.name);
            failed.insert(
                e.krate().to_string(),
                format!(
                    "extension `{}` was not loaded: its dependency `{d}` failed",
                    e.name
                ),
            );
            continue;
        }
        let ctx = LoadCtx {
            name: e.name.to_string(),
            cwd: cwd.to_path_buf(),
            mode,
            snapshot: snapshots.get(e.name).cloned(),
            bus: bus.clone(),
        };
        // A panicking on_load must not take the process down.
        let outcome = tokio::spawn((e.load)(ctx)).await;
        match outcome {
            Ok(Ok(state)) => shared.store_state((e.state_type)(), state),
            Ok(Err(msg)) => {
                failed_names.push(e.name);
                failed.insert(
                    e.krate().to_string(),
                    format!("extension `{}` failed to load: {msg}", e.name),
                );
            }
            Err(join) => {
                failed_names.push(e.name);
                let why = if join.is_panic() {
                    "panicked"
                } else {
                    "was cancelled"
                };
                failed.insert(
                    e.krate().to_string(),
                    format!("extension `{}` failed to load: on_load {why}", e.name),
                );
            }
        }
    }
    failed
}

/// Run `on_unload` of every loaded extension in reverse order; returns the
/// snapshots by extension name.
pub(crate) async fn unload_all(
    order: &[&'static ExtensionEntry],
    shared: &Shared,
) -> serde_json::Map<String, Value> {
    let mut snapshots = serde_json::Map::new();
    for e in order.iter().rev() {
        let Some(state) = shared.take_state((e.state_type)()) else {
            continue;
        };
        let Some(unload) = e.unload else {
            continue;
        };
        let fut = tokio::spawn(unload(state));
        match tokio::time::timeout(std::time::Duration::from_secs(5), fut).await {
            Ok(Ok(Some(snapshot))) => {
                snapshots.insert(e.name.to_string(), snapshot);
            }
            Ok(Ok(None)) => {}
            Ok(Err(_)) => {
                crate::util::logging::warn(&format!("on_unload of `{}` panicked", e.name))
            }
            Err(_) => crate::util::logging::warn(&format!(
                "on_unload of `{}` took over 5 s; skipped",
                e.name
            )),
        }
    }
    snapshots
}

/// What an `on_load` function may return: the state, or `Result` with an
/// error that becomes the message shown to the user.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for on_load",
    label = "on_load must return the extension's state `{T}` or `Result<{T}, E>`",
    note = "signature: `async fn load(ctx: pi_ext::lifecycle::LoadCtx) -> Result<MyExtension, E>`"
)]
pub trait LoadReturn<T> {
    /// The state or the error message.
    ///
    /// # Errors
    ///
    /// The message shown to the user when `on_load` failed.
    fn into_state(self) -> Result<T, String>;
}

impl<T: crate::registry::ExtensionState> LoadReturn<T> for T {
    fn into_state(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T, E: Into<crate::Error>> LoadReturn<T> for Result<T, E> {
    fn into_state(self) -> Result<T, String> {
        self.map_err(|e| e.into().message().to_string())
    }
}

/// What an `on_unload` function may return: a snapshot for the next process
/// (`Option<Value>`) or nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid return type for on_unload",
    label = "return `Option<serde_json::Value>` (a snapshot for hot reload) or `()`"
)]
pub trait UnloadReturn {
    /// The snapshot.
    fn into_snapshot(self) -> Option<Value>;
}

impl UnloadReturn for () {
    fn into_snapshot(self) -> Option<Value> {
        None
    }
}

impl UnloadReturn for Option<Value> {
    fn into_snapshot(self) -> Option<Value> {
        self
    }
}
