//! Markdown views in a real pseudo-terminal: `View::markdown` from Rust (the tui-lab
//! fixture) beside a TypeScript extension drawing the same Markdown with pi-tui's
//! `Markdown` and pi's `getMarkdownTheme()`, in a widget and in a tool's result row, at two
//! widths; and hostile Markdown that draws bounded while pi keeps answering.

use pi_ext_e2e::{install_example, Key, PiEnv, PiTerminal, Reply, Screen, ScriptedModel};
use serde_json::json;

const COLS: u16 = 100;
const ROWS: u16 = 70;

/// The Markdown both extensions show (tui-lab's `/md-lab` and `lab_markdown`).
const MARKDOWN: &str = include_str!("../extensions/tui-lab/src/markdown.md");

/// The first and the last line of the Markdown as pi-tui draws them.
const FIRST: &str = "Markdown lab";
const LAST: &str = "End of the Markdown lab.";

/// The TypeScript twin: the same command and tool, drawn by pi-tui's Markdown.
fn typescript_twin() -> String {
    let text = serde_json::to_string(MARKDOWN).unwrap();
    format!(
        r#"import {{ Type }} from "@earendil-works/pi-ai";
import {{ getMarkdownTheme, type ExtensionAPI }} from "@earendil-works/pi-coding-agent";
import {{ Markdown }} from "@earendil-works/pi-tui";

const MARKDOWN = {text};

export default function (pi: ExtensionAPI) {{
  pi.registerCommand("md-lab", {{
    description: "Show the lab's Markdown in a widget",
    handler: async (_args, ctx) => {{
      ctx.ui.setWidget("md", () => new Markdown(MARKDOWN, 1, 1, getMarkdownTheme()));
    }},
  }});
  pi.registerTool({{
    name: "lab_markdown",
    label: "lab_markdown",
    description: "Answer with the lab's Markdown",
    parameters: Type.Object({{}}),
    async execute() {{
      return {{ content: [{{ type: "text", text: MARKDOWN }}], details: {{}} }};
    }},
    renderResult(result) {{
      const first = result.content[0];
      return new Markdown(first?.type === "text" ? first.text : "", 0, 0, getMarkdownTheme());
    }},
  }});
}}
"#
    )
}

/// The cells (text and style) of the rows from the last row holding [`FIRST`] to the last
/// holding [`LAST`], with one row more on each side (padding); `None` while either is missing.
fn markdown_cells(screen: &Screen) -> Option<Vec<Vec<(String, pi_ext_e2e::Style)>>> {
    let top = first_row(screen)?;
    let bottom = screen.find_all(LAST).last()?.0;
    if bottom < top {
        return None;
    }
    let (rows, cols) = (screen.size().0, screen.size().1);
    let rows = top.saturating_sub(1)..=(bottom + 1).min(rows - 1);
    Some(
        rows.map(|r| {
            (0..cols)
                .map(|c| {
                    let cell = screen.cell(r, c).unwrap();
                    (cell.text, cell.style)
                })
                .collect()
        })
        .collect(),
    )
}

/// The last row that is [`FIRST`] (the heading; the last line holds its words too).
fn first_row(screen: &Screen) -> Option<u16> {
    let row = screen.rows().iter().rposition(|r| r.trim() == FIRST)?;
    u16::try_from(row).ok()
}

/// The region's text, for messages.
fn shown(cells: &[Vec<(String, pi_ext_e2e::Style)>]) -> String {
    cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|(t, _)| if t.is_empty() { " " } else { t.as_str() })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until `pi` shows the Markdown region exactly as TypeScript's `ts`, cell for cell
/// (pi's Markdown theme reaches the bridge just after pi starts: a first paint may lack
/// the code's highlighting, and is painted again).
#[track_caller]
fn wait_same(pi: &PiTerminal, what: &str, ts: &[Vec<(String, pi_ext_e2e::Style)>]) -> Screen {
    let what = format!("{what}; TypeScript's:\n{}", shown(ts));
    pi.wait_for(&what, |s| markdown_cells(s).as_deref() == Some(ts))
}

/// Whether the Markdown's last occurrence is below `row_text`'s (a widget under the chat).
fn below(screen: &Screen, row_text: &str) -> bool {
    let Some((above, _)) = screen.find(row_text) else {
        return false;
    };
    screen
        .find_all(FIRST)
        .last()
        .is_some_and(|&(r, _)| r > above)
        && markdown_cells(screen).is_some()
}

#[test]
fn a_markdown_view_from_rust_is_drawn_as_pi_tuis_markdown_like_typescripts() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let lab = install_example(&env, "tui-lab");
    let twin = env.root().join("markdown-twin.ts");
    std::fs::write(&twin, typescript_twin()).unwrap();
    let ts = env
        .pi()
        .no_extensions()
        .extension(&twin)
        .terminal(COLS, ROWS);
    let rust = env.pi().installed(&lab).terminal(COLS, ROWS);
    rust.wait_for_text("● LAB-STATUS");

    // The tool's result row, in each pi in turn.
    let mut rows = Vec::new();
    for pi in [&ts, &rust] {
        model.push(Reply::tool("md_1", "lab_markdown", json!({})));
        model.push(Reply::text("Drawn."));
        pi.type_text("show the markdown");
        pi.press(Key::Enter);
        let screen = pi.wait_for("the tool row and the answer", |s| {
            s.contains("Drawn.") && markdown_cells(s).is_some()
        });
        rows.push((markdown_cells(&screen).unwrap(), screen));
    }
    let (ts_row, ts_screen) = &rows[0];
    let text = shown(ts_row);
    // pi-tui's Markdown: headings without their `#`, bullets, the code block's fences, the table.
    for part in [
        "Markdown lab",
        "- first item",
        "```rust",
        "│ tool │",
        "println!",
    ] {
        assert!(text.contains(part), "{part:?} in:\n{text}\n{ts_screen}");
    }
    assert!(!text.contains("# Markdown lab"), "{ts_screen}");
    let rust_screen = wait_same(&rust, "Rust's tool row as TypeScript's", ts_row);
    assert_eq!(markdown_cells(&rust_screen).as_ref(), Some(ts_row));

    // The widget, padded as `new Markdown(text, 1, 1, …)`.
    for pi in [&ts, &rust] {
        pi.type_text("/md-lab");
        pi.press(Key::Enter);
    }
    let ts_widget = ts.wait_for("TypeScript's widget", |s| below(s, "Drawn."));
    let ts_cells = markdown_cells(&ts_widget).unwrap();
    let text = shown(&ts_cells);
    let lines: Vec<&str> = text.lines().collect();
    // One row and one column of padding.
    assert_eq!(lines[0].trim(), "", "{ts_widget}");
    assert!(lines[1].starts_with(" Markdown lab"), "{ts_widget}");
    let code = lines.iter().position(|l| l.contains("let answer")).unwrap();
    let colours: std::collections::HashSet<_> = ts_cells[code]
        .iter()
        .filter(|(t, _)| !t.trim().is_empty())
        .map(|(_, s)| s.fg)
        .collect();
    assert!(colours.len() > 1, "pi highlights the code:\n{ts_widget}");
    wait_same(&rust, "Rust's widget as TypeScript's", &ts_cells);

    // A resize repaints both at the new width, without asking the extension.
    for pi in [&ts, &rust] {
        pi.resize(60, ROWS);
    }
    // Laid out again at 60, not the wide lines cut by the narrower terminal
    // while pi repaints: with `padX` 1 the last column is padding on every row.
    let narrow = ts.wait_for("TypeScript's widget at 60 columns", |s| {
        markdown_cells(s).is_some_and(|c| {
            c[0].len() == 60 && c != ts_cells && c.iter().all(|row| row[59].0.trim().is_empty())
        })
    });
    let ts_narrow = markdown_cells(&narrow).unwrap();
    wait_same(
        &rust,
        "Rust's widget at 60 columns as TypeScript's",
        &ts_narrow,
    );
    ts.exit();

    // Hostile Markdown: 64 KiB of `*a `, a list nested 3,000 deep and a chain of lists
    // and quotes 3,000 deep draw bounded, and pi still answers the next prompt.
    // Tall enough for all of it (pi shows the top of a widget taller than its screen).
    rust.resize(COLS, 200);
    rust.type_text("/md-hostile");
    rust.press(Key::Enter);
    let hostile = rust.wait_for("the hostile widget", |s| s.contains("END-HOSTILE-MD"));
    // Each of the three was cut at 4 KiB, and said so.
    let notes = hostile.find_all("more bytes (pi-ext caps a Markdown view at 4,096)");
    assert_eq!(notes.len(), 3, "{hostile}");
    let (top, _) = hostile.find("HOSTILE-MD").unwrap();
    let (bottom, _) = hostile.find("END-HOSTILE-MD").unwrap();
    assert!(bottom - top < 150, "{hostile}");
    // The list is flattened to 8 levels (pi-tui indents a level by 4 columns), not 3,000.
    let indents: Vec<usize> = hostile
        .rows()
        .iter()
        .filter(|r| r.contains("- level"))
        .map(|r| r.len() - r.trim_start().len())
        .collect();
    assert!(indents.len() > 30, "{hostile}");
    assert!(
        indents.iter().all(|&i| i <= 4 * 8),
        "{indents:?}\n{hostile}"
    );
    model.push(Reply::text("Still answering."));
    rust.type_text("ping");
    rust.press(Key::Enter);
    rust.wait_for_text("Still answering.");
    rust.exit();
}
