//! Half of a dependency cycle: `cycle-a` needs `cycle-b`, which needs it.
use pi_ext::prelude::*;

/// Cycle half.
#[extension(name = "cycle-a", dependencies = ["cycle-b"])]
pub struct Cycle;

/// Never registered: the extension cannot load.
#[tool]
async fn cycle_a_tool() -> &'static str {
    "unreachable"
}
