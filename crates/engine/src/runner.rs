//! The engine: running a loaded host, the hook the host calls at each hole, and each hole's attempts (check,
//! then the JIT or the rustc path).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use lacuna_checker::{Checker, Verdict};

use crate::abi::{InstallFn, MainFn, Phase, RawHoleCall, RawRun, STATUS_ERROR, STATUS_OK, STATUS_PENDING};
use crate::build::{Builder, Built, Lineage, Linkage};
use crate::failure::{HoleFailure, Resource};
use crate::instrument::{instrument_with, HostLibrary, Tried};
use crate::jit_path::{jit_fault_error, JitArtifact};
use crate::load::{load_error, load_library, vec_layout, LoadedHost};
use crate::ms;
use crate::nested::Filled;
use crate::options::{Budgets, RunOptions};
use crate::report::{RunReport, SiteReport};
use crate::rustc_path::{fault_error, Artifact, Entry};
use crate::site::SiteHome;
use crate::ExecError;
use lacuna_hole::{
    Attempt, AttemptRecord, AttemptTimings, BindingInfo, ExecPath, GivenSnippets, HoleRequest, Outcome,
    SnippetSource as Source, HOLE_MARKER,
};

mod pending;
mod prepare;

use pending::{PendingHole, Started};
use prepare::Prepared;

/// How a hole's call ended: its snippet finished (or the hole failed), or a snippet that awaits is waiting.
pub(crate) enum Entered {
    Finished,
    Pending(Box<PendingHole>),
}

/// How running an accepted snippet went: it ended (`Err` is its fault), or a snippet that awaits was started.
pub(crate) enum Executed {
    Ended(Result<(), HoleFailure>),
    Started(Started),
}

/// A hole's attempts so far, and what asking for the next one needs.
pub(crate) struct Asking {
    request: HoleRequest,
    source: Arc<dyn lacuna_hole::SnippetSource>,
    /// The depth its snippets run at.
    depth: u32,
    types: String,
    site: u32,
    attempts: Vec<Attempt>,
    /// When the hole was entered.
    entered: Instant,
}

/// What asking gave: a snippet ready to run, or the hole's failure. Made once per attempt and matched at once.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Asked {
    Ready { runnable: Runnable, budgets: Budgets, record: AttemptRecord, snippet: String },
    Failed(HoleFailure),
}

/// A snippet ready to run, on one path or the other.
#[derive(Clone)]
pub(crate) enum Runnable {
    Rustc(Arc<Artifact>),
    Jit(Arc<JitArtifact>),
}

/// Runs hosts. Owns the checker; the hook the hosts call reaches it through `shared`.
pub struct Engine {
    pub(crate) shared: &'static Shared,
}

/// What the hook needs. Leaked on purpose: host code (threads it spawned included) may call the hook at any
/// time, so the pointer it holds must stay valid for the life of the process. Dropping the [`Engine`] drops the
/// state inside (the checker, caches); a late hook call then gets an error.
pub(crate) struct Shared {
    pub(crate) state: Mutex<Option<State>>,
    /// The run's interrupt: set (by the watchdog's relay) when whoever asked for the run in progress cancels it;
    /// rustc-path snippets read it (`RawRun::interrupt`, which must live as long as the process: this does).
    pub(crate) interrupt: AtomicU32,
    /// Whoever asked for the run in progress, if it can be cancelled ([`Engine::run_cancellable`]).
    pub(crate) cancel: Mutex<Option<Arc<AtomicBool>>>,
}

pub(crate) struct State {
    pub(crate) checker: Checker,
    pub(crate) builder: Builder,
    pub(crate) options: RunOptions,
    pub(crate) run: Option<CurrentRun>,
    /// Compiled snippets by (library source): retries and reruns load them once.
    pub(crate) artifacts: HashMap<String, Arc<Artifact>>,
}

pub(crate) struct CurrentRun {
    pub(crate) host: Arc<LoadedHost>,
    pub(crate) source: Arc<dyn Source>,
    pub(crate) sites: BTreeMap<u32, SiteState>,
    /// The id the next hole found inside a snippet gets.
    pub(crate) next_site: u32,
}

pub(crate) struct SiteState {
    pub(crate) report: SiteReport,
    pub(crate) home: Arc<SiteHome>,
    /// Per snippet text tried here: its verdict and compiled forms (a retry or a later call with the same text
    /// costs nothing).
    pub(crate) snippets: HashMap<String, SnippetState>,
}

pub(crate) struct SnippetState {
    pub(crate) verdict: Verdict,
    /// The verdict's diagnostics rendered rustc-style against the snippet.
    pub(crate) rendered: Vec<String>,
    /// The lowered snippet when it is in the JIT's subset (one for every instantiation of a generic function).
    pub(crate) lowered: Option<Result<lacuna_lowering::Lowered, String>>,
    /// Compiled snippet per instantiation (the type arguments, joined; empty outside generic functions).
    pub(crate) artifacts: HashMap<String, Runnable>,
    /// Why the JIT's subset left the verdict to rustc, for a snippet in the subset.
    pub(crate) rustc_because: Option<String>,
    /// The snippet has holes of its own.
    pub(crate) nests: bool,
    /// For an accepted snippet with holes of its own: the program with the snippet filled in, where they live.
    pub(crate) filled: Option<Arc<Filled>>,
}

impl Engine {
    pub fn new(checker: Checker, options: RunOptions) -> Result<Engine, ExecError> {
        let cache_dir = options.cache_dir.clone().unwrap_or_else(lacuna_checker::default_cache_dir);
        let builder = Builder::new(checker.rustc(), &cache_dir, options.cache_limit_bytes)?;
        let state = State { checker, builder, options, run: None, artifacts: HashMap::new() };
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            state: Mutex::new(Some(state)),
            interrupt: AtomicU32::new(0),
            cancel: Mutex::new(None),
        }));
        Ok(Engine { shared })
    }

    /// Checks, instruments, compiles (or finds cached) and loads a host.
    pub fn load(&self, name: &str, text: &str) -> Result<Arc<LoadedHost>, ExecError> {
        self.load_for(name, text, &BTreeMap::new())
    }

    /// [`Engine::load`] for a run whose snippets are known up front (hole number, from 1, to snippet): a hole
    /// whose type only its snippet settles is typed from it (see [`Checker::settle`]), so the host compiles. The
    /// snippets still go to [`Engine::run`], which checks them as ever.
    pub fn load_for(
        &self,
        name: &str,
        text: &str,
        snippets: &BTreeMap<u32, String>,
    ) -> Result<Arc<LoadedHost>, ExecError> {
        self.load_in(name, text, snippets, None)
    }

    /// [`Engine::load_for`], or for a host Lacuna generated ([`Generated`]: a session's, turn by turn).
    pub(crate) fn load_in(
        &self,
        name: &str,
        text: &str,
        snippets: &BTreeMap<u32, String>,
        generated: Option<Generated<'_>>,
    ) -> Result<Arc<LoadedHost>, ExecError> {
        let mut guard = self.shared.lock();
        let state = guard.as_mut().ok_or_else(|| ExecError::Internal { detail: "the engine is closed".into() })?;
        let mut prepared = match &generated {
            Some(generated) => state.checker.prepare_generated(name, text, generated.holes)?,
            None => state.checker.prepare(name, text)?,
        };
        let lineage = generated.as_ref().map(|g| g.lineage);
        if !prepared.host.outline.has_main {
            return Err(ExecError::NoMain { host: name.to_owned() });
        }
        if prepared.inferred.contains(&true) {
            let given: BTreeMap<usize, String> =
                snippets.iter().filter(|(n, _)| **n >= 1).map(|(n, s)| (*n as usize - 1, s.clone())).collect();
            let at = |hole: usize| {
                let hole = &prepared.host.holes[hole];
                (name.to_owned(), hole.number, hole.line)
            };
            prepared = match state.checker.settle(&prepared, &given)? {
                lacuna_checker::Settled::Host(settled) => *settled,
                lacuna_checker::Settled::Missing { hole } => {
                    let (host, hole, line) = at(hole);
                    return Err(ExecError::InferredHole { host, hole, line });
                }
                lacuna_checker::Settled::Rejected { hole, verdict } => {
                    let snippet = &given[&hole];
                    let diagnostics = verdict
                        .diagnostics
                        .iter()
                        .map(|d| lacuna_checker::render::render_plain(&prepared, "snippet.rs", snippet, d))
                        .collect::<Vec<_>>()
                        .join("\n");
                    let (host, hole, line) = at(hole);
                    return Err(ExecError::InferredHoleRejected { host, hole, line, diagnostics });
                }
                lacuna_checker::Settled::Unwritable { hole, ty } => {
                    let (host, hole, line) = at(hole);
                    let ty = ty.unwrap_or_else(|| "unknown".into());
                    return Err(ExecError::InferredHoleUnwritable { host, hole, line, ty });
                }
            };
        }
        let signatures = prepared.host.outline.signatures.clone();
        // The build needs nothing else of the engine: other holes and sessions check and build meanwhile.
        let builder = state.builder.clone();
        drop(guard);
        let started = Instant::now();
        // A `dylib` snippet libraries link to (one copy of the host's statics and types in the process); a
        // standalone library where that does not build. Each round of instrumentation is built straight away:
        // rustc's errors, if any, say what the next round leaves out.
        let dylib = builder
            .links_dynamically()
            .then(|| {
                let build = host_build(&builder, name, Linkage::Host, lineage);
                instrument_with(&prepared, HostLibrary::Exported, build).ok()
            })
            .flatten();
        let (instrumented, built) = match dylib {
            Some(done) => done,
            None => {
                let build = host_build(&builder, name, Linkage::Standalone, None);
                instrument_with(&prepared, HostLibrary::Standalone, build)?
            }
        };
        let instrument_ms = (ms(started) - built.compile_ms).max(0.0);
        let library = load_library(&built.library)?;
        // SAFETY: the instrumented host defines both symbols with exactly these signatures (`ENTRY_POINTS`).
        let (install, main) = unsafe {
            let install =
                *library.get::<InstallFn>(b"__lacuna_install\0").map_err(|e| load_error(&built.library, e))?;
            let main = *library.get::<MainFn>(b"__lacuna_main\0").map_err(|e| load_error(&built.library, e))?;
            (install, main)
        };
        // Never unloaded: the host's code and statics must outlive every thread that might still run them.
        let handle = libloading::os::unix::Library::from(library).into_raw() as usize;
        let vec_fields = vec_layout(handle);
        Ok(Arc::new(LoadedHost {
            prepared,
            instrumented,
            library: built.library,
            compile_ms: built.compile_ms,
            instrument_ms,
            signatures,
            install,
            main,
            handle,
            vec_fields,
        }))
    }

    /// Runs the host's `main` with `snippets` (by 1-based hole number) for its holes.
    pub fn run(&self, host: &Arc<LoadedHost>, snippets: BTreeMap<u32, String>) -> Result<RunReport, ExecError> {
        self.run_with(host, Arc::new(GivenSnippets(snippets)))
    }

    /// Runs the host's `main`, asking `source` for a snippet each time execution reaches a hole.
    pub fn run_with(&self, host: &Arc<LoadedHost>, source: Arc<dyn Source>) -> Result<RunReport, ExecError> {
        self.run_cancellable(host, source, None)
    }

    /// [`Engine::run_with`], stopped when `cancel` is set: a snippet running then stops within
    /// [`crate::watchdog::CANCEL_POLL`] (plus its next time check) with a fault that says it was cancelled.
    pub(crate) fn run_cancellable(
        &self,
        host: &Arc<LoadedHost>,
        source: Arc<dyn Source>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<RunReport, ExecError> {
        self.shared.interrupt.store(0, Ordering::Relaxed);
        *self.shared.cancel.lock().unwrap_or_else(|e| e.into_inner()) = cancel.clone();
        // SAFETY: the interrupt is a field of the leaked `Shared`, valid for the rest of the process.
        let _relay = unsafe { crate::watchdog::arm_with(&self.shared.interrupt, None, cancel) };
        let stack_bytes = {
            let mut guard = self.shared.lock();
            let state = guard.as_mut().ok_or_else(|| ExecError::Internal { detail: "the engine is closed".into() })?;
            let prepared = Arc::new(host.prepared.clone());
            let signatures = Arc::new(host.signatures.clone());
            let sites: BTreeMap<u32, SiteState> = host
                .prepared
                .host
                .holes
                .iter()
                .enumerate()
                .map(|(index, hole)| {
                    let site = hole.number as u32;
                    let home = Arc::new(SiteHome {
                        prepared: prepared.clone(),
                        index,
                        plan: host.instrumented.sites[index].clone(),
                        signatures: signatures.clone(),
                        parent: None,
                        level: 0,
                        policy: state
                            .options
                            .site_policies
                            .get(&site)
                            .cloned()
                            .unwrap_or_else(|| state.options.policy.clone()),
                    });
                    let report = SiteReport::new(site, None, hole.line, hole.task.clone());
                    (site, SiteState { report, home, snippets: HashMap::new() })
                })
                .collect();
            let next_site = sites.keys().max().map_or(1, |m| m + 1);
            state.run = Some(CurrentRun { host: host.clone(), source, sites, next_site });
            state.options.stack_bytes
        };
        let context: *const Shared = self.shared;
        // SAFETY: `install` is the host library's `__lacuna_install`; `hook` matches `lacuna::__private::Hook` and
        // `context` is the leaked `Shared`, valid for the rest of the process.
        unsafe { (host.install)(hook, context.cast()) };
        // The host's `main` runs on a thread its own std spawns (named `main`, `stack_bytes` of stack); this
        // call returns its exit code.
        // SAFETY: `main` is the host library's `__lacuna_main` (`instrument::ENTRY_POINTS`), which takes a stack
        // size and returns an exit code; the library stays loaded for the rest of the process.
        let exit_status = unsafe { (host.main)(stack_bytes) };
        *self.shared.cancel.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let mut guard = self.shared.lock();
        let state = guard.as_mut().ok_or_else(|| ExecError::Internal { detail: "the engine is closed".into() })?;
        let run = state.run.take().ok_or_else(|| ExecError::Internal { detail: "the run vanished".into() })?;
        Ok(RunReport {
            host: host.prepared.host.name.clone(),
            exit_status,
            host_compile_ms: host.compile_ms,
            instrument_ms: host.instrument_ms,
            sites: run.sites.into_values().map(|s| s.report).collect(),
        })
    }

    /// Changes the policy later holes are checked under (a session that grants a capability, a test case's own).
    pub fn set_policy(&self, policy: lacuna_checker::Policy) {
        if let Some(state) = self.shared.lock().as_mut() {
            state.options.policy = policy;
        }
    }

    /// Changes the budgets later holes run with (a test case's own).
    pub fn set_budgets(&self, budgets: Budgets) {
        if let Some(state) = self.shared.lock().as_mut() {
            state.options.budgets = budgets;
        }
    }

    /// Removes this process's incremental state for a lineage whose builds are over (a closed session's).
    pub(crate) fn forget_lineage(&self, lineage: &Lineage) {
        if let Some(state) = self.shared.lock().as_ref() {
            state.builder.forget(lineage);
        }
    }

    /// The checker, for callers that also check (the CLI's verbose output, tests).
    pub fn with_checker<R>(&self, f: impl FnOnce(&mut Checker) -> R) -> Option<R> {
        self.shared.lock().as_mut().map(|s| f(&mut s.checker))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shared.lock().take();
    }
}

/// Builds each round's instrumented host: the library, or rustc's errors for the next round.
fn host_build<'a>(
    builder: &'a Builder,
    name: &'a str,
    linkage: Linkage<'a>,
    lineage: Option<&'a Lineage>,
) -> impl FnMut(&str) -> Result<Tried<Built>, ExecError> + 'a {
    move |text| match builder.build_in("lacuna_host", text, Some(name), linkage, lineage)? {
        Ok(built) => Ok(Tried::Compiled(built)),
        // Not rustc's errors (the linker's, say): nothing the next round could leave out.
        Err(failure) if failure.errors.is_empty() => Err(ExecError::HostBuild { detail: failure.summary() }),
        Err(failure) => Ok(Tried::Errors(failure.errors)),
    }
}

/// A host Lacuna generated: what it knows of the holes (so the checker skips rustc's check of the host alone; its
/// build is the check, see [`lacuna_checker::Checker::prepare_generated`]), and the lineage it belongs to (rustc
/// reuses what it compiled for the lineage's earlier hosts).
pub(crate) struct Generated<'a> {
    pub lineage: &'a Lineage,
    pub holes: &'a [lacuna_checker::GeneratedHole],
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Option<State>> {
        // A panic while holding the lock (a bug) must not wedge later holes: the state is still consistent
        // between our short critical sections.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// One hole reached: ask the source for snippets until one is accepted (then run it) or the source gives up.
    /// `Err` is what the hole evaluates to instead.
    pub(crate) fn hole(&'static self, call: &mut RawHoleCall) -> Result<Entered, HoleFailure> {
        let entered = Instant::now();
        let result = self.hole_inner(call, entered);
        if matches!(result, Ok(Entered::Pending(_))) {
            // Its report is completed when the snippet ends.
            return result;
        }
        let mut guard = self.lock();
        if let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&call.site)) {
            site.report.timings_ms.total += ms(entered);
            if let Err(error) = &result {
                site.report.record_error(error);
            }
        }
        result
    }

    pub(crate) fn hole_inner(&'static self, call: &mut RawHoleCall, entered: Instant) -> Result<Entered, HoleFailure> {
        let mut asking = self.begin_hole(call, entered)?;
        if Phase::from_code(call.phase) == Some(Phase::EnterAsync) && !call.waker.is_null() {
            // In async code the model is asked and the snippet checked and built on a thread of its own: the host's
            // task (and the others on its executor) go on meanwhile.
            let mut pending = PendingHole::asking(self, asking);
            // SAFETY: a hole in async code passes its task's waker and its own call (`HoleFuture::poll`).
            return match unsafe { pending.poll(self, call) } {
                None => Ok(Entered::Pending(pending)),
                Some(result) => result.map(|()| Entered::Finished),
            };
        }
        loop {
            let (runnable, budgets, mut record, snippet) = match self.ask(&mut asking) {
                Asked::Ready { runnable, budgets, record, snippet } => (runnable, budgets, record, snippet),
                Asked::Failed(error) => return Err(error),
            };
            let previous_depth = DEPTH.with(|d| d.replace(asking.depth));
            let executed = self.execute(call, &runnable, &budgets, &mut record);
            DEPTH.with(|d| d.set(previous_depth));
            let result = match executed {
                Executed::Ended(result) => result,
                // `execute` starts a snippet that awaits only in a hole in async code, which is not here.
                Executed::Started(started) => {
                    drop(pending::Running::new(started, record.clone(), String::new(), asking.depth));
                    Err(HoleFailure::runtime("a snippet that awaits can only run in a hole in async code"))
                }
            };
            if let Some(result) = self.ran(&mut asking, snippet, record, result) {
                return result.map(|()| Entered::Finished);
            }
        }
    }

    /// A hole reached: its request, counted in its site's report.
    fn begin_hole(&self, call: &RawHoleCall, entered: Instant) -> Result<Asking, HoleFailure> {
        let text = |ptr: *const u8, len: usize| {
            if ptr.is_null() || len == 0 {
                String::new()
            } else {
                // SAFETY: the runtime's `enter` points `types` and `task` at that many bytes of strings it keeps
                // alive during the call.
                String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(ptr, len) }).into_owned()
            }
        };
        let types = text(call.types, call.types_len);
        let task = text(call.task, call.task_len);
        let (request, source, max_depth, depth) = {
            let mut guard = self.lock();
            let state = guard.as_mut().ok_or_else(|| HoleFailure::model("the run is over"))?;
            let max_depth = state.options.max_depth;
            let run = state.run.as_mut().ok_or_else(|| HoleFailure::model("no run is in progress"))?;
            let site = run.sites.get_mut(&call.site).ok_or_else(|| HoleFailure::model("unknown hole site"))?;
            site.report.calls += 1;
            // Snippets running below on this thread, and at least the snippets this hole is written inside (which
            // may have started this thread).
            let depth = (DEPTH.with(|d| d.get()) + 1).max(site.home.level + 1);
            (hole_request(call.site, &site.home, depth, task), run.source.clone(), max_depth, depth)
        };
        if max_depth != 0 && depth > max_depth {
            return Err(HoleFailure::Depth { limit: max_depth });
        }
        Ok(Asking { request, source, depth, types, site: call.site, attempts: Vec::new(), entered })
    }

    /// Asks the source for snippets until one is accepted and ready to run, or the source gives up (then the
    /// hole's failure). Touches no host memory: in async code it runs on a thread of its own.
    pub(crate) fn ask(&'static self, asking: &mut Asking) -> Asked {
        let Asking { request, source, depth, types, site, attempts, .. } = asking;
        loop {
            let proposal = match source.propose(request, attempts) {
                Ok(Some(proposal)) => proposal,
                Ok(None) => break,
                Err(message) => {
                    let error = HoleFailure::model(message);
                    source.record(&self.attempt_record(request, attempts, None, &error));
                    return Asked::Failed(error);
                }
            };
            let mut record = AttemptRecord {
                site: request.site,
                line: request.line,
                depth: *depth,
                attempt: attempts.len() as u32 + 1,
                task: request.task.clone(),
                source: proposal.trace,
                snippet: None,
                accepted: false,
                decided_by: None,
                diagnostics: Vec::new(),
                path: None,
                // Until the proposal is found to hold code.
                outcome: Outcome::NoCode,
                error: None,
                timings_ms: AttemptTimings { model: proposal.model_ms, ..Default::default() },
            };
            let snippet = match proposal.snippet {
                Ok(snippet) => snippet,
                Err(reason) => {
                    record.outcome = Outcome::NoCode;
                    record.diagnostics = vec![reason.clone()];
                    self.note_attempt(&record);
                    source.record(&record);
                    attempts.push(Attempt {
                        snippet: None,
                        accepted: false,
                        diagnostics: vec![reason],
                        runtime_error: None,
                    });
                    continue;
                }
            };
            record.snippet = Some(snippet.clone());
            match self.prepare(*site, types, &snippet, &mut record) {
                Ok(Prepared::Ready(runnable, budgets)) => return Asked::Ready { runnable, budgets, record, snippet },
                Ok(Prepared::Rejected(diagnostics)) => {
                    record.outcome = Outcome::Rejected;
                    self.note_attempt(&record);
                    source.record(&record);
                    attempts.push(Attempt {
                        snippet: Some(snippet),
                        accepted: false,
                        diagnostics,
                        runtime_error: None,
                    });
                }
                Err(error) => {
                    record.outcome = error.outcome();
                    record.error = Some(error.to_string());
                    self.note_attempt(&record);
                    source.record(&record);
                    return Asked::Failed(error);
                }
            }
        }
        Asked::Failed(match attempts.last() {
            None => HoleFailure::model("the snippet source gave no snippet"),
            Some(Attempt { runtime_error: Some(error), .. }) => HoleFailure::runtime(error.clone()),
            Some(last) => HoleFailure::Rejected { attempts: attempts.len(), diagnostics: last.diagnostics.clone() },
        })
    }

    /// An accepted snippet ran (`result`): its attempt recorded. `None` when the source wants another attempt
    /// after its fault; else what the hole evaluates to.
    pub(crate) fn ran(
        &self,
        asking: &mut Asking,
        snippet: String,
        mut record: AttemptRecord,
        result: Result<(), HoleFailure>,
    ) -> Option<Result<(), HoleFailure>> {
        record.outcome = match &result {
            Ok(()) => Outcome::Ok,
            Err(error) => error.outcome(),
        };
        record.error = result.as_ref().err().map(|e| e.to_string());
        self.note_attempt(&record);
        asking.source.record(&record);
        match result {
            Err(error) if asking.source.retry_after_fault() => {
                asking.attempts.push(Attempt {
                    snippet: Some(snippet),
                    accepted: true,
                    diagnostics: Vec::new(),
                    runtime_error: Some(error.to_string()),
                });
                None
            }
            other => Some(other),
        }
    }

    /// The record of an attempt that ended before any snippet (the source failed).
    pub(crate) fn attempt_record(
        &self,
        request: &HoleRequest,
        attempts: &[Attempt],
        path: Option<ExecPath>,
        error: &HoleFailure,
    ) -> AttemptRecord {
        AttemptRecord {
            site: request.site,
            line: request.line,
            depth: request.depth,
            attempt: attempts.len() as u32 + 1,
            task: request.task.clone(),
            source: serde_json::Value::Null,
            snippet: None,
            accepted: false,
            decided_by: None,
            diagnostics: Vec::new(),
            path,
            outcome: error.outcome(),
            error: Some(error.to_string()),
            timings_ms: AttemptTimings::default(),
        }
    }

    /// Adds an attempt to its site's report.
    pub(crate) fn note_attempt(&self, record: &AttemptRecord) {
        let mut guard = self.lock();
        let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&record.site)) else {
            return;
        };
        let report = &mut site.report;
        report.attempts += 1;
        if record.snippet.is_some() && record.outcome != Outcome::NoCode && record.decided_by.is_some() {
            report.accepted = Some(record.accepted);
            report.decided_by = record.decided_by;
        }
        if record.path.is_some() {
            report.path = record.path;
        }
        let t = &mut report.timings_ms;
        t.model += record.timings_ms.model;
        t.check += record.timings_ms.check;
        t.lower += record.timings_ms.lower;
        t.compile += record.timings_ms.compile;
        t.run += record.timings_ms.run;
        if record.outcome == Outcome::Ok {
            report.outcome = Some(Outcome::Ok);
            report.error = None;
        }
    }

    /// Runs an accepted snippet at the hole, or starts one that awaits.
    pub(crate) fn execute(
        &self,
        call: &mut RawHoleCall,
        runnable: &Runnable,
        budgets: &Budgets,
        record: &mut AttemptRecord,
    ) -> Executed {
        let (stack_limit, stack_bytes) = stack_limit();
        // Whoever asked for the run, if it can be cancelled: the JIT's interrupt relays it.
        let cancel = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let started = Instant::now();
        let (path, error) = match runnable {
            Runnable::Rustc(artifact) => {
                let entry = match artifact.entry {
                    Entry::Run(entry) => entry,
                    Entry::Future { start, poll, drop } => {
                        record.path = Some(ExecPath::Rustc);
                        let in_async = matches!(Phase::from_code(call.phase), Some(Phase::EnterAsync | Phase::Poll));
                        if !in_async || call.waker.is_null() {
                            return Executed::Ended(Err(HoleFailure::runtime(
                                "a snippet that awaits can only run in a hole in async code",
                            )));
                        }
                        let mut run = Box::new(RawRun {
                            fuel: budgets.fuel,
                            time_ms: budgets.time_ms,
                            memory: budgets.memory_bytes,
                            interrupt: &self.interrupt,
                            ..RawRun::unlimited()
                        });
                        // SAFETY: as for `__lacuna_snippet` below; the table's places stay valid while the hole's
                        // future is pending (they are the awaiting host future's, which is pinned), and `run` is
                        // boxed and kept with the handle for every later poll.
                        let handle = unsafe { start(call.table, call.moved, call.out, &mut *run) };
                        return Executed::Started(Started {
                            poll,
                            drop,
                            handle,
                            artifact: artifact.clone(),
                            run,
                            budgets: *budgets,
                            cancel,
                        });
                    }
                };
                let mut run = RawRun {
                    fuel: budgets.fuel,
                    time_ms: budgets.time_ms,
                    memory: budgets.memory_bytes,
                    stack_limit,
                    interrupt: &self.interrupt,
                    ..RawRun::unlimited()
                };
                let _deadline = crate::watchdog::arm_deadline(budgets.time_ms);
                // SAFETY: `entry` is the snippet library's `__lacuna_snippet`, generated for this site's binding
                // table (the same `Instrumented` plan the host was built from), so `table`/`moved` have the
                // entries it reads, and `out` is the host's slot for a value of the hole's type, which the entry
                // writes only on success.
                let status = unsafe { entry(call.table, call.moved, call.out, &mut run) };
                (ExecPath::Rustc, (status != 0).then(|| fault_error(&run, artifact, budgets, stack_bytes)))
            }
            Runnable::Jit(jit) => {
                // Host functions run under the host library's `run_snippet`; a panic leaves its message here. Host
                // code has no fuel points, but where it does count (a session's functions are its turns' code, with
                // fuel points; snippet code the host keeps) the snippet's budgets hold: fuel from a pool of its own,
                // beside the JIT code's (together at most twice the budget), and the stack and the clock.
                let mut host_run = jit.compiled.calls_host.then(|| {
                    Box::new(RawRun {
                        stack_limit,
                        fuel: budgets.fuel,
                        time_ms: budgets.time_ms,
                        interrupt: &self.interrupt,
                        ..RawRun::unlimited()
                    })
                });
                // The snippet's vectors: whatever it still owns when it ends is freed when `heap` drops.
                let memory_limit = if budgets.memory_bytes == 0 { usize::MAX } else { budgets.memory_bytes as usize };
                let mut heap = jit.compiled.heap_fns.map(|host| Box::new(lacuna_jit::Heap::new(host, memory_limit)));
                let mut context = lacuna_jit::JitContext {
                    fuel: if budgets.fuel == 0 { u64::MAX } else { budgets.fuel },
                    stack_limit: stack_limit as u64,
                    run: host_run.as_mut().map_or(0, |r| &mut **r as *mut RawRun as u64),
                    heap: heap.as_mut().map_or(0, |h| &mut **h as *mut lacuna_jit::Heap as u64),
                    ..Default::default()
                };
                let context_ptr: *mut lacuna_jit::JitContext = &mut context;
                let deadline =
                    (budgets.time_ms > 0).then(|| Instant::now() + std::time::Duration::from_millis(budgets.time_ms));
                // SAFETY: `context` outlives `armed`, which is dropped right after the call returns.
                let armed = unsafe {
                    crate::watchdog::arm_with(std::ptr::addr_of!((*context_ptr).interrupt), deadline, cancel.clone())
                };
                // SAFETY: the code was generated for this site's binding table: it reads (and writes, for `mut`
                // bindings the host passes writable) only the scalar bindings the lowering listed, at the types
                // the checker gave them, and writes the hole's value to `out` when it returns 0 (a vector's buffer
                // released to the host first). Host functions it calls get `context.run`, a live `RawRun`, whenever
                // the code calls any; `context.heap` is a live `Heap` whenever the code allocates.
                // The watchdog may set `context.interrupt` meanwhile: an atomic, written through its own pointer.
                let status = unsafe { (jit.compiled.entry)(call.table.cast(), call.out.cast(), context_ptr) };
                drop(armed);
                drop(heap);
                let error = (status != 0).then(|| {
                    let messages = &jit.compiled.messages;
                    jit_fault_error(&context, host_run.as_deref(), messages, &jit.snippet, budgets, stack_bytes)
                });
                (ExecPath::Jit, error)
            }
        };
        record.timings_ms.run += ms(started);
        record.path = Some(path);
        // Stopped "out of time" because whoever asked for the run cancelled it.
        let cancelled = cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let error = match error {
            Some(HoleFailure::Budget { resource: Resource::Time, .. }) if cancelled => {
                Some(HoleFailure::runtime("the run was cancelled by whoever asked for it"))
            }
            error => error,
        };
        Executed::Ended(match error {
            None => Ok(()),
            Some(e) => Err(e),
        })
    }
}

thread_local! {
    /// How many holes' snippets are running on this thread (the nesting depth of the current hole).
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// What a source needs to know about a hole reached at `site`.
pub(crate) fn hole_request(site: u32, home: &SiteHome, depth: u32, task: String) -> HoleRequest {
    let prepared = &home.prepared;
    let index = home.index;
    let hole = &prepared.host.holes[index];
    let text = &prepared.host.text;
    let enclosing_source = format!("{}{HOLE_MARKER}{}", &text[..hole.range.start], &text[hole.range.end..]);
    let plan = &home.plan;
    let bindings = plan
        .bindings()
        .iter()
        .zip(&plan.modes)
        .map(|(b, mode)| BindingInfo {
            name: b.name.clone(),
            ty: b.ty_display.clone(),
            mutable: b.mutable,
            available: *mode != crate::instrument::HostMode::Absent,
        })
        .collect();
    HoleRequest {
        kind: crate::RequestKind::Hole,
        host: prepared.host.name.clone(),
        site,
        line: hole.line,
        column: hole.column,
        depth,
        task,
        model: hole.model.clone(),
        expected_type: prepared.glue_type(index).map(str::to_owned).or_else(|| prepared.expected_types[index].clone()),
        enclosing_source,
        bindings,
        signatures: home.signatures.as_ref().clone(),
    }
}

/// The hook every loaded library calls at a hole.
///
/// # Safety
/// `context` is the leaked `Shared` given to `__lacuna_install`; `call` points to the host's `RawHoleCall`.
pub(crate) unsafe extern "C" fn hook(context: *const (), call: *mut RawHoleCall) -> u32 {
    thread_local! {
        static ERROR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    // SAFETY: see the function's contract.
    let (shared, call) = unsafe { (&*(context as *const Shared), &mut *call) };
    // No panic may unwind into the host's frames (a different Rust runtime, through `extern "C"`).
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match Phase::from_code(call.phase) {
        Some(Phase::Enter | Phase::EnterAsync) => shared.hole(call),
        Some(Phase::Poll) if !call.pending.is_null() => {
            // SAFETY: `pending` is what this hook returned for the hole (`HoleFuture` passes it back unchanged, and
            // only until the snippet ended or was dropped); `waker` is the polling task's.
            let mut pending = unsafe { Box::from_raw(call.pending.cast::<PendingHole>()) };
            call.pending = std::ptr::null_mut();
            // SAFETY: `call` is the hole's own, with the polling task's `Waker`, valid for this call
            // (`HoleFuture::poll`).
            match unsafe { pending.poll(shared, call) } {
                None => Ok(Entered::Pending(pending)),
                Some(result) => {
                    pending.finish(shared, call.site, &result);
                    result.map(|()| Entered::Finished)
                }
            }
        }
        Some(Phase::Drop) if !call.pending.is_null() => {
            // SAFETY: as above.
            let pending = unsafe { Box::from_raw(call.pending.cast::<PendingHole>()) };
            call.pending = std::ptr::null_mut();
            pending.cancel(shared, call.site);
            Ok(Entered::Finished)
        }
        _ => Err(HoleFailure::model("internal error in Lacuna: a hole call it does not know")),
    }))
    .unwrap_or_else(|_| Err(HoleFailure::model("internal error in Lacuna while running the hole")));
    match result {
        Ok(Entered::Pending(pending)) => {
            call.pending = Box::into_raw(pending).cast();
            STATUS_PENDING
        }
        Ok(Entered::Finished) => STATUS_OK,
        Err(error) => {
            ERROR.with(|e| {
                let mut e = e.borrow_mut();
                // The one place a failure becomes text: the runtime decodes it into a `HoleError`.
                *e = error.encode();
                call.error = e.as_ptr();
                call.error_len = e.len();
            });
            STATUS_ERROR
        }
    }
}

/// The lowest address a snippet on this thread may push its stack to, and the stack it may use in bytes: the
/// thread's stack less a margin for the std and host code it calls, so recursion in the snippet is a budget
/// error instead of a stack overflow that would abort the process.
pub(crate) fn stack_limit() -> (usize, usize) {
    // SAFETY: `pthread_getattr_np` fills `attr` for the calling thread (glibc documents it for the main thread
    // too); it is destroyed after reading the stack bounds.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return (0, 0);
        }
        let mut low: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut low, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if !ok || low.is_null() {
            return (0, 0);
        }
        let margin = (size / 4).clamp(64 << 10, 1 << 20);
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        let limit = low as usize + margin;
        (limit, here.saturating_sub(limit))
    }
}
