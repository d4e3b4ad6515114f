use pi_ext::prelude::*;

/// Greet someone.
#[tool]
async fn greet(#[arg(descripton = "Who")] name: String) -> String {
    name
}

fn main() {}
