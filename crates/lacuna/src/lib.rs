//! Lacuna for a cargo project: `agent!("task")` is a typed hole, an expression of type `Result<T, HoleError>`
//! with `T` from its context, filled at run time by code a model writes, checked against the hole's scope
//! before any of it runs.
//!
//! ```
//! use lacuna::{agent, HoleError};
//!
//! fn shout(title: &str) -> Result<String, HoleError> {
//!     agent!(format!("`{title}` in capital letters"))
//! }
//!
//! // A plain build compiles holes; only a program run by Lacuna (`lacuna run`) has a model fill them.
//! let err = shout("release notes").unwrap_err();
//! assert!(err.to_string().contains("lacuna run"));
//! ```
//!
//! This crate is the same source Lacuna checks snippets against and links them with (the files of
//! `crates/checker/prelude/`, included here, `agent.rs` as a module; Lacuna's own build puts them in one file after
//! `header.rs`): one
//! definition of `agent!`, `HoleError`, the capabilities and `Classified`, not a copy.

#[path = "../../checker/prelude/agent.rs"]
mod agent_macro;

include!("../../checker/prelude/lacuna.rs");
include!("../../checker/prelude/budget.rs");
include!("../../checker/prelude/wait.rs");
include!("../../checker/prelude/cap.rs");
include!("../../checker/prelude/classified.rs");
include!("../../checker/prelude/retype.rs");
include!("../../checker/prelude/session.rs");
