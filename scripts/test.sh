#!/usr/bin/env bash
# Runs every test: formatting, clippy, the bridge's type check and unit
# tests, unit, compile-fail and end-to-end tests against the real pinned pi
# (installed into ./node_modules from package-lock.json). Needs cargo and
# Node 20+.
set -euo pipefail
cd "$(dirname "$0")/.."

# npm writes node_modules/.package-lock.json last: missing, or older than
# package-lock.json, means node_modules is missing, half-installed or stale.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> npm ci"
  npm ci --no-audit --no-fund
fi

echo "==> bridge: tsc"
npx --no-install tsc -p pi-ext/bridge

echo "==> bridge: node --test"
node --test pi-ext/bridge/test/

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo doc (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

echo "==> cargo test"
cargo test --workspace --locked
