//! Holes written inside generated code: the program with the snippet filled in, prepared like a host, its holes
//! given site ids of their own.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use lacuna_checker::{Checker, PreparedHost};

use crate::failure::HoleFailure;
use crate::report::*;
use crate::runner::*;
use crate::rustc_path::instrument::{instrument, Instrumented, SitePlan};
use crate::rustc_path::snippet::{nested_table, NestedHole};
use crate::rustc_path::*;

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
    let prepared = checker.prepare(&home.prepared.host.name, &filled.text).map_err(|e| error(&e))?;
    let holes: Vec<usize> = (0..prepared.host.holes.len())
        .filter(|&i| filled.snippet.contains(&prepared.host.holes[i].range.start))
        .collect();
    let ranges: Vec<_> = holes.iter().map(|&i| prepared.host.holes[i].range.clone()).collect();
    if ranges.windows(2).any(|w| w[1].start < w[0].end) {
        return Err(error(&"a hole inside another hole's task cannot run"));
    }
    let instrumented = instrument(&prepared, checker.rustc()).map_err(|e| error(&e))?;
    let signatures = Arc::new(lacuna_checker::signatures(&prepared.host.text));
    Ok(Filled { prepared: Arc::new(prepared), instrumented, signatures, snippet: filled.snippet, holes })
}

/// Gives the holes inside `snippet` (at `site`, instantiation `types`) site ids and registers them with the run.
pub(crate) fn register_nested(
    run: &mut CurrentRun,
    site: u32,
    snippet: &str,
    types: &str,
    home: &SiteHome,
    filled: &Filled,
) -> Vec<NestedHole> {
    let start = filled.snippet.start;
    let first_line = filled.prepared.host.text[..start].matches('\n').count() as u32 + 1;
    let relative = |r: &std::ops::Range<usize>| r.start - start..r.end - start;
    let mut nested = Vec::with_capacity(filled.holes.len());
    for &index in &filled.holes {
        let id = run.next_site;
        run.next_site += 1;
        let hole = &filled.prepared.host.holes[index];
        let inner = &filled.instrumented.sites[index];
        let table = nested_table(&home.plan, inner.bindings(), &inner.modes, filled.snippet.clone());
        let plan = SitePlan { site: id, scope: inner.scope.clone(), modes: table.iter().map(|e| e.mode).collect() };
        nested.push(NestedHole {
            site: id,
            range: relative(&hole.range),
            task: hole.task_range.as_ref().map(relative),
            ty: filled.prepared.glue_type(index).map(str::to_owned),
            type_params: inner.scope.as_ref().map(|s| s.type_params.clone()).unwrap_or_default(),
            table,
        });
        let home = Arc::new(SiteHome {
            prepared: filled.prepared.clone(),
            index,
            plan,
            signatures: filled.signatures.clone(),
            parent: Some(Parent { site, snippet: snippet.to_owned(), types: types.to_owned(), snippet_start: start }),
            level: home.level + 1,
        });
        let report = SiteReport::new(id, Some(site), hole.line.saturating_sub(first_line) + 1, hole.task.clone());
        run.sites.insert(id, SiteState { report, home, snippets: HashMap::new() });
    }
    nested
}

/// The compiled snippet a hole written inside a snippet is in (its library is the base of theirs).
pub(crate) fn parent_artifact(
    sites: &BTreeMap<u32, SiteState>,
    home: &SiteHome,
) -> Result<Option<Arc<Artifact>>, HoleFailure> {
    let Some(parent) = &home.parent else { return Ok(None) };
    let runnable = sites
        .get(&parent.site)
        .and_then(|s| s.snippets.get(&parent.snippet))
        .and_then(|s| s.artifacts.get(&parent.types));
    match runnable {
        Some(Runnable::Rustc(artifact)) => Ok(Some(artifact.clone())),
        _ => Err(HoleFailure::runtime("the snippet this hole was written in is not loaded (a Lacuna bug)")),
    }
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
