#!/usr/bin/env bash
# Runs every test: formatting, clippy, the bridge's type check and unit
# tests, unit, compile-fail and end-to-end tests against the real pinned pi
# (installed into ./node_modules from package-lock.json, with the Node 22 it
# needs) and a smoke set against pi 0.73.1 (tests/pi-0.73). Needs cargo and
# Node 20+ with npm.
#
# The test binaries run side by side (most of their time is spent waiting on
# pi), the slowest first, while clippy and rustdoc build at a low priority in
# target/lint; each phase prints its wall time and the CPU time it used.
# PI_EXT_TEST_JOBS sets how many test binaries run at once (default: the
# number of cores + 1).
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

# On CI (which sets CI, as most do) the build is from scratch and never
# edited: incremental data would only take disk (2.2 GB of a clean clone's
# 11 GB). Elsewhere the next run after an edit keeps it.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

# Every phase prints its wall time and the CPU time of its processes.
export TIMEFORMAT='    %R s wall, %U s user + %S s system CPU'
LOGS=target/test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"

echo "==> bridge: tsc"
time npx --no-install tsc -p pi-ext/bridge

echo "==> bridge: node --test ($("$NODE" --version))"
time "$NODE" --import ./pi-ext/bridge/test/pi-aliases.js --test pi-ext/bridge/test/*.test.js

echo "==> cargo fmt --check"
time cargo fmt --all -- --check

# clippy and rustdoc compile in check mode, which shares nothing with the
# test build: in a target directory of their own, at a low priority, from
# here to the end, they use the CPU that the builds' last steps and the test
# binaries (while they wait on pi) leave.
lint() {
  set -e
  export CARGO_TARGET_DIR=target/lint
  echo "==> cargo clippy"
  time cargo clippy --workspace --all-targets --locked -- -D warnings
  echo "==> cargo doc (warnings denied)"
  time RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
}
export -f lint
# In a session of its own (where there is `setsid`: not on macOS), so that a
# failing step below (`set -e`) ends it with its cargo and rustc, instead of
# leaving it writing to target/.
own_session=()
if command -v setsid >/dev/null; then own_session=(setsid); fi
${own_session[@]+"${own_session[@]}"} bash -c 'nice -n 15 bash -c lint >"$1/lint.log" 2>&1 || touch "$1/lint-failed"' lint "$LOGS" &
lint_pid=$!
trap 'kill -- -"$lint_pid" 2>/dev/null || kill "$lint_pid" 2>/dev/null || true' EXIT

# A binary is built as a unit test only where its sources hold a test: most
# are extensions that tests/ starts, and each harness of no tests costs about
# two CPU-seconds to compile and link. Libraries and tests/ are all built
# (`--test '*'`: `--tests` would take every binary as a unit test too).
BIN_TESTS=$(cargo metadata --no-deps --format-version 1 --locked | "$NODE" -e '
  const fs = require("fs"), path = require("path");
  const hasTest = (dir) => fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return hasTest(file);
    return e.name.endsWith(".rs") && /#\[(tokio::)?test\b|#\[cfg\(test\)\]/.test(fs.readFileSync(file, "utf8"));
  });
  const meta = JSON.parse(fs.readFileSync(0, "utf8"));
  const names = new Set();
  for (const p of meta.packages)
    for (const t of p.targets)
      if (t.kind.includes("bin") && t.test && hasTest(path.dirname(t.src_path))) names.add(t.name);
  console.log([...names].map((n) => `--bin=${n}`).join(" "));')
echo "==> cargo test --no-run (the test build; binaries with tests: ${BIN_TESTS//--bin=/})"
# shellcheck disable=SC2086 # one word per binary
time cargo test --workspace --locked --no-run --lib --test '*' $BIN_TESTS --message-format=json-render-diagnostics >"$LOGS/build.json"

# The extension binaries the end-to-end tests start, built in one go before
# them (the harness builds the same way: tests/src/cargo.rs). `--test '*'`
# keeps the test build's features (pi-ext's dev-dependency on itself turns
# on `internals`), so pi-ext and what depends on it are not built again.
# The binaries that depend on pi-ext without its default features
# (tests/src/cargo.rs, LEAN_PACKAGES) build on their own, after the others:
# in a workspace build pi-ext would get its default features from them.
LEAN="word-count"
echo "==> cargo build --bins (the extensions the tests run; then, on their own: $LEAN)"
# shellcheck disable=SC2046 # one word per package
time {
  cargo build --workspace --locked --bins --test '*' --quiet $(printf -- '--exclude %s ' $LEAN)
  for package in $LEAN; do cargo build --locked --quiet --package "$package"; done
}

# The test executables cargo built: package directory, package, target and
# path, one a line.
"$NODE" -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const m = JSON.parse(line);
    if (m.reason !== "compiler-artifact" || !m.profile.test || !m.executable) continue;
    const dir = require("path").dirname(m.manifest_path);
    // "path+file:///…/tests#pi-ext-e2e@0.1.0", or "…/pi-ext#0.1.0" when the
    // directory has the package name.
    const [url, frag] = m.package_id.split("#");
    const pkg = frag.includes("@") ? frag.split("@")[0] : url.split("/").pop();
    console.log([dir, pkg, m.target.name, m.executable].join("\t"));
  }' "$LOGS/build.json" | sort -u -t $'\t' -k4,4 >"$LOGS/binaries.tsv"

# The slowest binaries start first (in this order, the slowest of a clean
# clone's run on 2 cores), so that none starts last and keeps the rest
# waiting; the others follow in name order.
SLOW="compile_fail toolchain examples_manifests bench_smoke builtin_tools anthropic_provider toolchain_npm lifecycle tool_calls tui"
{
  for name in $SLOW; do awk -F '\t' -v n="$name" '$3 == n' "$LOGS/binaries.tsv"; done
  awk -F '\t' -v slow=" $SLOW " 'index(slow, " " $3 " ") == 0' "$LOGS/binaries.tsv"
} >"$LOGS/queue.tsv"

JOBS=${PI_EXT_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 1))}
# What `cargo test` puts on the library path: proc-macro crates' test
# binaries link the toolchain's libstd dynamically.
LD_LIBRARY_PATH="$(rustc --print target-libdir):$PWD/target/debug/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
CARGO=${CARGO:-$(command -v cargo)}
export CARGO

# One test binary, as `cargo test` runs it: from its package's directory.
run_binary() {
  local dir=$1 name="$2::$3" exe=$4 log
  log="$LOGS/$2-$3.log"
  local start=$SECONDS ok=1 cpu
  (cd "$dir" && CARGO_MANIFEST_DIR="$dir" "$exe") >"$log" 2>&1 || ok=0
  # The CPU the binary and what it waited for (pi, cargo) used: the second
  # line of `times` (this subshell's children), written to a file since
  # `times` in a pipe would run in a new subshell, which has no children.
  times >"$log.times"
  cpu=$(tail -1 "$log.times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
  if [ "$ok" = 1 ]; then
    echo "    ok   $name ($((SECONDS - start)) s, $cpu CPU-s): $(grep -h '^test result' "$log" | tail -1)"
  else
    echo "    FAIL $name ($((SECONDS - start)) s, $cpu CPU-s), its output:"
    sed 's/^/        /' "$log"
    touch "$LOGS/failed"
  fi
}

echo "==> cargo test: $(wc -l <"$LOGS/queue.tsv") test binaries, $JOBS at a time; clippy and rustdoc beside them"
time {
  (
    start=$SECONDS
    if cargo test --workspace --locked --doc >"$LOGS/doctests.log" 2>&1; then
      echo "    ok   doc tests ($((SECONDS - start)) s)"
    else
      echo "    FAIL doc tests, their output:"
      sed 's/^/        /' "$LOGS/doctests.log"
      touch "$LOGS/failed"
    fi
  ) &
  # The doc tests count as one of the JOBS.
  while IFS=$'\t' read -r dir pkg target exe; do
    while [ "$(jobs -rp | grep -cvx "$lint_pid")" -ge "$JOBS" ]; do wait -n || true; done
    run_binary "$dir" "$pkg" "$target" "$exe" &
  done <"$LOGS/queue.tsv"
  while [ "$(jobs -rp | grep -cvx "$lint_pid")" -gt 0 ]; do wait -n || true; done
  echo "    (test binaries done)"
}
echo "==> waiting for clippy and rustdoc (started before the test build)"
time wait "$lint_pid" || true
cat "$LOGS/lint.log"
status=0
if [ -e "$LOGS/lint-failed" ]; then
  echo "clippy or rustdoc failed (above)" >&2
  status=1
fi
if [ -e "$LOGS/failed" ]; then
  echo "test binaries failed (FAIL above; logs in $LOGS)" >&2
  status=1
fi
exit "$status"
