use pi_ext::prelude::*;

/// Greet someone.
#[tool(overrides_builtin)]
async fn greet(name: String) -> String {
    name
}

fn main() {}
