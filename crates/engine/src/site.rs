//! Where a hole site lives: the program its snippets are checked against and its binding table.

use std::sync::Arc;

use lacuna_checker::PreparedHost;

use crate::instrument::SitePlan;

/// Where a hole site lives: the program its snippets are checked against (the host, or for a hole written inside
/// a snippet, the program with that snippet filled in), the hole's index there, and its binding table.
pub(crate) struct SiteHome {
    pub(crate) prepared: Arc<PreparedHost>,
    pub(crate) index: usize,
    pub(crate) plan: SitePlan,
    pub(crate) signatures: Arc<Vec<String>>,
    pub(crate) parent: Option<Parent>,
    /// How many snippets the hole is written inside (0 for the host's holes).
    pub(crate) level: u32,
    /// What snippets at this site may reach.
    pub(crate) policy: lacuna_checker::Policy,
}

/// The snippet a hole was written in.
pub(crate) struct Parent {
    pub(crate) site: u32,
    pub(crate) snippet: String,
    /// The instantiation (type arguments) of the snippet's library the hole's entry goes into.
    pub(crate) types: String,
    /// Where the snippet starts in the filled program.
    pub(crate) snippet_start: usize,
}
