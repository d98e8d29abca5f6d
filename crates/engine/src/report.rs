//! What a run reports: per hole site, what was tried and how it went.

use lacuna_checker::Diagnostic;
use lacuna_hole::{DecidedBy, ExecPath, Outcome};
use serde::Serialize;

use crate::failure::HoleFailure;

/// Milliseconds per part of running one hole site, summed over its calls. The snippet's library is compiled
/// while rustc checks it, so `check + lower + compile + run` can exceed `total`, the wall time the host waited.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SiteTimings {
    /// Waiting for the snippet source (the model).
    pub model: f64,
    pub check: f64,
    pub lower: f64,
    pub compile: f64,
    pub run: f64,
    pub total: f64,
}

/// What happened at one hole site during a run.
#[derive(Debug, Clone, Serialize)]
pub struct SiteReport {
    pub site: u32,
    /// For a hole written inside a snippet: the site whose snippet it is in (`line` is then a line of that
    /// snippet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    pub line: u32,
    pub task: Option<String>,
    /// Times execution reached the hole.
    pub calls: u32,
    /// Snippets (or replies without code) tried, over all calls.
    pub attempts: u32,
    /// The last snippet's verdict; `None` when no snippet was given or the hole was never reached.
    pub accepted: Option<bool>,
    pub decided_by: Option<DecidedBy>,
    pub path: Option<ExecPath>,
    /// Why an accepted snippet did not run on the JIT (outside its subset), when it did not.
    pub not_jit: Option<String>,
    /// For a snippet that ran on the JIT after rustc's verdict: why the subset's own checks could not accept it
    /// without rustc.
    pub rustc_because: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the hole evaluated to the last time.
    pub outcome: Option<Outcome>,
    /// The last error the hole evaluated to, rendered.
    pub error: Option<String>,
    pub timings_ms: SiteTimings,
}

/// The result of running a host.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub host: String,
    /// The host process's exit status as a Rust program would report it (101 for a panic in `main`).
    pub exit_status: i32,
    pub host_compile_ms: f64,
    pub instrument_ms: f64,
    pub sites: Vec<SiteReport>,
}

impl SiteReport {
    pub(crate) fn new(site: u32, parent: Option<u32>, line: u32, task: Option<String>) -> SiteReport {
        SiteReport {
            site,
            parent,
            line,
            task,
            calls: 0,
            attempts: 0,
            accepted: None,
            decided_by: None,
            path: None,
            not_jit: None,
            rustc_because: None,
            diagnostics: Vec::new(),
            outcome: None,
            error: None,
            timings_ms: SiteTimings::default(),
        }
    }

    pub(crate) fn record_error(&mut self, failure: &HoleFailure) {
        self.outcome = Some(failure.outcome());
        self.error = Some(failure.to_string());
    }
}
