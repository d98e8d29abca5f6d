#!/usr/bin/env bash
# Makes sure this machine can build and run Lacuna: a Rust toolchain and the standard library's source (which
# rust-analyzer reads to type snippets). Idempotent: does nothing when all is there.
set -euo pipefail

have_std_src() {
    if [ -n "${LACUNA_STD_SRC:-}" ] && [ -f "$LACUNA_STD_SRC/std/src/lib.rs" ]; then return 0; fi
    local sysroot
    sysroot=$(rustc --print sysroot 2>/dev/null) || return 1
    if [ -f "$sysroot/lib/rustlib/src/rust/library/std/src/lib.rs" ]; then return 0; fi
    compgen -G "/usr/src/rustc-*/library/std/src/lib.rs" >/dev/null
}

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is not installed; install Rust (https://rustup.rs) first" >&2
    exit 1
fi

if ! have_std_src; then
    echo "setup: installing the Rust standard library source" >&2
    if command -v rustup >/dev/null 2>&1 && rustup component add rust-src >/dev/null 2>&1 && have_std_src; then
        :
    elif command -v apt-get >/dev/null 2>&1; then
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo apt-get install -y -qq rust-web-src >/dev/null 2>&1 \
            || { $sudo apt-get update -qq && $sudo apt-get install -y -qq rust-web-src; }
    fi
    if ! have_std_src; then
        echo "setup: no std source found; run 'rustup component add rust-src' or 'apt-get install -y rust-web-src'," >&2
        echo "       or point LACUNA_STD_SRC at a library/ directory" >&2
        exit 1
    fi
fi

# The tests hold the runtime's Rust (compiled into hosts, not into a workspace crate) to the workspace's unsafe
# lints with clippy.
sysroot=$(rustc --print sysroot)
if [ ! -x "$sysroot/bin/clippy-driver" ]; then
    echo "setup: installing clippy (the tests lint the runtime's unsafe code)" >&2
    if ! command -v rustup >/dev/null 2>&1 || ! rustup component add clippy >/dev/null 2>&1; then
        echo "setup: no clippy-driver in $sysroot/bin; run 'rustup component add clippy'" >&2
        exit 1
    fi
fi

# The service's driver example (examples/service/client.py, run by the tests) needs a Python 3.
if ! command -v python3 >/dev/null 2>&1; then
    echo "setup: installing python3 (for the service's driver example)" >&2
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    if command -v apt-get >/dev/null 2>&1; then
        $sudo apt-get install -y -qq python3-minimal >/dev/null 2>&1 \
            || { $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-minimal; }
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        echo "setup: no python3; install it (e.g. 'apt-get install -y python3-minimal')" >&2
        exit 1
    fi
fi
