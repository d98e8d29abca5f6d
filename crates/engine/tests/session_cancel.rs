//! A turn cancelled while it runs stops where it is, on either path: a fault that says so, keeping what the turn
//! changed before it stopped (as any fault does). The session's interrupt is what the service sets per request.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Budgets, Engine, ExecPath, RunOptions, Session};

/// A host whose function leaves a file behind: the test's sign that a turn calling it runs.
fn host(signal: &std::path::Path) -> String {
    format!(
        "fn started() {{\n    std::fs::write({:?}, \"\").expect(\"the test's directory is writable\");\n}}\n\nfn main() {{\n    let n: Result<u64, lacuna::HoleError> = agent!(\"a number\");\n}}\n",
        signal.display().to_string()
    )
}

/// Runs `turn` in `session` on another thread, sets the session's interrupt once `signal` exists, and returns
/// the turn's outcome.
fn cancel_once_running(
    engine: &Engine,
    session: &mut Session,
    signal: &std::path::Path,
    turn: &str,
) -> lacuna_engine::TurnOutcome {
    let interrupt = Arc::new(AtomicBool::new(false));
    session.set_interrupt(Some(interrupt.clone()));
    std::thread::scope(|scope| {
        let running = scope.spawn(|| engine.session_turn(session, turn));
        let started = Instant::now();
        while !signal.exists() && started.elapsed() < Duration::from_secs(120) && !running.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
        interrupt.store(true, Ordering::Relaxed);
        running.join().expect("the turn's thread").expect("the turn ran")
    })
}

#[test]
fn a_turn_cancelled_while_it_runs_stops_on_either_path() {
    // No fuel limit, a time limit far off: only the cancel stops these loops soon.
    let options =
        RunOptions { budgets: Budgets { fuel: 0, time_ms: 120_000, ..Budgets::default() }, ..RunOptions::default() };
    let engine =
        Engine::new(Checker::new(CheckerOptions::default()).expect("checker starts"), options).expect("engine");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let signal = dir.path().join("started");
    let mut session = Session::from_host(&host(&signal)).expect("the host parses");
    let first = engine.session_turn(&mut session, "let mut count: u64 = 0;\ncount").expect("the turn ran");
    assert_eq!(first.value.as_deref(), Some("0"), "{first:?}");

    // Scalar work on an earlier local: the JIT's.
    let jit = cancel_once_running(
        &engine,
        &mut session,
        &signal,
        "started();\nwhile count < u64::MAX {\n    count += 1;\n}\ncount",
    );
    assert_eq!(jit.path, Some(ExecPath::Jit), "{jit:?}");
    assert!(jit.error.as_deref().is_some_and(|e| e.contains("cancelled")), "{jit:?}");
    std::fs::remove_file(&signal).expect("the signal was left");

    // Strings: rustc's.
    let rustc = cancel_once_running(
        &engine,
        &mut session,
        &signal,
        "started();\nlet mut shown = String::new();\nwhile count < u64::MAX {\n    shown = count.to_string();\n    count += 1;\n}\nshown.len()",
    );
    assert_eq!(rustc.path, Some(ExecPath::Rustc), "{rustc:?}");
    assert!(rustc.error.as_deref().is_some_and(|e| e.contains("cancelled")), "{rustc:?}");

    // What the loops counted before they stopped stays; the session goes on.
    session.set_interrupt(None);
    let after = engine.session_turn(&mut session, "count > 0").expect("the turn ran");
    assert_eq!(after.value.as_deref(), Some("true"), "{after:?}");
    engine.close_session(session);
}
