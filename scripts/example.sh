#!/usr/bin/env bash
# The bundled example, in four steps, each said before it runs: check two model attempts at a hole (the first is
# meant to be rejected), run the program with the accepted one, then run an agent with a scripted model, then a cargo project's holes. Builds
# what it needs on first use, with cargo's progress shown.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Bold on a terminal, plain otherwise.
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

step "Building lacuna (the first build compiles rust-analyzer: about 20 minutes on 2 cores)"
cargo build -p lacuna-cli
lacuna="${CARGO_TARGET_DIR:-target}/debug/lacuna"

step "1. lacuna check: two attempts at the hole in examples/primes/host.rs"
echo "attempt1.rs returns the wrong type, so it is rejected with rustc-style diagnostics (that is the point);"
echo "attempt2.rs is accepted. Nothing of either runs."
status=0
"$lacuna" check examples/primes/host.rs \
    --snippet examples/primes/attempt1.rs \
    --snippet examples/primes/attempt2.rs || status=$?
# 1 means "a snippet was rejected", which the first attempt is meant to be.
if [ "$status" -gt 1 ]; then exit "$status"; fi

step "2. lacuna run: the program runs, with attempt2.rs filling its hole against the live values"
"$lacuna" run examples/primes/host.rs --snippet examples/primes/attempt2.rs --verbose

step "3. lacuna run with a scripted model: appendix C's memory tool (examples/memory)"
echo "Each time the program reaches a hole, the model (here: replies from examples/memory/replies.txt) writes code"
echo "for it, which is checked, then run. With a real model: --model openai:<model> (see docs/models.md)."
"$lacuna" run examples/memory/host.rs --model script:examples/memory/replies.txt

step "4. holes in a cargo project: examples/cargo-agent (serde, serde_json, regex, tokio)"
echo "lacuna builds the project with cargo once (its dependencies too), checks each snippet against the crate as"
echo "rustc compiles it, and runs the crate in this process; the replies are scripted, two of them rejected."
"$lacuna" run --manifest-path examples/cargo-agent/Cargo.toml --model script:examples/cargo-agent/replies.txt

step "Done. Put lacuna on your PATH with: cargo install --path crates/cli"
