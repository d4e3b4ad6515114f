//! End-to-end test harness for pi-ext.
//!
//! Drives the real, pinned pi (`@earendil-works/pi-coding-agent` 1.6.0, installed from the
//! repository's `package.json`/`package-lock.json` into `<repo>/node_modules`, with the Node
//! 22 it needs from the same lockfile) in RPC mode
//! (`pi --mode rpc`), print mode (`pi -p`) or interactively in a pseudo-terminal
//! ([`PiTerminal`]) against a [`ScriptedModel`]: an OpenAI-compatible
//! `/v1/chat/completions` server on 127.0.0.1 that streams pre-scripted replies and records
//! every request pi sends it. [`ScriptedModel::start_anthropic`] serves the same replies
//! as Anthropic's Messages API (`POST /v1/messages`, see [`anthropic`]), for providers that
//! speak it.
//!
//! [`PiEnv::with_pi`] runs another installation instead ([`PiInstall::V0_73`]: pi 0.73.1 from
//! `tests/pi-0.73`, on the machine's Node), for a smoke set on the old pi.
//!
//! Everything runs in an isolated temporary world ([`PiEnv`]): its own `HOME`, its own
//! `PI_CODING_AGENT_DIR` (with `models.json` and `settings.json`), and its own working
//! directory. Nothing is ever written under the real `~/.pi`, and the only network traffic is
//! to the loopback address.
//!
//! Every wait in this crate has a deadline. When a deadline passes (or pi exits early) the
//! harness panics with a message that includes the most recent stdout and stderr lines of pi.
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
//!
//! # Interactive tests
//!
//! [`PiBuilder::terminal`] runs pi as a user does, in a pseudo-terminal (`portable-pty`) whose
//! output is parsed into a screen (`vt100`); use it for what only the TUI shows: rows pi
//! paints, dialogs answered with keys, colours, resizing.
//!
//! - Start with `env.pi()…terminal(cols, rows)`: it returns once pi reads input (typing
//!   earlier loses the prompt, see [`PiTerminal::wait_ready`]).
//! - Type with [`PiTerminal::type_text`], press keys with [`PiTerminal::press`] ([`Key`]).
//! - Wait for what pi paints with [`PiTerminal::wait_for_text`], [`PiTerminal::wait_gone`]
//!   or [`PiTerminal::wait_for`]; each returns the [`Screen`] that satisfied it. Assert on
//!   that snapshot: [`Screen::find`] gives `(row, column)`, [`Screen::rows`] the text,
//!   [`Screen::style_of`] and [`Screen::style_at`] colours and attributes, to compare with
//!   [`theme_color`]. Never sleep and look: a frame is only final once awaited.
//! - Finish with [`PiTerminal::exit`] (ctrl+d in the empty editor), which asserts pi exits
//!   with 0 and leaves no process behind. A failing test's drop kills pi.
//! - Search one row at a time: a text pi wrapped is not found whole, so keep the terminal
//!   wide enough (or the text short). On failure, waits panic with the whole screen.
//!
//! ```no_run
//! use pi_ext_e2e::{install_example, theme_color, Key, PiEnv, Reply, ScriptedModel};
//! use serde_json::json;
//!
//! let model = ScriptedModel::start();
//! model.push(Reply::tool("call_1", "greet", json!({"name": "Ada"})));
//! model.push(Reply::text("Greeted."));
//! let env = PiEnv::new(&model);
//! let dir = install_example(&env, "hello");
//! let pi = env.pi().installed(&dir).terminal(120, 40);
//!
//! pi.type_text("Please greet Ada");
//! pi.press(Key::Enter);
//! let screen = pi.wait_for_text("Greeted.");
//! let (row, col) = screen.find("Hello, Ada!").expect("the tool's output");
//! assert_eq!(
//!     screen.style_at(row, col).bg,
//!     theme_color("dark", "toolSuccessBg")
//! );
//! pi.exit();
//! ```

#![warn(missing_docs)]

pub mod anthropic;
mod cargo;
mod diag;
mod env;
mod git;
mod install;
pub mod json;
mod keys;
mod model;
mod print;
mod rpc;
mod screen;
pub mod session;
mod terminal;
mod theme;
mod watched;

use std::path::PathBuf;
use std::time::Duration;

pub use cargo::{
    example_binary, example_target, install_binary, install_example, lean_binary,
    lean_binary_small, LEAN_PACKAGES,
};
pub use env::PiEnv;
pub use git::git;
pub use install::{bridge_node, pi_cli, pi_node, PiInstall, PI_PACKAGE, PI_VERSION};
pub use keys::Key;
pub use model::{RecordedRequest, Reply, ScriptedModel, ToolCall, NO_SCRIPTED_REPLY};
pub use print::PrintOutput;
pub use rpc::{PiBuilder, PiRpc};
pub use screen::{Cell, Color, Screen, Style};
pub use terminal::PiTerminal;
pub use theme::theme_color;

/// Default deadline for waiting on pi to become ready (spawn until the `get_state` response).
///
/// Generous because a cold Node start on a loaded 2-core machine can take several seconds.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// Default deadline for a single RPC round trip or a whole prompt (`prompt` until `agent_end`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

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
    let path = PiInstall::Pinned
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

/// Poll `check` every 25 ms until it holds; panics after [`DEFAULT_TIMEOUT`]
/// naming `what`. For effects pi reports asynchronously (a status set by an
/// `agent_end` hook, a process exiting).
#[track_caller]
pub fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + DEFAULT_TIMEOUT;
    while !check() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}
