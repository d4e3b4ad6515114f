//! Support for macro-generated code: the glue `#[tool]`, `#[hook]`,
//! `#[command]` and `#[extension]` expand to calls into, so that the logic
//! (decoding, panics, dispatch) lives here once and the generated code stays
//! thin. Not a public API: it changes without notice.

pub use crate::cli::{run_main, run_with_registry};
pub use crate::command::{CommandReturn, FromArgs};
pub use crate::context::LoadCtx;
pub use crate::events::io::{Answer, AnswerShape, HookInput};
pub use crate::events::{Event, HookOutput, HookReturn};
pub use crate::host::connection::AnyState;
pub use crate::registry::lifecycle::{LoadReturn, UnloadReturn};
#[cfg(feature = "builtin-tools")]
pub use crate::registry::BuiltinToolEntry;
pub use crate::registry::{
    BinInfo, CommandEntry, ExtensionEntry, ExtensionState, FlagEntry, HandlerFuture, HookEntry,
    HookFuture, LoadFuture, SettingsDecl, ToolEntry, UnloadFuture,
};
#[cfg(feature = "models")]
pub use crate::registry::{ProviderEntry, VirtualModelEntry};
pub use crate::tool::ToolFuture;

mod gates;
#[cfg(feature = "tui")]
mod render;
#[cfg(feature = "tui")]
pub use render::*;

/// The state of the extension whose type is `T`, for a `&MyExtension`
/// argument. Panics (caught, and reported as the call's error) when it is
/// not loaded.
pub fn state<T: ExtensionState>(ctx: &Ctx) -> Arc<T> {
    ctx.state::<T>().unwrap_or_else(|| {
        panic!(
            "the state of extension type `{}` is not loaded (its on_load failed or has not run)",
            std::any::type_name::<T>()
        )
    })
}
pub use std::any::TypeId;
pub use std::sync::Arc;

/// What an `#[extension(settings = T)]` type must be, checked through this
/// one trait so that a missing derive is reported once (every use is
/// `<T as ExtensionSettings>::…` at the user's type). No
/// `do_not_recommend` on the impl: the error names the trait that is missing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an extension's settings",
    label = "settings need `Default`, `serde::Deserialize`, `serde::Serialize` and `schemars::JsonSchema`",
    note = "`Default` gives the value of every setting no settings file sets: derive it (`#[derive(Default)]`) or implement it",
    note = "derive the others: `#[derive(Default, serde::Deserialize, serde::Serialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`"
)]
pub trait ExtensionSettings {
    /// The settings schema (for the manifest and `--pi-settings-schema`).
    fn schema() -> Result<Value, SchemaError>;
    /// What is wrong with extension `name`'s settings files at startup.
    fn problems(name: &str, cwd: &std::path::Path) -> Vec<String>;
    /// The generated `/<name>-settings` command.
    fn command(ctx: crate::CommandCtx, name: &'static str) -> HandlerFuture;
}

#[cfg(feature = "settings")]
impl<T> ExtensionSettings for T
where
    T: serde::de::DeserializeOwned
        + Default
        + serde::Serialize
        + schemars::JsonSchema
        + Send
        + 'static,
{
    fn schema() -> Result<Value, SchemaError> {
        crate::settings::settings_schema::<T>()
    }

    fn problems(name: &str, cwd: &std::path::Path) -> Vec<String> {
        crate::settings::registered::startup_problems::<T>(name, cwd)
    }

    fn command(ctx: crate::CommandCtx, name: &'static str) -> HandlerFuture {
        Box::pin(async move {
            crate::settings::editor::edit::<T>(&ctx, name)
                .await
                .map(|()| Value::Null)
        })
    }
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
pub use crate::tool::schema::{portable_schema_for, SchemaError};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json::value::RawValue;
pub use serde_json::Value;

use crate::context::Ctx;
use crate::tool::{IntoToolResult, ToolOutcome};
use std::future::Future;
use std::pin::Pin;

/// Decode the arguments and run an async tool body.
pub fn call_async<S, F, Fut>(
    tool: &'static str,
    ctx: Ctx,
    args: Box<RawValue>,
    body: F,
) -> ToolFuture
where
    S: ParamsSlot,
    F: FnOnce(Ctx, S::Params) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    match decode_params::<S>(tool, &args) {
        Ok(params) => {
            let fut = body(ctx, params);
            Box::pin(async move { ToolOutcome::of(fut.await) })
        }
        Err(outcome) => Box::pin(std::future::ready(outcome)),
    }
}

/// Decode the arguments and run a synchronous tool body on the runtime's
/// blocking pool, so it cannot stall other calls.
pub fn call_sync<S, F, R>(tool: &'static str, ctx: Ctx, args: Box<RawValue>, body: F) -> ToolFuture
where
    S: ParamsSlot,
    S::Params: Send + 'static,
    F: FnOnce(Ctx, S::Params) -> R + Send + 'static,
    R: IntoToolResult + Send + 'static,
{
    match decode_params::<S>(tool, &args) {
        Ok(params) => Box::pin(async move {
            on_blocking_pool("the tool", move || ToolOutcome::of(body(ctx, params)))
                .await
                .unwrap_or_else(|_| ToolOutcome::error(format!("tool `{tool}` was cancelled")))
        }),
        Err(outcome) => Box::pin(std::future::ready(outcome)),
    }
}

fn decode_params<S: ParamsSlot>(
    tool: &'static str,
    args: &RawValue,
) -> Result<S::Params, ToolOutcome> {
    crate::tool::decode_args::<<S::Params as ToolParams>::Decoded>(tool, args)
        .map(<S::Params as ToolParams>::from_decoded)
}

/// The portable schema of a tool's parameters.
pub fn tool_schema<S: ParamsSlot>() -> Result<Value, SchemaError> {
    crate::tool::schema::portable_schema_for::<<S::Params as ToolParams>::Decoded>()
}

// Checks on the user's types. A "slot" is a marker type the macro declares
// per checked type, with an associated type set to the user's type
// (`impl ArgSlot for __m { type Arg = Point; }`, spanned at `Point`): the
// bound on that associated type is checked once, there, and everything else
// (derives, decoding, schema) is generic over the slot, so it never checks the
// user's type again. The check traits have no supertraits and their blanket
// impls are `#[diagnostic::do_not_recommend]`, so a type missing several
// derives still gets one error, in the trait's words.

/// What a `Params<T>` argument's `T` (or the parameters the macro builds
/// from plain arguments) must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as tool parameters",
    label = "needs `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on the struct: `#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`",
    note = "if it does derive `JsonSchema`, check that it is the schemars version pi-ext re-exports (`pi_ext::schemars`)"
)]
pub trait ToolParams: Sized {
    /// `Self`, seen with the bounds that decoding needs (supertraits would
    /// be reported one by one).
    type Decoded: serde::de::DeserializeOwned + schemars::JsonSchema;
    /// The identity.
    fn from_decoded(decoded: Self::Decoded) -> Self;
}

#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolParams for T {
    type Decoded = T;
    fn from_decoded(decoded: T) -> T {
        decoded
    }
}

/// The parameters of one tool (see the slots above).
pub trait ParamsSlot {
    /// The parameter type.
    type Params: ToolParams;
}

/// What the type of `#[tool(output = T)]` must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output type",
    label = "needs `schemars::JsonSchema`",
    note = "pi gets the JSON Schema of the results' structured content from it: derive it, `#[derive(serde::Serialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`, and return the data with `Structured(value)` or `ToolResult::with_structured`"
)]
pub trait ToolOutput {
    /// `Self`, seen with the bound the schema needs.
    type Schema: schemars::JsonSchema;
}

#[diagnostic::do_not_recommend]
impl<T: schemars::JsonSchema> ToolOutput for T {
    type Schema = T;
}

/// The output type of one tool (see the slots above).
pub trait OutputSlot {
    /// The output type.
    type Output: ToolOutput;
}

/// The portable schema of a tool's output type.
pub fn output_schema<S: OutputSlot>() -> Result<Value, SchemaError> {
    crate::tool::schema::portable_schema_for::<<S::Output as ToolOutput>::Schema>()
}

/// What `#[tool(prepare_arguments = f)]`'s `f` must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot prepare a tool's arguments",
    label = "not `fn(serde_json::Value) -> serde_json::Value`",
    note = "write `fn name(args: serde_json::Value) -> serde_json::Value` (or `-> Result<serde_json::Value, E>` with `E: Display`): pi calls it with the raw arguments before it validates them, in a short run of the binary, so it has no context or state"
)]
pub trait PrepareArgumentsFn<R> {
    /// Prepare `args`.
    fn prepare(&self, args: Value) -> Result<Value, String>;
}

impl<F: Fn(Value) -> Value> PrepareArgumentsFn<Value> for F {
    fn prepare(&self, args: Value) -> Result<Value, String> {
        Ok(self(args))
    }
}

impl<F: Fn(Value) -> Result<Value, E>, E: std::fmt::Display> PrepareArgumentsFn<Result<Value, E>>
    for F
{
    fn prepare(&self, args: Value) -> Result<Value, String> {
        self(args).map_err(|e| e.to_string())
    }
}

/// Run a `prepare_arguments` function.
pub fn prepare_with<F: PrepareArgumentsFn<R>, R>(f: F, args: Value) -> Result<Value, String> {
    f.prepare(args)
}

/// What a plain tool argument's type must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "needs `serde::Deserialize` and `schemars::JsonSchema`",
    note = "the model sends each argument as JSON and reads its schema: use a type that has both (`String`, numbers, `bool`, `Vec<T>`, `Option<T>`, …) or derive them on your own: `#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]` with `#[schemars(crate = \"pi_ext::schemars\")]`",
    note = "if it does derive `JsonSchema`, check that it is the schemars version pi-ext re-exports (`pi_ext::schemars`)"
)]
pub trait ToolArg: Sized {
    /// `Self`, seen with the bounds that decoding needs.
    type Decoded: serde::de::DeserializeOwned + schemars::JsonSchema;
    /// The identity.
    fn from_decoded(decoded: Self::Decoded) -> Self;
}

#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolArg for T {
    type Decoded = T;
    fn from_decoded(decoded: T) -> T {
        decoded
    }
}

/// What the type of an `#[arg(default)]` argument must be too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no default value for `#[arg(default)]`",
    label = "`#[arg(default)]` needs `Default`",
    note = "derive or implement `Default` for it, or drop `#[arg(default)]` (an `Option<T>` argument is optional without it)"
)]
pub trait ArgDefault {
    /// `Default::default()`.
    fn default_arg() -> Self;
}

#[diagnostic::do_not_recommend]
impl<T: Default> ArgDefault for T {
    fn default_arg() -> T {
        T::default()
    }
}

/// One plain tool argument (see the slots above).
pub trait ArgSlot {
    /// The argument's type.
    type Arg: ToolArg;
}

/// One plain tool argument with `#[arg(default)]`.
pub trait DefaultArgSlot {
    /// The argument's type.
    type Arg: ToolArg + ArgDefault;
}

// A field of the parameter struct the macro builds from plain arguments:
// decodes and describes itself as its slot's type (`Option<T>` stays
// optional). Its docs are `//` on purpose: a `///` doc would become schema
// metadata, and schemars would then not forward to the argument's schema.
#[derive(schemars::JsonSchema)]
#[schemars(bound = "S: ArgSlot", with = "<S::Arg as ToolArg>::Decoded")]
pub struct Arg<S: ArgSlot>(pub S::Arg);

impl<'de, S: ArgSlot> serde::Deserialize<'de> for Arg<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <<S::Arg as ToolArg>::Decoded as serde::Deserialize>::deserialize(deserializer)
            .map(|decoded| Arg(<S::Arg as ToolArg>::from_decoded(decoded)))
    }
}

// An `#[arg(default)]` field (`#[serde(default)]`): as [`Arg`], plus the
// default, which the schema shows when the type is `Serialize`.
#[derive(schemars::JsonSchema)]
#[schemars(bound = "S: DefaultArgSlot", with = "<S::Arg as ToolArg>::Decoded")]
pub struct DefaultArg<S: DefaultArgSlot>(pub S::Arg);

impl<'de, S: DefaultArgSlot> serde::Deserialize<'de> for DefaultArg<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <<S::Arg as ToolArg>::Decoded as serde::Deserialize>::deserialize(deserializer)
            .map(|decoded| DefaultArg(<S::Arg as ToolArg>::from_decoded(decoded)))
    }
}

impl<S: DefaultArgSlot> Default for DefaultArg<S> {
    fn default() -> Self {
        DefaultArg(<S::Arg as ArgDefault>::default_arg())
    }
}

impl<S: DefaultArgSlot> serde::Serialize for DefaultArg<S>
where
    S::Arg: serde::Serialize,
{
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        self.0.serialize(serializer)
    }
}

/// The future of an `async` tool, hook or command body, which must be
/// `Send`: the generated code passes it here spanned at the function's
/// signature, so that is where the error points. Boxed so that the call
/// around it need not check again. rustc words "future cannot be sent
/// between threads safely" itself (no `on_unimplemented` applies), so what
/// to do is the comment on the bound, which the error quotes.
pub fn must_be_send<'a, F>(body: F) -> Pin<Box<dyn Future<Output = F::Output> + Send + 'a>>
where
    F: Future + Send + 'a, // calls run on a multi-thread runtime: drop it before `.await`, or use `Arc` / `pi_ext::sync::Mutex`
{
    Box::pin(body)
}

/// Compile-time check that an argument typed `Ctx` is pi-ext's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not pi-ext's call context",
    label = "expected `pi_ext::Ctx`",
    note = "arguments whose type is named `Ctx` are treated as the call context; import `pi_ext::Ctx` (or rename your type)"
)]
pub trait IsCtx {
    /// The context, borrowed (`ctx: &Ctx`).
    fn by_ref(ctx: &Ctx) -> &Self;
    /// The context, owned (`ctx: Ctx`).
    fn owned(ctx: &Ctx) -> Self
    where
        Self: Sized;
}

impl IsCtx for Ctx {
    fn by_ref(ctx: &Ctx) -> &Ctx {
        ctx
    }
    fn owned(ctx: &Ctx) -> Ctx {
        ctx.clone()
    }
}

/// Compile-time check that a command's context argument is pi-ext's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a command context",
    label = "expected `pi_ext::CommandCtx` or `pi_ext::Ctx`",
    note = "a command takes `ctx: &CommandCtx` (or `&Ctx`)"
)]
pub trait IsCommandCtx {
    /// The context, borrowed (`ctx: &CommandCtx`).
    fn by_ref(ctx: &crate::CommandCtx) -> &Self;
    /// The context, owned (`ctx: CommandCtx`).
    fn owned(ctx: &crate::CommandCtx) -> Self
    where
        Self: Sized;
}

impl IsCommandCtx for crate::CommandCtx {
    fn by_ref(ctx: &crate::CommandCtx) -> &crate::CommandCtx {
        ctx
    }
    fn owned(ctx: &crate::CommandCtx) -> crate::CommandCtx {
        ctx.clone()
    }
}

impl IsCommandCtx for Ctx {
    fn by_ref(ctx: &crate::CommandCtx) -> &Ctx {
        ctx.ctx()
    }
    fn owned(ctx: &crate::CommandCtx) -> Ctx {
        ctx.ctx().clone()
    }
}

/// The definition of a `#[tool]` (its generated `<name>_tool()`).
pub fn tool_def(entry: &'static ToolEntry) -> crate::ToolDef {
    (entry.make)()
}

/// `#[tool(output = T)]`: [`crate::ToolBuilder::output`] of the slot's
/// type (generic, so a type without `JsonSchema` is reported once, at the slot).
pub fn tool_output<S: OutputSlot>(builder: crate::ToolBuilder) -> crate::ToolBuilder {
    builder.output::<<S::Output as ToolOutput>::Schema>()
}

/// Finish a `#[tool]`'s definition: the schema of the slot's parameters
/// and the generated call, which decodes them.
pub fn tool_handler<S: ParamsSlot>(
    builder: crate::ToolBuilder,
    call: fn(Ctx, Box<RawValue>) -> ToolFuture,
) -> crate::ToolDef {
    builder.finish(tool_schema::<S>(), Arc::new(call))
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
///
/// `R` is the hook's declared result type, spelled out by the generated
/// code so that an error about it points at the user's return type.
pub fn call_hook<E, R, F, Fut>(ctx: Ctx, input: HookInput, body: F) -> HookFuture
where
    E: Event,
    R: HookReturn<E::Output>,
    F: FnOnce(Ctx, E) -> Fut,
    Fut: Future<Output = R> + Send + 'static,
{
    match E::from_input(input) {
        Ok((event, shape)) => {
            let fut = body(ctx, event);
            Box::pin(async move { fut.await.into_hook().map(|out| out.into_answer(shape)) })
        }
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}

/// Decode an event and run a synchronous hook body on the blocking pool.
pub fn call_hook_blocking<E, R, F>(ctx: Ctx, input: HookInput, body: F) -> HookFuture
where
    E: Event,
    R: HookReturn<E::Output> + Send + 'static,
    F: FnOnce(Ctx, E) -> R + Send + 'static,
{
    match E::from_input(input) {
        Ok((event, shape)) => Box::pin(async move {
            on_blocking_pool("the hook", move || body(ctx, event))
                .await?
                .into_hook()
                .map(|out| out.into_answer(shape))
        }),
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}

/// The future of a `#[command(completions = f)]` function, whose items are
/// anything that converts into a [`crate::tui::Suggestion`].
pub fn complete_with<F, I>(fut: F) -> crate::command::CompletionFuture
where
    F: Future<Output = Vec<I>> + Send + 'static,
    I: Into<crate::command::Suggestion>,
{
    Box::pin(async move { fut.await.into_iter().map(Into::into).collect() })
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
