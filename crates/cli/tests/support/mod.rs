//! The service as a driver sees it: `lacuna serve` as a child process, on stdio or HTTP.

#![allow(dead_code)] // not every test binary uses every helper

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

/// Generous: a check is well under a second warm; a host build a few seconds on a loaded 2-core machine.
pub const PATIENCE: Duration = Duration::from_secs(240);

pub fn repo() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    package.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))).join("../..")
}

/// `lacuna serve --stdio` with its output lines arriving on a channel.
pub struct Stdio_ {
    pub child: Child,
    stdin: ChildStdin,
    pub lines: mpsc::Receiver<String>,
    /// Answers read while waiting for another id.
    pending: Vec<Value>,
}

impl Stdio_ {
    pub fn start(extra: &[&str], cwd: &Path) -> Stdio_ {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .args(["serve", "--stdio"])
            .args(extra)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("lacuna serve starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Stdio_ { child, stdin, lines, pending: Vec::new() }
    }

    pub fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("the service reads");
        self.stdin.write_all(b"\n").expect("the service reads");
        self.stdin.flush().expect("the service reads");
    }

    pub fn request(&mut self, id: Value, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
    }

    /// The answer with this id (answers come in the order requests finish).
    pub fn answer(&mut self, id: &Value) -> Value {
        if let Some(at) = self.pending.iter().position(|a| &a["id"] == id) {
            return self.pending.remove(at);
        }
        loop {
            let line = self.lines.recv_timeout(PATIENCE).unwrap_or_else(|_| panic!("no answer for id {id}"));
            let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
            if &answer["id"] == id {
                return answer;
            }
            self.pending.push(answer);
        }
    }

    pub fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.request(json!(id), method, params);
        self.answer(&json!(id))
    }

    /// Closes stdin and waits for the exit status.
    pub fn finish(mut self) -> Option<i32> {
        drop(self.stdin);
        let status = self.child.wait().expect("lacuna serve exits");
        status.code()
    }
}

pub fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// `lacuna serve --listen 127.0.0.1:0`, and the address it printed. The caller waits for the child; where this
/// panics first (the test fails there), the child ends with the test process.
#[allow(clippy::zombie_processes)]
pub fn http_service(extra: &[&str], cwd: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lacuna serve starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut line = String::new();
    loop {
        line.clear();
        if stderr.read_line(&mut line).expect("stderr reads") == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the service said nothing on stderr");
        }
        if let Some(rest) = line.trim().strip_prefix("lacuna: serving on ") {
            let url = rest.split_whitespace().next().unwrap_or_default().to_owned();
            // Keep draining stderr so the service never blocks on it.
            std::thread::spawn(move || {
                let mut sink = String::new();
                let _ = stderr.read_to_string(&mut sink);
            });
            return (child, url);
        }
    }
}

/// The session workers `pid` started (`lacuna session-worker` children).
pub fn worker_pids(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        let worker = std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"session-worker"));
        if worker && ppid == Some(pid) {
            found.extend(head.split_whitespace().next().and_then(|p| p.parse::<u32>().ok()));
        }
    }
    found
}

/// `lacuna bench ARGS` in `dir`, run to its end.
pub fn bench(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .arg("bench")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("lacuna bench runs")
}

/// Its stdout, once it exited 0 (else the test fails with both streams).
pub fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}
