#!/usr/bin/env bash
# Runs the whole test suite. Builds what it needs on first use.
#
# Most test executables spend much of their time waiting on a child (rustc, a `lacuna` process, a worker), so one
# at a time leaves a core idle. Every test executable cargo builds is run directly (cargo would run them one after
# another, holding its build-directory lock), $LACUNA_TEST_JOBS at a time (default 3), longest first; each one's
# output is printed whole when it ends. The doc tests run through cargo as one more job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --no-run

jobs_at_once=${LACUNA_TEST_JOBS:-3}
logs=$(mktemp -d -t lacuna-tests.XXXXXX)
trap 'rm -rf "$logs"' EXIT

# The same build as above (asked again, it is fresh): each test executable with its package's directory.
cargo test --workspace --no-run --message-format=json 2>/dev/null \
    | grep '"reason":"compiler-artifact"' | grep '"overflow_checks":[a-z]*,"test":true}' \
    | sed -n 's/.*"manifest_path":"\([^"]*\)\/Cargo.toml".*"executable":"\([^"]*\)".*/\1 \2/p' >"$logs/all"
if [ ! -s "$logs/all" ]; then
    echo "test: cargo named no test executables" >&2
    exit 1
fi

# Longest first (measured on 2 cores), so the long ones do not start last; the rest in cargo's order.
longest="differential agentdojo bench cases browsecomp project serve cli faults robustness examples sessions"
: >"$logs/queue"
for name in $longest; do
    grep "/${name}-[0-9a-f]*$" "$logs/all" >>"$logs/queue" || true
done
grep -v -x -F -f "$logs/queue" "$logs/all" >>"$logs/queue" || true
echo "doc-tests" >>"$logs/queue"

run_one() {
    local n=$1 dir=$2 exe=$3 label start status
    label=$(basename "$dir")/$(basename "$exe" | sed 's/-[0-9a-f]*$//')
    start=$SECONDS
    if [ "$dir" = "doc-tests" ]; then
        label="doc tests"
        cargo test --workspace --doc >"$logs/$n.log" 2>&1 && status=0 || status=$?
    else
        (cd "$dir" && CARGO_MANIFEST_DIR="$dir" "$exe") >"$logs/$n.log" 2>&1 && status=0 || status=$?
    fi
    {
        echo
        echo "=== $label ($exe): exit $status after $((SECONDS - start)) s"
        cat "$logs/$n.log"
    } >"$logs/$n.done"
    echo "$status $label" >"$logs/$n.status"
    echo "test: $label: $([ "$status" = 0 ] && echo ok || echo FAILED) in $((SECONDS - start)) s"
}

n=0
while read -r dir exe; do
    n=$((n + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do
        wait -n || true
    done
    run_one "$n" "$dir" "${exe:-}" &
done <"$logs/queue"
wait

status=0
for k in $(seq 1 "$n"); do
    cat "$logs/$k.done"
done
echo
for k in $(seq 1 "$n"); do
    read -r code label <"$logs/$k.status"
    if [ "$code" != 0 ]; then
        echo "test: $label failed (exit $code; its output is above)" >&2
        status=1
    fi
done
[ "$status" = 0 ] && echo "test: all $n test executables passed"
exit $status
