//! The extension under test: its binary, installed into a [`PiEnv`] by its
//! own `install` command, as `cargo run -- install` installs it for a user.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::PiEnv;

/// The path of the binary of the crate under test, as cargo builds it for
/// the crate's integration tests (`CARGO_BIN_EXE_<package name>`): use it
/// in a file under `tests/`, with [`install_binary`].
///
/// It names the binary called like the package (the one `cargo new` makes
/// in `src/main.rs`); for another, use
/// `env!("CARGO_BIN_EXE_<name>")` directly. Outside a crate's
/// integration tests it does not compile (cargo sets that variable only
/// there); the crate docs show it in use.
#[macro_export]
macro_rules! extension_binary {
    () => {
        ::std::path::Path::new(env!(concat!("CARGO_BIN_EXE_", env!("CARGO_PKG_NAME"))))
    };
}

/// Runs `<bin> install [extra…]` against `env`'s agent directory (the
/// extension's own install command, what `cargo run -- install` runs) and
/// returns the directory it says it wrote, to load with
/// [`crate::PiBuilder::installed`].
///
/// Panics with the command's output when it fails or does not say where it
/// installed.
#[track_caller]
pub fn install_binary(env: &PiEnv, bin: &Path, extra: &[&str]) -> PathBuf {
    let out = Command::new(bin)
        .arg("install")
        .args(extra)
        .current_dir(env.cwd())
        .env("HOME", env.home())
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} install: {e}", bin.display()));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} install failed:\n{printed}\n{}",
        bin.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = printed
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("installed pi extension into "))
        .unwrap_or_else(|| panic!("install did not say where it wrote: {printed}"));
    PathBuf::from(dir)
}
