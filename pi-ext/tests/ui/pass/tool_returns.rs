//! Every supported `#[tool]` return type.
// `-> ()` written out is one of the forms under test.
#![allow(clippy::unused_unit)]

use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::testing::TestHost;
use pi_ext::IntoToolResult;
use serde_json::json;

/// Text.
#[tool]
async fn string() -> String {
    "string".into()
}

/// Static text.
#[tool]
fn static_str() -> &'static str {
    "static"
}

/// Nothing, implicitly.
#[tool]
async fn implicit_unit() {}

/// Nothing, explicitly.
#[tool]
fn explicit_unit() -> () {}

/// A result with details.
#[tool]
async fn tool_result() -> ToolResult {
    ToolResult::text("result").with_details(json!({"n": 1}))
}

/// One content block.
#[tool]
async fn content() -> Content {
    Content::text("content")
}

/// Several content blocks.
#[tool]
fn contents() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// pi-ext's error.
#[tool]
async fn pi_ext_error(fail: bool) -> Result<String, Error> {
    if fail {
        Err(Error::new("failed"))
    } else {
        Ok("fine".into())
    }
}

/// anyhow's result.
#[tool]
async fn anyhow_result() -> anyhow::Result<String> {
    Err(anyhow::anyhow!("disk full").context("could not save"))
}

/// A tool result or anyhow's error.
#[tool]
fn anyhow_tool_result() -> Result<ToolResult, anyhow::Error> {
    Ok(ToolResult::text("ok"))
}

/// Any `Display` error.
#[tool]
async fn io_error() -> Result<(), std::io::Error> {
    Err(std::io::Error::other("no disk"))
}

/// A `String` error.
#[tool]
fn string_error() -> Result<&'static str, String> {
    Err("plain".into())
}

/// Unnamed.
#[tool]
async fn opaque() -> impl IntoToolResult {
    "opaque"
}

fn main() {
    let host = TestHost::with_registry(
        Registry::new("tool-returns", "1.0.0")
            .tool(string_tool())
            .tool(static_str_tool())
            .tool(implicit_unit_tool())
            .tool(explicit_unit_tool())
            .tool(tool_result_tool())
            .tool(content_tool())
            .tool(contents_tool())
            .tool(pi_ext_error_tool())
            .tool(anyhow_result_tool())
            .tool(anyhow_tool_result_tool())
            .tool(io_error_tool())
            .tool(string_error_tool())
            .tool(opaque_tool()),
    );
    let text = |tool: &str, args| {
        let out = host.call(tool, args);
        (out.text(), out.is_error)
    };
    assert_eq!(text("string", json!({})), ("string".into(), false));
    assert_eq!(text("static_str", json!({})), ("static".into(), false));
    assert_eq!(text("implicit_unit", json!({})), ("".into(), false));
    assert_eq!(text("explicit_unit", json!({})), ("".into(), false));
    let out = host.call("tool_result", json!({}));
    assert_eq!(
        (out.text(), out.details),
        ("result".into(), json!({"n": 1}))
    );
    assert_eq!(text("content", json!({})), ("content".into(), false));
    assert_eq!(host.call("contents", json!({})).content.len(), 2);
    assert_eq!(
        text("pi_ext_error", json!({"fail": false})),
        ("fine".into(), false)
    );
    assert_eq!(
        text("pi_ext_error", json!({"fail": true})),
        ("failed".into(), true)
    );
    let (message, is_error) = text("anyhow_result", json!({}));
    assert!(is_error && message.contains("could not save"), "{message}");
    assert_eq!(text("anyhow_tool_result", json!({})), ("ok".into(), false));
    assert_eq!(text("io_error", json!({})), ("no disk".into(), true));
    assert_eq!(text("string_error", json!({})), ("plain".into(), true));
    assert_eq!(text("opaque", json!({})), ("opaque".into(), false));
}
