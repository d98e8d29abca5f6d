//! The `lacuna` crate as a host program sees it: `agent!`, `HoleError` and the prelude.
//!
//! This is the type-level surface that holes are checked against. rust-analyzer loads it as an in-memory crate,
//! and rustc gets it as an rlib compiled once per toolchain (cached by content), so both compilers see the same
//! items. Nothing here runs in `lacuna check`.

use std::fmt;

/// Why a hole produced no value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HoleError {
    /// No attempt was accepted; `diagnostics` are the last attempt's, rendered.
    Rejected { attempts: u32, diagnostics: Vec<String> },
    /// The accepted snippet faulted (panic, overflow, out-of-bounds, ...) at a line and column of the snippet.
    Runtime { message: String, line: u32, column: u32 },
    /// The snippet ran out of a budget (fuel, time, memory).
    Budget { resource: String, limit: u64 },
    /// Holes nested deeper than the configured cap.
    Depth { limit: u32 },
    /// The model could not be asked (network, authentication, malformed reply).
    Model { message: String },
}

impl fmt::Display for HoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HoleError::Rejected { attempts, diagnostics } => {
                write!(f, "no snippet was accepted after {attempts} attempt(s)")?;
                for d in diagnostics {
                    write!(f, "\n{d}")?;
                }
                Ok(())
            }
            HoleError::Runtime { message, line, column } => {
                write!(f, "the snippet faulted at {line}:{column}: {message}")
            }
            HoleError::Budget { resource, limit } => write!(f, "the snippet exceeded its {resource} budget ({limit})"),
            HoleError::Depth { limit } => write!(f, "holes nested deeper than {limit}"),
            HoleError::Model { message } => write!(f, "model error: {message}"),
        }
    }
}

impl std::error::Error for HoleError {}

/// A typed hole: `agent!("task")` or `agent!(model, "task")`, an expression of type `Result<T, HoleError>`.
#[macro_export]
macro_rules! agent {
    ($model:ident, $task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::Some(::core::stringify!($model)), $task)
    };
    ($task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::None, $task)
    };
}

#[doc(hidden)]
pub mod __private {
    /// The value of a hole that no snippet filled. `lacuna check` only types it; `lacuna run` replaces each hole
    /// before anything executes.
    pub fn hole<T, S: AsRef<str>>(model: Option<&'static str>, task: S) -> Result<T, crate::HoleError> {
        let _ = (model, task.as_ref());
        Err(crate::HoleError::Rejected { attempts: 0, diagnostics: Vec::new() })
    }

    /// A value of any type, for the checker to ask rustc whether a hole's type is what it thinks. Never called.
    pub fn placeholder<T>() -> T {
        unreachable!("lacuna's type probe is checked, never run")
    }
}

/// `use lacuna::prelude::*;` brings in what a host needs. Hosts run by `lacuna` have it without the import.
pub mod prelude {
    pub use crate::agent;
    pub use crate::HoleError;
}
