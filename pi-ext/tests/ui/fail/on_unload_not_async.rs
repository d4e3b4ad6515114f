use pi_ext::prelude::*;

#[extension(name = "saver", on_unload = save)]
struct Saver;

fn save(saver: &Saver) {
    let _ = saver;
}

fn main() {}
