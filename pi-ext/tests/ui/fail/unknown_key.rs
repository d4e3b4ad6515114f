use pi_ext::prelude::*;

/// Greet someone.
#[tool(lable = "Greet")]
async fn greet(name: String) -> String {
    name
}

fn main() {}
