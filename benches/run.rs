//! `lacuna run`: what it costs to accept and execute a snippet, against recompiling the program with rustc.
//!
//! Run: `cargo bench -p lacuna-cli --bench run` (add `-- --json` for a machine-readable summary).
//!
//! For every accepted testdata case that runs to completion (the differential suite's cases), in one process:
//! - lacuna, rustc path: the wall time the host waits at the hole: check, lower, compile (overlapped with rustc's
//!   check) and run, in the running host (cold artifact cache: a fresh cache directory, rustc's verdict memo off);
//! - baseline: what running the snippet costs without Lacuna: splice it into the host textually, compile the
//!   program with rustc (same debug flags) and run it.
//! - the JIT path: not built yet (reported as such).

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_jit::{Budgets, Engine, PathChoice, RunOptions};
use lacuna_testdata::Expect;

mod common;
use common::{peak_rss_mib, percentile};

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    let cases: Vec<_> = lacuna_testdata::load_all()
        .expect("testdata loads")
        .into_iter()
        .filter(|c| c.expect == Expect::Accepted && c.run.is_none())
        .collect();
    let cache = tempfile::tempdir().expect("temp dir");
    let checker = Checker::new(CheckerOptions {
        memoize_rustc: false,
        cache_dir: Some(cache.path().to_owned()),
        ..CheckerOptions::default()
    })
    .expect("checker starts");
    let (rustc, rlib) = (checker.rustc().path.clone(), checker.rustc().prelude_rlib().to_owned());
    let options = RunOptions {
        path: PathChoice::Rustc,
        budgets: Budgets::default(),
        cache_dir: Some(cache.path().to_owned()),
        ..RunOptions::default()
    };
    let engine = Engine::new(checker, options).expect("engine starts");
    let scratch = tempfile::tempdir().expect("temp dir");
    let mut hosts = HashMap::new();
    let (mut lacuna_ms, mut baseline_ms, mut host_ms) = (Vec::new(), Vec::new(), Vec::new());
    let (mut check_ms, mut compile_ms, mut exec_ms) = (Vec::new(), Vec::new(), Vec::new());
    let progress = indicatif::ProgressBar::new(cases.len() as u64);
    for case in &cases {
        let host = hosts
            .entry(case.host.clone())
            .or_insert_with(|| {
                let host = engine.load("host.rs", &case.host).expect("testdata hosts load");
                host_ms.push(host.compile_ms);
                host
            })
            .clone();
        let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
        let (_, report) =
            lacuna_testdata::capture_stdout(|| engine.run(&host, snippets)).expect("stdout can be captured");
        let report = report.expect("the host runs");
        let t = &report.sites[case.hole].timings_ms;
        lacuna_ms.push(t.total);
        check_ms.push(t.check);
        compile_ms.push(t.compile);
        exec_ms.push(t.run);

        // Baseline: the textual splice, compiled and run as a program.
        let spliced = engine
            .with_checker(|c| {
                let prepared = c.prepare("host.rs", &case.host).expect("host prepares");
                c.spliced_text(&prepared, case.hole, &case.snippet)
            })
            .expect("engine open");
        let source = scratch.path().join("spliced.rs");
        let binary = scratch.path().join("spliced");
        std::fs::write(&source, spliced).unwrap();
        let started = Instant::now();
        let out = Command::new(&rustc)
            .args(["--edition", "2021", "-C", "debug-assertions=on", "--cap-lints", "allow", "--extern"])
            .arg(format!("lacuna={}", rlib.display()))
            .arg("-o")
            .arg(&binary)
            .arg(&source)
            .output()
            .expect("rustc runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        Command::new(&binary).output().expect("the program runs");
        baseline_ms.push(started.elapsed().as_secs_f64() * 1e3);
        progress.inc(1);
    }
    progress.finish_and_clear();
    let p = |v: &[f64], q| percentile(v, q);
    if json {
        println!(
            "{}",
            serde_json::json!({
                "cases": cases.len(),
                "rustc_path": {"p50_ms": p(&lacuna_ms, 50.0), "p90_ms": p(&lacuna_ms, 90.0),
                    "check_p50_ms": p(&check_ms, 50.0), "compile_p50_ms": p(&compile_ms, 50.0),
                    "run_p50_ms": p(&exec_ms, 50.0)},
                "baseline_splice_compile_run": {"p50_ms": p(&baseline_ms, 50.0), "p90_ms": p(&baseline_ms, 90.0)},
                "ratio_p50": p(&baseline_ms, 50.0) / p(&lacuna_ms, 50.0),
                "jit_path": null,
                "jit_share": 0.0,
                "host_compile_p50_ms": p(&host_ms, 50.0),
                "peak_rss_mib": peak_rss_mib(),
            })
        );
        return;
    }
    println!("lacuna run: accept-and-execute per snippet, {} accepted testdata cases, one process", cases.len());
    println!();
    println!("{:<34} {:>11} {:>11}", "", "p50", "p90");
    let row = |name: &str, v: &[f64]| println!("{name:<34} {:>8.1} ms {:>8.1} ms", p(v, 50.0), p(v, 90.0));
    row("rustc path, wall time at the hole", &lacuna_ms);
    row("  of which check", &check_ms);
    row("  of which compile", &compile_ms);
    row("  of which run", &exec_ms);
    row("baseline: splice, rustc, run", &baseline_ms);
    println!();
    println!("ratio baseline/rustc path (p50): {:.2}x", p(&baseline_ms, 50.0) / p(&lacuna_ms, 50.0));
    println!("JIT path: not built yet; every snippet ran on the rustc path (JIT share 0%)");
    println!("host library compile (per host, {} hosts): p50 {:.0} ms", host_ms.len(), p(&host_ms, 50.0));
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS of this process: {mib:.0} MiB");
    }
}
