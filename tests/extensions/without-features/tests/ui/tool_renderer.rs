fn make() {}

pi_ext::tool_renderer!("bash", make);

fn main() {}
