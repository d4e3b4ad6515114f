use pi_ext::prelude::*;

#[hook]
async fn on_text(text: String) {
    let _ = text;
}

fn main() {}
