use pi_ext::prelude::*;

struct Point {
    x: i32,
}

/// Move to a point.
#[tool]
async fn go(to: Point) -> String {
    to.x.to_string()
}

fn main() {}
