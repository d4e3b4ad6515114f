#!/usr/bin/env bash
# Runs every test: formatting, clippy, unit, compile-fail and end-to-end
# tests against the real pinned pi (installed into ./node_modules from
# package-lock.json when missing). Needs cargo and Node 20+.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo test"
cargo test --workspace --locked
