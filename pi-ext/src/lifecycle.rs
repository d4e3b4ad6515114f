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
//! async fn load(ctx: LoadCtx) -> Result<Counter, ToolError> {
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

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, RwLock};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::Mode;
use crate::schema::SchemaError;

/// An extension's state, type-erased.
pub type AnyState = Arc<dyn Any + Send + Sync>;
/// What `on_load` returns, type-erased.
pub type LoadFuture = Pin<Box<dyn Future<Output = Result<AnyState, String>> + Send>>;
/// What `on_unload` returns: the snapshot for a hot reload.
pub type UnloadFuture = Pin<Box<dyn Future<Output = Option<Value>> + Send>>;

/// An `#[extension]` registration, collected at link time. Not for direct use.
#[doc(hidden)]
pub struct ExtensionEntry {
    pub name: &'static str,
    pub version: &'static str,
    pub description: &'static str,
    pub dependencies: &'static [&'static str],
    /// `module_path!()` of the declaration: its first segment is the crate
    /// that owns the extension's tools, commands and hooks.
    pub module: &'static str,
    pub state_type: fn() -> TypeId,
    pub load: fn(LoadCtx) -> LoadFuture,
    pub unload: Option<fn(AnyState) -> UnloadFuture>,
    pub settings: Option<SettingsDecl>,
}

/// An extension's settings type. Not for direct use.
#[doc(hidden)]
pub struct SettingsDecl {
    pub schema: fn() -> Result<Value, SchemaError>,
    pub type_id: fn() -> TypeId,
    /// Load and validate the files; the value as JSON and the problems.
    pub load: fn(&crate::settings::SettingsPaths) -> (Value, Vec<String>),
}

inventory::collect!(ExtensionEntry);

/// The crate an item was declared in (`module_path!()`'s first segment).
pub(crate) fn crate_of(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

impl ExtensionEntry {
    pub(crate) fn krate(&self) -> &'static str {
        crate_of(self.module)
    }
}

/// What `on_load` gets.
#[derive(Clone)]
pub struct LoadCtx {
    pub(crate) name: String,
    pub(crate) cwd: PathBuf,
    pub(crate) mode: Mode,
    pub(crate) snapshot: Option<Value>,
    /// pi's event bus for this process.
    pub(crate) bus: Option<crate::bus::Bus>,
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
    pub fn snapshot<T: DeserializeOwned>(&self) -> Option<T> {
        self.snapshot
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    /// Listen on a channel of pi's event bus for as long as the process
    /// runs (or until the [`Subscription`](crate::api::Subscription) is
    /// dropped): spawn a task that receives from it and keep what it learns
    /// in the state. See [`crate::api::Api::subscribe`].
    ///
    /// # Errors
    ///
    /// When the bridge could not subscribe (the connection to pi is gone).
    pub async fn subscribe(
        &self,
        channel: &str,
    ) -> Result<crate::api::Subscription, crate::api::ApiError> {
        let fail = |message: String| crate::api::ApiError {
            method: "subscribe".into(),
            message,
        };
        let bus = self
            .bus
            .as_ref()
            .ok_or_else(|| fail("no connection to pi".into()))?;
        bus.subscribe(channel).await.map_err(|e| fail(e.message))
    }

    /// The extension's settings, as [`crate::Ctx::settings`] reads them.
    pub fn settings<T>(&self) -> T
    where
        T: DeserializeOwned + Default + serde::Serialize + schemars::JsonSchema + 'static,
    {
        crate::settings::registered::load_declared::<T>(&self.cwd).value
    }
}

/// Loaded states by type, for the `&MyExtension` extractor.
static STATES: RwLock<Option<HashMap<TypeId, AnyState>>> = RwLock::new(None);

/// The state of the extension whose type is `T`. Panics (caught as a
/// tool/hook error) when it is not loaded.
pub fn state<T: Any + Send + Sync>() -> Arc<T> {
    let states = STATES.read().unwrap();
    let any = states
        .as_ref()
        .and_then(|m| m.get(&TypeId::of::<T>()))
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "the state of extension type `{}` is not loaded (its on_load failed or has not run)",
                std::any::type_name::<T>()
            )
        });
    any.downcast::<T>()
        .expect("state stored under its own TypeId")
}

fn store_state(type_id: TypeId, state: AnyState) {
    STATES
        .write()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .insert(type_id, state);
}

fn take_state(type_id: TypeId) -> Option<AnyState> {
    STATES.write().unwrap().as_mut()?.remove(&type_id)
}

/// Dependency order of `extensions` (Kahn's algorithm, ties by name), and
/// the extensions that cannot load with the reason.
pub(crate) fn load_order(
    extensions: &[&'static ExtensionEntry],
) -> (Vec<&'static ExtensionEntry>, BTreeMap<String, String>) {
    let by_name: BTreeMap<&str, &'static ExtensionEntry> =
        extensions.iter().map(|e| (e.name, *e)).collect();
    let mut blocked: BTreeMap<String, String> = BTreeMap::new();
    // Missing dependencies, transitively.
    loop {
        let mut changed = false;
        for e in by_name.values() {
            if blocked.contains_key(e.name) {
                continue;
            }
            for d in e.dependencies {
                let reason = if !by_name.contains_key(d) {
                    Some(format!(
                        "extension `{}` depends on `{d}`, which is not in this binary",
                        e.name
                    ))
                } else if blocked.contains_key(*d) {
                    Some(format!(
                        "extension `{}` depends on `{d}`, which cannot load",
                        e.name
                    ))
                } else {
                    None
                };
                if let Some(r) = reason {
                    blocked.insert(e.name.to_string(), r);
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut order = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    loop {
        let ready: Vec<&'static ExtensionEntry> = by_name
            .values()
            .filter(|e| !blocked.contains_key(e.name) && !done.contains(&e.name))
            .filter(|e| e.dependencies.iter().all(|d| done.contains(d)))
            .copied()
            .collect();
        if ready.is_empty() {
            break;
        }
        for e in ready {
            done.push(e.name);
            order.push(e);
        }
    }
    // Whatever is left waits on itself: a cycle.
    let stuck: Vec<&str> = by_name
        .values()
        .filter(|e| !blocked.contains_key(e.name) && !done.contains(&e.name))
        .map(|e| e.name)
        .collect();
    for name in &stuck {
        blocked.insert(
            name.to_string(),
            format!(
                "extension `{name}` is part of a dependency cycle among {}",
                stuck
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    (order, blocked)
}

/// Run `on_load` of `order`; returns the crates whose extension failed, with
/// the reason. An extension whose dependency failed is not loaded either.
pub(crate) async fn load_all(
    order: &[&'static ExtensionEntry],
    cwd: &Path,
    mode: Mode,
    snapshots: &serde_json::Map<String, Value>,
    bus: Option<crate::bus::Bus>,
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
            Ok(Ok(state)) => store_state((e.state_type)(), state),
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
) -> serde_json::Map<String, Value> {
    let mut snapshots = serde_json::Map::new();
    for e in order.iter().rev() {
        let Some(state) = take_state((e.state_type)()) else {
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
            Ok(Err(_)) => crate::dispatch::log(&format!("on_unload of `{}` panicked", e.name)),
            Err(_) => {
                crate::dispatch::log(&format!("on_unload of `{}` took over 5 s; skipped", e.name))
            }
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
    fn into_state(self) -> Result<T, String>;
}

impl<T: crate::__private::ExtensionState> LoadReturn<T> for T {
    fn into_state(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T, E: Into<crate::ToolError>> LoadReturn<T> for Result<T, E> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &'static str, deps: &'static [&'static str]) -> &'static ExtensionEntry {
        Box::leak(Box::new(ExtensionEntry {
            name,
            version: "0",
            description: "",
            dependencies: deps,
            module: name,
            state_type: TypeId::of::<()>,
            load: |_| Box::pin(async { Ok(Arc::new(()) as AnyState) }),
            unload: None,
            settings: None,
        }))
    }

    #[test]
    fn dependencies_load_first_and_ties_go_by_name() {
        let exts = [
            entry("app", &["db", "log"]),
            entry("log", &[]),
            entry("db", &["log"]),
        ];
        let (order, blocked) = load_order(&exts);
        let names: Vec<_> = order.iter().map(|e| e.name).collect();
        assert_eq!(names, ["log", "db", "app"]);
        assert!(blocked.is_empty());
    }

    #[test]
    fn missing_dependencies_and_cycles_are_named_and_the_rest_loads() {
        let exts = [
            entry("ok", &[]),
            entry("needs-ghost", &["ghost"]),
            entry("on-top", &["needs-ghost"]),
            entry("a", &["b"]),
            entry("b", &["a"]),
        ];
        let (order, blocked) = load_order(&exts);
        let names: Vec<_> = order.iter().map(|e| e.name).collect();
        assert_eq!(names, ["ok"]);
        assert!(blocked["needs-ghost"].contains("`ghost`"));
        assert!(blocked["on-top"].contains("`needs-ghost`, which cannot load"));
        assert!(blocked["a"].contains("cycle among `a`, `b`"));
        assert!(blocked["b"].contains("cycle"));
    }
}
