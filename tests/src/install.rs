//! The project's pis, as [`PiInstall`]s of the public kit: the pinned one in
//! `<repo>/node_modules` (what [`PiInstall::from_env`] finds for this crate,
//! since the repository's `package.json` pins it), pi 0.73.1 in
//! `tests/pi-0.73`, or the one `PI_EXT_PI_DIR` names (`scripts/try-pi.sh`).

use std::path::PathBuf;
use std::process::Command;

use pi_ext_test::PiInstall;

use crate::repo_root;

/// The environment variable naming the npm project of [`smoke`]'s pi.
pub const SMOKE_PI_DIR_VAR: &str = "PI_EXT_PI_DIR";

/// The pinned pi ([`pi_ext_test::PI_PACKAGE`] [`pi_ext_test::PI_VERSION`]) in
/// `<repo>/node_modules`, run by the Node npm installed next to it
/// (`package.json`'s `optionalDependencies`); `npm ci` installs both when
/// they are missing.
pub fn pinned() -> PiInstall {
    PiInstall::project(repo_root())
}

/// pi 0.73.1 (`@mariozechner/pi-coding-agent`, the last release under that
/// name) in `<repo>/tests/pi-0.73/node_modules`, run by the machine's `node`
/// (Node 20 or newer), for the smoke set in `tests/tests/old_pi.rs`.
pub fn old_pi() -> PiInstall {
    PiInstall::project(repo_root().join("tests/pi-0.73"))
}

/// What the smoke set (`tests/tests/old_pi.rs`) runs on: the pi installed
/// in the npm project named by `PI_EXT_PI_DIR` (under either package name,
/// at any version), run by the pinned pi's Node, when it is set; else
/// [`old_pi`].
pub fn smoke() -> PiInstall {
    match std::env::var_os(SMOKE_PI_DIR_VAR) {
        Some(dir) => PiInstall::project(PathBuf::from(dir)).with_node(pi_node()),
        None => old_pi(),
    }
}

/// Path of the pinned pi's CLI JavaScript entry point; run it with [`pi_node`].
pub fn pi_cli() -> PathBuf {
    pinned().cli()
}

/// The `node` that runs the pinned pi, for anything that loads pi's modules
/// (pi itself, pi's TUI code, the bridge outside pi).
pub fn pi_node() -> PathBuf {
    pinned().node()
}

/// A [`Command`] running the pinned pi's `node` ([`pi_node`]) with the bridge's
/// `@mariozechner/*` imports resolved as pi's extension loader resolves them
/// (`--import pi-ext/bridge/test/pi-aliases.js`), to run the bridge's code in Node without pi.
pub fn bridge_node() -> Command {
    let mut cmd = Command::new(pi_node());
    cmd.arg("--import")
        .arg(repo_root().join("pi-ext/bridge/test/pi-aliases.js"));
    cmd
}
