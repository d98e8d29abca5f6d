//! Why a hole evaluated to an error, as the engine keeps it: [`HoleFailure`], the engine's own form of the
//! runtime's `HoleError`. It becomes text only at the FFI ([`HoleFailure::encode`], decoded by the prelude's
//! `lacuna::__private::decode_error`).

use std::fmt;

use lacuna_hole::Outcome;
pub(crate) use lacuna_hole::Resource;

/// What a hole evaluated to when it did not evaluate to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HoleFailure {
    /// Every attempt was rejected; the last one's diagnostics, rendered.
    Rejected { attempts: usize, diagnostics: Vec<String> },
    /// The accepted snippet faulted, at a 1-based line and column of the snippet (0 when unknown).
    Runtime { message: String, line: usize, column: usize },
    /// The accepted snippet ran out of a budget: `limit` in the resource's unit (fuel, milliseconds, bytes), as
    /// the run's options gave it; the host's `HoleError::Budget` carries the same number.
    Budget { resource: Resource, limit: u64 },
    /// The source of snippets (a model) failed, or the engine could not serve the hole.
    Model { message: String },
    /// Holes nested deeper than the run allows.
    Depth { limit: u32 },
}

impl HoleFailure {
    pub(crate) fn model(message: impl Into<String>) -> HoleFailure {
        HoleFailure::Model { message: message.into() }
    }

    /// A fault whose place in the snippet is unknown.
    pub(crate) fn runtime(message: impl Into<String>) -> HoleFailure {
        HoleFailure::Runtime { message: message.into(), line: 0, column: 0 }
    }

    /// How the hole's call ended, as reports and traces name it.
    pub(crate) fn outcome(&self) -> Outcome {
        match self {
            HoleFailure::Rejected { .. } => Outcome::Rejected,
            HoleFailure::Runtime { .. } => Outcome::Runtime,
            HoleFailure::Budget { resource, .. } => Outcome::Budget(*resource),
            HoleFailure::Model { .. } => Outcome::Model,
            HoleFailure::Depth { .. } => Outcome::Depth,
        }
    }

    /// The form the runtime decodes (`lacuna::__private::decode_error`): a kind, then fields, separated by
    /// U+001F. Only the hook calls this, as it hands the error to the host.
    pub(crate) fn encode(&self) -> String {
        let fields: Vec<String> = match self {
            HoleFailure::Rejected { attempts, diagnostics } => {
                ["rejected".to_owned(), attempts.to_string()].into_iter().chain(diagnostics.iter().cloned()).collect()
            }
            HoleFailure::Runtime { message, line, column } => {
                vec!["runtime".into(), message.clone(), line.to_string(), column.to_string()]
            }
            HoleFailure::Budget { resource, limit } => vec!["budget".into(), resource.name().into(), limit.to_string()],
            HoleFailure::Model { message } => vec!["model".into(), message.clone()],
            HoleFailure::Depth { limit } => vec!["depth".into(), limit.to_string()],
        };
        fields.join("\u{1f}")
    }
}

/// As reports show it.
impl fmt::Display for HoleFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HoleFailure::Rejected { attempts, diagnostics } => {
                write!(f, "rejected after {attempts} attempt(s) with {} error(s)", diagnostics.len())
            }
            HoleFailure::Runtime { message, line: 0, .. } => write!(f, "runtime fault: {message}"),
            HoleFailure::Runtime { message, line, column } => write!(f, "runtime fault at {line}:{column}: {message}"),
            HoleFailure::Budget { resource, limit } => {
                write!(f, "exceeded the {} budget ({limit}{})", resource.name(), resource.unit())
            }
            HoleFailure::Model { message } => write!(f, "model: {message}"),
            HoleFailure::Depth { limit } => write!(f, "depth {limit}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_as_the_runtime_decodes_it() {
        let rejected = HoleFailure::Rejected { attempts: 2, diagnostics: vec!["e1".into(), "e2".into()] };
        assert_eq!(rejected.encode(), "rejected\u{1f}2\u{1f}e1\u{1f}e2");
        let budget = HoleFailure::Budget { resource: Resource::Time, limit: 5 };
        assert_eq!(budget.encode(), "budget\u{1f}time\u{1f}5");
        assert_eq!(budget.to_string(), "exceeded the time budget (5 ms)");
        assert_eq!(budget.outcome(), Outcome::Budget(Resource::Time));
        assert_eq!(HoleFailure::runtime("boom").encode(), "runtime\u{1f}boom\u{1f}0\u{1f}0");
        assert_eq!(HoleFailure::runtime("boom").to_string(), "runtime fault: boom");
        assert_eq!(HoleFailure::Depth { limit: 3 }.encode(), "depth\u{1f}3");
    }
}
