//! The runtime's Rust is compiled into every host, not into a crate of this workspace, so the workspace's unsafe
//! lints would never see it. This test compiles it as crates of its own with clippy, under those lints: the
//! prelude (the `lacuna` runtime, as the engine builds it) and the entry points every instrumented host gains.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::build::runtime_source;
use crate::instrument::ENTRY_POINTS;

/// The lints `[workspace.lints]` holds every crate to, plus `missing_safety_doc` (public `unsafe fn`s say what
/// their callers guarantee).
const LINTS: &[&str] = &[
    "-A",
    "warnings",
    "-D",
    "unsafe_op_in_unsafe_fn",
    "-D",
    "clippy::undocumented_unsafe_blocks",
    "-D",
    "clippy::missing_safety_doc",
];

fn clippy_driver() -> PathBuf {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_owned();
    let driver = Path::new(&sysroot).join("bin").join("clippy-driver");
    assert!(
        driver.exists(),
        "{} is missing: run `rustup component add clippy` (scripts/setup.sh does)",
        driver.display()
    );
    driver
}

/// Checks `source` as a crate named `name` under [`LINTS`]; `Err` is clippy's report.
fn lint(dir: &Path, name: &str, source: &str, externs: &[(&str, &Path)]) -> Result<PathBuf, String> {
    let file = dir.join(format!("{name}.rs"));
    std::fs::write(&file, source).expect("the temporary directory is writable");
    let rmeta = dir.join(format!("lib{name}.rmeta"));
    let mut command = Command::new(clippy_driver());
    command
        .args(["--edition", "2021", "--crate-type", "rlib", "--emit=metadata", "--crate-name", name])
        .arg("-o")
        .arg(&rmeta)
        .args(LINTS)
        .arg(&file)
        // The runtime sets std's alloc-error hook (unstable), as the engine's build allows.
        .env("RUSTC_BOOTSTRAP", "1");
    for (crate_name, path) in externs {
        command.arg("--extern").arg(format!("{crate_name}={}", path.display()));
    }
    let out = command.output().expect("clippy-driver runs");
    if out.status.success() {
        Ok(rmeta)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn the_runtime_and_the_entry_points_hold_to_the_unsafe_lints() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let runtime = lint(dir.path(), "lacuna", &runtime_source(), &[])
        .unwrap_or_else(|report| panic!("the runtime (crates/checker/prelude) breaks the unsafe lints:\n{report}"));
    // The smallest host the entry points compile into: a `main`, the positions table the instrumenter writes.
    let host = format!(
        "fn main() {{}}\n#[doc(hidden)]\nstatic __LACUNA_POSITIONS: &[(u32, u32, u32, u32)] = &[];\n{ENTRY_POINTS}{}",
        lacuna_checker::PRELUDE_INJECTION
    );
    if let Err(report) = lint(dir.path(), "host", &host, &[("lacuna", &runtime)]) {
        panic!("crates/engine/host/entry_points.rs breaks the unsafe lints:\n{report}");
    }
}
