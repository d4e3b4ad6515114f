use pi_ext::prelude::*;

/// Greet someone.
#[tool(name = "greet someone")]
async fn greet(name: String) -> String {
    name
}

fn main() {}
