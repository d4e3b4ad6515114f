//! A port of pi's `examples/extensions/hello.ts`, the minimal custom tool:
//! `hello(name)` answers `Hello, <name>!` with `{greeted: name}` as its
//! details. (The workspace's `hello` example is the pi-ext quickstart, a
//! different tool.)
use pi_ext::prelude::*;
use serde::Deserialize;

/// The tool's parameters.
#[derive(Deserialize, pi_ext::schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct HelloParams {
    /// Name to greet
    name: String,
}

#[tool(
    name = "hello",
    label = "Hello",
    description = "A simple greeting tool"
)]
async fn hello(Params(p): Params<HelloParams>) -> ToolResult {
    ToolResult::text(format!("Hello, {}!", p.name))
        .with_details(pi_ext::serde_json::json!({ "greeted": p.name }))
}

#[extension(name = "hello-tool")]
struct HelloTool;

pi_ext::main!();
