//! Explicit registration and per-connection state: a test host serves a
//! chosen set of items, two hosts never share an extension's state, plain
//! `fn` hooks and commands run on the blocking pool, hooks of one file
//! run in declaration order, and linked tools and commands reach pi in
//! declaration order (not by name, not in link order).

use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::{InputAction, InputEvent, ToolCallAction, ToolCallEvent};
use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Counts calls.
#[extension(name = "counter")]
#[derive(Default)]
struct Counter {
    calls: AtomicU64,
}

/// Count a call.
#[tool]
async fn count(counter: &Counter) -> String {
    (counter.calls.fetch_add(1, Ordering::Relaxed) + 1).to_string()
}

/// Add two numbers.
#[tool]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Declared first: runs first, whatever the names.
#[hook]
async fn zeta(_event: ToolCallEvent) -> ToolCallAction {
    ToolCallAction::Continue
}

/// Declared second.
#[hook]
async fn alpha(_event: ToolCallEvent) -> ToolCallAction {
    ToolCallAction::Continue
}

/// A plain `fn` command: it runs on the blocking pool, so it may block.
#[command]
fn block(_ctx: &CommandCtx) -> Result<(), Error> {
    // Panics on a runtime worker ("cannot start a runtime from within a
    // runtime"); fine on the blocking pool.
    tokio::runtime::Handle::current().block_on(async {});
    Ok(())
}

/// A plain `fn` hook, on the blocking pool too.
#[hook]
fn blocking_input(_event: InputEvent) -> InputAction {
    tokio::runtime::Handle::current().block_on(async {});
    InputAction::Continue
}

#[test]
fn a_host_serves_only_what_it_is_given() {
    let registry = Registry::new("chosen", "1.0.0").tool(add_tool());
    let host = TestHost::with_registry(registry);
    let names: Vec<_> = host.manifest().tools.iter().map(|t| &t.name).collect();
    assert_eq!(names, ["add"]);
    assert_eq!(host.call("add", json!({"a": 2, "b": 3})).text(), "5");
    assert!(host.call("count", json!({})).is_error);
    // Everything linked, for comparison.
    assert!(TestHost::new().manifest().tools.len() >= 2);
}

#[test]
fn two_hosts_keep_their_own_state() {
    let first = TestHost::with_registry(
        Registry::new("a", "1.0.0")
            .extension::<Counter>()
            .tool(count_tool()),
    );
    let second = TestHost::with_registry(
        Registry::new("b", "1.0.0")
            .extension::<Counter>()
            .tool(count_tool()),
    );
    assert_eq!(first.call("count", json!({})).text(), "1");
    assert_eq!(first.call("count", json!({})).text(), "2");
    assert_eq!(second.call("count", json!({})).text(), "1");
}

#[test]
fn a_tool_whose_extension_is_not_served_fails_clearly() {
    let host = TestHost::with_registry(Registry::new("c", "1.0.0").tool(count_tool()));
    let out = host.call("count", json!({}));
    assert!(out.is_error);
    assert!(out.text().contains("is not loaded"), "{}", out.text());
}

#[test]
fn plain_fn_hooks_and_commands_run_on_the_blocking_pool() {
    let host = TestHost::with_registry(
        Registry::new("d", "1.0.0")
            .command(block_command())
            .hook(blocking_input_hook()),
    );
    let out = host.request("command/call", json!({"command": "block", "args": ""}));
    assert_eq!(out, Ok(serde_json::Value::Null), "{out:?}");
    let hook = host.manifest().hooks[0].id.clone();
    let out = host.request(
        "hook/call",
        json!({"hook": hook, "payload": {"type": "input", "text": "x", "source": "interactive"}}),
    );
    assert!(out.is_ok(), "{out:?}");
}

#[test]
fn hooks_of_one_file_run_in_declaration_order() {
    let host = TestHost::with_registry(
        Registry::new("e", "1.0.0")
            .hook(alpha_hook())
            .hook(zeta_hook()),
    );
    let ids: Vec<_> = host.manifest().hooks.iter().map(|h| h.id.clone()).collect();
    assert_eq!(ids, ["registration::zeta", "registration::alpha"]);
}

/// Deliver the final answer and stop the agent.
#[tool(sequential)]
async fn final_answer(answer: String) -> ToolResult {
    ToolResult::text(answer).terminate()
}

/// Pick an environment.
#[command(completions = environments)]
async fn deploy(_ctx: &CommandCtx) {}

/// The environments starting with the typed prefix.
async fn environments(prefix: String) -> Vec<pi_ext::tui::Suggestion> {
    ["dev", "staging", "prod"]
        .into_iter()
        .filter(|e| e.starts_with(prefix.as_str()))
        .map(|e| pi_ext::tui::Suggestion::new(e).description(format!("deploy to {e}")))
        .collect()
}

/// Pick a colour: its completions carry escape sequences.
#[command(completions = colours)]
async fn paint(_ctx: &CommandCtx) {}

/// Completions whose texts write to the terminal if shown raw.
async fn colours(_prefix: String) -> Vec<pi_ext::tui::Suggestion> {
    vec![pi_ext::tui::Suggestion::new("\x1b[31mred\x1b[0m").description("\x1b]0;title\x07warm\r\n")]
}

#[test]
fn computed_completions_reach_pi_without_control_characters() {
    let host = TestHost::new();
    let items = host
        .request(
            "command/complete",
            json!({"command": "paint", "prefix": ""}),
        )
        .unwrap();
    let item = &items[0];
    for field in ["value", "label", "description"] {
        let text = item[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field}: {items}"));
        assert!(!text.chars().any(char::is_control), "{field}: {text:?}");
    }
    // What is left is the text, not nothing.
    assert_eq!(item["value"], item["label"]);
    assert!(item["value"].as_str().unwrap().contains("red"), "{items}");
    assert!(
        item["description"].as_str().unwrap().contains("warm"),
        "{items}"
    );
}

#[test]
fn sequential_tools_terminating_results_and_computed_completions_reach_pi() {
    let host = TestHost::new();
    let manifest = serde_json::to_value(host.manifest()).unwrap();
    let tool = |name: &str| {
        manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(tool("final_answer")["executionMode"], "sequential");
    assert!(tool("add").get("executionMode").is_none());

    let outcome = host
        .request(
            "tool/call",
            json!({"tool": "final_answer", "toolCallId": "c1", "args": {"answer": "42"}}),
        )
        .unwrap();
    assert_eq!(outcome["terminate"], true);
    let outcome = host
        .request(
            "tool/call",
            json!({"tool": "add", "toolCallId": "c2", "args": {"a": 1, "b": 1}}),
        )
        .unwrap();
    assert!(outcome.get("terminate").is_none(), "{outcome}");

    let command = |name: &str| {
        manifest["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(command("deploy")["dynamicCompletions"], true);
    assert!(command("block").get("dynamicCompletions").is_none());
    let items = host
        .request(
            "command/complete",
            json!({"command": "deploy", "prefix": "st"}),
        )
        .unwrap();
    assert_eq!(
        items,
        json!([{"value": "staging", "label": "staging", "description": "deploy to staging"}])
    );
    let err = host
        .request(
            "command/complete",
            json!({"command": "block", "prefix": ""}),
        )
        .unwrap_err();
    assert!(
        err.message.contains("`/block` computes no completions"),
        "{}",
        err.message
    );
}

/// Declared last, named first: pi gets it last.
#[tool]
async fn a_last() -> String {
    "last".into()
}

/// Declared after `/block`, `/deploy` and `/paint`: listed after them.
#[command]
async fn abort_all(_ctx: &CommandCtx) {}

/// A second `add`, declared after the first: left out.
mod twin {
    use pi_ext::prelude::*;

    /// Not the real `add`.
    #[tool(name = "add")]
    async fn add_again() -> String {
        "the twin".into()
    }
}

#[test]
fn linked_tools_and_commands_reach_pi_in_declaration_order_and_the_first_of_a_name_wins() {
    let host = TestHost::new();
    let manifest = host.manifest();
    let tools: Vec<&str> = manifest.tools.iter().map(|t| &*t.name).collect();
    assert_eq!(tools, ["count", "add", "final_answer", "a_last"]);
    let commands: Vec<&str> = manifest.commands.iter().map(|c| &*c.name).collect();
    assert_eq!(commands, ["block", "deploy", "paint", "abort_all"]);
    assert!(
        manifest
            .problems
            .iter()
            .any(|p| p == "tool `add` is registered twice; keeping the first"),
        "{:?}",
        manifest.problems
    );
    assert_eq!(host.call("add", json!({"a": 2, "b": 3})).text(), "5");
}

#[test]
fn explicit_tools_reach_pi_in_the_order_they_are_added() {
    let registry = Registry::new("f", "1.0.0")
        .tool(final_answer_tool())
        .tool(add_tool())
        .tool(a_last_tool())
        .tool(count_tool());
    let host = TestHost::with_registry(registry);
    let tools: Vec<String> = host
        .manifest()
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(tools, ["final_answer", "add", "a_last", "count"]);
}
