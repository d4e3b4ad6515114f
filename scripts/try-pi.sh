#!/usr/bin/env bash
# Tries a pi release without touching the pin: installs it into a temporary npm project, runs
# the smoke set (tests/tests/old_pi.rs) on it with the pinned pi's Node 22 (PI_EXT_PI_DIR), and
# lists the exported names its dist/core/extensions/types.d.ts adds or removes compared with
# the pinned pi's.
#
#   scripts/try-pi.sh [VERSION]   # default: the newest release (`npm view`)
#
# The full diff of types.d.ts is kept in target/try-pi/<VERSION>.types.diff. npm's own settings
# apply (e.g. npm_config_offline=true to install from npm's cache only).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pkg=@earendil-works/pi-coding-agent
types=dist/core/extensions/types.d.ts

if [ $# -gt 1 ]; then
  echo "usage: scripts/try-pi.sh [VERSION]" >&2
  exit 2
fi
version=${1:-$(npm view "$pkg" version)}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "try-pi: \"$version\" is not a pi version (like 1.6.0)" >&2
  exit 2
fi

pinned_dir=$root/node_modules/$pkg
if [ ! -f "$pinned_dir/$types" ]; then
  echo "try-pi: the pinned pi is not installed in $root/node_modules: run \`npm ci\` there first" >&2
  exit 1
fi

project=$(mktemp -d "${TMPDIR:-/tmp}/pi-ext-try-pi-XXXXXX")
trap 'rm -rf "$project"' EXIT
printf '{ "name": "pi-ext-try-pi", "version": "0.0.0", "private": true, "dependencies": { "%s": "%s" } }\n' \
  "$pkg" "$version" >"$project/package.json"
echo "try-pi: installing $pkg@$version into $project"
if ! (cd "$project" && npm install --no-audit --no-fund --loglevel=error >"$project/npm.log" 2>&1); then
  tail -n 30 "$project/npm.log" >&2
  echo "try-pi: npm could not install $pkg@$version" >&2
  exit 1
fi

# Exported names of a types.d.ts: declarations and `export type { ... } from` lists.
exported() {
  perl -0777 -ne '
    while (/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:interface|type|function|const|let|class|enum)\s+([A-Za-z_\$][\w\$]*)/mg) { print "$1\n" }
    while (/^export\s+(?:type\s+)?\{([^}]*)\}/mg) { for (split /,/, $1) { s/^\s*(?:type\s+)?//; s/\s+as\s+/ as /; s/\s+$//; print "$_\n" if length } }
  ' "$1" | sort -u
}
pinned_version=$(grep -o '"version": *"[^"]*"' "$pinned_dir/package.json" | head -n 1 | cut -d'"' -f4)
mkdir -p "$root/target/try-pi"
diff_file=$root/target/try-pi/$version.types.diff
diff -u "$pinned_dir/$types" "$project/node_modules/$pkg/$types" >"$diff_file" || true
added=$(comm -13 <(exported "$pinned_dir/$types") <(exported "$project/node_modules/$pkg/$types"))
removed=$(comm -23 <(exported "$pinned_dir/$types") <(exported "$project/node_modules/$pkg/$types"))

echo "try-pi: running the smoke set on pi $version"
status=passed
if ! (cd "$root" && PI_EXT_PI_DIR=$project cargo test -p pi-ext-e2e --test old_pi); then
  status=FAILED
fi

count() { if [ -n "$1" ]; then wc -l <<<"$1" | tr -d ' '; else echo 0; fi; }
echo
echo "== pi $version (pinned: $pinned_version) =="
echo "smoke set (cargo test -p pi-ext-e2e --test old_pi): $status"
echo "types.d.ts exported names added: $(count "$added")"
[ -z "$added" ] || sed 's/^/  + /' <<<"$added"
echo "types.d.ts exported names removed: $(count "$removed")"
[ -z "$removed" ] || sed 's/^/  - /' <<<"$removed"
echo "types.d.ts diff: $(grep -c '^[-+][^-+]' "$diff_file" || true) changed lines, in ${diff_file#"$root"/}"
[ "$status" = passed ]
