//! my-ext as a binary of its own: `my-ext install` adds it to pi, and pi
//! runs it. Host binaries link the library instead.
use my_ext as _;

pi_ext::main!();
