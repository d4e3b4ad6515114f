//! Mistakes in `#[tool]`, `#[hook]`, `#[command]` and `#[extension]` must
//! fail to compile with one error, on the user's token, that says what to do
//! (`tests/ui/fail/`); every supported form must compile, register through
//! the generated constructors and run (`tests/ui/pass/`). Run with
//! `TRYBUILD=overwrite` to accept new messages after reviewing them.
//!
//! rustc's wording and layout change between releases, so the `.stderr`
//! files match one rustc: [`PINNED_RUSTC`]. On another rustc the pass cases
//! run and the fail cases are not compared (the test says so on stderr);
//! `PI_EXT_UI_STRICT=1` compares them anyway. When the toolchain moves,
//! regenerate the files with `TRYBUILD=overwrite` on the new rustc, review
//! the diff and change [`PINNED_RUSTC`] in the same commit.

use std::process::Command;

/// The rustc (`rustc --version`'s number) the `.stderr` files were made with.
const PINNED_RUSTC: &str = "1.95.0";

/// The version number of the rustc cargo builds with, e.g. `1.95.0`.
fn rustc_version() -> String {
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

/// trybuild's rustflags (trybuild 1.0.122's `rustflags.rs`), given to all its
/// cargo runs as `CARGO_ENCODED_RUSTFLAGS`, which trybuild leaves alone and
/// cargo prefers to the `--config` rustflags trybuild passes: trybuild builds
/// the dependencies without `--diagnostic-width=140` and the cases with it,
/// and cargo rebuilds every dependency when the flags change, so without this
/// they compile twice (about 80 of 230 CPU-seconds on a clean clone).
const TRYBUILD_RUSTFLAGS: [&str; 6] = [
    "--cfg",
    "trybuild",
    "--verbose",
    "-A",
    "dead_code",
    "--diagnostic-width=140",
];

#[test]
fn macro_errors_point_at_the_mistake_and_every_form_compiles() {
    let mut flags = TRYBUILD_RUSTFLAGS.join("\x1f");
    // As trybuild does, for cargo-llvm-cov.
    if std::env::var("RUSTFLAGS").is_ok_and(|f| f.contains("-C instrument-coverage")) {
        flags.push_str("\x1f-C\x1finstrument-coverage");
    }
    // The only test of this binary: no other thread reads the environment.
    std::env::set_var("CARGO_ENCODED_RUSTFLAGS", flags);
    let version = rustc_version();
    let strict = std::env::var_os("PI_EXT_UI_STRICT").is_some_and(|v| v == "1");
    let t = trybuild::TestCases::new();
    if version == PINNED_RUSTC || strict {
        t.compile_fail("tests/ui/fail/*.rs");
    } else {
        eprintln!(
            "compile_fail: the expected messages in tests/ui/fail/*.stderr were made with \
             rustc {PINNED_RUSTC}; this is rustc {version}, so the fail cases are not compared \
             (only the pass cases run). Set PI_EXT_UI_STRICT=1 to compare them anyway."
        );
    }
    t.pass("tests/ui/pass/*.rs");
}
