//! The `lacuna` crate as a host program sees it: `agent!`, `HoleError` and the prelude; and the runtime side of
//! `lacuna run`.
//!
//! This is the surface that holes are checked against. rust-analyzer loads it as an in-memory crate, and rustc
//! gets it as an rlib compiled once per toolchain (cached by content), so both compilers see the same items.
//! Nothing here runs in `lacuna check`. Under `lacuna run`, the host and every rustc-compiled snippet link this
//! rlib: `__private::enter` is what a hole becomes, and `__private::run_snippet` is how a snippet runs.

// The alloc-error hook turns a refused allocation in a snippet into a panic (an error value) instead of an abort.
#![feature(alloc_error_hook)]

use std::fmt;

/// Why a hole produced no value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HoleError {
    /// No attempt was accepted; `diagnostics` are the last attempt's, rendered.
    Rejected { attempts: u32, diagnostics: Vec<String> },
    /// The accepted snippet faulted (panic, overflow, out-of-bounds, ...) at a line and column of the snippet.
    Runtime { message: String, line: u32, column: u32 },
    /// The snippet ran out of a budget (fuel, time, memory).
    Budget { resource: String, limit: u64 },
    /// Holes nested deeper than the configured cap.
    Depth { limit: u32 },
    /// The model could not be asked (network, authentication, malformed reply).
    Model { message: String },
}

impl fmt::Display for HoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HoleError::Rejected { attempts, diagnostics } => {
                write!(f, "no snippet was accepted after {attempts} attempt(s)")?;
                for d in diagnostics {
                    write!(f, "\n{d}")?;
                }
                Ok(())
            }
            HoleError::Runtime { message, line, column } => {
                write!(f, "the snippet faulted at {line}:{column}: {message}")
            }
            HoleError::Budget { resource, limit } => write!(f, "the snippet exceeded its {resource} budget ({limit})"),
            HoleError::Depth { limit } => write!(f, "holes nested deeper than {limit}"),
            HoleError::Model { message } => write!(f, "model error: {message}"),
        }
    }
}

impl std::error::Error for HoleError {}

/// A typed hole: `agent!("task")` or `agent!(model, "task")`, an expression of type `Result<T, HoleError>`.
#[macro_export]
macro_rules! agent {
    ($model:ident, $task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::Some(::core::stringify!($model)), $task)
    };
    ($task:expr $(,)?) => {
        $crate::__private::hole(::core::option::Option::None, $task)
    };
}

#[doc(hidden)]
pub mod __private {
    //! The runtime side of `lacuna run`. A host run by Lacuna has each hole replaced by [`enter`] with the hole's
    //! binding table; Lacuna installs its [`Hook`] before `main`. Snippets compiled by rustc run inside
    //! [`run_snippet`], which turns panics and exhausted budgets into a fault Lacuna reads back.

    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::{Cell, RefCell};
    use std::mem::MaybeUninit;
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::time::{Duration, Instant};

    /// The error of a hole that was given no snippet.
    pub const NO_SNIPPET: &str = "no snippet was given for this hole";

    /// The value of a hole that no snippet filled. `lacuna check` only types it; `lacuna run` replaces each hole
    /// with [`enter`] before anything executes.
    pub fn hole<T, S: AsRef<str>>(model: Option<&'static str>, task: S) -> Result<T, crate::HoleError> {
        let _ = (model, task.as_ref());
        Err(crate::HoleError::Model { message: NO_SNIPPET.into() })
    }

    /// A hole's task as text: what `agent!(task)` accepts (`&str`, `String`, anything `AsRef<str>`), borrowed so
    /// the host keeps its value.
    pub fn task_text<S: AsRef<str> + ?Sized>(task: &S) -> String {
        task.as_ref().to_owned()
    }

    /// A value of any type, for the checker to ask rustc whether a hole's type is what it thinks. Never called.
    pub fn placeholder<T>() -> T {
        unreachable!("lacuna's type probe is checked, never run")
    }

    /// What Lacuna's process gives a host: called at each hole with the hole's binding table.
    pub type Hook = unsafe extern "C" fn(context: *const (), call: *mut RawHoleCall) -> u32;

    /// One hole being reached. The hook writes a `T` to `out` and returns 0, or sets `error` and returns 1.
    #[repr(C)]
    pub struct RawHoleCall {
        pub site: u32,
        /// One pointer per binding of the hole's table (to the binding's place in the host's frame).
        pub table: *const *mut (),
        /// One flag per binding: set when the snippet moved the binding out (the host must then not drop it).
        pub moved: *mut u8,
        pub len: usize,
        /// The hole's type parameters as `std::any::type_name` spells them, separated by U+001F (holes inside
        /// generic functions are compiled per instantiation).
        pub types: *const u8,
        pub types_len: usize,
        /// The task as the host evaluated it (UTF-8), for the model's prompt.
        pub task: *const u8,
        pub task_len: usize,
        pub out: *mut (),
        /// The error, encoded by Lacuna (see [`decode_error`]); valid until the hook's next call on this thread.
        pub error: *const u8,
        pub error_len: usize,
    }

    static HOOK: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
    static CONTEXT: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

    /// # Safety
    /// `hook` must stay callable with `context` for as long as code of this crate copy can run.
    pub unsafe fn install(hook: Hook, context: *const ()) {
        CONTEXT.store(context as *mut (), Ordering::SeqCst);
        HOOK.store(hook as *mut (), Ordering::SeqCst);
    }

    /// A hole at run time: asks Lacuna for the value, handing it the hole's bindings.
    pub fn enter<T>(
        site: u32,
        table: &[*mut ()],
        moved: &mut [u8],
        types: &[&'static str],
        task: &str,
    ) -> Result<T, crate::HoleError> {
        let hook = HOOK.load(Ordering::SeqCst);
        if hook.is_null() {
            return Err(crate::HoleError::Model { message: NO_SNIPPET.into() });
        }
        // Output the host printed so far comes before anything the snippet prints (it may print through another
        // copy of std).
        let _ = std::io::Write::flush(&mut std::io::stdout());
        // SAFETY: only `install` stores into HOOK, and what it stores is a `Hook`.
        let hook: Hook = unsafe { std::mem::transmute::<*mut (), Hook>(hook) };
        let mut out = MaybeUninit::<T>::uninit();
        let types = types.join("\u{1f}");
        let mut call = RawHoleCall {
            site,
            table: table.as_ptr(),
            moved: moved.as_mut_ptr(),
            len: table.len().min(moved.len()),
            types: types.as_ptr(),
            types_len: types.len(),
            task: task.as_ptr(),
            task_len: task.len(),
            out: out.as_mut_ptr().cast(),
            error: std::ptr::null(),
            error_len: 0,
        };
        // SAFETY: Lacuna's hook returns 0 only after an accepted snippet whose value has type `T` (the hole's
        // type, which the checker and rustc agreed on) was written to `out`.
        let status = unsafe { hook(CONTEXT.load(Ordering::SeqCst), &mut call) };
        if status == 0 {
            // SAFETY: see above: status 0 means `out` holds a `T`.
            return Ok(unsafe { out.assume_init() });
        }
        let text = if call.error.is_null() {
            String::new()
        } else {
            // SAFETY: the hook points `error` at `error_len` bytes it keeps alive until its next call.
            String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(call.error, call.error_len) }).into_owned()
        };
        Err(decode_error(&text))
    }

    /// Lacuna's encoding of a [`crate::HoleError`]: a kind, then fields, separated by U+001F.
    pub fn decode_error(text: &str) -> crate::HoleError {
        let mut fields = text.split('\u{1f}');
        let kind = fields.next().unwrap_or("");
        let mut next = || fields.next().unwrap_or("").to_owned();
        match kind {
            "rejected" => {
                let attempts = next().parse().unwrap_or(0);
                let diagnostics = fields.map(str::to_owned).collect();
                crate::HoleError::Rejected { attempts, diagnostics }
            }
            "runtime" => {
                let message = next();
                let line = next().parse().unwrap_or(0);
                let column = next().parse().unwrap_or(0);
                crate::HoleError::Runtime { message, line, column }
            }
            "budget" => {
                let resource = next();
                let limit = next().parse().unwrap_or(0);
                crate::HoleError::Budget { resource, limit }
            }
            "depth" => crate::HoleError::Depth { limit: next().parse().unwrap_or(0) },
            "model" => crate::HoleError::Model { message: next() },
            _ => crate::HoleError::Model { message: text.to_owned() },
        }
    }

    /// Runs the host's `main` for Lacuna on a thread named `main` (so the host's panic messages read as they do in
    /// a program), with `stack_bytes` of stack: its exit code, the way a Rust program's process would report it.
    pub fn run_main<R: std::process::Termination + 'static>(main: fn() -> R, stack_bytes: usize) -> i32 {
        let code = std::thread::Builder::new()
            .name("main".into())
            .stack_size(stack_bytes)
            .spawn(move || main().report())
            .map(|thread| thread.join());
        let _ = std::io::Write::flush(&mut std::io::stdout());
        match code {
            Ok(Ok(code)) => (0..=255u8).find(|&n| std::process::ExitCode::from(n) == code).map_or(1, i32::from),
            Ok(Err(_)) => 101,
            Err(e) => {
                eprintln!("lacuna: cannot start the host's main thread: {e}");
                101
            }
        }
    }

    /// Budgets for one snippet run, and the fault it ended with. Filled by Lacuna, read back after the run.
    #[repr(C)]
    pub struct RawRun {
        /// Loop iterations and calls the snippet may make (0: unlimited).
        pub fuel: u64,
        /// Wall time in milliseconds (0: unlimited).
        pub time_ms: u64,
        /// Bytes the snippet may hold allocated at once (0: unlimited).
        pub memory: u64,
        /// The lowest stack address the snippet may reach (0: unchecked).
        pub stack_limit: usize,
        /// How the run ended: one of the `FAULT_*` codes.
        pub fault: u32,
        pub line: u32,
        pub column: u32,
        pub message_len: u32,
        pub file_len: u32,
        pub trace_len: u32,
        pub message: [u8; 4096],
        pub file: [u8; 1024],
        /// The panic's backtrace as std prints it (`at FILE:LINE:COL` lines), for faults inside std or host code
        /// called from the snippet: Lacuna finds the snippet line the call came from.
        pub trace: [u8; 16384],
    }

    /// [`RawRun::fault`]: the snippet finished.
    pub const FAULT_NONE: u32 = 0;
    /// [`RawRun::fault`]: the snippet panicked (the message and place are in the record).
    pub const FAULT_PANIC: u32 = 1;
    /// [`RawRun::fault`]: the snippet ran out of fuel.
    pub const FAULT_FUEL: u32 = 2;
    /// [`RawRun::fault`]: the snippet ran out of time.
    pub const FAULT_TIME: u32 = 3;
    /// [`RawRun::fault`]: the snippet reached its stack limit.
    pub const FAULT_STACK: u32 = 4;
    /// [`RawRun::fault`]: the snippet would have held more memory than its budget.
    pub const FAULT_MEMORY: u32 = 5;

    /// The payload of a panic that stops a snippet for exceeding a budget (a `FAULT_*` code).
    #[derive(Debug)]
    pub struct BudgetExceeded(pub u32);

    #[derive(Clone, Copy)]
    struct Budgets {
        fuel: u64,
        deadline: Option<Instant>,
        stack_limit: usize,
        memory_left: usize,
        memory_refused: bool,
    }

    const UNLIMITED: Budgets =
        Budgets { fuel: u64::MAX, deadline: None, stack_limit: 0, memory_left: usize::MAX, memory_refused: false };

    thread_local! {
        static BUDGETS: Cell<Budgets> = const { Cell::new(UNLIMITED) };
        static TICKS: Cell<u32> = const { Cell::new(0) };
        static LAST_PANIC: RefCell<Option<(String, String, u32, u32, String)>> = const { RefCell::new(None) };
        /// How many `run_snippet` calls are active on this thread: panics outside them are the program's own and
        /// go to the hook that was there before.
        static CAPTURING: Cell<u32> = const { Cell::new(0) };
    }

    /// Memory a snippet that hit its budget may still allocate while its panic unwinds.
    const PANIC_GRACE_BYTES: usize = 4 << 20;

    fn exceeded(kind: u32) -> ! {
        std::panic::panic_any(BudgetExceeded(kind))
    }

    /// Called at the head of every loop iteration, function and closure body of a snippet.
    #[inline]
    pub fn tick() {
        BUDGETS.with(|b| {
            let mut budgets = b.get();
            if budgets.fuel == 0 {
                exceeded(FAULT_FUEL);
            }
            budgets.fuel -= 1;
            b.set(budgets);
            let marker = 0u8;
            let sp = std::hint::black_box(&marker) as *const u8 as usize;
            if sp < budgets.stack_limit {
                exceeded(FAULT_STACK);
            }
            if let Some(deadline) = budgets.deadline {
                let ticks = TICKS.with(|t| {
                    let n = t.get().wrapping_add(1);
                    t.set(n);
                    n
                });
                if ticks % 1024 == 0 && Instant::now() > deadline {
                    exceeded(FAULT_TIME);
                }
            }
        })
    }

    fn install_panic_hook() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            std::alloc::set_alloc_error_hook(|layout| {
                // The panic itself allocates (its message, the hook's backtrace): grant a little grace so that does
                // not fail too and abort the process.
                let _ = BUDGETS.try_with(|b| {
                    let mut budgets = b.get();
                    if budgets.memory_left != usize::MAX {
                        budgets.memory_left = budgets.memory_left.max(PANIC_GRACE_BYTES);
                        b.set(budgets);
                    }
                });
                panic!("memory allocation of {} bytes failed", layout.size())
            });
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if CAPTURING.try_with(|c| c.get()).unwrap_or(0) == 0 {
                    return previous(info);
                }
                if info.payload().is::<BudgetExceeded>() {
                    return;
                }
                let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
                    (*s).to_owned()
                } else if let Some(s) = info.payload().downcast_ref::<String>() {
                    s.clone()
                } else {
                    "the snippet panicked".to_owned()
                };
                let (file, line, column) =
                    info.location().map_or((String::new(), 0, 0), |l| (l.file().to_owned(), l.line(), l.column()));
                // Resolving a backtrace reads debug info and allocates freely: not on the snippet's memory budget.
                let saved = BUDGETS.try_with(|b| {
                    let budgets = b.get();
                    b.set(Budgets { memory_left: usize::MAX, ..budgets });
                    budgets
                });
                let trace = std::backtrace::Backtrace::force_capture().to_string();
                if let Ok(saved) = saved {
                    let _ = BUDGETS.try_with(|b| b.set(saved));
                }
                // A panic while a panic is being recorded must not recurse.
                let _ = LAST_PANIC
                    .try_with(|p| p.try_borrow_mut().map(|mut p| *p = Some((message, file, line, column, trace))));
            }))
        });
    }

    fn copy_into(buf: &mut [u8], text: &str) -> u32 {
        let mut n = text.len().min(buf.len());
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        n as u32
    }

    /// Runs a snippet's body under `run`'s budgets. Returns 0 when it finished, 1 with `run`'s fault filled in
    /// when it panicked or ran out of a budget. Budgets nest: a hole inside the snippet gets its own, and this
    /// snippet's are restored when it returns.
    ///
    /// # Safety
    /// `run` must point to a valid `RawRun` for the duration of the call.
    pub unsafe fn run_snippet(run: *mut RawRun, body: impl FnOnce()) -> u32 {
        install_panic_hook();
        // SAFETY: the caller guarantees `run` is valid and not aliased during the call.
        let run = unsafe { &mut *run };
        let outer = BUDGETS.with(|b| b.get());
        let budgets = Budgets {
            fuel: if run.fuel == 0 { u64::MAX } else { run.fuel },
            deadline: (run.time_ms > 0).then(|| Instant::now() + Duration::from_millis(run.time_ms)),
            stack_limit: run.stack_limit,
            memory_left: if run.memory == 0 { usize::MAX } else { run.memory as usize },
            memory_refused: false,
        };
        BUDGETS.with(|b| b.set(budgets));
        LAST_PANIC.with(|p| *p.borrow_mut() = None);
        CAPTURING.with(|c| c.set(c.get() + 1));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        CAPTURING.with(|c| c.set(c.get() - 1));
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let ended = BUDGETS.with(|b| b.replace(outer));
        let payload = match result {
            Ok(()) => return 0,
            Err(payload) => payload,
        };
        let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
        run.fault = match payload.downcast_ref::<BudgetExceeded>() {
            Some(BudgetExceeded(kind)) => *kind,
            None if ended.memory_refused => FAULT_MEMORY,
            None => FAULT_PANIC,
        };
        if let Some((message, file, line, column, trace)) = recorded {
            run.message_len = copy_into(&mut run.message, &message);
            run.file_len = copy_into(&mut run.file, &file);
            run.trace_len = copy_into(&mut run.trace, &trace);
            run.line = line;
            run.column = column;
        }
        drop(payload);
        1
    }

    /// The allocator of rustc-compiled snippets: the system allocator, refusing what would take a snippet past
    /// its memory budget (the refusal becomes a panic, as snippets are built with `-Z oom=panic`).
    pub struct BudgetAllocator;

    fn reserve(bytes: usize) -> bool {
        BUDGETS
            .try_with(|b| {
                let mut budgets = b.get();
                if budgets.memory_left == usize::MAX {
                    return true;
                }
                if bytes > budgets.memory_left {
                    budgets.memory_refused = true;
                    b.set(budgets);
                    return false;
                }
                budgets.memory_left -= bytes;
                b.set(budgets);
                true
            })
            .unwrap_or(true)
    }

    fn release(bytes: usize) {
        let _ = BUDGETS.try_with(|b| {
            let mut budgets = b.get();
            if budgets.memory_left != usize::MAX {
                budgets.memory_left = budgets.memory_left.saturating_add(bytes).min(usize::MAX - 1);
                b.set(budgets);
            }
        });
    }

    // SAFETY: every method forwards to `System` with the same arguments; refusing (returning null) is allowed.
    unsafe impl GlobalAlloc for BudgetAllocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if !reserve(layout.size()) {
                return std::ptr::null_mut();
            }
            // SAFETY: forwarded unchanged.
            unsafe { System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if !reserve(layout.size()) {
                return std::ptr::null_mut();
            }
            // SAFETY: forwarded unchanged.
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            release(layout.size());
            // SAFETY: forwarded unchanged.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if new_size > layout.size() && !reserve(new_size - layout.size()) {
                return std::ptr::null_mut();
            }
            // SAFETY: forwarded unchanged.
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if !new.is_null() && new_size < layout.size() {
                release(layout.size() - new_size);
            }
            new
        }
    }
}

/// `use lacuna::prelude::*;` brings in what a host needs. Hosts run by `lacuna` have it without the import.
pub mod prelude {
    pub use crate::agent;
    pub use crate::HoleError;
}
