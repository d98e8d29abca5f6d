//! A hole reached at run time, and where its snippets come from: the small interface between the engine (which
//! checks and runs snippets) and what proposes them (given snippets, a model in `lacuna-agent`). No compiler here.
//!
//! Where snippets come from. The engine asks a [`SnippetSource`] for a snippet each time execution reaches a
//! hole, checks it, and either runs it or hands the rejection back for another attempt. Given snippets
//! ([`GivenSnippets`]) and a model (`lacuna-agent`) are both sources; the engine's loop is the same.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod vocabulary;

pub use vocabulary::{DecidedBy, Outcome, Resource, TurnTimings};

/// One binding visible at a hole, as a prompt shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BindingInfo {
    pub name: String,
    /// The type as rust-analyzer renders it.
    pub ty: String,
    pub mutable: bool,
    /// False when the host has the binding moved or exclusively borrowed at the hole: a snippet cannot use it.
    pub available: bool,
}

/// What the code asked for is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// The block of a hole: its value is the hole's.
    Hole,
    /// A turn of a session: what it declares stays in scope for later turns; its final expression, if any, is
    /// its value, of any type.
    SessionTurn,
}

/// A hole reached at run time: everything a source needs to propose a snippet for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HoleRequest {
    pub kind: RequestKind,
    /// The host file's name.
    pub host: String,
    /// 1-based hole number in the host.
    pub site: u32,
    pub line: u32,
    pub column: u32,
    /// 1 for a hole reached from host code; one more for each snippet running below it on this thread.
    pub depth: u32,
    /// The task as the host evaluated it.
    pub task: String,
    /// The model named by `agent!(model, "task")`.
    pub model: Option<String>,
    /// `T` of the hole as Rust, when known.
    pub expected_type: Option<String>,
    /// The host's source with this hole replaced by [`HOLE_MARKER`].
    pub enclosing_source: String,
    pub bindings: Vec<BindingInfo>,
    /// Signatures of the functions and types the host defines.
    pub signatures: Vec<String>,
}

/// What marks the hole in [`HoleRequest::enclosing_source`].
pub const HOLE_MARKER: &str = "/* <HOLE> */";

/// An earlier attempt at the same hole call, as the source sees its outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attempt {
    /// The snippet tried, or `None` when the source produced no code (then `diagnostics` says why).
    pub snippet: Option<String>,
    pub accepted: bool,
    /// rustc-style diagnostics of a rejection, rendered.
    pub diagnostics: Vec<String>,
    /// The runtime error of an accepted snippet that faulted (only when the source asks to retry after faults).
    pub runtime_error: Option<String>,
}

/// A source's answer for one attempt.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Proposal {
    /// The snippet, or why there is none (a failed attempt: the reason is fed back like a diagnostic).
    pub snippet: Result<String, String>,
    /// Time spent obtaining it (the model call), in milliseconds.
    pub model_ms: f64,
    /// Tokens the model call took, when its provider reports them.
    pub tokens: Option<u64>,
    /// What the source wants in the trace for this attempt (prompt, reply, model name), as JSON.
    pub trace: serde_json::Value,
}

/// One attempt, complete: a line of the trace.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub site: u32,
    pub line: u32,
    pub depth: u32,
    /// 1-based attempt number within this call of the hole.
    pub attempt: u32,
    pub task: String,
    /// The source's part (prompt, reply, model).
    pub source: serde_json::Value,
    pub snippet: Option<String>,
    pub accepted: bool,
    pub decided_by: Option<DecidedBy>,
    pub diagnostics: Vec<String>,
    pub path: Option<ExecPath>,
    pub outcome: Outcome,
    pub error: Option<String>,
    pub timings_ms: AttemptTimings,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AttemptTimings {
    pub model: f64,
    pub check: f64,
    pub lower: f64,
    pub compile: f64,
    pub run: f64,
}

impl AttemptTimings {
    /// Adds `other`'s times to these (totals over attempts).
    pub fn add(&mut self, other: &AttemptTimings) {
        self.model += other.model;
        self.check += other.check;
        self.lower += other.lower;
        self.compile += other.compile;
        self.run += other.run;
    }
}

/// The way one snippet ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecPath {
    /// Compiled by Cranelift in-process.
    Jit,
    /// Compiled by rustc into a library loaded in-process.
    Rustc,
}

/// A supplier of snippets for holes.
pub trait SnippetSource: Send + Sync {
    /// The next snippet to try at `hole`, after `attempts` at this same call (empty the first time). `Ok(None)`:
    /// no further attempt (the hole is then `Rejected` with the last attempt's diagnostics). `Err`: the source
    /// failed (the hole is `HoleError::Model` with that message).
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String>;

    /// Whether an accepted snippet that faulted at run time is followed by another attempt. Off unless a source
    /// says so: a retry after a fault means code that ran (and may have had effects) is followed by more code.
    fn retry_after_fault(&self) -> bool {
        false
    }

    /// Sees every attempt once it is decided (and run, when accepted): for traces.
    fn record(&self, _record: &AttemptRecord) {}
}

/// Snippets given up front, by 1-based hole number: one attempt each, the same snippet at every call.
#[derive(Debug, Clone, Default)]
pub struct GivenSnippets(pub BTreeMap<u32, String>);

/// The message of a hole that has no snippet (the runtime's `__private::NO_SNIPPET`, so the error reads the same
/// under Lacuna and in a program compiled without it).
pub const NO_SNIPPET: &str = "no snippet was given for this hole";

impl SnippetSource for GivenSnippets {
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String> {
        if !attempts.is_empty() {
            return Ok(None);
        }
        let snippet = self.0.get(&hole.site).ok_or_else(|| NO_SNIPPET.to_owned())?;
        Ok(Some(Proposal { snippet: Ok(snippet.clone()), model_ms: 0.0, tokens: None, trace: serde_json::Value::Null }))
    }
}
