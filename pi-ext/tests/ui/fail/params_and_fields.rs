use pi_ext::prelude::*;

#[derive(serde::Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Args {
    query: String,
}

/// Search.
#[tool]
async fn search(Params(args): Params<Args>, limit: u32) -> String {
    format!("{} {limit}", args.query)
}

fn main() {}
