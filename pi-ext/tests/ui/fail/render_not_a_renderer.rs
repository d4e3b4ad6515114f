use pi_ext::prelude::*;

struct Rows;

/// Say hi.
#[tool(render = Rows)]
fn hi() -> &'static str {
    "hi"
}

fn main() {}
