fn make() {}

pi_ext::virtual_model!(make);

fn main() {}
