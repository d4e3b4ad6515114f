//! The in-process test kit (`pi_ext::testing`): hooks, commands, the
//! scripted user, the recorded UI calls, renderers' snapshots and
//! components driven by hand.
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

#[cfg(feature = "tui")]
mod drawing {
    //! Renderers and components, drawn at a width.
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::time::Duration;

    use pi_ext::prelude::*;
    use pi_ext::serde_json::{json, Value};
    use pi_ext::testing::{Snapshot, TestComponent, TestHost};
    use pi_ext::tui::{
        span, Area, Bg, CallRow, Component, Cx, Fg, Frame, Key, MessageOpts, RenderedMessage,
        ResultRow, ToolRender, ToolRenderer, View,
    };

    #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
    #[schemars(crate = "pi_ext::schemars")]
    struct TodoArgs {
        title: String,
    }

    /// The rows of `todo`: the title; `✓ Added #n`, the title when expanded.
    struct TodoRows;
    impl ToolRender for TodoRows {
        type Args = TodoArgs;
        type Details = Value;
        fn call(&self, row: &CallRow<TodoArgs>) -> View {
            let title = row.args().map_or("…", |a| a.title.as_str());
            View::text(
                span("todo ").fg(Fg::ToolTitle).bold() + span(format!("\"{title}\"")).fg(Fg::Dim),
            )
        }
        fn result(&self, row: &ResultRow<TodoArgs, Value>) -> View {
            if row.is_error() {
                return View::text(span(row.text()).fg(Fg::Error));
            }
            let n = row.raw_details()["id"].as_u64().unwrap_or(0);
            let mut view = View::text(span("✓").fg(Fg::Success) + span(format!(" Added #{n}")));
            if row.expanded() {
                let title = row.args().map_or("", |a| a.title.as_str());
                view = view.line(span(format!("  {title}")).fg(Fg::Muted));
            }
            view
        }
    }

    /// Add a todo.
    #[tool(render = TodoRows)]
    async fn todo(Params(args): Params<TodoArgs>) -> Result<ToolResult, Error> {
        if args.title.is_empty() {
            return Err(Error::new("a todo needs a title"));
        }
        Ok(ToolResult::text(format!("added {}", args.title)).with_details(json!({"id": 7})))
    }

    /// `bash` calls drawn as a prompt; its results left to pi.
    struct BashRows;
    impl ToolRender for BashRows {
        type Args = Value;
        type Details = Value;
        fn call(&self, row: &CallRow<Value>) -> View {
            let command = row.raw_args()["command"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            View::spread(
                span("$ ").fg(Fg::Accent) + span(command),
                span("bash").fg(Fg::Dim),
            )
        }
    }
    fn bash_rows() -> ToolRenderer {
        ToolRenderer::new(BashRows)
    }
    pi_ext::tool_renderer!("bash", bash_rows);

    /// A renderer that panics.
    struct Broken;
    impl ToolRender for Broken {
        type Args = Value;
        type Details = Value;
        fn call(&self, _: &CallRow<Value>) -> View {
            panic!("broken renderer")
        }
    }
    fn broken_rows() -> ToolRenderer {
        ToolRenderer::new(Broken)
    }
    pi_ext::tool_renderer!("broken", broken_rows);

    #[derive(serde::Deserialize)]
    struct Status {
        level: String,
    }

    #[message_renderer("kit-status")]
    fn status(msg: &RenderedMessage<Status>, opts: MessageOpts) -> Option<View> {
        let level = &msg.details.as_ref()?.level;
        let mut view = View::text(
            span(format!("[{}] ", level.to_uppercase())).fg(Fg::Warning) + span(&*msg.content),
        );
        if opts.expanded {
            view = view.line(span("(expanded)").fg(Fg::Dim));
        }
        Some(view.boxed(Bg::CustomMessageBg, 1, 0))
    }

    #[test]
    fn a_tools_rows_draw_collapsed_expanded_and_as_an_error() {
        let host = TestHost::new();
        let args = json!({"title": "buy milk"});
        insta::assert_snapshot!(host.render_call("todo", args.clone(), 40).styled(), @r#"[toolTitle bold]todo [/][dim]"buy milk"[/]"#);
        let out = host.call("todo", args.clone());
        let collapsed = host.render_result("todo", args.clone(), &out, 40);
        insta::assert_snapshot!(collapsed.styled(), @"[success]✓[/] Added #7");
        host.expand_tools(true);
        let expanded = host.render_result("todo", args.clone(), &out, 40);
        insta::assert_snapshot!(expanded, @r"
        ✓ Added #7
          buy milk
        ");
        let failed = host.call("todo", json!({"title": ""}));
        let error = host.render_result("todo", json!({"title": ""}), &failed, 40);
        insta::assert_snapshot!(error.styled(), @"[error]a todo needs a title[/]");
        // Narrow: wrapped between words, as pi-tui wraps.
        assert_eq!(
            host.render_result("todo", json!({"title": ""}), &failed, 10)
                .lines(),
            ["a todo", "needs a", "title"]
        );
    }

    #[test]
    fn another_tools_rows_and_a_panicking_renderer_and_a_missing_one() {
        let host = TestHost::new();
        let bash = host.render_call("bash", json!({"command": "ls -la"}), 20);
        insta::assert_snapshot!(bash.styled(), @"[accent]$ [/]ls -la        [dim]bash[/]");
        // The result slot is left to pi.
        let out = host.call("todo", json!({"title": "x"}));
        assert_eq!(
            host.render_result("bash", json!({}), &out, 20).to_string(),
            "<builtin>"
        );
        // A panicking renderer: pi's own rendering, and the host goes on.
        assert_eq!(
            host.render_call("broken", json!({}), 20).to_string(),
            "<builtin>"
        );
        let missing = catch_unwind(AssertUnwindSafe(|| host.render_call("nope", json!({}), 20)))
            .expect_err("no renderer for `nope`");
        let msg = missing
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            msg.contains("`nope`") && msg.contains("no renderer"),
            "{msg}"
        );
    }

    #[test]
    fn a_custom_message_draws_in_its_box_or_in_pis_default_look() {
        let host = TestHost::new();
        let details = json!({"level": "warn"});
        let drawn = host
            .render_message("kit-status", "disk almost full", details.clone(), 16)
            .unwrap();
        insta::assert_snapshot!(drawn, @r"
         [WARN] disk
         almost full
        ");
        insta::assert_snapshot!(drawn.styled(), @r"
        [bg:customMessageBg] [/][warning bg:customMessageBg][WARN] [/][bg:customMessageBg]disk    [/]
        [bg:customMessageBg] almost full    [/]
        ");
        host.expand_tools(true);
        let expanded = host
            .render_message("kit-status", "ok", details, 16)
            .unwrap();
        assert_eq!(expanded.lines(), [" [WARN] ok", " (expanded)"]);
        assert!(host
            .render_message("kit-status", "no details", Value::Null, 16)
            .is_none());
        assert!(host
            .render_message("other-type", "x", json!({}), 16)
            .is_none());
        // A view built by hand lays out the same way.
        let by_hand = View::text("a b").boxed(Bg::CustomMessageBg, 1, 0);
        assert_eq!(Snapshot::of_view(&by_hand, 5).to_string(), " a b");
    }

    /// A list to pick from: up/down move, Enter picks, Escape gives nothing;
    /// the cursor blinks every 500 ms.
    struct Picker {
        items: Vec<&'static str>,
        at: usize,
        blink: bool,
        filter: String,
    }

    impl Component for Picker {
        type Output = Option<&'static str>;
        fn on_open(&mut self, cx: &mut Cx<Self>) {
            cx.tick_every(Duration::from_millis(500));
        }
        fn on_tick(&mut self, _: &mut Cx<Self>) {
            self.blink = !self.blink;
        }
        fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
            if key.is("down") {
                self.at = (self.at + 1).min(self.items.len() - 1);
            } else if key.is("up") {
                self.at = self.at.saturating_sub(1);
            } else if key.is("enter") {
                cx.done(Some(self.items[self.at]));
            } else if key.is("escape") {
                cx.done(None);
            } else if let Some(t) = key.text() {
                self.filter.push_str(t);
            }
        }
        fn render(&mut self, area: &Area) -> Frame {
            let mut f = Frame::new(area.width);
            let cursor = if self.blink { "▌" } else { " " };
            f.line(span("Pick: ").fg(Fg::Accent).bold() + span(format!("{}{cursor}", self.filter)));
            for (i, item) in self.items.iter().enumerate() {
                if i == self.at {
                    f.line(span(format!("> {item}")).fg(Fg::Accent));
                } else {
                    f.line(format!("  {item}"));
                }
            }
            f
        }
    }

    fn picker() -> TestComponent<Picker> {
        TestComponent::new(picker_component())
    }

    fn picker_component() -> Picker {
        Picker {
            items: vec!["staging", "production"],
            at: 0,
            blink: false,
            filter: String::new(),
        }
    }

    #[test]
    fn a_component_draws_takes_keys_and_ticks_on_a_virtual_clock() {
        let mut c = picker();
        insta::assert_snapshot!(c.frame(30).styled(), @r"
        [accent bold]Pick: [/]
        [accent]> staging[/]
          production
        ");
        c.key("down").type_text("pr");
        assert_eq!(c.advance(Duration::from_millis(1200)), 2);
        c.tick();
        insta::assert_snapshot!(c.frame(30), @r"
        Pick: pr▌
          staging
        > production
        ");
        // A narrow overlay cuts lines as the bridge does.
        assert_eq!(c.frame(8).lines()[2], "> pro...");
        c.key("enter");
        assert_eq!(c.result(), Some(&Some("production")));

        let mut c = picker();
        c.key(Key::named("escape"));
        assert_eq!(c.into_result(), Some(None));
    }

    /// Opens the picker in pi's terminal and says what was picked.
    #[command(name = "pick-env")]
    async fn pick_env(ctx: &CommandCtx) -> Result<(), Error> {
        let picked = ctx.ui().custom(picker_component()).await?;
        let text = picked.map_or("nothing".to_string(), |p| p.to_string());
        ctx.ui().notify(format!("picked {text}"), Level::Info);
        Ok(())
    }

    fn interactive() -> TestHost {
        TestHost::with_session(pi_ext::registry::Registry::linked(), Mode::Interactive)
    }

    #[test]
    fn a_commands_component_is_driven_by_a_script_while_the_command_runs() {
        let host = interactive();
        host.command_with_component("pick-env", "", |c| {
            assert_eq!(c.frame(30).lines()[1], "> staging");
            c.key("down");
            assert_eq!(c.frame(30).lines()[2], "> production");
            // Narrower: cut as the bridge cuts.
            assert_eq!(c.frame(8).lines()[2], "> pro...");
            // A key that changes nothing is answered too.
            c.key("f5");
            assert!(c.is_open());
            c.key("enter");
            assert_eq!(c.closed(), Some(("done", None)));
        })
        .unwrap();
        assert_eq!(host.notifications(), ["picked production"]);
    }

    #[test]
    fn a_component_the_script_leaves_open_is_cancelled_and_a_key_after_it_closed_fails() {
        let host = interactive();
        let out = host.command_with_component("pick-env", "", |c| {
            c.key("down");
        });
        assert!(out.is_err(), "{out:?}");
        assert!(host.notifications().is_empty());
        let late = catch_unwind(AssertUnwindSafe(|| {
            let _ = host.command_with_component("pick-env", "", |c| {
                c.key("escape");
                c.key("enter");
            });
        }))
        .unwrap_err();
        let msg = late.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("the component already closed (done)"), "{msg}");
    }

    #[test]
    fn driving_a_component_needs_a_host_in_pis_terminal() {
        let host = TestHost::new();
        let err = catch_unwind(AssertUnwindSafe(|| {
            let _ = host.command_with_component("pick-env", "", |_| {});
        }))
        .unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("Mode::Interactive"), "{msg}");
    }
}
