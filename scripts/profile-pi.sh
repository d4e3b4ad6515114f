#!/usr/bin/env bash
# Profiles pi's thread (`node --cpu-prof`) during benchmark rows and prints where the time went
# (scripts/cpu-profile-split.mjs): every pi the rows start writes one profile when it exits.
#
#   scripts/profile-pi.sh ROWS [--events N]   # e.g. scripts/profile-pi.sh 5 --events 132088
#
# ROWS is the benchmark's --rows list (run one row at a time: a row's pis are told apart by the
# extensions they loaded, not by row). Profiles go to target/cpu-prof/rows-ROWS/ (emptied first);
# PI_EXT_PROFILE_INTERVAL sets the sampling interval in µs (default 200). Extra arguments go to
# the split script. The profiler itself slows pi down: compare profiles with profiles only.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  echo "usage: scripts/profile-pi.sh ROWS [--events N] [--top K]" >&2
  exit 2
fi
rows=$1
shift
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/cpu-prof/rows-${rows//,/-}
rm -rf "$out"
mkdir -p "$out"
interval=${PI_EXT_PROFILE_INTERVAL:-200}
# NODE_OPTIONS reaches every Node the benchmark starts: the pis, and the bridge rows' fake pi.
NODE_OPTIONS="--cpu-prof --cpu-prof-dir=$out --cpu-prof-interval=$interval" \
  cargo run --release -p pi-ext-e2e --bin bench -- --rows "$rows" >"$out/bench.txt"
grep '^|' "$out/bench.txt" || true
node "$root/scripts/cpu-profile-split.mjs" "$out" "$@"
