fn make() {}

pi_ext::entry_renderer!("bash", make);

fn main() {}
