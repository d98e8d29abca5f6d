#!/usr/bin/env bash
# The bundled example: checks two model attempts at its hole (the first is rejected with rustc-style diagnostics,
# the second accepted), then runs the program with the accepted attempt filling the hole. Builds what it needs on
# first use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
cargo run -q -p lacuna-cli -- check examples/primes/host.rs \
    --snippet examples/primes/attempt1.rs \
    --snippet examples/primes/attempt2.rs || status=$?
# 1 means "a snippet was rejected", which the first attempt is meant to be.
if [ "$status" -gt 1 ]; then exit "$status"; fi
echo
echo "running examples/primes/host.rs with attempt2.rs in its hole:"
cargo run -q -p lacuna-cli -- run examples/primes/host.rs --snippet examples/primes/attempt2.rs --verbose
echo
echo "running examples/memory/host.rs with a scripted model (appendix C's memory tool):"
cargo run -q -p lacuna-cli -- run examples/memory/host.rs --model script:examples/memory/replies.txt
