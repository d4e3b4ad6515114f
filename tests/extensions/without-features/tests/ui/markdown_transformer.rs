fn make() {}

pi_ext::markdown_transformer!(make);

fn main() {}
