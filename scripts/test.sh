#!/usr/bin/env bash
# Runs the whole test suite. Builds what it needs on first use.
#
# The AgentDojo port's tests (every suite's whole attack matrix, a third of the suite's time) run beside the rest:
# each stream mostly waits on one rustc at a time, so on two cores they overlap. cargo holds its build-directory
# lock while it runs tests, so the AgentDojo test executables, built by the same cargo, are run directly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --no-run

log=$(mktemp -t lacuna-agentdojo-tests.XXXXXX)
trap 'rm -f "$log"' EXIT
# The same build as above (asked again, it is fresh): its test executables of lacuna-agentdojo.
executables=$(cargo test --workspace --no-run --message-format=json 2>/dev/null \
    | grep '"package_id":"[^"]*lacuna-agentdojo@' | grep '"overflow_checks":[a-z]*,"test":true}' \
    | grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/')
if [ -z "$executables" ]; then
    echo "test: cargo named no test executables for lacuna-agentdojo" >&2
    exit 1
fi
(
    cd crates/agentdojo
    status=0
    for exe in $executables; do
        echo "     Running $exe"
        CARGO_MANIFEST_DIR="$PWD" "$exe" || status=1
    done
    exit $status
) >"$log" 2>&1 &
agentdojo=$!

status=0
cargo test --workspace --exclude lacuna-agentdojo || status=1
agentdojo_status=0
wait "$agentdojo" || agentdojo_status=1
echo
echo "=== lacuna-agentdojo (run beside the rest)"
cat "$log"
if [ "$agentdojo_status" != 0 ]; then
    echo "test: lacuna-agentdojo's tests failed (above)" >&2
    status=1
fi
exit $status
