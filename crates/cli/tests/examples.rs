//! The runnable examples (`examples/*/` with an `expected.txt`; a cargo project or a `host.rs`): the paper's agent
//! patterns and a cargo project, each run by the
//! `lacuna` binary with scripted model replies (`--model script:replies.txt`, or the models its `lacuna.toml`
//! names), must print exactly `expected.txt`. One named test per example.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    // The checkout under test (the compile-time directory may be another checkout's sharing the target dir).
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let examples = package.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))).join("../../examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("examples/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.txt").is_file())
        .collect();
    dirs.sort();
    let trials = dirs
        .into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
            Trial::test(name, move || run_example(&dir))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn run_example(dir: &Path) -> Result<(), Failed> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lacuna"));
    // A cargo project runs as `cargo run` would, from its directory; a single-file example is its host.rs.
    command.arg("run").current_dir(dir);
    if !dir.join("Cargo.toml").is_file() {
        command.arg("host.rs");
    }
    if dir.join("replies.txt").is_file() {
        command.args(["--model", "script:replies.txt"]);
    }
    let trace = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    command.arg("--trace").arg(trace.path());
    let out = command.output().map_err(|e| format!("cannot run lacuna: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = std::fs::read_to_string(dir.join("expected.txt")).map_err(|e| e.to_string())?;
    if !out.status.success() || stdout != expected {
        return Err(format!(
            "exit {:?}\n--- expected\n{expected}--- got\n{stdout}--- stderr\n{stderr}",
            out.status.code()
        )
        .into());
    }
    // Every attempt is in the trace, and the summary reaches stderr.
    let records = std::fs::read_to_string(trace.path()).map_err(|e| e.to_string())?.lines().count();
    if records == 0 || !stderr.contains("hole call(s)") {
        return Err(format!("no trace records ({records}) or no summary in stderr:\n{stderr}").into());
    }
    Ok(())
}
