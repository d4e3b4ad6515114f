//! pi-tui's own controls in a component's [`super::Frame`]: [`SelectList`],
//! [`Input`] and [`Markdown`] (and, in `control_more`, `SettingsList`,
//! `DynamicBorder`, `Loader` and `TextEditor`), made by the bridge with pi-tui's classes,
//! and what they report back ([`ControlEvent`]).

use serde_json::{json, Value};

use super::control_more::{editor_text, DynamicBorder, Loader, SettingsList, TextEditor};
use super::markdown_view::MarkdownText;
use super::style::{Fg, FgColor};
use super::MAX_VIEW_LINES;
#[cfg(doc)]
use super::{MAX_MARKDOWN, MAX_MARKDOWN_LINES};
use crate::util::sanitize::{sanitize, Keep};

/// Most items a [`SelectList`] holds; the items after them are left out.
pub const MAX_SELECT_ITEMS: usize = 1000;

/// Most characters of an item's value, label or description, and of a
/// filter; the rest is cut.
pub const MAX_CONTROL_TEXT: usize = 1024;

/// Most characters an [`Input`] holds: its value is cut to it, and typing
/// past it is dropped (by the bridge).
pub const MAX_INPUT: usize = 4096;

/// Most rows a [`SelectList`] shows at once ([`SelectList::max_visible`]).
pub const MAX_VISIBLE: usize = 100;

/// Most controls one frame holds; the ones after them draw nothing.
pub const MAX_CONTROLS: usize = 16;

/// Most rows a [`Markdown`] panel shows at once ([`Markdown::height`]): a
/// frame's line limit.
pub const MAX_PANEL_HEIGHT: usize = MAX_VIEW_LINES;

/// Highest scroll offset sent for a [`Markdown`] panel (far past the most
/// lines its text can draw: an offset past its end shows its end anyway).
const MAX_SCROLL: usize = 1_000_000;

/// Most padding of a [`Markdown`] panel, in columns or rows.
const MAX_PADDING: u16 = 16;

/// Most characters of a control's id.
pub(super) const MAX_ID: usize = 64;

/// `text` without control characters, at most `max` characters.
pub(super) fn bounded(text: &str, max: usize) -> String {
    let clean = sanitize(text, Keep::Line);
    match clean.char_indices().nth(max) {
        Some((at, _)) => clean[..at].to_string(),
        None => clean.into_owned(),
    }
}

/// One row of a [`SelectList`]: the value it stands for, the label it shows
/// (the value if none) and a description beside it (pi-tui's `SelectItem`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectItem {
    value: String,
    label: Option<String>,
    description: Option<String>,
}

impl SelectItem {
    /// An item shown as its value.
    pub fn new(value: impl Into<String>) -> Self {
        SelectItem {
            value: value.into(),
            label: None,
            description: None,
        }
    }

    /// Show `label` instead of the value.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// A description, shown (muted, on one line) beside the label where
    /// the list is wider than 40 columns.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The value it stands for.
    pub fn value(&self) -> &str {
        &self.value
    }

    fn wire(&self) -> Value {
        let mut out = json!({
            "value": bounded(&self.value, MAX_CONTROL_TEXT),
            "label": bounded(self.label.as_deref().unwrap_or(""), MAX_CONTROL_TEXT),
        });
        if let Some(d) = &self.description {
            out["description"] = json!(bounded(d, MAX_CONTROL_TEXT));
        }
        out
    }
}

/// The colours of a [`SelectList`]. The default is pi's select-list theme
/// (`getSelectListTheme()`): the selected row in accent, descriptions,
/// the scroll position and "No matching commands" muted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SelectColors {
    /// The selected row (its `→ ` too).
    pub selected: FgColor,
    /// Descriptions of the other rows.
    pub description: FgColor,
    /// `(3/12)` under a list that scrolls.
    pub scroll_info: FgColor,
    /// The line a filter that matches nothing shows.
    pub no_match: FgColor,
}

impl Default for SelectColors {
    fn default() -> Self {
        SelectColors {
            selected: Fg::Accent.into(),
            description: Fg::Muted.into(),
            scroll_info: Fg::Muted.into(),
            no_match: Fg::Muted.into(),
        }
    }
}

impl SelectColors {
    /// These colours with `scroll_info` for the scroll position.
    pub fn scroll_info(mut self, color: impl Into<FgColor>) -> Self {
        self.scroll_info = color.into();
        self
    }

    /// These colours with `no_match` for the line a filter that matches
    /// nothing shows.
    pub fn no_match(mut self, color: impl Into<FgColor>) -> Self {
        self.no_match = color.into();
        self
    }
}

/// pi-tui's `SelectList` in a frame: rows with a `→ ` on the selected one,
/// descriptions in a second column, scrolling with a `(3/12)` line, a
/// filter on the values. pi-tui draws and runs it in the bridge: up, down,
/// PageUp, PageDown, Enter and Escape (pi's `tui.select.*` keys, as the
/// user bound them) go to it with no round trip, and the component hears
/// [`ControlEvent`]s; its other keys still reach [`super::Component::on_key`].
///
/// A frame names it by `id`: the bridge keeps one list per id across
/// frames (the selection stays where the user moved it) and drops it when
/// a frame no longer has it. Items, [`SelectList::max_visible`] and the
/// colours rebuild the list when they change (keeping the selected row);
/// [`SelectList::filter`] and [`SelectList::selected`] apply when they change.
///
/// ```
/// use pi_ext::tui::{Frame, SelectItem, SelectList};
/// let list = SelectList::new("presets", [
///     SelectItem::new("fast").description("a small model"),
///     SelectItem::new("deep").label("deep (active)"),
/// ])
/// .max_visible(10);
/// let mut frame = Frame::new(60);
/// frame.line("Select Preset").control(list).line("↑↓ navigate");
/// assert_eq!(frame.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectList {
    id: String,
    items: Vec<SelectItem>,
    max_visible: usize,
    filter: String,
    selected: Option<usize>,
    colors: SelectColors,
    focused: bool,
}

impl SelectList {
    /// A list named `id` (within its component) of `items` (at most
    /// [`MAX_SELECT_ITEMS`]), five rows high, with the keys.
    pub fn new(id: impl Into<String>, items: impl IntoIterator<Item = SelectItem>) -> Self {
        SelectList {
            id: id.into(),
            items: items.into_iter().take(MAX_SELECT_ITEMS).collect(),
            max_visible: 5,
            filter: String::new(),
            selected: None,
            colors: SelectColors::default(),
            focused: true,
        }
    }

    /// Show at most `rows` rows at once (1 to [`MAX_VISIBLE`]).
    pub fn max_visible(mut self, rows: usize) -> Self {
        self.max_visible = rows.clamp(1, MAX_VISIBLE);
        self
    }

    /// Show only the items whose value starts with `prefix` (any case);
    /// the selection goes back to the first when it changes.
    pub fn filter(mut self, prefix: impl Into<String>) -> Self {
        self.filter = prefix.into();
        self
    }

    /// Move the selection to item `index` (of all items) when this differs
    /// from the last frame's: the user's moves in between are kept otherwise.
    pub fn selected(mut self, index: usize) -> Self {
        self.selected = Some(index);
        self
    }

    /// Other colours than pi's select-list theme.
    pub fn colors(mut self, colors: SelectColors) -> Self {
        self.colors = colors;
        self
    }

    /// Whether keys go to it (default true). Of a frame's controls, the
    /// first that has the keys gets them.
    pub fn focused(mut self, focused: bool) -> Self {
        self.focused = focused;
        self
    }

    /// Its items.
    pub fn items(&self) -> &[SelectItem] {
        &self.items
    }

    fn wire(&self) -> Value {
        let c = &self.colors;
        let mut out = json!({
            "id": bounded(&self.id, MAX_ID),
            "kind": "select",
            "items": self.items.iter().map(SelectItem::wire).collect::<Vec<_>>(),
            "maxVisible": self.max_visible,
            "colors": {
                "selected": c.selected.wire(),
                "description": c.description.wire(),
                "scrollInfo": c.scroll_info.wire(),
                "noMatch": c.no_match.wire(),
            },
            "focused": self.focused,
        });
        if !self.filter.is_empty() {
            out["filter"] = json!(bounded(&self.filter, MAX_CONTROL_TEXT));
        }
        if let Some(i) = self.selected {
            out["selected"] = json!(i);
        }
        out
    }
}

/// pi-tui's one-line `Input` in a frame: `> ` then the text, scrolled
/// sideways when longer than the width, with pi's editing keys (word
/// moves, kill ring, undo) and the terminal's cursor where the user types.
/// Every key but Tab, Shift+Tab, up, down, PageUp and PageDown goes to it
/// in the bridge; the component hears [`ControlEvent::Changed`] as the text
/// changes, [`ControlEvent::Submitted`] on Enter and
/// [`ControlEvent::Cancelled`] on Escape.
///
/// ```
/// use pi_ext::tui::{Frame, Input};
/// let mut frame = Frame::new(40);
/// frame.line("Name:").control(Input::new("name").value("pi"));
/// assert_eq!(frame.controls().count(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    id: String,
    value: Option<String>,
    focused: bool,
}

impl Input {
    /// An empty input named `id` (within its component), with the keys.
    pub fn new(id: impl Into<String>) -> Self {
        Input {
            id: id.into(),
            value: None,
            focused: true,
        }
    }

    /// Set its text to `text` (cut to [`MAX_INPUT`] characters) when this
    /// differs from the last frame's: what the user typed in between is
    /// kept otherwise.
    pub fn value(mut self, text: impl Into<String>) -> Self {
        self.value = Some(text.into());
        self
    }

    /// Whether keys go to it (default true), as [`SelectList::focused`].
    pub fn focused(mut self, focused: bool) -> Self {
        self.focused = focused;
        self
    }

    fn wire(&self) -> Value {
        let mut out =
            json!({"id": bounded(&self.id, MAX_ID), "kind": "input", "focused": self.focused});
        if let Some(v) = &self.value {
            out["value"] = json!(bounded(v, MAX_INPUT));
        }
        out
    }
}

/// pi-tui's `Markdown` in a frame, as a panel the component scrolls: the
/// text drawn by pi-tui's own `Markdown` with pi's `getMarkdownTheme()`
/// (headings, lists, quotes, tables, code blocks with pi's highlighting) at
/// the frame's width, in pi's current theme, as [`super::View::markdown`]
/// draws it, then only [`Markdown::height`] of its rows from row
/// [`Markdown::scroll`].
///
/// It takes no keys: they reach [`super::Component::on_key`], and the
/// component pages by changing the offset. The bridge tells it how many rows
/// the text draws to at the frame's width ([`ControlEvent::Measured`], when
/// the count changes), and holds an offset past the end to the last
/// `height` rows, so the last page is always full.
///
/// The text is bounded as a Markdown view's is: cut to [`MAX_MARKDOWN`]
/// bytes and [`MAX_MARKDOWN_LINES`] lines (then a dim last row says how much
/// was left out), control characters dropped; the bridge also holds
/// nesting to 8 and escapes the inline delimiters of a paragraph with more
/// than 64, so that no text stalls pi. pi-tui parses it once per text and
/// width: paging costs no parse.
///
/// ```
/// use pi_ext::tui::{Frame, Markdown};
/// let answer = "## Summary\n\n- **3** files changed\n\n```rust\nfn main() {}\n```";
/// let mut frame = Frame::new(60);
/// frame
///     .line("Answer 2 of 5")
///     .control(Markdown::new("answer", answer).height(10).scroll(0))
///     .line("PgUp/PgDn scroll · Esc back");
/// assert_eq!(frame.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markdown {
    id: String,
    text: MarkdownText,
    height: Option<usize>,
    scroll: usize,
    padding: (u16, u16),
}

impl Markdown {
    /// A panel named `id` (within its component) showing all of `text`.
    pub fn new(id: impl Into<String>, text: impl AsRef<str>) -> Self {
        Markdown {
            id: id.into(),
            text: MarkdownText::new(text.as_ref()),
            height: None,
            scroll: 0,
            padding: (0, 0),
        }
    }

    /// Pad the text with `columns` blank columns left and right and `rows`
    /// empty rows above and below (pi-tui's `new Markdown(text, paddingX,
    /// paddingY, theme)`; at most 16 each). The padding rows are rows of
    /// the panel: they count in [`Markdown::height`] and are scrolled.
    pub fn padding(mut self, columns: u16, rows: u16) -> Self {
        self.padding = (columns.min(MAX_PADDING), rows.min(MAX_PADDING));
        self
    }

    /// Show at most `rows` rows (1 to [`MAX_PANEL_HEIGHT`]); all of them
    /// without it.
    pub fn height(mut self, rows: usize) -> Self {
        self.height = Some(rows.clamp(1, MAX_PANEL_HEIGHT));
        self
    }

    /// Show the rows from row `row` (0 is the first). Past the last page,
    /// the last page shows.
    pub fn scroll(mut self, row: usize) -> Self {
        self.scroll = row.min(MAX_SCROLL);
        self
    }

    /// The text as it is sent: cut and without control characters.
    pub fn text(&self) -> &str {
        &self.text.text
    }

    fn wire(&self) -> Value {
        let mut out = json!({
            "id": bounded(&self.id, MAX_ID),
            "kind": "markdown",
            "markdown": &self.text.text,
            "scroll": self.scroll,
        });
        if self.text.more > 0 {
            out["more"] = json!(self.text.more);
        }
        if let Some(h) = self.height {
            out["height"] = json!(h);
        }
        if self.padding != (0, 0) {
            out["paddingX"] = json!(self.padding.0);
            out["paddingY"] = json!(self.padding.1);
        }
        out
    }
}

/// A control a [`super::Frame`] holds ([`super::Frame::control`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Control {
    /// pi-tui's `SelectList`.
    SelectList(SelectList),
    /// pi-tui's `Input`.
    Input(Input),
    /// pi-tui's `Markdown`, as a panel the component scrolls.
    Markdown(Markdown),
    /// pi-tui's `SettingsList`.
    SettingsList(SettingsList),
    /// pi's `DynamicBorder`: a rule across the width.
    DynamicBorder(DynamicBorder),
    /// pi-tui's `Loader`: a spinner and a message.
    Loader(Loader),
    /// pi-tui's multi-line `Editor`.
    TextEditor(TextEditor),
}

impl Control {
    /// Its id ("" for a [`DynamicBorder`], which keeps no state).
    pub fn id(&self) -> &str {
        match self {
            Control::SelectList(l) => &l.id,
            Control::Input(i) => &i.id,
            Control::Markdown(m) => &m.id,
            Control::SettingsList(l) => l.id(),
            Control::DynamicBorder(_) => "",
            Control::Loader(l) => l.id(),
            Control::TextEditor(e) => e.id(),
        }
    }

    /// The wire form: a frame's `control` block.
    pub(super) fn wire(&self) -> Value {
        let spec = match self {
            Control::SelectList(l) => l.wire(),
            Control::Input(i) => i.wire(),
            Control::Markdown(m) => m.wire(),
            Control::SettingsList(l) => l.wire(),
            Control::DynamicBorder(b) => b.wire(),
            Control::Loader(l) => l.wire(),
            Control::TextEditor(e) => e.wire(),
        };
        json!({ "control": spec })
    }
}

impl From<Markdown> for Control {
    fn from(m: Markdown) -> Self {
        Control::Markdown(m)
    }
}

impl From<SelectList> for Control {
    fn from(l: SelectList) -> Self {
        Control::SelectList(l)
    }
}

impl From<Input> for Control {
    fn from(i: Input) -> Self {
        Control::Input(i)
    }
}

/// What a frame's control reports, to [`super::Component::on_control`].
/// `control` is the id it was given; `index` is into the [`SelectList`]'s
/// items (all of them, not the filtered ones).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ControlEvent {
    /// A select list's selection moved.
    SelectionChanged {
        /// The list's id.
        control: String,
        /// The item now selected.
        index: usize,
        /// Its value.
        value: String,
    },
    /// Enter on a select list: this item was chosen.
    Chosen {
        /// The list's id.
        control: String,
        /// The item chosen.
        index: usize,
        /// Its value.
        value: String,
    },
    /// Escape (or Ctrl+C) on a select list or a settings list, Escape on
    /// an input or a text editor.
    Cancelled {
        /// The control's id.
        control: String,
    },
    /// An input's or a [`TextEditor`]'s text changed.
    Changed {
        /// The control's id.
        control: String,
        /// Its text now.
        text: String,
    },
    /// Enter on an input or a [`TextEditor`].
    Submitted {
        /// The control's id.
        control: String,
        /// Its text (an editor's trimmed, as pi-tui's `onSubmit` gets it).
        text: String,
    },
    /// A [`SettingsList`]'s item took another value: Enter or Space cycled
    /// it to the next of its values.
    SettingChanged {
        /// The list's id.
        control: String,
        /// The item's id.
        item: String,
        /// Its value now.
        value: String,
    },
    /// A [`Markdown`] panel draws to `lines` rows at the frame's width (the
    /// note included, if its text was cut): sent when a text is first drawn
    /// and when the count changes (another width). Page within it: the last
    /// page starts at `lines - height`.
    Measured {
        /// The panel's id.
        control: String,
        /// How many rows its whole text draws to.
        lines: usize,
    },
}

impl ControlEvent {
    /// The id of the control that reported it.
    pub fn control(&self) -> &str {
        match self {
            ControlEvent::SelectionChanged { control, .. }
            | ControlEvent::Chosen { control, .. }
            | ControlEvent::Cancelled { control }
            | ControlEvent::Changed { control, .. }
            | ControlEvent::Submitted { control, .. }
            | ControlEvent::Measured { control, .. }
            | ControlEvent::SettingChanged { control, .. } => control,
        }
    }

    /// A `ui/control` notification's event; None for one this runtime does
    /// not know or that is malformed (an index the list has not).
    pub(crate) fn from_wire(p: &Value) -> Option<ControlEvent> {
        let control = p["control"].as_str()?.to_string();
        // An editor's text keeps its lines (an input's has none).
        let text = || p["text"].as_str().map(editor_text);
        let item = || {
            let index = usize::try_from(p["index"].as_u64()?).ok()?;
            Some((index, p["value"].as_str()?.to_string()))
        };
        Some(match p["event"].as_str()? {
            "selectionChanged" => {
                let (index, value) = item()?;
                ControlEvent::SelectionChanged {
                    control,
                    index,
                    value,
                }
            }
            "chosen" => {
                let (index, value) = item()?;
                ControlEvent::Chosen {
                    control,
                    index,
                    value,
                }
            }
            "cancelled" => ControlEvent::Cancelled { control },
            "changed" => ControlEvent::Changed {
                control,
                text: text()?,
            },
            "submitted" => ControlEvent::Submitted {
                control,
                text: text()?,
            },
            "settingChanged" => ControlEvent::SettingChanged {
                control,
                item: bounded(p["item"].as_str()?, MAX_CONTROL_TEXT),
                value: bounded(p["value"].as_str()?, MAX_CONTROL_TEXT),
            },
            "measured" => ControlEvent::Measured {
                control,
                lines: usize::try_from(p["lines"].as_u64()?).ok()?,
            },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::Frame;

    #[test]
    fn a_select_list_is_a_bounded_sanitized_control_block() {
        let items = (0..MAX_SELECT_ITEMS + 5).map(|i| {
            SelectItem::new(format!("v{i}"))
                .label(format!("\x1b[31mL{i}\x1b]52;c;x\x07"))
                .description("d".repeat(MAX_CONTROL_TEXT + 9))
        });
        let list = SelectList::new("p", items)
            .max_visible(1000)
            .filter("v1")
            .selected(2);
        assert_eq!(list.items().len(), MAX_SELECT_ITEMS);
        let w = Control::from(list).wire();
        let spec = &w["control"];
        assert_eq!(spec["kind"], "select");
        assert_eq!(spec["maxVisible"], MAX_VISIBLE);
        assert_eq!(spec["filter"], "v1");
        assert_eq!(spec["selected"], 2);
        assert_eq!(spec["items"][0]["label"], "[31mL0]52;c;x");
        assert_eq!(
            spec["items"][0]["description"].as_str().unwrap().len(),
            MAX_CONTROL_TEXT
        );
        assert_eq!(spec["colors"]["selected"], "accent");
        assert_eq!(spec["colors"]["scrollInfo"], "muted");
        let c = SelectColors::default()
            .scroll_info(Fg::Dim)
            .no_match(Fg::Warning);
        let w = Control::from(SelectList::new("p", []).colors(c).max_visible(0)).wire();
        assert_eq!(w["control"]["colors"]["scrollInfo"], "dim");
        assert_eq!(w["control"]["colors"]["noMatch"], "warning");
        assert_eq!(w["control"]["maxVisible"], 1);
        assert!(w["control"].get("filter").is_none());
    }

    #[test]
    fn an_input_carries_its_value_cut_and_its_focus() {
        let w = Control::from(Input::new("name").value("é".repeat(MAX_INPUT + 3))).wire();
        assert_eq!(
            w["control"]["value"].as_str().unwrap().chars().count(),
            MAX_INPUT
        );
        assert_eq!(w["control"]["focused"], true);
        let w = Control::from(Input::new("n").focused(false)).wire();
        assert_eq!(
            w,
            json!({"control": {"id": "n", "kind": "input", "focused": false}})
        );
    }

    #[test]
    fn a_frame_puts_its_controls_between_its_lines() {
        let mut f = Frame::new(30);
        f.line("top")
            .control(SelectList::new("a", [SelectItem::new("x")]))
            .line("mid\nmid2")
            .control(Input::new("b"))
            .cursor(1, 2);
        let w = f.wire();
        let blocks = w["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), 4);
        assert_eq!(blocks[0]["text"], json!([["top"]]));
        assert_eq!(blocks[1]["control"]["id"], "a");
        assert_eq!(blocks[2]["text"], json!([["mid"], ["mid2"]]));
        assert_eq!(blocks[3]["control"]["kind"], "input");
        // The cursor counts the frame's own lines, not the controls'.
        assert_eq!(w["cursor"], json!({"line": 1, "col": 2}));
        assert_eq!(
            f.controls().map(Control::id).collect::<Vec<_>>(),
            ["a", "b"]
        );
        // Past MAX_CONTROLS, controls are left out.
        let mut f = Frame::new(10);
        for i in 0..MAX_CONTROLS + 3 {
            f.control(Input::new(i.to_string()));
        }
        assert_eq!(f.wire()["blocks"].as_array().unwrap().len(), MAX_CONTROLS);
    }

    #[test]
    fn a_markdown_panel_is_bounded_sanitized_and_windowed() {
        let w = Control::from(Markdown::new("a", "# Hi\n\n- one")).wire();
        assert_eq!(
            w,
            json!({"control": {"id": "a", "kind": "markdown", "markdown": "# Hi\n\n- one", "scroll": 0}})
        );
        // Escape sequences never go out; huge text is cut with the bytes it left out.
        let hostile = format!(
            "# a\x1b[2Jb\x1b]52;c;eA==\x07\n```\n{}```",
            "x\u{9b}31m\n".repeat(100_000)
        );
        let m = Markdown::new("i".repeat(100), &hostile)
            .height(1_000_000)
            .scroll(usize::MAX);
        assert!(m.text().len() <= crate::tui::MAX_MARKDOWN);
        assert!(!m.text().contains(['\x1b', '\x07', '\u{9b}']));
        assert!(m.text().starts_with("# a[2Jb]52;c;eA=="));
        let spec = &Control::from(m.clone()).wire()["control"];
        assert_eq!(spec["height"], MAX_PANEL_HEIGHT);
        assert_eq!(spec["scroll"], MAX_SCROLL);
        assert_eq!(spec["id"].as_str().unwrap().len(), MAX_ID);
        // Cut at MAX_MARKDOWN_LINES lines, within MAX_MARKDOWN bytes.
        let more = spec["more"].as_u64().unwrap() as usize;
        assert!(more >= hostile.len() - crate::tui::MAX_MARKDOWN, "{more}");
        assert_eq!(m.text().lines().count(), crate::tui::MAX_MARKDOWN_LINES);
        assert_eq!(
            Control::from(Markdown::new("a", "x").height(0)).wire()["control"]["height"],
            1
        );
        let padded = Control::from(Markdown::new("a", "x").padding(1, 200)).wire();
        assert_eq!(
            (
                &padded["control"]["paddingX"],
                &padded["control"]["paddingY"]
            ),
            (&json!(1), &json!(MAX_PADDING))
        );
        // In a frame, between the lines; the bridge's count comes back as an event.
        let mut f = Frame::new(40);
        f.line("top")
            .control(Markdown::new("md", "text").height(3).scroll(2))
            .line("keys");
        let w = f.wire();
        assert_eq!(w["blocks"][1]["control"]["kind"], "markdown");
        assert_eq!(w["blocks"][2]["text"], json!([["keys"]]));
        let e =
            ControlEvent::from_wire(&json!({"control": "md", "event": "measured", "lines": 42}));
        assert_eq!(
            e,
            Some(ControlEvent::Measured {
                control: "md".into(),
                lines: 42
            })
        );
        assert_eq!(e.unwrap().control(), "md");
        for bad in [json!(-1), json!("3"), json!(null), json!(1.5)] {
            assert_eq!(
                ControlEvent::from_wire(
                    &json!({"control": "md", "event": "measured", "lines": bad})
                ),
                None
            );
        }
    }

    /// A picker: the list's choice ends it, a typed `q` (a key the list
    /// leaves to the component) too.
    struct Picker;

    impl crate::tui::Component for Picker {
        type Output = Option<String>;
        fn on_key(&mut self, key: &crate::tui::Key, cx: &mut crate::tui::Cx<Self>) {
            if key.is("q") {
                cx.done(None);
            }
        }
        fn on_control(&mut self, event: &ControlEvent, cx: &mut crate::tui::Cx<Self>) {
            if let ControlEvent::Chosen { value, .. } = event {
                cx.done(Some(value.clone()));
            }
        }
        fn render(&mut self, area: &crate::tui::Area) -> Frame {
            let mut f = Frame::new(area.width);
            f.line("Pick")
                .control(SelectList::new("p", [SelectItem::new("a")]));
            f
        }
    }

    #[test]
    fn a_component_hears_its_controls_events() {
        let mut t = crate::testing::TestComponent::new(Picker);
        assert_eq!(t.frame(20).lines(), ["Pick"]);
        t.control(ControlEvent::SelectionChanged {
            control: "p".into(),
            index: 0,
            value: "a".into(),
        });
        assert!(t.is_open());
        t.control(ControlEvent::Chosen {
            control: "p".into(),
            index: 0,
            value: "a".into(),
        });
        assert_eq!(t.result(), Some(&Some("a".to_string())));
    }

    #[test]
    fn control_events_are_read_from_the_wire_and_bad_ones_dropped() {
        let e = |v: Value| ControlEvent::from_wire(&v);
        assert_eq!(
            e(json!({"control": "p", "event": "chosen", "index": 1, "value": "deep"})),
            Some(ControlEvent::Chosen {
                control: "p".into(),
                index: 1,
                value: "deep".into()
            })
        );
        assert_eq!(
            e(json!({"control": "p", "event": "selectionChanged", "index": 0, "value": "a"}))
                .unwrap()
                .control(),
            "p"
        );
        assert_eq!(
            e(json!({"control": "n", "event": "submitted", "text": "hi\x1b[2J"})),
            Some(ControlEvent::Submitted {
                control: "n".into(),
                text: "hi[2J".into()
            })
        );
        assert_eq!(
            e(json!({"control": "n", "event": "cancelled"})),
            Some(ControlEvent::Cancelled {
                control: "n".into()
            })
        );
        assert_eq!(
            e(json!({"control": "p", "event": "chosen", "index": -1, "value": "x"})),
            None
        );
        assert_eq!(e(json!({"control": "p", "event": "changed"})), None);
        assert_eq!(e(json!({"control": "p", "event": "exploded"})), None);
        assert_eq!(e(json!({"event": "cancelled"})), None);
    }
}
