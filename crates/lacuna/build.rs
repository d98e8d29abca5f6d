//! Marks a cargo build of this crate: it compiles on stable Rust, without the one unstable API Lacuna's own build
//! of the same source uses (std's alloc-error hook, `prelude/budget.rs`).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(lacuna_stable)");
    println!("cargo::rustc-cfg=lacuna_stable");
}
