//! Half of a dependency cycle: `cycle-b` needs `cycle-a`, which needs it.
use pi_ext::prelude::*;

/// Cycle half.
#[extension(name = "cycle-b", dependencies = ["cycle-a"])]
pub struct Cycle;

/// Never registered: the extension cannot load.
#[tool]
async fn cycle_b_tool() -> &'static str {
    "unreachable"
}
