//! The JIT path: an accepted snippet in the JIT's subset lowered and compiled by Cranelift, and its faults read
//! back from the context.

use lacuna_checker::{Checker, LineIndex, PendingCheck, Verdict};

use crate::abi::RawRun;
use crate::failure::{HoleFailure, Resource};
use crate::options::Budgets;
use crate::site::SiteHome;

/// A snippet compiled by Cranelift, with its (normalized) text for fault positions.
pub(crate) struct JitArtifact {
    pub(crate) compiled: lacuna_jit::Compiled,
    pub(crate) snippet: String,
}

/// Whether the subset's own checks accept a lowered snippet without rustc (see
/// [`lacuna_lowering::accept_without_rustc`]).
pub(crate) fn subset_accepts(home: &SiteHome, lowered: &lacuna_lowering::Lowered) -> Result<(), String> {
    let facts = lacuna_lowering::HostFacts::new(
        home.prepared.host.outline.raises_lints,
        home.prepared.glue_type(home.index),
        &lowered.snippet.ty,
        home.plan.bindings(),
    );
    lacuna_lowering::accept_without_rustc(lowered, facts)
}

/// The verdict for a snippet the subset accepted on its own.
pub(crate) fn subset_verdict(home: &SiteHome, pending: &PendingCheck, check_ms: f64) -> Verdict {
    Verdict {
        accepted: true,
        decided_by: lacuna_checker::DecidedBy::JitSubset,
        expected_type: home.prepared.expected_types[home.index].clone(),
        diagnostics: Vec::new(),
        notes: Vec::new(),
        timings: lacuna_checker::Timings { check: check_ms, ..pending.timings().clone() },
    }
}

/// The typed view and lowering of an accepted snippet, or why it is not for the JIT.
pub(crate) fn lower_for_jit(
    checker: &mut Checker,
    home: &SiteHome,
    check: &PendingCheck,
) -> Result<lacuna_lowering::Lowered, String> {
    let at = |construct: &str, offset: usize| {
        let (line, column) = LineIndex::one(check.snippet(), offset);
        format!("{construct} at {line}:{column}")
    };
    let typed = checker
        .typed_snippet_in(&home.prepared, check)
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
        // An `FnOnce` closure the snippet calls is in the table only when the host hands it over whole.
        let once = plan.bindings()[index].callable.as_ref().is_some_and(|c| c.kind == lacuna_ir::FnKind::FnOnce);
        if once && mode != crate::instrument::HostMode::Movable {
            return Err(format!(
                "`{}` is an `FnOnce` closure the host does not hand over",
                plan.bindings()[index].name
            ));
        }
    }
    // A binding the snippet owns goes back to the host's place when it ends: only one the host reads after the
    // hole, so that rustc's move check makes the snippet leave a value there (one the host gives up may be left
    // moved, and the host forgets it then: the rustc path's business).
    for lifted in &lowered.snippet.lifted {
        if plan.modes[lifted.binding] != crate::instrument::HostMode::Mutable {
            return Err(format!(
                "`{}` is moved by the snippet and not read by the host after the hole",
                plan.bindings()[lifted.binding].name
            ));
        }
    }
    Ok(lowered)
}

pub(crate) fn jit_fault_error(
    context: &lacuna_jit::JitContext,
    host_run: Option<&RawRun>,
    messages: &[String],
    snippet: &str,
    budgets: &Budgets,
    stack_bytes: usize,
) -> HoleFailure {
    use lacuna_jit::Fault;
    // A fault in the snippet's code: its message, where it happened.
    let at_fault = |message: &str| {
        let (line, column) = LineIndex::one(snippet, context.fault_at as usize);
        HoleFailure::Runtime { message: message.to_owned(), line: line as usize, column: column as usize }
    };
    match Fault::from_code(context.fault) {
        Some(Fault::Fuel) => HoleFailure::Budget { resource: Resource::Fuel, limit: budgets.fuel },
        Some(Fault::Time) => HoleFailure::Budget { resource: Resource::Time, limit: budgets.time_ms },
        Some(Fault::Stack) => HoleFailure::Budget { resource: Resource::Stack, limit: stack_bytes as u64 },
        Some(Fault::Memory) => HoleFailure::Budget { resource: Resource::Memory, limit: budgets.memory_bytes },
        Some(Fault::IndexOutOfBounds) => {
            let [len, index] = context.fault_values;
            at_fault(&format!("index out of bounds: the len is {len} but the index is {index}"))
        }
        Some(Fault::SliceStart) => {
            let [start, len] = context.fault_values;
            at_fault(&format!("range start index {start} out of range for slice of length {len}"))
        }
        Some(Fault::SliceEnd) => {
            let [end, len] = context.fault_values;
            at_fault(&format!("range end index {end} out of range for slice of length {len}"))
        }
        Some(Fault::SliceOrder) => {
            let [start, end] = context.fault_values;
            at_fault(&format!("slice index starts at {start} but ends at {end}"))
        }
        Some(Fault::Panic) if context.fault_values[0] == lacuna_jit::FORMATTED_MESSAGE => {
            at_fault(&lacuna_jit::take_fault_message().unwrap_or_else(|| Fault::Panic.message().to_owned()))
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
        // A budget the host function ran out of (where it checks: see the runner).
        Some(Fault::HostPanic) if let Some(resource) = host_budget(host_run) => {
            let limit = match resource {
                Resource::Stack => stack_bytes as u64,
                Resource::Time => budgets.time_ms,
                Resource::Memory => budgets.memory_bytes,
                Resource::Fuel => budgets.fuel,
            };
            HoleFailure::Budget { resource, limit }
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
        None => HoleFailure::runtime("the JIT-compiled snippet stopped without saying why"),
    }
}

/// The budget a host function the JIT snippet called ran out of, if that is how it stopped.
fn host_budget(host_run: Option<&RawRun>) -> Option<Resource> {
    match crate::abi::RunFault::from_code(host_run?.fault)? {
        crate::abi::RunFault::Stack => Some(Resource::Stack),
        crate::abi::RunFault::Time => Some(Resource::Time),
        crate::abi::RunFault::Memory => Some(Resource::Memory),
        crate::abi::RunFault::Fuel => Some(Resource::Fuel),
        crate::abi::RunFault::Panic | crate::abi::RunFault::None => None,
    }
}

impl crate::Engine {
    /// What the JIT makes of `snippet` in hole `hole` (0-based) of a loaded host, as CLIF (see
    /// [`lacuna_jit::compile_to_clif`]); `Ok(Err(why))` when it does not go to the JIT. Nothing runs: for the JIT's
    /// layer test and for looking at code generation.
    pub fn jit_clif(
        &self,
        host: &std::sync::Arc<crate::LoadedHost>,
        hole: usize,
        snippet: &str,
    ) -> Result<Result<String, String>, crate::ExecError> {
        let mut guard = self.shared.lock();
        let state =
            guard.as_mut().ok_or_else(|| crate::ExecError::Internal { detail: "the engine is closed".into() })?;
        let plan = host
            .instrumented
            .sites
            .get(hole)
            .cloned()
            .ok_or_else(|| crate::ExecError::Internal { detail: format!("the host has no hole {}", hole + 1) })?;
        let home = SiteHome {
            prepared: std::sync::Arc::new(host.prepared.clone()),
            index: hole,
            plan,
            signatures: std::sync::Arc::new(host.signatures.clone()),
            parent: None,
            level: 0,
            policy: state.options.policy.clone(),
        };
        let checker = &mut state.checker;
        let pending = match checker.precheck_under(&home.prepared, hole, snippet, &home.policy)? {
            lacuna_checker::Precheck::Pending(pending) => pending,
            lacuna_checker::Precheck::Decided(verdict) => {
                return Ok(Err(format!("decided before the JIT was asked, by {}", verdict.decided_by)));
            }
        };
        let lowered = match lower_for_jit(checker, &home, &pending) {
            Ok(lowered) => lowered,
            Err(why) => return Ok(Err(why)),
        };
        let symbol = |name: &str| host.symbol(name);
        let site = home.prepared.host.holes[hole].number as u32;
        let abi = lacuna_jit::HostAbi {
            symbol: &symbol,
            vec_fields: host.vec_fields,
            map_writer: Some(lacuna_ir::map_writer_symbol(site)),
        };
        Ok(lacuna_jit::compile_to_clif(&lowered, &abi).map(|(_, clif)| clif).map_err(|e| e.to_string()))
    }
}
