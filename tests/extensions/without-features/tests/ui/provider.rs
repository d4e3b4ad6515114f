fn make() {}

pi_ext::provider!(make);

fn main() {}
