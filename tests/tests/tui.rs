//! pi's terminal UI drawn by Rust extensions, in a real pseudo-terminal: tool rows and
//! custom messages rendered by Rust, custom components (a game loop, an overlay), a modal
//! editor, a replaced footer, autocomplete, theme switches, too-wide lines and a crashed
//! extension. The examples are ports of pi's own TypeScript examples.

use pi_ext_e2e::{install_example, theme_color, Key, PiEnv, Reply, ScriptedModel, ToolCall};
use serde_json::json;

const COLS: u16 = 100;
const ROWS: u16 = 40;

#[test]
fn a_tool_row_drawn_by_rust_collapses_and_expands_with_ctrl_o() {
    let model = ScriptedModel::start();
    model.push(Reply::tool(
        "add_0",
        "todo",
        json!({"action": "add", "text": "buy milk"}),
    ));
    model.push(Reply::text("Added the milk."));
    let more = [
        "walk dog",
        "pay rent",
        "call mum",
        "fix bike",
        "read book",
        "water plants",
    ];
    model.push(Reply::tools(more.iter().enumerate().map(|(i, text)| {
        ToolCall::new(
            format!("add_{}", i + 1),
            "todo",
            json!({"action": "add", "text": text}),
        )
    })));
    model.push(Reply::tool("list_1", "todo", json!({"action": "list"})));
    model.push(Reply::text("Seven todos listed."));
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "todo");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);

    pi.type_text("add milk");
    pi.press(Key::Enter);
    let screen = pi.wait_for_text("Added the milk.");
    // The call row: bold title, the action in `muted`, the text in `dim`, as todo.ts draws it.
    let (row, col) = screen
        .find("todo add \"buy milk\"")
        .unwrap_or_else(|| panic!("no call row drawn by Rust:\n{screen}"));
    assert!(screen.style_at(row, col).bold, "title not bold:\n{screen}");
    assert_eq!(
        screen.style_at(row, col + 5).fg,
        theme_color("dark", "muted"),
        "{screen}"
    );
    assert_eq!(
        screen.style_at(row, col + 9).fg,
        theme_color("dark", "dim"),
        "{screen}"
    );
    let (row, col) = screen
        .find("✓ Added #1 buy milk")
        .unwrap_or_else(|| panic!("no result row drawn by Rust:\n{screen}"));
    assert_eq!(
        screen.style_at(row, col).fg,
        theme_color("dark", "success"),
        "{screen}"
    );
    assert_eq!(
        screen.style_at(row, col).bg,
        theme_color("dark", "toolSuccessBg"),
        "{screen}"
    );

    pi.type_text("add the rest and list them");
    pi.press(Key::Enter);
    let collapsed = pi.wait_for_text("Seven todos listed.");
    let items = |s: &pi_ext_e2e::Screen| {
        s.rows()
            .iter()
            .filter(|r| r.trim_start().starts_with("○ #"))
            .count()
    };
    assert!(collapsed.contains("7 todo(s):"), "{collapsed}");
    assert_eq!(
        items(&collapsed),
        5,
        "collapsed shows 5 items:\n{collapsed}"
    );
    assert!(collapsed.contains("... 2 more"), "{collapsed}");

    pi.press(Key::Ctrl('o'));
    let expanded = pi.wait_for("the list expanded", |s| items(s) == 7);
    assert!(!expanded.contains("... 2 more"), "{expanded}");
    let (r, c) = expanded.find("○ #7").unwrap();
    assert_eq!(
        expanded.style_at(r, c + 2).fg,
        theme_color("dark", "accent"),
        "{expanded}"
    );
    pi.press(Key::Ctrl('o'));
    pi.wait_for("the list collapsed again", |s| {
        items(s) == 5 && s.contains("... 2 more")
    });
    pi.exit();
}
