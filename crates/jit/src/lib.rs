//! Running accepted snippets in-process.
//!
//! `lacuna run` compiles the host — with each hole replaced by a call that hands Lacuna the hole's binding table
//! (see [`instrument`]) — as a library and loads it into its own process, then calls the host's `main` on a
//! thread of its own. When execution reaches a hole, the host calls Lacuna's hook: the snippet for that hole is
//! checked against the call site ([`lacuna_checker::Checker::check`]); a rejected snippet runs nothing and the
//! hole evaluates to `Err(HoleError::Rejected { .. })`; an accepted one runs right there, against the host's live
//! bindings, and its value comes back as `Ok(value)`.
//!
//! The rustc path ([`snippet`]) compiles an accepted snippet together with a copy of the host's items into a
//! library, cached by content, and loads it into the same process. (The Cranelift path for a subset of Rust is
//! not built yet; every snippet runs on the rustc path.)
//!
//! Faults in a snippet (panics, arithmetic overflow, out-of-bounds, exhausted fuel, time, stack or memory
//! budgets) end the snippet and make the hole `Err(HoleError::Runtime { .. })` or `Err(HoleError::Budget { .. })`;
//! the host goes on.
//!
//! This is the only crate with `unsafe` code: loading libraries, calling into them, and the ABI both sides share.

mod build;
pub mod codegen;
mod heap;
pub mod instrument;
mod map;
mod runner;
pub mod snippet;
pub mod source;
mod text;

pub use build::{BuildFailure, Builder, Built};
pub use runner::{Budgets, Engine, ExecPath, LoadedHost, PathChoice, RunOptions, RunReport, SiteReport, SiteTimings};
pub use source::{
    Attempt, AttemptRecord, AttemptTimings, BindingInfo, GivenSnippets, HoleRequest, Proposal, SnippetSource,
    HOLE_MARKER, NO_SNIPPET,
};

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
    #[error("internal error: {detail}")]
    Internal { detail: String },
}

impl ExecError {
    pub(crate) fn unsupported(detail: impl Into<String>) -> ExecError {
        ExecError::Unsupported { detail: detail.into() }
    }
}
