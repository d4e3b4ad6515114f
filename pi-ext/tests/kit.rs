//! The in-process test kit (`pi_ext::testing`): hooks, commands, the
//! scripted user and the recorded UI calls.
use std::panic::{catch_unwind, AssertUnwindSafe};

use pi_ext::events::{InputAction, InputEvent, ToolCallAction, ToolCallEvent};
use pi_ext::prelude::*;
use pi_ext::testing::{event, DialogAnswer, DialogRequest, TestHost, UiCall};
use serde_json::json;

/// Blocks `rm`, and rewrites `ls` to `ls -la`.
#[hook]
async fn gate(event: ToolCallEvent) -> ToolCallAction {
    let command = event.input["command"].as_str().unwrap_or_default();
    if command.starts_with("rm ") {
        return ToolCallAction::block(format!("{command}: not here"));
    }
    if command == "ls" {
        return ToolCallAction::replace_input(json!({"command": "ls -la"}));
    }
    ToolCallAction::Continue
}

/// Fails on empty input, marks the rest handled.
#[hook]
async fn on_input(event: InputEvent) -> Result<InputAction, Error> {
    if event.text.is_empty() {
        return Err(Error::new("empty input"));
    }
    Ok(InputAction::Handled)
}

/// Asks where to deploy, then confirms, then says so.
#[command(name = "deploy", completions = ["staging", "production"])]
async fn deploy(ctx: &CommandCtx, args: String) -> Result<(), Error> {
    let ui = ctx.ui();
    let env = ui
        .select(format!("Deploy {args} to?"), ["staging", "production"])
        .await?;
    if !ui.confirm("Sure?", format!("deploy to {env}")).await? {
        ui.notify("not deployed", Level::Warning);
        return Ok(());
    }
    ui.set_status("deploy", Some(&format!("on {env}")));
    ui.notify(format!("deployed {args} to {env}"), Level::Info);
    Ok(())
}

/// Names the branch it would create.
#[command(name = "branch")]
async fn branch(ctx: &CommandCtx) -> Result<(), Error> {
    let name = ctx
        .ui()
        .input("Branch name", "feature/…")
        .timeout(std::time::Duration::from_secs(5))
        .await;
    match name {
        Ok(name) => ctx.ui().set_editor_text(format!("git switch -c {name}")),
        Err(e) => ctx.ui().notify(format!("no branch: {e}"), Level::Error),
    }
    Ok(())
}

#[test]
fn a_hook_blocks_rewrites_or_lets_through() {
    let host = TestHost::new();
    let call = |command: &str| host.hook(ToolCallEvent::new("bash", json!({"command": command})));
    assert_eq!(
        call("rm -rf x"),
        Ok(ToolCallAction::block("rm -rf x: not here"))
    );
    assert_eq!(
        call("ls"),
        Ok(ToolCallAction::ReplaceInput(json!({"command": "ls -la"})))
    );
    assert_eq!(call("pwd"), Ok(ToolCallAction::Continue));
}

#[test]
fn a_failing_hook_is_an_error_and_events_build_from_json() {
    let host = TestHost::new();
    let typed: InputEvent = event(json!({"text": "hi", "source": "rpc"}));
    assert_eq!(host.hook(typed), Ok(InputAction::Handled));
    let empty: InputEvent = event(json!({"source": "rpc"}));
    let err = host.hook(empty).unwrap_err();
    assert!(err.contains("empty input"), "{err}");
}

#[test]
fn a_command_opens_a_select_and_acts_on_the_answer() {
    let host = TestHost::new();
    host.user()
        .answers_select("production")
        .answers_with(|dialog| match dialog {
            DialogRequest::Confirm { message, .. } => {
                DialogAnswer::Confirm(message == "deploy to production")
            }
            _ => DialogAnswer::Cancel,
        });
    host.command("deploy", "v2").unwrap();
    assert_eq!(host.dialogs().len(), 2);
    assert_eq!(host.dialogs()[0].title(), "Deploy v2 to?");
    assert_eq!(host.status("deploy").as_deref(), Some("on production"));
    assert_eq!(
        host.ui_calls(),
        [
            UiCall::SetStatus {
                key: "deploy".into(),
                text: Some("on production".into())
            },
            UiCall::Notify {
                message: "deployed v2 to production".into(),
                level: Level::Info
            },
        ]
    );

    // Declined: another branch of the command.
    host.clear_ui_calls();
    host.user().answers_select("staging").answers_confirm(false);
    host.command("deploy", "v3").unwrap();
    assert_eq!(host.notifications(), ["not deployed"]);

    let values: Vec<String> = host
        .completions("deploy", "pro")
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(values, ["production"]);
}

#[test]
fn an_unanswered_dialog_fails_the_test_naming_it() {
    let host = TestHost::new();
    let failure = catch_unwind(AssertUnwindSafe(|| host.command("deploy", "v1")))
        .expect_err("an unanswered select must fail the test");
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("/deploy") && message.contains("\"Deploy v1 to?\""),
        "{message}"
    );
    // The host is still usable: the command got its dialog dismissed and ended.
    host.user().answers_select("staging").answers_confirm(true);
    host.command("deploy", "v1").unwrap();
    assert_eq!(host.status("deploy").as_deref(), Some("on staging"));
}

#[test]
fn an_answer_that_does_not_fit_fails_naming_the_dialog() {
    let host = TestHost::new();
    host.user().answers_select("moon");
    let failure = catch_unwind(AssertUnwindSafe(|| host.command("deploy", "v1")))
        .expect_err("an option the select does not have must fail the test");
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("\"moon\"") && message.contains("Deploy v1 to?"),
        "{message}"
    );
}

#[test]
fn inputs_time_out_on_a_virtual_clock_and_set_the_editor() {
    let host = TestHost::new();
    host.user().answers_input("kit").lets_time_out();
    host.command("branch", "").unwrap();
    assert_eq!(host.editor_text(), "git switch -c kit");
    host.command("branch", "").unwrap();
    let last = host.notifications().pop().unwrap_or_default();
    assert!(last.starts_with("no branch:"), "{last}");
    assert!(matches!(
        host.dialogs()[1],
        DialogRequest::Input { timeout: Some(t), .. } if t.as_secs() == 5
    ));
}
