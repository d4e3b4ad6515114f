//! More of pi's controls for a component's [`super::Frame`]: pi-tui's
//! [`SettingsList`], pi's [`DynamicBorder`], pi-tui's [`Loader`] and its
//! multi-line `Editor` ([`TextEditor`]), made by the bridge as the ones in
//! `control.rs` are.

use serde_json::{json, Value};

use super::control::{bounded, Control, MAX_CONTROL_TEXT, MAX_ID, MAX_SELECT_ITEMS, MAX_VISIBLE};
use super::style::{Fg, FgColor};
#[cfg(doc)]
use super::ControlEvent;
use crate::util::sanitize::{sanitize, Keep};

/// Most values one [`SettingItem`] cycles through; the rest are left out.
pub const MAX_SETTING_VALUES: usize = 64;

/// Most frames of a [`Loader`]'s own indicator; the rest are left out.
pub const MAX_LOADER_FRAMES: usize = 64;

/// Most characters of one frame of a [`Loader`]'s indicator.
const MAX_FRAME_TEXT: usize = 16;

/// Shortest and longest time a [`Loader`]'s frame shows, in milliseconds.
const INTERVAL_MS: (u32, u32) = (16, 10_000);

/// One row of a [`SettingsList`] (pi-tui's `SettingItem`): a label on the
/// left, its current value on the right, and a description shown under the
/// list while it is selected. Enter or Space moves it to the next of its
/// [`SettingItem::values`] (wrapping).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingItem {
    id: String,
    label: String,
    description: Option<String>,
    value: String,
    values: Vec<String>,
}

impl SettingItem {
    /// A setting named `id` (what [`ControlEvent::SettingChanged`] says),
    /// shown as `label` with `value`.
    pub fn new(id: impl Into<String>, label: impl Into<String>, value: impl Into<String>) -> Self {
        SettingItem {
            id: id.into(),
            label: label.into(),
            description: None,
            value: value.into(),
            values: Vec::new(),
        }
    }

    /// The values Enter or Space cycles through (at most
    /// [`MAX_SETTING_VALUES`]); without them the item does not change.
    pub fn values<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
        self.values = values
            .into_iter()
            .take(MAX_SETTING_VALUES)
            .map(Into::into)
            .collect();
        self
    }

    /// A description, wrapped under the list (dim) while the item is
    /// selected.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its current value.
    pub fn value(&self) -> &str {
        &self.value
    }

    fn wire(&self) -> Value {
        let text = |t: &str| bounded(t, MAX_CONTROL_TEXT);
        let mut out = json!({
            "id": text(&self.id),
            "label": text(&self.label),
            "value": text(&self.value),
            "values": self.values.iter().map(|v| text(v)).collect::<Vec<_>>(),
        });
        if let Some(d) = &self.description {
            out["description"] = json!(text(d));
        }
        out
    }
}

/// pi-tui's `SettingsList` with pi's `getSettingsListTheme()` in a frame:
/// aligned `label  value` rows with a `→ ` on the selected one (accent),
/// the others' values muted, a `(3/12)` line when it scrolls, the selected
/// item's description and the `Enter/Space to change · Esc to cancel` hint
/// (dim). pi-tui draws and runs it in the bridge: up and down (wrapping),
/// PageUp, PageDown, Enter, Space and Escape (pi's `tui.select.*` keys as
/// the user bound them) go to it with no round trip; with
/// [`SettingsList::search`], typing filters the rows (pi-tui's fuzzy match
/// on labels) too. The component hears [`ControlEvent::SettingChanged`]
/// when Enter or Space cycles an item's value and
/// [`ControlEvent::Cancelled`] on Escape; its other keys still reach
/// [`super::Component::on_key`].
///
/// The bridge keeps one list per id across frames: the selection and the
/// search stay. An item's value set here is applied when it differs from
/// the last frame's (the bridge's list already shows a value the user
/// cycled to); other changes to the items rebuild the list, keeping the
/// selected row.
///
/// Not carried: pi-tui's submenus (`SettingItem.submenu`, a component of
/// its own), mouse.
///
/// ```
/// use pi_ext::tui::{Frame, SettingItem, SettingsList};
/// let on = ["enabled", "disabled"];
/// let list = SettingsList::new("tools", [
///     SettingItem::new("read", "read", "enabled").values(on),
///     SettingItem::new("bash", "bash", "disabled").values(on).description("runs commands"),
/// ])
/// .max_visible(4);
/// let mut frame = Frame::new(60);
/// frame.line("Tool Configuration").line("").control(list);
/// assert_eq!(frame.controls().count(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsList {
    id: String,
    items: Vec<SettingItem>,
    max_visible: usize,
    search: bool,
    selected: Option<String>,
    focused: bool,
}

impl SettingsList {
    /// A list named `id` (within its component) of `items` (at most
    /// [`super::MAX_SELECT_ITEMS`]), ten rows high, without search, with
    /// the keys.
    pub fn new(id: impl Into<String>, items: impl IntoIterator<Item = SettingItem>) -> Self {
        SettingsList {
            id: id.into(),
            items: items.into_iter().take(MAX_SELECT_ITEMS).collect(),
            max_visible: 10,
            search: false,
            selected: None,
            focused: true,
        }
    }

    /// Show at most `rows` rows at once (1 to [`super::MAX_VISIBLE`]).
    pub fn max_visible(mut self, rows: usize) -> Self {
        self.max_visible = rows.clamp(1, MAX_VISIBLE);
        self
    }

    /// A search field above the rows (pi-tui's `enableSearch`): typed text
    /// filters the items by label; Space then types rather than cycles.
    pub fn search(mut self, on: bool) -> Self {
        self.search = on;
        self
    }

    /// Select the item with id `item` when this differs from the last
    /// frame's (pi-tui's `selectItem`): the user's moves are kept otherwise.
    pub fn selected(mut self, item: impl Into<String>) -> Self {
        self.selected = Some(item.into());
        self
    }

    /// Whether keys go to it (default true); of a frame's controls, the
    /// first that has the keys gets them.
    pub fn focused(mut self, focused: bool) -> Self {
        self.focused = focused;
        self
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its items.
    pub fn items(&self) -> &[SettingItem] {
        &self.items
    }

    pub(super) fn wire(&self) -> Value {
        let mut out = json!({
            "id": bounded(&self.id, MAX_ID),
            "kind": "settings",
            "items": self.items.iter().map(SettingItem::wire).collect::<Vec<_>>(),
            "maxVisible": self.max_visible,
            "search": self.search,
            "focused": self.focused,
        });
        if let Some(s) = &self.selected {
            out["selected"] = json!(bounded(s, MAX_CONTROL_TEXT));
        }
        out
    }
}

impl From<SettingsList> for Control {
    fn from(l: SettingsList) -> Self {
        Control::SettingsList(l)
    }
}

/// pi's `DynamicBorder` in a frame: one row of `─` across the width it is
/// drawn at, in a colour (pi's `border` by default, as `new
/// DynamicBorder()`; `new DynamicBorder((s) => theme.fg("accent", s))` is
/// `DynamicBorder::new().color(Fg::Accent)`). The bridge draws it at pi's
/// width and theme; it keeps no state and takes no keys, so it needs no id.
///
/// ```
/// use pi_ext::tui::{DynamicBorder, Fg, Frame};
/// let mut frame = Frame::new(40);
/// frame
///     .control(DynamicBorder::new().color(Fg::Accent))
///     .line("Select Preset")
///     .control(DynamicBorder::new().color(Fg::Accent));
/// assert_eq!(frame.controls().count(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicBorder {
    color: FgColor,
}

impl Default for DynamicBorder {
    fn default() -> Self {
        DynamicBorder::new()
    }
}

impl DynamicBorder {
    /// A rule in pi's `border` colour.
    pub fn new() -> Self {
        DynamicBorder {
            color: Fg::Border.into(),
        }
    }

    /// Draw it in `color`.
    pub fn color(mut self, color: impl Into<FgColor>) -> Self {
        self.color = color.into();
        self
    }

    pub(super) fn wire(&self) -> Value {
        json!({"id": "", "kind": "border", "color": self.color.wire(), "focused": false})
    }
}

impl From<DynamicBorder> for Control {
    fn from(b: DynamicBorder) -> Self {
        Control::DynamicBorder(b)
    }
}

/// pi-tui's `Loader` in a frame: an empty row, then ` ⠋ message` with the
/// spinner in accent and the message muted (as pi's `BorderedLoader`). It
/// animates in the bridge (every 80 ms, pi-tui's timer), with no round trip
/// to the extension; a new message is shown when it differs from the last
/// frame's. It takes no keys. The bridge stops it when a frame no longer
/// has it or the component closes.
///
/// ```
/// use pi_ext::tui::{Fg, Frame, Loader};
/// let mut frame = Frame::new(40);
/// frame
///     .control(Loader::new("wait", "Summarizing…").colors(Fg::Accent, Fg::Muted))
///     .line("Esc to cancel");
/// assert_eq!(frame.controls().count(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loader {
    id: String,
    message: String,
    spinner: FgColor,
    message_color: FgColor,
    indicator: Option<(Vec<String>, u32)>,
}

impl Loader {
    /// A loader named `id` (within its component) showing `message`.
    pub fn new(id: impl Into<String>, message: impl Into<String>) -> Self {
        Loader {
            id: id.into(),
            message: message.into(),
            spinner: Fg::Accent.into(),
            message_color: Fg::Muted.into(),
            indicator: None,
        }
    }

    /// The spinner's and the message's colours (accent and muted without
    /// it).
    pub fn colors(mut self, spinner: impl Into<FgColor>, message: impl Into<FgColor>) -> Self {
        self.spinner = spinner.into();
        self.message_color = message.into();
        self
    }

    /// Its own indicator instead of pi-tui's braille spinner (pi-tui's
    /// `LoaderIndicatorOptions`): `frames` (at most [`MAX_LOADER_FRAMES`],
    /// 16 characters each, drawn as they are, uncoloured) shown in turn,
    /// each for `interval_ms` (16 to 10,000). One frame does not animate;
    /// none shows the message alone.
    pub fn indicator<S: Into<String>>(
        mut self,
        frames: impl IntoIterator<Item = S>,
        interval_ms: u32,
    ) -> Self {
        let frames = frames
            .into_iter()
            .take(MAX_LOADER_FRAMES)
            .map(Into::into)
            .collect();
        self.indicator = Some((frames, interval_ms.clamp(INTERVAL_MS.0, INTERVAL_MS.1)));
        self
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub(super) fn wire(&self) -> Value {
        let mut out = json!({
            "id": bounded(&self.id, MAX_ID),
            "kind": "loader",
            "message": bounded(&self.message, MAX_CONTROL_TEXT),
            "spinner": self.spinner.wire(),
            "messageColor": self.message_color.wire(),
            "focused": false,
        });
        if let Some((frames, interval)) = &self.indicator {
            out["frames"] = json!(frames
                .iter()
                .map(|f| bounded(f, MAX_FRAME_TEXT))
                .collect::<Vec<_>>());
            out["intervalMs"] = json!(interval);
        }
        out
    }
}

impl From<Loader> for Control {
    fn from(l: Loader) -> Self {
        Control::Loader(l)
    }
}

/// Most characters a [`TextEditor`] holds: its text is cut to it, and
/// typing or pasting past it is cut (by the bridge).
pub const MAX_EDITOR_TEXT: usize = 16_384;

/// Most columns of a [`TextEditor`]'s padding or inset.
const MAX_EDITOR_PAD: u16 = 16;

/// pi-tui's multi-line `Editor` in a frame (`new Editor(tui, theme)` with
/// a [`TextEditor::border`] colour; pi's `getEditorTheme()` uses
/// `borderMuted`, the default): a rule above and below, the text wrapped
/// at the width with the cursor as an inverse cell, scrolling past 30% of
/// the terminal's rows (at least 5) with `↑ n more`/`↓ n more` in the rules,
/// pi's editing keys (word moves, kill ring, undo, Shift+Enter or `\` +
/// Enter for a new line, bracketed paste with pi's `[paste #1 …]` markers
/// for long pastes).
///
/// Every key but Ctrl+C goes to it in the bridge, with no round trip; the
/// component hears [`ControlEvent::Changed`] as the text changes,
/// [`ControlEvent::Submitted`] on Enter (the text trimmed, pi-tui's
/// `onSubmit`; the editor is empty after it) and [`ControlEvent::Cancelled`]
/// on Escape (the editor keeps its text). [`TextEditor::inset`] draws it
/// narrower than the frame, indented (`" " + editor.render(width - 2)`).
///
/// Not carried: autocomplete (`setAutocompleteProvider`), history
/// (`addToHistory`), `disableSubmit`, mouse.
///
/// ```
/// use pi_ext::tui::{Fg, Frame, TextEditor};
/// let mut frame = Frame::new(60);
/// frame
///     .line(" Your answer:")
///     .control(TextEditor::new("answer").border(Fg::Accent).inset(1, 1))
///     .line(" Enter to submit • Esc to go back");
/// assert_eq!(frame.controls().count(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEditor {
    id: String,
    value: Option<String>,
    border: FgColor,
    padding_x: u16,
    inset: (u16, u16),
    focused: bool,
}

impl TextEditor {
    /// An empty editor named `id` (within its component), with the keys.
    pub fn new(id: impl Into<String>) -> Self {
        TextEditor {
            id: id.into(),
            value: None,
            border: Fg::BorderMuted.into(),
            padding_x: 0,
            inset: (0, 0),
            focused: true,
        }
    }

    /// Set its text to `text` (cut to [`MAX_EDITOR_TEXT`] characters;
    /// newlines kept, other control characters dropped) when this differs
    /// from the last frame's: what the user typed in between is kept
    /// otherwise.
    pub fn value(mut self, text: impl Into<String>) -> Self {
        self.value = Some(text.into());
        self
    }

    /// The rules' colour (`borderMuted` without it).
    pub fn border(mut self, color: impl Into<FgColor>) -> Self {
        self.border = color.into();
        self
    }

    /// Blank columns left and right of the text, inside the rules
    /// (pi-tui's `paddingX`; at most 16).
    pub fn padding_x(mut self, columns: u16) -> Self {
        self.padding_x = columns.min(MAX_EDITOR_PAD);
        self
    }

    /// Draw it `left` columns in from the frame's left and `right` from its
    /// right, rules included (at most 16 each).
    pub fn inset(mut self, left: u16, right: u16) -> Self {
        self.inset = (left.min(MAX_EDITOR_PAD), right.min(MAX_EDITOR_PAD));
        self
    }

    /// Whether keys go to it (default true); of a frame's controls, the
    /// first that has the keys gets them.
    pub fn focused(mut self, focused: bool) -> Self {
        self.focused = focused;
        self
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub(super) fn wire(&self) -> Value {
        let mut out = json!({
            "id": bounded(&self.id, MAX_ID),
            "kind": "editor",
            "border": self.border.wire(),
            "focused": self.focused,
        });
        if let Some(v) = &self.value {
            out["value"] = json!(editor_text(v));
        }
        if self.padding_x > 0 {
            out["paddingX"] = json!(self.padding_x);
        }
        if self.inset != (0, 0) {
            out["inset"] = json!([self.inset.0, self.inset.1]);
        }
        out
    }
}

/// An editor's text as it is sent and reported: newlines and tabs kept,
/// other control characters dropped, at most [`MAX_EDITOR_TEXT`] characters.
pub(super) fn editor_text(text: &str) -> String {
    let clean = sanitize(text, Keep::Text);
    match clean.char_indices().nth(MAX_EDITOR_TEXT) {
        Some((at, _)) => clean[..at].to_string(),
        None => clean.into_owned(),
    }
}

impl From<TextEditor> for Control {
    fn from(e: TextEditor) -> Self {
        Control::TextEditor(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{ControlEvent, Frame};

    #[test]
    fn a_settings_list_is_a_bounded_sanitized_control_block() {
        let items = (0..MAX_SELECT_ITEMS + 3).map(|i| {
            SettingItem::new(
                format!("t{i}"),
                format!("\x1b[2Jtool{i}"),
                "on\x1b]52;c;x\x07",
            )
            .values((0..MAX_SETTING_VALUES + 5).map(|v| format!("v{v}")))
            .description("d".repeat(MAX_CONTROL_TEXT + 1))
        });
        let list = SettingsList::new("s", items)
            .max_visible(0)
            .search(true)
            .selected("t3");
        assert_eq!(list.items().len(), MAX_SELECT_ITEMS);
        let w = Control::from(list).wire();
        let spec = &w["control"];
        assert_eq!(spec["kind"], "settings");
        assert_eq!(spec["maxVisible"], 1);
        assert_eq!(spec["search"], true);
        assert_eq!(spec["selected"], "t3");
        let item = &spec["items"][0];
        assert_eq!(item["label"], "[2Jtool0");
        assert_eq!(item["value"], "on]52;c;x");
        assert_eq!(item["values"].as_array().unwrap().len(), MAX_SETTING_VALUES);
        assert_eq!(
            item["description"].as_str().unwrap().len(),
            MAX_CONTROL_TEXT
        );
        let plain = Control::from(SettingsList::new("s", [SettingItem::new("a", "A", "x")])).wire();
        assert_eq!(
            plain,
            json!({"control": {"id": "s", "kind": "settings", "maxVisible": 10, "search": false,
                "focused": true, "items": [{"id": "a", "label": "A", "value": "x", "values": []}]}})
        );
        assert_eq!(
            SettingsList::new("s", []).max_visible(1000).wire()["maxVisible"],
            MAX_VISIBLE
        );
    }

    #[test]
    fn a_changed_setting_is_read_from_the_wire_sanitized() {
        let e = |v: Value| ControlEvent::from_wire(&v);
        assert_eq!(
            e(
                json!({"control": "s", "event": "settingChanged", "item": "bash", "value": "on\x1b[2J"})
            ),
            Some(ControlEvent::SettingChanged {
                control: "s".into(),
                item: "bash".into(),
                value: "on[2J".into()
            })
        );
        assert_eq!(
            e(json!({"control": "s", "event": "settingChanged", "item": 3, "value": "x"})),
            None
        );
        assert_eq!(
            e(json!({"control": "s", "event": "settingChanged", "item": "a"})),
            None
        );
    }

    #[test]
    fn a_border_and_a_loader_are_control_blocks() {
        let mut f = Frame::new(20);
        f.control(DynamicBorder::new())
            .line("x")
            .control(DynamicBorder::default().color(Fg::Accent))
            .control(Loader::new("l", "Wait\x1b[31m"));
        let w = f.wire();
        let blocks = w["blocks"].as_array().unwrap();
        assert_eq!(blocks[0]["control"]["kind"], "border");
        assert_eq!(blocks[0]["control"]["color"], "border");
        assert_eq!(blocks[2]["control"]["color"], "accent");
        assert_eq!(
            blocks[3]["control"],
            json!({"id": "l", "kind": "loader", "message": "Wait[31m", "spinner": "accent",
                "messageColor": "muted", "focused": false})
        );
        assert_eq!(
            f.controls().map(Control::id).collect::<Vec<_>>(),
            ["", "", "l"]
        );
        let l = Loader::new("l", "m")
            .colors(Fg::Warning, Fg::Dim)
            .indicator(
                (0..MAX_LOADER_FRAMES + 9).map(|i| format!("\x1b[1m{}", "*".repeat(i))),
                1,
            );
        let spec = &Control::from(l).wire()["control"];
        assert_eq!(spec["spinner"], "warning");
        assert_eq!(spec["messageColor"], "dim");
        assert_eq!(spec["intervalMs"], INTERVAL_MS.0);
        let frames = spec["frames"].as_array().unwrap();
        assert_eq!(frames.len(), MAX_LOADER_FRAMES);
        assert_eq!(frames[1], "[1m*");
        assert!(frames
            .iter()
            .all(|f| f.as_str().unwrap().chars().count() <= MAX_FRAME_TEXT));
        let slow = Loader::new("l", "m").indicator(["a"], u32::MAX);
        assert_eq!(slow.wire()["intervalMs"], INTERVAL_MS.1);
    }

    #[test]
    fn a_text_editor_is_a_bounded_sanitized_control_block() {
        let w = Control::from(TextEditor::new("e")).wire();
        assert_eq!(
            w,
            json!({"control": {"id": "e", "kind": "editor", "border": "borderMuted", "focused": true}})
        );
        let hostile = format!("a\nb\tc\x1b[2J\x07{}", "é".repeat(MAX_EDITOR_TEXT));
        let e = TextEditor::new("e")
            .value(hostile)
            .border(Fg::Accent)
            .padding_x(100)
            .inset(1, 200)
            .focused(false);
        assert_eq!(e.id(), "e");
        let spec = &Control::from(e).wire()["control"];
        let v = spec["value"].as_str().unwrap();
        assert!(v.starts_with("a\nb\tc[2J"));
        assert_eq!(v.chars().count(), MAX_EDITOR_TEXT);
        assert_eq!(spec["border"], "accent");
        assert_eq!(spec["paddingX"], MAX_EDITOR_PAD);
        assert_eq!(spec["inset"], json!([1, MAX_EDITOR_PAD]));
        assert_eq!(spec["focused"], false);
        // What it reports keeps its lines, without escape sequences.
        assert_eq!(
            ControlEvent::from_wire(
                &json!({"control": "e", "event": "submitted", "text": "one\ntwo\x1b]0;x\x07"})
            ),
            Some(ControlEvent::Submitted {
                control: "e".into(),
                text: "one\ntwo]0;x".into()
            })
        );
    }
}
