//! Every supported tool signature, exercised through the in-process host
//! (the real dispatcher and protocol, no pi).

use std::time::Duration;

use pi_ext::prelude::*;
use pi_ext::schemars;
use pi_ext::testing::{manifest_problems, TestHost};
use serde_json::json;

/// Add two integers.
#[tool(label = "Add", prompt_snippet = "add: add integers", prompt_guidelines = ["Use add for sums."])]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Repeat a word (a synchronous tool).
#[tool]
fn repeat(word: String, #[arg(description = "How often; default 2")] times: Option<u32>) -> String {
    vec![word; times.unwrap_or(2) as usize].join(" ")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct SearchArgs {
    /// Text to look for.
    query: String,
    /// Case-sensitive?
    #[serde(default)]
    exact: bool,
}

/// Search for text.
#[tool(name = "search_notes")]
async fn search(ctx: Ctx, Params(args): Params<SearchArgs>) -> ToolResult {
    ToolResult::text(format!("{} exact={}", args.query, args.exact)).with_details(json!({
        "tool": ctx.tool_name(),
        "callId": ctx.tool_call_id(),
    }))
}

/// Always fails with anyhow context.
#[tool]
async fn fails() -> anyhow::Result<String> {
    Err(anyhow::anyhow!("disk full").context("could not save"))
}

/// Panics.
#[tool]
async fn explode(message: String) -> String {
    panic!("{message}")
}

/// A synchronous tool that panics.
#[tool]
fn explode_sync() -> String {
    panic!("sync boom")
}

/// Prints to stdout, which must not disturb anything.
#[tool]
async fn chatty(#[arg(default)] n: u8) -> Result<&'static str, Error> {
    println!("chatty says {n}");
    Ok("said it")
}

/// Waits until cancelled.
#[tool]
async fn wait_for_cancel(ctx: &Ctx) -> String {
    ctx.cancelled().await;
    "stopped cleanly".into()
}

/// Gives up on a dialog after a short wait (the dialog future is dropped).
#[tool]
async fn impatient(ctx: &Ctx) -> String {
    tokio::select! {
        answer = ctx.ui().input("Name?", "") => format!("{answer:?}"),
        _ = tokio::time::sleep(Duration::from_millis(50)) => "gave up".into(),
    }
}

/// Asks a question in whatever mode pi runs.
#[tool]
async fn ask_once(ctx: &Ctx) -> String {
    format!("{:?}", ctx.ui().confirm("Sure?", "Go on?").await)
}

/// Collect the extension's messages until the answer to request `id`.
fn messages_until_answer(host: &TestHost, id: u64) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    loop {
        let msg = host
            .next_message(Duration::from_secs(10))
            .expect("an answer");
        let done = msg["id"] == id && msg.get("method").is_none();
        seen.push(msg);
        if done {
            return seen;
        }
    }
}

#[test]
fn a_dropped_dialog_future_dismisses_the_dialog() {
    let host = TestHost::new();
    host.send_line(&pi_ext::internals::request_line(
        41,
        "tool/call",
        &json!({"tool": "impatient", "args": {}}),
    ));
    let seen = messages_until_answer(&host, 41);
    let dialog = seen
        .iter()
        .find(|m| m["method"] == "ui/dialog")
        .expect("the dialog was requested");
    assert_eq!(dialog["params"]["method"], "input");
    assert_eq!(dialog["params"]["call"], 41);
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "cancel")
        .expect("dropping the future dismissed the dialog");
    assert_eq!(cancel["params"]["id"], dialog["id"]);
    assert_eq!(
        seen.last().unwrap()["result"]["content"][0]["text"],
        "gave up"
    );
}

#[test]
fn dialogs_without_ui_fail_at_once() {
    let host = TestHost::with_session(pi_ext::registry::Registry::linked(), Mode::Print);
    let out = host.call("ask_once", json!({}));
    assert_eq!(out.text(), "Err(NoUi)");
}

#[test]
fn plain_arguments_become_a_schema_and_a_call() {
    let host = TestHost::new();
    assert_eq!(host.call("add", json!({"a": 2, "b": 40})).text(), "42");
    let tool = host
        .manifest()
        .tools
        .iter()
        .find(|t| t.name == "add")
        .unwrap();
    assert_eq!(tool.label, "Add");
    assert_eq!(tool.description, "Add two integers.");
    assert_eq!(tool.prompt_snippet.as_deref(), Some("add: add integers"));
    assert_eq!(tool.prompt_guidelines, vec!["Use add for sums."]);
    assert_eq!(tool.parameters["required"], json!(["a", "b"]));
}

#[test]
fn optional_and_documented_arguments() {
    let host = TestHost::new();
    assert_eq!(host.call("repeat", json!({"word": "hi"})).text(), "hi hi");
    assert_eq!(
        host.call("repeat", json!({"word": "yo", "times": 3}))
            .text(),
        "yo yo yo"
    );
    let tool = host
        .manifest()
        .tools
        .iter()
        .find(|t| t.name == "repeat")
        .unwrap();
    assert_eq!(tool.label, "repeat");
    assert_eq!(tool.parameters["required"], json!(["word"]));
    assert_eq!(
        tool.parameters["properties"]["times"]["description"],
        "How often; default 2"
    );
}

#[test]
fn params_struct_and_details() {
    let host = TestHost::new();
    let out = host.call("search_notes", json!({"query": "todo"}));
    assert_eq!(out.text(), "todo exact=false");
    assert_eq!(out.details["tool"], "search_notes");
    assert_eq!(out.details["callId"], "test-search_notes");
    let tool = host
        .manifest()
        .tools
        .iter()
        .find(|t| t.name == "search_notes")
        .unwrap();
    assert_eq!(tool.parameters["required"], json!(["query"]));
    assert_eq!(
        tool.parameters["properties"]["query"]["description"],
        "Text to look for."
    );
}

#[test]
fn errors_reach_the_model_with_their_message() {
    let host = TestHost::new();
    let out = host.call("fails", json!({}));
    assert!(out.is_error);
    assert_eq!(out.text(), "could not save: disk full");
}

#[test]
fn wrong_arguments_name_the_field() {
    let host = TestHost::new();
    let out = host.call("add", json!({"a": "two", "b": 1}));
    assert!(out.is_error);
    assert!(out.text().contains("`a`"), "{}", out.text());
    let out = host.call("add", json!({"a": 1}));
    assert!(out.is_error);
    assert!(out.text().contains("missing field `b`"), "{}", out.text());
}

#[test]
fn panics_become_errors_and_the_host_keeps_serving() {
    let host = TestHost::new();
    let out = host.call("explode", json!({"message": "kaboom"}));
    assert!(out.is_error);
    assert_eq!(out.text(), "tool `explode` panicked: kaboom");
    let out = host.call("explode_sync", json!({}));
    assert!(out.is_error);
    assert!(out.text().contains("sync boom"), "{}", out.text());
    assert_eq!(host.call("add", json!({"a": 1, "b": 1})).text(), "2");
}

#[test]
fn unknown_tools_and_malformed_lines_get_errors() {
    let host = TestHost::new();
    let out = host.call("nope", json!({}));
    assert!(out.is_error);
    assert!(out.text().contains("no tool `nope`"), "{}", out.text());

    host.send_line(b"this is not json\n");
    let msg = host.next_message(Duration::from_secs(5)).unwrap();
    assert_eq!(msg["error"]["code"], -32700);
    assert_eq!(host.call("chatty", json!({})).text(), "said it");
}

#[test]
fn protocol_version_mismatch_is_refused_clearly() {
    let host = TestHost::new();
    let err = host
        .request("initialize", json!({"protocol": 99}))
        .unwrap_err();
    assert_eq!(err.code, pi_ext::internals::codes::VERSION_MISMATCH);
    assert!(err.message.contains("99") && err.message.contains("install"));
}

#[test]
fn cancel_fires_the_token() {
    let host = TestHost::new();
    let id = 777;
    host.send_line(&pi_ext::internals::request_line(
        id,
        "tool/call",
        &json!({"tool": "wait_for_cancel", "args": {}}),
    ));
    host.send_line(&pi_ext::internals::notification_line(
        "cancel",
        &json!({ "id": id }),
    ));
    let msg = host.next_message(Duration::from_secs(10)).unwrap();
    assert_eq!(msg["id"], id);
    assert_eq!(msg["result"]["content"][0]["text"], "stopped cleanly");
}

#[test]
fn every_schema_is_portable() {
    assert_eq!(manifest_problems(), Vec::<String>::new());
}
