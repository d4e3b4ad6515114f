//! Row 11 of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench -- --rows 11`):
//! many Rust extensions in one pi.
//!
//! The benchmark copies this binary under several names and installs each copy: a copy named
//! `bench-many-07` is the extension `bench-many-07` with one tool, `m07_trivial`; a copy named
//! `bench-many-host-20` is one host binary serving `m01_trivial` … `m20_trivial`. The tools
//! are registered at run time from the file name (so one build serves every copy), through a
//! hidden entry point of pi-ext that is not a public API.
use std::process::ExitCode;

use pi_ext::registry::Registry;
use pi_ext::schemars::JsonSchema;
use pi_ext::ToolDef;

/// The arguments of every `mNN_trivial` tool.
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "pi_ext::schemars")]
struct Trivial {
    /// Echoed back.
    n: i64,
}

/// Tool `m<index>_trivial`: returns `ok <n>` at once.
fn trivial(index: usize) -> ToolDef {
    ToolDef::builder(format!("m{index:02}_trivial"))
        .description("Return `ok <n>` at once: the cheapest possible tool call.")
        .handler(|_ctx, p: Trivial| async move { format!("ok {}", p.n) })
}

fn main() -> ExitCode {
    let name = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "bench-many".into());
    // `bench-many-host-N`: tools 1..=N; `bench-many-NN`: tool NN; else tool 1.
    let tools = if let Some(n) = name.strip_prefix("bench-many-host-") {
        1..=n.parse().unwrap_or(1)
    } else if let Some(i) = name.strip_prefix("bench-many-") {
        let i = i.parse().unwrap_or(1);
        i..=i
    } else {
        1..=1
    };
    let mut registry = Registry::new(name.clone(), env!("CARGO_PKG_VERSION"))
        .description("pi-ext benchmark: trivial tools named after the binary");
    for i in tools {
        registry = registry.tool(trivial(i));
    }
    pi_ext::impl_::run_with_registry(
        pi_ext::impl_::BinInfo {
            package: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            description: env!("CARGO_PKG_DESCRIPTION"),
            bin: env!("CARGO_PKG_NAME"),
        },
        registry,
    )
}
