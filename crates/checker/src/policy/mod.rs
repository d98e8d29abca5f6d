//! Safe mode in the checker: the syntax-level denials ([`syntax`]) and the allowlist over resolved items
//! ([`resolve`]). The rules themselves are `lacuna_policy`'s; this module finds what a snippet uses and asks them.
//!
//! [`classified`] adds the purity rule for closures given to `Classified::map`.
//!
//! Both passes cover everything written in the snippet — its own fns, impls, `mod`s, closures — and everything
//! its own `macro_rules!` expand to; the arguments of trusted macros (std's, the host's) are followed into the
//! expansion, their internals are not.

pub(crate) mod classified;
pub(crate) mod resolve;
pub(crate) mod soundness;
pub(crate) mod syntax;

use lacuna_policy::ViolationKind;

/// One thing safe mode rejects, in spliced-text coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    pub kind: ViolationKind,
    pub range: std::ops::Range<usize>,
    pub message: String,
    /// What the caret points at.
    pub label: String,
    /// A grant in `lacuna.toml` that would allow it, when one would.
    pub grant: Option<lacuna_policy::Grant>,
    /// A third-party crate whose listing in `[policy] crates` would allow it.
    pub allow: Option<String>,
}

/// Keeps the first violation per position and kind, in source order (a trait method is judged as the trait's and
/// as the impl's; everything in a macro's expansion is reported at the call).
pub(crate) fn dedup(mut violations: Vec<Violation>) -> Vec<Violation> {
    violations.sort_by_key(|v| (v.range.start, v.range.end));
    let mut seen = std::collections::HashSet::new();
    violations.retain(|v| seen.insert((v.range.clone(), v.kind)));
    violations
}
