//! Mistakes in `#[tool]`, `#[hook]`, `#[command]` and `#[extension]` must
//! fail to compile with one error, on the user's token, that says what to do
//! (`tests/ui/fail/`). Run with `TRYBUILD=overwrite` to accept new messages
//! after reviewing them.

#[test]
fn macro_errors_point_at_the_mistake() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}
