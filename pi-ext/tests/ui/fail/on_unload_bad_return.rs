use pi_ext::prelude::*;

#[extension(name = "saver", on_unload = save)]
struct Saver;

async fn save(saver: &Saver) -> u32 {
    let _ = saver;
    1
}

fn main() {}
