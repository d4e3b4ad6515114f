//! Tools: what one returns ([`IntoToolResult`]), how it takes its
//! arguments ([`Params`]) and its definition ([`ToolDef`], built by
//! `#[tool]` or by hand with [`ToolDef::builder`]).

mod nested;
pub mod schema;
pub mod truncate;

pub use nested::MAX_TOOL_DEPTH;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::context::Ctx;
use crate::data::content::{Content, ToolResult};
use crate::data::manifest::ToolManifest;
use crate::error::Error;
use crate::host::api::{Api, ApiError};
use crate::tool::schema::{portable_schema_for, SchemaError};

/// What a tool function may return: text (`String`, `&'static str`), a
/// [`ToolResult`] (content blocks and `details`), [`Content`],
/// `Vec<Content>` or `()` (an empty text), or `Result<T, E>` of one of those
/// with any `E: Display` (an `Err` reaches the model as an error result with
/// the error's message).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a pi tool",
    label = "not a tool result",
    note = "return `String`, `&'static str`, `pi_ext::ToolResult`, `Content`, `Vec<Content>` or `()`, optionally inside `Result<_, E>` where `E: Display` (e.g. `pi_ext::Error`, `anyhow::Error`)",
    note = "to return structured data, use `ToolResult::text(..).with_details(value)`"
)]
pub trait IntoToolResult {
    /// The result, or the error the model sees.
    ///
    /// # Errors
    ///
    /// The tool's error: it reaches the model as an error result.
    fn into_tool_result(self) -> Result<ToolResult, Error>;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(self)
    }
}
impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(self))
    }
}
impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(self))
    }
}
impl IntoToolResult for Content {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(ToolResult::from_content(vec![self]))
    }
}
impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(ToolResult::from_content(self))
    }
}
impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(""))
    }
}
impl<T: IntoToolResult, E: Into<Error>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        self.map_err(Into::into)?.into_tool_result()
    }
}

/// A structured result: the model gets `T` as JSON text, programmatic
/// callers (codemode scripts, [`Ctx::execute_tool`]) get it as
/// `structuredContent` (pi ≥ 0.99.0). Pair it with `#[tool(output = T)]`.
///
/// ```
/// use pi_ext::prelude::*;
/// use pi_ext::Structured;
///
/// #[derive(serde::Serialize, pi_ext::schemars::JsonSchema)]
/// #[schemars(crate = "pi_ext::schemars")]
/// struct Sum { total: i64 }
///
/// /// Add two numbers.
/// #[tool(output = Sum)]
/// async fn add(a: i64, b: i64) -> Structured<Sum> {
///     Structured(Sum { total: a + b })
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Structured<T>(pub T);

impl<T: Serialize> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> Result<ToolResult, Error> {
        let value = serde_json::to_value(&self.0)
            .map_err(|e| Error::new(format!("the tool's result does not serialize: {e}")))?;
        Ok(ToolResult::text(value.to_string()).with_structured(value))
    }
}

/// The outcome of one tool call as it goes on the wire (and as
/// [`crate::testing::TestHost::call`] returns it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutcome {
    /// Content blocks (the error message for failures).
    pub content: Vec<Content>,
    /// Details (`{}` for failures).
    pub details: Value,
    /// Whether pi marks the result as an error.
    #[serde(rename = "isError")]
    pub is_error: bool,
    /// Whether the agent stops after this batch of tool calls (pi's
    /// `terminate`, see [`ToolResult::terminate`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminate: bool,
    /// Machine-readable result matching the tool's output schema (pi's
    /// `structuredContent`, see [`ToolResult::with_structured`]).
    #[serde(
        default,
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
}

impl ToolOutcome {
    /// A failed call with this message.
    pub(crate) fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            details: Value::Object(Default::default()),
            is_error: true,
            terminate: false,
            structured_content: None,
        }
    }

    /// The text of all text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The outcome of a handler's return value.
    pub(crate) fn of(value: impl IntoToolResult) -> Self {
        match value.into_tool_result() {
            Ok(r) => Self {
                content: r.content,
                details: r.details,
                is_error: false,
                terminate: r.terminate,
                structured_content: r.structured_content,
            },
            Err(e) => Self::error(e.message()),
        }
    }
}

/// What [`Ctx::execute_tool`] returns: pi's `AgentToolCallOutcome`, the
/// nested call's final result after hooks ran.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCallOutcome {
    /// The nested call as pi made it (its id is `<calling id>/<n>`).
    pub tool_call: NestedToolCall,
    /// Its content blocks (the error message for failures).
    pub content: Vec<Content>,
    /// Its `details`.
    #[serde(default)]
    pub details: Value,
    /// Its `structuredContent`, for tools that declare an output schema.
    #[serde(default)]
    pub structured_content: Option<Value>,
    /// Whether it failed (unknown tool, invalid arguments, blocked, an error).
    pub is_error: bool,
    /// Whether the tool asked the agent to stop after the batch.
    #[serde(default)]
    pub terminate: bool,
    /// How long the tool ran, in milliseconds (`None`: it did not run).
    #[serde(default)]
    pub duration_ms: Option<f64>,
}

/// The call [`ToolCallOutcome`] is about.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NestedToolCall {
    /// pi's id of the nested call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments (as prepared by pi).
    #[serde(default)]
    pub arguments: Value,
}

impl ToolCallOutcome {
    /// The text of all text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The structured result decoded as `T`.
    ///
    /// # Errors
    ///
    /// When the call failed (the error is its text), gave no
    /// `structuredContent`, or it does not decode as `T`.
    pub fn structured<T: DeserializeOwned>(&self) -> Result<T, Error> {
        let name = &self.tool_call.name;
        if self.is_error {
            return Err(Error::new(format!("tool `{name}` failed: {}", self.text())));
        }
        let value = self
            .structured_content
            .clone()
            .ok_or_else(|| Error::new(format!("tool `{name}` gave no structured content")))?;
        serde_json::from_value(value).map_err(|e| {
            Error::new(format!(
                "the structured content of tool `{name}` does not decode: {e}"
            ))
        })
    }
}

/// Take the whole tool input as one struct, axum-style.
///
/// ```
/// use pi_ext::prelude::*;
///
/// #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
/// #[schemars(crate = "pi_ext::schemars")]
/// struct SearchArgs {
///     /// Text to look for.
///     query: String,
///     /// Stop after this many hits.
///     limit: Option<u32>,
/// }
///
/// /// Search the notes.
/// #[tool]
/// async fn search(Params(args): Params<SearchArgs>) -> String {
///     format!("searching {} (limit {:?})", args.query, args.limit)
/// }
/// # fn main() {}
/// ```
///
/// The struct must implement `serde::Deserialize` and
/// `schemars::JsonSchema` (use [`crate::schemars`], re-exported, to avoid a
/// version skew). Its schema is made portable by [`crate::tool::schema`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Params<T>(pub T);

/// The future a tool handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'static>>;

/// A type-erased tool handler: the call's context and its arguments as the
/// JSON text pi sent (each handler decodes them into its own type, with no
/// [`Value`] in between).
pub type ToolHandler = Arc<dyn Fn(Ctx, Box<RawValue>) -> ToolFuture + Send + Sync>;

/// pi's built-in tools (pi 1.6's list; 0.73.1 has no `powershell`). An
/// extension tool with one of these names replaces
/// the built-in (pi allows that); the runtime warns so it is never an accident.
pub const BUILTIN_TOOLS: &[&str] = pi_ext_macros::__builtin_tools!();

/// A tool, ready to register with pi.
///
/// `#[tool]` builds these at link time; [`ToolDef::builder`] builds one by
/// hand (for tools whose shape is only known at run time).
#[derive(Clone)]
pub struct ToolDef {
    /// Name the model calls it by.
    pub name: String,
    /// Label shown in pi's UI.
    pub label: String,
    /// Description sent to the model.
    pub description: String,
    /// One line for the "Available tools" section of pi's system prompt.
    pub prompt_snippet: Option<String>,
    /// Bullets added to the system prompt's guidelines while the tool is active.
    pub prompt_guidelines: Vec<String>,
    /// Portable parameter schema, or why it could not be made.
    pub parameters: Result<Value, SchemaError>,
    /// How long pi waits for a call before failing it (`None`: no deadline;
    /// the bridge's liveness check still notices a stuck process).
    pub timeout: Option<std::time::Duration>,
    /// Whether replacing pi's built-in tool of the same name is meant (no
    /// warning then).
    pub overrides_builtin: bool,
    /// How its rows look in pi's terminal, if not pi's default
    /// ([`crate::tui::ToolRender`]).
    #[cfg(feature = "tui")]
    pub render: Option<crate::tui::ToolRenderer>,
    /// Whether the rows draw their own framing: pi draws no coloured shell
    /// (padding, background) around them (pi's `renderShell: "self"`, pi
    /// 0.73.1 too; interactive mode only).
    pub own_shell: bool,
    /// Whether pi runs a batch of tool calls that includes this tool one
    /// call at a time (pi's `executionMode: "sequential"`); batches run in
    /// parallel otherwise.
    pub sequential: bool,
    /// Portable JSON Schema of the results' `structuredContent` (pi's
    /// `outputSchema`, pi ≥ 0.99.0; 0.73.1 ignores it), or why it could not
    /// be made. See [`ToolBuilder::output`].
    pub output_schema: Option<Result<Value, SchemaError>>,
    /// pi's definition fields that only say how the tool is reached or
    /// what it does (`annotations`, `defaultActive`, `exposure`,
    /// `namespace`, `constrainedSampling`, `reachesTools`).
    pub options: ToolOptions,
    /// Rewrites the raw arguments before pi validates them (pi's
    /// `prepareArguments`). See [`ToolBuilder::prepare_arguments`].
    pub prepare_arguments: Option<PrepareArguments>,
    /// The handler.
    pub handler: ToolHandler,
}

/// A tool's `prepareArguments`: the raw arguments of a call (as the model,
/// or an older session, wrote them) → the arguments pi validates against
/// the parameter schema, or why they cannot be prepared (the model gets
/// that as the call's error).
pub type PrepareArguments = fn(Value) -> Result<Value, String>;

pub use crate::data::manifest::{
    ConstrainedSampling, SamplingStrictness, ToolAnnotations, ToolExposure, ToolNamespace,
};

/// pi's tool definition fields about how the tool is reached and what it
/// does; all unset by default (pi's defaults apply). pi 0.73.1 ignores them
/// (the bridge says so once per field).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolOptions {
    /// pi's `annotations` (pi ≥ 0.99.0).
    pub annotations: Option<ToolAnnotations>,
    /// pi's `defaultActive` (`Some(false)`: registered inactive; pi ≥ 1.4.0).
    pub default_active: Option<bool>,
    /// pi's `exposure` (pi ≥ 0.99.0).
    pub exposure: Option<ToolExposure>,
    /// pi's `namespace` (pi ≥ 0.99.0).
    pub namespace: Option<ToolNamespace>,
    /// pi's `constrainedSampling` (pi ≥ 0.82.0).
    pub constrained_sampling: Option<ConstrainedSampling>,
    /// pi's `reachesTools` returning `"all"`: a call of this tool may reach
    /// every tool (for tools that call others, pi ≥ 1.2.0).
    pub reaches_all_tools: bool,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.name)
            .field("label", &self.label)
            .field("description", &self.description)
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

impl ToolDef {
    /// Start building a tool by hand.
    ///
    /// ```
    /// use pi_ext::{ToolDef, Error};
    ///
    /// #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
    /// #[schemars(crate = "pi_ext::schemars")]
    /// struct Args { a: i64, b: i64 }
    ///
    /// let add = ToolDef::builder("add")
    ///     .description("Add two integers.")
    ///     .handler(|_ctx, args: Args| async move {
    ///         Ok::<_, Error>(format!("{}", args.a + args.b))
    ///     });
    /// assert_eq!(add.label, "add");
    /// assert_eq!(add.parameters.unwrap()["required"], serde_json::json!(["a", "b"]));
    /// ```
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        let name = name.into();
        ToolBuilder {
            label: name.clone(),
            name,
            description: String::new(),
            prompt_snippet: None,
            prompt_guidelines: Vec::new(),
            timeout: None,
            overrides_builtin: false,
            #[cfg(feature = "tui")]
            render: None,
            own_shell: false,
            sequential: false,
            output_schema: None,
            options: ToolOptions::default(),
            prepare_arguments: None,
        }
    }
}

/// Builder for a [`ToolDef`]; finish it with [`ToolBuilder::handler`].
#[derive(Debug, Clone)]
#[must_use = "a tool builder does nothing until `.handler(..)` is called"]
pub struct ToolBuilder {
    name: String,
    label: String,
    description: String,
    prompt_snippet: Option<String>,
    prompt_guidelines: Vec<String>,
    timeout: Option<std::time::Duration>,
    overrides_builtin: bool,
    #[cfg(feature = "tui")]
    render: Option<crate::tui::ToolRenderer>,
    own_shell: bool,
    sequential: bool,
    output_schema: Option<Result<Value, SchemaError>>,
    options: ToolOptions,
    prepare_arguments: Option<PrepareArguments>,
}

impl ToolBuilder {
    /// Declare the type of the results' `structuredContent`: pi gets its
    /// portable JSON Schema as the tool's `outputSchema` (pi ≥ 0.99.0;
    /// 0.73.1 ignores it). Return the data with
    /// [`ToolResult::with_structured`] (or [`Structured`]): programmatic
    /// callers (codemode scripts, [`Ctx::execute_tool`]) get it instead of
    /// the text.
    pub fn output<T: JsonSchema>(mut self) -> Self {
        self.output_schema = Some(portable_schema_for::<T>());
        self
    }
    /// pi's `annotations`: hints about what the tool does (pi ≥ 0.99.0).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.options.annotations = Some(annotations);
        self
    }
    /// pi's `defaultActive`: `false` registers the tool inactive
    /// (`--tools`, the `defaultTools` setting or [`Api::set_active_tools`]
    /// activates it; pi ≥ 1.4.0).
    pub fn default_active(mut self, active: bool) -> Self {
        self.options.default_active = Some(active);
        self
    }
    /// pi's `exposure`: how the model reaches the tool (pi ≥ 0.99.0).
    pub fn exposure(mut self, exposure: ToolExposure) -> Self {
        self.options.exposure = Some(exposure);
        self
    }
    /// pi's `namespace`: the group of tools it belongs to (pi ≥ 0.99.0).
    pub fn namespace(mut self, namespace: ToolNamespace) -> Self {
        self.options.namespace = Some(namespace);
        self
    }
    /// pi's `constrainedSampling` of the arguments (pi ≥ 0.82.0).
    pub fn constrained_sampling(mut self, sampling: ConstrainedSampling) -> Self {
        self.options.constrained_sampling = Some(sampling);
        self
    }
    /// pi's `reachesTools` answering `"all"`: a call may reach any tool
    /// (for a tool that calls others, pi ≥ 1.2.0).
    pub fn reaches_all_tools(mut self) -> Self {
        self.options.reaches_all_tools = true;
        self
    }
    /// pi's `prepareArguments`: rewrite a call's raw arguments before pi
    /// validates them, e.g. to accept the shape an older session recorded
    /// while the schema stays strict. pi calls it synchronously, so the
    /// bridge runs it in a short run of the binary
    /// (`<bin> --pi-prepare-arguments <tool>`): it is a plain function,
    /// without the extension's state. Only for tools registered when the
    /// binary starts (`#[tool]`, [`crate::registry::Registry`]), not with
    /// [`Api::register_tool`]. pi 0.73.1 has it too.
    pub fn prepare_arguments(mut self, prepare: PrepareArguments) -> Self {
        self.prepare_arguments = Some(prepare);
        self
    }
    /// How the tool's rows look in pi's terminal (see [`crate::tui::ToolRender`]).
    #[cfg(feature = "tui")]
    pub fn render(self, render: impl crate::tui::ToolRender) -> Self {
        self.renderer(crate::tui::ToolRenderer::new(render))
    }
    /// [`ToolBuilder::render`] with a renderer already made (one
    /// [`crate::tui::ToolRenderer`] can draw several tools).
    #[cfg(feature = "tui")]
    pub fn renderer(mut self, renderer: crate::tui::ToolRenderer) -> Self {
        self.render = Some(renderer);
        self
    }
    /// Draw the tool's rows without pi's coloured shell around them (pi's
    /// `renderShell: "self"`): for rows that frame themselves.
    pub fn own_shell(mut self) -> Self {
        self.own_shell = true;
        self
    }
    /// Run a batch of tool calls that includes this tool one call at a
    /// time (pi's `executionMode: "sequential"`).
    pub fn sequential(mut self) -> Self {
        self.sequential = true;
        self
    }
    /// Fail a call that takes longer than `timeout` (pi gets an error
    /// result, the handler is cancelled).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    /// Say that replacing pi's built-in tool of the same name is meant.
    pub fn overrides_builtin(mut self) -> Self {
        self.overrides_builtin = true;
        self
    }
    /// UI label (defaults to the name).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
    /// Description for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
    /// One line for pi's "Available tools" list.
    pub fn prompt_snippet(mut self, snippet: impl Into<String>) -> Self {
        self.prompt_snippet = Some(snippet.into());
        self
    }
    /// Add a guideline bullet.
    pub fn prompt_guideline(mut self, guideline: impl Into<String>) -> Self {
        self.prompt_guidelines.push(guideline.into());
        self
    }

    /// Finish with a handler taking the context and the parameters `P`
    /// (any `Deserialize + JsonSchema` struct).
    pub fn handler<P, F, Fut>(self, handler: F) -> ToolDef
    where
        P: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(Ctx, P) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        let name: Arc<str> = self.name.clone().into();
        let handler: ToolHandler = Arc::new(move |ctx, args: Box<RawValue>| {
            let name = name.clone();
            match decode_args::<P>(&name, &args) {
                Ok(params) => {
                    let fut = handler(ctx, params);
                    Box::pin(async move { ToolOutcome::of(fut.await) })
                }
                Err(outcome) => Box::pin(std::future::ready(outcome)),
            }
        });
        self.finish(portable_schema_for::<P>(), handler)
    }

    /// The definition, with its parameter schema and a handler that takes
    /// the raw arguments (`#[tool]` decodes them in its generated code).
    pub(crate) fn finish(
        self,
        parameters: Result<Value, SchemaError>,
        handler: ToolHandler,
    ) -> ToolDef {
        ToolDef {
            name: self.name,
            label: self.label,
            description: self.description,
            prompt_snippet: self.prompt_snippet,
            prompt_guidelines: self.prompt_guidelines,
            parameters,
            timeout: self.timeout,
            overrides_builtin: self.overrides_builtin,
            #[cfg(feature = "tui")]
            render: self.render,
            own_shell: self.own_shell,
            sequential: self.sequential,
            output_schema: self.output_schema,
            options: self.options,
            prepare_arguments: self.prepare_arguments,
            handler,
        }
    }
}

impl ToolDef {
    /// This tool's manifest entry, with `parameters` as its schema.
    pub(crate) fn manifest(&self, parameters: Value) -> ToolManifest {
        ToolManifest {
            name: self.name.clone(),
            label: self.label.clone(),
            description: self.description.clone(),
            parameters,
            prompt_snippet: self.prompt_snippet.clone(),
            prompt_guidelines: self.prompt_guidelines.clone(),
            timeout_ms: self
                .timeout
                .map(|t| t.as_millis().try_into().unwrap_or(u64::MAX)),
            render: {
                #[cfg(feature = "tui")]
                let renders = self.render.is_some();
                #[cfg(not(feature = "tui"))]
                let renders = false;
                (renders || self.own_shell).then(|| crate::data::manifest::RenderManifest {
                    call: renders,
                    result: renders,
                    shell: self.own_shell.then(|| "self".to_string()),
                })
            },
            execution_mode: self.sequential.then(|| "sequential".to_string()),
            output_schema: self
                .output_schema
                .as_ref()
                .and_then(|s| s.as_ref().ok().cloned()),
            annotations: self.options.annotations,
            default_active: self.options.default_active,
            exposure: self.options.exposure,
            namespace: self.options.namespace.clone(),
            constrained_sampling: self.options.constrained_sampling.clone(),
            reaches_tools: self.options.reaches_all_tools.then(|| "all".to_string()),
            prepare_arguments: self.prepare_arguments.is_some(),
        }
    }
}

/// Deserialize tool arguments, naming the failing field path.
pub(crate) fn decode_args<P: DeserializeOwned>(
    tool: &str,
    args: &RawValue,
) -> Result<P, ToolOutcome> {
    // Straight from the text, without tracking the path: a call runs as
    // little distinct code as it can (in pi, between two calls, the
    // process's code is out of the CPU's caches). Only arguments that do not
    // fit are read again, as a `Value`, to say where.
    let first = match crate::wire::from_raw::<P>(args) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let Ok(value) = crate::wire::from_raw::<Value>(args) else {
        return Err(ToolOutcome::error(format!(
            "invalid arguments for tool `{tool}`: {first}"
        )));
    };
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        ToolOutcome::error(format!("invalid arguments for tool `{tool}`{at}: {inner}"))
    })
}

/// Whether `name` is a valid tool name for every provider (`^[A-Za-z0-9_-]{1,64}$`).
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

// Registering at run time is an `Api` call, but it is about tools: it
// lives here so that the API (below the tools) need not know `ToolDef`.
impl Api {
    /// Register a tool while pi runs (`pi.registerTool`): pi refreshes its
    /// tools at once and activates the new one. Registering a name again
    /// replaces the tool. `#[tool]` is sugar over the same [`crate::ToolDef`]s,
    /// registered at load time.
    ///
    /// ```no_run
    /// # async fn f(ctx: &pi_ext::Ctx) -> Result<(), pi_ext::api::ApiError> {
    /// use pi_ext::{ToolDef, Error};
    /// #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
    /// #[schemars(crate = "pi_ext::schemars")]
    /// struct Args { word: String }
    /// let shout = ToolDef::builder("shout")
    ///     .description("Upper-case a word.")
    ///     .handler(|_ctx, a: Args| async move { Ok::<_, Error>(a.word.to_uppercase()) });
    /// ctx.api().register_tool(shout).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ApiError`] for an invalid tool name or schema, or when pi refuses the tool.
    pub async fn register_tool(&self, tool: crate::ToolDef) -> Result<(), ApiError> {
        let fail = |message: String| ApiError {
            method: "registerTool".into(),
            message,
        };
        if !is_valid_tool_name(&tool.name) {
            return Err(fail(format!("invalid tool name `{}`", tool.name)));
        }
        let parameters = tool.parameters.clone().map_err(|e| fail(e.to_string()))?;
        if let Some(Err(e)) = &tool.output_schema {
            return Err(fail(format!("its output schema: {e}")));
        }
        if tool.prepare_arguments.is_some() {
            return Err(fail(format!(
                "tool `{}` has prepare_arguments, which only tools registered when the binary starts can have (`#[tool]`, the registry)",
                tool.name
            )));
        }
        let manifest = tool.manifest(parameters);
        self.shared
            .slots
            .get::<DynamicTools>()
            .0
            .write()
            .unwrap()
            .insert(tool.name.clone(), tool);
        self.call("registerTool", serde_json::json!([manifest]))
            .await
            .map(drop)
    }
}

/// Tools added with [`Api::register_tool`](crate::api::Api::register_tool),
/// kept per connection.
#[derive(Default)]
pub(crate) struct DynamicTools(
    pub(crate) std::sync::RwLock<std::collections::BTreeMap<String, ToolDef>>,
);

impl DynamicTools {
    /// The run-time tool `name` of this connection.
    pub(crate) fn get(shared: &crate::host::connection::Shared, name: &str) -> Option<ToolDef> {
        shared
            .slots
            .get::<DynamicTools>()
            .0
            .read()
            .unwrap()
            .get(name)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    struct Args {
        #[allow(dead_code)] // only decoded
        n: u8,
    }

    #[test]
    fn bad_args_name_the_field() {
        let args = serde_json::value::to_raw_value(&serde_json::json!({"n": 300})).unwrap();
        let err = decode_args::<Args>("t", &args).unwrap_err();
        assert!(err.is_error);
        let text = err.text();
        assert!(text.contains("`n`") && text.contains("300"), "{text}");
    }
}
