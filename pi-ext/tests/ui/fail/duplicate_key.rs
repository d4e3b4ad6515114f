use pi_ext::prelude::*;

/// Greet someone.
#[tool(label = "Greet", label = "Hello")]
async fn greet(name: String) -> String {
    name
}

fn main() {}
