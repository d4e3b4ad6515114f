use pi_ext::prelude::*;

/// Edit some text (an accident: pi has a built-in `edit` tool).
#[tool]
async fn edit(text: String) -> String {
    text
}

fn main() {}
