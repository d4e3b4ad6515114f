//! Greeter: a pi-ext extension laid out as a publishable crate.
//!
//! - The library holds the extension (state, settings, tools, hooks), so a
//!   host binary can link it next to other extensions (`examples/host`).
//! - `src/main.rs` is a three-line binary serving it alone.
//!
//! It shows the lifecycle: `on_load` builds the state (restoring a hot-reload
//! snapshot), `on_unload` hands the greeting count over, tools read typed
//! settings with defaults, enums, bounds and tabs.
use std::sync::atomic::{AtomicU64, Ordering};

use pi_ext::events::SessionStartEvent;
use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;
use pi_ext::schemars::JsonSchema;
use pi_ext::serde_json::Value;
use serde::{Deserialize, Serialize};

/// How a greeting ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// A full stop.
    #[default]
    Plain,
    /// An exclamation mark.
    Excited,
}

/// Greeter settings (`/greeter-settings` edits them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(default)]
pub struct GreeterSettings {
    /// The greeting word.
    #[schemars(extend("x-tab" = "Wording"))]
    pub greeting: String,
    /// How the greeting ends.
    #[schemars(extend("x-tab" = "Wording"))]
    pub style: Style,
    /// How many times to greet (1 to 5).
    #[schemars(range(min = 1, max = 5), extend("x-tab" = "Behaviour"))]
    pub repeat: u8,
    /// Upper-case the greeting.
    #[schemars(extend("x-tab" = "Behaviour"))]
    pub shout: bool,
}

impl Default for GreeterSettings {
    fn default() -> Self {
        Self {
            greeting: "Hello".into(),
            style: Style::Plain,
            repeat: 1,
            shout: false,
        }
    }
}

/// The extension's state: how many greetings so far.
#[extension(
    name = "greeter",
    description = "Greets people, by the settings",
    settings = GreeterSettings,
    on_load = load,
    on_unload = unload
)]
pub struct Greeter {
    greeted: AtomicU64,
}

impl Greeter {
    /// Greetings so far (also across hot reloads).
    pub fn greeted(&self) -> u64 {
        self.greeted.load(Ordering::Relaxed)
    }
}

/// Append `line` to `$PI_EXT_EXAMPLE_TRACE`, if set (the tests watch the
/// order in which extensions load and hooks run).
pub fn trace(line: &str) {
    if let Some(path) = std::env::var_os("PI_EXT_EXAMPLE_TRACE") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

async fn load(ctx: LoadCtx) -> Result<Greeter, Error> {
    trace("load greeter");
    // Loading may fail; pi is told why and the extension's tools answer
    // with the reason. Set GREETER_FAIL_LOAD to see it (the tests do).
    if let Some(why) = std::env::var_os("GREETER_FAIL_LOAD") {
        return Err(Error::new(format!(
            "GREETER_FAIL_LOAD is set ({})",
            why.to_string_lossy()
        )));
    }
    let greeted = ctx.snapshot::<u64>().unwrap_or(0);
    Ok(Greeter {
        greeted: AtomicU64::new(greeted),
    })
}

async fn unload(greeter: &Greeter) -> Option<Value> {
    trace("unload greeter");
    Some(greeter.greeted().into())
}

/// Greet someone the way the settings say.
#[tool(label = "Greet person")]
async fn greet_person(ctx: &Ctx, greeter: &Greeter, name: String) -> String {
    let settings: GreeterSettings = ctx.settings();
    let end = match settings.style {
        Style::Plain => ".",
        Style::Excited => "!",
    };
    let one = format!("{}, {name}{end}", settings.greeting);
    let mut text = vec![one; settings.repeat.max(1) as usize].join(" ");
    if settings.shout {
        text = text.to_uppercase();
    }
    let n = greeter.greeted.fetch_add(1, Ordering::Relaxed) + 1;
    // Set at build time, so a rebuild can change what this tool says.
    let build = option_env!("GREETER_BUILD").unwrap_or("v1");
    format!("{text} (greeting #{n}, build {build})")
}

/// Note the session start (hook order across extensions).
#[hook]
async fn greeter_started(_event: SessionStartEvent) {
    trace("hook greeter");
}
