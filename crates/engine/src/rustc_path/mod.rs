//! The rustc path: an accepted snippet compiled by rustc into a library of its own (built on another thread
//! while rustc checks it), loaded only once accepted, and its faults read back from the run record.

pub(crate) mod snippet;
mod symbolize;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use crate::abi::{DropFn, Hook, InstallFn, PollFn, RawRun, RunFault, SnippetFn, StartFn};
use crate::build::{Builder, Linkage};
use crate::failure::{HoleFailure, Resource};
use crate::load::{load_error, load_library, LoadedHost};
use crate::options::Budgets;
use crate::rustc_path::snippet::{generate, Access, LibraryBase, NestedHole, SnippetInput, SnippetSource};
use crate::site::SiteHome;
use crate::{ms, ExecError};

/// A compiled, loaded snippet.
pub(crate) struct Artifact {
    pub(crate) entry: Entry,
    /// The loaded library file.
    pub(crate) library: std::path::PathBuf,
    pub(crate) source: SnippetSource,
    pub(crate) source_path: String,
}

/// How a snippet library is entered.
#[derive(Clone, Copy)]
pub(crate) enum Entry {
    /// `__lacuna_snippet`: runs the snippet to its end.
    Run(SnippetFn),
    /// A snippet that awaits: started, then polled until it ends, or dropped.
    Future { start: StartFn, poll: PollFn, drop: DropFn },
}

/// Building the rustc-path library for a snippet at one instantiation of its hole. Owns everything it needs, so
/// it can run on another thread while rustc checks the snippet.
pub(crate) struct BuildJob {
    pub(crate) builder: Builder,
    pub(crate) host: Arc<LoadedHost>,
    pub(crate) home: Arc<SiteHome>,
    /// For a hole written inside a snippet: that snippet's library, the base of this one.
    pub(crate) parent: Option<Arc<Artifact>>,
    /// Normalized.
    pub(crate) snippet: String,
    /// The hole's type arguments (empty outside generic functions).
    pub(crate) type_args: Vec<String>,
    pub(crate) uses: lacuna_ir::SnippetUses,
    /// Holes written inside the snippet.
    pub(crate) nested: Vec<NestedHole>,
    /// The snippet awaits, in a hole in async code: its library starts it as a future.
    pub(crate) asynchronous: bool,
}

/// A snippet library built (not yet loaded), with the milliseconds spent generating (lower) and compiling.
pub(crate) struct BuiltSnippet {
    pub(crate) built: crate::build::Built,
    pub(crate) source: SnippetSource,
    pub(crate) lower_ms: f64,
    pub(crate) compile_ms: f64,
}

impl BuildJob {
    /// Generates and compiles the library; rebuilds once per binding rustc says the snippet moves (E0507 on
    /// `*__lacuna_bN`, or E0597 on its anchor `__lacuna_aN` when a `move` closure takes it along): the binding is
    /// then handed over owned.
    pub(crate) fn build(self) -> Result<BuiltSnippet, HoleFailure> {
        let plan = &self.home.plan;
        // A library that links to the host where the host is a `dylib`; one that holds a copy of the host where
        // that does not build (a case the export does not cover, such as a trait declared in the function).
        let mut mirror = self.parent.is_none() && self.home.parent.is_none() && self.host.instrumented.mirror.is_some();
        let hole_type = self.home.prepared.glue_type(self.home.index).ok_or_else(|| {
            HoleFailure::runtime(
                "the hole's type could not be written as Rust, so the snippet cannot be compiled to run",
            )
        })?;
        let (mut lower_ms, mut compile_ms) = (0.0, 0.0);
        let mut overrides: BTreeMap<usize, Access> = BTreeMap::new();
        for _ in 0..=plan.bindings().len() + 1 {
            let base = match (&self.parent, &self.home.parent) {
                (Some(artifact), Some(parent)) => {
                    LibraryBase::Snippet { source: &artifact.source, snippet_start: parent.snippet_start }
                }
                _ if mirror => LibraryBase::Mirror(&self.host.instrumented, self.home.index),
                _ => LibraryBase::Host(&self.host.instrumented),
            };
            let started = Instant::now();
            let input = SnippetInput {
                hole_type,
                snippet: &self.snippet,
                uses: &self.uses,
                type_args: &self.type_args,
                nested: &self.nested,
                asynchronous: self.asynchronous,
            };
            let source = generate(base, plan, &input, &overrides)
                .map_err(|e| HoleFailure::runtime(format!("cannot run this snippet: {e}")))?;
            lower_ms += ms(started);
            let linkage = if source.links_host { Linkage::LinksHost(&self.host.library) } else { Linkage::Standalone };
            let built = self
                .builder
                .build("lacuna_snippet", &source.text, None, linkage)
                .map_err(|e| HoleFailure::runtime(e.to_string()))?;
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
                        .filter_map(|e| match e.code.as_deref() {
                            Some("E0507") => moved_binding(&e.message),
                            Some("E0597") => escaped_binding(&e.message),
                            _ => None,
                        })
                        .filter(|i| overrides.get(i) != Some(&Access::Owned))
                        .collect();
                    if moved.is_empty() {
                        if std::mem::take(&mut mirror) {
                            continue;
                        }
                        let no_default = failure
                            .errors
                            .iter()
                            .any(|e| e.code.as_deref() == Some("E0277") && e.message.contains("Default"));
                        if no_default && overrides.values().any(|a| *a == Access::Owned) {
                            return Err(HoleFailure::runtime(
                                "cannot run this snippet: it moves a host binding the host uses after the hole, and \
                                 that binding's type has no `Default` to leave in its place if the snippet faults",
                            ));
                        }
                        // A binding the host hands over only shared at this hole (something alive there borrows it,
                        // so the instrumented host could not lend it mutably), which the snippet changes: rustc's
                        // check of the splice sees the borrow end first, but the host decides modes before any
                        // snippet is known.
                        let shared_only = failure.errors.iter().find_map(|e| match e.code.as_deref() {
                            Some("E0596" | "E0594") => moved_binding(&e.message),
                            _ => None,
                        });
                        if let Some(name) = shared_only.and_then(|i| plan.bindings().get(i)).map(|b| &b.name) {
                            return Err(HoleFailure::runtime(format!(
                                "cannot run this snippet: the host can lend `{name}` here only as a shared reference \
                                 (another value alive at the hole borrows it), and the snippet changes it; change \
                                 it in a hole where nothing else borrows it"
                            )));
                        }
                        return Err(HoleFailure::runtime(format!(
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
        Err(HoleFailure::runtime("Lacuna could not compile the accepted snippet to run it"))
    }
}

/// Loads a built snippet library (once per library source) and installs the engine's hook (`hook`, called with
/// `context`) in it.
pub(crate) fn load_artifact(
    snippet: BuiltSnippet,
    artifacts: &mut HashMap<String, Arc<Artifact>>,
    hook: Hook,
    context: *const (),
) -> Result<(Arc<Artifact>, f64, f64), HoleFailure> {
    let BuiltSnippet { built, source, lower_ms, compile_ms } = snippet;
    if let Some(artifact) = artifacts.get(&source.text) {
        return Ok((artifact.clone(), lower_ms, compile_ms));
    }
    let runtime = |e: ExecError| HoleFailure::runtime(e.to_string());
    let library = load_library(&built.library).map_err(runtime)?;
    // SAFETY: the generated source defines `__lacuna_snippet` with this signature, and a library with a copy of
    // the host also `__lacuna_install` (one that links to the host shares the host's, already installed).
    // (A snippet that awaits: `__lacuna_snippet_start`, `_poll` and `_drop`, with the signatures `abi` gives.)
    let (entry, install) = unsafe {
        let symbol_error = |e| runtime(load_error(&built.library, e));
        let entry = match source.asynchronous {
            false => Entry::Run(*library.get::<SnippetFn>(b"__lacuna_snippet\0").map_err(symbol_error)?),
            true => Entry::Future {
                start: *library.get::<StartFn>(b"__lacuna_snippet_start\0").map_err(symbol_error)?,
                poll: *library.get::<PollFn>(b"__lacuna_snippet_poll\0").map_err(symbol_error)?,
                drop: *library.get::<DropFn>(b"__lacuna_snippet_drop\0").map_err(symbol_error)?,
            },
        };
        let install = match source.links_host {
            true => None,
            false => Some(
                *library.get::<InstallFn>(b"__lacuna_install\0").map_err(|e| runtime(load_error(&built.library, e)))?,
            ),
        };
        (entry, install)
    };
    // Never unloaded (see `Engine::load`).
    std::mem::forget(library);
    if let Some(install) = install {
        // SAFETY: as in `Engine::run_with` (`hook` and `context` are the engine's): holes inside host code the
        // snippet calls reach the same hook.
        unsafe { install(hook, context) };
    }
    let artifact = Arc::new(Artifact {
        entry,
        library: built.library.clone(),
        source_path: built.source.to_string_lossy().into_owned(),
        source,
    });
    artifacts.insert(artifact.source.text.clone(), artifact.clone());
    Ok((artifact, lower_ms, compile_ms))
}

/// `cannot move out of `*__lacuna_b3` which is behind a shared reference` → 3.
pub(crate) fn moved_binding(message: &str) -> Option<usize> {
    binding_named(message, "__lacuna_b")
}

/// The binding whose anchor rustc says does not live long enough (E0597): a borrow of the binding escapes the
/// entry, so the snippet moves it (a `move` closure it returns or stores captures it).
pub(crate) fn escaped_binding(message: &str) -> Option<usize> {
    binding_named(message, snippet::ANCHOR_PREFIX)
}

fn binding_named(message: &str, prefix: &str) -> Option<usize> {
    let at = message.find(prefix)? + prefix.len();
    let digits: String = message[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// What a rustc-path run that did not finish ended with, from its run record.
pub(crate) fn fault_error(run: &RawRun, artifact: &Artifact, budgets: &Budgets, stack_bytes: usize) -> HoleFailure {
    let text = |buf: &[u8], len: u32| String::from_utf8_lossy(&buf[..(len as usize).min(buf.len())]).into_owned();
    match RunFault::from_code(run.fault) {
        Some(RunFault::Fuel) => HoleFailure::Budget { resource: Resource::Fuel, limit: budgets.fuel },
        Some(RunFault::Time) => HoleFailure::Budget { resource: Resource::Time, limit: budgets.time_ms },
        Some(RunFault::Stack) => HoleFailure::Budget { resource: Resource::Stack, limit: stack_bytes as u64 },
        Some(RunFault::Memory) => HoleFailure::Budget { resource: Resource::Memory, limit: budgets.memory_bytes },
        // A panic (or a record the runtime left without a code: read as one).
        Some(RunFault::Panic | RunFault::None) | None => {
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
                .or_else(|| {
                    // std could not name the library's lines: the recorded return addresses can.
                    let addresses = symbolize::recorded_addresses(&text(&run.trace, run.trace_len));
                    symbolize::library_positions(&artifact.library, &addresses)
                        .into_iter()
                        .find_map(|(line, column)| in_snippet(line, column))
                })
                .unwrap_or((0, 0));
            HoleFailure::Runtime { message, line: line as usize, column: column as usize }
        }
    }
}
