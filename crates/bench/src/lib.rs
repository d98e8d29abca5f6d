//! `lacuna bench`: retry-heavy benchmark runs.
//!
//! - [`suite`]: a suite file (`suites/*.toml`): its host, its data and how tasks are scored.
//! - [`tau2`]: τ²-bench domains: tasks, their expected actions as Rust calls on the host's tools, the simulated
//!   user (scripted, or a model), and the oracle agent.
//! - [`browsecomp`]: BrowseComp-Plus: one `lacuna run` of a retrieval host per query, judged, with evidence
//!   recall, searches and rounds.
//! - [`worker`]: a `lacuna serve --stdio` child process the runner talks JSON-RPC to; a task is a session in it.
//! - [`runner`]: tasks of a suite (a shard of them, less those already recorded) on `-j` workers, one record each.
//! - [`record`]: what is recorded of a task (one JSON line), and reading records back.
//! - [`report`]: records merged across shards into the table the paper prints.
//!
//! The runner never computes a reward itself: the host's tools run in the worker, and the last turn of a task
//! compares the database the agent left with the one the task's expected actions leave.

pub mod browsecomp;
pub mod record;
pub mod report;
pub mod runner;
pub mod suite;
pub mod tau2;
pub mod worker;

pub use record::{RetrievalRecord, TaskRecord, TaskTimings};
pub use report::{Report, SuiteRow};
pub use runner::{Agent, RunOptions, Shard};
pub use suite::{Suite, SuiteKind};

/// Why a benchmark run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("reading {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path} is not a valid {what}: {detail}")]
    Parse { path: String, what: &'static str, detail: String },
    #[error("{0}")]
    Suite(String),
    #[error("the worker (`lacuna serve --stdio`) failed: {0}")]
    Worker(String),
    #[error("{0}")]
    Usage(String),
}

pub(crate) fn read(path: &std::path::Path) -> Result<String, BenchError> {
    std::fs::read_to_string(path).map_err(|source| BenchError::Io { path: path.display().to_string(), source })
}
