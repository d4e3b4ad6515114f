use pi_ext::prelude::*;
use std::rc::Rc;

/// Count letters, slowly.
#[tool]
async fn count(word: String) -> String {
    let shared = Rc::new(word);
    pi_ext::task::yield_now().await;
    shared.len().to_string()
}

fn main() {}
