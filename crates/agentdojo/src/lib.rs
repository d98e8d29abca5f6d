//! AgentDojo's four suites — banking, slack, travel, workspace — on Lacuna (paper §7.4, Table 3).
//!
//! - [`suite`]: the suites' data (environment with its `!include`s, injection vectors, ground truth) and their
//!   tools' signatures.
//! - [`environment`]: a suite's environment as the Rust constructor its host calls.
//! - [`generate`]: a suite's host, a cargo project using `serde_json` — the tools ported to Rust (`hosts/<suite>.rs`, with the calendar and email
//!   clients travel and workspace share in `hosts/office.rs`), the environment (JSON the host deserializes) with the injection
//!   vectors filled in as AgentDojo's loader does, AgentDojo's own checks ported (`hosts/<suite>_checks.rs`), and one function per
//!   user task whose hole is handed only the tools that task's ground truth uses.
//! - [`script`]: a task's ground-truth calls as the snippet a model would write.
//! - [`harness`]: utility (scripted ground-truth replies under per-task scoping) and attacks (a fully compromised
//!   model performing an injection task's calls, under per-task scoping and with every tool in scope), each run
//!   judged by comparing environments and by AgentDojo's checks.

pub mod environment;
pub mod generate;
pub mod harness;
pub mod script;
pub mod suite;

pub use harness::{
    run_suite, run_suite_with_model, AttackRow, Check, ModelAttackRow, ModelReplies, ModelReport, ModelUtilityRow,
    Selection, Setup, SuiteReport, UtilityRow,
};
pub use suite::{SuiteData, SuiteName};

/// Why a suite could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum DojoError {
    #[error("reading {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path} is not valid {format}: {detail}")]
    Parse { path: String, format: &'static str, detail: String },
    #[error("{0}")]
    Data(String),
    #[error("running the suite: {0}")]
    Engine(String),
}
