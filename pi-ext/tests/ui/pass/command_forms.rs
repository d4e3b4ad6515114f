//! Every supported `#[command]` signature, registered through the generated
//! `<fn>_command()` constructors and called.

use std::sync::Mutex;

use pi_ext::command::Parsed;
use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::testing::TestHost;
use serde_json::json;

/// What the commands were given, in order.
#[extension(name = "log")]
#[derive(Default)]
struct Log {
    lines: Mutex<Vec<String>>,
}

impl Log {
    fn push(&self, line: String) {
        self.lines.lock().unwrap().push(line);
    }
}

/// No arguments at all.
#[command]
async fn bare() {}

/// The raw text.
#[command]
async fn raw(ctx: &CommandCtx, log: &Log, text: String) {
    let _ = ctx.cwd();
    log.push(format!("raw {text}"));
}

/// Optional text, the command context by value, a `Result`.
#[command(name = "maybe-text", completions = ["one", "two"], shortcut = "ctrl+shift+m")]
async fn maybe(log: &Log, text: Option<String>, ctx: CommandCtx) -> Result<(), Error> {
    let _ = ctx.cwd();
    log.push(format!("maybe {text:?}"));
    Ok(())
}

/// Words, the plain context by reference.
#[command]
async fn words(ctx: &Ctx, words: Vec<String>, log: &Log) {
    let _ = ctx.cwd();
    log.push(format!("words {words:?}"));
}

/// A parsed number, the plain context by value, anyhow's result.
#[command]
async fn number(_: Ctx, Parsed(n): Parsed<u32>, log: &Log) -> anyhow::Result<()> {
    log.push(format!("number {n}"));
    Ok(())
}

/// An optional parsed number, in a plain `fn`.
#[command(description = "Described in the attribute.")]
fn maybe_number(n: Option<Parsed<i64>>, log: &Log) {
    log.push(format!("maybe_number {:?}", n.map(|Parsed(n)| n)));
}

/// A key alone, with the state and the command context.
#[shortcut("ctrl+shift+u")]
async fn cycle(log: &Log, ctx: &CommandCtx) {
    let _ = ctx.cwd();
    log.push("cycle".into());
}

/// A key alone that fails, in a plain `fn`, the key `+` itself.
#[shortcut("alt++", description = "Described in the attribute.")]
fn plus() -> Result<(), Error> {
    Err(Error::new("no plus"))
}

/// What the commands were given.
#[tool]
async fn logged(log: &Log) -> String {
    log.lines.lock().unwrap().join("; ")
}

fn main() {
    let registry = Registry::new("command-forms", "1.0.0")
        .extension::<Log>()
        .command(bare_command())
        .command(raw_command())
        .command(maybe_command())
        .command(words_command())
        .command(number_command())
        .command(maybe_number_command())
        .command(cycle_shortcut())
        .command(plus_shortcut())
        .tool(logged_tool());
    assert_eq!(registry.problems(), Vec::<String>::new());
    let host = TestHost::with_registry(registry);
    let commands = host.manifest().commands.clone();
    let names: Vec<_> = commands.iter().map(|c| c.name.as_str()).collect();
    // In the order they were registered.
    assert_eq!(
        names,
        [
            "bare",
            "raw",
            "maybe-text",
            "words",
            "number",
            "maybe_number",
            "shortcut:ctrl+shift+u",
            "shortcut:alt++",
        ]
    );
    // Shortcuts alone: pi gets their keys, no command.
    let keys: Vec<_> = commands
        .iter()
        .map(|c| (c.shortcut.as_deref(), c.shortcut_only))
        .collect();
    assert_eq!(
        keys[5..],
        [
            (None, false),
            (Some("ctrl+shift+u"), true),
            (Some("alt++"), true)
        ]
    );
    assert_eq!(commands[7].description, "Described in the attribute.");
    assert_eq!(host.shortcut("ctrl+shift+u"), Ok(()));
    assert_eq!(host.shortcut("alt++"), Err("no plus".to_string()));
    let maybe = &commands[2];
    assert_eq!(maybe.shortcut.as_deref(), Some("ctrl+shift+m"));
    assert_eq!(maybe.completions, ["one", "two"]);
    assert_eq!(commands[5].description, "Described in the attribute.");

    let run = |command: &str, args: &str| {
        host.request("command/call", json!({"command": command, "args": args}))
    };
    for (command, args) in [
        ("bare", ""),
        ("raw", "a  b"),
        ("maybe-text", ""),
        ("maybe-text", "x"),
        ("words", "a b"),
        ("number", "42"),
        ("maybe_number", ""),
        ("maybe_number", "-3"),
    ] {
        assert_eq!(
            run(command, args),
            Ok(serde_json::Value::Null),
            "/{command} {args}"
        );
    }
    assert!(run("number", "many").is_err());
    assert_eq!(
        host.call("logged", json!({})).text(),
        "cycle; raw a  b; maybe None; maybe Some(\"x\"); words [\"a\", \"b\"]; number 42; maybe_number None; maybe_number Some(-3)"
    );
}
