//! The greeter extension on its own. Host binaries link the library instead.
use greeter as _;

pi_ext::main!();
