//! The project's end-to-end harness: the public kit [`pi_ext_test`] (re-exported whole: the
//! real pi in RPC mode, print mode or a pseudo-terminal, against a scripted model on loopback),
//! plus what only this repository needs: its pis ([`pinned`], the pi the tests run, from
//! `<repo>/node_modules`, which [`pi_ext_test::PiInstall::from_env`] finds for this crate;
//! [`old_pi`] and [`smoke`]), its example extensions built from the workspace
//! ([`install_example`]), its fixtures, and the side-by-side comparison of ports with pi's
//! TypeScript examples ([`ports_side`]).
//!
//! ```no_run
//! use pi_ext_e2e::{PiEnv, Reply, ScriptedModel};
//! use serde_json::json;
//!
//! let model = ScriptedModel::start();
//! model.push(Reply::tool("call_1", "echo", json!({"text": "hi"})));
//! model.push(Reply::text("done"));
//! let env = PiEnv::new(&model);
//! let pi = env
//!     .pi()
//!     .no_extensions()
//!     .extension(pi_ext_e2e::fixture("echo-ext.ts"))
//!     .start();
//! let events = pi.prompt("please echo hi");
//! assert!(events.iter().any(|e| e["type"] == "tool_execution_end"));
//! let second = &model.requests()[1];
//! assert_eq!(pi_ext_e2e::json::tool_results(second)[0].1, "echo: hi");
//! ```

#![warn(missing_docs)]

mod cargo;
mod git;
mod install;

use std::path::PathBuf;

pub use cargo::{
    example_binary, example_target, install_example, lean_binary, lean_binary_small, LEAN_PACKAGES,
};
pub use git::git;
pub use install::{bridge_node, old_pi, pi_cli, pi_node, pinned, smoke, SMOKE_PI_DIR_VAR};
pub use pi_ext_test::*;

/// The repository root (the workspace directory that holds `package.json`).
///
/// Computed from this crate's `CARGO_MANIFEST_DIR` (`<repo>/tests`) at compile time.
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// Absolute path of a file in `<repo>/tests/fixtures/`.
///
/// Panics if the file does not exist, so a typo fails loudly instead of pi failing obscurely.
pub fn fixture(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    assert!(path.is_file(), "fixture {} does not exist", path.display());
    path
}

/// Absolute path of one of pi's own example extensions
/// (`@earendil-works/pi-coding-agent/examples/extensions/<name>`) in the pinned pi, to run
/// a TypeScript original next to its Rust port.
///
/// Panics if it does not exist.
pub fn pi_example(name: &str) -> PathBuf {
    let path = pinned()
        .package_dir()
        .join("examples/extensions")
        .join(name);
    assert!(path.exists(), "pi has no example {}", path.display());
    path
}

/// One side of a side-by-side test of ports: a pi with `ports`' TypeScript
/// originals (`(pi's example file, port's package)`), or with `rust` their
/// Rust ports installed, and a session directory of its own under `env`'s
/// root (`sessions-ts` or `sessions-rust`, returned beside it), so the two
/// sides' sessions can be compared.
pub fn ports_side<'a>(
    env: &'a PiEnv,
    ports: &[(&str, &str)],
    rust: bool,
) -> (PiBuilder<'a>, PathBuf) {
    let sessions = env
        .root()
        .join(if rust { "sessions-rust" } else { "sessions-ts" });
    let mut builder = env.pi().no_extensions().session_dir(&sessions);
    for (ts, port) in ports {
        builder = if rust {
            builder.extension(install_example(env, port).join("index.js"))
        } else {
            builder.extension(pi_example(ts))
        };
    }
    (builder, sessions)
}
