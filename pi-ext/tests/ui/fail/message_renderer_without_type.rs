use pi_ext::prelude::*;
use pi_ext::tui::{MessageOpts, RenderedMessage, View};

#[message_renderer]
fn status(_msg: &RenderedMessage<pi_ext::serde_json::Value>, _opts: MessageOpts) -> View {
    View::empty()
}

fn main() {}
