//! Support for macro-generated code: the glue `#[tool]`, `#[hook]`,
//! `#[command]` and `#[extension]` expand to calls into, so that the logic
//! (decoding, panics, dispatch) lives here once and the generated code stays
//! thin. Not a public API: it changes without notice.

pub use crate::cli::run_main;
pub use crate::command::{CommandReturn, FromArgs};
pub use crate::connection::AnyState;
pub use crate::context::LoadCtx;
pub use crate::events::{Event, HookOutput, HookReturn};
pub use crate::lifecycle::{LoadReturn, UnloadReturn};
pub use crate::registry::{
    BinInfo, CommandEntry, ExtensionEntry, ExtensionState, FlagEntry, HandlerFuture, HookEntry,
    LoadFuture, SettingsDecl, ToolEntry, UnloadFuture,
};
pub use crate::tool::ToolFuture;

/// The state of the extension whose type is `T`, for a `&MyExtension`
/// argument. Panics (caught, and reported as the call's error) when it is
/// not loaded.
pub fn state<T: ExtensionState>(ctx: &Ctx) -> Arc<T> {
    ctx.state::<T>()
}
pub use std::any::TypeId;
pub use std::sync::Arc;

/// Used by generated code to check [`ExtensionState`].
pub fn assert_state<T: ExtensionState + ?Sized>() {}

/// The settings schema of `T` (for the manifest and `--pi-settings-schema`).
pub fn settings_schema<T>() -> Result<Value, SchemaError>
where
    T: schemars::JsonSchema + Default + serde::Serialize,
{
    crate::settings::settings_schema::<T>()
}

/// What is wrong with extension `name`'s settings files `T` at startup.
pub fn settings_problems<T>(name: &str, cwd: &std::path::Path) -> Vec<String>
where
    T: serde::de::DeserializeOwned + Default + serde::Serialize + schemars::JsonSchema,
{
    crate::settings::registered::startup_problems::<T>(name, cwd)
}

/// The generated `/<name>-settings` command.
pub fn settings_command<T>(ctx: crate::CommandCtx, name: &'static str) -> HandlerFuture
where
    T: serde::de::DeserializeOwned
        + Default
        + serde::Serialize
        + schemars::JsonSchema
        + Send
        + 'static,
{
    Box::pin(async move {
        crate::settings::editor::edit::<T>(&ctx, name)
            .await
            .map(|()| Value::Null)
    })
}

/// Build the state with `on_load`.
pub fn load_with<T, F, Fut>(ctx: LoadCtx, f: F) -> LoadFuture
where
    T: ExtensionState,
    F: FnOnce(LoadCtx) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: LoadReturn<T>,
{
    let fut = f(ctx);
    Box::pin(async move { fut.await.into_state().map(|s| Arc::new(s) as AnyState) })
}

/// A state that needs no `on_load`.
pub fn load_value<T: ExtensionState>(value: T) -> LoadFuture {
    Box::pin(std::future::ready(Ok(Arc::new(value) as AnyState)))
}

/// Run `on_unload` on the state.
pub fn unload_with<T, F, Fut>(state: AnyState, f: F) -> UnloadFuture
where
    T: ExtensionState,
    F: FnOnce(Arc<T>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: UnloadReturn,
{
    match state.downcast::<T>() {
        Ok(s) => {
            let fut = f(s);
            Box::pin(async move { fut.await.into_snapshot() })
        }
        Err(_) => Box::pin(std::future::ready(None)),
    }
}
pub use crate::schema::{portable_schema_for, SchemaError};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json::Value;

use crate::context::Ctx;
use crate::tool::{IntoToolResult, ToolOutcome};
use std::future::Future;

/// Decode the arguments and run an async tool body.
pub fn call_async<P, F, Fut>(tool: &'static str, ctx: Ctx, args: Value, body: F) -> ToolFuture
where
    P: serde::de::DeserializeOwned,
    F: FnOnce(Ctx, P) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    match crate::tool::decode_args::<P>(tool, args) {
        Ok(params) => {
            let fut = body(ctx, params);
            Box::pin(async move { ToolOutcome::of(fut.await) })
        }
        Err(outcome) => Box::pin(std::future::ready(outcome)),
    }
}

/// Decode the arguments and run a synchronous tool body on the runtime's
/// blocking pool, so it cannot stall other calls.
pub fn call_sync<P, F, R>(tool: &'static str, ctx: Ctx, args: Value, body: F) -> ToolFuture
where
    P: serde::de::DeserializeOwned + Send + 'static,
    F: FnOnce(Ctx, P) -> R + Send + 'static,
    R: IntoToolResult + Send + 'static,
{
    match crate::tool::decode_args::<P>(tool, args) {
        Ok(params) => Box::pin(async move {
            on_blocking_pool("the tool", move || ToolOutcome::of(body(ctx, params)))
                .await
                .unwrap_or_else(|_| ToolOutcome::error(format!("tool `{tool}` was cancelled")))
        }),
        Err(outcome) => Box::pin(std::future::ready(outcome)),
    }
}

/// Compile-time check that an argument typed `Ctx` is pi-ext's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not pi-ext's call context",
    label = "expected `pi_ext::Ctx`",
    note = "arguments whose type is named `Ctx` are treated as the call context; import `pi_ext::Ctx` (or rename your type)"
)]
pub trait IsCtx {}
impl IsCtx for Ctx {}
/// Used by generated code to check [`IsCtx`].
pub fn assert_ctx<T: IsCtx + ?Sized>() {}

/// Compile-time check on a `Params<T>` argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as tool parameters",
    label = "needs `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on the struct: `#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`",
    note = "if it does derive `JsonSchema`, check that it is the schemars version pi-ext re-exports (`pi_ext::schemars`)"
)]
pub trait ToolParams: serde::de::DeserializeOwned + schemars::JsonSchema {}
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolParams for T {}
/// Used by generated code to check [`ToolParams`].
pub fn assert_params<T: ToolParams>() {}

/// Compile-time check on a tool's return type.
pub fn assert_return<T: IntoToolResult>() {}

/// Compile-time check that a hook's argument is an event.
pub fn assert_event<E: Event>() {}

/// Compile-time check on a hook's return type.
pub fn assert_hook_return<E: Event, R: HookReturn<E::Output>>() {}

/// Compile-time check on a command's argument type.
pub fn assert_args<A: FromArgs>() {}

/// Compile-time check on a command's return type.
pub fn assert_command_return<R: CommandReturn>() {}

/// Compile-time check that a command's context argument is pi-ext's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a command context",
    label = "expected `pi_ext::CommandCtx` or `pi_ext::Ctx`",
    note = "a command takes `ctx: &CommandCtx` (or `&Ctx`)"
)]
pub trait IsCommandCtx {}
impl IsCommandCtx for crate::CommandCtx {}
impl IsCommandCtx for Ctx {}
/// Used by generated code to check [`IsCommandCtx`].
pub fn assert_command_ctx<T: IsCommandCtx + ?Sized>() {}

/// The definition of a `#[tool]` (its generated `<name>_tool()`).
pub fn tool_def(entry: &'static ToolEntry) -> crate::ToolDef {
    crate::ToolDef::from_entry(entry)
}

/// The definition of a `#[hook]` (its generated `<name>_hook()`).
pub fn hook_def(entry: &'static HookEntry) -> crate::registry::HookDef {
    crate::registry::HookDef(entry)
}

/// The definition of a `#[command]` (its generated `<name>_command()`).
pub fn command_def(entry: &'static CommandEntry) -> crate::registry::CommandDef {
    crate::registry::CommandDef(entry)
}

/// Run a synchronous handler on the runtime's blocking pool, so it cannot
/// stall other calls; a panic is raised again for the dispatcher to report.
async fn on_blocking_pool<R: Send + 'static>(
    what: &'static str,
    body: impl FnOnce() -> R + Send + 'static,
) -> Result<R, String> {
    match tokio::task::spawn_blocking(body).await {
        Ok(r) => Ok(r),
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(format!("{what} was cancelled")),
    }
}

/// Decode an event and run a hook body.
pub fn call_hook<E, F, Fut>(ctx: Ctx, payload: Value, body: F) -> HandlerFuture
where
    E: Event,
    F: FnOnce(Ctx, E) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: HookReturn<E::Output>,
{
    match serde_json::from_value::<E>(payload) {
        Ok(event) => {
            let fut = body(ctx, event);
            Box::pin(async move { fut.await.into_hook().map(HookOutput::into_json) })
        }
        Err(e) => Box::pin(std::future::ready(Err(format!(
            "could not decode the `{}` event: {e}",
            E::NAME
        )))),
    }
}

/// Decode an event and run a synchronous hook body on the blocking pool.
pub fn call_hook_blocking<E, F, R>(ctx: Ctx, payload: Value, body: F) -> HandlerFuture
where
    E: Event,
    F: FnOnce(Ctx, E) -> R + Send + 'static,
    R: HookReturn<E::Output> + Send + 'static,
{
    match serde_json::from_value::<E>(payload) {
        Ok(event) => Box::pin(async move {
            on_blocking_pool("the hook", move || body(ctx, event))
                .await?
                .into_hook()
                .map(HookOutput::into_json)
        }),
        Err(e) => Box::pin(std::future::ready(Err(format!(
            "could not decode the `{}` event: {e}",
            E::NAME
        )))),
    }
}

/// Parse a command's arguments and run its body.
pub fn call_command<A, F, Fut>(ctx: crate::CommandCtx, args: String, body: F) -> HandlerFuture
where
    A: FromArgs,
    F: FnOnce(crate::CommandCtx, A) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: CommandReturn,
{
    match A::from_args(&args) {
        Ok(parsed) => {
            let fut = body(ctx, parsed);
            Box::pin(async move { fut.await.into_result().map(|()| Value::Null) })
        }
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}

/// Parse a command's arguments and run its synchronous body on the blocking
/// pool.
pub fn call_command_blocking<A, F, R>(
    ctx: crate::CommandCtx,
    args: String,
    body: F,
) -> HandlerFuture
where
    A: FromArgs,
    F: FnOnce(crate::CommandCtx, A) -> R + Send + 'static,
    R: CommandReturn + Send + 'static,
{
    match A::from_args(&args) {
        Ok(parsed) => Box::pin(async move {
            on_blocking_pool("the command", move || body(ctx, parsed))
                .await?
                .into_result()
                .map(|()| Value::Null)
        }),
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}
