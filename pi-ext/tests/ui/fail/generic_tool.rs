use pi_ext::prelude::*;

/// Echo anything.
#[tool]
async fn echo<T: ToString>(value: String) -> String {
    value
}

fn main() {}
