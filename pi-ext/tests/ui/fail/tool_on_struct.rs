use pi_ext::prelude::*;

/// Not a function.
#[tool]
struct Greet;

fn main() {}
