use pi_ext::prelude::*;

#[extension(name = "hello")]
fn hello() {}

fn main() {}
