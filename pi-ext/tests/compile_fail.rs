//! Mistakes in `#[tool]`, `#[hook]`, `#[command]` and `#[extension]` must
//! fail to compile with one error, on the user's token, that says what to do
//! (`tests/ui/fail/`); every supported form must compile, register through
//! the generated constructors and run (`tests/ui/pass/`). Run with
//! `TRYBUILD=overwrite` to accept new messages after reviewing them.

#[test]
fn macro_errors_point_at_the_mistake_and_every_form_compiles() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
