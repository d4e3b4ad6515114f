#!/usr/bin/env bash
# The main job: build the `hello` example extension, install it into an
# isolated pi agent directory, start the real pi and let the model call the
# Rust tool. Without PI_EXT_DEMO_REAL=1 a scripted model on 127.0.0.1 stands
# in for the LLM, so no API key and no network are needed. The harness
# installs the pinned pi and the Node it needs (package-lock.json) into
# ./node_modules when they are missing, and runs pi on that Node.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --locked -q -p hello
exec cargo run --locked -q -p pi-ext-e2e --bin demo -- "$@"
