//! What the macros' generated code calls for the terminal UI (through
//! `pi_ext::impl_`): one trait bound per user type, at the user's token.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::render::{IntoMessageView, MessageOpts, RenderedMessage, ToolRender, ToolRenderer};
use super::view::View;
use crate::registry::{MessageRendererDef, MessageRendererEntry};

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
    D: DeserializeOwned,
    R: IntoMessageView,
{
    super::render::render_message(|m, o| f.render(m, o), message, expanded)
}

/// The definition of a `#[message_renderer]` (its generated
/// `<name>_message_renderer()`).
pub fn message_renderer_def(entry: &'static MessageRendererEntry) -> MessageRendererDef {
    MessageRendererDef(entry)
}
