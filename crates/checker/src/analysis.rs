//! The rust-analyzer side: an in-memory crate graph (std + `lacuna` prelude + one host crate) whose host file
//! text is replaced for each check. std is loaded once, as library roots of high durability, so a re-check only
//! re-parses the host and re-infers what changed.

use std::sync::Arc;

use either::Either;
use ra_ap_base_db::{FileChange, SourceDatabase};
use ra_ap_hir::{ChangeWithProcMacros, GenericParam, HirDisplay, PathResolution, ScopeDef, Semantics};
use ra_ap_ide::{AnalysisHost, AssistResolveStrategy, DiagnosticCode, DiagnosticsConfig, Edition, FileId, Severity};
use ra_ap_ide_db::defs::{Definition, NameRefClass};
use ra_ap_syntax::{ast, ast::HasName, AstNode, AstToken};
use ra_ap_syntax::{SyntaxKind, TextRange};

use crate::apart::Layout;
use crate::crate_graph::{World, HOST_ROOT};
use crate::std_source::{StdSource, TargetInfo};
use crate::CheckerError;
use lacuna_ir::{Binding, BindingUse, FieldPlace, HoleScope, SnippetUses, UseKind};

/// A diagnostic as rust-analyzer reports it, in spliced-text coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RaDiagnostic {
    pub start: usize,
    pub end: usize,
    /// rustc's code (`E0308`) when rust-analyzer maps to one.
    pub code: Option<String>,
    /// rust-analyzer's own name when it has no rustc code (`unresolved-macro-call`, `syntax-error`).
    pub name: String,
    pub message: String,
}

/// A hole's type as rust-analyzer infers it.
#[derive(Debug, Clone)]
pub struct HoleType {
    /// For people: always present.
    pub display: String,
    /// As Rust source valid at the hole, when the type can be written there.
    pub source: Option<String>,
}

/// What a session turn leaves behind (see [`RaSession::turn_types`]).
#[derive(Debug, Clone)]
pub struct TurnTypes {
    /// The final expression's type, if the turn ends in one.
    pub tail: Option<HoleType>,
    /// Each top-level `let` binding (the last of each name), in order, with its type.
    pub locals: Vec<(String, Option<HoleType>)>,
}

/// What rust-analyzer made of a spliced host.
pub(crate) enum Outcome {
    /// The spliced program does not parse.
    SyntaxErrors,
    /// The snippet's text closes or reaches past the block it was put in.
    EscapesHole,
    /// Type errors (possibly none).
    Errors(Vec<RaDiagnostic>),
    /// Syntax was fine and the semantic pass was not requested.
    NotAsked,
    /// Safe mode's syntax-level rules reject the snippet (no semantic pass was made).
    Policy(Vec<crate::policy::Violation>),
}

pub(crate) struct Analysed {
    pub outcome: Outcome,
    pub parse: std::time::Duration,
    pub analysis: std::time::Duration,
}

/// Stops analysis running on a [`RaSession`] from another thread.
///
/// rust-analyzer computes type inference as fixpoint queries, inside which salsa ignores a handle's local
/// cancellation token: only a pending write stops them (every query they call checks for one). A write needs a
/// handle no other handle outlives, so a stop is two steps: [`Stopper::stop`] starts the write on this spare handle
/// (salsa raises the flag at once, and the analysis unwinds with `salsa::Cancelled::PendingWrite` at its next
/// query); once the analysis has ended, [`RaSession::finish_stop`] drops the session's handle, the write completes,
/// and the spare becomes the session's handle. This is how rust-analyzer itself cancels analysis on an edit.
pub(crate) struct Stopper {
    spare: AnalysisHost,
}

impl Stopper {
    /// Starts the stop on a thread of its own; that thread waits (blocked in salsa) until
    /// [`RaSession::finish_stop`] drops the session's handle.
    pub fn stop(self) -> std::io::Result<std::thread::JoinHandle<AnalysisHost>> {
        let mut spare = self.spare;
        std::thread::Builder::new().name("lacuna-stop-analysis".into()).spawn(move || {
            spare.trigger_cancellation();
            spare
        })
    }
}

pub(crate) struct RaSession {
    host: AnalysisHost,
    host_file: FileId,
    /// The spliced text the host files hold now, and how; setting the same again is free.
    current: Option<(Arc<str>, Layout)>,
    /// The host file's text: the spliced text with the modules apart cut out ([`crate::apart`]).
    root_text: Arc<str>,
    /// Between the spliced text's offsets (everything outside this type) and the host file's.
    offsets: crate::apart::Offsets,
    /// Files the host's modules apart have had (ids from `next_file` on), with the text each holds now; the first
    /// `modules_in_root` are in the host's source root, at the paths of `current`'s layout.
    module_files: Vec<(FileId, Arc<str>)>,
    modules_in_root: Vec<String>,
    /// The file of a lifted snippet's module ([`crate::lifted`]), always in the host's source root (unlinked while
    /// the text has no lifted module), with the text it holds.
    lifted_file: FileId,
    lifted_text: Arc<str>,
    /// The host's source root has been set (with `lifted_file` in it).
    root_set: bool,
    next_file: u32,
    config: DiagnosticsConfig,
    /// How many std source files were loaded (for `--verbose` and benchmarks).
    pub std_files: usize,
    /// Every std file, core's first: what [`RaSession::errors_for_new_host`] parses ahead on a second thread.
    std_file_ids: Vec<FileId>,
    std_item_trees_ready: bool,
    /// The crate graph has proc-macro crates whose macros rust-analyzer could not expand (the toolchain's
    /// proc-macro server is missing, or a library did not load): impls they derive (`#[derive(Serialize)]`) are
    /// missing, so its errors in a snippet are no verdict and rustc decides.
    unexpanded_proc_macros: bool,
    /// The toolchain's proc-macro server, expanding a project's proc macros while the session lives.
    _proc_macro_server: Option<ra_ap_proc_macro_api::ProcMacroClient>,
    /// When the project's proc macros may run: see [`ProcMacroGate`].
    proc_macro_gate: Arc<ProcMacroGate>,
}

/// Whether proc macros may be expanded now. A proc macro is a dependency's code, run by the proc-macro server on
/// the tokens it is given: a snippet that invokes one (`some_dep::query!(..)`, `#[derive(..)]` on its own item)
/// would have it run on tokens the snippet chose before safe mode has judged the snippet (a proc macro may read
/// files or reach a database while it expands). So rust-analyzer expands proc macros only while it analyses the
/// host (whose derives stay cached: a splice leaves their input unchanged); during a snippet's check a request to
/// expand is refused, and a check that saw a refusal leaves the verdict to rustc, which runs only after safe mode
/// allowed every macro the snippet names.
#[derive(Debug, Default)]
pub(crate) struct ProcMacroGate {
    open: std::sync::atomic::AtomicBool,
    refused: std::sync::atomic::AtomicBool,
}

impl ProcMacroGate {
    fn set_open(&self, open: bool) {
        self.open.store(open, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether an expansion was refused since the last call, which forgets it.
    fn take_refused(&self) -> bool {
        self.refused.swap(false, std::sync::atomic::Ordering::SeqCst)
    }
}

/// Why an expansion was refused: rust-analyzer keeps the refusal (salsa caches it) and reports it as a
/// `macro-error` with this text wherever the invocation is, so a later check of the same invocation sees it too.
const GATE_CLOSED: &str = "Lacuna expands proc macros only in host code before safe mode has judged a snippet";

/// A proc macro's expander behind the gate.
#[derive(Debug)]
struct Gated {
    inner: Arc<dyn ra_ap_hir_expand::proc_macro::ProcMacroExpander>,
    gate: Arc<ProcMacroGate>,
}

impl ra_ap_hir_expand::proc_macro::ProcMacroExpander for Gated {
    fn expand(
        &self,
        db: &dyn ra_ap_base_db::SourceDatabase,
        subtree: &ra_ap_hir_expand::tt::TopSubtree,
        attrs: Option<&ra_ap_hir_expand::tt::TopSubtree>,
        env: &ra_ap_base_db::Env,
        def_site: ra_ap_span::Span,
        call_site: ra_ap_span::Span,
        mixed_site: ra_ap_span::Span,
        current_dir: String,
    ) -> Result<ra_ap_hir_expand::tt::TopSubtree, ra_ap_hir_expand::proc_macro::ProcMacroExpansionError> {
        if !self.gate.open.load(std::sync::atomic::Ordering::SeqCst) {
            self.gate.refused.store(true, std::sync::atomic::Ordering::SeqCst);
            return Err(ra_ap_hir_expand::proc_macro::ProcMacroExpansionError::System(GATE_CLOSED.into()));
        }
        self.inner.expand(db, subtree, attrs, env, def_site, call_site, mixed_site, current_dir)
    }

    fn eq_dyn(&self, other: &dyn ra_ap_hir_expand::proc_macro::ProcMacroExpander) -> bool {
        (other as &dyn std::any::Any)
            .downcast_ref::<Gated>()
            .is_some_and(|o| Arc::ptr_eq(&o.gate, &self.gate) && self.inner.eq_dyn(&*o.inner))
    }
}

/// A project's proc macros, loaded into the toolchain's proc-macro server
/// (`$(rustc --print sysroot)/libexec/rust-analyzer-proc-macro-srv`), as rust-analyzer loads them for an editor.
/// Returns what the database gets, the server, and whether some proc macro is left unexpanded.
fn load_proc_macros(
    crates: &[(ra_ap_base_db::CrateBuilderId, Option<std::path::PathBuf>)],
    sysroot: &std::path::Path,
    gate: &Arc<ProcMacroGate>,
) -> (Option<ra_ap_hir::ProcMacrosBuilder>, Option<ra_ap_proc_macro_api::ProcMacroClient>, bool) {
    use ra_ap_base_db::ProcMacroLoadingError;
    if crates.is_empty() {
        return (None, None, false);
    }
    let abs = |p: &std::path::Path| {
        ra_ap_paths::Utf8PathBuf::from_path_buf(p.to_path_buf())
            .ok()
            .and_then(|u| ra_ap_paths::AbsPathBuf::try_from(u).ok())
    };
    let server_path = sysroot.join("libexec").join("rust-analyzer-proc-macro-srv");
    let no_env: [(&str, &Option<&str>); 0] = [];
    let server = abs(&server_path).and_then(|p| ra_ap_proc_macro_api::ProcMacroClient::spawn(&p, no_env, None, 1).ok());
    let mut builder = ra_ap_hir::ProcMacrosBuilder::default();
    let mut unexpanded = false;
    for (id, dylib) in crates {
        let loaded = match (&server, dylib.as_deref().and_then(abs)) {
            (Some(server), Some(dylib)) => ra_ap_load_cargo::load_proc_macro(server, &dylib, &[]).map(|macros| {
                let gated = |m: ra_ap_hir_expand::proc_macro::ProcMacro| ra_ap_hir_expand::proc_macro::ProcMacro {
                    expander: Arc::new(Gated { inner: m.expander, gate: gate.clone() }),
                    ..m
                };
                macros.into_iter().map(gated).collect()
            }),
            (None, _) => Err(ProcMacroLoadingError::Disabled),
            (_, None) => Err(ProcMacroLoadingError::ExpectedProcMacroArtifact),
        };
        unexpanded |= loaded.is_err();
        builder.insert(*id, loaded);
    }
    (Some(builder), server, unexpanded)
}

impl RaSession {
    /// Lets proc macros expand until the returned guard is dropped (while the host is analysed; never while a
    /// snippet is): see [`ProcMacroGate`].
    pub fn expanding_proc_macros(&self) -> impl Drop + use<> {
        struct Closes(Arc<ProcMacroGate>);
        impl Drop for Closes {
            fn drop(&mut self) {
                self.0.set_open(false);
            }
        }
        self.proc_macro_gate.set_open(true);
        Closes(self.proc_macro_gate.clone())
    }

    /// A second handle on this session's database, for stopping the analysis in progress from another thread:
    /// see [`Stopper`].
    pub fn stopper(&self) -> Stopper {
        Stopper { spare: AnalysisHost::with_database(self.host.raw_database().clone()) }
    }

    /// Ends a stop begun with [`Stopper::stop`]: drops this session's handle, which lets the stop's write finish,
    /// and goes on with the stopper's handle (the same database, a revision later). Call it once the stopped
    /// analysis has returned or unwound.
    pub fn finish_stop(&mut self, stopping: std::thread::JoinHandle<AnalysisHost>) {
        let stopped = std::mem::replace(&mut self.host, AnalysisHost::new(None));
        drop(stopped);
        // The thread only waits for the handle just dropped; it cannot panic but by a bug in salsa.
        if let Ok(spare) = stopping.join() {
            self.host = spare;
        }
    }

    pub fn load(
        std_src: &StdSource,
        target: &TargetInfo,
        prelude: &str,
        project: Option<&lacuna_project::CrateGraph>,
        sysroot: &std::path::Path,
    ) -> Result<RaSession, CheckerError> {
        let World { change, host_file, std_files, std_file_ids, proc_macro_crates, next_file } =
            World::new(std_src, target, prelude, project)?;
        let mut host = AnalysisHost::new(None);
        let proc_macro_gate = Arc::new(ProcMacroGate::default());
        let (proc_macros, server, unexpanded_proc_macros) =
            load_proc_macros(&proc_macro_crates, sysroot, &proc_macro_gate);
        if proc_macros.is_some() {
            host.raw_database_mut().enable_proc_attr_macros();
        }
        host.apply_change(ChangeWithProcMacros { source_change: change, proc_macros });
        let mut config = DiagnosticsConfig::test_sample();
        config.style_lints = false;
        config.term_search_fuel = 0;
        Ok(RaSession {
            host,
            host_file,
            current: None,
            root_text: Arc::from(""),
            offsets: crate::apart::Offsets::default(),
            module_files: Vec::new(),
            modules_in_root: Vec::new(),
            lifted_file: FileId::from_raw(next_file),
            lifted_text: Arc::from(""),
            root_set: false,
            next_file: next_file + 1,
            config,
            std_files,
            std_file_ids,
            std_item_trees_ready: false,
            unexpanded_proc_macros,
            _proc_macro_server: server,
            proc_macro_gate,
        })
    }

    /// The spliced text the host files hold ([`RaSession::set_text`]): its parse, whether the snippet's block is
    /// intact, then (if `semantic`) rust-analyzer's errors. `block` is the range of the `{ snippet }` block in it.
    /// With a `policy`, safe mode's syntax-level rules run on the snippet first.
    pub fn analyse(
        &self,
        block: std::ops::Range<usize>,
        semantic: bool,
        policy: Option<&lacuna_policy::Policy>,
    ) -> Analysed {
        let started = std::time::Instant::now();
        // A lifted snippet is in the lifted module's file, whose diagnostics are all the snippet's: the host's file
        // is the unfilled host's, whatever the snippet.
        let (file_id, block) = self.place(block);
        // A refusal before this analysis is not this snippet's (what this one meets of its own shows as an error).
        self.proc_macro_gate.take_refused();
        // rust-analyzer's own parse of it (kept in its database, so the analysis below does not parse again).
        let db = self.host.raw_database();
        let file = ra_ap_hir::attach_db(db, || Semantics::new(db).attach_first_edition(file_id).parse(db));
        let errors = file.errors();
        let parse = started.elapsed();
        let outcome = if !errors.is_empty() {
            if semantic {
                // rustc's parser names the errors (with codes for many of them): see `Checker::check`.
                Outcome::SyntaxErrors
            } else {
                // Without rust-analyzer's verdicts, rustc judges syntax.
                Outcome::NotAsked
            }
        } else if !crate::host::block_is_intact(&file.tree(), &block) {
            Outcome::EscapesHole
        } else if let Some(violations) = policy
            .filter(|p| !p.is_unconfined())
            .map(|_| {
                let inner = TextRange::new(((block.start + 1) as u32).into(), ((block.end - 1) as u32).into());
                crate::policy::syntax::violations(file.tree().syntax(), Some(inner), None)
            })
            .filter(|v| !v.is_empty())
        {
            Outcome::Policy(violations)
        } else if let Some(why) = semantic.then(|| self.expands_too_far(file_id, block.clone())).flatten() {
            // rust-analyzer is not asked (its analysis of what the macros make could not be stopped).
            match policy.filter(|p| !p.is_unconfined()) {
                Some(_) => Outcome::Policy(vec![crate::policy::Violation {
                    kind: lacuna_policy::ViolationKind::Unverifiable,
                    range: block.start + 1..block.end - 1,
                    message: format!("{why}, more than safe mode inspects"),
                    label: "expands too far".into(),
                    grant: None,
                    allow: None,
                }]),
                None => Outcome::NotAsked,
            }
        } else if semantic {
            match self.file_errors(file_id) {
                Ok(mut errors) => {
                    for e in &mut errors {
                        refine_code_in_patterns(&file.tree(), e);
                    }
                    // rust-analyzer misses impls declared inside function bodies and closures (methods and
                    // trait bounds they provide come out as E0599/E0277): with any there, its errors are no
                    // verdict and rustc decides.
                    // Unexpanded proc macros: the snippet's own errors are no verdict (the host's are the baseline's
                    // to judge).
                    let in_snippet = errors.iter().any(|e| block.start <= e.start && e.end <= block.end);
                    // A proc macro the snippet invoked was not expanded (see `ProcMacroGate`): rustc decides.
                    let refused =
                        self.proc_macro_gate.take_refused() || errors.iter().any(|e| e.message.contains(GATE_CLOSED));
                    // Only with errors: the host's are known, the snippet's are looked for in its block.
                    let unsure = || {
                        (self.unexpanded_proc_macros && in_snippet)
                            || self.current.as_ref().is_some_and(|(_, l)| l.block_local_impls)
                            || match file.tree().syntax().covering_element(TextRange::new(
                                (block.start as u32).into(),
                                (block.end as u32).into(),
                            )) {
                                ra_ap_syntax::NodeOrToken::Node(node) => has_block_local_impls(&node),
                                ra_ap_syntax::NodeOrToken::Token(_) => false,
                            }
                    };
                    if refused || (!errors.is_empty() && unsure()) {
                        Outcome::NotAsked
                    } else {
                        Outcome::Errors(errors)
                    }
                }
                Err(_) => Outcome::NotAsked,
            }
        } else {
            Outcome::NotAsked
        };
        let outcome = match outcome {
            Outcome::Errors(errors) => {
                Outcome::Errors(errors.into_iter().map(|e| self.error_from(file_id, e)).collect())
            }
            Outcome::Policy(violations) => {
                Outcome::Policy(violations.into_iter().map(|v| self.violation_from(file_id, v)).collect())
            }
            other => other,
        };
        let analysis = started.elapsed() - parse;
        Analysed { outcome, parse, analysis }
    }

    /// Whether the snippet in `block` of `text` has its own macros expand beyond the checker's budget
    /// ([`crate::expansion`]), and how.
    fn expands_too_far(&self, file: FileId, block: std::ops::Range<usize>) -> Option<String> {
        let db = self.host.raw_database();
        ra_ap_hir::attach_db(db, || {
            let sema = Semantics::new(db);
            let file_id = sema.attach_first_edition(file);
            let file = sema.parse(file_id);
            let range = TextRange::new((block.start as u32).into(), (block.end as u32).into());
            crate::expansion::too_far(&sema, db, file.syntax(), range)
        })
    }

    /// Safe mode's syntax-level rules alone on the snippet in `block` of `text` (empty when it does not parse:
    /// then the parser's errors reject it).
    pub fn syntax_violations(
        &self,
        text: &str,
        block: std::ops::Range<usize>,
        policy: Option<&lacuna_policy::Policy>,
    ) -> Vec<crate::policy::Violation> {
        if policy.is_none_or(|p| p.is_unconfined()) {
            return Vec::new();
        }
        let file = ra_ap_syntax::SourceFile::parse(text, Edition::Edition2021);
        let inner = TextRange::new(((block.start + 1) as u32).into(), ((block.end - 1) as u32).into());
        crate::policy::syntax::violations(file.tree().syntax(), Some(inner), None)
    }

    /// Makes the host's files hold `text` read with `layout` (a no-op if they already do): the host file the
    /// text with the modules apart cut out, each of those a file of its own. Only files whose text changed are
    /// set, so a check that changes one hole leaves the modules' files, and what rust-analyzer made of them, be.
    pub fn set_text(&mut self, text: &str, layout: &Layout) {
        if self.current.as_ref().is_some_and(|(t, l)| &**t == text && l == layout) {
            return;
        }
        let paths: Vec<&str> = layout.apart.iter().map(|a| a.path.as_str()).collect();
        let mut change = FileChange::default();
        if paths != self.modules_in_root || !self.root_set {
            while self.module_files.len() < paths.len() {
                self.module_files.push((FileId::from_raw(self.next_file), Arc::from("")));
                self.next_file += 1;
            }
            let mut modules: Vec<(FileId, &str)> =
                self.module_files.iter().zip(&paths).map(|((id, _), path)| (*id, *path)).collect();
            modules.push((self.lifted_file, crate::lifted::MODULE_PATH));
            let root = crate::crate_graph::host_root(self.host_file, &modules);
            // Straight to the database, not through `FileChange::set_roots`, which would set every root again
            // (std's too, and all rust-analyzer made of std would be made again).
            let db = self.host.raw_database_mut();
            for (id, _) in &modules {
                db.set_file_source_root_with_durability(*id, HOST_ROOT, salsa::Durability::LOW);
            }
            db.set_source_root_with_durability(HOST_ROOT, triomphe::Arc::new(root), salsa::Durability::LOW);
            self.modules_in_root = paths.iter().map(|p| (*p).to_owned()).collect();
            if !self.root_set {
                change.change_file(self.lifted_file, Some(String::new()));
                self.root_set = true;
            }
        }
        for ((id, held), (_, body)) in self.module_files.iter_mut().zip(layout.files(text)) {
            if &**held != body {
                *held = Arc::from(body);
                change.change_file(*id, Some(body.to_owned()));
            }
        }
        if let Some(lifted) = layout.lifted_text(text).filter(|t| **t != *self.lifted_text) {
            change.change_file(self.lifted_file, Some(lifted.to_owned()));
            self.lifted_text = Arc::from(lifted);
        }
        let root_text = layout.root_text(text);
        if *self.root_text != *root_text {
            change.change_file(self.host_file, Some(root_text.clone()));
            self.root_text = Arc::from(root_text);
        }
        self.offsets = layout.offsets();
        self.host.apply_change(ChangeWithProcMacros { source_change: change, proc_macros: None });
        self.current = Some((text.into(), layout.clone()));
    }

    /// [`RaSession::errors`], for a new host. For the session's first, most of the cost is parsing std and
    /// collecting its item trees, so a second thread parses std files ahead while this one works. Both only read
    /// the database, so neither cancels the other; salsa makes a thread that needs a file the other is parsing
    /// wait for it. Later hosts find std's item trees computed (parse trees themselves are evicted), so no help.
    pub fn errors_for_new_host(&mut self) -> Result<Vec<RaDiagnostic>, CheckerError> {
        if self.std_item_trees_ready {
            return self.errors();
        }
        self.std_item_trees_ready = true;
        let analysis = self.host.analysis();
        let ids = self.std_file_ids.clone();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop_helper = stop.clone();
        let helper =
            std::thread::Builder::new().name("lacuna-parse-ahead".into()).stack_size(256 << 20).spawn(move || {
                for id in ids {
                    if stop_helper.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    let _ = analysis.parse(id);
                }
            });
        let errors = self.errors();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Ok(helper) = helper {
            // A panic in the helper costs only its head start.
            let _ = helper.join();
        }
        errors
    }

    /// Error-severity diagnostics for the host files as they are now, in the spliced text's offsets.
    /// rust-analyzer's warnings and lints are not verdicts and are dropped.
    pub fn errors(&self) -> Result<Vec<RaDiagnostic>, CheckerError> {
        Ok(self.root_errors()?.into_iter().map(|e| self.error_from_root(e)).collect())
    }

    fn error_from_root(&self, e: RaDiagnostic) -> RaDiagnostic {
        self.error_from(self.host_file, e)
    }

    fn error_from(&self, file: FileId, e: RaDiagnostic) -> RaDiagnostic {
        let range = self.text_range(file, e.start..e.end);
        RaDiagnostic { start: range.start, end: range.end, ..e }
    }

    fn violation_from(&self, file: FileId, v: crate::policy::Violation) -> crate::policy::Violation {
        crate::policy::Violation { range: self.text_range(file, v.range.clone()), ..v }
    }

    /// The current text's lifted module, if it has one: where its file's text starts, and its parameters.
    fn lifted(&self) -> Option<(usize, &crate::apart::LiftedModule)> {
        let lifted = self.current.as_ref()?.1.lifted.as_ref()?;
        Some((lifted.body.start + 1, lifted))
    }

    /// The file a range of the current text is in (the host file, or the lifted module's), and the range there.
    fn place(&self, range: std::ops::Range<usize>) -> (FileId, std::ops::Range<usize>) {
        match self.lifted() {
            Some((at, lifted)) if range.start >= at && range.end < lifted.body.end => {
                (self.lifted_file, range.start - at..range.end - at)
            }
            _ => (self.host_file, self.offsets.root_range(range)),
        }
    }

    /// A range of `file` (the host file or the lifted module's) in the current text.
    fn text_range(&self, file: FileId, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        match self.lifted() {
            Some((at, _)) if file == self.lifted_file => range.start + at..range.end + at,
            _ => self.offsets.text_range_of(range),
        }
    }

    /// Where a local is declared, in the current text: a lifted snippet's parameter is declared where its binding
    /// is, so the two are one wherever bindings are looked up by their declaration.
    fn decl_in_text(&self, (file, at): (FileId, usize)) -> usize {
        match self.lifted() {
            Some((start, lifted)) if file == self.lifted_file => {
                let at = at + start;
                lifted.aliases.iter().find(|(param, _)| *param == at).map_or(at, |(_, decl)| *decl)
            }
            _ => self.offsets.text_of(at),
        }
    }

    /// A binding's declaration (in the current text) in the offsets of the file the snippet is in: with a lifted
    /// snippet, its parameter's (none: a binding no parameter stands for, which nothing declared there is).
    fn decl_in_file(&self, decl: usize) -> usize {
        match self.lifted() {
            Some((start, lifted)) => {
                lifted.aliases.iter().find(|(_, d)| *d == decl).map_or(usize::MAX, |(param, _)| param - start)
            }
            None => self.offsets.root_of(decl),
        }
    }

    /// [`RaSession::errors`] in the host file's offsets.
    fn root_errors(&self) -> Result<Vec<RaDiagnostic>, CheckerError> {
        self.file_errors(self.host_file)
    }

    /// Error-severity diagnostics of one file, in its offsets.
    fn file_errors(&self, file: FileId) -> Result<Vec<RaDiagnostic>, CheckerError> {
        let analysis = self.host.analysis();
        let diags = analysis
            .full_diagnostics(&self.config, AssistResolveStrategy::None, file)
            .map_err(|_| CheckerError::Internal { detail: "rust-analyzer query cancelled".into() })?;
        Ok(diags
            .into_iter()
            .filter(|d| d.severity == Severity::Error && !d.unused)
            .filter(|d| d.range.file_id == file)
            .map(|d| {
                let code = |c: &str| (Some(c.to_owned()), c.to_owned());
                let (code, name) = match d.code {
                    // Where rust-analyzer's code differs from rustc's for the same error, say rustc's.
                    DiagnosticCode::RustcHardError("E0559") if d.message.contains("but a method") => code("E0615"),
                    DiagnosticCode::RustcHardError("E0559") if d.message.starts_with("no field") => code("E0609"),
                    DiagnosticCode::RustcHardError("undeclared-label") => code("E0426"),
                    DiagnosticCode::RustcHardError(c) if c.starts_with('E') => (Some(c.to_owned()), c.to_owned()),
                    DiagnosticCode::SyntaxError => (None, "syntax-error".to_owned()),
                    other => (None, other.as_str().to_owned()),
                };
                // rust-analyzer spells out the default allocator (`Vec<i64, Global>`); rustc does not.
                let message = if name == "syntax-error" {
                    crate::diagnostic::syntax_message(&d.message)
                } else {
                    d.message.replace(", Global>", ">")
                };
                RaDiagnostic {
                    start: usize::from(d.range.range.start()),
                    end: usize::from(d.range.range.end()),
                    code,
                    name,
                    message,
                }
            })
            .collect())
    }

    /// `f` with the database attached, over the current text's syntax and `range` in it.
    fn with_semantics<R>(
        &self,
        range: std::ops::Range<usize>,
        f: impl FnOnce(
            &dyn ra_ap_hir::db::HirDatabase,
            &Semantics<'_, ra_ap_ide::RootDatabase>,
            ast::SourceFile,
            TextRange,
        ) -> Option<R>,
    ) -> Option<R> {
        let range = self.offsets.root_range(range);
        let db = self.host.raw_database();
        ra_ap_hir::attach_db(db, || {
            let sema = Semantics::new(db);
            let file = sema.parse(sema.attach_first_edition(self.host_file));
            f(db, &sema, file, TextRange::new((range.start as u32).into(), (range.end as u32).into()))
        })
    }

    /// The type of the innermost expression around `range` (a snippet in place: what it settles its hole's type
    /// to), as rust-analyzer displays it.
    pub fn expr_type(&self, range: std::ops::Range<usize>) -> Option<String> {
        self.expr_types(range).map(|t| t.display)
    }

    /// The type of the expression covering `range`, for people and, when it can be written there, as source.
    pub fn expr_types(&self, range: std::ops::Range<usize>) -> Option<HoleType> {
        self.with_semantics(range, |db, sema, file, range| {
            // The innermost expression around all of `range`; inside a macro's arguments (`println!("{}",
            // agent!(..))`), in its expansion.
            let token = file.syntax().token_at_offset(range.start()).right_biased()?;
            let expr = sema.descend_into_macros(token).into_iter().find_map(|descended| {
                descended.parent_ancestors().filter_map(ast::Expr::cast).find(|expr| {
                    sema.original_range_opt(expr.syntax())
                        .is_some_and(|r| r.file_id.file_id(db) == self.host_file && r.range.contains_range(range))
                })
            })?;
            let ty = sema.type_of_expr(&expr)?.original;
            let scope = sema.scope(expr.syntax())?;
            let module = scope.module();
            // A fn item or a closure cannot be named; as a function pointer it can (rustc confirms it fits).
            let fn_pointer = || {
                let callable = ty.as_callable(db)?;
                if !matches!(
                    callable.kind(),
                    ra_ap_hir::CallableKind::Function(_) | ra_ap_hir::CallableKind::Closure(_)
                ) {
                    return None;
                }
                Some(format!("fn{}", signature(db, &callable, module)?))
            };
            (!ty.is_unknown()).then(|| HoleType {
                display: ty.display_truncated(db, None, scope.krate().to_display_target(db)).to_string(),
                source: ty.display_source_code(db, module.into(), false).ok().map(stable_source).or_else(fn_pointer),
            })
        })
    }

    /// The types a session turn leaves behind: its final expression's, and each top-level `let` binding's (the
    /// last of each name), in the snippet spliced as the block at `block` of the current text.
    pub fn turn_types(&self, block: std::ops::Range<usize>) -> Option<TurnTypes> {
        self.with_semantics(block, |db, sema, file, range| {
            let block = file
                .syntax()
                .descendants()
                .filter_map(ast::BlockExpr::cast)
                .find(|b| b.syntax().text_range() == range)?;
            let stmts = block.stmt_list()?;
            let scope = sema.scope(stmts.syntax())?;
            let (module, target) = (scope.module(), scope.krate().to_display_target(db));
            let shown = |ty: ra_ap_hir::Type<'_>| HoleType {
                display: ty.display_truncated(db, None, target).to_string(),
                source: (!ty.is_unknown())
                    .then(|| ty.display_source_code(db, module.into(), false).ok().map(stable_source))
                    .flatten(),
            };
            let tail = stmts.tail_expr().and_then(|e| sema.type_of_expr(&e)).map(|t| shown(t.original));
            let mut locals: Vec<(String, Option<HoleType>)> = Vec::new();
            for stmt in stmts.statements() {
                let ast::Stmt::LetStmt(let_stmt) = stmt else { continue };
                let Some(pat) = let_stmt.pat() else { continue };
                for ident in pat.syntax().descendants().filter_map(ast::IdentPat::cast) {
                    let Some(name) = ident.name() else { continue };
                    let ty = sema.type_of_binding_in_pat(&ident).map(shown);
                    let name = name.text().to_string();
                    locals.retain(|(n, _)| *n != name);
                    locals.push((name, ty));
                }
            }
            Some(TurnTypes { tail, locals })
        })
    }

    pub fn hole_type(&self, offset: usize) -> Option<HoleType> {
        // Types (nested `dyn`, say) are only displayed with the database attached to the thread.
        ra_ap_hir::attach_db(self.host.raw_database(), || self.hole_type_attached(offset))
    }

    fn hole_type_attached(&self, offset: usize) -> Option<HoleType> {
        let offset = self.offsets.root_of(offset);
        let db = self.host.raw_database();
        let sema = Semantics::new(db);
        let file_id = sema.attach_first_edition(self.host_file);
        let file = sema.parse(file_id);
        let token = file.syntax().token_at_offset((offset as u32).into()).right_biased()?;
        for descended in sema.descend_into_macros(token) {
            let Some(call) = descended.parent_ancestors().find_map(ast::MacroCall::cast) else { continue };
            let Some(expr) = call.syntax().parent().and_then(ast::MacroExpr::cast) else { continue };
            let Some(info) = sema.type_of_expr(&ast::Expr::MacroExpr(expr)) else { continue };
            let scope = sema.scope(call.syntax())?;
            let inner = info.original.type_arguments().next()?;
            if inner.is_unknown() {
                return None;
            }
            // As source code, relative to the hole's module (default type parameters left out); types that
            // cannot be written there (closures, opaque types) have only the display form.
            let source = inner.display_source_code(db, scope.module().into(), false).ok().map(stable_source);
            let display = source
                .clone()
                .unwrap_or_else(|| inner.display_truncated(db, None, scope.krate().to_display_target(db)).to_string());
            return Some(HoleType { display, source });
        }
        None
    }
}

impl RaSession {
    /// The bindings visible at the hole whose `agent` token starts at `offset`, in the current text (the unfilled
    /// host). `None` if rust-analyzer cannot place the hole.
    pub fn hole_scope(&self, offset: usize) -> Option<HoleScope> {
        let db = self.host.raw_database();
        // Trait queries (`is_copy`) need the database attached to the thread.
        ra_ap_hir::attach_db(db, || self.hole_scope_attached(offset))
    }

    fn hole_scope_attached(&self, offset: usize) -> Option<HoleScope> {
        let offset = self.offsets.root_of(offset);
        let db = self.host.raw_database();
        let sema = Semantics::new(db);
        let file_id = sema.attach_first_edition(self.host_file);
        let file = sema.parse(file_id);
        let token = file.syntax().token_at_offset((offset as u32).into()).right_biased()?;
        let item_position = token
            .parent_ancestors()
            .find_map(ast::StmtList::cast)
            .filter(|_| token.parent_ancestors().any(|a| a.kind() == SyntaxKind::FN))
            .and_then(|list| list.l_curly_token())
            .map(|curly| self.offsets.text_of(usize::from(curly.text_range().end())));
        for descended in sema.descend_into_macros(token) {
            let Some(call) = descended.parent_ancestors().find_map(ast::MacroCall::cast) else { continue };
            let Some(scope) = sema.scope(call.syntax()) else { continue };
            let module = scope.module();
            let mut scope_info = HoleScope { item_position, ..HoleScope::default() };
            let mut locals = Vec::new();
            scope.process_all_names(&mut |name, def| match def {
                ScopeDef::Local(local) => locals.push((name, local)),
                // A trait's `Self` (in a default method) is a type parameter like the others; an impl's is its
                // type.
                ScopeDef::GenericParam(GenericParam::TypeParam(_)) => {
                    scope_info.type_params.push(name.as_str().to_owned())
                }
                ScopeDef::GenericParam(GenericParam::ConstParam(_)) => scope_info.const_params = true,
                ScopeDef::ImplSelfType(imp) => {
                    scope_info.self_type =
                        imp.self_ty(db).display_source_code(db, module.into(), false).ok().map(stable_source)
                }
                _ => {}
            });
            for (name, local) in locals {
                let Some(decl) = local_decl(db, local).map(|d| self.decl_in_text(d)) else {
                    // Not one a snippet can name (a `for` loop's iterator) is no local it could see.
                    scope_info.unlisted_locals |= spellable(&name);
                    continue;
                };
                let ty = local.ty(db);
                scope_info.bindings.push(Binding {
                    name: name.as_str().to_owned(),
                    decl,
                    ty: ty.display_source_code(db, module.into(), false).ok().map(stable_source),
                    ty_display: ty.display_truncated(db, None, scope.krate().to_display_target(db)).to_string(),
                    mutable: local.is_mut(db),
                    copy: ty.is_copy(db),
                    mut_ref: ty.is_mutable_reference(),
                    is_self: local.is_self(db),
                    const_opaque: const_opaque(db, local),
                    const_value: const_value(db, local),
                    callable: callable_of(db, &ty, module),
                });
            }
            scope_info.bindings.sort_by_key(|b| b.decl);
            scope_info.type_params.sort();
            return Some(scope_info);
        }
        None
    }

    /// Where the snippet at `snippet` (a range of the current, spliced text) refers to `bindings` and `Self`.
    pub fn snippet_uses(&self, snippet: std::ops::Range<usize>, bindings: &[Binding]) -> SnippetUses {
        let db = self.host.raw_database();
        ra_ap_hir::attach_db(db, || self.snippet_uses_attached(snippet, bindings))
    }

    fn snippet_uses_attached(&self, snippet: std::ops::Range<usize>, bindings: &[Binding]) -> SnippetUses {
        // Offsets out are relative to the snippet's start, the same in both texts (no module is cut from a
        // snippet); binding declarations are compared in the spliced text's.
        let (snippet_file, snippet) = self.place(snippet);
        let db = self.host.raw_database();
        let sema = Semantics::new(db);
        let file_id = sema.attach_first_edition(snippet_file);
        let file = sema.parse(file_id);
        let range = TextRange::new((snippet.start as u32).into(), (snippet.end as u32).into());
        let binding_of = |local: ra_ap_hir::Local<'_>| {
            let decl = self.decl_in_text(local_decl(db, local)?);
            let name = local.name(db);
            bindings.iter().position(|b| b.decl == decl && b.name == name.as_str())
        };
        let rel = |r: TextRange| usize::from(r.start()) - snippet.start..usize::from(r.end()) - snippet.start;
        let mut out = SnippetUses {
            fuel_points: crate::fuel::points(file.syntax(), range, snippet.start),
            ..SnippetUses::default()
        };
        out.fuel_points.extend(crate::iteration::points(&sema, db, file.syntax(), range, snippet.start));
        for element in file.syntax().descendants_with_tokens() {
            let Some(token) = element.into_token() else { continue };
            if !range.contains_range(token.text_range()) {
                continue;
            }
            match token.kind() {
                // `Self` of the hole's context, not of an impl or trait the snippet declares.
                SyntaxKind::SELF_TYPE_KW
                    if !token
                        .parent_ancestors()
                        .take_while(|n| range.contains_range(n.text_range()))
                        .any(|n| matches!(n.kind(), SyntaxKind::IMPL | SyntaxKind::TRAIT)) =>
                {
                    out.self_types.push(rel(token.text_range()))
                }
                SyntaxKind::SELF_TYPE_KW => {}
                SyntaxKind::IDENT | SyntaxKind::SELF_KW => {
                    for descended in sema.descend_into_macros(token.clone()) {
                        let Some(name_ref) = descended.parent().and_then(ast::NameRef::cast) else { continue };
                        let (local, kind) = match NameRefClass::classify(&sema, &name_ref) {
                            Some(NameRefClass::Definition(Definition::Local(local), _)) => (local, UseKind::Path),
                            Some(NameRefClass::FieldShorthand { local_ref, .. }) => {
                                (local_ref, UseKind::FieldShorthand)
                            }
                            _ => continue,
                        };
                        if let Some(binding) = binding_of(local) {
                            let moved_into = moved_into(&token, range).map(rel);
                            if kind == UseKind::Path {
                                for fields in lock_fields(&sema, &name_ref) {
                                    let place = FieldPlace { binding, fields };
                                    if !out.lock_fields.contains(&place) {
                                        out.lock_fields.push(place);
                                    }
                                }
                            }
                            out.uses.push(BindingUse { binding, range: rel(token.text_range()), kind, moved_into });
                            if !out.retyped.iter().any(|(b, _)| *b == binding) {
                                let module =
                                    sema.scope(name_ref.syntax()).map(|s| crate::lifted::hole_module(db, s.module()));
                                let ty = module.and_then(|m| {
                                    local.ty(db).display_source_code(db, m.into(), false).ok().map(stable_source)
                                });
                                if let Some(ty) = ty.filter(|t| bindings[binding].ty.as_deref() != Some(t.as_str())) {
                                    out.retyped.push((binding, ty));
                                }
                            }
                        }
                        break;
                    }
                }
                SyntaxKind::STRING => {
                    let Some(string) = ast::String::cast(token.clone()) else { continue };
                    let Some(parts) = sema.as_format_args_parts(&string) else { continue };
                    let Some(close) = token
                        .parent_ancestors()
                        .find_map(ast::MacroCall::cast)
                        .and_then(|call| call.token_tree())
                        .and_then(|tt| tt.syntax().last_token())
                    else {
                        continue;
                    };
                    let comma = close
                        .prev_token()
                        .into_iter()
                        .flat_map(|t| std::iter::successors(Some(t), |t| t.prev_token()))
                        .find(|t| !t.kind().is_trivia())
                        .is_some_and(|t| t.kind() == SyntaxKind::COMMA);
                    for (part, resolution) in parts {
                        let Some(Either::Left(PathResolution::Local(local))) = resolution else { continue };
                        if let Some(binding) = binding_of(local) {
                            let close = usize::from(close.text_range().start()) - snippet.start;
                            out.uses.push(BindingUse {
                                binding,
                                range: rel(part),
                                kind: UseKind::FormatCapture { close, comma },
                                moved_into: moved_into(&token, range).map(rel),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }
}

impl RaSession {
    /// Safe mode's allowlist over everything the snippet at `snippet` (a range of the current, spliced text)
    /// resolves to, its own macros' expansions included.
    pub fn policy_violations(
        &self,
        snippet: std::ops::Range<usize>,
        policy: &lacuna_policy::Policy,
    ) -> Vec<crate::policy::Violation> {
        let file = self.place(snippet.clone()).0;
        self.with_snippet(snippet, |sema, db, range, root| {
            let file = root.ancestors().last().unwrap_or_else(|| root.clone());
            let mut walker = crate::policy::resolve::Walker::new(sema, db, policy, range, file);
            walker.walk(root, None);
            let mut out = walker.out;
            out.extend(crate::policy::classified::violations(sema, db, policy, range, root));
            crate::policy::dedup(out)
        })
        .into_iter()
        .map(|v| self.violation_from(file, v))
        .collect()
    }

    /// What the snippet at `snippet` (a range of the current, spliced text) does across the line between a
    /// package's binary and its library that the two as cargo's crates would not allow ([`crate::boundary`]).
    pub fn boundary_crossings(&self, snippet: std::ops::Range<usize>) -> Vec<crate::boundary::Crossing> {
        let file = self.place(snippet.clone()).0;
        let mut crossings = self.with_snippet(snippet, crate::boundary::crossings);
        for c in &mut crossings {
            let range = self.text_range(file, usize::from(c.range.start())..usize::from(c.range.end()));
            c.range = TextRange::new((range.start as u32).into(), (range.end as u32).into());
        }
        crossings
    }

    /// `f` over the snippet at `snippet` of the current text: its range, and the smallest node that covers it.
    fn with_snippet<R>(
        &self,
        snippet: std::ops::Range<usize>,
        f: impl for<'db> FnOnce(
            &Semantics<'db, ra_ap_ide::RootDatabase>,
            &'db ra_ap_ide::RootDatabase,
            TextRange,
            &ra_ap_syntax::SyntaxNode,
        ) -> R,
    ) -> R {
        let (file, snippet) = self.place(snippet);
        let db = self.host.raw_database();
        ra_ap_hir::attach_db(db, || {
            let sema = Semantics::new(db);
            let file_id = sema.attach_first_edition(file);
            let file = sema.parse(file_id);
            let range = TextRange::new((snippet.start as u32).into(), (snippet.end as u32).into());
            let root = match file.syntax().covering_element(range) {
                ra_ap_syntax::NodeOrToken::Node(n) => n,
                ra_ap_syntax::NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| file.syntax().clone()),
            };
            f(&sema, db, range, &root)
        })
    }

    /// The typed view of the snippet in `block` (the spliced `{ .. }`, in the current text), or why it is
    /// outside the subset.
    pub fn typed_snippet(
        &self,
        block: std::ops::Range<usize>,
        bindings: &[Binding],
        named: &crate::NamedItems,
    ) -> Result<lacuna_ir::TypedSnippet, lacuna_ir::Unsupported> {
        // The typed view's ranges are relative to the snippet's start, the same in both texts; it finds bindings
        // by their declarations in the host file's offsets.
        let (file, block) = self.place(block);
        let bindings: Vec<Binding> =
            bindings.iter().map(|b| Binding { decl: self.decl_in_file(b.decl), ..b.clone() }).collect();
        let bindings = &bindings[..];
        let db = self.host.raw_database();
        ra_ap_hir::attach_db(db, || {
            let sema = Semantics::new(db);
            let file_id = sema.attach_first_edition(file);
            let file = sema.parse(file_id);
            let range = TextRange::new((block.start as u32).into(), (block.end as u32).into());
            // A hole inside a macro call's arguments (`println!("{}", agent!(..)?)`) is in a token tree, not in
            // the file's syntax.
            let whole = lacuna_ir::Unsupported { construct: "a hole inside a macro's arguments".into(), range: 0..0 };
            let node = match file.syntax().covering_element(range) {
                ra_ap_syntax::NodeOrToken::Node(n) => n,
                ra_ap_syntax::NodeOrToken::Token(t) => t.parent().ok_or(whole.clone())?,
            };
            let block_expr = node
                .ancestors()
                .filter_map(ast::BlockExpr::cast)
                .find(|b| b.syntax().text_range() == range)
                .ok_or(whole.clone())?;
            let mut builder = crate::ir_build::Builder::new(&sema, db, (file_id.file_id(db), range), named, bindings);
            builder.note_move_closures(&block_expr);
            if let Some(list) = block_expr.stmt_list() {
                builder.unreported_errors(list.syntax());
            }
            builder.lift_owned_bindings(&block_expr);
            builder.convert_settled_sequences(&block_expr);
            let body = builder.block(&block_expr)?;
            builder.unplaced_move_copies()?;
            let hole_ty = sema.type_of_expr(&ast::Expr::BlockExpr(block_expr.clone()));
            if hole_ty.is_some_and(|t| builder.copies_references(&t.original)) {
                return Err(lacuna_ir::Unsupported {
                    construct: "a vector of references as the hole's value".into(),
                    range: 0..0,
                });
            }
            let ty = body
                .ty
                .clone()
                .ok_or(lacuna_ir::Unsupported { construct: "a snippet of unknown type".into(), range: 0..0 })?;
            let fns = builder.fns.iter().cloned().collect::<Option<Vec<_>>>().ok_or(lacuna_ir::Unsupported {
                construct: "a function declared after its block".into(),
                range: 0..0,
            })?;
            let references = builder.references.take();
            Ok(lacuna_ir::TypedSnippet {
                body,
                ty,
                locals: builder.locals,
                fns,
                bindings: builder.used_bindings,
                retyped: builder.retyped,
                lifted: builder.lifted,
                converted: builder.converted,
                references,
                owns_buffers: builder.owns_buffers.get(),
                rustc_decides: builder.rustc_decides.take(),
                fields: builder.fields,
                seq_places: builder.seq_places,
                elem_fields: builder.elem_fields,
                structs: builder.structs.take(),
                formats: builder.formats.take(),
                tuples: builder.tuples.take(),
            })
        })
    }
}

/// The file and offset of a local's declaration, when it is in a file itself (not made by a macro).
fn local_decl(db: &dyn ra_ap_hir::db::HirDatabase, local: ra_ap_hir::Local<'_>) -> Option<(FileId, usize)> {
    // Locals rust-analyzer makes up while desugaring (a `for` loop's iterator) have names no source can spell and
    // no syntax; `primary_source` panics on them.
    if !spellable(&local.name(db)) {
        return None;
    }
    let source = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(db))).ok()?;
    let file = source.file().file_id()?;
    Some((file.file_id(db), usize::from(source.syntax().text_range().start())))
}

/// Whether source can spell a local's name (rust-analyzer makes up some while desugaring).
fn spellable(name: &ra_ap_hir::Name) -> bool {
    name.as_str().chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether rustc's compile-time evaluation (the `arithmetic_overflow` and `unconditional_panic` lints, which do
/// not look into calls) cannot know the local's value: an immutable parameter of a function or closure, an
/// immutable `for` loop variable (it comes from `Iterator::next`), or an immutable `let` binding initialized by a
/// call. Anything else might be known (false is the safe answer).
fn const_opaque(db: &dyn ra_ap_hir::db::HirDatabase, local: ra_ap_hir::Local<'_>) -> bool {
    // A `mut` binding (parameters included) may have been assigned a constant before the hole.
    if local.is_mut(db) {
        return false;
    }
    if local.is_self(db) {
        return true;
    }
    let name = local.name(db);
    if !name.as_str().chars().all(|c| c.is_alphanumeric() || c == '_') {
        return false;
    }
    let Ok(source) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(db))) else {
        return false;
    };
    let Some(pat) = source.as_ident_pat() else { return true };
    if pat.ref_token().is_some() {
        return false;
    }
    // The binding must be the whole pattern: in `let (a, b) = ..` or `Some(x)` its value is a part of another's.
    let Some(parent) = pat.syntax().parent() else { return false };
    if ast::Param::can_cast(parent.kind()) {
        return true;
    }
    if let Some(for_expr) = ast::ForExpr::cast(parent.clone()) {
        return for_expr.pat().is_some_and(|p| p.syntax() == pat.syntax());
    }
    let Some(let_stmt) = ast::LetStmt::cast(parent) else { return false };
    if let_stmt.let_else().is_some() {
        return false;
    }
    let mut init = let_stmt.initializer();
    while let Some(ast::Expr::ParenExpr(inner)) = &init {
        init = inner.expr();
    }
    matches!(init, Some(ast::Expr::CallExpr(_) | ast::Expr::MethodCallExpr(_)))
}

/// The integer an immutable `let name = <literal>;` (or `-<literal>`) binding holds: what rustc's constant
/// propagation knows of it at the hole.
fn const_value(db: &dyn ra_ap_hir::db::HirDatabase, local: ra_ap_hir::Local<'_>) -> Option<i128> {
    if local.is_mut(db) || local.is_self(db) {
        return None;
    }
    let source = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(db))).ok()?;
    let pat = source.as_ident_pat()?;
    if pat.ref_token().is_some() || pat.pat().is_some() {
        return None;
    }
    let let_stmt = ast::LetStmt::cast(pat.syntax().parent()?)?;
    if let_stmt.let_else().is_some() {
        return None;
    }
    let literal = |e: &ast::Expr| match e {
        ast::Expr::Literal(l) => match l.kind() {
            ast::LiteralKind::IntNumber(n) => n.value().ok().and_then(|v| i128::try_from(v).ok()),
            _ => None,
        },
        _ => None,
    };
    match let_stmt.initializer()? {
        ast::Expr::PrefixExpr(p) if p.op_kind() == Some(ast::UnaryOp::Neg) => literal(&p.expr()?).map(|v| -v),
        e => literal(&e),
    }
}

/// rust-analyzer reports struct *patterns* with the codes of struct *expressions*; rustc has its own for them.
fn refine_code_in_patterns(file: &ra_ap_syntax::SourceFile, d: &mut RaDiagnostic) {
    let replacement = match d.code.as_deref() {
        Some("E0063") => "E0027",
        Some("E0559") | Some("E0560") => "E0026",
        _ => return,
    };
    let range = ra_ap_syntax::TextRange::new((d.start as u32).into(), (d.end as u32).into());
    if d.end > usize::from(file.syntax().text_range().end()) {
        return;
    }
    let in_pattern = match file.syntax().covering_element(range) {
        ra_ap_syntax::NodeOrToken::Node(n) => Some(n),
        ra_ap_syntax::NodeOrToken::Token(t) => t.parent(),
    }
    .is_some_and(|n| {
        n.ancestors()
            .take_while(|a| !ast::Expr::can_cast(a.kind()) || a.kind() == ra_ap_syntax::SyntaxKind::RECORD_PAT)
            .any(|a| a.kind() == ra_ap_syntax::SyntaxKind::RECORD_PAT)
    });
    if in_pattern {
        d.code = Some(replacement.to_owned());
        d.name = replacement.to_owned();
    }
}

/// Whether an `impl` is declared inside a block (a function body, a closure, a block expression), where
/// rust-analyzer's method and trait resolution is incomplete.
pub(crate) fn has_block_local_impls(node: &ra_ap_syntax::SyntaxNode) -> bool {
    node.descendants()
        .filter(|n| n.kind() == ra_ap_syntax::SyntaxKind::IMPL)
        .any(|n| n.ancestors().any(|a| a.kind() == ra_ap_syntax::SyntaxKind::BLOCK_EXPR))
}

/// The outermost `move` closure or `async move` block around `token` inside `snippet`: what captures the names
/// used there by value.
fn moved_into(token: &ra_ap_syntax::SyntaxToken, snippet: TextRange) -> Option<TextRange> {
    token
        .parent_ancestors()
        .take_while(|node| snippet.contains_range(node.text_range()))
        .filter(match_ast_move)
        .last()
        .map(|node| node.text_range())
}

fn match_ast_move(node: &ra_ap_syntax::SyntaxNode) -> bool {
    if let Some(closure) = ast::ClosureExpr::cast(node.clone()) {
        closure.move_token().is_some()
    } else if let Some(block) = ast::BlockExpr::cast(node.clone()) {
        block.move_token().is_some()
    } else {
        false
    }
}

/// A type as rust-analyzer writes it, as stable Rust can: the never type `!` is written through `fn() -> !`.
pub(crate) fn stable_source(written: String) -> String {
    const NEVER: &str = "<fn() -> ! as ::lacuna::__private::FnOutput>::Output";
    if !written.contains('!') {
        return written;
    }
    let mut out = String::with_capacity(written.len() + NEVER.len());
    for (i, c) in written.char_indices() {
        // `!` in a type is the never type; `-> !` of a function pointer type is stable as it is.
        if c == '!' && !written[..i].trim_end().ends_with("->") {
            out.push_str(NEVER);
        } else {
            out.push(c);
        }
    }
    out
}

/// The `Fn` trait a closure-like local is called through: a closure, a type parameter bounded by an `Fn` trait,
/// an `impl Fn(..)` parameter (not fn items and pointers: those are ordinary values whose type can be written).
fn callable_of(
    db: &dyn ra_ap_hir::db::HirDatabase,
    ty: &ra_ap_hir::Type<'_>,
    module: ra_ap_hir::Module,
) -> Option<lacuna_ir::Callable> {
    use ra_ap_hir::{CallableKind, FnTrait};
    if !(ty.is_closure() || ty.as_type_param(db).is_some()) {
        return None;
    }
    let callable = ty.as_callable(db)?;
    let kind = match callable.kind() {
        CallableKind::Closure(closure) => closure.fn_trait(db),
        CallableKind::FnImpl(fn_trait) => fn_trait,
        _ => return None,
    };
    let kind = match kind {
        FnTrait::Fn => lacuna_ir::FnKind::Fn,
        FnTrait::FnMut => lacuna_ir::FnKind::FnMut,
        FnTrait::FnOnce => lacuna_ir::FnKind::FnOnce,
        FnTrait::AsyncFn | FnTrait::AsyncFnMut | FnTrait::AsyncFnOnce => return None,
    };
    Some(lacuna_ir::Callable { kind, signature: signature(db, &callable, module)? })
}

/// A callable's parameters and return type as source: `(i32, &str) -> bool`, `()`.
fn signature(
    db: &dyn ra_ap_hir::db::HirDatabase,
    callable: &ra_ap_hir::Callable<'_>,
    module: ra_ap_hir::Module,
) -> Option<String> {
    let written = |t: &ra_ap_hir::Type<'_>| t.display_source_code(db, module.into(), false).ok().map(stable_source);
    let params = callable.params().iter().map(|p| written(p.ty())).collect::<Option<Vec<_>>>()?;
    let ret = callable.return_type();
    let ret = if ret.is_unit() { String::new() } else { format!(" -> {}", written(&ret)?) };
    Some(format!("({}){ret}", params.join(", ")))
}

/// The field paths starting at the binding `name_ref` names (`state.inner.log` for `state`) whose type holds a
/// `Mutex` or `RwLock`: what a fault may leave poisoned ([`SnippetUses::lock_fields`]).
fn lock_fields(sema: &Semantics<'_, ra_ap_ide::RootDatabase>, name_ref: &ast::NameRef) -> Vec<Vec<String>> {
    let Some(path) = name_ref.syntax().ancestors().find_map(ast::PathExpr::cast) else { return Vec::new() };
    let mut expr = path.syntax().clone();
    let (mut fields, mut found) = (Vec::new(), Vec::new());
    while let Some(field) = expr.parent().and_then(ast::FieldExpr::cast) {
        if field.expr().map(|e| e.syntax().clone()) != Some(expr.clone()) {
            break;
        }
        let Some(name) = field.name_ref() else { break };
        fields.push(name.text().to_string());
        let holds_lock = sema.type_of_expr(&ast::Expr::FieldExpr(field.clone())).is_some_and(|ty| {
            let module = sema.scope(field.syntax()).map(|s| s.module());
            let shown = module.and_then(|m| ty.original.display_source_code(sema.db, m.into(), false).ok());
            shown.is_some_and(|t| t.contains("Mutex") || t.contains("RwLock"))
        });
        if holds_lock {
            found.push(fields.clone());
        }
        expr = field.syntax().clone();
    }
    found
}
