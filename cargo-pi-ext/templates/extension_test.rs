//! The extension's tool, command and hook, called through pi-ext's
//! in-process test host (the real protocol and dispatcher, no pi needed).
use my_ext::MyExt;
use my_ext::{greet_tool, ready_hook, stats_command};
use pi_ext::events::SessionStartEvent;
use pi_ext::registry::Registry;
use pi_ext::serde_json::json;
use pi_ext::testing::TestHost;

/// A host serving exactly this extension's items.
fn host() -> TestHost {
    TestHost::with_registry(
        Registry::new("my-ext", "0.1.0")
            .extension::<MyExt>()
            .tool(greet_tool())
            .command(stats_command())
            .hook(ready_hook()),
    )
}

#[test]
fn greet_counts_greetings() {
    let host = host();
    let first = host.call("greet", json!({ "name": "Ada" }));
    assert_eq!(first.text(), "Hello, Ada! (greeting #1)");
    let second = host.call("greet", json!({ "name": "Lin" }));
    assert_eq!(second.text(), "Hello, Lin! (greeting #2)");
}

#[test]
fn an_empty_name_is_an_error_for_the_model() {
    let out = host().call("greet", json!({ "name": " " }));
    assert!(out.is_error);
    assert_eq!(out.text(), "name must not be empty");
}

#[test]
fn the_stats_command_tells_how_many_greetings() {
    let host = host();
    host.call("greet", json!({ "name": "Ada" }));
    host.command("my-ext-stats", "").unwrap();
    assert_eq!(host.notifications(), ["1 greeting(s) so far"]);
}

#[test]
fn the_ready_hook_sets_the_status_at_session_start() {
    let host = host();
    let start: SessionStartEvent = pi_ext::testing::event(json!({ "reason": "startup" }));
    host.hook(start).unwrap();
    assert_eq!(host.status("my-ext").as_deref(), Some("my-ext ready"));
}

#[test]
fn the_manifest_has_the_tool_command_and_hook_and_no_problems() {
    let host = host();
    let manifest = host.manifest();
    assert_eq!(manifest.tools[0].name, "greet");
    assert_eq!(manifest.commands[0].name, "my-ext-stats");
    assert_eq!(manifest.hooks[0].event, "session_start");
    // Every schema is portable, every registration went through.
    assert_eq!(pi_ext::testing::manifest_problems(), Vec::<String>::new());
}
