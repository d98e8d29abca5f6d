//! `run`: a host runs in its own `lacuna run` process, not in the service's. A host is a whole program (it may
//! exit the process, or print to the stdout the protocol uses); in a child it can do neither to the service, and
//! cancelling the request kills it.

use std::path::PathBuf;
use std::process::Stdio;

use serde_json::{json, Value};

use crate::methods::RunParams;
use crate::protocol::{ErrorCode, RpcError};

/// How the service starts `lacuna run`.
#[derive(Debug, Clone)]
pub struct RunCommand {
    /// The `lacuna` binary.
    pub program: PathBuf,
    /// Arguments every run gets after `run` (the service's policy flags, say).
    pub args: Vec<String>,
}

/// Runs the host; the future kills the child when dropped (a cancelled or timed-out request).
pub async fn run(command: &RunCommand, params: RunParams) -> Result<Value, RpcError> {
    let scratch =
        tempfile::tempdir().map_err(|e| ErrorCode::Internal.with(format!("cannot make a scratch directory: {e}")))?;
    let mut child = tokio::process::Command::new(&command.program);
    child.arg("run").arg(&params.host).args(&command.args);
    for (hole, snippet) in &params.snippets {
        let number: u32 = hole.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
            ErrorCode::InvalidParams.with(format!("\"snippets\" are keyed by hole number from 1, not {hole:?}"))
        })?;
        let file = scratch.path().join(format!("hole{number}.rs"));
        std::fs::write(&file, snippet)
            .map_err(|e| ErrorCode::Internal.with(format!("cannot write the snippet for hole {number}: {e}")))?;
        child.arg("--snippet").arg(format!("{number}={}", file.display()));
    }
    match (&params.model, params.snippets.is_empty()) {
        (Some(model), true) => {
            child.arg("--model").arg(model);
        }
        (Some(_), false) => {
            return Err(ErrorCode::InvalidParams.with("give either \"snippets\" or \"model\", not both"));
        }
        (None, true) => {
            return Err(ErrorCode::InvalidParams.with("give \"snippets\" ({\"1\": TEXT, ...}) or a \"model\""));
        }
        (None, false) => {}
    }
    if let Some(path) = &params.path {
        child.arg("--path").arg(path);
    }
    let report = scratch.path().join("report.json");
    child.arg("--report").arg(&report);
    child.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let out = child
        .output()
        .await
        .map_err(|e| ErrorCode::Internal.with(format!("cannot start {}: {e}", command.program.display())))?;
    let report: Value =
        std::fs::read_to_string(&report).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // `lacuna run` exits 2 on bad input before the host runs (no report): that is the request's error.
    if report.is_null() && out.status.code() == Some(2) {
        let message = stderr.trim().strip_prefix("error: ").unwrap_or(stderr.trim()).to_owned();
        return Err(ErrorCode::InputError.with(message));
    }
    Ok(json!({
        "stdout": String::from_utf8_lossy(&out.stdout),
        "stderr": stderr,
        "exit_status": out.status.code(),
        "report": report,
    }))
}
