//! pi-ext with `default-features = false`: a macro key or macro of a part
//! that is not enabled is one compile error, at the user's token, naming the
//! Cargo feature to enable (`tests/ui/`). The `.stderr` files match the
//! rustc of pi-ext's own `compile_fail` test, whose pinning and flags this
//! test shares; `TRYBUILD=overwrite` accepts new messages after review.

#[path = "../../../../pi-ext/tests/trybuild_rustc/mod.rs"]
mod trybuild_rustc;

#[test]
fn a_key_of_a_missing_feature_is_one_error_naming_it() {
    // The only test of this binary.
    trybuild_rustc::set_rustflags();
    if trybuild_rustc::compare_messages("features") {
        trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
    }
}
