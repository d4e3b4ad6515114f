//! A port of pi's `examples/extensions/subagent/`: the `subagent` tool
//! delegates tasks to specialized agents, each a child pi with an isolated
//! context window.
//!
//! - Single mode: `{ agent, task }`.
//! - Parallel mode: `{ tasks: [{ agent, task }, ...] }` (at most 8, 4 at a
//!   time).
//! - Chain mode: `{ chain: [{ agent, task }, ...] }`, each step's
//!   `{previous}` replaced by the previous step's output.
//!
//! Agents are Markdown files with YAML front matter (`name`,
//! `description`, `tools`, `model`) in the agent directory's `agents/`
//! and, with `agentScope: "project"` or `"both"`, the nearest
//! `.pi/agents/` ([`agents`]); `agents/` and `prompts/` beside this crate
//! are the original's samples. Each child is started as the running pi was
//! (`ctx.pi_command()`) in JSON mode, and its `message_end` events are
//! collected as it prints them ([`child`]); the tool streams them with
//! `ctx.progress_with`. The rows in pi's terminal are [`rows`].
//!
//! The tool is registered when the session starts, not declared with
//! `#[tool]`: its description names the agent directory, as the original's
//! does, which is known only at run time.

mod agents;
mod child;
mod rows;

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pi_ext::events::{SessionStartEvent, ToolResultEvent, ToolResultPatch};
use pi_ext::prelude::*;
use pi_ext::serde_json::{json, Value};
use pi_ext::truncate::{truncate_head, TruncationOptions, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};
use pi_ext::{CancellationToken, ToolDef};
use serde::Deserialize;

use agents::{discover_agents, AgentConfig, AgentScope, Source};
use child::{final_output, run_single_agent, Dispatch, ResolvedAgent, SingleResult, Status};

const MAX_PARALLEL_TASKS: usize = 8;
const MAX_CONCURRENCY: usize = 4;
const PER_TASK_OUTPUT_CAP: usize = 50 * 1024;
const TRUNCATION_NOTICE_RESERVE: usize = 256;

// No doc comments on these structs: pi's schema has no text for the items.
#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct TaskItem {
    /// Name of the agent to invoke
    agent: String,
    /// Task to delegate to the agent
    task: String,
    /// Working directory for the agent process
    cwd: Option<String>,
}

#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct ChainItem {
    /// Name of the agent to invoke
    agent: String,
    /// Task with optional {previous} placeholder for prior output
    task: String,
    /// Working directory for the agent process
    cwd: Option<String>,
}

#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "camelCase")]
struct SubagentParams {
    /// Name of the agent to invoke (for single mode)
    agent: Option<String>,
    /// Task to delegate (for single mode)
    task: Option<String>,
    /// Array of {agent, task} for parallel execution
    tasks: Option<Vec<TaskItem>>,
    /// Array of {agent, task} for sequential execution
    chain: Option<Vec<ChainItem>>,
    /// Which agent directories to use. Default: "user". Use "both" to include project-local agents.
    #[schemars(extend("default" = "user"))]
    agent_scope: Option<AgentScope>,
    /// Prompt before running project-local agents. Default: true.
    #[schemars(extend("default" = true))]
    confirm_project_agents: Option<bool>,
    /// Working directory for the agent process (single mode)
    cwd: Option<String>,
}

/// The tool's `details`: the mode, each child's result, and whether the
/// call failed.
fn details(mode: &str, results: &[SingleResult], force_error: bool) -> Value {
    json!({
        "mode": mode,
        "results": results,
        "isError": force_error || results.iter().any(SingleResult::is_failed),
    })
}

/// A result: one text block and `details`.
fn answer(text: impl Into<String>, details: Value) -> ToolResult {
    ToolResult::text(text).with_details(details)
}

/// What a failed child left: its error, signal, stderr and output.
fn failure_evidence(result: &SingleResult) -> String {
    let mut evidence: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut add = |label: &str, value: Option<&str>| {
        let Some(text) = value.map(str::trim).filter(|t| !t.is_empty()) else {
            return;
        };
        if seen.iter().any(|s| s == text) {
            return;
        }
        seen.push(text.to_string());
        evidence.push(format!("{label}: {text}"));
    };
    add("Error", result.error_message.as_deref());
    add("Signal", result.termination_signal.as_deref());
    add("stderr", Some(&result.stderr));
    add("Assistant output", Some(&final_output(&result.messages)));
    if evidence.is_empty() {
        "(no output)".into()
    } else {
        evidence.join("\n\n")
    }
}

/// A child's output for the model: its evidence when it failed.
fn result_output(result: &SingleResult) -> String {
    if result.is_failed() {
        return failure_evidence(result);
    }
    or_no_output(final_output(&result.messages))
}

fn or_no_output(text: String) -> String {
    if text.is_empty() {
        "(no output)".into()
    } else {
        text
    }
}

/// One parallel task's output, cut to [`PER_TASK_OUTPUT_CAP`] bytes.
fn truncate_parallel_output(output: &str) -> String {
    if output.len() <= PER_TASK_OUTPUT_CAP {
        return output.to_string();
    }
    let mut end = PER_TASK_OUTPUT_CAP;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n\n[Output truncated: {} bytes omitted. Full output preserved in tool details.]",
        &output[..end],
        output.len() - end
    )
}

/// Output for the model, cut to pi's limits with room for a notice.
fn truncate_model_output(output: &str) -> String {
    let initial = truncate_head(output, TruncationOptions::default());
    if !initial.truncated {
        return output.to_string();
    }
    let body = truncate_head(
        output,
        TruncationOptions {
            max_lines: Some(DEFAULT_MAX_LINES - 2),
            max_bytes: Some(DEFAULT_MAX_BYTES - TRUNCATION_NOTICE_RESERVE),
        },
    );
    let omitted = initial.total_bytes - body.output_bytes;
    let notice = format!(
        "[Output truncated: {omitted} bytes omitted. Full output preserved in tool details.]"
    );
    if body.content.is_empty() {
        notice
    } else {
        format!("{}\n\n{notice}", body.content)
    }
}

/// Node's `path.resolve(base, path)`: `path` from `base`, `.` and `..`
/// resolved without touching the file system.
fn resolve(base: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in base.join(path).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The agent `name` as found from the task's working directory.
fn resolve_agent(
    agent_dir: &Path,
    default_cwd: &Path,
    scope: AgentScope,
    name: &str,
    cwd: Option<&str>,
) -> Result<ResolvedAgent, Error> {
    let cwd = resolve(default_cwd, cwd.unwrap_or("."));
    let discovery = discover_agents(agent_dir, &cwd, scope).map_err(Error::new)?;
    Ok(ResolvedAgent {
        agent: discovery.agents.iter().find(|a| a.name == name).cloned(),
        available: discovery.agents.iter().map(|a| a.name.clone()).collect(),
        cwd,
    })
}

/// The update pi shows while one child runs.
fn running(result: &SingleResult) -> String {
    let output = final_output(&result.messages);
    if output.is_empty() {
        "(running...)".into()
    } else {
        output
    }
}

/// Ask before running project agents, unless they come from the trusted
/// project's own `.pi/agents`. `false` when the user said no.
async fn approve_project_agents(
    ctx: &Ctx,
    selected: &[&ResolvedAgent],
    project_agents_dir: Option<&Path>,
) -> Result<bool, Error> {
    let mut by_path: Vec<&AgentConfig> = Vec::new();
    for agent in selected.iter().filter_map(|r| r.agent.as_ref()) {
        if agent.source == Source::Project
            && !by_path.iter().any(|a| a.file_path == agent.file_path)
        {
            by_path.push(agent);
        }
    }
    let trusted_dir = match project_agents_dir {
        Some(dir) if ctx.is_project_trusted().await? => Some(std::fs::canonicalize(dir)?),
        _ => None,
    };
    let requested: Vec<&AgentConfig> = by_path
        .into_iter()
        .filter(|agent| {
            let Some(trusted) = &trusted_dir else {
                return true;
            };
            let dir = agent.file_path.parent().unwrap_or(Path::new("/"));
            std::fs::canonicalize(dir).ok().as_ref() != Some(trusted)
        })
        .collect();
    if requested.is_empty() {
        return Ok(true);
    }
    let sources: Vec<String> = requested
        .iter()
        .map(|a| format!("- {}: {}", a.name, a.file_path.display()))
        .collect();
    let message = format!(
        "Sources:\n{}\n\nProject agents are repo-controlled. Only continue for trusted repositories.",
        sources.join("\n")
    );
    Ok(ctx
        .ui()
        .confirm("Run project-local agents?", message)
        .await
        .unwrap_or(false))
}

/// The tool's work (the original's `execute`).
async fn execute(ctx: Ctx, params: SubagentParams) -> Result<ToolResult, Error> {
    let agent_dir = ctx.agent_dir()?;
    let scope = params.agent_scope.unwrap_or_default();
    let model = ctx
        .model()
        .await?
        .and_then(|m| Some(format!("{}/{}", m["provider"].as_str()?, m["id"].as_str()?)));
    let dispatch = Dispatch {
        model,
        thinking_level: ctx.thinking_level().await?,
        pi: ctx.pi_command().cloned(),
    };
    let discovery = discover_agents(&agent_dir, ctx.cwd(), scope).map_err(Error::new)?;
    let confirm = params.confirm_project_agents.unwrap_or(true);
    let chain = params.chain.unwrap_or_default();
    let tasks = params.tasks.unwrap_or_default();
    let single = match (&params.agent, &params.task) {
        (Some(agent), Some(task)) if !agent.is_empty() && !task.is_empty() => {
            Some((agent.clone(), task.clone()))
        }
        _ => None,
    };
    let modes = usize::from(!chain.is_empty())
        + usize::from(!tasks.is_empty())
        + usize::from(single.is_some());
    let available = || {
        let listed: Vec<String> = discovery
            .agents
            .iter()
            .map(|a| format!("{} ({})", a.name, a.source.name()))
            .collect();
        if listed.is_empty() {
            "none".to_string()
        } else {
            listed.join(", ")
        }
    };
    if modes != 1 {
        return Ok(answer(
            format!(
                "Invalid parameters. Provide exactly one mode.\nAvailable agents: {}",
                available()
            ),
            details("single", &[], true),
        ));
    }

    let resolve_all = |items: Vec<(&str, Option<&str>)>| -> Result<Vec<ResolvedAgent>, Error> {
        items
            .into_iter()
            .map(|(agent, cwd)| resolve_agent(&agent_dir, ctx.cwd(), scope, agent, cwd))
            .collect()
    };
    let resolved_chain = resolve_all(
        chain
            .iter()
            .map(|s| (s.agent.as_str(), s.cwd.as_deref()))
            .collect(),
    )?;
    let resolved_tasks = resolve_all(
        tasks
            .iter()
            .map(|t| (t.agent.as_str(), t.cwd.as_deref()))
            .collect(),
    )?;
    let resolved_single = match &params.agent {
        Some(agent) => Some(resolve_agent(
            &agent_dir,
            ctx.cwd(),
            scope,
            agent,
            params.cwd.as_deref(),
        )?),
        None => None,
    };

    let mode = if !chain.is_empty() {
        "chain"
    } else if !tasks.is_empty() {
        "parallel"
    } else {
        "single"
    };
    if scope != AgentScope::User && confirm && ctx.has_ui() {
        let selected: Vec<&ResolvedAgent> = match mode {
            "chain" => resolved_chain.iter().collect(),
            "parallel" => resolved_tasks.iter().collect(),
            _ => resolved_single.iter().collect(),
        };
        let dir = discovery.project_agents_dir.as_deref();
        if !approve_project_agents(&ctx, &selected, dir).await? {
            return Ok(answer(
                "Canceled: project-local agents not approved.",
                details(mode, &[], false),
            ));
        }
    }

    let cancel = ctx.cancellation().clone();
    if !chain.is_empty() {
        let mut results: Vec<SingleResult> = Vec::new();
        let mut previous = String::new();
        for (i, (step, resolved)) in chain.iter().zip(&resolved_chain).enumerate() {
            let task = step.task.replace("{previous}", &previous);
            let done = results.clone();
            let update = |current: &SingleResult| {
                let mut all = done.clone();
                all.push(current.clone());
                ctx.progress_with(answer(running(current), details("chain", &all, false)));
            };
            let result = run_single_agent(
                &dispatch,
                resolved,
                &step.agent,
                &task,
                Some(i + 1),
                &cancel,
                &update,
            )
            .await;
            let failed = result.is_failed();
            results.push(result);
            let last = results.last().expect("just pushed");
            if failed {
                let text = format!(
                    "Chain stopped at step {} ({}): {}",
                    i + 1,
                    step.agent,
                    result_output(last)
                );
                return Ok(answer(
                    truncate_model_output(&text),
                    details("chain", &results, false),
                ));
            }
            previous = final_output(&last.messages);
        }
        let last = results.last().map(|r| final_output(&r.messages));
        let text = or_no_output(last.unwrap_or_default());
        return Ok(answer(
            truncate_model_output(&text),
            details("chain", &results, false),
        ));
    }

    if !tasks.is_empty() {
        if tasks.len() > MAX_PARALLEL_TASKS {
            return Ok(answer(
                format!(
                    "Too many parallel tasks ({}). Max is {MAX_PARALLEL_TASKS}.",
                    tasks.len()
                ),
                details("parallel", &[], true),
            ));
        }
        let results = run_parallel(&ctx, dispatch, tasks, resolved_tasks, cancel).await;
        let succeeded = results.iter().filter(|r| !r.is_failed()).count();
        let summaries: Vec<String> = results
            .iter()
            .map(|r| {
                let output = truncate_parallel_output(&result_output(r));
                let status = r.status.name();
                let status = match &r.stop_reason {
                    Some(reason) if r.is_failed() && !reason.is_empty() && reason != "end" => {
                        format!("{status} ({reason})")
                    }
                    _ => status.to_string(),
                };
                format!("### [{}] {status}\n\n{output}", r.agent)
            })
            .collect();
        let text = format!(
            "Parallel: {succeeded}/{} succeeded\n\n{}",
            results.len(),
            summaries.join("\n\n---\n\n")
        );
        return Ok(answer(text, details("parallel", &results, false)));
    }

    if let (Some((agent, task)), Some(resolved)) = (single, resolved_single) {
        let update = |current: &SingleResult| {
            let partial = answer(
                running(current),
                details("single", std::slice::from_ref(current), false),
            );
            ctx.progress_with(partial);
        };
        let result =
            run_single_agent(&dispatch, &resolved, &agent, &task, None, &cancel, &update).await;
        let text = if result.is_failed() {
            let reason = result.stop_reason.clone().filter(|r| !r.is_empty());
            let how = reason.unwrap_or_else(|| result.status.name().to_string());
            format!("Agent {how}: {}", result_output(&result))
        } else {
            or_no_output(final_output(&result.messages))
        };
        return Ok(answer(
            truncate_model_output(&text),
            details("single", &[result], false),
        ));
    }

    Ok(answer(
        format!("Invalid parameters. Available agents: {}", available()),
        details("single", &[], true),
    ))
}

/// Parallel mode: each task in a child, [`MAX_CONCURRENCY`] at a time,
/// every change shown as an update of all of them.
async fn run_parallel(
    ctx: &Ctx,
    dispatch: Dispatch,
    tasks: Vec<TaskItem>,
    resolved: Vec<ResolvedAgent>,
    cancel: CancellationToken,
) -> Vec<SingleResult> {
    let placeholders: Vec<SingleResult> = tasks
        .iter()
        .map(|t| child::unstarted(&t.agent, &t.task, None, Status::Pending, None))
        .collect();
    let all = Arc::new(Mutex::new(placeholders));
    let emit = {
        let (ctx, all) = (ctx.clone(), all.clone());
        Arc::new(move || {
            let all = all.lock().unwrap().clone();
            let count = |s: Status| all.iter().filter(|r| r.status == s).count();
            let (running, pending) = (count(Status::Running), count(Status::Pending));
            let done = all.len() - running - pending;
            let text = format!(
                "Parallel: {done}/{} done, {running} running, {pending} pending...",
                all.len()
            );
            ctx.progress_with(answer(text, details("parallel", &all, false)));
        })
    };
    let jobs: Arc<Vec<(TaskItem, ResolvedAgent)>> =
        Arc::new(tasks.into_iter().zip(resolved).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let dispatch = Arc::new(dispatch);
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..MAX_CONCURRENCY.min(jobs.len()).max(1) {
        let (jobs, next, all, emit) = (jobs.clone(), next.clone(), all.clone(), emit.clone());
        let (dispatch, cancel) = (dispatch.clone(), cancel.clone());
        workers.spawn(async move {
            loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some((task, resolved)) = jobs.get(index) else {
                    return;
                };
                let update = |current: &SingleResult| {
                    all.lock().unwrap()[index] = current.clone();
                    emit();
                };
                let result = run_single_agent(
                    &dispatch,
                    resolved,
                    &task.agent,
                    &task.task,
                    None,
                    &cancel,
                    &update,
                )
                .await;
                all.lock().unwrap()[index] = result;
                emit();
            }
        });
    }
    while workers.join_next().await.is_some() {}
    let results = all.lock().unwrap().clone();
    results
}

/// The tool's description, naming the agent directory.
fn description(agent_dir: &Path) -> String {
    [
        "Delegate tasks to specialized subagents with isolated context.".to_string(),
        "Modes: single (agent + task), parallel (tasks array), chain (sequential with {previous} placeholder).".to_string(),
        format!(
            "Default agent scope is \"user\" (from {}).",
            agent_dir.join("agents").display()
        ),
        "To enable project-local agents in .pi/agents, set agentScope: \"both\" (or \"project\").".to_string(),
    ]
    .join(" ")
}

/// Register `subagent` when the first session starts.
#[hook]
async fn register(ctx: &Ctx, state: &Subagent, _event: SessionStartEvent) -> Result<(), Error> {
    if state.registered.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let def = ToolDef::builder("subagent")
        .label("Subagent")
        .description(description(&ctx.agent_dir()?))
        .render(rows::SubagentRows)
        .handler(execute);
    ctx.api().register_tool(def).await?;
    Ok(())
}

/// A result whose details say it failed is an error (a tool's result
/// cannot say so itself in the original).
#[hook]
async fn mark_errors(event: ToolResultEvent) -> ToolResultPatch {
    if event.tool_name == "subagent" && event.details["isError"] == true {
        return ToolResultPatch {
            is_error: Some(true),
            ..Default::default()
        };
    }
    ToolResultPatch::default()
}

/// The subagent extension: whether its tool is registered yet.
#[extension(name = "subagent")]
#[derive(Default)]
struct Subagent {
    registered: AtomicBool,
}

pi_ext::main!();
