use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;

#[extension(name = "loader", on_load = load)]
struct Loader {
    ready: bool,
}

async fn load(_ctx: LoadCtx) -> bool {
    true
}

fn main() {}
