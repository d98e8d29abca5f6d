//! Lacuna as a long-lived service: JSON-RPC 2.0 over stdio (one message per line) or HTTP, for benchmark
//! drivers, editors and agent frameworks.
//!
//! - [`protocol`]: JSON-RPC messages and error codes (pure).
//! - [`methods`]: the methods and their parameters (the contract).
//! - [`pool`]: checkers on worker threads, each keeping the hosts it prepared warm.
//! - [`server`]: one message in, at most one response out; cancellation and time limits.
//! - [`stdio`], [`http`]: the transports.
//! - [`run`]: `run` requests, each in its own `lacuna run` process.
//! - [`sessions`]: `session.*`, each session in a worker process of its own.

pub mod http;
pub mod methods;
pub mod pool;
pub mod protocol;
pub mod run;
pub mod server;
pub mod sessions;
pub mod stdio;

use lacuna_checker::{PreparedHost, Verdict};
use serde_json::{json, Value};

pub use pool::{CheckPool, CheckerFactory};
pub use run::RunCommand;
pub use server::{Service, ServiceOptions};
pub use sessions::{
    project_dir, EngineFactory, Hosting, LocalSessions, ModelFactory, Sessions, WorkerCommand, WorkerSessions,
};

/// The object `lacuna check --json` prints for one verdict (and the `check` method answers with).
pub fn verdict_json(
    host: Option<&str>,
    snippet: Option<&str>,
    prepared: &PreparedHost,
    hole: usize,
    verdict: &Verdict,
) -> Value {
    let t = &verdict.timings;
    let mut timings = json!({"check": t.check, "parse": t.parse, "rust_analyzer": t.rust_analyzer});
    if let Some(r) = t.rustc {
        timings["rustc"] = json!(r);
    }
    let mut line = json!({
        "host": host,
        "snippet": snippet,
        "hole": hole + 1,
        "task": prepared.host.holes[hole].task,
        "accepted": verdict.accepted,
        "expected_type": verdict.expected_type,
        "decided_by": verdict.decided_by,
        "diagnostics": verdict.diagnostics,
        "timings_ms": timings,
    });
    if !verdict.notes.is_empty() {
        line["notes"] = json!(verdict.notes);
    }
    line
}
