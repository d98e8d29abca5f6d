//! The run: loading the host, the hook the host calls at each hole, and the per-site report.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use lacuna_checker::{normalize, Checker, Diagnostic, PreparedHost, Verdict};
use serde::Serialize;

use crate::build::Builder;
use crate::instrument::{instrument, Instrumented, SitePlan};
use crate::snippet::{generate, nested_table, Access, LibraryBase, NestedHole, SnippetSource};
use crate::ExecError;
use lacuna_hole::{
    Attempt, AttemptRecord, AttemptTimings, BindingInfo, ExecPath, GivenSnippets, HoleRequest, SnippetSource as Source,
    HOLE_MARKER,
};

/// Which way accepted snippets run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathChoice {
    /// The JIT where the snippet is in its subset, rustc otherwise.
    #[default]
    Auto,
    Jit,
    Rustc,
}

/// What one snippet run may use. A snippet that runs out gets `HoleError::Budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budgets {
    /// Loop iterations plus function and closure calls in the snippet (0: unlimited).
    pub fuel: u64,
    /// Wall time in milliseconds (0: unlimited). Checked with the fuel, so time spent inside one call into std or
    /// host code is not interrupted.
    pub time_ms: u64,
    /// Bytes the snippet may hold allocated at once (0: unlimited).
    pub memory_bytes: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets { fuel: 1_000_000_000, time_ms: 10_000, memory_bytes: 1 << 30 }
    }
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub path: PathChoice,
    pub budgets: Budgets,
    /// Stack of the thread the host's `main` runs on (snippets run on the thread that reaches their hole).
    pub stack_bytes: usize,
    /// Where compiled hosts and snippets are cached (default: [`lacuna_checker::default_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Holes nested deeper than this (a hole reached while this many snippets run on the thread) are
    /// `HoleError::Depth` (0: no cap).
    pub max_depth: u32,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            path: PathChoice::Auto,
            budgets: Budgets::default(),
            stack_bytes: 64 << 20,
            cache_dir: None,
            max_depth: 32,
        }
    }
}

/// Milliseconds per part of running one hole site, summed over its calls. The snippet's library is compiled
/// while rustc checks it, so `check + lower + compile + run` can exceed `total`, the wall time the host waited.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SiteTimings {
    /// Waiting for the snippet source (the model).
    pub model: f64,
    pub check: f64,
    pub lower: f64,
    pub compile: f64,
    pub run: f64,
    pub total: f64,
}

/// What happened at one hole site during a run.
#[derive(Debug, Clone, Serialize)]
pub struct SiteReport {
    pub site: u32,
    /// For a hole written inside a snippet: the site whose snippet it is in (`line` is then a line of that
    /// snippet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    pub line: u32,
    pub task: Option<String>,
    /// Times execution reached the hole.
    pub calls: u32,
    /// Snippets (or replies without code) tried, over all calls.
    pub attempts: u32,
    /// The last snippet's verdict; `None` when no snippet was given or the hole was never reached.
    pub accepted: Option<bool>,
    pub decided_by: Option<String>,
    pub path: Option<ExecPath>,
    /// Why an accepted snippet did not run on the JIT (outside its subset), when it did not.
    pub not_jit: Option<String>,
    /// For a snippet that ran on the JIT after rustc's verdict: why the subset's own checks could not accept it
    /// without rustc.
    pub rustc_because: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the hole evaluated to the last time: `ok`, `rejected`, `runtime`, `budget:<resource>`, `model`.
    pub outcome: Option<String>,
    /// The last error the hole evaluated to, rendered.
    pub error: Option<String>,
    pub timings_ms: SiteTimings,
}

/// The result of running a host.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub host: String,
    /// The host process's exit status as a Rust program would report it (101 for a panic in `main`).
    pub exit_status: i32,
    pub host_compile_ms: f64,
    pub instrument_ms: f64,
    pub sites: Vec<SiteReport>,
}

// The ABI shared with the `lacuna` runtime crate (`crates/checker/prelude/lacuna.rs`, `__private`). Field for
// field the same `#[repr(C)]` structs; `tests/abi.rs` compiles a program against the runtime that checks sizes
// and offsets agree.

#[repr(C)]
pub(crate) struct RawHoleCall {
    site: u32,
    table: *const *mut (),
    moved: *mut u8,
    len: usize,
    types: *const u8,
    types_len: usize,
    task: *const u8,
    task_len: usize,
    out: *mut (),
    error: *const u8,
    error_len: usize,
}

#[repr(C)]
pub(crate) struct RawRun {
    fuel: u64,
    time_ms: u64,
    memory: u64,
    stack_limit: usize,
    fault: u32,
    line: u32,
    column: u32,
    message_len: u32,
    file_len: u32,
    trace_len: u32,
    message: [u8; 4096],
    file: [u8; 1024],
    trace: [u8; 16384],
}

impl RawRun {
    /// No budgets: for host functions the JIT calls.
    fn unlimited() -> RawRun {
        RawRun {
            fuel: 0,
            time_ms: 0,
            memory: 0,
            stack_limit: 0,
            fault: 0,
            line: 0,
            column: 0,
            message_len: 0,
            file_len: 0,
            trace_len: 0,
            message: [0; 4096],
            file: [0; 1024],
            trace: [0; 16384],
        }
    }
}

impl LoadedHost {
    /// The address of a symbol the host library exports.
    fn symbol(&self, name: &str) -> Option<*const u8> {
        library_symbol(self.handle, name)
    }
}

fn library_symbol(handle: usize, name: &str) -> Option<*const u8> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: `handle` is a `dlopen` handle that is never closed; `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle as *mut libc::c_void, name.as_ptr()) };
    (!address.is_null()).then_some(address as *const u8)
}

/// Asks the host library where its std's `Vec` keeps its buffer pointer and length.
fn vec_layout(handle: usize) -> Option<(i32, i32)> {
    let probe = library_symbol(handle, "__lacuna_vec_layout")?;
    // SAFETY: the instrumented host defines `__lacuna_vec_layout` with this signature (`ENTRY_POINTS`); it writes
    // two words.
    let probe = unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut usize)>(probe) };
    let mut out = [usize::MAX; 2];
    // SAFETY: `out` has room for the two words.
    unsafe { probe(out.as_mut_ptr()) };
    Some((i32::try_from(out[0]).ok()?, i32::try_from(out[1]).ok()?))
}

type Hook = unsafe extern "C" fn(*const (), *mut RawHoleCall) -> u32;
type InstallFn = unsafe extern "C" fn(Hook, *const ());
/// `__lacuna_main` of a host library (`instrument::ENTRY_POINTS`): calling it runs foreign code.
type MainFn = unsafe extern "C" fn(usize) -> i32;
/// `__lacuna_snippet` of a snippet library (`snippet::generate`).
type SnippetFn = unsafe extern "C" fn(*const *mut (), *mut u8, *mut (), *mut RawRun) -> u32;

/// A host compiled and loaded, ready to run (any number of times, with different snippets).
pub struct LoadedHost {
    pub prepared: PreparedHost,
    pub instrumented: Instrumented,
    pub library: PathBuf,
    pub compile_ms: f64,
    pub instrument_ms: f64,
    /// The host's item signatures, for prompts.
    pub signatures: Vec<String>,
    install: InstallFn,
    main: MainFn,
    /// The host library's `dlopen` handle (never closed), for the JIT's calls of host functions.
    handle: usize,
    /// Byte offsets of a `Vec`'s buffer pointer and length in the host's std (`__lacuna_vec_layout`).
    vec_fields: Option<(i32, i32)>,
}

/// A compiled, loaded snippet.
struct Artifact {
    entry: SnippetFn,
    source: SnippetSource,
    source_path: String,
}

/// A snippet compiled by Cranelift, with its (normalized) text for fault positions.
struct JitArtifact {
    compiled: lacuna_jit::Compiled,
    snippet: String,
}

/// A snippet ready to run, on one path or the other.
#[derive(Clone)]
enum Runnable {
    Rustc(Arc<Artifact>),
    Jit(Arc<JitArtifact>),
}

/// Runs hosts. Owns the checker; the hook the hosts call reaches it through `shared`.
pub struct Engine {
    shared: &'static Shared,
}

/// What the hook needs. Leaked on purpose: host code (threads it spawned included) may call the hook at any
/// time, so the pointer it holds must stay valid for the life of the process. Dropping the [`Engine`] drops the
/// state inside (the checker, caches); a late hook call then gets an error.
struct Shared {
    state: Mutex<Option<State>>,
}

struct State {
    checker: Checker,
    builder: Builder,
    options: RunOptions,
    run: Option<CurrentRun>,
    /// Compiled snippets by (library source): retries and reruns load them once.
    artifacts: HashMap<String, Arc<Artifact>>,
}

struct CurrentRun {
    host: Arc<LoadedHost>,
    source: Arc<dyn Source>,
    sites: BTreeMap<u32, SiteState>,
    /// The id the next hole found inside a snippet gets.
    next_site: u32,
}

struct SiteState {
    report: SiteReport,
    home: Arc<SiteHome>,
    /// Per snippet text tried here: its verdict and compiled forms (a retry or a later call with the same text
    /// costs nothing).
    snippets: HashMap<String, SnippetState>,
}

struct SnippetState {
    verdict: Verdict,
    /// The verdict's diagnostics rendered rustc-style against the snippet.
    rendered: Vec<String>,
    /// The lowered snippet when it is in the JIT's subset (outside generic functions only).
    lowered: Option<Result<lacuna_lowering::Lowered, String>>,
    /// Compiled snippet per instantiation (the type arguments, joined; empty outside generic functions).
    artifacts: HashMap<String, Runnable>,
    /// Why the JIT's subset left the verdict to rustc, for a snippet in the subset.
    rustc_because: Option<String>,
    /// The snippet has holes of its own.
    nests: bool,
    /// For an accepted snippet with holes of its own: the program with the snippet filled in, where they live.
    filled: Option<Arc<Filled>>,
}

/// Where a hole site lives: the program its snippets are checked against (the host, or for a hole written inside
/// a snippet, the program with that snippet filled in), the hole's index there, and its binding table.
struct SiteHome {
    prepared: Arc<PreparedHost>,
    index: usize,
    plan: SitePlan,
    signatures: Arc<Vec<String>>,
    parent: Option<Parent>,
    /// How many snippets the hole is written inside (0 for the host's holes).
    level: u32,
}

/// The snippet a hole was written in.
struct Parent {
    site: u32,
    snippet: String,
    /// The instantiation (type arguments) of the snippet's library the hole's entry goes into.
    types: String,
    /// Where the snippet starts in the filled program.
    snippet_start: usize,
}

/// An accepted snippet filled into its hole, prepared and instrumented as a program of its own.
struct Filled {
    prepared: Arc<PreparedHost>,
    instrumented: Instrumented,
    signatures: Arc<Vec<String>>,
    snippet: std::ops::Range<usize>,
    /// Indices (in `prepared`) of the holes inside the snippet.
    holes: Vec<usize>,
}

impl Engine {
    pub fn new(checker: Checker, options: RunOptions) -> Result<Engine, ExecError> {
        let cache_dir = options.cache_dir.clone().unwrap_or_else(lacuna_checker::default_cache_dir);
        let builder = Builder::new(checker.rustc(), &cache_dir)?;
        let state = State { checker, builder, options, run: None, artifacts: HashMap::new() };
        let shared: &'static Shared = Box::leak(Box::new(Shared { state: Mutex::new(Some(state)) }));
        Ok(Engine { shared })
    }

    /// Checks, instruments, compiles (or finds cached) and loads a host.
    pub fn load(&self, name: &str, text: &str) -> Result<Arc<LoadedHost>, ExecError> {
        let mut guard = self.shared.lock();
        let state = guard.as_mut().ok_or_else(|| ExecError::Internal { detail: "the engine is closed".into() })?;
        let prepared = state.checker.prepare(name, text)?;
        if !has_main(&prepared.host.text) {
            return Err(ExecError::NoMain { host: name.to_owned() });
        }
        let signatures = lacuna_checker::signatures(&prepared.host.text);
        let started = Instant::now();
        let instrumented = instrument(&prepared, state.checker.rustc())?;
        let instrument_ms = ms(started);
        let built = state
            .builder
            .build("lacuna_host", &instrumented.text, Some(name))?
            .map_err(|failure| ExecError::HostBuild { detail: failure.summary() })?;
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

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Option<State>> {
        // A panic while holding the lock (a bug) must not wedge later holes: the state is still consistent
        // between our short critical sections.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// One hole reached: ask the source for snippets until one is accepted (then run it) or the source gives up.
    /// `Err` is the encoded `HoleError`.
    fn hole(&'static self, call: &mut RawHoleCall) -> Result<(), String> {
        let entered = Instant::now();
        let result = self.hole_inner(call);
        let mut guard = self.lock();
        if let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&call.site)) {
            site.report.timings_ms.total += ms(entered);
            if let Err(error) = &result {
                site.report.record_error(error);
            }
        }
        result
    }

    fn hole_inner(&'static self, call: &mut RawHoleCall) -> Result<(), String> {
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
            let state = guard.as_mut().ok_or_else(|| encode_model("the run is over"))?;
            let max_depth = state.options.max_depth;
            let run = state.run.as_mut().ok_or_else(|| encode_model("no run is in progress"))?;
            let site = run.sites.get_mut(&call.site).ok_or_else(|| encode_model("unknown hole site"))?;
            site.report.calls += 1;
            // Snippets running below on this thread, and at least the snippets this hole is written inside (which
            // may have started this thread).
            let depth = (DEPTH.with(|d| d.get()) + 1).max(site.home.level + 1);
            (hole_request(call.site, &site.home, depth, task), run.source.clone(), max_depth, depth)
        };
        if max_depth != 0 && depth > max_depth {
            return Err(encode(&["depth", &max_depth.to_string()], &[]));
        }
        let mut attempts: Vec<Attempt> = Vec::new();
        loop {
            let proposal = match source.propose(&request, &attempts) {
                Ok(Some(proposal)) => proposal,
                Ok(None) => break,
                Err(message) => {
                    let error = encode_model(&message);
                    source.record(&self.attempt_record(&request, &attempts, None, &error));
                    return Err(error);
                }
            };
            let mut record = AttemptRecord {
                site: request.site,
                line: request.line,
                depth,
                attempt: attempts.len() as u32 + 1,
                task: request.task.clone(),
                source: proposal.trace,
                snippet: None,
                accepted: false,
                decided_by: None,
                diagnostics: Vec::new(),
                path: None,
                outcome: String::new(),
                error: None,
                timings_ms: AttemptTimings { model: proposal.model_ms, ..Default::default() },
            };
            let snippet = match proposal.snippet {
                Ok(snippet) => snippet,
                Err(reason) => {
                    record.outcome = "no-code".into();
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
            let prepared = self.prepare(call.site, &types, &snippet, &mut record);
            let (runnable, budgets) = match prepared {
                Ok(Prepared::Ready(runnable, budgets)) => (runnable, budgets),
                Ok(Prepared::Rejected(diagnostics)) => {
                    record.outcome = "rejected".into();
                    self.note_attempt(&record);
                    source.record(&record);
                    attempts.push(Attempt {
                        snippet: Some(snippet),
                        accepted: false,
                        diagnostics,
                        runtime_error: None,
                    });
                    continue;
                }
                Err(error) => {
                    record.outcome = outcome_of(&error);
                    record.error = Some(display_error(&error));
                    self.note_attempt(&record);
                    source.record(&record);
                    return Err(error);
                }
            };
            let previous_depth = DEPTH.with(|d| d.replace(depth));
            let result = self.execute(call, &runnable, &budgets, &mut record);
            DEPTH.with(|d| d.set(previous_depth));
            record.outcome = match &result {
                Ok(()) => "ok".into(),
                Err(error) => outcome_of(error),
            };
            record.error = result.as_ref().err().map(|e| display_error(e));
            self.note_attempt(&record);
            source.record(&record);
            match result {
                Err(error) if source.retry_after_fault() => attempts.push(Attempt {
                    snippet: Some(snippet),
                    accepted: true,
                    diagnostics: Vec::new(),
                    runtime_error: Some(display_error(&error)),
                }),
                other => return other,
            }
        }
        match attempts.last() {
            None => Err(encode_model("the snippet source gave no snippet")),
            Some(Attempt { runtime_error: Some(error), .. }) => Err(encode_runtime(error)),
            Some(last) => Err(encode(&["rejected", &attempts.len().to_string()], &last.diagnostics)),
        }
    }

    /// The record of an attempt that ended before any snippet (the source failed).
    fn attempt_record(
        &self,
        request: &HoleRequest,
        attempts: &[Attempt],
        path: Option<ExecPath>,
        error: &str,
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
            outcome: outcome_of(error),
            error: Some(display_error(error)),
            timings_ms: AttemptTimings::default(),
        }
    }

    /// Adds an attempt to its site's report.
    fn note_attempt(&self, record: &AttemptRecord) {
        let mut guard = self.lock();
        let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&record.site)) else {
            return;
        };
        let report = &mut site.report;
        report.attempts += 1;
        if record.snippet.is_some() && record.outcome != "no-code" && record.decided_by.is_some() {
            report.accepted = Some(record.accepted);
            report.decided_by = record.decided_by.clone();
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
        if record.outcome == "ok" {
            report.outcome = Some("ok".into());
            report.error = None;
        }
    }

    /// Runs an accepted snippet at the hole. `Err` is the encoded fault.
    fn execute(
        &self,
        call: &mut RawHoleCall,
        runnable: &Runnable,
        budgets: &Budgets,
        record: &mut AttemptRecord,
    ) -> Result<(), String> {
        let (stack_limit, stack_bytes) = stack_limit();
        let started = Instant::now();
        let (path, error) = match runnable {
            Runnable::Rustc(artifact) => {
                let mut run = RawRun {
                    fuel: budgets.fuel,
                    time_ms: budgets.time_ms,
                    memory: budgets.memory_bytes,
                    stack_limit,
                    ..RawRun::unlimited()
                };
                // SAFETY: `entry` is the snippet library's `__lacuna_snippet`, generated for this site's binding
                // table (the same `Instrumented` plan the host was built from), so `table`/`moved` have the
                // entries it reads, and `out` is the host's slot for a value of the hole's type, which the entry
                // writes only on success.
                let status = unsafe { (artifact.entry)(call.table, call.moved, call.out, &mut run) };
                (ExecPath::Rustc, (status != 0).then(|| fault_error(&run, artifact, budgets, stack_bytes)))
            }
            Runnable::Jit(jit) => {
                // Host functions run under the host library's `run_snippet` (no budgets of their own: like host code
                // a rustc-path snippet calls, they do not count fuel); a panic leaves its message here.
                let mut host_run = jit.compiled.calls_host.then(|| Box::new(RawRun::unlimited()));
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
                // SAFETY: the code was generated for this site's binding table: it reads (and writes, for `mut`
                // bindings the host passes writable) only the scalar bindings the lowering listed, at the types
                // the checker gave them, and writes the hole's value to `out` when it returns 0 (a vector's buffer
                // released to the host first). Host functions it calls get `context.run`, a live `RawRun`, whenever
                // the code calls any; `context.heap` is a live `Heap` whenever the code allocates.
                let status = unsafe { (jit.compiled.entry)(call.table.cast(), call.out.cast(), &mut context) };
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
        match error {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// Everything before running one snippet: the verdict (cached per site and snippet text), the compiled
    /// snippet (cached per instantiation). Timings go to `record`.
    fn prepare(
        &'static self,
        site: u32,
        types: &str,
        snippet: &str,
        record: &mut AttemptRecord,
    ) -> Result<Prepared, String> {
        let mut guard = self.lock();
        let state = guard.as_mut().ok_or_else(|| encode_model("the run is over"))?;
        let State { checker, builder, options, run, artifacts } = state;
        let run = run.as_mut().ok_or_else(|| encode_model("no run is in progress"))?;
        let host = run.host.clone();
        let home = run.sites.get(&site).ok_or_else(|| encode_model("unknown hole site"))?.home.clone();
        let prepared = &*home.prepared;
        let hole_index = home.index;
        let type_args: Vec<String> =
            if types.is_empty() { Vec::new() } else { types.split('\u{1f}').map(str::to_owned).collect() };
        let job = |uses, parent: Option<Arc<Artifact>>, nested: Vec<NestedHole>| BuildJob {
            builder: builder.clone(),
            host: host.clone(),
            home: home.clone(),
            parent,
            snippet: normalize(snippet),
            type_args: type_args.clone(),
            uses,
            nested,
        };
        let site_state = run.sites.get_mut(&site).ok_or_else(|| encode_model("unknown hole site"))?;
        let mut speculative = None;
        if !site_state.snippets.contains_key(snippet) {
            let mut lowered = None;
            let mut nests = false;
            let mut rustc_because = None;
            let pre_started = Instant::now();
            let pre = checker.precheck(prepared, hole_index, snippet).map_err(|e| encode_model(&e.to_string()))?;
            let pre_ms = ms(pre_started);
            let verdict = match pre {
                Some(rejection) => rejection,
                None => {
                    // A snippet with holes of its own runs on the rustc path, built once its holes are known.
                    nests = has_holes(prepared, hole_index, snippet);
                    // Is it in the JIT's subset? (Cheap: rust-analyzer has the snippet analysed already.)
                    if options.path != PathChoice::Rustc && type_args.is_empty() && !nests {
                        let started = Instant::now();
                        lowered = Some(lower_for_jit(checker, &home, snippet));
                        record.timings_ms.lower += ms(started);
                    }
                    let jit_ready = matches!(lowered, Some(Ok(_)));
                    // While rustc checks, build the snippet's library on another thread: if rustc accepts,
                    // running it does not wait for a second compiler run. Never loaded unless the verdict is an
                    // acceptance.
                    if !jit_ready && !nests && options.path != PathChoice::Jit {
                        let parent = parent_artifact(&run.sites, &home);
                        if let (Ok(uses), Ok(parent)) = (checker.snippet_uses(prepared, hole_index, snippet), parent) {
                            let job = job(uses, parent, Vec::new());
                            speculative =
                                std::thread::Builder::new().name("lacuna-build".into()).spawn(move || job.build()).ok();
                        }
                    }
                    let started = Instant::now();
                    let subset = match lowered.as_ref().and_then(|l| l.as_ref().ok()) {
                        Some(l) if options.path != PathChoice::Rustc => Some(subset_accepts(&home, l)),
                        _ => None,
                    };
                    match subset {
                        Some(Ok(())) => subset_verdict(&home, pre_ms + ms(started)),
                        _ => {
                            rustc_because = subset.and_then(Result::err);
                            checker.check(prepared, hole_index, snippet).map_err(|e| encode_model(&e.to_string()))?
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
            let site_state = run.sites.get_mut(&site).ok_or_else(|| encode_model("unknown hole site"))?;
            site_state.report.diagnostics = verdict.diagnostics.clone();
            site_state.snippets.insert(
                snippet.to_owned(),
                SnippetState {
                    verdict,
                    rendered,
                    lowered,
                    artifacts: HashMap::new(),
                    rustc_because,
                    nests,
                    filled: None,
                },
            );
        }
        let site_state = run.sites.get_mut(&site).ok_or_else(|| encode_model("unknown hole site"))?;
        let snippet_state = site_state.snippets.get_mut(snippet).expect("inserted above");
        let verdict = &snippet_state.verdict;
        record.accepted = verdict.accepted;
        record.decided_by = Some(verdict.decided_by.as_str().to_owned());
        record.diagnostics = snippet_state.rendered.clone();
        site_state.report.diagnostics = verdict.diagnostics.clone();
        if !verdict.accepted {
            // A speculative build of a rejected snippet is left to finish on its own; nothing loads it.
            return Ok(Prepared::Rejected(snippet_state.rendered.clone()));
        }
        if let Some(runnable) = snippet_state.artifacts.get(types) {
            return Ok(Prepared::Ready(runnable.clone(), options.budgets));
        }
        // The JIT, when the snippet is in its subset.
        if let Some(Ok(lowered)) = &snippet_state.lowered {
            let started = Instant::now();
            let symbol = |name: &str| host.symbol(name);
            let abi = lacuna_jit::HostAbi {
                symbol: &symbol,
                vec_fields: host.vec_fields,
                map_writer: Some(crate::instrument::map_writer_symbol(site)),
            };
            let compiled = lacuna_jit::compile(lowered, &abi);
            record.timings_ms.compile += ms(started);
            match compiled {
                Ok(compiled) => {
                    let jit = Runnable::Jit(Arc::new(JitArtifact { compiled, snippet: normalize(snippet) }));
                    snippet_state.artifacts.insert(types.to_owned(), jit.clone());
                    site_state.report.not_jit = None;
                    site_state.report.rustc_because = snippet_state.rustc_because.clone();
                    return Ok(Prepared::Ready(jit, options.budgets));
                }
                Err(e) => snippet_state.lowered = Some(Err(e.to_string())),
            }
        }
        let why = match &snippet_state.lowered {
            Some(Err(why)) => why.clone(),
            Some(Ok(_)) => "Cranelift could not compile it".into(),
            None if snippet_state.nests => "it has holes of its own".into(),
            None if options.path == PathChoice::Rustc => "the rustc path was asked for".into(),
            None => "a hole inside a generic function".into(),
        };
        site_state.report.not_jit = Some(why.clone());
        if options.path == PathChoice::Jit {
            return Err(encode_runtime(&format!("the snippet is outside the JIT's subset: {why}")));
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
        let built = match speculative.map(|thread| thread.join()) {
            Some(Ok(built)) => built,
            Some(Err(_)) => Err(encode_runtime("internal error in Lacuna while building the snippet")),
            None => {
                let parent = parent_artifact(&run.sites, &home)?;
                checker
                    .snippet_uses(prepared, hole_index, snippet)
                    .map_err(|e| encode_runtime(&e.to_string()))
                    .and_then(|uses| job(uses, parent, nested).build())
            }
        };
        let (artifact, lower_ms, compile_ms) = load_artifact(built?, artifacts, self)?;
        record.timings_ms.lower += lower_ms;
        record.timings_ms.compile += compile_ms;
        let runnable = Runnable::Rustc(artifact);
        let site_state = run.sites.get_mut(&site).ok_or_else(|| encode_model("unknown hole site"))?;
        let snippet_state = site_state.snippets.get_mut(snippet).expect("inserted above");
        snippet_state.artifacts.insert(types.to_owned(), runnable.clone());
        Ok(Prepared::Ready(runnable, options.budgets))
    }
}

/// Whether a snippet has holes of its own (`agent!` calls).
fn has_holes(prepared: &PreparedHost, hole_index: usize, snippet: &str) -> bool {
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
fn fill(checker: &mut Checker, home: &SiteHome, snippet: &str) -> Result<Filled, String> {
    let error = |detail: &dyn std::fmt::Display| {
        encode_runtime(&format!("Lacuna could not prepare the holes inside this snippet: {detail}"))
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
fn register_nested(
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
fn parent_artifact(sites: &BTreeMap<u32, SiteState>, home: &SiteHome) -> Result<Option<Arc<Artifact>>, String> {
    let Some(parent) = &home.parent else { return Ok(None) };
    let runnable = sites
        .get(&parent.site)
        .and_then(|s| s.snippets.get(&parent.snippet))
        .and_then(|s| s.artifacts.get(&parent.types));
    match runnable {
        Some(Runnable::Rustc(artifact)) => Ok(Some(artifact.clone())),
        _ => Err(encode_runtime("the snippet this hole was written in is not loaded (a Lacuna bug)")),
    }
}

/// A snippet made ready to run, or its rejection (rendered diagnostics).
enum Prepared {
    Ready(Runnable, Budgets),
    Rejected(Vec<String>),
}

thread_local! {
    /// How many holes' snippets are running on this thread (the nesting depth of the current hole).
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// What a source needs to know about a hole reached at `site`.
fn hole_request(site: u32, home: &SiteHome, depth: u32, task: String) -> HoleRequest {
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

fn outcome_of(encoded: &str) -> String {
    let mut fields = encoded.split('\u{1f}');
    match (fields.next(), fields.next()) {
        (Some("budget"), Some(resource)) => format!("budget:{resource}"),
        (Some(kind), _) if !kind.is_empty() => kind.to_owned(),
        _ => "model".to_owned(),
    }
}

impl SiteReport {
    fn new(site: u32, parent: Option<u32>, line: u32, task: Option<String>) -> SiteReport {
        SiteReport {
            site,
            parent,
            line,
            task,
            calls: 0,
            attempts: 0,
            accepted: None,
            decided_by: None,
            path: None,
            not_jit: None,
            rustc_because: None,
            diagnostics: Vec::new(),
            outcome: None,
            error: None,
            timings_ms: SiteTimings::default(),
        }
    }

    fn record_error(&mut self, encoded: &str) {
        self.outcome = Some(outcome_of(encoded));
        self.error = Some(display_error(encoded));
    }
}

/// Building the rustc-path library for a snippet at one instantiation of its hole. Owns everything it needs, so
/// it can run on another thread while rustc checks the snippet.
struct BuildJob {
    builder: Builder,
    host: Arc<LoadedHost>,
    home: Arc<SiteHome>,
    /// For a hole written inside a snippet: that snippet's library, the base of this one.
    parent: Option<Arc<Artifact>>,
    /// Normalized.
    snippet: String,
    /// The hole's type arguments (empty outside generic functions).
    type_args: Vec<String>,
    uses: lacuna_ir::SnippetUses,
    /// Holes written inside the snippet.
    nested: Vec<NestedHole>,
}

/// A snippet library built (not yet loaded), with the milliseconds spent generating (lower) and compiling.
struct BuiltSnippet {
    built: crate::Built,
    source: SnippetSource,
    lower_ms: f64,
    compile_ms: f64,
}

impl BuildJob {
    /// Generates and compiles the library; rebuilds once per binding rustc says the snippet moves (E0507 on
    /// `*__lacuna_bN`: the binding is then handed over owned).
    fn build(self) -> Result<BuiltSnippet, String> {
        let plan = &self.home.plan;
        let base = match (&self.parent, &self.home.parent) {
            (Some(artifact), Some(parent)) => {
                LibraryBase::Snippet { source: &artifact.source, snippet_start: parent.snippet_start }
            }
            _ => LibraryBase::Host(&self.host.instrumented),
        };
        let hole_type = self.home.prepared.glue_type(self.home.index).ok_or_else(|| {
            encode_runtime("the hole's type could not be written as Rust, so the snippet cannot be compiled to run")
        })?;
        let (mut lower_ms, mut compile_ms) = (0.0, 0.0);
        let mut overrides: BTreeMap<usize, Access> = BTreeMap::new();
        for _ in 0..=plan.bindings().len() {
            let started = Instant::now();
            let source =
                generate(base, plan, hole_type, &self.snippet, &self.uses, &overrides, &self.type_args, &self.nested)
                    .map_err(|e| encode_runtime(&format!("cannot run this snippet: {e}")))?;
            lower_ms += ms(started);
            let built =
                self.builder.build("lacuna_snippet", &source.text, None).map_err(|e| encode_runtime(&e.to_string()))?;
            match built {
                Ok(built) => {
                    compile_ms += built.compile_ms;
                    return Ok(BuiltSnippet { built, source, lower_ms, compile_ms });
                }
                Err(failure) => {
                    compile_ms += failure.compile_ms;
                    let moved: Vec<usize> = failure
                        .errors
                        .iter()
                        .filter(|e| e.code.as_deref() == Some("E0507"))
                        .filter_map(|e| moved_binding(&e.message))
                        .filter(|i| overrides.get(i) != Some(&Access::Owned))
                        .collect();
                    if moved.is_empty() {
                        return Err(encode_runtime(&format!(
                            "Lacuna could not compile the accepted snippet to run it (a Lacuna bug): {}",
                            failure.summary()
                        )));
                    }
                    for i in moved {
                        overrides.insert(i, Access::Owned);
                    }
                }
            }
        }
        Err(encode_runtime("Lacuna could not compile the accepted snippet to run it"))
    }
}

/// Loads a built snippet library (once per library source) and installs the hook in it.
fn load_artifact(
    snippet: BuiltSnippet,
    artifacts: &mut HashMap<String, Arc<Artifact>>,
    shared: &'static Shared,
) -> Result<(Arc<Artifact>, f64, f64), String> {
    let BuiltSnippet { built, source, lower_ms, compile_ms } = snippet;
    if let Some(artifact) = artifacts.get(&source.text) {
        return Ok((artifact.clone(), lower_ms, compile_ms));
    }
    let runtime = |e: ExecError| encode_runtime(&e.to_string());
    let library = load_library(&built.library).map_err(runtime)?;
    // SAFETY: the generated source defines `__lacuna_snippet` and `__lacuna_install` with these signatures.
    let (entry, install) = unsafe {
        let entry =
            *library.get::<SnippetFn>(b"__lacuna_snippet\0").map_err(|e| runtime(load_error(&built.library, e)))?;
        let install =
            *library.get::<InstallFn>(b"__lacuna_install\0").map_err(|e| runtime(load_error(&built.library, e)))?;
        (entry, install)
    };
    // Never unloaded (see `Engine::load`).
    std::mem::forget(library);
    let context: *const Shared = shared;
    // SAFETY: as in `Engine::run`: holes inside host code the snippet calls reach the same hook.
    unsafe { install(hook, context.cast()) };
    let artifact = Arc::new(Artifact { entry, source_path: built.source.to_string_lossy().into_owned(), source });
    artifacts.insert(artifact.source.text.clone(), artifact.clone());
    Ok((artifact, lower_ms, compile_ms))
}

/// Whether the subset's own checks accept a lowered snippet without rustc (see
/// [`lacuna_lowering::accept_without_rustc`]).
fn subset_accepts(home: &SiteHome, lowered: &lacuna_lowering::Lowered) -> Result<(), String> {
    let facts = lacuna_lowering::HostFacts::new(
        &home.prepared.host.text,
        home.prepared.glue_type(home.index),
        &lowered.snippet.ty,
        home.plan.bindings(),
    );
    lacuna_lowering::accept_without_rustc(lowered, facts)
}

/// The verdict for a snippet the subset accepted on its own.
fn subset_verdict(home: &SiteHome, check_ms: f64) -> Verdict {
    Verdict {
        accepted: true,
        decided_by: lacuna_checker::DecidedBy::JitSubset,
        expected_type: home.prepared.expected_types[home.index].clone(),
        diagnostics: Vec::new(),
        timings: lacuna_checker::Timings { check: check_ms, ..Default::default() },
    }
}

/// The typed view and lowering of an accepted snippet, or why it is not for the JIT.
fn lower_for_jit(checker: &mut Checker, home: &SiteHome, snippet: &str) -> Result<lacuna_lowering::Lowered, String> {
    let normalized = normalize(snippet);
    let at = |construct: &str, offset: usize| {
        let (line, column) = line_col(&normalized, offset);
        format!("{construct} at {line}:{column}")
    };
    let typed = checker
        .typed_snippet(&home.prepared, home.index, snippet)
        .map_err(|e| e.to_string())?
        .map_err(|u| at(&u.construct, u.range.start))?;
    let plan = &home.plan;
    let lowered = lacuna_lowering::lower(typed, plan.bindings()).map_err(|e| at(&e.construct, e.range.start))?;
    // The host must hand over each binding the snippet reads, writable where it writes.
    for &(index, _) in &lowered.snippet.bindings {
        let mode = plan.modes[index];
        let writable = matches!(mode, crate::instrument::HostMode::Mutable | crate::instrument::HostMode::Movable);
        if mode == crate::instrument::HostMode::Absent
            || (lowered.written_bindings.contains(&index) && !(writable && plan.bindings()[index].mutable))
        {
            return Err(format!("`{}` is not available to the JIT at this hole", plan.bindings()[index].name));
        }
    }
    Ok(lowered)
}

fn jit_fault_error(
    context: &lacuna_jit::JitContext,
    host_run: Option<&RawRun>,
    messages: &[String],
    snippet: &str,
    budgets: &Budgets,
    stack_bytes: usize,
) -> String {
    use lacuna_jit::Fault;
    // A fault in the snippet's code: its message, where it happened.
    let at_fault = |message: &str| {
        let (line, column) = line_col(snippet, context.fault_at as usize);
        encode(&["runtime", message, &line.to_string(), &column.to_string()], &[])
    };
    match Fault::from_code(context.fault) {
        Some(Fault::Fuel) => encode(&["budget", "fuel", &budgets.fuel.to_string()], &[]),
        Some(Fault::Stack) => encode(&["budget", "stack", &stack_bytes.to_string()], &[]),
        Some(Fault::Memory) => encode(&["budget", "memory", &budgets.memory_bytes.to_string()], &[]),
        Some(Fault::IndexOutOfBounds) => {
            let [len, index] = context.fault_values;
            at_fault(&format!("index out of bounds: the len is {len} but the index is {index}"))
        }
        Some(Fault::Panic) => at_fault(
            usize::try_from(context.fault_values[0])
                .ok()
                .and_then(|i| messages.get(i))
                .map_or(Fault::Panic.message(), |m| m.as_str()),
        ),
        Some(Fault::StrSlice) => {
            at_fault(&lacuna_jit::take_fault_message().unwrap_or_else(|| Fault::StrSlice.message().to_owned()))
        }
        // Where the snippet called the host function, with the panic's own message.
        Some(Fault::HostPanic) => at_fault(
            &host_run
                .map(|run| {
                    String::from_utf8_lossy(&run.message[..(run.message_len as usize).min(run.message.len())])
                        .into_owned()
                })
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| Fault::HostPanic.message().to_owned()),
        ),
        Some(fault) => at_fault(fault.message()),
        None => encode_runtime("the JIT-compiled snippet stopped without saying why"),
    }
}

/// 1-based line and column (in chars) of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..text.floor_char_boundary(offset.min(text.len()))];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn encode_runtime(message: &str) -> String {
    encode(&["runtime", message, "0", "0"], &[])
}

/// `cannot move out of `*__lacuna_b3` which is behind a shared reference` → 3.
fn moved_binding(message: &str) -> Option<usize> {
    let at = message.find("__lacuna_b")? + "__lacuna_b".len();
    let digits: String = message[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// The hook every loaded library calls at a hole.
///
/// # Safety
/// `context` is the leaked `Shared` given to `__lacuna_install`; `call` points to the host's `RawHoleCall`.
unsafe extern "C" fn hook(context: *const (), call: *mut RawHoleCall) -> u32 {
    thread_local! {
        static ERROR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    // SAFETY: see the function's contract.
    let (shared, call) = unsafe { (&*(context as *const Shared), &mut *call) };
    // No panic may unwind into the host's frames (a different Rust runtime, through `extern "C"`).
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.hole(call)))
        .unwrap_or_else(|_| Err(encode_model("internal error in Lacuna while running the hole")));
    match result {
        Ok(()) => 0,
        Err(error) => {
            ERROR.with(|e| {
                let mut e = e.borrow_mut();
                *e = error;
                call.error = e.as_ptr();
                call.error_len = e.len();
            });
            1
        }
    }
}

/// The error encoding the runtime decodes (`lacuna::__private::decode_error`).
fn encode(head: &[&str], rest: &[String]) -> String {
    head.iter().copied().chain(rest.iter().map(String::as_str)).collect::<Vec<_>>().join("\u{1f}")
}

fn encode_model(message: &str) -> String {
    encode(&["model", message], &[])
}

/// An encoded error as `HoleError`'s `Display` would show it (for the report).
fn display_error(encoded: &str) -> String {
    let fields: Vec<&str> = encoded.split('\u{1f}').collect();
    match fields.as_slice() {
        ["rejected", attempts, diagnostics @ ..] => {
            format!("rejected after {attempts} attempt(s) with {} error(s)", diagnostics.len())
        }
        ["runtime", message, line, column] => format!("runtime fault at {line}:{column}: {message}"),
        ["budget", resource, limit] => format!("exceeded the {resource} budget ({limit})"),
        ["model", message] => format!("model: {message}"),
        _ => encoded.replace('\u{1f}', " "),
    }
}

fn fault_error(run: &RawRun, artifact: &Artifact, budgets: &Budgets, stack_bytes: usize) -> String {
    let text = |buf: &[u8], len: u32| String::from_utf8_lossy(&buf[..(len as usize).min(buf.len())]).into_owned();
    match run.fault {
        2 => encode(&["budget", "fuel", &budgets.fuel.to_string()], &[]),
        3 => encode(&["budget", "time", &format!("{} ms", budgets.time_ms)], &[]),
        4 => encode(&["budget", "stack", &stack_bytes.to_string()], &[]),
        5 => encode(&["budget", "memory", &budgets.memory_bytes.to_string()], &[]),
        _ => {
            let mut message = text(&run.message, run.message_len);
            if message.is_empty() {
                message = "the snippet panicked".into();
            }
            let file = text(&run.file, run.file_len);
            let in_snippet = |line, column| artifact.source.snippet_position(line, column);
            // Where the panic happened if that is in the snippet; else the innermost snippet line on the stack
            // (a fault inside std or host code the snippet called).
            let (line, column) = (file == artifact.source_path)
                .then(|| in_snippet(run.line, run.column))
                .flatten()
                .or_else(|| {
                    let trace = text(&run.trace, run.trace_len);
                    trace
                        .lines()
                        .filter_map(|l| l.trim().strip_prefix("at "))
                        .filter_map(|at| at.strip_prefix(artifact.source_path.as_str())?.strip_prefix(':'))
                        .filter_map(|pos| {
                            let mut parts = pos.split(':');
                            let line = parts.next()?.parse().ok()?;
                            let column = parts.next().and_then(|c| c.parse().ok()).unwrap_or(1);
                            in_snippet(line, column)
                        })
                        .next()
                })
                .unwrap_or((0, 0));
            encode(&["runtime", &message, &line.to_string(), &column.to_string()], &[])
        }
    }
}

/// The lowest address a snippet on this thread may push its stack to, and the stack it may use in bytes: the
/// thread's stack less a margin for the std and host code it calls, so recursion in the snippet is a budget
/// error instead of a stack overflow that would abort the process.
fn stack_limit() -> (usize, usize) {
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

fn load_library(path: &std::path::Path) -> Result<libloading::Library, ExecError> {
    // SAFETY: the library was just built by Lacuna from generated source; its initializers are std's and the
    // host's own (none run snippet code).
    unsafe { libloading::Library::new(path) }.map_err(|e| load_error(path, e))
}

fn load_error(path: &std::path::Path, e: libloading::Error) -> ExecError {
    ExecError::Load { path: path.display().to_string(), detail: e.to_string() }
}

/// Whether the host defines `fn main` (a cheap textual test; the library build would fail without one).
fn has_main(text: &str) -> bool {
    text.match_indices("fn main").any(|(i, _)| {
        let rest = text[i + 7..].trim_start();
        rest.starts_with('(') || rest.starts_with('<')
    })
}

fn ms(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Defines `layout()` from an expression over `RawHoleCall` and `RawRun`, and keeps the expression's text so
    /// the same code can be compiled against the runtime crate.
    macro_rules! layout_probe {
        ($($expr:tt)*) => {
            const LAYOUT_EXPR: &str = stringify!($($expr)*);
            fn layout() -> String {
                $($expr)*
            }
        };
    }

    layout_probe!(format!(
        "call={} {} {} {} {} {} {} {} {} {} | run={} {} {} {} {} {} {} {} {} {} {} {} {} {}",
        std::mem::size_of::<RawHoleCall>(),
        std::mem::offset_of!(RawHoleCall, site),
        std::mem::offset_of!(RawHoleCall, table),
        std::mem::offset_of!(RawHoleCall, moved),
        std::mem::offset_of!(RawHoleCall, len),
        std::mem::offset_of!(RawHoleCall, types),
        std::mem::offset_of!(RawHoleCall, types_len),
        std::mem::offset_of!(RawHoleCall, task_len),
        std::mem::offset_of!(RawHoleCall, out),
        std::mem::offset_of!(RawHoleCall, error_len),
        std::mem::size_of::<RawRun>(),
        std::mem::offset_of!(RawRun, fuel),
        std::mem::offset_of!(RawRun, time_ms),
        std::mem::offset_of!(RawRun, memory),
        std::mem::offset_of!(RawRun, stack_limit),
        std::mem::offset_of!(RawRun, fault),
        std::mem::offset_of!(RawRun, line),
        std::mem::offset_of!(RawRun, column),
        std::mem::offset_of!(RawRun, message_len),
        std::mem::offset_of!(RawRun, file_len),
        std::mem::offset_of!(RawRun, trace_len),
        std::mem::offset_of!(RawRun, message),
        std::mem::offset_of!(RawRun, file),
        std::mem::offset_of!(RawRun, trace),
    ));

    /// The mirrors in this crate and the runtime crate's structs have the same layout, field for field.
    #[test]
    fn abi_structs_match_the_runtime_crate() {
        let dir = tempfile::tempdir().unwrap();
        let rustc = lacuna_checker::Rustc::discover(
            lacuna_checker::PRELUDE_SOURCE,
            &lacuna_checker::default_cache_dir(),
            std::time::Duration::from_secs(120),
        )
        .unwrap();
        let program = format!(
            "use lacuna::__private::{{RawHoleCall, RawRun}};\nfn main() {{ print!(\"{{}}\", {LAYOUT_EXPR}); }}\n"
        );
        let source = dir.path().join("abi.rs");
        std::fs::write(&source, program).unwrap();
        let binary = dir.path().join("abi");
        let out = std::process::Command::new(&rustc.path)
            .args(["--edition", "2021", "--extern"])
            .arg(format!("lacuna={}", rustc.prelude_rlib().display()))
            .arg("-o")
            .arg(&binary)
            .arg(&source)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let theirs = std::process::Command::new(&binary).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&theirs.stdout), layout());
    }
}
