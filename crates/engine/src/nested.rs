//! Holes written inside generated code: the program with the snippet filled in, prepared like a host, its holes
//! given site ids of their own.

use std::sync::Arc;

use lacuna_checker::{Checker, PreparedHost};

use crate::failure::HoleFailure;
use crate::instrument::{instrument, HostLibrary, Instrumented};
use crate::site::SiteHome;

/// Whether a snippet has holes of its own (`agent!` calls).
pub(crate) fn has_holes(prepared: &PreparedHost, hole_index: usize, snippet: &str) -> bool {
    let mentions = snippet.match_indices("agent").any(|(i, _)| snippet[i + 5..].trim_start().starts_with('!'));
    if !mentions {
        return false;
    }
    let filled = prepared.filled(hole_index, snippet);
    lacuna_checker::Host::parse(&prepared.host.name, &filled.text)
        .is_ok_and(|h| h.holes.iter().any(|hole| filled.snippet.contains(&hole.range.start)))
}

/// Prepares the holes written inside an accepted snippet: the program with the snippet filled in, checked and
/// instrumented like a host (its holes' scopes and binding tables).
pub(crate) fn fill(checker: &mut Checker, home: &SiteHome, snippet: &str) -> Result<Filled, HoleFailure> {
    let error = |detail: &dyn std::fmt::Display| {
        HoleFailure::runtime(format!("Lacuna could not prepare the holes inside this snippet: {detail}"))
    };
    let filled = home.prepared.filled(home.index, snippet);
    let mut prepared = checker.prepare(&home.prepared.host.name, &filled.text).map_err(|e| error(&e))?;
    let holes: Vec<usize> = (0..prepared.host.holes.len())
        .filter(|&i| filled.snippet.contains(&prepared.host.holes[i].range.start))
        .collect();
    // A hole inside a snippet is entered as a plain call from the snippet's code, even in async code: its snippets
    // are judged (an `.await` in them is refused) and run as in plain code.
    for &i in &holes {
        prepared.host.holes[i].in_async = false;
    }
    let ranges: Vec<_> = holes.iter().map(|&i| prepared.host.holes[i].range.clone()).collect();
    if ranges.windows(2).any(|w| w[1].start < w[0].end) {
        return Err(error(&"a hole inside another hole's task cannot run"));
    }
    let instrumented = instrument(&prepared, checker.rustc(), HostLibrary::Standalone).map_err(|e| error(&e))?;
    let signatures = Arc::new(prepared.host.outline.signatures.clone());
    Ok(Filled { prepared: Arc::new(prepared), instrumented, signatures, snippet: filled.snippet, holes })
}

/// An accepted snippet filled into its hole, prepared and instrumented as a program of its own.
pub(crate) struct Filled {
    pub(crate) prepared: Arc<PreparedHost>,
    pub(crate) instrumented: Instrumented,
    pub(crate) signatures: Arc<Vec<String>>,
    pub(crate) snippet: std::ops::Range<usize>,
    /// Indices (in `prepared`) of the holes inside the snippet.
    pub(crate) holes: Vec<usize>,
}
