//! `lacuna run`: what it costs to accept and execute a snippet, against recompiling the program with rustc.
//!
//! Run: `cargo bench -p lacuna-cli --bench run` (add `-- --json` for a machine-readable summary, `-- --kernels`
//! for the kernel table alone, `-- --files a,b` for the cases of those testdata files only, `-- --skip-files a,b`
//! for all others; `-- --stages` for where the checker's time goes on the JIT's candidates).
//!
//! For every accepted testdata case that runs to completion (the differential suite's cases), in one process:
//! - lacuna, rustc path: the wall time the host waits at the hole: check, lower, compile (overlapped with rustc's
//!   check) and run, in the running host (cold artifact cache: a fresh cache directory, rustc's verdict memo off);
//! - baseline: what running the snippet costs without Lacuna: splice it into the host textually, compile the
//!   program with rustc (same debug flags) and run it.
//! - the JIT path (auto): the same snippets; the share that ran on the JIT, and for those, JIT against the rustc
//!   path on the same snippets;
//! - compute kernels in the JIT's subset, run on the JIT against the same code compiled by `rustc -O`.

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Budgets, Engine, PathChoice, RunOptions};
use lacuna_testdata::Expect;

mod common;
use common::{peak_rss_mib, percentile};

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    // `--kernels`: only the kernel table (no testdata cases).
    let kernels_only = std::env::args().any(|a| a == "--kernels");
    // `--files a,b`: only the cases of those testdata files (by stem); `--skip-files a,b`: all but those.
    let (only, skip) = (list("--files"), list("--skip-files"));
    // `--share`: only the auto path, one line per case that did not run on the JIT and why.
    if std::env::args().any(|a| a == "--share") {
        return share_by_case(only, skip);
    }
    // `--stages`: only the checker, stage by stage, on the snippets it leaves to the JIT's subset.
    if std::env::args().any(|a| a == "--stages") {
        return stages(only, skip);
    }
    let cases = if kernels_only { Vec::new() } else { runnable_cases(only, skip) };
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
        budgets: Budgets { fuel: 0, ..Budgets::default() },
        cache_dir: Some(cache.path().to_owned()),
        ..RunOptions::default()
    };
    let engine = Engine::new(checker, options).expect("engine starts");
    let auto_checker = Checker::new(CheckerOptions {
        memoize_rustc: false,
        cache_dir: Some(cache.path().to_owned()),
        ..CheckerOptions::default()
    })
    .expect("checker starts");
    let auto = Engine::new(
        auto_checker,
        RunOptions {
            path: PathChoice::Auto,
            // Kernels run long: no fuel limit here (the time limit still holds).
            budgets: Budgets { fuel: 0, ..Budgets::default() },
            cache_dir: Some(cache.path().to_owned()),
            ..RunOptions::default()
        },
    )
    .expect("engine starts");
    let mut auto_hosts = HashMap::new();
    let (mut jit_ms, mut jit_rustc_ms, mut jit_count) = (Vec::new(), Vec::new(), 0usize);
    // JIT-path holes apart by who accepted the snippet: the subset's own checks, or rustc.
    let (mut jit_subset_ms, mut jit_by_rustc_ms) = (Vec::new(), Vec::new());
    // Where the time of those decided without rustc goes: check, lower, compile, run.
    let mut subset_parts: [Vec<f64>; 4] = Default::default();
    let mut not_jit: HashMap<String, usize> = HashMap::new();
    let mut unreached = 0usize;
    let scratch = tempfile::tempdir().expect("temp dir");
    let mut hosts = HashMap::new();
    let (mut lacuna_ms, mut baseline_ms, mut host_ms) = (Vec::new(), Vec::new(), Vec::new());
    let (mut check_ms, mut compile_ms, mut exec_ms) = (Vec::new(), Vec::new(), Vec::new());
    let progress = indicatif::ProgressBar::new(cases.len() as u64);
    let mut inferred_hosts: HashMap<std::sync::Arc<str>, bool> = HashMap::new();
    for case in &cases {
        let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
        // A host whose hole only its snippet types is built per snippet (as `lacuna run --snippet` does).
        let typed_by_snippet = *inferred_hosts.entry(case.host.clone()).or_insert_with(|| inferred(&engine, case));
        let key = if typed_by_snippet { format!("{}\0{}", case.host, case.snippet) } else { case.host.to_string() };
        let host = hosts
            .entry(key.clone())
            .or_insert_with(|| {
                let host = engine.load_for("host.rs", &case.host, &snippets).expect("testdata hosts load");
                host_ms.push(host.compile_ms);
                host
            })
            .clone();
        let (_, report) =
            lacuna_engine::capture::stdout(|| engine.run(&host, snippets.clone())).expect("stdout can be captured");
        let report = report.expect("the host runs");
        let t = &report.sites[case.hole].timings_ms;
        lacuna_ms.push(t.total);
        check_ms.push(t.check);
        compile_ms.push(t.compile);
        exec_ms.push(t.run);
        let rustc_total = t.total;

        // The same snippet on the auto path.
        let auto_host = auto_hosts
            .entry(key)
            .or_insert_with(|| auto.load_for("host.rs", &case.host, &snippets).expect("testdata hosts load"))
            .clone();
        let (_, report) =
            lacuna_engine::capture::stdout(|| auto.run(&auto_host, snippets)).expect("stdout can be captured");
        let site = &report.expect("the host runs").sites[case.hole];
        if site.calls == 0 {
            // The host never reaches this hole with only this snippet given (it sits behind another hole's
            // value): no path ran it, so it counts for neither.
            unreached += 1;
        } else if site.path == Some(lacuna_engine::ExecPath::Jit) {
            jit_count += 1;
            jit_ms.push(site.timings_ms.total);
            jit_rustc_ms.push(rustc_total);
            match site.decided_by {
                Some(lacuna_engine::DecidedBy::JitSubset) => {
                    let t = &site.timings_ms;
                    jit_subset_ms.push(t.total);
                    for (part, ms) in subset_parts.iter_mut().zip([t.check, t.lower, t.compile, t.run]) {
                        part.push(ms);
                    }
                }
                _ => jit_by_rustc_ms.push(site.timings_ms.total),
            }
        } else if let Some(why) = &site.not_jit {
            // "<construct> at <line>:<column>": group by the construct.
            let why = why.rsplit_once(" at ").map_or(why.as_str(), |(construct, _)| construct).to_owned();
            *not_jit.entry(why).or_default() += 1;
        }

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
    let kernels = kernels(&auto, &rustc, scratch.path());
    let p = |v: &[f64], q| percentile(v, q);
    let reached = cases.len() - unreached;
    let share = jit_count as f64 / reached as f64;
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
                "jit_share": share,
                "unreached": unreached,
                "jit_path": {"n": jit_count, "p50_ms": p(&jit_ms, 50.0), "p90_ms": p(&jit_ms, 90.0),
                    "rustc_path_same_snippets_p50_ms": p(&jit_rustc_ms, 50.0),
                    "ratio_p50": p(&jit_rustc_ms, 50.0) / p(&jit_ms, 50.0),
                    "decided_without_rustc": {"n": jit_subset_ms.len(), "p50_ms": p(&jit_subset_ms, 50.0),
                        "p90_ms": p(&jit_subset_ms, 90.0), "check_p50_ms": p(&subset_parts[0], 50.0),
                        "lower_p50_ms": p(&subset_parts[1], 50.0), "compile_p50_ms": p(&subset_parts[2], 50.0),
                        "run_p50_ms": p(&subset_parts[3], 50.0)},
                    "decided_by_rustc": {"n": jit_by_rustc_ms.len(), "p50_ms": p(&jit_by_rustc_ms, 50.0),
                        "p90_ms": p(&jit_by_rustc_ms, 90.0)}},
                "kernels": kernels.iter().map(|(name, jit, native, checked)| serde_json::json!({
                    "name": name, "jit_ms": jit, "rustc_O_ms": native, "ratio": jit / native,
                    "rustc_O_overflow_checks_ms": checked, "ratio_overflow_checks": jit / checked}))
                    .collect::<Vec<_>>(),
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
    println!();
    println!(
        "JIT share (auto path): {jit_count} of {reached} reached holes ({:.0}%; {unreached} never reached)",
        share * 100.0
    );
    row("JIT path, wall time at the hole", &jit_ms);
    row(&format!("  decided without rustc ({})", jit_subset_ms.len()), &jit_subset_ms);
    for (name, part) in ["check", "lower", "compile", "run"].iter().zip(&subset_parts) {
        row(&format!("    of which {name}"), part);
    }
    row(&format!("  decided by rustc ({})", jit_by_rustc_ms.len()), &jit_by_rustc_ms);
    row("rustc path, same snippets", &jit_rustc_ms);
    println!("ratio rustc path/JIT on those (p50): {:.1}x", p(&jit_rustc_ms, 50.0) / p(&jit_ms, 50.0));
    let mut reasons: Vec<_> = not_jit.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("why the others did not run on the JIT (first construct outside the subset):");
    for (why, n) in reasons.iter().take(8) {
        println!("  {n:>4}  {why}");
    }
    println!();
    // The JIT keeps a debug build's overflow checks (the programs it is compared against in the tests panic where
    // it faults); `rustc -O` drops them, so the same code with them kept is shown too.
    println!(
        "{:<34} {:>11} {:>11} {:>8} {:>16} {:>8}",
        "kernel (fastest of 9 runs)", "JIT", "rustc -O", "ratio", "-O +overflow chk", "ratio"
    );
    for (name, jit, native, checked) in &kernels {
        println!(
            "{name:<34} {jit:>8.1} ms {native:>8.1} ms {:>7.2}x {checked:>13.1} ms {:>7.2}x",
            jit / native,
            jit / checked
        );
    }
    println!("host library compile (per host, {} hosts): p50 {:.0} ms", host_ms.len(), p(&host_ms, 50.0));
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS of this process: {mib:.0} MiB");
    }
}

/// A flag's comma-separated list (`--files a,b`).
fn list(flag: &str) -> Option<Vec<String>> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == flag)?;
    Some(args.get(at + 1)?.split(',').map(str::to_owned).collect())
}

/// A case's testdata file, by stem.
fn stem(case: &lacuna_testdata::Case) -> String {
    case.name.split('/').next().unwrap_or_default().to_owned()
}

/// The accepted testdata cases that run to completion, of the files `only` names (all without it) but those `skip`
/// names. Cases safe mode rejects run nothing under Lacuna (as plain programs they may reach the network).
fn runnable_cases(only: Option<Vec<String>>, skip: Option<Vec<String>>) -> Vec<lacuna_testdata::Case> {
    lacuna_testdata::load_all()
        .expect("testdata loads")
        .into_iter()
        .filter(|c| c.expect == Expect::Accepted && c.run.is_none() && c.allowed_by_policy())
        .filter(|c| only.as_ref().is_none_or(|o| o.contains(&stem(c))))
        .filter(|c| skip.as_ref().is_none_or(|s| !s.contains(&stem(c))))
        .collect()
}

/// The JIT share alone, with each case that missed it: what to widen the subset for next; then the share per
/// testdata file.
fn share_by_case(only: Option<Vec<String>>, skip: Option<Vec<String>>) {
    let cases = runnable_cases(only, skip);
    let mut per_file: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let cache = tempfile::tempdir().expect("temp dir");
    let checker =
        Checker::new(CheckerOptions { cache_dir: Some(cache.path().to_owned()), ..CheckerOptions::default() })
            .expect("checker starts");
    let auto = Engine::new(
        checker,
        RunOptions { path: PathChoice::Auto, cache_dir: Some(cache.path().to_owned()), ..RunOptions::default() },
    )
    .expect("engine starts");
    let mut hosts = HashMap::new();
    let mut jit_count = 0;
    let mut unreached = Vec::new();
    let progress = indicatif::ProgressBar::new(cases.len() as u64);
    let mut misses = Vec::new();
    let mut waited = Vec::new();
    let mut inferred_hosts: HashMap<std::sync::Arc<str>, bool> = HashMap::new();
    for case in &cases {
        let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
        let typed_by_snippet = *inferred_hosts.entry(case.host.clone()).or_insert_with(|| inferred(&auto, case));
        let key = if typed_by_snippet { format!("{}\0{}", case.host, case.snippet) } else { case.host.to_string() };
        let host = hosts
            .entry(key)
            .or_insert_with(|| auto.load_for("host.rs", &case.host, &snippets).expect("testdata hosts load"))
            .clone();
        // Under the case's own grants (`grant=time` for one that sleeps), as the differential suite runs it.
        auto.set_policy(case.policy());
        let (_, report) = lacuna_engine::capture::stdout(|| auto.run(&host, snippets)).expect("stdout can be captured");
        let site = &report.expect("the host runs").sites[case.hole];
        let file = per_file.entry(stem(case)).or_default();
        if site.calls > 0 {
            file.1 += 1;
        }
        if site.calls == 0 {
            unreached.push(case.name.clone());
        } else if site.path == Some(lacuna_engine::ExecPath::Jit) {
            jit_count += 1;
            file.0 += 1;
            if let Some(why) = &site.rustc_because {
                waited.push(format!("{:<48} {why}", case.name));
            }
        } else {
            let why = match (&site.not_jit, site.accepted) {
                (Some(why), _) => why.clone(),
                (None, Some(false)) => format!(
                    "(rejected in this run: {})",
                    site.diagnostics.first().map_or_else(|| "no diagnostic".to_owned(), |d| d.message.clone())
                ),
                (None, _) => format!("(not run: {})", site.error.as_deref().unwrap_or("no error given")),
            };
            misses.push(format!("{:<48} {why}", case.name));
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    for miss in &misses {
        println!("{miss}");
    }
    println!("\non the JIT after rustc's verdict ({} cases), because:", waited.len());
    for w in &waited {
        println!("{w}");
    }
    println!("\nnever reached with only their own snippet given ({}): {}", unreached.len(), unreached.join(", "));
    println!("\nper file (on the JIT / reached):");
    for (file, (jit, reached)) in &per_file {
        println!("  {file:<28} {jit:>4} / {reached:<4} {:>5.1}%", 100.0 * *jit as f64 / (*reached).max(1) as f64);
    }
    let reached = cases.len() - unreached.len();
    println!(
        "JIT share (auto path): {jit_count} of {reached} reached holes ({:.0}%)",
        100.0 * jit_count as f64 / reached as f64
    );
}

/// Where the check's time goes on the snippets rust-analyzer found clean (the JIT subset's candidates: the
/// `check` part of the time at the hole for those decided without rustc), stage by stage, p50 over the cases:
/// each snippet checked once as the timed mode does (its own first check), then the whole set again with one
/// statement added in front (a new body for rust-analyzer to infer, with what the first pass made of std warm).
/// The typed view the lowering reads is timed apart (it is part of `lower`).
fn stages(only: Option<Vec<String>>, skip: Option<Vec<String>>) {
    let cases = runnable_cases(only, skip);
    let cache = tempfile::tempdir().expect("temp dir");
    let mut checker =
        Checker::new(CheckerOptions { cache_dir: Some(cache.path().to_owned()), ..CheckerOptions::default() })
            .expect("checker starts");
    // Hosts prepared before anything is timed; a host whose hole only its snippet types has no one check.
    let mut prepared = HashMap::new();
    for case in &cases {
        if !prepared.contains_key(&case.host) {
            let host = checker.prepare("host.rs", &case.host).ok().filter(|p| !p.inferred.contains(&true));
            prepared.insert(case.host.clone(), host);
        }
    }
    println!(
        "{:<34} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}",
        "pass (p50, ms)", "n", "check", "parse", "r-a", "safe mode", "other", "typed view"
    );
    for (pass, lead) in [("each snippet's first check", ""), ("again, with a new body", "let _again = 0;\n")] {
        let mut parts: [Vec<f64>; 6] = Default::default();
        for case in &cases {
            let Some(Some(host)) = prepared.get(&case.host) else { continue };
            let snippet = format!("{lead}{}", case.snippet);
            let started = Instant::now();
            let Ok(lacuna_checker::Precheck::Pending(pending)) = checker.precheck(host, case.hole, &snippet) else {
                continue;
            };
            let check = started.elapsed().as_secs_f64() * 1e3;
            let t = pending.timings().clone();
            let started = Instant::now();
            let _ = checker.typed_snippet_in(host, &pending);
            let typed = started.elapsed().as_secs_f64() * 1e3;
            let policy = t.policy.unwrap_or(0.0);
            let other = check - t.parse - t.rust_analyzer - policy;
            for (part, ms) in parts.iter_mut().zip([check, t.parse, t.rust_analyzer, policy, other, typed]) {
                part.push(ms);
            }
        }
        let p50: Vec<f64> = parts.iter().map(|p| percentile(p, 50.0)).collect();
        println!(
            "{pass:<34} {:>5} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>11.2}",
            parts[0].len(),
            p50[0],
            p50[1],
            p50[2],
            p50[3],
            p50[4],
            p50[5]
        );
    }
}

/// Compute kernels in the JIT's subset: (name, body using `n`). Each is run at a hole on the JIT and, as the same
/// code, in a program compiled with `rustc -O`; both report only the kernel's own run time. (Kernels over the
/// host's data are in [`HOST_KERNELS`].)
const KERNELS: &[(&str, &str, i64)] = &[
    (
        "primes below n (trial division)",
        "let mut count = 0i64;\nlet mut k = 2i64;\nwhile k < n {\n    let mut d = 2i64;\n    let mut prime = true;\n    while d * d <= k {\n        if k % d == 0 {\n            prime = false;\n            break;\n        }\n        d += 1;\n    }\n    if prime {\n        count += 1;\n    }\n    k += 1;\n}\ncount",
        200_000,
    ),
    (
        "collatz steps for 1..n",
        "let mut total = 0i64;\nfor start in 1..n {\n    let mut x = start;\n    while x != 1 {\n        x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };\n        total += 1;\n    }\n}\ntotal",
        300_000,
    ),
    (
        "gcd sum over a grid",
        "fn gcd(a: i64, b: i64) -> i64 {\n    if b == 0 { a } else { gcd(b, a % b) }\n}\nlet mut s = 0i64;\nfor i in 1..n {\n    for j in 1..n {\n        s += gcd(i, j);\n    }\n}\ns",
        700,
    ),
    (
        "float series (pi by Leibniz)",
        "let mut acc = 0.0f64;\nlet mut sign = 1.0f64;\nfor k in 0..n {\n    acc += sign / (2 * k + 1) as f64;\n    sign = -sign;\n}\n(acc * 4.0 * 1000000.0) as i64",
        20_000_000,
    ),
    (
        "prime sieve (vec![true; n])",
        "let n = n as usize;\nlet mut sieve = vec![true; n];\nlet mut count = 0i64;\nlet mut i = 2;\nwhile i < n {\n    if sieve[i] {\n        count += 1;\n        let mut j = i * i;\n        while j < n {\n            sieve[j] = false;\n            j += i;\n        }\n    }\n    i += 1;\n}\ncount",
        5_000_000,
    ),
    (
        "sorting collected numbers",
        "let mut v: Vec<i64> = (0..n).map(|i| (i * 7919 + 13) % 1_000_003).collect();\nv.sort();\nv[(n / 2) as usize] + v[0] + v.len() as i64",
        1_000_000,
    ),
    (
        "string building (push_str, to_string)",
        "let mut s = String::new();\nfor i in 0..n {\n    s.push_str(&i.to_string());\n    s.push(',');\n}\ns.len() as i64",
        200_000,
    ),
    (
        "word counting (split_whitespace)",
        "let mut text = String::new();\nfor i in 0..n {\n    if i % 7 == 0 {\n        text.push_str(\"the\");\n    } else if i % 3 == 0 {\n        text.push_str(\"lacuna\");\n    } else {\n        text.push_str(\"hole\");\n    }\n    text.push(if i % 11 == 0 { '\\n' } else { ' ' });\n}\nlet mut words = 0i64;\nlet mut the = 0i64;\nlet mut long = 0i64;\nfor w in text.split_whitespace() {\n    words += 1;\n    if w == \"the\" {\n        the += 1;\n    }\n    if w.len() > 4 {\n        long += 1;\n    }\n}\nwords * 1_000_000_000 + the * 10_000 + long",
        1_000_000,
    ),
];

/// Kernels over data the host builds first: (name, items declared by the host, statements building the data from
/// `n`, body, n). The data is built outside the timed part on both sides.
const HOST_KERNELS: &[(&str, &str, &str, &str, i64)] = &[(
    "sorting structs (sort_by_key on the host's Vec)",
    "struct Rec {\n    id: i64,\n    score: i64,\n    name: String,\n}\n",
    "let mut recs: Vec<Rec> = (0..n).map(|i| Rec { id: i, score: (i * 7919 + 13) % 1_000_003, name: format!(\"r{i}\") }).collect();",
    "recs.sort_by_key(|r| r.score);\nrecs[0].id + recs[(n / 2) as usize].score + recs[recs.len() - 1].name.len() as i64",
    300_000,
)];

/// Measured runs of each kernel on each side (taking turns); the table shows the fastest.
const KERNEL_RUNS: usize = 9;

/// (name, JIT run time, `rustc -O` run time, `rustc -O -C overflow-checks=on` run time), in ms: each the fastest
/// of [`KERNEL_RUNS`].
fn kernels(auto: &Engine, rustc: &std::path::Path, scratch: &std::path::Path) -> Vec<(String, f64, f64, f64)> {
    let plain = KERNELS.iter().map(|&(name, body, n)| (name, "", "", body, n));
    let mut out = Vec::new();
    for (name, items, setup, body, n) in plain.chain(HOST_KERNELS.iter().copied()) {
        let host = format!(
            "{items}fn main() {{\n    let n: i64 = std::hint::black_box({n});\n    {setup}\n    let r: i64 = agent!(\"kernel\").unwrap();\n    println!(\"{{r}}\");\n}}\n"
        );
        let loaded = auto.load("kernel.rs", &host).expect("kernel host loads");
        let snippets = BTreeMap::from([(1u32, body.to_string())]);
        // Warm (verdict and compiled code cached), then measured: the snippet's run time only, the fastest of
        // `KERNEL_RUNS` (this machine's neighbours add noise only upwards).
        let _ = lacuna_engine::capture::stdout(|| auto.run(&loaded, snippets.clone()));
        let jit_run = || {
            let (out, report) =
                lacuna_engine::capture::stdout(|| auto.run(&loaded, snippets.clone())).expect("capture");
            let site = report.expect("kernel runs").sites[0].clone();
            assert_eq!(
                site.path,
                Some(lacuna_engine::ExecPath::Jit),
                "kernel {name} must be in the JIT's subset: {site:?}"
            );
            (out, site.timings_ms.run)
        };
        let (jit_out, _) = jit_run();
        let program = format!(
            "{items}fn main() {{\n    let n: i64 = std::hint::black_box({n});\n    {setup}\n    let t = std::time::Instant::now();\n    let r: i64 = {{\n{body}\n    }};\n    let e = t.elapsed();\n    println!(\"{{r}}\");\n    eprintln!(\"{{}}\", e.as_secs_f64() * 1e3);\n}}\n"
        );
        let source = scratch.join("kernel.rs");
        std::fs::write(&source, program).unwrap();
        let binaries: Vec<std::path::PathBuf> = ["off", "on"]
            .iter()
            .map(|checks| {
                let binary = scratch.join(format!("kernel-{checks}"));
                let built = Command::new(rustc)
                    .args(["--edition", "2021", "-O", "-C", &format!("overflow-checks={checks}"), "-o"])
                    .arg(&binary)
                    .arg(&source)
                    .output()
                    .unwrap();
                assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
                binary
            })
            .collect();
        // The three sides take turns, round after round, so a slower stretch of this machine falls on all of
        // them rather than on whichever side ran then.
        let mut best = [f64::INFINITY; 3];
        for _ in 0..KERNEL_RUNS {
            let (out, ms) = jit_run();
            assert_eq!(out, jit_out, "kernel {name}: the JIT's output changed between runs");
            best[0] = best[0].min(ms);
            for (side, binary) in binaries.iter().enumerate() {
                let ran = Command::new(binary).output().unwrap();
                assert_eq!(String::from_utf8_lossy(&ran.stdout), jit_out, "kernel {name}: JIT and rustc -O disagree");
                let ms: f64 = String::from_utf8_lossy(&ran.stderr).trim().parse().unwrap_or(f64::NAN);
                best[side + 1] = best[side + 1].min(ms);
            }
        }
        out.push((name.to_string(), best[0], best[1], best[2]));
    }
    out
}

/// Whether the case's host has a hole only its snippet types.
fn inferred(engine: &Engine, case: &lacuna_testdata::Case) -> bool {
    engine
        .with_checker(|c| c.prepare("host.rs", &case.host).map(|p| p.inferred.contains(&true)).unwrap_or(false))
        .unwrap_or(false)
}
