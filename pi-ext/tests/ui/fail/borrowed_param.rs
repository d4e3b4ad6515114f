use pi_ext::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: &str) -> String {
    name.to_string()
}

fn main() {}
