//! pi's rainbow-editor.ts and its Rust port (`examples/rainbow-editor`) side
//! by side in pi's terminal: "ultrathink" typed into pi's editor (twice,
//! once in another case) shows in the rainbow's colours, with a shine that
//! sweeps over it every 60 ms and rests; a Backspace that breaks the word
//! takes the colours away, a key that completes it again brings them back.
//!
//! The shine moves on a timer, so each side waits for the frame where the
//! spot is where a step wants it (computed from the original's colours,
//! for every character of both words); there the editor's rows, with
//! their colours, must be the same.

use pi_ext_e2e::{assert_screen_steps_same, Color, Key, PiEnv, Screen, ScriptedModel};

/// rainbow-editor.ts's `COLORS`.
const COLORS: [(u8, u8, u8); 7] = [
    (233, 137, 115),
    (228, 186, 103),
    (141, 192, 122),
    (102, 194, 179),
    (121, 157, 207),
    (157, 134, 195),
    (206, 130, 172),
];
const WORD: usize = "ultrathink".len();

/// The colour of a word's character `i` with the shine at `spot`
/// (rainbow-editor.ts's `colorize` and `brighten`).
fn colour(i: usize, spot: Option<usize>) -> Color {
    let (r, g, b) = COLORS[i % COLORS.len()];
    let factor = match spot.map(|s| s.abs_diff(i)) {
        Some(0) => 0.7,
        Some(1) => 0.35,
        _ => 0.0,
    };
    let up = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * factor).round() as u8;
    Color::Rgb(up(r), up(g), up(b))
}

/// Whether every character of every `word` on screen has its colour for `spot`.
fn shows(s: &Screen, words: &[&str], spot: Option<usize>) -> bool {
    words.iter().all(|w| {
        s.find(w).is_some_and(|(row, col)| {
            (0..WORD).all(|i| s.style_at(row, col + i as u16).fg == colour(i, spot))
        })
    })
}

/// The row of the editor's text (what the test typed starts with "say").
fn text_row(s: &Screen) -> u16 {
    s.find_all("say ").last().map_or(0, |&(row, _)| row)
}

/// The editor's rows (from the rule above its text to the rule below), styled.
fn editor(s: &Screen) -> String {
    let cursor = text_row(s);
    let is_rule = |r: u16| s.row(r).starts_with("───");
    let top = (0..cursor).rev().find(|&r| is_rule(r)).unwrap_or(0);
    let (rows, _) = s.size();
    let bottom = (cursor..rows).find(|&r| is_rule(r)).unwrap_or(rows - 1);
    s.styled_rows(top..=bottom)
}

fn run(env: &PiEnv, rust: bool) -> Vec<(String, String)> {
    let ports = [("rainbow-editor.ts", "rainbow-editor")];
    let (builder, _) = pi_ext_e2e::ports_side(env, &ports, rust);
    let pi = builder.terminal(80, 20);
    let mut steps = Vec::new();
    let mut step = |name: &str, ready: &dyn Fn(&Screen) -> bool| {
        let s = pi.wait_for(name, ready);
        steps.push((name.to_string(), editor(&s)));
    };
    pi.type_text("say ultrathink and UltraThink");
    let both = ["ultrathink", "UltraThink"];
    step("resting", &|s| shows(s, &both, None));
    step("the shine on the first character", &|s| {
        shows(s, &both, Some(0))
    });
    step("the shine on the sixth", &|s| shows(s, &both, Some(5)));
    step("the shine on the last", &|s| shows(s, &both, Some(9)));
    pi.press(Key::Backspace);
    step("the second word broken: only the first shines", &|s| {
        s.contains("UltraThin") && !s.contains("UltraThink") && shows(s, &["ultrathink"], None)
    });
    // Two words back, then two characters: the first word broken too.
    for key in [
        Key::Ctrl('w'),
        Key::Ctrl('w'),
        Key::Backspace,
        Key::Backspace,
    ] {
        pi.press(key);
    }
    step("no word: plain text", &|s| {
        s.row(text_row(s)).trim_end().ends_with("say ultrathin")
    });
    pi.type_text("K");
    step("completed again, in another case", &|s| {
        shows(s, &["ultrathinK"], Some(2))
    });
    // Ctrl+C clears the editor (and stops the shine), then Ctrl+D quits.
    pi.press(Key::Ctrl('c'));
    pi.wait_for("the editor cleared", |s| !s.contains("say "));
    pi.exit();
    steps
}

#[test]
fn rainbow_editor_colours_and_shines_ultrathink_in_pis_editor_like_the_original() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let original = run(&env, false);
    let port = run(&env, true);
    assert_screen_steps_same(&original, &port);
    // The comparison saw colours: the plain step has none of the rainbow's.
    let at = |name: &str| &original.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(at("resting").contains("#e98973"), "{}", at("resting"));
    assert!(
        !at("no word: plain text").contains("#e98973"),
        "{}",
        at("no word: plain text")
    );
}
