use pi_ext::prelude::*;

#[message_renderer("status")]
fn status(_msg: &serde_json::Value, _expanded: bool) -> Option<String> {
    None
}

fn main() {}
