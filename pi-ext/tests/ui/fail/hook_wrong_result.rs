use pi_ext::events::ToolCallEvent;
use pi_ext::prelude::*;

#[hook]
async fn gate(event: ToolCallEvent) -> bool {
    event.tool_name == "bash"
}

fn main() {}
