use pi_ext::prelude::*;

struct Cache;

/// Look something up.
#[tool]
async fn lookup(cache: &Cache, key: String) -> String {
    let _ = cache;
    key
}

fn main() {}
