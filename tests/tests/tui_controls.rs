//! pi-tui's own `Input` inside a Rust component's frame (`Frame::control`),
//! in a real pseudo-terminal beside a TypeScript extension that puts the
//! same pi-tui `Input` in its component: tui-lab's `/ask-name`. After every
//! key the component's rows, with their colours, and where the terminal's
//! cursor is must be the same; typing, a cursor move, Tabs (keys the input
//! leaves to the component), Enter and Escape end with the same
//! notification (what was submitted, how many changes and Tabs the
//! component heard). `SelectList` in a frame runs side by side in
//! `ports_preset.rs`.

use pi_ext_e2e::{install_example, Key, PiEnv, PiTerminal, Screen, ScriptedModel};

const COLS: u16 = 60;
const ROWS: u16 = 30;

/// The TypeScript twin: pi-tui's `Input` between the same two lines.
const TWIN: &str = r#"import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Input, Key, matchesKey } from "@earendil-works/pi-tui";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("ask-name", {
    description: "Ask a name with pi-tui's Input",
    handler: async (_args, ctx) => {
      let changes = 0;
      let tabs = 0;
      const name = await ctx.ui.custom<string | null>((tui, theme, _kb, done) => {
        const input = new Input();
        // The text set, the cursor at its end (as pi-ext's `Input::value`).
        input.setValue("pi");
        input.handleInput("\x05");
        input.onSubmit = (value) => done(value);
        input.onEscape = () => done(null);
        return {
          get focused() {
            return input.focused;
          },
          set focused(value: boolean) {
            input.focused = value;
          },
          render: (width: number) => [
            theme.fg("accent", "Name:"),
            ...input.render(width),
            theme.fg("dim", "Enter to keep, Escape to leave"),
          ],
          invalidate: () => {},
          handleInput(data: string) {
            if (matchesKey(data, Key.tab)) {
              tabs++;
              return;
            }
            const before = input.getValue();
            input.handleInput(data);
            if (input.getValue() !== before) changes++;
            tui.requestRender();
          },
        };
      });
      const text = name === null ? "no name" : `name: ${name}`;
      ctx.ui.notify(`${text} (changes ${changes}, tabs ${tabs})`, "info");
    },
  });
}
"#;

/// The component's rows (styled) and the cursor relative to its first row.
fn asked(screen: &Screen) -> Option<String> {
    let top = screen.find_all("Name:").last()?.0;
    let hint = screen.find("Escape to leave")?.0;
    if hint <= top {
        return None;
    }
    let (row, col) = screen.cursor();
    let rows: Vec<String> = (top..=hint).map(|r| screen.styled_row(r)).collect();
    Some(format!(
        "{}\ncursor: {:?}",
        rows.join("\n"),
        (i32::from(row) - i32::from(top), col)
    ))
}

/// Open `/ask-name`, press the keys (each changes what it shows), end it
/// with `finish`, and keep every step and the notification (`done`'s row).
fn run(
    pi: &PiTerminal,
    keys: &[(&str, &dyn Fn())],
    finish: Key,
    done: &str,
) -> Vec<(String, String)> {
    let mut steps = Vec::new();
    pi.type_text("/ask-name");
    pi.press(Key::Enter);
    let s = pi.wait_for("the input", |s| asked(s).is_some());
    let mut shown = asked(&s).unwrap();
    steps.push(("opened".to_string(), shown.clone()));
    for (name, press) in keys {
        press();
        let before = shown.clone();
        let s = pi.wait_for(name, |s| asked(s).is_some_and(|a| a != before));
        shown = asked(&s).unwrap();
        steps.push((name.to_string(), shown.clone()));
    }
    pi.press(finish);
    let s = pi.wait_for("the notification", |s| {
        asked(s).is_none() && s.contains(done)
    });
    let row = s.find_all(done).last().unwrap().0;
    steps.push(("told".to_string(), s.styled_row(row)));
    steps
}

#[test]
fn an_input_in_a_rust_frame_is_pi_tuis_input_like_typescripts() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let lab = install_example(&env, "tui-lab");
    let twin = env.root().join("input-twin.ts");
    std::fs::write(&twin, TWIN).unwrap();
    let ts = env
        .pi()
        .no_extensions()
        .extension(&twin)
        .terminal(COLS, ROWS);
    let rust = env.pi().installed(&lab).terminal(COLS, ROWS);
    rust.wait_for_text("● LAB-STATUS");

    let mut all = Vec::new();
    for pi in [&ts, &rust] {
        let (x, y) = (|| pi.type_text("x"), || pi.type_text("y"));
        let left = || pi.press(Key::Left);
        // Tabs go to the component (nothing to see), then a key the input takes.
        let z = || {
            pi.press(Key::Tab);
            pi.press(Key::Tab);
            pi.type_text("z");
        };
        let typed: [(&str, &dyn Fn()); 4] = [
            ("typed x", &x),
            ("typed y", &y),
            ("left", &left),
            ("typed z before y", &z),
        ];
        let mut steps = run(pi, &typed, Key::Enter, "name: pixzy");
        steps.extend(run(pi, &[], Key::Escape, "no name"));
        all.push(steps);
    }
    let (t, r) = (&all[0], &all[1]);
    assert_eq!(t.len(), r.len());
    for ((name, t), (_, r)) in t.iter().zip(r) {
        assert_eq!(t, r, "step {name:?}\nTypeScript:\n{t}\nRust:\n{r}");
    }
    let step = |name: &str| &t.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(step("opened").contains("pi"), "{}", step("opened"));
    assert!(
        step("typed z before y").contains("«> pixz»") && step("typed z before y").contains("«y»"),
        "{}",
        step("typed z before y")
    );
    assert!(
        t[5].1.contains("name: pixzy (changes 3, tabs 2)"),
        "{}",
        t[5].1
    );
    assert!(t[7].1.contains("no name (changes 0, tabs 0)"), "{}", t[7].1);
}
