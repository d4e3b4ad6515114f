//! pi's terminal UI from Rust: styled text, tool and message renderers,
//! custom components, overlays, editor, footer, header, widgets,
//! autocomplete and the theme.
//!
//! pi paints on its own thread and calls renderers synchronously; the
//! extension is another process. So nothing here is called *while* pi
//! paints: Rust sends what to show ahead of time, the bridge keeps it and
//! hands it to pi at once, and asks pi to repaint when Rust sends something
//! new.
//!
//! - A [`View`] is styled text that does not depend on the width: blocks of
//!   [`Line`]s of [`Span`]s, laid out by the bridge with pi-tui's own
//!   wrapping at whatever width pi paints. Tool rows ([`ToolRender`]),
//!   message renderers ([`macro@crate::message_renderer`]), footers, headers and
//!   widgets are views, and so are custom entries
//!   ([`crate::entry_renderer!`]); [`crate::tool_renderer!`] draws other
//!   tools' rows and [`crate::markdown_transformer!`] rewrites Markdown
//!   before pi renders it. [`View::markdown`] is a block drawn by pi-tui's own
//!   `Markdown` with pi's Markdown theme.
//! - A [`Frame`] is what a [`Component`] drew for one width (games,
//!   dialogs, overlays). When the width changes, the bridge cuts the last
//!   frame to fit and asks the component for a new one.
//! - Styles are pi's theme tokens ([`Fg`], [`Bg`]) or raw colours
//!   ([`Rgb`], [`Ansi`]), plus bold, dim, italic, underline, inverse and
//!   strike. The bridge resolves tokens with the theme pi paints with, so a
//!   theme switch repaints Rust text in the new theme's colours.
//! - Keys arrive as pi names them ([`Key::is`]`("ctrl+c")`); keys of pi's
//!   terminal outside any component come through a [`KeyFilter`]
//!   subscription ([`Ui::on_terminal_input`](crate::host::ui::Ui::on_terminal_input)).
//!
//! Text is made safe on both sides, the runtime's and the bridge's: control
//! characters (C0, DEL and C1, escape included) are dropped and tabs become
//! 3 spaces, in spans as in the plain strings of [`crate::host::ui`], so no text
//! writes an escape sequence to the user's terminal; a link is a
//! [`Span::link`], written by the bridge. No line ever reaches pi wider than
//! the width pi gave (pi's terminal stops with an error when one does). Widths are counted as pi-tui's `visibleWidth` counts them
//! ([`width`]).
//!
//! ## A tool row
//!
//! ```
//! use pi_ext::prelude::*;
//! use pi_ext::tui::{span, CallRow, Fg, Line, ResultRow, ToolRender, View};
//!
//! #[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
//! #[schemars(crate = "pi_ext::schemars")]
//! struct Add { text: String }
//!
//! /// How `note` calls look in pi's terminal.
//! struct NoteRows;
//!
//! impl ToolRender for NoteRows {
//!     type Args = Add;
//!     type Details = pi_ext::serde_json::Value;
//!
//!     fn call(&self, row: &CallRow<Add>) -> View {
//!         let mut line = Line::from(span("note ").fg(Fg::ToolTitle).bold());
//!         if let Some(args) = row.args() {
//!             line += span(format!("\"{}\"", args.text)).fg(Fg::Dim);
//!         }
//!         View::text(line)
//!     }
//!
//!     fn result(&self, row: &ResultRow<Add, pi_ext::serde_json::Value>) -> View {
//!         if row.is_error() {
//!             return View::text(span(row.text()).fg(Fg::Error));
//!         }
//!         View::text(span("✓ noted").fg(Fg::Success))
//!     }
//! }
//!
//! /// Keep a note.
//! #[tool(render = NoteRows)]
//! async fn note(Params(add): Params<Add>) -> String {
//!     format!("noted: {}", add.text)
//! }
//! # fn main() {}
//! ```
//!
//! ## A component
//!
//! See [`Component`] and [`Ui::custom`](crate::host::ui::Ui::custom).
//!
//! ## ratatui
//!
//! pi-ext has no ratatui feature. It was tried: `ratatui` 0.30 without
//! default features (core and widgets, no backend) adds 26 crates and about
//! 24 CPU-seconds to every clean debug build of a workspace that enables it
//! (and with feature unification one example turns it on for every build);
//! it would put a 0.x crate's types in pi-ext's public API, so each ratatui
//! release would be a pi-ext breaking change and users on another ratatui
//! version would get type mismatches; and it fits pi only in part: ratatui
//! draws a fixed rectangle, while pi's rows, messages, headers and footers are
//! text laid out at any width (what a [`View`] is). The question is worth
//! asking again when `ratatui-core` reaches 1.0.
//!
//! Drawing with ratatui into a [`Frame`] takes a few lines in your own crate:
//! render into a `Buffer` of the area's size, then turn each row of cells into
//! a [`Line`] of styled spans (tokens are resolved to colours with
//! [`Ui::theme`](crate::host::ui::Ui::theme) first, since ratatui has no theme; repaint on a
//! theme switch by asking again):
//!
//! ```ignore
//! use ratatui::{buffer::Buffer, layout::Rect, style::{Color, Modifier}, widgets::Widget};
//! use pi_ext::tui::{span, Ansi, Frame, Line, Rgb, Style};
//!
//! fn frame_of(widget: impl Widget, width: u16, height: u16) -> Frame {
//!     let area = Rect::new(0, 0, width, height);
//!     let mut buf = Buffer::empty(area);
//!     widget.render(area, &mut buf);
//!     let mut frame = Frame::new(width);
//!     for y in 0..height {
//!         let mut line = Line::new();
//!         let mut skip = 0;
//!         for x in 0..width {
//!             if skip > 0 { skip -= 1; continue; }    // the rest of a wide character
//!             let cell = &buf[(x, y)];
//!             skip = pi_ext::tui::width(cell.symbol()).saturating_sub(1);
//!             line += span(cell.symbol()).style(style_of(cell.fg, cell.bg, cell.modifier));
//!         }
//!         frame.line(line);                           // neighbours of one style merge on the wire
//!     }
//!     frame
//! }
//!
//! fn style_of(fg: Color, bg: Color, m: Modifier) -> Style {
//!     let mut s = Style::new();
//!     match fg {
//!         Color::Reset => {}
//!         Color::Rgb(r, g, b) => s = s.fg(Rgb(r, g, b)),
//!         Color::Indexed(n) => s = s.fg(Ansi(n)),
//!         named => s = s.fg(Ansi(named_index(named))), // Black → 0 … White → 15
//!     }
//!     match bg {
//!         Color::Reset => {}
//!         Color::Rgb(r, g, b) => s = s.bg(Rgb(r, g, b)),
//!         Color::Indexed(n) => s = s.bg(Ansi(n)),
//!         named => s = s.bg(Ansi(named_index(named))),
//!     }
//!     if m.contains(Modifier::BOLD) { s = s.bold() }
//!     if m.contains(Modifier::DIM) { s = s.dim() }
//!     if m.contains(Modifier::ITALIC) { s = s.italic() }
//!     if m.contains(Modifier::UNDERLINED) { s = s.underline() }
//!     if m.contains(Modifier::REVERSED) { s = s.inverse() }
//!     if m.contains(Modifier::CROSSED_OUT) { s = s.strike() }
//!     s
//! }
//! ```

mod ansi;
mod autocomplete;
mod chrome;
mod component;
mod control;
mod control_more;
mod editor;
mod entry;
mod frame;
mod input;
mod key;
mod markdown;
mod markdown_view;
mod overlay;
mod overlays;
mod query;
mod render;
mod style;
mod text;
mod theme;
mod view;
mod wrap;

#[doc(no_inline)]
pub use crate::command::Suggestion;
pub use autocomplete::{Query, Suggestions};
pub use chrome::{Chrome, FooterData};
pub(crate) use component::UpdateReceiver;
pub use component::{Area, Component, Custom, Cx, Handle};
pub use control::{
    Control, ControlEvent, Input, Markdown, SelectColors, SelectItem, SelectList, MAX_CONTROLS,
    MAX_CONTROL_TEXT, MAX_INPUT, MAX_PANEL_HEIGHT, MAX_SELECT_ITEMS, MAX_VISIBLE,
};
pub use control_more::{
    DynamicBorder, Loader, SettingItem, SettingsList, TextEditor, MAX_EDITOR_TEXT,
    MAX_LOADER_FRAMES, MAX_SETTING_VALUES,
};
pub use editor::{Act, Editor, EditorMode, EditorSpec, Highlight, Shine};
pub(crate) use entry::{entry_views, render_entry};
pub use entry::{EntryOpts, RenderedEntry};
pub use frame::Frame;
pub(crate) use input::TerminalInputs;
pub use input::{
    InputEnd, InputKey, KeyFilter, TerminalInput, INPUT_QUEUE, MAX_FILTER_KEYS,
    MAX_INPUT_SUBSCRIPTIONS, MAX_PASTE,
};
pub use key::{Key, KeyKind};
pub(crate) use markdown::transform_markdown;
pub use markdown::{MarkdownContext, MarkdownSurface};
pub use markdown_view::{MAX_MARKDOWN, MAX_MARKDOWN_LINES};
pub use overlay::{Anchor, Margin, Overlay, Size};
pub use overlays::{ChildId, OverlayCtl, TooManyOverlays, MAX_CHILD_OVERLAYS};
pub use query::TerminalQuery;
pub(crate) use render::{message_views, render_message, RowInput};
pub use render::{
    tool_output, CallRow, IntoMessageView, MessageOpts, RenderedMessage, ResultRow, ToolRender,
    ToolRenderer,
};
pub use style::{Ansi, Bg, BgColor, Fg, FgColor, Rgb, Style};
pub(crate) use text::grapheme_width;
pub use text::{span, width, Line, Span};
pub use theme::{Theme, ThemeColor};
pub use view::{View, MAX_VIEW_DEPTH, MAX_VIEW_LINES};
