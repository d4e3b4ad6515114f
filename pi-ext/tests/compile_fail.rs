//! Mistakes in `#[tool]`, `#[hook]`, `#[command]` and `#[extension]` must
//! fail to compile with one error, on the user's token, that says what to do
//! (`tests/ui/fail/`); every supported form must compile, register through
//! the generated constructors and run (`tests/ui/pass/`). Run with
//! `TRYBUILD=overwrite` to accept new messages after reviewing them.
//!
//! rustc's wording and layout change between releases, so the `.stderr`
//! files match one rustc: `trybuild_rustc::PINNED_RUSTC`. On another rustc
//! the pass cases run and the fail cases are not compared (the test says so
//! on stderr); `PI_EXT_UI_STRICT=1` compares them anyway. When the toolchain
//! moves, regenerate the files with `TRYBUILD=overwrite` on the new rustc
//! (here and in `tests/extensions/without-features`), review the diff and
//! change `PINNED_RUSTC` in the same commit.

mod trybuild_rustc;

#[test]
fn macro_errors_point_at_the_mistake_and_every_form_compiles() {
    // The only test of this binary.
    trybuild_rustc::set_rustflags();
    let t = trybuild::TestCases::new();
    if trybuild_rustc::compare_messages("compile_fail") {
        t.compile_fail("tests/ui/fail/*.rs");
    }
    t.pass("tests/ui/pass/*.rs");
}
