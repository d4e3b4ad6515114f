use pi_ext::prelude::*;

#[extension(name = "Hello World", version = 3)]
struct Hello;

fn main() {}
