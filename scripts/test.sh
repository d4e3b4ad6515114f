#!/usr/bin/env bash
# Runs every test: formatting, clippy, the bridge's type check and unit
# tests, unit, compile-fail and end-to-end tests against the real pinned pi
# (installed into ./node_modules from package-lock.json, with the Node 22 it
# needs) and a smoke set against pi 0.73.1 (tests/pi-0.73). Needs cargo and
# Node 20+ with npm.
set -euo pipefail
cd "$(dirname "$0")/.."

# npm writes node_modules/.package-lock.json last: missing, or older than
# package-lock.json, means node_modules is missing, half-installed or stale.
for project in . tests/pi-0.73; do
  if [ ! -f "$project/node_modules/.package-lock.json" ] || [ "$project/package-lock.json" -nt "$project/node_modules/.package-lock.json" ]; then
    echo "==> npm ci ($project)"
    npm ci --prefix "$project" --no-audit --no-fund
  fi
done

# pi 1.6 needs Node >= 22.19: npm installed it from package.json's
# optionalDependencies (node_modules/.bin/node), unless this platform has no
# such package; then the machine's node must be new enough.
NODE=node_modules/.bin/node
[ -x "$NODE" ] || NODE=node
if ! "$NODE" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)'; then
  echo "pi 1.6 needs Node >= 22.19; $NODE is $("$NODE" --version): put a newer node first on PATH" >&2
  exit 1
fi

echo "==> bridge: tsc"
npx --no-install tsc -p pi-ext/bridge

echo "==> bridge: node --test ($("$NODE" --version))"
"$NODE" --import ./pi-ext/bridge/test/pi-aliases.js --test pi-ext/bridge/test/*.test.js

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo doc (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

echo "==> cargo test"
cargo test --workspace --locked
