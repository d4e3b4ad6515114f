use pi_ext::prelude::*;

/// Greet someone.
#[tool(timeout = "30 seconds")]
async fn greet(name: String) -> String {
    name
}

/// Watch every call.
#[hook(timeout = 30)]
async fn watch(_event: pi_ext::events::ToolCallEvent) {}

fn main() {}
