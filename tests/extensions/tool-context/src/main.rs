//! pi 1.6's context members and tool definition fields, gathered for the
//! end-to-end tests (`tests/tests/tool_context.rs`): a tool that runs other
//! tools (`Ctx::execute_tool`, `Ctx::tools`), one that calls itself until
//! the depth bound stops it, a tool with a structured output, prepared
//! arguments and annotations, a codemode-only and an inactive tool, and a
//! command that reports `ctx.*` and `pi.getSettings()`. pi 0.73.1 loads it
//! too (`tests/tests/old_pi.rs`): the hooks on `agent_settled` and
//! `project_trust` and the entry renderer are there for its notices.
use pi_ext::events::{AgentSettledEvent, ProjectTrust, ProjectTrustEvent};
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};
use pi_ext::{Structured, ToolCallOutcome};

#[extension(name = "tool-context")]
struct ToolContext;

/// What `add` returns to programmatic callers.
#[derive(serde::Serialize, serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Sum {
    /// a + b.
    total: i64,
}

/// Add two integers.
#[tool(
    output = Sum,
    read_only_hint = true,
    idempotent_hint = true,
    namespace = "math",
    prepare_arguments = legacy_args
)]
async fn add(a: i64, b: i64) -> Structured<Sum> {
    Structured(Sum { total: a + b })
}

/// Older sessions called `add` with `x` and `y`: rename them. `{"fail": …}`
/// is refused, to show how a refusal reaches the model.
fn legacy_args(args: Value) -> Result<Value, String> {
    if args.get("fail").is_some() {
        return Err("these arguments cannot be prepared".into());
    }
    match (args.get("x"), args.get("y")) {
        (Some(x), Some(y)) => Ok(json!({ "a": x, "b": y })),
        _ => Ok(args),
    }
}

/// Multiply two integers (only other tools can call it). Annotated as `add`
/// is: one notice for both on older pi.
#[tool(exposure = "codemode", read_only_hint = true)]
async fn multiply(a: i64, b: i64) -> String {
    (a * b).to_string()
}

/// A tool registered inactive.
#[tool(default_active = false)]
async fn dormant() -> &'static str {
    "awake"
}

/// The outcome of a nested call, as JSON text.
fn report(outcome: &ToolCallOutcome) -> String {
    let total = outcome.structured::<Sum>().ok().map(|s| s.total);
    json!({
        "id": outcome.tool_call.id,
        "name": outcome.tool_call.name,
        "isError": outcome.is_error,
        "text": outcome.text(),
        "structured": outcome.structured_content,
        "typedTotal": total,
    })
    .to_string()
}

/// Run the tool `tool` with the JSON arguments `args` and report the outcome.
#[tool(reaches_all_tools)]
async fn relay(ctx: &Ctx, tool: String, args: String) -> Result<String, Error> {
    let args: Value = serde_json::from_str(&args).map_err(|e| Error::new(e.to_string()))?;
    let outcome = ctx.execute_tool(&tool, args).await?;
    Ok(report(&outcome))
}

/// The names of the tools this tool can run.
#[tool]
async fn callable(ctx: &Ctx) -> Result<String, Error> {
    let mut names: Vec<String> = ctx.tools().await?.into_iter().map(|t| t.name).collect();
    names.sort();
    Ok(names.join(","))
}

/// Run itself until the nesting bound refuses; the error, or the inner text.
#[tool]
async fn recurse(ctx: &Ctx) -> String {
    match ctx.execute_tool("recurse", json!({})).await {
        Ok(outcome) => outcome.text(),
        Err(e) => format!("refused: {e}"),
    }
}

/// A JSON field for a `Result`: the value, or `{"error": message}`.
fn field<T: serde::Serialize, E: std::fmt::Display>(r: Result<T, E>) -> Value {
    match r {
        Ok(v) => json!(v),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// Report the context members and settings as one JSON notification.
#[command(name = "ctx-facts")]
async fn ctx_facts(ctx: &CommandCtx, _args: String) -> Result<(), Error> {
    let scoped = ctx.scoped_models().await.map(|list| {
        list.into_iter()
            .map(|s| json!({ "model": format!("{}/{}", s.model.provider, s.model.id), "thinking": s.thinking_level }))
            .collect::<Vec<_>>()
    });
    let settings = ctx.api().pi_settings().await.map(|s| {
        json!({
            "theme": s.theme,
            "defaultThinkingLevel": s.default_thinking_level,
            "enabledModels": s.enabled_models,
            "extra": s.extra,
        })
    });
    let options = ctx
        .system_prompt_options()
        .await
        .map(|o| json!({ "cwd": o.cwd, "selectedTools": o.selected_tools }));
    let facts = json!({
        "mode": ctx.mode(),
        "thinkingLevel": field(ctx.thinking_level().await),
        "apiThinkingLevel": field(ctx.api().thinking_level().await),
        "trusted": field(ctx.is_project_trusted().await),
        "scoped": field(scoped),
        "settings": field(settings),
        "promptOptions": field(options),
        "tools": field(ctx.tools().await.map(|t| t.len())),
        "allTools": field(ctx.api().all_tools().await.map(|all| {
            all.into_iter()
                .filter(|t| ["add", "multiply", "dormant", "relay"].contains(&t.name.as_str()))
                .map(|t| json!({
                    "name": t.name,
                    "exposure": t.exposure,
                    "namespace": t.namespace,
                    "annotations": t.annotations,
                    "reachesTools": t.reaches_tools,
                }))
                .collect::<Vec<_>>()
        })),
    });
    ctx.ui().notify(facts.to_string(), Level::Info);
    Ok(())
}

/// The thinking level as `ctx.thinkingLevel` and `pi.getThinkingLevel()`
/// give it (short enough for one terminal row).
#[command(name = "thinking")]
async fn thinking(ctx: &CommandCtx, _args: String) -> Result<(), Error> {
    let ctx_level = match ctx.thinking_level().await {
        Ok(level) => level.unwrap_or_else(|| "none".into()),
        Err(e) => format!("error {e}"),
    };
    let api_level = match ctx.api().thinking_level().await {
        Ok(level) => level,
        Err(e) => format!("error {e}"),
    };
    ctx.ui().notify(
        format!("thinking: ctx={ctx_level} api={api_level}"),
        Level::Info,
    );
    Ok(())
}

/// pi ≥ 0.80.4 only: nothing to do, the hook's notice on older pi is the point.
#[hook]
async fn settled(_event: AgentSettledEvent) {}

/// pi ≥ 0.79 only: leaves the decision to pi.
#[hook]
async fn trust(_event: ProjectTrustEvent) -> ProjectTrust {
    ProjectTrust::Undecided
}

/// `tool-context-note` entries (pi ≥ 0.80.4 draws them with this).
fn note(
    entry: &pi_ext::tui::RenderedEntry<Value>,
    _opts: pi_ext::tui::EntryOpts<'_>,
) -> pi_ext::tui::View {
    pi_ext::tui::View::text(format!("NOTE {}", entry.data.clone().unwrap_or_default()))
}
pi_ext::entry_renderer!("tool-context-note", note);

/// Send `args` as a user message that pi expands like typed input.
#[command(name = "expand")]
async fn expand(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let options = pi_ext::api::UserMessageOptions::new().expand_prompt_templates();
    if let Err(e) = ctx.api().send_user_message_with(args.trim(), options).await {
        ctx.ui().notify(format!("not sent: {e}"), Level::Error);
    }
    Ok(())
}

/// Say `args` back (what `/expand /echo …` runs).
#[command(name = "echo")]
async fn echo(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    ctx.ui()
        .notify(format!("echo: {}", args.trim()), Level::Info);
    Ok(())
}

pi_ext::main!();
