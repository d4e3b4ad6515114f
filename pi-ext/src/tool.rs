//! Tools: what one returns ([`IntoToolResult`]), how it takes its
//! arguments ([`Params`]) and its definition ([`ToolDef`], built by
//! `#[tool]` or by hand with [`ToolDef::builder`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::api::{Api, ApiError};
use crate::content::{Content, ToolResult};
use crate::context::Ctx;
use crate::error::Error;
use crate::manifest::ToolManifest;
use crate::schema::{portable_schema_for, SchemaError};

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
}

impl ToolOutcome {
    /// A failed call with this message.
    pub(crate) fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            details: Value::Object(Default::default()),
            is_error: true,
            terminate: false,
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
            },
            Err(e) => Self::error(e.message()),
        }
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
/// version skew). Its schema is made portable by [`crate::schema`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Params<T>(pub T);

/// The future a tool handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'static>>;

/// A type-erased tool handler.
pub type ToolHandler = Arc<dyn Fn(Ctx, Value) -> ToolFuture + Send + Sync>;

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
    pub render: Option<crate::tui::ToolRenderer>,
    /// Whether pi runs a batch of tool calls that includes this tool one
    /// call at a time (pi's `executionMode: "sequential"`); batches run in
    /// parallel otherwise.
    pub sequential: bool,
    /// The handler.
    pub handler: ToolHandler,
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
            render: None,
            sequential: false,
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
    render: Option<crate::tui::ToolRenderer>,
    sequential: bool,
}

impl ToolBuilder {
    /// How the tool's rows look in pi's terminal (see [`crate::tui::ToolRender`]).
    pub fn render(mut self, render: impl crate::tui::ToolRender) -> Self {
        self.render = Some(crate::tui::ToolRenderer::new(render));
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
        let handler: ToolHandler = Arc::new(move |ctx, args| {
            let name = name.clone();
            match decode_args::<P>(&name, args) {
                Ok(params) => {
                    let fut = handler(ctx, params);
                    Box::pin(async move { ToolOutcome::of(fut.await) })
                }
                Err(outcome) => Box::pin(std::future::ready(outcome)),
            }
        });
        ToolDef {
            name: self.name,
            label: self.label,
            description: self.description,
            prompt_snippet: self.prompt_snippet,
            prompt_guidelines: self.prompt_guidelines,
            parameters: portable_schema_for::<P>(),
            timeout: self.timeout,
            overrides_builtin: self.overrides_builtin,
            render: self.render,
            sequential: self.sequential,
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
            render: self
                .render
                .as_ref()
                .map(|_| crate::manifest::RenderManifest {
                    call: true,
                    result: true,
                }),
            execution_mode: self.sequential.then(|| "sequential".to_string()),
        }
    }
}

/// Deserialize tool arguments, naming the failing field path.
pub(crate) fn decode_args<P: DeserializeOwned>(tool: &str, args: Value) -> Result<P, ToolOutcome> {
    serde_path_to_error::deserialize(args).map_err(|e| {
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
        let manifest = tool.manifest(parameters);
        self.shared
            .dynamic_tools
            .write()
            .unwrap()
            .insert(tool.name.clone(), tool);
        self.call("registerTool", serde_json::json!([manifest]))
            .await
            .map(drop)
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
        let err = decode_args::<Args>("t", serde_json::json!({"n": 300})).unwrap_err();
        assert!(err.is_error);
        let text = err.text();
        assert!(text.contains("`n`") && text.contains("300"), "{text}");
    }
}
