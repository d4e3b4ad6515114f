//! pi-ext with `default-features = false`: a macro key or macro of a part
//! that is not enabled is one compile error, at the user's token, naming the
//! Cargo feature to enable (`tests/ui/`). The `.stderr` files match the
//! rustc pi-ext's own `compile_fail` test is pinned to (its PINNED_RUSTC);
//! on another rustc the cases are not compared. `TRYBUILD=overwrite`
//! accepts new messages after review.

/// The rustc the `.stderr` files were made with (as pi-ext's `compile_fail`).
const PINNED_RUSTC: &str = "1.95.0";

#[test]
fn a_key_of_a_missing_feature_is_one_error_naming_it() {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .expect("rustc --version");
    let version = String::from_utf8_lossy(&out.stdout).to_string();
    if !version.starts_with(&format!("rustc {PINNED_RUSTC} ")) {
        eprintln!("features: the .stderr files are rustc {PINNED_RUSTC}'s; this is {version}: not compared");
        return;
    }
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
