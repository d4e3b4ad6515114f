use pi_ext::prelude::*;

/// Say hi.
#[tool(render)]
fn hi() -> &'static str {
    "hi"
}

fn main() {}
