//! The run path: everything between an accepted verdict and a hole's value.
//!
//! `lacuna run` compiles the host — with each hole replaced by a call that hands Lacuna the hole's binding table
//! (see [`instrument`]) — as a library and loads it into its own process, then calls the host's `main` on a
//! thread of its own. When execution reaches a hole, the host calls Lacuna's hook: the engine asks a
//! [`SnippetSource`] for a snippet, checks it against the call site ([`lacuna_checker::Checker::check`]); a
//! rejected snippet runs nothing and its diagnostics go back to the source for another attempt, until the source
//! gives up and the hole evaluates to `Err(HoleError::Rejected { .. })`. An accepted one runs right there, against
//! the host's live bindings, and its value comes back as `Ok(value)`.
//!
//! An accepted snippet runs on one of two paths: the Cranelift JIT (`lacuna-jit`) when the lowering
//! (`lacuna-lowering`) finds it in the JIT's subset, or the rustc path ([`rustc_path`]), which compiles it together
//! with a copy of the host's items into a library, cached by content, and loads it into the same process.
//!
//! Faults in a snippet (panics, arithmetic overflow, out-of-bounds, exhausted fuel, time, stack or memory
//! budgets) end the snippet and make the hole `Err(HoleError::Runtime { .. })` or `Err(HoleError::Budget { .. })`;
//! the host goes on.

mod abi;
mod build;
pub mod capture;
mod failure;
mod instrument;
mod jit_path;
mod load;
mod nested;
mod options;
mod report;
mod runner;
#[cfg(test)]
mod runtime_lints;
mod rustc_path;
mod session;
mod site;
mod watchdog;

pub use capture::protocol_stdout;
pub use lacuna_hole::{
    Attempt, AttemptRecord, AttemptTimings, BindingInfo, DecidedBy, ExecPath, GivenSnippets, HoleRequest, Outcome,
    Proposal, RequestKind, Resource, SnippetSource, TurnTimings, HOLE_MARKER, NO_SNIPPET,
};
pub use load::LoadedHost;
pub use options::{Budgets, PathChoice, RunOptions};
pub use report::{RunReport, SiteReport, SiteTimings};
pub use runner::Engine;
pub use session::{Session, SessionLocal, TranscriptTurn, TurnOutcome};

/// Something that stops a run (not a snippet's fault or rejection: those are values of the hole).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Checker(#[from] lacuna_checker::CheckerError),
    #[error("{detail}")]
    Io { detail: String },
    #[error("Lacuna could not instrument the host's holes: {detail}")]
    Instrument { detail: String },
    #[error("the host does not compile as a library Lacuna can load: {detail}")]
    HostBuild { detail: String },
    #[error("loading {path}: {detail}")]
    Load { path: String, detail: String },
    #[error("{detail}")]
    Unsupported { detail: String },
    #[error("{host} has no `fn main()`; `lacuna run` runs a program")]
    NoMain { host: String },
    #[error(
        "{host}: the type of hole {hole} (line {line}) is settled only by its snippet, and `lacuna run` compiles the \
         host before a model writes one; give the hole's value a type the host fixes (e.g. `let n: i32 = \
         agent!(..).unwrap();`, then use `n`), or give its snippet up front (`--snippet {hole}=FILE`)"
    )]
    InferredHole { host: String, hole: usize, line: u32 },
    #[error(
        "{host}: the type of hole {hole} (line {line}) is settled only by its snippet, which is rejected, so the \
         host cannot be compiled:\n{diagnostics}"
    )]
    InferredHoleRejected { host: String, hole: usize, line: u32, diagnostics: String },
    #[error(
        "{host}: hole {hole} (line {line}) would have the type its snippet settles ({ty}), which cannot be written \
         at the hole; give the hole's value a type the host fixes"
    )]
    InferredHoleUnwritable { host: String, hole: usize, line: u32, ty: String },
    #[error("internal error: {detail}")]
    Internal { detail: String },
}

impl ExecError {
    pub(crate) fn unsupported(detail: impl Into<String>) -> ExecError {
        ExecError::Unsupported { detail: detail.into() }
    }
}

/// Milliseconds since `started`, to the microsecond.
pub(crate) fn ms(started: std::time::Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e6).round() / 1e3
}
