#!/usr/bin/env bash
# Checks two model attempts at the bundled example's hole: the first is rejected (with rustc-style diagnostics),
# the second accepted. Builds what it needs on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
cargo run -q -p lacuna-cli -- check examples/primes/host.rs \
    --snippet examples/primes/attempt1.rs \
    --snippet examples/primes/attempt2.rs || status=$?
# 1 means "a snippet was rejected", which the first attempt is meant to be.
if [ "$status" -gt 1 ]; then exit "$status"; fi
