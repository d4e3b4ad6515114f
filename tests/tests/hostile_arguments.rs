//! Tool arguments that JavaScript produces and serde_json alone refuses
//! (half an emoji, deep nesting) reach Rust tools and hooks in the real pi:
//! `pi -p` finishes, and nobody waits out a timeout.

use std::time::Duration;

use pi_ext_e2e::json::tool_results;
use pi_ext_e2e::{install_example, PiEnv, Reply, ScriptedModel, ToolCall, DEFAULT_TIMEOUT};

fn tool_call(name: &str, raw_arguments: &str) -> Reply {
    Reply::tools([ToolCall {
        id: "call_1".into(),
        name: name.into(),
        arguments: raw_arguments.into(),
    }])
}

#[test]
fn half_an_emoji_in_a_tool_argument_reaches_the_rust_tool() {
    let model = ScriptedModel::start();
    // The model's arguments hold a lone surrogate escape: JavaScript keeps
    // it as half an emoji, and JSON.stringify in the bridge writes it back.
    model.push(tool_call("greet", r#"{"name":"Ada \ud83d"}"#));
    model.push(Reply::text("done"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "hello");
    let out = env
        .pi()
        .installed(&dir)
        .run_print("greet Ada", DEFAULT_TIMEOUT);
    assert!(out.success(), "pi -p failed: {}", out.stderr);
    let results = tool_results(&model.requests()[1]);
    assert!(
        results[0].1.starts_with("Hello, Ada \u{fffd}!"),
        "{results:?}"
    );
}

#[test]
fn deeply_nested_arguments_reach_the_rust_tool() {
    let model = ScriptedModel::start();
    // Far beyond serde_json's 128 levels; pi itself (its streaming JSON
    // parser) gives up somewhere below 3,000. An unknown property passes.
    let deep = format!(
        r#"{{"name":"Bo","extra":{}0{}}}"#,
        "[".repeat(1000),
        "]".repeat(1000)
    );
    model.push(tool_call("greet", &deep));
    model.push(Reply::text("done"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "hello");
    let out = env
        .pi()
        .installed(&dir)
        .run_print("greet Bo", DEFAULT_TIMEOUT);
    assert!(out.success(), "pi -p failed: {}", out.stderr);
    let results = tool_results(&model.requests()[1]);
    assert!(results[0].1.starts_with("Hello, Bo!"), "{results:?}");
}

#[test]
fn half_an_emoji_reaches_a_tool_call_hook_which_decides() {
    let model = ScriptedModel::start();
    model.push(tool_call(
        "bash",
        r#"{"command":"rm -rf /tmp/nothing-here \ud83d"}"#,
    ));
    model.push(Reply::text("done"));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "permission-gate");
    // With the old parser the hook never answered and pi waited out the
    // hook timeout, then blocked with "timed out". Keep that timeout long,
    // so only the hook's own answer can end the call in time.
    let out = env
        .pi()
        .installed(&dir)
        .env("PI_EXT_HOOK_TIMEOUT_MS", "600000")
        .run_print("clean up", Duration::from_secs(120));
    assert!(out.success(), "pi -p failed: {}", out.stderr);
    let results = tool_results(&model.requests()[1]);
    assert!(
        results[0].1.contains("no UI to ask"),
        "the hook itself must have decided: {results:?}"
    );
}
