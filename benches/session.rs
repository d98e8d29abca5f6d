//! Session turns: latency on the JIT path and on the rustc path, how it grows with the number of earlier turns,
//! and the memory of an engine holding 20 sessions.
//!
//! Run: `cargo bench -p lacuna-cli --bench session` (`-- --turns N` for a longer session; default 200).
//!
//! Growth: in one session every turn adds a local computed from the last one; in another every fifth turn also
//! declares a function, so later turns check and build against more code. The latency at 10, 50 and 200 earlier
//! turns is the median of the 5 turns around that point, with its parts (check, host build, run).

use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, ExecPath, RunOptions, Session};

#[allow(dead_code)] // not every bench uses every helper
mod common;
use common::{peak_rss_mib, percentile};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let length: usize =
        args.iter().position(|a| a == "--turns").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(200);
    // A cache of its own: every host is built in this run (a turn's host text is the same from run to run).
    let cache = tempfile::tempdir().expect("a temporary directory");
    let options = RunOptions { cache_dir: Some(cache.path().to_owned()), ..RunOptions::default() };
    let engine =
        Engine::new(Checker::new(CheckerOptions::default()).expect("checker starts"), options).expect("engine starts");
    let phases = std::cell::RefCell::new(Vec::<lacuna_engine::TurnTimings>::new());
    let turn = |session: &mut Session, text: &str| -> (f64, Option<ExecPath>) {
        let started = Instant::now();
        let outcome = engine.session_turn(session, text).expect("the turn runs");
        assert!(outcome.accepted && outcome.error.is_none(), "{text}: {outcome:?}");
        phases.borrow_mut().push(outcome.timings_ms);
        (started.elapsed().as_secs_f64() * 1e3, outcome.path)
    };

    // Warm-up: the checker's and the builder's first use.
    let mut warm = Session::new();
    turn(&mut warm, "let w = 1;\nw + 1");

    // Per path: 20 turns each on a short session.
    let mut jit = Vec::new();
    let mut rustc = Vec::new();
    let mut session = Session::new();
    turn(&mut session, "let mut n: i64 = 1;\nlet mut words: Vec<String> = Vec::new();");
    for i in 0..20 {
        let (ms, path) = turn(&mut session, &format!("n = n * 3 % 1000 + {i};\nn"));
        if path == Some(ExecPath::Jit) {
            jit.push(ms)
        } else {
            rustc.push(ms)
        }
        let (ms, path) = turn(&mut session, &format!("words.push(format!(\"w{i}\"));\nwords.join(\",\").len()"));
        if path == Some(ExecPath::Jit) {
            jit.push(ms)
        } else {
            rustc.push(ms)
        }
    }
    println!("session turns: latency by path (a short session)\n");
    println!("{:<12} {:>6} {:>10} {:>10}", "path", "turns", "p50", "p90");
    for (name, v) in [("jit", &jit), ("rustc", &rustc)] {
        println!("{name:<12} {:>6} {:>7.1} ms {:>7.1} ms", v.len(), percentile(v, 50.0), percentile(v, 90.0));
    }

    // Growth: two long sessions. In one, every turn adds a value (computed from the last); in the other, every
    // fifth turn also declares a function, so the session's code grows too.
    type Turn = fn(usize) -> String;
    let series: [(&str, Turn); 2] = [
        ("each adding a local computed from the last", |i| match i {
            0 => "let v0: i64 = 1;\nv0".to_owned(),
            _ => format!("let v{i}: i64 = v{} * 3 % 1000 + {i};\nv{i} + 1", i - 1),
        }),
        ("each adding a local, and every fifth a function", |i| match i % 5 {
            0 => format!("fn f{i}(x: i64) -> i64 {{ x + {i} }}\nlet v{i}: i64 = f{i}(1);\nv{i}"),
            _ => format!("let v{i}: i64 = {i} * 2;\nv{i} + 1"),
        }),
    ];
    for (what, text) in series {
        let mut long = Session::new();
        let mut at = Vec::new();
        phases.borrow_mut().clear();
        for i in 0..length {
            at.push(turn(&mut long, &text(i)).0);
        }
        engine.close_session(long);
        println!("\ngrowth: one session of {length} turns, {what}\n");
        let phases = phases.borrow().clone();
        type Part = fn(&lacuna_engine::TurnTimings) -> f64;
        let parts: [(&str, Part); 3] =
            [("check", |t| t.check), ("host_compile", |t| t.host_compile), ("run", |t| t.run)];
        print!("{:<16} {:>10}", "earlier turns", "p50");
        for (name, _) in parts {
            print!(" {name:>14}");
        }
        println!();
        let row = |label: String, turns: Vec<usize>| {
            let of = |v: Vec<f64>| percentile(&v, 50.0);
            print!("{label:<16} {:>7.1} ms", of(turns.iter().map(|&i| at[i]).collect()));
            for (_, part) in parts {
                print!(" {:>11.1} ms", of(turns.iter().map(|&i| part(&phases[i])).collect()));
            }
            println!();
        };
        let points: Vec<usize> = [10usize, 50, 200].into_iter().filter(|p| *p <= length).collect();
        for &point in &points {
            row(point.to_string(), (point.saturating_sub(3)..(point + 2).min(at.len())).collect());
        }
        // The turns that declare an item recompile the code they share a unit with: shown on their own (the
        // ones among the 20 turns around each point).
        let declaring: Vec<usize> = (0..at.len()).filter(|&i| text(i).starts_with("fn ")).collect();
        if !declaring.is_empty() {
            println!("of which, the turns that declare a function:");
            for &point in &points {
                let near = declaring.iter().copied().filter(|&i| i + 10 >= point && i < point + 10).collect();
                row(point.to_string(), near);
            }
        }
    }

    // Memory: 20 sessions of 5 turns each, all open.
    let mut sessions: Vec<Session> = (0..20).map(|_| Session::new()).collect();
    for (s, session) in sessions.iter_mut().enumerate() {
        for t in 0..5 {
            turn(session, &format!("let data{t}: Vec<u64> = (0..1000u64).map(|x| x * {s}).collect();\ndata{t}.len()"));
        }
    }
    println!("\npeak RSS of this process with 20 sessions open: {:.0} MiB", peak_rss_mib().unwrap_or(f64::NAN));
    for session in sessions {
        engine.close_session(session);
    }
}
