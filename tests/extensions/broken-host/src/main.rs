//! A host whose extensions cannot all load: `cycle-a` and `cycle-b` need
//! each other, `broken-host` needs an extension that is not there. pi keeps
//! running, the user is told, and `greeter` still loads.
use cycle_a as _;
use cycle_b as _;
use greeter as _;
use pi_ext::prelude::*;

/// Needs an extension this binary does not have.
#[extension(name = "broken-host", dependencies = ["nowhere"])]
struct BrokenHost;

/// Never registered: its extension cannot load.
#[tool]
async fn broken_tool() -> &'static str {
    "unreachable"
}

pi_ext::main!();
