//! Checking a snippet at a hole: is the host program, with the snippet in place of `agent!(...)`, a program
//! rustc accepts?
//!
//! rust-analyzer (in memory, std loaded once) gives fast rejections with rustc's error codes. It has no borrow
//! checker and can leave types unknown, so a snippet it finds clean is confirmed by rustc (`-Z no-codegen`)
//! before it is called accepted. The verdict says which of them decided.
//!
//! ```text
//! Host::parse ─► Checker::prepare (rustc: host compiles; RA: baseline, expected types)
//!            └─► Checker::check(hole, snippet) ─► splice ─► syntax ─► RA errors? ─► reject
//!                                                                  └► clean ─► rustc ─► accept / reject
//! ```

mod analysis;
mod apart;
mod boundary;
mod check;
mod crate_graph;
mod cycles;
mod diagnostic;
mod expansion;
pub mod export;
pub(crate) mod fuel;
mod host;
mod ir_build;
pub(crate) mod iteration;
mod lean;
mod lifted;
mod line_index;
mod locks;
mod map_binding;
mod outline;
mod policy;
mod ra_thread;
pub mod render;
mod rustc;
mod std_source;
pub mod turn;
mod waiting;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use lacuna_hole::DecidedBy;
use lacuna_ir::{HoleScope, SnippetUses};
pub use lacuna_policy::{Grant, Policy, ViolationKind};
use serde::Serialize;

pub use diagnostic::{kind_for_code, Diagnostic, DiagnosticKind, ErrorKind, Location, Severity};
pub use host::{normalize, snippet_awaits, Hole, Host, HostSyntaxError, PRELUDE_INJECTION};
pub use locks::{LockHolder, LockHolderShape};
pub use map_binding::{
    iter_tuple as map_iter_tuple, map_parts, viewed_map, views as map_binding_views, MapBindingView, MapPart,
};
pub use outline::{
    callable_fn, capability_signatures, prompt_signatures, EnumOutline, HostOutline, NamedItems, ScalarFn, StructField,
    VariantFields, SHIM_SCALARS,
};
pub use rustc::{parse_rustc_errors, process_ended, CrateFlags, Rustc, RustcError};
pub use std_source::{StdSource, TargetInfo, INSTALL_HINT, STD_SRC_ENV};

pub use analysis::{HoleType, TurnTypes};
use analysis::{RaDiagnostic, RaSession};
pub use check::{PendingCheck, Precheck};
use host::{Origin, Spliced};
pub use line_index::LineIndex;
use ra_thread::{Limit, RaThread};
use rustc::{RustcDiagnostic, RustcOutcome};

/// The `lacuna` crate's type-level surface, as holes are checked against it: its crate attributes (`header.rs`; the
/// `lacuna` library crate a cargo project depends on has its own and includes the rest), `agent!` (`agent.rs`: a
/// module of that crate, as a macro exported from an included file cannot be named by path), the runtime
/// (`lacuna.rs`), the budgets snippets run under (`budget.rs`) and the waits that look at them (`wait.rs`), the capabilities (`cap.rs`) and `Classified`
/// (`classified.rs`), host bindings converted to the types a snippet settled (`retype.rs`), a session's locals between turns
/// (`session.rs`), one source file as
/// both compilers see it.
pub const PRELUDE_SOURCE: &str = concat!(
    include_str!("../prelude/header.rs"),
    include_str!("../prelude/agent.rs"),
    include_str!("../prelude/lacuna.rs"),
    include_str!("../prelude/budget.rs"),
    include_str!("../prelude/wait.rs"),
    include_str!("../prelude/cap.rs"),
    include_str!("../prelude/classified.rs"),
    include_str!("../prelude/retype.rs"),
    include_str!("../prelude/session.rs")
);

/// Snippets larger than this are refused as input errors rather than checked.
pub const MAX_SNIPPET_BYTES: usize = 1 << 20;

/// Bracket nesting beyond which rust-analyzer is not asked (its parser and lowering recurse); rustc, which
/// grows its stack on demand, decides alone.
const MAX_RA_NESTING: usize = 256;

/// Snippet size (in tokens) beyond which rust-analyzer is not asked: tree depth is bounded by token count, and
/// a long operator chain nests as deeply as brackets do.
const MAX_RA_TOKENS: usize = 20_000;

/// Host nesting the checker takes at all (hosts are parsed by rust-analyzer whatever their depth).
const MAX_HOST_NESTING: usize = 512;

/// Something that stops a check from happening at all. A rejected snippet is not an error: it is a [`Verdict`].
#[derive(Debug, thiserror::Error)]
pub enum CheckerError {
    #[error("the Rust standard library source was not found ({detail}); {INSTALL_HINT}")]
    StdSourceMissing { detail: String },
    #[error("{detail}")]
    Rustc { detail: String },
    /// Whoever asked for the check stopped it ([`Checker::set_interrupt`]).
    #[error("the check was cancelled")]
    Cancelled,
    #[error("{detail}")]
    Io { detail: String },
    #[error("{name} does not parse as Rust:\n{}", render_syntax(.errors))]
    HostSyntax { name: String, errors: Vec<HostSyntaxError> },
    #[error("{name} nests {depth} levels deep; the checker takes hosts up to {MAX_HOST_NESTING} levels")]
    HostTooDeep { name: String, depth: usize },
    #[error("{name} has no hole: write `agent!(\"task\")` where a snippet should go")]
    NoHoles { name: String },
    #[error("{name} does not compile with its holes unfilled, so no snippet could be accepted; fix these first:\n{}", render_host_errors(.errors))]
    HostDoesNotCompile { name: String, errors: Vec<Diagnostic> },
    #[error("{name} has {count} hole(s); there is no hole {hole}")]
    NoSuchHole { name: String, hole: usize, count: usize },
    #[error("the snippet is {bytes} bytes; the limit is {MAX_SNIPPET_BYTES} bytes")]
    SnippetTooLarge { bytes: usize },
    /// rust-analyzer did not finish one step of a check within [`CheckerOptions::analysis_timeout`].
    #[error("rust-analyzer did not finish analysing the snippet within {secs} s (CheckerOptions::analysis_timeout)")]
    AnalysisTimedOut { secs: f64 },
    #[error("internal error in the checker: {detail}")]
    Internal { detail: String },
}

fn render_syntax(errors: &[HostSyntaxError]) -> String {
    errors.iter().map(|e| format!("  {}:{}: {}", e.line, e.column, e.message)).collect::<Vec<_>>().join("\n")
}

fn render_host_errors(errors: &[Diagnostic]) -> String {
    errors
        .iter()
        .map(|d| {
            let code = d.code.as_deref().map(|c| format!("[{c}]")).unwrap_or_default();
            let label = d.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
            format!("  {}:{}: error{code}: {}{label}", d.line, d.column, d.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Milliseconds spent in each part of one check.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub check: f64,
    pub parse: f64,
    pub rust_analyzer: f64,
    /// Safe mode's allowlist over resolved items (its syntax rules cost next to nothing and count as parsing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rustc: Option<f64>,
    /// rust-analyzer found the snippet clean lifted out of its hole ([`lifted`]), and every later stage before
    /// rustc read it there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lifted: bool,
}

/// What [`Checker::settle`] made of a host's inferred holes.
#[derive(Debug)]
pub enum Settled {
    /// The host with every inferred hole typed.
    Host(Box<PreparedHost>),
    /// No snippet was given for this (0-based) hole.
    Missing { hole: usize },
    /// The snippet for this hole is rejected, so nothing settles its type.
    Rejected { hole: usize, verdict: Box<Verdict> },
    /// The type the snippet settles (when rust-analyzer could tell) cannot be written at the hole.
    Unwritable { hole: usize, ty: Option<String> },
}

/// The answer for one snippet.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub accepted: bool,
    pub decided_by: DecidedBy,
    /// `T` of the hole, rendered as Rust, when rust-analyzer could tell.
    pub expected_type: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub timings: Timings,
    /// What happened on the way that is not a diagnostic: rust-analyzer failing on the snippet (its panic is
    /// caught and recorded here, never printed), with rustc deciding instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CheckerOptions {
    /// Where the prelude rlib is cached. Default: `$LACUNA_CACHE_DIR`, `$XDG_CACHE_HOME/lacuna`,
    /// `$HOME/.cache/lacuna`, else the system temp dir.
    pub cache_dir: Option<PathBuf>,
    /// How long rustc may take on one snippet before the snippet is rejected.
    pub rustc_timeout: Duration,
    /// How long rust-analyzer may take on one step of a snippet's check (its analysis, with the snippet's macros
    /// expanded; safe mode's pass) before it is stopped: a snippet whose macros expand without end then cannot
    /// hold the checker. Under safe mode the snippet is rejected (it could not be inspected); unconfined, rustc
    /// decides alone.
    pub analysis_timeout: Duration,
    /// Remember rustc's answer per spliced text (retries and reruns of a snippet then cost nothing).
    pub memoize_rustc: bool,
    /// What snippets may reach (safe mode, on by default). [`Checker::check_under`] takes another per check.
    pub policy: Policy,
    /// A cargo project's crate: the libraries it depends on and how cargo compiles it. Hosts are then the crate's
    /// module tree as one text (`lacuna_project::flatten`).
    pub project: Option<Arc<ProjectCrate>>,
}

/// What a checker needs of a cargo project's crate (see `lacuna_project::Project`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectCrate {
    pub graph: lacuna_project::CrateGraph,
    pub flags: CrateFlags,
}

impl Default for CheckerOptions {
    fn default() -> Self {
        CheckerOptions {
            cache_dir: None,
            rustc_timeout: Duration::from_secs(60),
            analysis_timeout: Duration::from_secs(60),
            memoize_rustc: true,
            policy: Policy::default(),
            project: None,
        }
    }
}

/// What it cost to start a checker.
#[derive(Debug, Clone, Serialize)]
pub struct StartupReport {
    pub std_source: PathBuf,
    pub std_files: usize,
    pub rustc_version: String,
    pub startup_ms: f64,
}

/// A host made ready for checks: it parses, compiles with its holes unfilled, and its holes' types are known.
#[derive(Debug, Clone)]
pub struct PreparedHost {
    pub host: Host,
    /// Per hole: `T`, when rust-analyzer could tell.
    pub expected_types: Vec<Option<String>>,
    /// Per hole: the bindings visible there and its context, when rust-analyzer could place the hole.
    pub scopes: Vec<Option<HoleScope>>,
    /// Per hole: `T` as source that rustc confirmed is the hole's type; snippets are spliced as
    /// `Result::<T, HoleError>::Ok({ .. })` then, so they are checked against `T` itself.
    glue_types: Vec<Option<String>>,
    /// rust-analyzer's (false) errors on the unfilled host, which rustc accepted: ignored in every check.
    baseline: Vec<BaselineKey>,
    /// Per hole: its type is settled only by the snippet (the unfilled host fails only with "type annotations
    /// needed" inside the function around it), so each snippet is checked with `T` inferred from it.
    pub inferred: Vec<bool>,
    /// Per hole: how its snippets are checked lifted out of it, when they can be ([`lifted`]).
    lifts: Vec<Option<lifted::Lift>>,
}

/// What the generator of a host knows of one of its holes ([`Checker::prepare_generated`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeneratedHole {
    /// Its type is the snippet's to settle (`let value = agent!(..);`).
    Inferred,
    /// Its `T` (the hole is a `Result<T, HoleError>`), as source valid at the hole.
    Typed(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BaselineKey {
    host_start: usize,
    name: String,
    message: String,
}

/// A warm checker: std is loaded once; each check is an incremental re-analysis of the host file.
pub struct Checker {
    ra: RaSession,
    /// Where every step of rust-analyzer's work runs.
    ra_thread: RaThread,
    rustc: Rustc,
    /// rustc's outcome per spliced text: retries and benchmark reruns of the same snippet cost nothing.
    rustc_memo: HashMap<Arc<str>, RustcOutcome>,
    memoize_rustc: bool,
    /// [`CheckerOptions::analysis_timeout`].
    analysis_timeout: Duration,
    policy: std::sync::Arc<Policy>,
    /// Set by whoever asked for the check in progress to stop it (see [`Checker::set_interrupt`]).
    interrupt: Option<Arc<std::sync::atomic::AtomicBool>>,
    pub startup: StartupReport,
}

/// A snippet filled into its hole, as a program of its own: where the holes written inside the snippet live
/// (their scope is the host's plus the snippet's locals).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilledHost {
    /// The host with the (normalized) snippet in the hole, exactly as checks splice it, without the prelude.
    pub text: String,
    /// The snippet's byte range in `text`.
    pub snippet: std::ops::Range<usize>,
}

impl PreparedHost {
    /// `T` of hole `hole` as Rust source, when rustc confirmed it (the type snippets are checked against).
    pub fn glue_type(&self, hole: usize) -> Option<&str> {
        self.glue_types.get(hole).and_then(|t| t.as_deref())
    }

    /// The host with `snippet` in hole `hole` (0-based), spliced as the checks splice it.
    pub fn filled(&self, hole: usize, snippet: &str) -> FilledHost {
        let spliced = self.host.splice(hole, &normalize(snippet), self.glue_type(hole));
        let snippet = spliced.snippet_range().expect("a spliced host has a snippet");
        FilledHost { text: spliced.program().to_owned(), snippet }
    }
}

impl Checker {
    /// Finds rustc and the std source, loads std into rust-analyzer. Takes a few hundred milliseconds.
    pub fn new(options: CheckerOptions) -> Result<Checker, CheckerError> {
        let started = Instant::now();
        let ra_thread = RaThread::start()?;
        let cache_dir = options.cache_dir.unwrap_or_else(default_cache_dir);
        let mut rustc = Rustc::discover(PRELUDE_SOURCE, &cache_dir, options.rustc_timeout)?;
        if let Some(project) = &options.project {
            rustc.set_crate_flags(project.flags.clone());
        }
        let std_src = StdSource::locate(Some(&rustc.sysroot))?;
        let target = TargetInfo::query(&rustc.path)?;
        let project = options.project.as_ref().map(|p| &p.graph);
        let ra = RaSession::load(&std_src, &target, PRELUDE_SOURCE, project, &rustc.sysroot)?;
        let startup = StartupReport {
            std_source: std_src.library.clone(),
            std_files: ra.std_files,
            rustc_version: rustc.version.clone(),
            startup_ms: ms(started.elapsed()),
        };
        Ok(Checker {
            ra,
            ra_thread,
            rustc,
            rustc_memo: HashMap::new(),
            memoize_rustc: options.memoize_rustc,
            analysis_timeout: options.analysis_timeout,
            interrupt: None,
            policy: std::sync::Arc::new(options.policy),
            startup,
        })
    }

    /// Parses a host and makes sure it compiles with its holes unfilled.
    pub fn prepare(&mut self, name: &str, text: &str) -> Result<PreparedHost, CheckerError> {
        let host = self.parse_host(name, text)?;
        let unfilled = host.unfilled();
        let mut inferred = vec![false; host.holes.len()];
        // rustc's check of the host alone and rust-analyzer's analysis of it are independent: one runs while the
        // other does (rustc in its own process; rust-analyzer on its thread).
        let (outcome, analysis) =
            self.rustc_check_beside(&unfilled.text, |ra, thread| Checker::analyze_host(ra, thread, &host, &unfilled));
        match outcome? {
            RustcOutcome::Finished { errors } if !errors.is_empty() => {
                // Holes whose type only a snippet settles: rustc accepts the host with a fitting snippet in place.
                match holes_settled_by_snippets(&host, &unfilled, &errors) {
                    Some(holes) => {
                        for i in holes {
                            inferred[i] = true;
                        }
                    }
                    None => {
                        let errors = errors.iter().map(|e| map_host_rustc(e, &unfilled, &host.line_index)).collect();
                        return Err(CheckerError::HostDoesNotCompile { name: name.to_owned(), errors });
                    }
                }
            }
            RustcOutcome::Finished { .. } => {}
            RustcOutcome::TimedOut => {
                return Err(CheckerError::Rustc { detail: format!("rustc did not finish checking {name} in time") })
            }
            RustcOutcome::Crashed { status } => {
                return Err(CheckerError::Rustc { detail: format!("rustc crashed checking {name} ({status})") })
            }
        }
        let (baseline, expected_types, scopes) = analysis?;
        // Every hole in a function with such errors has its type from its snippet (rust-analyzer may guess one
        // rustc does not settle, `agent!(..).unwrap() + five` as `i32`); rustc decides with the snippet in place.
        let mut expected_types = expected_types;
        for (ty, inferred) in expected_types.iter_mut().zip(&inferred) {
            if *inferred {
                *ty = None;
            }
        }
        let glue_types = self.confirm_glue_types(&host, &expected_types)?;
        let expected_types = expected_types.into_iter().map(|t| t.map(|t| t.display)).collect();
        let lifts = self.lifts(&host, &scopes, &glue_types)?;
        Ok(PreparedHost { host, expected_types, scopes, glue_types, baseline, inferred, lifts })
    }

    /// [`Checker::prepare`] for a host Lacuna generated from parts rustc already accepted (a session turn's
    /// hosts), whose holes' types the generator knows (`holes`, one per hole in order): rustc does not check the
    /// host alone, nor confirm the holes' types. Nothing is accepted on that account — every snippet spliced into
    /// the host is checked by rustc as ever, and a host is compiled before it runs — so an error in the generated
    /// text still stops everything, as a rejection or a failed build. With a different number of holes than
    /// `holes` (a host's items may hold holes of their own), the host is prepared as any other.
    pub fn prepare_generated(
        &mut self,
        name: &str,
        text: &str,
        holes: &[GeneratedHole],
    ) -> Result<PreparedHost, CheckerError> {
        let mut host = self.parse_host(name, text)?;
        if host.holes.len() != holes.len() {
            return self.prepare(name, text);
        }
        // Nothing says the other functions compile: rustc judges snippets in the whole program.
        host.lean = Default::default();
        let unfilled = host.unfilled();
        let (baseline, _, scopes) = Checker::analyze_host(&mut self.ra, &self.ra_thread, &host, &unfilled)?;
        let inferred = holes.iter().map(|h| matches!(h, GeneratedHole::Inferred)).collect();
        let glue_types: Vec<Option<String>> = holes
            .iter()
            .map(|h| match h {
                GeneratedHole::Inferred => None,
                GeneratedHole::Typed(ty) => Some(ty.clone()),
            })
            .collect();
        let expected_types = glue_types.clone();
        let lifts = self.lifts(&host, &scopes, &glue_types)?;
        Ok(PreparedHost { host, expected_types, scopes, glue_types, baseline, inferred, lifts })
    }

    /// A host parsed, with at least one hole.
    fn parse_host(&mut self, name: &str, text: &str) -> Result<Host, CheckerError> {
        let (depth, _) = lexical_size(text);
        if depth > MAX_HOST_NESTING {
            return Err(CheckerError::HostTooDeep { name: name.to_owned(), depth });
        }
        let (owned_name, owned_text) = (name.to_owned(), text.to_owned());
        let host = self
            .with_ra(None, move |_| Ok(Host::parse(&owned_name, &owned_text)))?
            .map_err(|errors| CheckerError::HostSyntax { name: name.to_owned(), errors })?;
        if host.holes.is_empty() {
            return Err(CheckerError::NoHoles { name: name.to_owned() });
        }
        Ok(host)
    }

    /// rust-analyzer on the unfilled host: its errors there (the baseline every check ignores), and per hole its
    /// type and scope.
    #[allow(clippy::type_complexity)]
    fn analyze_host(
        ra: &mut RaSession,
        thread: &RaThread,
        host: &Host,
        unfilled: &Spliced,
    ) -> Result<(Vec<BaselineKey>, Vec<Option<analysis::HoleType>>, Vec<Option<HoleScope>>), CheckerError> {
        let hole_offsets: Vec<usize> = host
            .holes
            .iter()
            .map(|h| unfilled.spliced_offset(h.range.start + host.text[h.range.clone()].find("agent").unwrap_or(0)))
            .collect();
        let (baseline, expected_types, scopes) = Checker::with_ra_unlimited(ra, thread, move |ra| {
            ra.set_text(&unfilled.text, &unfilled.layout);
            // The host's own proc macros (its derives) expand here, and only here (closed again on any exit).
            let _expanding = ra.expanding_proc_macros();
            let errors = ra.errors_for_new_host()?;
            let types = hole_offsets.iter().map(|&o| ra.hole_type(o)).collect::<Vec<_>>();
            let scopes = hole_offsets.iter().map(|&o| ra.hole_scope(o)).collect::<Vec<_>>();
            Ok((errors, types, scopes))
        })?;
        let baseline = baseline
            .into_iter()
            .filter_map(|d| match unfilled.origin(d.start) {
                Origin::Host(host_start) => Some(BaselineKey { host_start, name: d.name, message: d.message }),
                _ => None,
            })
            .collect();
        Ok((baseline, expected_types, scopes))
    }

    /// Per hole, how its snippets are checked lifted out of it ([`lifted`]): for each hole whose place allows it,
    /// rust-analyzer reads the host cut off after the hole, to learn which bindings the code before it settles.
    fn lifts(
        &mut self,
        host: &Host,
        scopes: &[Option<HoleScope>],
        glue_types: &[Option<String>],
    ) -> Result<Vec<Option<lifted::Lift>>, CheckerError> {
        let mut lifts = Vec::with_capacity(host.holes.len());
        for (hole, (scope, ty)) in scopes.iter().zip(glue_types).enumerate() {
            let (Some(scope), Some(ty), Some(site)) = (scope, ty, lifted::site(host, hole)) else {
                lifts.push(None);
                continue;
            };
            let (text, call, moved) = lifted::cut_after(host, hole, &site, scope);
            let end = host.holes[hole].range.end;
            let layout = host.layout.mapped(|at| if at >= end { (at as isize - moved) as usize } else { at });
            let cut = Spliced::plain(text, layout);
            let range = &host.holes[hole].range;
            let at = call + host.text[range.clone()].find("agent").unwrap_or(0);
            // No scope there (rust-analyzer could not place the hole) is no binding settled.
            let cut = self.with_ra(Some(&cut), move |ra| Ok(ra.hole_scope(at)))?;
            lifts.push(lifted::Lift::of(&site, scope, cut.as_ref(), ty));
        }
        Ok(lifts)
    }

    /// A host with holes whose types only their snippets settle ([`PreparedHost::inferred`]), each such hole
    /// typed from the snippet given for it, so the host can be compiled before it runs: the snippet must be
    /// accepted, and rustc must accept the host with the type it settles written at the hole.
    pub fn settle(
        &mut self,
        prepared: &PreparedHost,
        snippets: &std::collections::BTreeMap<usize, String>,
    ) -> Result<Settled, CheckerError> {
        let mut types: Vec<(usize, analysis::HoleType)> = Vec::new();
        for hole in (0..prepared.host.holes.len()).filter(|&h| prepared.inferred[h]) {
            let Some(snippet) = snippets.get(&hole) else { return Ok(Settled::Missing { hole }) };
            let verdict = self.check(prepared, hole, snippet)?;
            if !verdict.accepted {
                return Ok(Settled::Rejected { hole, verdict: Box::new(verdict) });
            }
            let spliced = prepared.host.splice(hole, &normalize(snippet), None);
            let range = spliced.snippet_range().expect("a spliced host has a snippet");
            let ty = self.with_ra(Some(&spliced), move |ra| Ok(ra.expr_types(range)))?;
            match ty {
                Some(ty) if ty.source.is_some() => types.push((hole, ty)),
                ty => return Ok(Settled::Unwritable { hole, ty: ty.map(|t| t.display) }),
            }
        }
        let written: Vec<(usize, &str)> = types.iter().map(|(h, t)| (*h, t.source.as_deref().unwrap_or("_"))).collect();
        let compiles = matches!(
            self.rustc_check(&prepared.host.with_typed_placeholders(&written))?,
            RustcOutcome::Finished { errors } if errors.is_empty()
        );
        if !compiles {
            let (hole, ty) = &types[0];
            return Ok(Settled::Unwritable { hole: *hole, ty: Some(ty.display.clone()) });
        }
        let mut settled = prepared.clone();
        for (hole, ty) in &types {
            settled.glue_types[*hole] = ty.source.clone();
            settled.expected_types[*hole] = ty.source.clone();
            settled.inferred[*hole] = false;
        }
        // Against the type it settled (a closure's as a function pointer, say), the snippet must still be accepted.
        for (hole, ty) in types {
            if !self.check(&settled, hole, &snippets[&hole])?.accepted {
                return Ok(Settled::Unwritable { hole, ty: ty.source });
            }
        }
        Ok(Settled::Host(Box::new(settled)))
    }

    /// The types a snippet leaves behind at hole `hole` (for a session turn): its final expression's and its
    /// top-level `let` bindings'.
    pub fn turn_types(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
    ) -> Result<TurnTypes, CheckerError> {
        let spliced = prepared.host.splice(hole, &normalize(snippet), prepared.glue_types[hole].as_deref());
        let block = spliced.block_range().expect("a spliced host has a snippet");
        let types = self.with_ra(Some(&spliced), move |ra| Ok(ra.turn_types(block)))?;
        Ok(types.unwrap_or(TurnTypes { tail: None, locals: Vec::new() }))
    }

    /// Which holes' types rustc agrees with, written as rust-analyzer renders them. One rustc run when all
    /// agree (the usual case); otherwise one per hole.
    fn confirm_glue_types(
        &mut self,
        host: &Host,
        types: &[Option<analysis::HoleType>],
    ) -> Result<Vec<Option<String>>, CheckerError> {
        let candidates: Vec<(usize, &str)> = types
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_ref().and_then(|t| t.source.as_deref()).map(|s| (i, s)))
            .collect();
        let mut confirmed = vec![None; types.len()];
        if candidates.is_empty() {
            return Ok(confirmed);
        }
        let compiles = |checker: &mut Checker, holes: &[(usize, &str)]| -> Result<bool, CheckerError> {
            Ok(matches!(
                checker.rustc_check(&host.with_typed_placeholders(holes))?,
                RustcOutcome::Finished { errors } if errors.is_empty()
            ))
        };
        let all = compiles(self, &candidates)?;
        for &(i, ty) in &candidates {
            if all || (candidates.len() > 1 && compiles(self, &[(i, ty)])?) {
                confirmed[i] = Some(ty.to_owned());
            }
        }
        Ok(confirmed)
    }

    /// Where an (accepted) snippet in `hole` refers to the hole's bindings and to `Self`: what execution needs to
    /// run it against the binding table. Empty when rust-analyzer could not place the hole.
    pub fn snippet_uses(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
    ) -> Result<SnippetUses, CheckerError> {
        let check = self.begin_check(prepared, hole, snippet, None)?;
        self.snippet_uses_in(prepared, &check)
    }

    /// The typed view of an (accepted) snippet for the JIT, or why it is outside the JIT's subset.
    pub fn typed_snippet(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
    ) -> Result<Result<lacuna_ir::TypedSnippet, lacuna_ir::Unsupported>, CheckerError> {
        let check = self.begin_check(prepared, hole, snippet, None)?;
        self.typed_snippet_in(prepared, &check)
    }

    /// The exact text the compilers see for `snippet` in `hole`: the host with the snippet spliced in and the
    /// prelude appended.
    pub fn spliced_text(&self, prepared: &PreparedHost, hole: usize, snippet: &str) -> String {
        prepared.host.splice(hole, &normalize(snippet), prepared.glue_types[hole].as_deref()).text
    }

    pub fn rustc(&self) -> &Rustc {
        &self.rustc
    }

    fn rustc_timeout(&self) -> Duration {
        self.rustc.timeout()
    }

    /// From now on, a check that finds `interrupt` set while rustc works on it stops (rustc is killed) with
    /// [`CheckerError::Cancelled`]; `None` for checks nobody stops. A service sets its request's flag.
    pub fn set_interrupt(&mut self, interrupt: Option<Arc<std::sync::atomic::AtomicBool>>) {
        self.interrupt = interrupt;
    }

    /// [`Checker::rustc_check`] of `text`, with `beside` done meanwhile (on this thread, rustc in its process).
    fn rustc_check_beside<T>(
        &mut self,
        text: &str,
        beside: impl FnOnce(&mut RaSession, &RaThread) -> T,
    ) -> (Result<RustcOutcome, CheckerError>, T) {
        if let Some(outcome) = self.rustc_memo.get(text) {
            let outcome = Ok(outcome.clone());
            return (outcome, beside(&mut self.ra, &self.ra_thread));
        }
        let Checker { ra, ra_thread, rustc, interrupt, .. } = self;
        let (rustc, interrupt) = (&*rustc, interrupt.as_deref());
        let (outcome, other) = std::thread::scope(|scope| {
            let checking = scope.spawn(move || rustc.check(text, interrupt));
            let other = beside(ra, ra_thread);
            let outcome = checking
                .join()
                .unwrap_or_else(|_| Err(CheckerError::Internal { detail: "the rustc check panicked".into() }));
            (outcome, other)
        });
        if let Ok(outcome) = &outcome {
            self.remember(text, outcome);
        }
        (outcome, other)
    }

    /// Keeps rustc's outcome for `text`, if it finished: a timeout may be load on the machine, not the text.
    fn remember(&mut self, text: &str, outcome: &RustcOutcome) {
        if self.memoize_rustc && matches!(outcome, RustcOutcome::Finished { .. }) {
            self.rustc_memo.insert(text.into(), outcome.clone());
        }
    }

    fn rustc_check(&mut self, text: &str) -> Result<RustcOutcome, CheckerError> {
        if let Some(outcome) = self.rustc_memo.get(text) {
            return Ok(outcome.clone());
        }
        let outcome = self.rustc.check(text, self.interrupt.as_deref())?;
        self.remember(text, &outcome);
        Ok(outcome)
    }

    /// Runs `f` on the checker's analysis thread ([`ra_thread`]), with the host file's text set to `text` first (on
    /// this thread: `f` only reads the database); a panic inside rust-analyzer becomes an error, not a crash, and analysis that
    /// outlasts [`CheckerOptions::analysis_timeout`] (or the check's interrupt) is stopped.
    fn with_ra<T: Send>(
        &mut self,
        spliced: Option<&Spliced>,
        f: impl FnOnce(&RaSession) -> Result<T, CheckerError> + Send,
    ) -> Result<T, CheckerError> {
        if let Some(spliced) = spliced {
            self.ra.set_text(&spliced.text, &spliced.layout);
        }
        let limit = Limit { budget: self.analysis_timeout, interrupt: self.interrupt.clone() };
        // `f` holds the session shared: it cannot write, which would wait forever on the stopper's handle.
        let stopper = self.ra.stopper();
        let (joined, stop) = self.ra_thread.run(&mut self.ra, Some((limit, stopper)), |ra: &mut RaSession| f(ra));
        if let Some((stopped, stopping)) = stop {
            if let Some(stopping) = stopping {
                self.ra.finish_stop(stopping);
            }
            // Whatever the analysis returned may be cut short by the stop (rust-analyzer answers "cancelled"
            // where it was stopped): the step did not finish within its budget.
            return Err(stopped);
        }
        joined
    }

    /// [`Checker::with_ra`] without a budget, for work that writes to the database (loading a host, whose first
    /// analysis loads std), by a caller that holds the session apart from the rest of the checker.
    fn with_ra_unlimited<T: Send>(
        ra: &mut RaSession,
        thread: &RaThread,
        f: impl FnOnce(&mut RaSession) -> Result<T, CheckerError> + Send,
    ) -> Result<T, CheckerError> {
        thread.run(ra, None, f).0
    }
}

/// Where Lacuna caches compiled artifacts: `$LACUNA_CACHE_DIR`, `$XDG_CACHE_HOME/lacuna`, `$HOME/.cache/lacuna`, else
/// the system temp dir.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LACUNA_CACHE_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("lacuna");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache/lacuna");
    }
    std::env::temp_dir().join("lacuna-cache")
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Why `text` is too large for a syntax tree outside the analysis thread (nested or long past what safe mode
/// inspects); `None` when it is not.
pub fn beyond_syntax_limits(text: &str) -> Option<String> {
    let (depth, tokens) = lexical_size(text);
    (depth > MAX_RA_NESTING || tokens > MAX_RA_TOKENS).then(|| {
        format!(
            "it nests {depth} levels deep in {tokens} tokens; Lacuna inspects code up to {MAX_RA_NESTING} levels \
             and {MAX_RA_TOKENS} tokens"
        )
    })
}

/// (deepest nesting, token count) of a text, by rust-analyzer's lexer (so brackets in strings and comments don't
/// count). Prefix operators and `else if` chains nest too; runs of them count as depth.
fn lexical_size(text: &str) -> (usize, usize) {
    use ra_ap_syntax::{SyntaxKind, T};
    let lexed = ra_ap_parser::LexedStr::new(ra_ap_syntax::Edition::Edition2021, text);
    let (mut depth, mut max, mut run) = (0usize, 0usize, 0usize);
    for i in 0..lexed.len() {
        let kind = lexed.kind(i);
        match kind {
            T!['('] | T!['['] | T!['{'] => depth += 1,
            T![')'] | T![']'] | T!['}'] => depth = depth.saturating_sub(1),
            _ => {}
        }
        if kind.is_trivia() {
            continue;
        }
        if matches!(kind, T![-] | T![!] | T![*] | T![&] | T![&&] | T![else] | T![if] | T![..]) {
            run += 1;
        } else if kind != SyntaxKind::WHITESPACE {
            run = 0;
        }
        max = max.max(depth + run);
    }
    (max, lexed.len())
}

fn is_baseline(d: &RaDiagnostic, spliced: &Spliced, baseline: &[BaselineKey]) -> bool {
    match spliced.origin(d.start) {
        Origin::Host(host_start) => {
            baseline.iter().any(|b| b.host_start == host_start && b.name == d.name && b.message == d.message)
        }
        _ => false,
    }
}

/// Same kind, place and message once.
fn dedup(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = Vec::new();
    diagnostics.retain(|d| {
        let key = (d.code.clone(), d.kind.clone(), d.message.clone(), d.line, d.column, d.location);
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
    diagnostics
}

/// Positions for a spliced range: snippet coordinates when it starts in the snippet; the whole snippet when it
/// starts in Lacuna's glue (the `Ok({ })` around it: "the snippet's value"); the hole otherwise.
fn locate(
    start: usize,
    end: usize,
    spliced: &Spliced,
    host: &Host,
    hole: usize,
    snippet_index: &LineIndex,
) -> (Location, (u32, u32), (u32, u32), Option<String>) {
    let snippet_len = spliced.snippet_range().map_or(0, |r| r.len());
    match spliced.origin(start) {
        Origin::Snippet(s) => {
            let e = match spliced.origin(end) {
                Origin::Snippet(e) => e,
                _ => snippet_len,
            }
            .max(s);
            (Location::Snippet, snippet_index.line_col(s), snippet_index.line_col(e), None)
        }
        Origin::Glue => {
            let (s, e) = tail_span(spliced, snippet_len);
            (Location::Snippet, snippet_index.line_col(s), snippet_index.line_col(e), None)
        }
        Origin::Host(h) => {
            let hole = &host.holes[hole];
            let hole_end = host.line_index.line_col(hole.range.end);
            let (line, column) = host.line_index.line_col(h);
            let note =
                format!("in host code at {}:{line}:{column}: `{}`", host.name, host.line_index.line_text(line).trim());
            (Location::Host, (hole.line, hole.column), hole_end, Some(note))
        }
    }
}

/// The snippet's final expression (what becomes the hole's value), as a range in the snippet.
fn tail_span(spliced: &Spliced, snippet_len: usize) -> (usize, usize) {
    let Some(range) = spliced.snippet_range() else { return (0, 0) };
    let snippet = &spliced.text[range];
    let trimmed_end = snippet.trim_end().len();
    // The last statement-like segment: after the last `;` or `}` at the end of a line.
    let start = snippet[..trimmed_end].rfind([';', '\n']).map(|i| i + 1).unwrap_or(0);
    let start = start + (snippet[start..trimmed_end].len() - snippet[start..trimmed_end].trim_start().len());
    (start.min(snippet_len), trimmed_end.max(start))
}

/// rust-analyzer's codes where rustc's differ for the same error, read from its message: a field access on a
/// primitive type is E0610 to rustc (rust-analyzer says E0609, "no field on type").
fn rustc_code<'c>(code: &'c str, message: &str) -> &'c str {
    const PRIMITIVES: &[&str] = &[
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "f32",
        "f64",
        "bool",
        "char",
        "{integer}",
        "{float}",
    ];
    match code {
        "E0609" if PRIMITIVES.iter().any(|p| message.ends_with(&format!("on type `{p}`"))) => "E0610",
        _ => code,
    }
}

/// Whether rustc, not rust-analyzer, should name this error: `break` outside a loop (E0268, where rustc names
/// labeled blocks, closures and async blocks), and an unresolved name that is something else somewhere (E0425,
/// where rustc tells apart a type or a macro used as a value, E0423, a local a nested fn would capture, E0434,
/// `Self` outside an impl, E0411). A name declared nowhere, the usual mistake, stays rust-analyzer's (fast).
/// A rejection left to rustc is still a rejection: rustc rejects too.
fn rustc_names_it(d: &RaDiagnostic, text: &str) -> bool {
    const STD_MACROS: &[&str] = &[
        "println",
        "print",
        "eprintln",
        "eprint",
        "format",
        "vec",
        "assert",
        "assert_eq",
        "assert_ne",
        "panic",
        "write",
        "writeln",
        "matches",
        "dbg",
        "todo",
        "unimplemented",
        "unreachable",
    ];
    match d.code.as_deref() {
        Some("E0268") => true,
        Some("E0425") => {
            let name = text.get(d.start..d.end).unwrap_or("").trim();
            let declared = |prefix: &str| text.contains(&format!("{prefix}{name}"));
            name.is_empty()
                || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
                || name.starts_with(|c: char| c.is_uppercase())
                || STD_MACROS.contains(&name)
                || declared("let ")
                || declared("let mut ")
                || declared("macro_rules! ")
                || text.contains(&format!("{name}:"))
                || text.contains(&format!("|{name}|"))
        }
        _ => false,
    }
}

fn map_ra(d: &RaDiagnostic, spliced: &Spliced, host: &Host, hole: usize, idx: &LineIndex) -> Diagnostic {
    let (location, (line, column), (end_line, end_column), note) = locate(d.start, d.end, spliced, host, hole, idx);
    let code = d.code.as_deref().map(|c| rustc_code(c, &d.message).to_owned());
    let kind = match &code {
        Some(code) => kind_for_code(code).map_or(DiagnosticKind::Other, DiagnosticKind::Error),
        None => diagnostic::kind_for_ra_name(&d.name),
    };
    Diagnostic {
        severity: Severity::Error,
        code,
        kind,
        message: d.message.clone(),
        label: None,
        notes: note.into_iter().collect(),
        location,
        line,
        column,
        end_line,
        end_column,
    }
}

/// A safe-mode violation as a diagnostic: its kind and Lacuna code, what to do instead, and what the hole's scope
/// does hold (the only way to the world a snippet has).
fn map_violation(
    v: &policy::Violation,
    spliced: &Spliced,
    host: &Host,
    hole: usize,
    idx: &LineIndex,
    prepared: &PreparedHost,
) -> Diagnostic {
    let (location, (line, column), (end_line, end_column), note) =
        locate(v.range.start, v.range.end, spliced, host, hole, idx);
    let mut notes: Vec<String> = note.into_iter().collect();
    if let Some(grant) = v.grant {
        notes.push(format!(
            "note: the host can grant this: `grant = [\"{}\"]` in the `[policy]` table of lacuna.toml",
            grant.name()
        ));
    }
    if let Some(krate) = &v.allow {
        notes.push(format!(
            "note: the project can allow this crate: `crates = [\"{krate}\"]` in the `[policy]` table of lacuna.toml \
             (or in `[package.metadata.lacuna]` of Cargo.toml), or a module of it (`\"{krate}::module\"`)"
        ));
    }
    if v.kind == ViolationKind::AmbientAuthority {
        let names: Vec<String> =
            prepared.scopes[hole].iter().flat_map(|s| s.bindings.iter()).map(|b| format!("`{}`", b.name)).collect();
        notes.push(if names.is_empty() {
            "note: no capability for it is in scope here, and no values are; use the host's functions".into()
        } else {
            format!("note: no capability for it is in scope here; the values in scope are {}", names.join(", "))
        });
    }
    notes.push(format!("help: {}", v.kind.help()));
    Diagnostic {
        severity: Severity::Error,
        code: Some(v.kind.code().to_owned()),
        kind: DiagnosticKind::SafeMode(v.kind),
        message: v.message.clone(),
        label: Some(v.label.clone()),
        notes,
        location,
        line,
        column,
        end_line,
        end_column,
    }
}

fn primary_span(d: &RustcDiagnostic) -> Option<&rustc::RustcSpan> {
    let ours = |s: &&rustc::RustcSpan| s.file_name == "<anon>";
    d.spans.iter().filter(ours).find(|s| s.is_primary).or_else(|| d.spans.iter().find(ours))
}

fn rustc_notes(d: &RustcDiagnostic) -> Vec<String> {
    d.children.iter().filter(|c| !c.message.is_empty()).map(|c| format!("{}: {}", c.level, c.message)).collect()
}

fn rustc_kind(d: &RustcDiagnostic) -> DiagnosticKind {
    match &d.code {
        Some(c) => kind_for_code(&c.code),
        None => diagnostic::kind_for_uncoded_message(&d.message),
    }
    .map_or(DiagnosticKind::Other, DiagnosticKind::Error)
}

fn map_rustc(d: &RustcDiagnostic, spliced: &Spliced, host: &Host, hole: usize, idx: &LineIndex) -> Diagnostic {
    let (location, start, end, note) = match primary_span(d) {
        Some(span) => locate(span.byte_start, span.byte_end, spliced, host, hole, idx),
        None => {
            let hole = &host.holes[hole];
            (Location::Host, (hole.line, hole.column), (hole.line, hole.column), None)
        }
    };
    from_rustc(d, location, start, end, note)
}

/// A rustc error in the unfilled host, in host coordinates.
/// The holes whose type only a snippet can settle, when that is all that keeps the unfilled host from compiling:
/// every error is rustc's "type annotations needed" (E0282, E0283, E0284) inside the function around a hole.
/// `None` when any error is something else.
fn holes_settled_by_snippets(host: &Host, unfilled: &Spliced, errors: &[RustcDiagnostic]) -> Option<Vec<usize>> {
    let statements = &host.hole_functions;
    let mut holes = Vec::new();
    for e in errors {
        let code = e.code.as_ref().map(|c| c.code.as_str());
        if !matches!(code, Some("E0282" | "E0283" | "E0284")) {
            return None;
        }
        let start = match primary_span(e).map(|s| unfilled.origin(s.byte_start)) {
            Some(Origin::Host(start)) => start,
            _ => return None,
        };
        let around: Vec<usize> =
            statements.iter().enumerate().filter(|(_, r)| r.start <= start && start < r.end).map(|(i, _)| i).collect();
        if around.is_empty() {
            return None;
        }
        for hole in around {
            if !holes.contains(&hole) {
                holes.push(hole);
            }
        }
    }
    Some(holes)
}

fn map_host_rustc(d: &RustcDiagnostic, unfilled: &Spliced, host_index: &LineIndex) -> Diagnostic {
    let (start, end) = match primary_span(d).map(|s| (unfilled.origin(s.byte_start), unfilled.origin(s.byte_end))) {
        Some((Origin::Host(s), Origin::Host(e))) => (s, e.max(s)),
        Some((Origin::Host(s), _)) => (s, s),
        _ => (0, 0),
    };
    from_rustc(d, Location::Host, host_index.line_col(start), host_index.line_col(end), None)
}

fn from_rustc(
    d: &RustcDiagnostic,
    location: Location,
    (line, column): (u32, u32),
    (end_line, end_column): (u32, u32),
    note: Option<String>,
) -> Diagnostic {
    let mut notes: Vec<String> = note.into_iter().collect();
    notes.extend(rustc_notes(d));
    Diagnostic {
        severity: Severity::Error,
        code: d.code.as_ref().map(|c| c.code.clone()),
        kind: rustc_kind(d),
        message: d.message.clone(),
        label: primary_span(d).and_then(|s| s.label.clone()),
        notes,
        location,
        line,
        column,
        end_line,
        end_column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_brackets_not_strings() {
        assert_eq!(lexical_size("((1))").0, 2);
        assert_eq!(lexical_size("\"((((((((\"").0, 0);
        assert!(lexical_size(&"-".repeat(1000)).0 >= 1000);
    }
}
