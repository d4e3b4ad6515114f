use pi_ext::prelude::*;

struct Rows;

/// Greet.
#[tool(render = Rows)]
fn greet(name: String) -> String {
    name
}

#[extension(name = "lean")]
struct Lean;

fn main() {}
