//! Nothing to run: `tests/features.rs` compiles the cases of `tests/ui/`
//! against pi-ext with `default-features = false`.
