//! What the service's protocol costs: warm checks through `lacuna serve --stdio` against the same checks in
//! process, on the same testdata snippets, in one run.
//!
//! Run: `cargo bench -p lacuna-cli --bench service` (`-- --cases N` for more or fewer per kind; default 60).
//!
//! Both sides check each snippet once to warm up (the host prepared, rust-analyzer's first inference of it, rustc's
//! memo), then once measured: in process, the `Checker::check` call; through the service, from writing the request
//! line to reading its answer (one request in flight, one worker). The protocol's cost is the median of the
//! per-snippet differences.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_testdata::Expect;
use serde_json::{json, Value};

#[allow(dead_code)] // not every bench uses every helper
mod common;
use common::percentile;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let per_kind: usize =
        args.iter().position(|a| a == "--cases").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(60);
    let default_policy = lacuna_checker::Policy::default();
    let all: Vec<_> = lacuna_testdata::load_all()
        .expect("testdata loads")
        .into_iter()
        .filter(|c| c.policy() == default_policy)
        .collect();
    let pick = |accepted: bool| -> Vec<_> {
        all.iter().filter(|c| (c.expect == Expect::Accepted) == accepted).take(per_kind).cloned().collect()
    };
    let (accepted, rejected) = (pick(true), pick(false));

    let mut checker = Checker::new(CheckerOptions::default()).expect("checker starts");
    let mut service = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["serve", "--stdio", "--workers", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("lacuna serve starts");
    let mut to_service = service.stdin.take().expect("piped");
    let mut from_service = BufReader::new(service.stdout.take().expect("piped"));
    let mut next_id = 0u64;
    let mut through_service = |case: &lacuna_testdata::Case| -> (f64, Value) {
        next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": next_id, "method": "check",
            "params": {"host_text": &*case.host, "hole": case.hole + 1, "snippet": case.snippet}});
        let mut line = request.to_string();
        line.push('\n');
        let started = Instant::now();
        to_service.write_all(line.as_bytes()).expect("the service reads");
        to_service.flush().expect("the service reads");
        let mut answer = String::new();
        from_service.read_line(&mut answer).expect("the service answers");
        let ms = started.elapsed().as_secs_f64() * 1e3;
        (ms, serde_json::from_str(&answer).expect("JSON"))
    };

    println!("lacuna serve --stdio: warm checks through the service vs in process (same snippets, one worker)\n");
    println!("{:<10} {:>5} {:>16} {:>16} {:>20}", "", "cases", "in process p50", "service p50", "protocol cost p50");
    for (name, cases) in [("rejected", &rejected), ("accepted", &accepted)] {
        let mut prepared = std::collections::HashMap::new();
        for case in cases.iter() {
            let host = prepared
                .entry(case.host.clone())
                .or_insert_with(|| checker.prepare("host.rs", &case.host).expect("testdata hosts compile"))
                .clone();
            checker.check(&host, case.hole, &case.snippet).expect("case checks");
            let (_, answer) = through_service(case);
            assert!(answer.get("result").is_some(), "{answer}");
        }
        let (mut local, mut remote, mut overhead) = (Vec::new(), Vec::new(), Vec::new());
        for case in cases.iter() {
            let host = prepared[&case.host].clone();
            let started = Instant::now();
            let verdict = checker.check(&host, case.hole, &case.snippet).expect("case checks");
            let local_ms = started.elapsed().as_secs_f64() * 1e3;
            let (remote_ms, answer) = through_service(case);
            assert_eq!(answer["result"]["accepted"], verdict.accepted, "{answer}");
            local.push(local_ms);
            remote.push(remote_ms);
            overhead.push(remote_ms - local_ms);
        }
        println!(
            "{name:<10} {:>5} {:>13.2} ms {:>13.2} ms {:>17.2} ms",
            cases.len(),
            percentile(&local, 50.0),
            percentile(&remote, 50.0),
            percentile(&overhead, 50.0)
        );
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", service.id())).unwrap_or_default();
    if let Some(kib) = status.lines().find_map(|l| l.strip_prefix("VmHWM:")) {
        println!(
            "\npeak RSS of the service (one worker): {:.0} MiB",
            kib.trim().trim_end_matches(" kB").parse::<f64>().unwrap_or(0.0) / 1024.0
        );
    }
    drop(to_service);
    let _ = service.wait();
}
