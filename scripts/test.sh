#!/usr/bin/env bash
# Runs the whole test suite. Builds what it needs on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace
