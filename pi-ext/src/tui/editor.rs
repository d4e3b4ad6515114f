//! A custom editor described as a table ([`EditorSpec`]), set with
//! [`Ui::set_editor`]: per-mode keymaps, border labels and highlighted
//! words, applied by the bridge on pi's own editor (a `CustomEditor`), so
//! that pi's text, history, submit and app keys stay pi's.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use super::style::Rgb;
use super::text::{sanitize, Keep, Line};
use super::view::lines_wire;
use crate::host::ui::{Ui, UiError};

/// What a key does in an [`EditorMode`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Act {
    /// pi's editor handles the key (type it, submit, history, app keys).
    Pass,
    /// Nothing happens.
    Swallow,
    /// Printable keys do nothing; control keys go to pi's editor (vim's
    /// normal mode: letters are commands, Ctrl+C still clears).
    SwallowText,
    /// pi's editor gets this key instead (`"left"`, `"ctrl+a"`, `"delete"`).
    Key(String),
    /// pi's editor gets this text (as a paste).
    Insert(String),
    /// Switch to this mode.
    Mode(String),
}

impl Act {
    /// [`Act::Key`]: pi's editor gets `key` instead.
    pub fn send(key: impl Into<String>) -> Act {
        Act::Key(key.into())
    }
    /// [`Act::Mode`].
    pub fn mode(name: impl Into<String>) -> Act {
        Act::Mode(name.into())
    }
    /// [`Act::Insert`].
    pub fn insert(text: impl Into<String>) -> Act {
        Act::Insert(text.into())
    }

    fn wire(&self) -> Value {
        match self {
            Act::Pass => json!("pass"),
            Act::Swallow => json!("swallow"),
            Act::SwallowText => json!("swallowText"),
            Act::Key(k) => json!({ "send": k }),
            // An escape in it would end the paste and type the rest as keys.
            Act::Insert(t) => json!({ "insert": sanitize(t, Keep::Text) }),
            Act::Mode(m) => json!({ "mode": m }),
        }
    }
}

/// One mode of an [`EditorSpec`]: what keys do, and a label on the border.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct EditorMode {
    keys: BTreeMap<String, Vec<Act>>,
    otherwise: Option<Act>,
    bottom_right: Option<Line>,
    top_right: Option<Line>,
    bottom_left: Option<Line>,
    top_left: Option<Line>,
}

impl EditorMode {
    /// A mode where every key goes to pi's editor.
    pub fn new() -> Self {
        EditorMode::default()
    }
    /// Key `key` (pi's name: `"escape"`, `"h"`, `"ctrl+w"`) does `acts`, in order.
    pub fn on(mut self, key: &str, acts: impl IntoIterator<Item = Act>) -> Self {
        self.keys
            .insert(key.to_string(), acts.into_iter().collect());
        self
    }
    /// What other keys do (default [`Act::Pass`]).
    pub fn otherwise(mut self, act: Act) -> Self {
        self.otherwise = Some(act);
        self
    }
    /// A label at the right end of the editor's bottom border.
    pub fn bottom_right(mut self, label: impl Into<Line>) -> Self {
        self.bottom_right = Some(label.into());
        self
    }
    /// A label at the right end of the editor's top border.
    pub fn top_right(mut self, label: impl Into<Line>) -> Self {
        self.top_right = Some(label.into());
        self
    }
    /// A label at the left end of the editor's bottom border. A border with
    /// a left label is drawn anew as `─left───right─` in the border's colour
    /// (the right label cut first, then the left, to keep a gap of three);
    /// without one, a right label replaces the border's right end.
    pub fn bottom_left(mut self, label: impl Into<Line>) -> Self {
        self.bottom_left = Some(label.into());
        self
    }
    /// A label at the left end of the editor's top border (drawn as
    /// [`EditorMode::bottom_left`] says).
    pub fn top_left(mut self, label: impl Into<Line>) -> Self {
        self.top_left = Some(label.into());
        self
    }
}

/// A word coloured character by character wherever it shows in pi's
/// editor (rainbow-editor.ts's "ultrathink"), set with
/// [`EditorSpec::highlight`].
///
/// The word is plain text, not a pattern: the bridge applies it in pi's
/// render, which cannot wait, so a pattern that backtracks could stall pi.
/// pi draws it as it draws the rest of the editor: the cursor's cell
/// splits a word, which then is not coloured.
///
/// ```
/// use pi_ext::tui::{Highlight, Rgb, Shine};
/// use std::time::Duration;
/// let rainbow = Highlight::word("ultrathink")
///     .ignore_case()
///     .colors([Rgb(233, 137, 115), Rgb(228, 186, 103), Rgb(141, 192, 122)])
///     .shine(Shine::every(Duration::from_millis(60)).steps(10).pause(10).falloff([0.7, 0.35]));
/// # let _ = rainbow;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Highlight {
    word: String,
    ignore_case: bool,
    colors: Vec<Rgb>,
    shine: Option<Shine>,
}

impl Highlight {
    /// Highlight `word` (at most 200 UTF-16 units; an empty word, or one
    /// holding a control character, matches nothing).
    pub fn word(word: impl Into<String>) -> Self {
        Highlight {
            word: word.into(),
            ignore_case: false,
            colors: Vec::new(),
            shine: None,
        }
    }
    /// Match the word in any case ("UltraThink" too).
    pub fn ignore_case(mut self) -> Self {
        self.ignore_case = true;
        self
    }
    /// The colours of the word's characters, in turn (the first character
    /// gets the first colour, and so on, starting over after the last; at
    /// most 64). Without colours the word is not highlighted.
    pub fn colors(mut self, colors: impl IntoIterator<Item = Rgb>) -> Self {
        self.colors = colors.into_iter().collect();
        self
    }
    /// A shine sweeping over the word while it is in the editor's text.
    pub fn shine(mut self, shine: Shine) -> Self {
        self.shine = Some(shine);
        self
    }

    fn wire(&self) -> Value {
        let mut h = json!({
            "word": self.word,
            "colors": self.colors.iter().map(|c| [c.0, c.1, c.2]).collect::<Vec<_>>(),
        });
        if self.ignore_case {
            h["ignoreCase"] = json!(true);
        }
        if let Some(s) = &self.shine {
            h["shine"] = json!({
                "everyMs": u64::try_from(s.every.as_millis()).unwrap_or(u64::MAX),
                "steps": s.steps,
                "pause": s.pause,
                "falloff": s.falloff,
            });
        }
        h
    }
}

/// A highlight's animation: every `every`, the bright spot moves one
/// character on, over `steps` characters, then rests for `pause` frames.
/// A character `d` characters from the spot is brightened towards white
/// by `falloff[d]` (0 to 1). The bridge animates only while the word is in
/// the editor's text (checked as keys arrive), as rainbow-editor.ts does.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Shine {
    every: Duration,
    steps: u16,
    pause: u16,
    falloff: Vec<f64>,
}

impl Shine {
    /// A frame every `every` (at least 16 ms: the bridge raises shorter
    /// ones), over 10 steps without a pause, brightening only the spot's
    /// character by half.
    pub fn every(every: Duration) -> Self {
        Shine {
            every,
            steps: 10,
            pause: 0,
            falloff: vec![0.5],
        }
    }
    /// Positions the spot visits (1 to 1000).
    pub fn steps(mut self, steps: u16) -> Self {
        self.steps = steps;
        self
    }
    /// Frames without a spot after each sweep (up to 1000).
    pub fn pause(mut self, frames: u16) -> Self {
        self.pause = frames;
        self
    }
    /// How much a character is brightened at distance 0, 1, … from the
    /// spot (at most 16 entries, each 0 to 1).
    pub fn falloff(mut self, falloff: impl IntoIterator<Item = f64>) -> Self {
        self.falloff = falloff.into_iter().collect();
        self
    }
}

/// pi's editor with modes: a keymap per mode, decided by the bridge as
/// keys arrive (no round trip), border labels and highlighted words.
///
/// ```
/// use pi_ext::tui::{span, Act, EditorMode, EditorSpec};
/// let vim = EditorSpec::new("insert")
///     .mode("insert", EditorMode::new()
///         .on("escape", [Act::mode("normal")])
///         .bottom_right(span(" INSERT ")))
///     .mode("normal", EditorMode::new()
///         .on("i", [Act::mode("insert")])
///         .on("h", [Act::send("left")])
///         .on("escape", [Act::Pass])
///         .otherwise(Act::SwallowText)
///         .bottom_right(span(" NORMAL ")));
/// # let _ = vim;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
pub struct EditorSpec {
    start: String,
    modes: BTreeMap<String, EditorMode>,
    padding_x: Option<u16>,
    highlights: Vec<Highlight>,
}

impl EditorSpec {
    /// A spec that starts in mode `start`.
    pub fn new(start: impl Into<String>) -> Self {
        EditorSpec {
            start: start.into(),
            modes: BTreeMap::new(),
            padding_x: None,
            highlights: Vec::new(),
        }
    }
    /// Columns of padding left and right of the text (pi-tui's `paddingX`,
    /// as `CustomEditor`'s option). As for a TypeScript editor, pi sets its
    /// own `editorPaddingX` setting on an editor it has just made and when
    /// that setting changes; [`Editor::set_spec`] applies it again.
    pub fn padding_x(mut self, columns: u16) -> Self {
        self.padding_x = Some(columns);
        self
    }
    /// Colour `highlight`'s word wherever it shows in the editor (in every
    /// mode; at most 16 highlights, applied in order).
    pub fn highlight(mut self, highlight: Highlight) -> Self {
        self.highlights.push(highlight);
        self
    }
    /// Add (or replace) mode `name`.
    pub fn mode(mut self, name: impl Into<String>, mode: EditorMode) -> Self {
        self.modes.insert(name.into(), mode);
        self
    }

    pub(crate) fn wire(&self) -> Value {
        let labels: Vec<&Line> = self
            .modes
            .values()
            .flat_map(|m| {
                [&m.bottom_right, &m.top_right, &m.bottom_left, &m.top_left]
                    .into_iter()
                    .flatten()
            })
            .collect();
        let (styles, mut lines) = lines_wire(labels);
        lines.reverse();
        let mut modes = serde_json::Map::new();
        for (name, m) in &self.modes {
            let keys: serde_json::Map<String, Value> = m
                .keys
                .iter()
                .map(|(k, acts)| {
                    (
                        k.clone(),
                        Value::Array(acts.iter().map(Act::wire).collect()),
                    )
                })
                .collect();
            let mut decor = serde_json::Map::new();
            if m.bottom_right.is_some() {
                decor.insert("bottomRight".into(), lines.pop().unwrap_or_default());
            }
            if m.top_right.is_some() {
                decor.insert("topRight".into(), lines.pop().unwrap_or_default());
            }
            if m.bottom_left.is_some() {
                decor.insert("bottomLeft".into(), lines.pop().unwrap_or_default());
            }
            if m.top_left.is_some() {
                decor.insert("topLeft".into(), lines.pop().unwrap_or_default());
            }
            let mut mode = json!({ "keys": keys, "decor": decor });
            if let Some(o) = &m.otherwise {
                mode["otherwise"] = o.wire();
            }
            modes.insert(name.clone(), mode);
        }
        let mut spec = json!({ "mode": self.start, "modes": modes, "styles": styles });
        if let Some(p) = self.padding_x {
            spec["paddingX"] = json!(p);
        }
        if !self.highlights.is_empty() {
            spec["highlights"] = self.highlights.iter().map(Highlight::wire).collect();
        }
        spec
    }
}

/// The editor this extension set ([`Ui::set_editor`]).
#[derive(Debug, Clone)]
pub struct Editor {
    ui: Ui,
    id: u64,
}

impl Editor {
    /// Replace the spec (the mode starts over at its `start`).
    pub fn set_spec(&self, spec: &EditorSpec) {
        self.ui.peer.notify(
            "editor/spec",
            json!({ "component": self.id, "editor": spec.wire() }),
        );
    }

    /// Give pi its own editor back (the text stays).
    ///
    /// # Errors
    ///
    /// [`UiError::Failed`] when the connection to pi is gone.
    pub async fn restore(&self) -> Result<(), UiError> {
        self.ui.shared.ui_routes.close(self.id);
        let params = json!({
            "call": self.ui.call.call, "session": self.ui.call.session,
            "target": "editor", "component": self.id, "restore": true,
        });
        self.ui
            .peer
            .request("ui/set", params)
            .await
            .map(drop)
            .map_err(|e| UiError::Failed(e.message))
    }
}

impl Ui {
    /// Replace pi's editor with one driven by `spec` (pi's
    /// `setEditorComponent` with a `CustomEditor`). The editor stays pi's:
    /// its text (carried over), history, submit, autocomplete and app keys;
    /// `spec` decides per key and mode whether pi's editor gets the key, a
    /// different key, or nothing.
    ///
    /// # Errors
    ///
    /// [`UiError::NoTerminal`] in RPC mode, [`UiError::NoUi`] in print and
    /// json mode, [`UiError::Failed`] when pi refuses.
    pub async fn set_editor(&self, spec: &EditorSpec) -> Result<Editor, UiError> {
        self.terminal_only()?;
        let (id, _inbox) = self.shared.ui_routes.open();
        // Nothing comes back to an editor: no route needed.
        self.shared.ui_routes.close(id);
        let params = json!({
            "call": self.call.call, "session": self.call.session,
            "target": "editor", "component": id, "editor": spec.wire(),
        });
        self.peer
            .request("ui/set", params)
            .await
            .map_err(|e| UiError::Failed(e.message))?;
        Ok(Editor {
            ui: self.clone(),
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{span, Fg};

    #[test]
    fn specs_go_on_the_wire_with_their_labels() {
        let spec = EditorSpec::new("insert")
            .mode(
                "insert",
                EditorMode::new()
                    .on("escape", [Act::mode("normal")])
                    .bottom_right(span(" INSERT ").fg(Fg::Accent)),
            )
            .mode(
                "normal",
                EditorMode::new()
                    .on("a", [Act::mode("insert"), Act::send("right")])
                    .otherwise(Act::SwallowText)
                    .bottom_right(" NORMAL "),
            );
        let w = spec.wire();
        assert_eq!(w["mode"], "insert");
        assert_eq!(
            w["modes"]["normal"]["keys"]["a"],
            json!([{"mode": "insert"}, {"send": "right"}])
        );
        assert_eq!(w["modes"]["normal"]["otherwise"], "swallowText");
        assert_eq!(
            w["modes"]["insert"]["decor"]["bottomRight"],
            json!([[" INSERT ", 0]])
        );
        assert_eq!(
            w["modes"]["normal"]["decor"]["bottomRight"],
            json!([" NORMAL "])
        );
        assert_eq!(w["styles"], json!([{"fg": "accent"}]));
    }

    #[test]
    fn left_labels_and_padding_go_on_the_wire() {
        let spec = EditorSpec::new("m").padding_x(0).mode(
            "m",
            EditorMode::new()
                .top_left(span(" ⠋ ").fg(Fg::Accent))
                .bottom_left(span(" model ").fg(Fg::Muted))
                .bottom_right(span(" ctx ").fg(Fg::Muted)),
        );
        let w = spec.wire();
        assert_eq!(w["paddingX"], 0);
        let decor = &w["modes"]["m"]["decor"];
        assert_eq!(decor["topLeft"], json!([[" ⠋ ", 1]]));
        assert_eq!(decor["bottomLeft"], json!([[" model ", 0]]));
        assert_eq!(decor["bottomRight"], json!([[" ctx ", 0]]));
        assert!(decor.get("topRight").is_none());
        assert_eq!(w["styles"], json!([{"fg": "muted"}, {"fg": "accent"}]));
        assert!(EditorSpec::new("m").wire().get("paddingX").is_none());
    }

    #[test]
    fn highlights_go_on_the_wire_with_their_shine() {
        let spec = EditorSpec::new("m")
            .highlight(
                Highlight::word("ultrathink")
                    .ignore_case()
                    .colors([Rgb(233, 137, 115), Rgb(1, 2, 3)])
                    .shine(
                        Shine::every(Duration::from_millis(60))
                            .steps(10)
                            .pause(10)
                            .falloff([0.5, 0.25]),
                    ),
            )
            .highlight(Highlight::word("plain").colors([Rgb(0, 0, 0)]));
        let w = spec.wire();
        assert_eq!(
            w["highlights"],
            json!([
                {"word": "ultrathink", "ignoreCase": true, "colors": [[233, 137, 115], [1, 2, 3]],
                 "shine": {"everyMs": 60, "steps": 10, "pause": 10, "falloff": [0.5, 0.25]}},
                {"word": "plain", "colors": [[0, 0, 0]]}
            ])
        );
        assert!(EditorSpec::new("m").wire().get("highlights").is_none());
    }

    #[test]
    fn an_insert_is_sanitized_so_it_cannot_end_its_paste() {
        let spec = EditorSpec::new("m").mode(
            "m",
            EditorMode::new().on("x", [Act::insert("a\x1b[201~\r\tb")]),
        );
        assert_eq!(
            spec.wire()["modes"]["m"]["keys"]["x"],
            json!([{"insert": "a[201~\n\tb"}])
        );
    }
}
