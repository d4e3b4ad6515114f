//! Every supported `#[tool]` signature, registered through the generated
//! `<fn>_tool()` constructors and called.

use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::schemars;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Shapes, with a call counter.
#[extension(name = "shapes")]
#[derive(Default)]
struct Shapes {
    calls: AtomicU64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Rect {
    width: u32,
    height: u32,
}

/// A unit.
#[derive(Debug, Default, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
enum Unit {
    #[default]
    Cm,
    Inch,
}

/// No arguments.
#[tool]
async fn nothing() -> &'static str {
    "nothing"
}

/// Plain arguments of several types.
#[tool]
async fn plain(a: i64, word: String, flag: bool, list: Vec<u32>, unit: Unit) -> String {
    format!("{a} {word} {flag} {list:?} {unit:?}")
}

/// Optional and defaulted arguments (a synchronous tool).
#[tool]
fn optional(
    #[arg(description = "Which unit")] unit: Option<Unit>,
    #[arg(default)] scale: u32,
    #[arg(description = "Round the result", default)] round: bool,
    #[arg(default)] unit_or_cm: Unit,
) -> String {
    format!("{unit:?} {scale} {round} {unit_or_cm:?}")
}

/// The whole input as one struct, destructured.
#[tool]
async fn area(Params(rect): Params<Rect>) -> String {
    (rect.width * rect.height).to_string()
}

/// The whole input as one struct, kept whole, with the context.
#[tool]
async fn perimeter(ctx: &Ctx, params: Params<Rect>) -> String {
    let Params(rect) = params;
    format!("{} {:?}", 2 * (rect.width + rect.height), ctx.tool_name())
}

/// The context by reference, the state and an argument, in any order.
#[tool]
async fn counted(n: u32, shapes: &Shapes, ctx: &Ctx) -> String {
    let calls = shapes.calls.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{n} {calls} {:?}", ctx.tool_name())
}

/// The context by value and the state, in a synchronous tool.
#[tool]
fn owned_ctx(ctx: Ctx, shapes: &Shapes) -> String {
    format!(
        "{:?} {}",
        ctx.tool_name(),
        shapes.calls.load(Ordering::Relaxed)
    )
}

/// Unnamed context and state.
#[tool]
async fn unnamed(_: &Ctx, _: &Shapes, word: String) -> String {
    word
}

/// A mutable binding and a raw identifier.
#[tool]
async fn r#loop(mut times: u32) -> String {
    times += 1;
    times.to_string()
}

/// Unused.
#[tool(
    name = "labelled",
    label = "Labelled",
    description = "Described in the attribute.",
    prompt_snippet = "labelled: a tool",
    prompt_guidelines = ["Use labelled rarely."],
    timeout = "30s"
)]
async fn with_every_key() {}

/// Replace pi's built-in `read` tool, on purpose.
#[tool(name = "read", overrides_builtin)]
async fn my_read(path: String) -> String {
    format!("read {path}")
}

fn main() {
    let registry = Registry::new("tool-forms", "1.0.0")
        .extension::<Shapes>()
        .tool(nothing_tool())
        .tool(plain_tool())
        .tool(optional_tool())
        .tool(area_tool())
        .tool(perimeter_tool())
        .tool(counted_tool())
        .tool(owned_ctx_tool())
        .tool(unnamed_tool())
        .tool(loop_tool())
        .tool(with_every_key_tool())
        .tool(my_read_tool());
    assert_eq!(registry.problems(), Vec::<String>::new());
    let host = TestHost::with_registry(registry);

    let manifest = host.manifest();
    let labelled = manifest
        .tools
        .iter()
        .find(|t| t.name == "labelled")
        .unwrap();
    assert_eq!(labelled.label, "Labelled");
    assert_eq!(labelled.description, "Described in the attribute.");
    assert_eq!(labelled.timeout_ms, Some(30_000));
    let optional = manifest
        .tools
        .iter()
        .find(|t| t.name == "optional")
        .unwrap();
    // Optional and defaulted arguments are not required.
    assert_eq!(
        optional.parameters.get("required"),
        None,
        "{}",
        optional.parameters
    );
    assert_eq!(optional.parameters["properties"]["scale"]["default"], 0);
    assert_eq!(
        optional.parameters["properties"]["unit"]["description"],
        "Which unit"
    );
    let plain = manifest.tools.iter().find(|t| t.name == "plain").unwrap();
    assert_eq!(
        plain.parameters["required"],
        json!(["a", "word", "flag", "list", "unit"]),
        "{}",
        plain.parameters
    );

    assert_eq!(host.call("nothing", json!({})).text(), "nothing");
    let args = json!({"a": -1, "word": "w", "flag": true, "list": [1, 2], "unit": "inch"});
    assert_eq!(host.call("plain", args).text(), "-1 w true [1, 2] Inch");
    assert!(host.call("plain", json!({"a": 1})).is_error);
    assert_eq!(host.call("optional", json!({})).text(), "None 0 false Cm");
    let args = json!({"unit": "cm", "scale": 3, "round": true, "unit_or_cm": "inch"});
    assert_eq!(host.call("optional", args).text(), "Some(Cm) 3 true Inch");
    assert_eq!(
        host.call("area", json!({"width": 2, "height": 3})).text(),
        "6"
    );
    let out = host.call("perimeter", json!({"width": 2, "height": 3}));
    assert_eq!(out.text(), "10 Some(\"perimeter\")");
    assert_eq!(
        host.call("counted", json!({"n": 7})).text(),
        "7 1 Some(\"counted\")"
    );
    assert_eq!(
        host.call("owned_ctx", json!({})).text(),
        "Some(\"owned_ctx\") 1"
    );
    assert_eq!(host.call("unnamed", json!({"word": "w"})).text(), "w");
    assert_eq!(host.call("loop", json!({"times": 1})).text(), "2");
    assert_eq!(host.call("labelled", json!({})).text(), "");
    assert_eq!(host.call("read", json!({"path": "a"})).text(), "read a");
}
