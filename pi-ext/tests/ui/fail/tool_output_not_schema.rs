use pi_ext::prelude::*;

struct Plain {
    total: i64,
}

/// An output type without a schema.
#[tool(output = Plain)]
async fn sum() -> String {
    let _ = Plain { total: 1 }.total;
    String::new()
}

fn not_a_preparer(args: String) -> String {
    args
}

/// A prepare function of the wrong shape.
#[tool(prepare_arguments = not_a_preparer)]
async fn prepared() -> String {
    String::new()
}

fn main() {}
