use pi_ext::prelude::*;

#[extension(name = "saver", on_unload = save)]
struct Saver;

// Takes the state by value: `on_unload` gets `&Saver`.
async fn save(saver: Saver) {
    let _ = saver;
}

fn main() {}
