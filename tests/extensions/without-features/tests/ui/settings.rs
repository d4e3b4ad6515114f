#[derive(Default)]
struct Settings;

#[pi_ext::extension(name = "lean", settings = Settings)]
struct Lean;

fn main() {}
