//! What pi-ext's trybuild tests share (`compile_fail` here, `features` in
//! `tests/extensions/without-features`): the rustc their `.stderr` files
//! match, and the flags that let trybuild build each dependency once.

use std::process::Command;

/// The rustc (`rustc --version`'s number) the `.stderr` files were made with.
pub const PINNED_RUSTC: &str = "1.95.0";

/// The version number of the rustc cargo builds with, e.g. `1.95.0`.
pub fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {rustc:?} --version: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    // "rustc 1.95.0 (59807616e 2026-04-14)", "rustc 1.96.0-nightly (…)".
    text.split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("unexpected `rustc --version` output: {text:?}"))
        .to_owned()
}

/// Whether the `.stderr` files are compared: on [`PINNED_RUSTC`], or when
/// `PI_EXT_UI_STRICT=1` asks for it on another rustc. Says so on stderr when
/// they are not (`test` names the caller).
pub fn compare_messages(test: &str) -> bool {
    let version = rustc_version();
    let strict = std::env::var_os("PI_EXT_UI_STRICT").is_some_and(|v| v == "1");
    if version == PINNED_RUSTC || strict {
        return true;
    }
    eprintln!(
        "{test}: the expected messages (.stderr files) were made with rustc {PINNED_RUSTC}; \
         this is rustc {version}, so they are not compared. Set PI_EXT_UI_STRICT=1 to compare \
         them anyway."
    );
    false
}

/// trybuild's rustflags (trybuild 1.0.122's `rustflags.rs`), given to all its
/// cargo runs as `CARGO_ENCODED_RUSTFLAGS`, which trybuild leaves alone and
/// cargo prefers to the `--config` rustflags trybuild passes: trybuild builds
/// the dependencies without `--diagnostic-width=140` and the cases with it,
/// and cargo rebuilds every dependency when the flags change, so without this
/// they compile twice (about 80 of 230 CPU-seconds on a clean clone). Both
/// tests setting the same flags also share what they build in
/// `target/tests/trybuild`.
const TRYBUILD_RUSTFLAGS: [&str; 6] = [
    "--cfg",
    "trybuild",
    "--verbose",
    "-A",
    "dead_code",
    "--diagnostic-width=140",
];

/// Sets `CARGO_ENCODED_RUSTFLAGS` to [`TRYBUILD_RUSTFLAGS`]. Call it from the
/// only test of its binary, before trybuild runs: no other thread may read
/// the environment meanwhile.
pub fn set_rustflags() {
    let mut flags = TRYBUILD_RUSTFLAGS.join("\x1f");
    // As trybuild does, for cargo-llvm-cov.
    if std::env::var("RUSTFLAGS").is_ok_and(|f| f.contains("-C instrument-coverage")) {
        flags.push_str("\x1f-C\x1finstrument-coverage");
    }
    std::env::set_var("CARGO_ENCODED_RUSTFLAGS", flags);
}
