//! A host binary: links extension crates and serves them all, loaded in
//! dependency order.
use audit as _;
use greeter as _;

pi_ext::main!();
