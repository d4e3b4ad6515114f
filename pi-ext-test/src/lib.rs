//! End-to-end tests for pi extensions, in the real pi.
//!
//! Runs a real pi (`@earendil-works/pi-coding-agent`, [`PiInstall`]: installed with npm at
//! the version a test names, into a cache, once; or from an npm project's `node_modules`) in
//! RPC mode ([`PiRpc`]), print mode (`pi -p`, [`PiBuilder::run_print`]) or interactively in a
//! pseudo-terminal ([`PiTerminal`]) against a [`ScriptedModel`]: an OpenAI-compatible
//! `/v1/chat/completions` server on 127.0.0.1 that streams pre-scripted replies and records
//! every request pi sends it. [`ScriptedModel::start_anthropic`] serves the same replies
//! as Anthropic's Messages API (`POST /v1/messages`, see [`anthropic`]), for providers that
//! speak it.
//!
//! Everything runs in an isolated temporary world ([`PiEnv`]): its own `HOME`, its own
//! `PI_CODING_AGENT_DIR` (with `models.json` and `settings.json`), and its own working
//! directory. Nothing is ever written under the real `~/.pi`, and the only network traffic is
//! to the loopback address (and npm's registry, the first time a pi version is installed).
//!
//! Every wait in this crate has a deadline. When a deadline passes (or pi exits early) the
//! kit panics with a message that includes the most recent stdout and stderr lines of pi.
//!
//! # Which pi
//!
//! [`PiEnv::new`] runs [`PiInstall::from_env`]'s pi: `PI_EXT_TEST_PI_DIR` (an npm project with
//! pi installed), else `PI_EXT_TEST_PI_VERSION`, else the npm project above the crate under
//! test if its `package.json` depends on pi, else [`PI_VERSION`]. A version is installed with
//! npm into `PI_EXT_TEST_CACHE` (default `~/.cache/pi-ext-test`) together with the Node it needs
//! (npm's `node-<os>-<cpu>` package), so the machine needs only npm. Without npm, with a Node
//! too old for the pi asked for, or offline with nothing cached, the first test that starts pi
//! fails saying what to install or why npm failed ([`PiInstall::ensure`]).
//!
//! # Your extension in pi
//!
//! In an integration test (`tests/e2e.rs`) of your extension's crate, cargo has built its
//! binary ([`extension_binary!`]); [`install_binary`] runs its `install` command into the
//! world's agent directory, as `cargo run -- install` does for a user, and
//! [`PiBuilder::installed`] loads it alone:
//!
//! ```no_run
//! use pi_ext_test::{install_binary, json, PiEnv, Reply, ScriptedModel};
//! use serde_json::json;
//!
//! let model = ScriptedModel::start();
//! model.push(Reply::tool("call_1", "greet", json!({"name": "Ada"})));
//! model.push(Reply::text("done"));
//! let env = PiEnv::new(&model);
//! # let bin = std::path::Path::new("target/debug/my-ext");
//! // In tests/: let bin = pi_ext_test::extension_binary!();
//! let dir = install_binary(&env, bin, &[]);
//! let pi = env.pi().installed(&dir).start();
//! pi.prompt("please greet Ada");
//! let second = &model.requests()[1];
//! assert_eq!(json::tool_result(second, "call_1").unwrap(), "Hello, Ada!");
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
//! use pi_ext_test::{install_binary, theme_color, Key, PiEnv, Reply, ScriptedModel};
//! use serde_json::json;
//!
//! let model = ScriptedModel::start();
//! model.push(Reply::tool("call_1", "greet", json!({"name": "Ada"})));
//! model.push(Reply::text("Greeted."));
//! let env = PiEnv::new(&model);
//! # let bin = std::path::Path::new("target/debug/my-ext");
//! let dir = install_binary(&env, bin, &[]);
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
mod diag;
mod env;
mod extension;
mod install;
pub mod json;
mod keys;
mod model;
mod print;
mod rpc;
mod screen;
pub mod session;
mod steps;
mod terminal;
mod theme;
mod watched;

use std::time::Duration;

pub use env::PiEnv;
pub use extension::install_binary;
pub use install::{
    PiInstall, CACHE_VAR, NODE_VERSION, NPM_VAR, PI_DIR_VAR, PI_PACKAGE, PI_VERSION, PI_VERSION_VAR,
};
pub use keys::Key;
pub use model::{RecordedRequest, Reply, ScriptedModel, ToolCall, NO_SCRIPTED_REPLY};
pub use print::PrintOutput;
pub use rpc::{PiBuilder, PiRpc};
pub use screen::{assert_screen_steps_same, styled_runs, Cell, Color, Screen, Style};
pub use steps::ScreenSteps;
pub use terminal::PiTerminal;
pub use theme::theme_color;

/// Default deadline for waiting on pi to become ready (spawn until the `get_state` response).
///
/// Generous because a cold Node start on a loaded 2-core machine can take several seconds.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// Default deadline for a single RPC round trip or a whole prompt (`prompt` until `agent_end`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Poll `check` every 25 ms until it holds; panics after [`DEFAULT_TIMEOUT`]
/// naming `what`. For effects pi reports asynchronously (a status set by an
/// `agent_end` hook, a process exiting) that no output of pi's announces.
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
