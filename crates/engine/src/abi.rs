//! The ABI shared with the `lacuna` runtime crate (`crates/checker/prelude/lacuna.rs`, `__private`): field for
//! field the same `#[repr(C)]` structs, the entry points' types, and the fault codes of a run. A test compiles a
//! program against the runtime that checks sizes, offsets and codes agree.

// The ABI shared with the `lacuna` runtime crate (`crates/checker/prelude/lacuna.rs`, `__private`). Field for
// field the same `#[repr(C)]` structs; `tests/abi.rs` compiles a program against the runtime that checks sizes
// and offsets agree.

#[repr(C)]
pub(crate) struct RawHoleCall {
    pub(crate) site: u32,
    pub(crate) table: *const *mut (),
    pub(crate) moved: *mut u8,
    pub(crate) len: usize,
    pub(crate) types: *const u8,
    pub(crate) types_len: usize,
    pub(crate) task: *const u8,
    pub(crate) task_len: usize,
    pub(crate) out: *mut (),
    pub(crate) error: *const u8,
    pub(crate) error_len: usize,
    /// One of [`Phase`]'s codes.
    pub(crate) phase: u32,
    /// A `std::task::Waker`, for [`Phase::EnterAsync`] and [`Phase::Poll`].
    pub(crate) waker: *const (),
    /// The engine's handle of a snippet that awaits and has not finished (see [`crate::runner`]'s `Pending`).
    pub(crate) pending: *mut (),
}

/// What a hook call asks ([`RawHoleCall::phase`]; the runtime's `PHASE_*` codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Phase {
    /// A hole in plain code: run the snippet to its end.
    Enter = 0,
    /// A hole in async code, polled the first time: a snippet that awaits may be left pending.
    EnterAsync = 1,
    /// Poll the pending snippet again.
    Poll = 2,
    /// The hole's future was dropped before its snippet finished.
    Drop = 3,
}

impl Phase {
    const ALL: [Phase; 4] = [Phase::Enter, Phase::EnterAsync, Phase::Poll, Phase::Drop];

    pub(crate) fn from_code(code: u32) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| *p as u32 == code)
    }
}

/// A hook's status: the snippet ended well (the value is in `out`).
pub(crate) const STATUS_OK: u32 = 0;
/// A hook's status: the hole failed (the error is in the call).
pub(crate) const STATUS_ERROR: u32 = 1;
/// A hook's status: the snippet is waiting (`pending` is its handle).
pub(crate) const STATUS_PENDING: u32 = 2;

#[repr(C)]
pub(crate) struct RawRun {
    pub(crate) fuel: u64,
    pub(crate) time_ms: u64,
    pub(crate) memory: u64,
    pub(crate) stack_limit: usize,
    /// Null, or a flag that lives as long as the process (see [`crate::Engine`]'s run interrupt).
    pub(crate) interrupt: *const std::sync::atomic::AtomicU32,
    /// Null, or a counter that lives as long as the process and changes at every rustc-path run's deadline
    /// ([`crate::watchdog::DEADLINES`]).
    pub(crate) epoch: *const std::sync::atomic::AtomicU32,
    pub(crate) fault: u32,
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) message_len: u32,
    pub(crate) file_len: u32,
    pub(crate) trace_len: u32,
    pub(crate) message: [u8; 4096],
    pub(crate) file: [u8; 1024],
    pub(crate) trace: [u8; 16384],
}

impl RawRun {
    /// No budgets: for host functions the JIT calls.
    pub(crate) fn unlimited() -> RawRun {
        RawRun {
            fuel: 0,
            time_ms: 0,
            memory: 0,
            stack_limit: 0,
            interrupt: std::ptr::null(),
            epoch: &crate::watchdog::DEADLINES,
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

/// How a rustc-path run ended ([`RawRun::fault`]; the runtime's `FAULT_*` codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum RunFault {
    None = 0,
    Panic = 1,
    Fuel = 2,
    Time = 3,
    Stack = 4,
    Memory = 5,
}

impl RunFault {
    const ALL: [RunFault; 6] =
        [RunFault::None, RunFault::Panic, RunFault::Fuel, RunFault::Time, RunFault::Stack, RunFault::Memory];

    /// The fault a run record holds (`None` for a code the runtime does not define).
    pub(crate) fn from_code(code: u32) -> Option<RunFault> {
        RunFault::ALL.into_iter().find(|f| *f as u32 == code)
    }
}

pub(crate) type Hook = unsafe extern "C" fn(*const (), *mut RawHoleCall) -> u32;

pub(crate) type InstallFn = unsafe extern "C" fn(Hook, *const ());

/// `__lacuna_main` of a host library (`instrument::ENTRY_POINTS`): calling it runs foreign code.
pub(crate) type MainFn = unsafe extern "C" fn(usize) -> i32;

/// `__lacuna_snippet` of a snippet library (`snippet::generate`).
pub(crate) type SnippetFn = unsafe extern "C" fn(*const *mut (), *mut u8, *mut (), *mut RawRun) -> u32;

/// `__lacuna_snippet_start` of a library whose snippet awaits: starts it (nothing runs yet), returning its handle.
pub(crate) type StartFn = unsafe extern "C" fn(*const *mut (), *mut u8, *mut (), *mut RawRun) -> *mut ();

/// `__lacuna_snippet_poll`: polls the handle with a `std::task::Waker` (the runtime's `poll_async`: 0 finished, 1
/// faulted — the handle is freed after either —, 2 waiting).
pub(crate) type PollFn = unsafe extern "C" fn(*mut (), *mut RawRun, *const ()) -> u32;

/// `__lacuna_snippet_drop`: ends a waiting snippet and frees its handle (the runtime's `drop_async`).
pub(crate) type DropFn = unsafe extern "C" fn(*mut (), *mut RawRun);

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

    // The runtime's fault codes, under the names the probe program imports.
    const FAULT_NONE: u32 = RunFault::None as u32;
    const FAULT_PANIC: u32 = RunFault::Panic as u32;
    const FAULT_FUEL: u32 = RunFault::Fuel as u32;
    const FAULT_TIME: u32 = RunFault::Time as u32;
    const FAULT_STACK: u32 = RunFault::Stack as u32;
    const FAULT_MEMORY: u32 = RunFault::Memory as u32;
    const PHASE_ENTER: u32 = Phase::Enter as u32;
    const PHASE_ENTER_ASYNC: u32 = Phase::EnterAsync as u32;
    const PHASE_POLL: u32 = Phase::Poll as u32;
    const PHASE_DROP: u32 = Phase::Drop as u32;

    layout_probe!(format!(
        "call={} {} {} {} {} {} {} {} {} {} {} {} {} | phases={} {} {} {} {} | run={} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} | faults={} {} {} {} {} {}",
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
        std::mem::offset_of!(RawHoleCall, phase),
        std::mem::offset_of!(RawHoleCall, waker),
        std::mem::offset_of!(RawHoleCall, pending),
        PHASE_ENTER,
        PHASE_ENTER_ASYNC,
        PHASE_POLL,
        PHASE_DROP,
        STATUS_PENDING,
        std::mem::size_of::<RawRun>(),
        std::mem::offset_of!(RawRun, fuel),
        std::mem::offset_of!(RawRun, time_ms),
        std::mem::offset_of!(RawRun, memory),
        std::mem::offset_of!(RawRun, stack_limit),
        std::mem::offset_of!(RawRun, interrupt),
        std::mem::offset_of!(RawRun, epoch),
        std::mem::offset_of!(RawRun, fault),
        std::mem::offset_of!(RawRun, line),
        std::mem::offset_of!(RawRun, column),
        std::mem::offset_of!(RawRun, message_len),
        std::mem::offset_of!(RawRun, file_len),
        std::mem::offset_of!(RawRun, trace_len),
        std::mem::offset_of!(RawRun, message),
        std::mem::offset_of!(RawRun, file),
        std::mem::offset_of!(RawRun, trace),
        FAULT_NONE,
        FAULT_PANIC,
        FAULT_FUEL,
        FAULT_TIME,
        FAULT_STACK,
        FAULT_MEMORY,
    ));

    /// The mirrors in this crate and the runtime crate's structs have the same layout, field for field, and the
    /// fault codes agree.
    #[test]
    pub(crate) fn abi_structs_match_the_runtime_crate() {
        let dir = tempfile::tempdir().unwrap();
        let rustc = lacuna_checker::Rustc::discover(
            lacuna_checker::PRELUDE_SOURCE,
            &lacuna_checker::default_cache_dir(),
            std::time::Duration::from_secs(120),
        )
        .unwrap();
        let program = format!(
            "use lacuna::__private::{{RawHoleCall, RawRun, PHASE_ENTER, PHASE_ENTER_ASYNC, PHASE_POLL, PHASE_DROP, \
             STATUS_PENDING, FAULT_FUEL, FAULT_MEMORY, FAULT_NONE, FAULT_PANIC, FAULT_STACK, \
             FAULT_TIME}};\nfn main() {{ print!(\"{{}}\", {LAYOUT_EXPR}); }}\n"
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
