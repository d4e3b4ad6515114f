use pi_ext::prelude::*;

/// Count letters.
#[tool]
async fn count(word: String) -> usize {
    word.len()
}

fn main() {}
