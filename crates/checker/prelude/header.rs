//! The `lacuna` crate as a host program sees it: `agent!`, `HoleError` and the prelude; and the runtime side of
//! `lacuna run`.
//!
//! This is the surface that holes are checked against. rust-analyzer loads it as an in-memory crate, and rustc
//! gets it as an rlib compiled once per toolchain (cached by content), so both compilers see the same items.
//! Nothing here runs in `lacuna check`. Under `lacuna run`, the host and every rustc-compiled snippet link this
//! rlib: `__private::enter` is what a hole becomes, and `__private::run_snippet` is how a snippet runs.

// The alloc-error hook turns a refused allocation in a snippet into a panic (an error value) instead of an abort.
#![feature(alloc_error_hook)]

