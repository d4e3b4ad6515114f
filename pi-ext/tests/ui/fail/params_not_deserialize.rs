use pi_ext::prelude::*;

struct Args {
    query: String,
}

/// Search.
#[tool]
async fn search(Params(args): Params<Args>) -> String {
    args.query
}

fn main() {}
