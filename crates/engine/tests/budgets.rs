//! Every budget on each path: a snippet that runs away is stopped, and the host's `HoleError::Budget` names the
//! resource and the limit the run was given — time with fuel on and with fuel off included (the time limit is a
//! time limit, not a fuel estimate). Timings are not asserted.

use std::collections::BTreeMap;
use std::sync::Mutex;

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Budgets, Engine, ExecPath, PathChoice, RunOptions};

const HOST: &str = r#"fn main() {
    let outcome: Result<i64, HoleError> = agent!("run until a budget stops you");
    match outcome {
        Err(HoleError::Budget { resource, limit }) => println!("{resource} {limit}"),
        Ok(v) => println!("finished {v}"),
        Err(e) => println!("other: {e}"),
    }
}
"#;

const SPIN: &str = "let mut i: i64 = 0;\nwhile i >= 0 {\n    i = (i + 1) % 1000;\n}\ni";
const GROW: &str = "let mut v: Vec<i64> = Vec::new();\nwhile v.len() < usize::MAX {\n    v.push(7);\n}\nv.len() as i64";
const RECURSE: &str =
    "fn depth(n: i64) -> i64 {\n    if n == 0 { 0 } else { 1 + depth(n - 1) }\n}\ndepth(1_000_000_000)";

/// A host function that takes a while, and counts its calls.
const SLOW_HOST: &str = r#"use std::sync::atomic::{AtomicUsize, Ordering};

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn slow_step() -> i64 {
    CALLS.fetch_add(1, Ordering::SeqCst);
    std::thread::sleep(std::time::Duration::from_millis(20));
    1
}

fn main() {
    let outcome: Result<i64, HoleError> = agent!("call slow_step until a budget stops you");
    match outcome {
        Err(HoleError::Budget { resource, limit }) => println!("{resource} {limit}"),
        Ok(v) => println!("finished {v}"),
        Err(e) => println!("other: {e}"),
    }
    println!("calls below a thousand: {}", CALLS.load(Ordering::SeqCst) < 1000);
}
"#;

const CALL_SLOW: &str = "let mut total = 0;\nwhile total >= 0 {\n    total += slow_step();\n}\ntotal";

/// Runs take the process's stdout one at a time.
static STDOUT: Mutex<()> = Mutex::new(());

fn run(path: PathChoice, budgets: Budgets, snippet: &str) -> (String, Option<ExecPath>) {
    run_in(HOST, path, budgets, snippet)
}

fn run_in(host: &str, path: PathChoice, budgets: Budgets, snippet: &str) -> (String, Option<ExecPath>) {
    let _one = STDOUT.lock().unwrap_or_else(|e| e.into_inner());
    let checker = Checker::new(CheckerOptions::default()).expect("the checker starts");
    let engine =
        Engine::new(checker, RunOptions { path, budgets, ..RunOptions::default() }).expect("the engine starts");
    let host = engine.load("host.rs", host).expect("the host loads");
    let (stdout, report) =
        lacuna_engine::capture::stdout(|| engine.run(&host, BTreeMap::from([(1, snippet.to_owned())])))
            .expect("stdout is captured");
    let report = report.expect("the run completes");
    (stdout, report.sites[0].path)
}

fn budgets(fuel: u64, time_ms: u64, memory_bytes: u64) -> Budgets {
    Budgets { fuel, time_ms, memory_bytes }
}

fn check(path: PathChoice, budgets: Budgets, snippet: &str, expected: &str) {
    let (stdout, ran_on) = run(path, budgets, snippet);
    let want = match path {
        PathChoice::Jit => Some(ExecPath::Jit),
        PathChoice::Rustc => Some(ExecPath::Rustc),
        PathChoice::Auto => ran_on,
    };
    assert_eq!(ran_on, want, "ran on the wrong path");
    assert_eq!(stdout.trim_end(), expected, "on {path:?} with {budgets:?}");
}

#[test]
fn fuel_on_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        check(path, budgets(200_000, 0, 0), SPIN, "fuel 200000");
    }
}

#[test]
fn time_with_fuel_on_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        check(path, budgets(u64::MAX / 2, 300, 0), SPIN, "time 300");
    }
}

#[test]
fn time_with_fuel_off_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        check(path, budgets(0, 300, 0), SPIN, "time 300");
    }
}

/// Time spent in host calls counts: the JIT looks at its interrupt after each one, and a rustc-path snippet reads
/// its clock once its run's deadline has passed, not only every so many fuel counts (a thousand 20 ms calls would
/// be 20 s past a 200 ms budget).
#[test]
fn time_in_host_calls_on_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        let (stdout, ran_on) = run_in(SLOW_HOST, path, budgets(0, 200, 0), CALL_SLOW);
        assert_eq!(ran_on, Some(if path == PathChoice::Jit { ExecPath::Jit } else { ExecPath::Rustc }));
        assert_eq!(stdout.trim_end(), "time 200\ncalls below a thousand: true", "on {path:?}");
    }
}

#[test]
fn memory_on_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        check(path, budgets(0, 20_000, 8 << 20), GROW, &format!("memory {}", 8 << 20));
    }
}

#[test]
fn stack_on_each_path() {
    for path in [PathChoice::Jit, PathChoice::Rustc] {
        let (stdout, ran_on) = run(path, budgets(0, 20_000, 0), RECURSE);
        let mut words = stdout.split_whitespace();
        assert_eq!(words.next(), Some("stack"), "on {path:?}: {stdout}");
        let limit: u64 = words.next().and_then(|w| w.parse().ok()).expect("a limit");
        assert!(limit > 0, "on {path:?}: {stdout}");
        assert_eq!(ran_on, Some(if path == PathChoice::Jit { ExecPath::Jit } else { ExecPath::Rustc }));
    }
}
