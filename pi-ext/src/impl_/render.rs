//! The terminal UI's glue (`#[tool(render = …)]`, `#[message_renderer]`,
//! `entry_renderer!`, `tool_renderer!`, `markdown_transformer!`): one trait
//! bound per user type, at the user's token (feature `tui`).

use serde_json::Value;

use crate::registry::MessageRendererDef;
pub use crate::registry::MessageRendererEntry;
use crate::tui::{IntoMessageView, MessageOpts, RenderedMessage, ToolRender, ToolRenderer, View};

/// `#[tool(render = R)]`: `R`'s value as the tool's renderer.
pub fn tool_renderer<R: ToolRender>(render: R) -> ToolRenderer {
    ToolRenderer::new(render)
}

/// What a `#[message_renderer]` function must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot render a custom message",
    label = "not a message renderer",
    note = "write `fn name(msg: &RenderedMessage<D>, opts: MessageOpts) -> View` (or `-> Option<View>`: `None` keeps pi's default look), where `D: serde::Deserialize` is the type of the message's `details` (`serde_json::Value` for any)"
)]
pub trait MessageRenderFn<D, R> {
    /// Render `msg`.
    fn render(&self, msg: &RenderedMessage<D>, opts: MessageOpts) -> R;
}

impl<F, D, R> MessageRenderFn<D, R> for F
where
    F: Fn(&RenderedMessage<D>, MessageOpts) -> R,
{
    fn render(&self, msg: &RenderedMessage<D>, opts: MessageOpts) -> R {
        self(msg, opts)
    }
}

/// Call a `#[message_renderer]` function on a message as pi has it.
pub fn render_message<F, D, R>(f: F, message: &Value, expanded: bool) -> Option<View>
where
    F: MessageRenderFn<D, R>,
    D: serde::de::DeserializeOwned,
    R: IntoMessageView,
{
    crate::tui::render_message(|m, o| f.render(m, o), message, expanded)
}

/// The definition of a `#[message_renderer]` (its generated
/// `<name>_message_renderer()`).
pub fn message_renderer_def(entry: &'static MessageRendererEntry) -> MessageRendererDef {
    MessageRendererDef(entry)
}

// `entry_renderer!`, `tool_renderer!` and `markdown_transformer!`.
pub use crate::registry::{EntryRendererEntry, MarkdownTransformerEntry, ToolRendererEntry};

/// What an [`crate::entry_renderer!`] function must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot render a custom entry",
    label = "not an entry renderer",
    note = "write `fn name(entry: &RenderedEntry<D>, opts: EntryOpts<'_>) -> View` (or `-> Option<View>`: `None` draws nothing), where `D: serde::Deserialize` is the type of the entry's `data` (`serde_json::Value` for any)"
)]
pub trait EntryRenderFn<D, R> {
    /// Render `entry`.
    fn render(&self, entry: &crate::tui::RenderedEntry<D>, opts: crate::tui::EntryOpts<'_>) -> R;
}

impl<F, D, R> EntryRenderFn<D, R> for F
where
    F: Fn(&crate::tui::RenderedEntry<D>, crate::tui::EntryOpts<'_>) -> R,
{
    fn render(&self, entry: &crate::tui::RenderedEntry<D>, opts: crate::tui::EntryOpts<'_>) -> R {
        self(entry, opts)
    }
}

/// Call an [`crate::entry_renderer!`] function on an entry as pi has it.
pub fn render_entry<F, D, R>(f: F, entry: &Value, opts: crate::tui::EntryOpts<'_>) -> Option<View>
where
    F: EntryRenderFn<D, R>,
    D: serde::de::DeserializeOwned,
    R: IntoMessageView,
{
    crate::tui::render_entry(|e, o| f.render(e, o), entry, opts)
}
