use pi_ext::prelude::*;

#[tool]
async fn greet(name: String) -> String {
    name
}

fn main() {}
