//! Mistakes in `#[tool]`, `#[hook]`, `#[command]` and `#[extension]` must
//! fail to compile with one error, on the user's token, that says what to do
//! (`tests/ui/fail/`). Run with `TRYBUILD=overwrite` to accept new messages
//! after reviewing them. Every supported form must compile, register through
//! the generated constructors and run: `tests/ui/pass/`, plain test targets
//! (`ui_pass_*` in Cargo.toml), since a trybuild pass case makes trybuild
//! build, not only check, every dependency and every case.
//!
//! rustc's wording and layout change between releases, so the `.stderr`
//! files match one rustc: `trybuild_rustc::PINNED_RUSTC`. On another rustc
//! they are not compared (the test says so on stderr); `PI_EXT_UI_STRICT=1`
//! compares them anyway. When the toolchain
//! moves, regenerate the files with `TRYBUILD=overwrite` on the new rustc
//! (here and in `tests/extensions/without-features`), review the diff and
//! change `PINNED_RUSTC` in the same commit.

mod trybuild_rustc;

#[test]
fn macro_errors_point_at_the_mistake() {
    // The only test of this binary.
    trybuild_rustc::set_rustflags();
    if trybuild_rustc::compare_messages("compile_fail") {
        trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
    }
}
