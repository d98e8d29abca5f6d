//! Making a snippet ready to run at a site: its check (cached per site and snippet text), then its compiled form
//! (cached per instantiation) on the JIT where the snippet is in the subset, else as a rustc-path library.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use lacuna_checker::{normalize, Checker, PendingCheck, Precheck, Verdict};
use lacuna_hole::AttemptRecord;
use lacuna_ir::SnippetUses;

use super::{hook, CurrentRun, Runnable, Shared, SiteState, SnippetState, State};
use crate::build::Builder;
use crate::failure::HoleFailure;
use crate::instrument::SitePlan;
use crate::jit_path::{lower_for_jit, subset_accepts, subset_verdict, JitArtifact};
use crate::load::LoadedHost;
use crate::ms;
use crate::nested::{fill, has_holes, Filled};
use crate::options::{Budgets, PathChoice, RunOptions};
use crate::report::SiteReport;
use crate::rustc_path::snippet::{nested_table, NestedHole};
use crate::rustc_path::{load_artifact, Artifact, BuildJob, BuiltSnippet};
use crate::site::{Parent, SiteHome};

/// A snippet made ready to run, or its rejection (rendered diagnostics).
pub(crate) enum Prepared {
    Ready(Runnable, Budgets),
    Rejected(Vec<String>),
}

/// What every rustc-path build of one snippet at one instantiation shares.
struct JobTemplate {
    builder: Builder,
    host: Arc<LoadedHost>,
    home: Arc<SiteHome>,
    /// Normalized.
    snippet: String,
    type_args: Vec<String>,
    /// The snippet awaits, in a hole in async code: it runs as a future.
    asynchronous: bool,
}

impl JobTemplate {
    fn job(&self, uses: SnippetUses, parent: Option<Arc<Artifact>>, nested: Vec<NestedHole>) -> BuildJob {
        BuildJob {
            builder: self.builder.clone(),
            host: self.host.clone(),
            home: self.home.clone(),
            parent,
            snippet: self.snippet.clone(),
            type_args: self.type_args.clone(),
            uses,
            nested,
            asynchronous: self.asynchronous,
        }
    }
}

/// A build of the snippet's library started while rustc checks it.
type Speculative = JoinHandle<Result<BuiltSnippet, HoleFailure>>;

impl Shared {
    /// Everything before running one snippet: the verdict, the compiled snippet. Timings go to `record`.
    pub(crate) fn prepare(
        &'static self,
        site: u32,
        types: &str,
        snippet: &str,
        record: &mut AttemptRecord,
    ) -> Result<Prepared, HoleFailure> {
        let mut guard = self.lock();
        let state = guard.as_mut().ok_or_else(|| HoleFailure::model("the run is over"))?;
        let State { checker, builder, options, run, artifacts } = state;
        let run = run.as_mut().ok_or_else(|| HoleFailure::model("no run is in progress"))?;
        let home = run.sites.get(&site).ok_or_else(unknown_site)?.home.clone();
        // Holes written inside snippets are entered as plain calls (see `nested`).
        let in_async = home.parent.is_none() && home.prepared.host.holes.get(home.index).is_some_and(|h| h.in_async);
        let template = JobTemplate {
            asynchronous: in_async && lacuna_checker::snippet_awaits(snippet),
            builder: builder.clone(),
            host: run.host.clone(),
            home: home.clone(),
            snippet: normalize(snippet),
            type_args: if types.is_empty() { Vec::new() } else { types.split('\u{1f}').map(str::to_owned).collect() },
        };
        let mut speculative = None;
        if !run.sites.get(&site).ok_or_else(unknown_site)?.snippets.contains_key(snippet) {
            let (checked, started) = check_new(checker, options, run, &template, snippet, record)?;
            speculative = started;
            let site_state = run.sites.get_mut(&site).ok_or_else(unknown_site)?;
            site_state.report.diagnostics = checked.verdict.diagnostics.clone();
            site_state.snippets.insert(snippet.to_owned(), checked);
        }
        let site_state = run.sites.get_mut(&site).ok_or_else(unknown_site)?;
        let snippet_state = site_state.snippets.get_mut(snippet).expect("inserted above");
        let verdict = &snippet_state.verdict;
        record.accepted = verdict.accepted;
        record.decided_by = Some(verdict.decided_by);
        record.diagnostics = snippet_state.rendered.clone();
        site_state.report.diagnostics = verdict.diagnostics.clone();
        if !verdict.accepted {
            // A speculative build of a rejected snippet is left to finish on its own; nothing loads it.
            return Ok(Prepared::Rejected(snippet_state.rendered.clone()));
        }
        if let Some(runnable) = snippet_state.artifacts.get(types) {
            return Ok(Prepared::Ready(runnable.clone(), options.budgets));
        }
        if template.asynchronous {
            snippet_state.lowered = Some(Err(AWAITS.into()));
        } else if let Some(jit) = compile_jit(&template.host, site, snippet, snippet_state, record) {
            snippet_state.artifacts.insert(types.to_owned(), jit.clone());
            site_state.report.not_jit = None;
            site_state.report.rustc_because = snippet_state.rustc_because.clone();
            return Ok(Prepared::Ready(jit, options.budgets));
        }
        let why = not_jit_because(snippet_state, options.path);
        site_state.report.not_jit = Some(why.clone());
        if options.path == PathChoice::Jit {
            return Err(HoleFailure::runtime(format!("the snippet is outside the JIT's subset: {why}")));
        }
        // Holes written inside the snippet: the filled program is prepared once per snippet; each instantiation
        // of the snippet's library gets its own site ids for them.
        let mut nested = Vec::new();
        if snippet_state.nests {
            let filled = match &snippet_state.filled {
                Some(filled) => filled.clone(),
                None => {
                    let started = Instant::now();
                    let filled = Arc::new(fill(checker, &home, snippet)?);
                    record.timings_ms.check += ms(started);
                    snippet_state.filled = Some(filled.clone());
                    filled
                }
            };
            nested = register_nested(run, site, snippet, types, &home, &filled);
        }
        let built = match speculative.map(JoinHandle::join) {
            Some(Ok(built)) => built,
            Some(Err(_)) => Err(HoleFailure::runtime("internal error in Lacuna while building the snippet")),
            None => {
                let parent = parent_artifact(&run.sites, &home)?;
                checker
                    .snippet_uses(&home.prepared, home.index, snippet)
                    .map_err(|e| HoleFailure::runtime(e.to_string()))
                    .and_then(|uses| template.job(uses, parent, nested).build())
            }
        };
        let (artifact, lower_ms, compile_ms) = load_artifact(built?, artifacts, hook, (self as *const Shared).cast())?;
        record.timings_ms.lower += lower_ms;
        record.timings_ms.compile += compile_ms;
        let runnable = Runnable::Rustc(artifact);
        let site_state = run.sites.get_mut(&site).ok_or_else(unknown_site)?;
        let snippet_state = site_state.snippets.get_mut(snippet).expect("inserted above");
        snippet_state.artifacts.insert(types.to_owned(), runnable.clone());
        Ok(Prepared::Ready(runnable, options.budgets))
    }
}

fn unknown_site() -> HoleFailure {
    HoleFailure::model("unknown hole site")
}

/// The check of a snippet not tried at this site before: its verdict, its lowering where it is in the JIT's
/// subset, and, while rustc checks it, a speculative build of its rustc-path library.
fn check_new(
    checker: &mut Checker,
    options: &RunOptions,
    run: &CurrentRun,
    template: &JobTemplate,
    snippet: &str,
    record: &mut AttemptRecord,
) -> Result<(SnippetState, Option<Speculative>), HoleFailure> {
    let home = &template.home;
    let (prepared, hole_index) = (&*home.prepared, home.index);
    let mut lowered = None;
    let mut nests = false;
    let mut rustc_because = None;
    let mut speculative = None;
    let pre_started = Instant::now();
    let pre = checker
        .precheck_under(prepared, hole_index, snippet, &home.policy)
        .map_err(|e| HoleFailure::model(e.to_string()))?;
    let pre_ms = ms(pre_started);
    let verdict = match pre {
        // A rejection, or rustc's verdict where rust-analyzer's analysis was not clean (the JIT subset's own
        // acceptance may build only on a clean one).
        Precheck::Decided(decided) => {
            if decided.accepted && options.path != PathChoice::Rustc {
                let why = "rust-analyzer's analysis was not clean (its errors were no verdict), so rustc decided and \
                           the JIT's subset was not asked";
                lowered = Some(Err(why.to_owned()));
            }
            decided
        }
        // Everything below asks the check's own splice and analysis.
        Precheck::Pending(pending) => {
            // A snippet with holes of its own runs on the rustc path, built once its holes are known.
            nests = has_holes(prepared, hole_index, snippet);
            // Is it in the JIT's subset? (Cheap: rust-analyzer has the snippet analysed already.) In a generic
            // function too: the lowering sees the hole's types as rust-analyzer infers them there, type parameters
            // unsubstituted, and a type parameter (or a type over one) is no IR type, so what lowers never depends
            // on the instantiation. Host closures typed by a parameter (`F: Fn(&str) -> u32`) are handed over as
            // `dyn` at every instantiation alike.
            if options.path != PathChoice::Rustc && !nests {
                let started = Instant::now();
                lowered = Some(lower_for_jit(checker, home, &pending));
                record.timings_ms.lower += ms(started);
            }
            let jit_ready = matches!(lowered, Some(Ok(_)));
            // While rustc checks, build the snippet's library on another thread: if rustc accepts, running it
            // does not wait for a second compiler run. Never loaded unless the verdict is an acceptance.
            if !jit_ready && !nests && options.path != PathChoice::Jit {
                speculative = start_build(checker, run, template, &pending);
            }
            let started = Instant::now();
            let subset = match lowered.as_ref().and_then(|l| l.as_ref().ok()) {
                Some(l) if options.path != PathChoice::Rustc => Some(subset_accepts(home, l)),
                _ => None,
            };
            match subset {
                Some(Ok(())) => subset_verdict(home, &pending, pre_ms + ms(started)),
                _ => {
                    rustc_because = subset.and_then(Result::err);
                    confirm(checker, prepared, pending)?
                }
            }
        }
    };
    record.timings_ms.check += verdict.timings.check;
    let rendered = verdict
        .diagnostics
        .iter()
        .map(|d| lacuna_checker::render::render_plain(prepared, "snippet.rs", snippet, d))
        .collect();
    let state =
        SnippetState { verdict, rendered, lowered, artifacts: HashMap::new(), rustc_because, nests, filled: None };
    Ok((state, speculative))
}

fn confirm(
    checker: &mut Checker,
    prepared: &lacuna_checker::PreparedHost,
    pending: PendingCheck,
) -> Result<Verdict, HoleFailure> {
    checker.confirm(prepared, pending).map_err(|e| HoleFailure::model(e.to_string()))
}

/// Starts building the snippet's rustc-path library on a thread of its own, where its uses are known.
fn start_build(
    checker: &mut Checker,
    run: &CurrentRun,
    template: &JobTemplate,
    pending: &PendingCheck,
) -> Option<Speculative> {
    let parent = parent_artifact(&run.sites, &template.home);
    let (Ok(uses), Ok(parent)) = (checker.snippet_uses_in(&template.home.prepared, pending), parent) else {
        return None;
    };
    let job = template.job(uses, parent, Vec::new());
    std::thread::Builder::new().name("lacuna-build".into()).spawn(move || job.build()).ok()
}

/// The snippet compiled by Cranelift, when it is in the JIT's subset and Cranelift takes it; else `None`, with
/// why kept in `snippet_state.lowered`.
fn compile_jit(
    host: &LoadedHost,
    site: u32,
    snippet: &str,
    snippet_state: &mut SnippetState,
    record: &mut AttemptRecord,
) -> Option<Runnable> {
    let Some(Ok(lowered)) = &snippet_state.lowered else { return None };
    let started = Instant::now();
    let symbol = |name: &str| host.symbol(name);
    let abi = lacuna_jit::HostAbi {
        symbol: &symbol,
        vec_fields: host.vec_fields,
        map_writer: Some(lacuna_ir::map_writer_symbol(site)),
    };
    let compiled = lacuna_jit::compile(lowered, &abi);
    record.timings_ms.compile += ms(started);
    match compiled {
        Ok(compiled) => Some(Runnable::Jit(Arc::new(JitArtifact { compiled, snippet: normalize(snippet) }))),
        Err(e) => {
            snippet_state.lowered = Some(Err(e.to_string()));
            None
        }
    }
}

/// Why a snippet that awaits is not on the JIT.
const AWAITS: &str = "it awaits (a snippet that suspends runs as a future, which the rustc path builds)";

/// Why an accepted snippet runs on the rustc path (the report's `not_jit`).
fn not_jit_because(snippet_state: &SnippetState, path: PathChoice) -> String {
    match &snippet_state.lowered {
        Some(Err(why)) => why.clone(),
        Some(Ok(_)) => "Cranelift could not compile it".into(),
        None if snippet_state.nests => "it has holes of its own".into(),
        None if path == PathChoice::Rustc => "the rustc path was asked for".into(),
        None => "the JIT's subset was not asked".into(),
    }
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
        let plan = SitePlan {
            site: id,
            scope: inner.scope.clone(),
            modes: table.iter().map(|e| e.mode).collect(),
            in_async: false,
            in_unsafe: hole.in_unsafe,
        };
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
            // Written inside the parent's snippet, it is part of that hole's work: the parent's policy, never wider.
            policy: home.policy.clone(),
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
