//! Every supported `#[extension]` form, registered with
//! `Registry::extension::<E>()`.

use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;
use pi_ext::registry::Registry;
use pi_ext::schemars;
use pi_ext::serde_json::Value;
use pi_ext::testing::TestHost;
use serde_json::json;

/// A unit struct: its own state.
#[extension(
    name = "unit",
    version = "2.0.0",
    description = "Described in the attribute."
)]
struct Unit;

/// State built by `Default`, settings, a dependency.
#[extension(name = "configured", settings = Settings, dependencies = ["unit"])]
#[derive(Default)]
struct Configured {
    seen: AtomicU64,
}

/// How to greet.
#[derive(Default, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Settings {
    /// The greeting.
    greeting: String,
}

/// State from `on_load`, handed over by `on_unload`.
#[extension(name = "loaded", on_load = load, on_unload = unload)]
struct Loaded {
    start: u64,
}

async fn load(ctx: LoadCtx) -> Result<Loaded, Error> {
    Ok(Loaded {
        start: ctx.snapshot::<u64>().unwrap_or(40),
    })
}

async fn unload(loaded: &Loaded) -> Option<Value> {
    Some(json!(loaded.start))
}

/// `on_load` returning the state itself, `on_unload` returning nothing.
#[extension(name = "plain-load", on_load = plain_load, on_unload = plain_unload)]
enum PlainLoad {
    Ready,
}

async fn plain_load(_ctx: LoadCtx) -> PlainLoad {
    PlainLoad::Ready
}

async fn plain_unload(_state: &PlainLoad) {}

/// Reads every state.
#[tool]
async fn states(
    _unit: &Unit,
    configured: &Configured,
    loaded: &Loaded,
    plain: &PlainLoad,
) -> String {
    let seen = configured.seen.fetch_add(1, Ordering::Relaxed);
    let PlainLoad::Ready = plain;
    format!("{seen} {}", loaded.start + 2)
}

fn main() {
    let registry = Registry::new("extension-forms", "1.0.0")
        .extension::<Configured>()
        .extension::<Unit>()
        .extension::<Loaded>()
        .extension::<PlainLoad>()
        .tool(states_tool());
    assert_eq!(registry.problems(), Vec::<String>::new());
    let host = TestHost::with_registry(registry);
    let manifest = host.manifest();
    let names: Vec<_> = manifest
        .extensions
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    // Load order: dependencies first, then by name.
    assert_eq!(names, ["loaded", "plain-load", "unit", "configured"]);
    let unit = &manifest.extensions[2];
    assert_eq!(
        (unit.version.as_str(), unit.description.as_str()),
        ("2.0.0", "Described in the attribute.")
    );
    let schema = manifest.extensions[3].settings_schema.as_ref().unwrap();
    assert_eq!(
        schema["properties"]["greeting"]["description"],
        "The greeting."
    );
    let commands: Vec<_> = manifest.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(commands, ["configured-settings"]);
    assert_eq!(host.call("states", json!({})).text(), "0 42");
    assert_eq!(host.call("states", json!({})).text(), "1 42");
}
