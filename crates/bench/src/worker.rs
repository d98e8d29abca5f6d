//! A `lacuna serve --stdio` child process: one JSON-RPC request at a time, each answered on its own line. A
//! task's session lives in one worker; tasks on different workers run at once.

use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

use crate::BenchError;

pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The worker's stderr (what turns print, its own messages), kept for errors.
    log: std::fs::File,
    next_id: u64,
}

impl Worker {
    /// Starts `program serve --stdio args..`.
    pub fn start(program: &Path, args: &[String]) -> Result<Worker, BenchError> {
        let log = tempfile::tempfile().map_err(|e| BenchError::Worker(format!("cannot make its log file: {e}")))?;
        let stderr = log.try_clone().map_err(|e| BenchError::Worker(format!("cannot share its log file: {e}")))?;
        let mut child = Command::new(program)
            .args(["serve", "--stdio", "--workers", "1"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| BenchError::Worker(format!("cannot start {}: {e}", program.display())))?;
        let stdin = child.stdin.take().ok_or_else(|| BenchError::Worker("no stdin".into()))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| BenchError::Worker("no stdout".into()))?);
        Ok(Worker { child, stdin, stdout, log, next_id: 0 })
    }

    /// One request; its result, or the JSON-RPC error's message.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Result<Value, String>, BenchError> {
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let sent = writeln!(self.stdin, "{request}").and_then(|_| self.stdin.flush());
        if let Err(e) = sent {
            return Err(self.died(&format!("writing `{method}`: {e}")));
        }
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => return Err(self.died(&format!("it closed its output during `{method}`"))),
            Err(e) => return Err(self.died(&format!("reading the answer to `{method}`: {e}"))),
            Ok(_) => {}
        }
        let response: Value = serde_json::from_str(&line)
            .map_err(|e| BenchError::Worker(format!("answered `{method}` with something not JSON ({e}): {line}")))?;
        if let Some(error) = response.get("error") {
            let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
            return Ok(Err(message.to_owned()));
        }
        Ok(Ok(response.get("result").cloned().unwrap_or(Value::Null)))
    }

    /// The error for a worker that is gone, with the end of what it wrote on stderr.
    fn died(&mut self, what: &str) -> BenchError {
        let status = self.child.try_wait().ok().flatten().map(|s| format!(" ({s})")).unwrap_or_default();
        let mut log = String::new();
        let _ = self.log.rewind().and_then(|_| self.log.read_to_string(&mut log));
        let tail: Vec<&str> = log.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        BenchError::Worker(format!("{what}{status}; its last messages:\n{}", tail.join("\n")))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": 0, "method": "shutdown"}));
        let _ = self.stdin.flush();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
