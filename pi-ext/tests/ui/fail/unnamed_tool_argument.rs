use pi_ext::prelude::*;

/// Greet someone.
#[tool]
async fn greet(_: String) -> String {
    "hello".into()
}

fn main() {}
