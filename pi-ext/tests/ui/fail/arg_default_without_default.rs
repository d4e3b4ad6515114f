use pi_ext::prelude::*;
use pi_ext::schemars;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
enum Speed {
    Slow,
    Fast,
}

/// Go.
#[tool]
async fn go(#[arg(default)] speed: Speed) -> String {
    match speed {
        Speed::Slow => "slow".into(),
        Speed::Fast => "fast".into(),
    }
}

fn main() {}
