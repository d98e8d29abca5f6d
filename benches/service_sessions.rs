//! What isolating sessions costs: session turns through `lacuna serve --stdio` with each session in a worker
//! process (the default) against the same turns with every session in the service's process
//! (`--sessions-in-process`, the baseline), in one run; and a check's latency through the service while sessions
//! are open.
//!
//! Run: `cargo bench -p lacuna-cli --bench service_sessions` (`-- --turns N` per session; default 24).
//!
//! Each mode opens a session (timed: with workers a spare is waiting, after the first), warms it with one turn,
//! then runs the same turns — half on the JIT path (scalar arithmetic on earlier locals), half on the rustc path
//! (strings and vectors) — each timed from writing the request to reading its answer. Reported: p50 and p90 per
//! mode and their ratio, the open time, and p50 of warm checks made while the sessions are open.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

#[allow(dead_code)] // not every bench uses every helper
mod common;
use common::percentile;

struct Service {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Service {
    fn start(extra: &[&str]) -> Service {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .args(["serve", "--stdio", "--workers", "1"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("lacuna serve starts");
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        Service { child, input, output, next_id: 0 }
    }

    /// One request, one at a time: (milliseconds to its answer, the answer).
    fn call(&mut self, method: &str, params: Value) -> (f64, Value) {
        self.next_id += 1;
        let mut line = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).to_string();
        line.push('\n');
        let started = Instant::now();
        self.input.write_all(line.as_bytes()).expect("the service reads");
        self.input.flush().expect("the service reads");
        let mut answer = String::new();
        self.output.read_line(&mut answer).expect("the service answers");
        let ms = started.elapsed().as_secs_f64() * 1e3;
        (ms, serde_json::from_str(&answer).expect("JSON"))
    }

    fn finish(mut self) {
        drop(self.input);
        let _ = self.child.wait();
    }
}

/// The turns of one session: JIT-path and rustc-path turns in turn, each using what earlier ones left.
fn turns(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| match i % 2 {
            0 => format!("let a{i} = a{} * 3 % 1009 + {i};\na{i}", i - 1),
            _ => format!("let a{i} = a{} + 1;\nlet w{i}: Vec<String> = (0..a{i} % 7).map(|k| format!(\"w{{k}}\")).collect();\nw{i}.join(\",\")", i - 1),
        })
        .collect()
}

struct Measured {
    open_ms: f64,
    turns_ms: Vec<f64>,
    checks_ms: Vec<f64>,
}

fn measure(extra: &[&str], n: usize, primes: &str) -> Measured {
    let mut service = Service::start(extra);
    // The first session's open starts the engine (and, with workers, the first worker): not what is compared.
    let (_, first) = service.call("session.open", json!({}));
    let warm = first["result"]["session"].clone();
    let (_, a) = service.call("session.turn", json!({"session": warm, "snippet": "let a0 = 1;\na0"}));
    assert_eq!(a["result"]["value"], "1", "{a}");
    let (open_ms, opened) = service.call("session.open", json!({}));
    let session = opened["result"]["session"].clone();
    let (_, a) = service.call("session.turn", json!({"session": session, "snippet": "let a0 = 1;\na0"}));
    assert_eq!(a["result"]["value"], "1", "{a}");
    let mut turns_ms = Vec::new();
    for turn in turns(n) {
        let (ms, answer) = service.call("session.turn", json!({"session": session, "snippet": turn}));
        assert_eq!(answer["result"]["accepted"], true, "{turn}: {answer}");
        turns_ms.push(ms);
    }
    // Checks while the sessions are open (the first one warms the host).
    let mut checks_ms = Vec::new();
    for k in 0..=n {
        let snippet = format!("xs.iter().filter(|x| *x % {} == 0).copied().collect()", k + 2);
        let (ms, answer) = service.call("check", json!({"host": primes, "snippet": snippet}));
        assert!(answer["result"]["accepted"].is_boolean(), "{answer}");
        if k > 0 {
            checks_ms.push(ms);
        }
    }
    service.finish();
    Measured { open_ms, turns_ms, checks_ms }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.iter().position(|a| a == "--turns").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(24);
    let primes = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/primes/host.rs");
    let baseline = measure(&["--sessions-in-process"], n, primes);
    let workers = measure(&[], n, primes);
    let p = |v: &[f64], q: f64| percentile(v, q);
    println!("session turns through `lacuna serve --stdio`, {n} turns per mode (half JIT, half rustc path)");
    println!("{:<22} {:>10} {:>10} {:>12} {:>12}", "mode", "turn p50", "turn p90", "open", "check p50");
    for (name, m) in [("in process (baseline)", &baseline), ("worker per session", &workers)] {
        println!(
            "{:<22} {:>8.1}ms {:>8.1}ms {:>10.1}ms {:>10.1}ms",
            name,
            p(&m.turns_ms, 50.0),
            p(&m.turns_ms, 90.0),
            m.open_ms,
            p(&m.checks_ms, 50.0)
        );
    }
    println!(
        "ratio (workers / in process): turn p50 {:.2}, turn p90 {:.2}, check p50 {:.2}",
        p(&workers.turns_ms, 50.0) / p(&baseline.turns_ms, 50.0),
        p(&workers.turns_ms, 90.0) / p(&baseline.turns_ms, 90.0),
        p(&workers.checks_ms, 50.0) / p(&baseline.checks_ms, 50.0),
    );
}
