use pi_ext::prelude::*;

mod mine {
    pub struct Ctx;
}

/// Greet someone.
#[tool]
async fn greet(ctx: &mine::Ctx, name: String) -> String {
    let _ = ctx;
    name
}

/// Say hi.
#[command]
async fn hi(ctx: &mine::Ctx) {
    let _ = ctx;
}

fn main() {}
