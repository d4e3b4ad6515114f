fn make() {}

pi_ext::builtin_tool!(make);

fn main() {}
