use pi_ext::prelude::*;

#[message_renderer("status")]
fn status(text: String) -> String {
    text
}

fn main() {}
