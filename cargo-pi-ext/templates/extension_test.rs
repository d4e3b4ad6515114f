//! The extension's tool, commands, hook, renderer and component, called
//! through pi-ext's in-process test host (the real protocol and
//! dispatcher, no pi needed).
use my_ext::MyExt;
use my_ext::ui::NameInput;
use my_ext::{greet_tool, hello_command, ready_hook, reset_command, stats_command};
use pi_ext::Mode;
use pi_ext::events::SessionStartEvent;
use pi_ext::registry::Registry;
use pi_ext::serde_json::json;
use pi_ext::testing::{TestComponent, TestHost};

/// Exactly this extension's items.
fn registry() -> Registry {
    Registry::new("my-ext", "0.1.0")
        .extension::<MyExt>()
        .tool(greet_tool())
        .command(stats_command())
        .command(reset_command())
        .command(hello_command())
        .hook(ready_hook())
}

/// A host serving them, as pi in RPC mode.
fn host() -> TestHost {
    TestHost::with_registry(registry())
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
fn the_reset_command_asks_first() {
    let host = host();
    host.call("greet", json!({ "name": "Ada" }));
    // The scripted user declines, then agrees.
    host.user().answers_confirm(false).answers_confirm(true);
    host.command("my-ext-reset", "").unwrap();
    assert_eq!(host.notifications(), Vec::<String>::new());
    host.command("my-ext-reset", "").unwrap();
    assert_eq!(host.notifications(), ["greetings forgotten"]);
    assert_eq!(
        host.call("greet", json!({ "name": "Lin" })).text(),
        "Hello, Lin! (greeting #1)"
    );
}

#[test]
fn a_greet_call_shows_its_name() {
    let row = host().render_call("greet", json!({ "name": "Ada" }), 40);
    assert_eq!(row.to_string(), "greet Ada");
    // The styles, as theme tokens (`insta::assert_snapshot!` takes it too).
    assert_eq!(
        row.styled().to_string(),
        "[toolTitle bold]greet [/][accent]Ada[/]"
    );
}

#[test]
fn the_name_input_takes_keys_and_gives_the_name() {
    let mut input = TestComponent::new(NameInput::default());
    input.type_text("Adx").key("backspace").type_text("a");
    assert_eq!(
        input.frame(40).to_string(),
        "Name: Ada\nenter to greet, escape to cancel"
    );
    // A narrow terminal cuts the line, as pi does.
    assert_eq!(input.frame(12).lines()[1], "enter to ...");
    input.key("enter");
    assert_eq!(input.result(), Some(&Some("Ada".to_string())));
}

#[test]
fn the_hello_command_greets_the_name_typed_in_its_box() {
    // pi's terminal: there `/my-ext-hello` opens its box.
    let host = TestHost::with_session(registry(), Mode::Interactive);
    host.command_with_component("my-ext-hello", "", |input| {
        input.type_text("Ada");
        assert_eq!(input.frame(40).lines()[0], "Name: Ada");
        input.key("enter");
    })
    .unwrap();
    assert_eq!(host.notifications(), ["Hello, Ada!"]);
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
    let commands: Vec<&str> = manifest.commands.iter().map(|c| c.name.as_str()).collect();
    // In the order `host()` adds them (linked items: in declaration order).
    assert_eq!(commands, ["my-ext-stats", "my-ext-reset", "my-ext-hello"]);
    assert_eq!(manifest.hooks[0].event, "session_start");
    // Every schema is portable, every registration went through.
    assert_eq!(pi_ext::testing::manifest_problems(), Vec::<String>::new());
}
