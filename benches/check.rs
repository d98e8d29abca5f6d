//! `lacuna check` against rustc on every testdata case, in one run.
//!
//! Run: `cargo bench -p lacuna-cli --bench check` (add `-- --json` for a machine-readable summary).
//!
//! Reports, for rejected and for accepted snippets: the warm in-process check time (p50/p90) next to
//! `rustc -Z no-codegen` on the same spliced file, and their ratio; which checker decided; the cold start of the
//! `lacuna` binary to its first verdict; and the peak RSS of this process (which holds the checker).

use std::process::Command;
use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions, DecidedBy};

mod common;
use common::{peak_rss_mib, percentile};

struct Sample {
    accepted: bool,
    decided_by: DecidedBy,
    lacuna_ms: f64,
    rustc_ms: f64,
}

/// One table row: lacuna's and rustc's times on the same snippets.
fn print_row(name: &str, lacuna: &[f64], rustc: &[f64], comment: &str) {
    println!(
        "{:<10} {:>5} {:>11.2} ms {:>11.2} ms {:>11.2} ms {:>11.2} ms {:>8.1}x{comment}",
        name,
        lacuna.len(),
        percentile(lacuna, 50.0),
        percentile(lacuna, 90.0),
        percentile(rustc, 50.0),
        percentile(rustc, 90.0),
        percentile(rustc, 50.0) / percentile(lacuna, 50.0)
    );
}

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    let cases = lacuna_testdata::load_all().expect("testdata loads");

    // Cold start: a fresh `lacuna check` process on the first case, to its first verdict.
    let first = &cases[0];
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("host.rs"), &*first.host).unwrap();
    std::fs::write(dir.path().join("snippet.rs"), &first.snippet).unwrap();
    let cold_started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "host.rs", "--hole", &(first.hole + 1).to_string(), "-s", "snippet.rs", "--json"])
        .current_dir(dir.path())
        .output()
        .expect("lacuna runs");
    let cold_ms = cold_started.elapsed().as_secs_f64() * 1e3;
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));

    // Warm, in process. rustc's memo is off so an accepted snippet pays for its rustc confirmation every time.
    let started = Instant::now();
    let mut checker =
        Checker::new(CheckerOptions { memoize_rustc: false, ..CheckerOptions::default() }).expect("checker starts");
    let startup_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut prepared = std::collections::HashMap::new();
    let mut samples = Vec::new();
    let mut first_checks = Vec::new();
    // Safe mode's allowlist over resolved items, per snippet that got that far (its syntax rules are part of
    // parsing: microseconds).
    let mut policy_ms: Vec<f64> = Vec::new();
    let progress = indicatif::ProgressBar::new(cases.len() as u64);
    for case in &cases {
        if !prepared.contains_key(&case.host) {
            let host = checker.prepare("host.rs", &case.host).expect("testdata hosts compile");
            // The first check after a new host pays rust-analyzer's cold inference of it; measured apart, so the
            // table shows the warm re-checks a retry loop makes.
            let t = Instant::now();
            checker.check_under(&host, case.hole, &case.snippet, &case.policy()).expect("case checks");
            first_checks.push(t.elapsed().as_secs_f64() * 1e3);
            prepared.insert(case.host.clone(), host);
        }
        let host = prepared[&case.host].clone();
        let t = Instant::now();
        let verdict = checker.check_under(&host, case.hole, &case.snippet, &case.policy()).expect("case checks");
        let lacuna_ms = t.elapsed().as_secs_f64() * 1e3;
        policy_ms.extend(verdict.timings.policy);
        let spliced = checker.spliced_text(&host, case.hole, &case.snippet);
        let t = Instant::now();
        checker.rustc().check_text(&spliced).expect("rustc runs");
        let rustc_ms = t.elapsed().as_secs_f64() * 1e3;
        samples.push(Sample { accepted: verdict.accepted, decided_by: verdict.decided_by, lacuna_ms, rustc_ms });
        progress.inc(1);
    }
    progress.finish_and_clear();
    let peak = peak_rss_mib();

    let pick = |accepted: bool, f: fn(&Sample) -> f64| -> Vec<f64> {
        samples.iter().filter(|s| s.accepted == accepted).map(f).collect()
    };
    let rows = [("rejected", false), ("accepted", true)];
    let count = |d: DecidedBy| samples.iter().filter(|s| s.decided_by == d).count();
    if json {
        let mut summary = serde_json::json!({
            "cases": samples.len(),
            "decided_by": {
                "rust-analyzer": count(DecidedBy::RustAnalyzer),
                "rustc": count(DecidedBy::Rustc),
                "lacuna": count(DecidedBy::Lacuna),
                "policy": count(DecidedBy::Policy),
            },
            "policy_n": policy_ms.len(),
            "policy_p50_ms": percentile(&policy_ms, 50.0),
            "policy_p90_ms": percentile(&policy_ms, 90.0),
            "cold_start_to_first_verdict_ms": cold_ms,
            "checker_startup_ms": startup_ms,
            "first_check_after_new_host_p50_ms": percentile(&first_checks, 50.0),
            "peak_rss_mib": peak,
        });
        for (name, accepted) in rows {
            let l = pick(accepted, |s| s.lacuna_ms);
            let r = pick(accepted, |s| s.rustc_ms);
            summary[name] = serde_json::json!({
                "n": l.len(),
                "lacuna_p50_ms": percentile(&l, 50.0), "lacuna_p90_ms": percentile(&l, 90.0),
                "rustc_p50_ms": percentile(&r, 50.0), "rustc_p90_ms": percentile(&r, 90.0),
                "ratio_p50": percentile(&r, 50.0) / percentile(&l, 50.0),
            });
        }
        println!("{summary}");
        return;
    }
    println!("lacuna check vs rustc -Z no-codegen, {} testdata cases, one process", samples.len());
    println!(
        "decided by: rust-analyzer {}, rustc {}, lacuna {}, policy {}",
        count(DecidedBy::RustAnalyzer),
        count(DecidedBy::Rustc),
        count(DecidedBy::Lacuna),
        count(DecidedBy::Policy)
    );
    println!(
        "safe mode's allowlist over resolved items: p50 {:.3} ms, p90 {:.3} ms ({} snippets)",
        percentile(&policy_ms, 50.0),
        percentile(&policy_ms, 90.0),
        policy_ms.len()
    );
    println!();
    println!(
        "{:<10} {:>5} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "", "n", "lacuna p50", "lacuna p90", "rustc p50", "rustc p90", "ratio p50"
    );
    for (name, accepted) in rows {
        print_row(name, &pick(accepted, |s| s.lacuna_ms), &pick(accepted, |s| s.rustc_ms), "");
    }
    let by_ra = |f: fn(&Sample) -> f64| -> Vec<f64> {
        samples.iter().filter(|s| s.decided_by == DecidedBy::RustAnalyzer).map(f).collect()
    };
    print_row("by RA", &by_ra(|s| s.lacuna_ms), &by_ra(|s| s.rustc_ms), "   (rejections rust-analyzer decided)");
    println!();
    println!("cold start to first verdict (new `lacuna check` process): {cold_ms:.0} ms");
    println!("checker start-up in process (std loaded): {startup_ms:.0} ms");
    println!(
        "first check after a new host (cold inference, {} hosts): p50 {:.0} ms",
        first_checks.len(),
        percentile(&first_checks, 50.0)
    );
    match peak {
        Some(mib) => println!("peak RSS of this process: {mib:.0} MiB"),
        None => println!("peak RSS: not available (no /proc/self/status)"),
    }
}
