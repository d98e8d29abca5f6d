
/// Budgets of rustc-compiled snippets — fuel, time, stack and memory — on the snippet's own thread and on every
/// thread it starts with `thread::scope`, and the fault a run ends with. Re-exported from `__private`, where
/// instrumented code names it.
#[doc(hidden)]
pub mod __budget {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::{Cell, RefCell};
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

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
        /// Null, or a flag that lives as long as the process: once it is non-zero the snippet stops at its next time
        /// check, as if out of time (whoever asked for the run cancelled it; Lacuna tells the two apart).
        pub interrupt: *const AtomicU32,
        /// Null, or a counter that lives as long as the process and changes whenever some run's time is up: a
        /// snippet that sees it change reads its clock at once rather than at its next 1,024th fuel count, so time
        /// spent in calls into the host (a slow tool called in a loop) counts against the budget when the call
        /// returns.
        pub epoch: *const AtomicU32,
        /// How the run ended: one of the `FAULT_*` codes.
        pub fault: u32,
        pub line: u32,
        pub column: u32,
        pub message_len: u32,
        pub file_len: u32,
        pub trace_len: u32,
        pub message: [u8; 4096],
        pub file: [u8; 1024],
        /// The panic's backtrace as `std::backtrace` renders it (the snippet's frames are in the snippet library's
        /// source, which maps back to snippet positions).
        pub trace: [u8; 16384],
    }

    /// [`RawRun::fault`]: the snippet returned normally.
    pub const FAULT_NONE: u32 = 0;
    /// [`RawRun::fault`]: the snippet panicked; the message and location are filled in.
    pub const FAULT_PANIC: u32 = 1;
    /// [`RawRun::fault`]: the snippet used up its fuel.
    pub const FAULT_FUEL: u32 = 2;
    /// [`RawRun::fault`]: the snippet ran past its time budget.
    pub const FAULT_TIME: u32 = 3;
    /// [`RawRun::fault`]: the snippet recursed past its stack budget.
    pub const FAULT_STACK: u32 = 4;
    /// [`RawRun::fault`]: the snippet would have held more memory than its budget.
    pub const FAULT_MEMORY: u32 = 5;

    /// The payload of a panic that stops a snippet for exceeding a budget (a `FAULT_*` code).
    #[derive(Debug)]
    pub struct BudgetExceeded(pub u32);

    /// A panic as recorded: message, file, line, column, backtrace.
    type PanicRecord = (String, String, u32, u32, String);

    /// What every thread of one run shares. Runs live in a fixed table ([`RUNS`]), so a thread holds only a slot
    /// number and a generation (plain `Copy` data: the allocator reads them, and nothing about them allocates or
    /// needs dropping), and a thread that outlives its run finds the generation changed instead of freed memory.
    struct Run {
        /// Odd while a run holds the slot; bumped when it takes and when it leaves the slot.
        generation: AtomicU64,
        /// Fuel not yet handed to a thread (`u64::MAX`: unlimited).
        fuel: AtomicU64,
        /// Bytes the run may still allocate (`usize::MAX`: unlimited).
        memory_left: AtomicUsize,
        memory_refused: AtomicBool,
        deadline: Mutex<Option<Instant>>,
        /// [`RawRun::interrupt`], for the threads the snippet starts.
        interrupt: AtomicPtr<AtomicU32>,
        /// [`RawRun::epoch`], for the threads the snippet starts.
        epoch: AtomicPtr<AtomicU32>,
        /// The first budget fault (`FAULT_*`) on a thread the snippet started, and the first panic there: the
        /// snippet's own thread sees only `thread::scope`'s "a scoped thread panicked".
        helper_fault: AtomicU32,
        helper_panic: Mutex<Option<PanicRecord>>,
    }

    impl Run {
        const fn new() -> Run {
            Run {
                generation: AtomicU64::new(0),
                fuel: AtomicU64::new(0),
                memory_left: AtomicUsize::new(usize::MAX),
                memory_refused: AtomicBool::new(false),
                deadline: Mutex::new(None),
                interrupt: AtomicPtr::new(std::ptr::null_mut()),
                epoch: AtomicPtr::new(std::ptr::null_mut()),
                helper_fault: AtomicU32::new(FAULT_NONE),
                helper_panic: Mutex::new(None),
            }
        }

        /// Takes `bytes` from the memory budget; false (and nothing taken) if they do not fit.
        fn take_memory(&self, bytes: usize) -> bool {
            self.memory_left
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                    if left == usize::MAX { Some(left) } else { left.checked_sub(bytes) }
                })
                .is_ok()
        }

        /// Gives `bytes` back to the memory budget (never making it read as unlimited).
        fn give_memory(&self, bytes: usize) {
            let _ = self.memory_left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                (left != usize::MAX).then(|| left.saturating_add(bytes).min(usize::MAX - 1))
            });
        }
    }

    /// Runs of this library active at once (each snippet library has its own table). More wait for a slot.
    const SLOTS: usize = 64;
    static RUNS: [Run; SLOTS] = [const { Run::new() }; SLOTS];

    /// Fuel for snippet code that runs after its run ended — a closure the host kept and calls later — all such
    /// code together: the fuel budget of the latest run to start, renewed by each (`u64::MAX`: unlimited). Out of
    /// it, that code panics in the host's call. (Ticks carry no identity, so the allowance is the process's, not
    /// one snippet's: a run starting renews it for every snippet's late code.)
    static LATE_FUEL: AtomicU64 = AtomicU64::new(u64::MAX);
    /// What a millisecond of waiting costs code left behind, in late fuel: the latest run's fuel budget over its
    /// time budget (0, free, when either is unlimited — as a run's wait is then).
    static LATE_WAIT_RATE: AtomicU64 = AtomicU64::new(0);

    /// Fuel a thread takes from its run's pool at a time: the hot path counts down a thread-local number.
    const FUEL_CHUNK: u64 = 4096;
    /// Stack a thread the snippet started may use below the point it first counts fuel at: std's default thread
    /// stack (2 MiB; safe mode denies `Builder::stack_size`) less a margin for what runs without counting.
    const HELPER_STACK: usize = (2 << 20) - (384 << 10);
    /// Memory a thread the snippet started costs its run while it lives: the stack std maps for it (2 MiB, its
    /// default), which the OS provides outside the allocator the memory budget counts, so that the number of
    /// threads a snippet keeps (blocked ones too) is bounded by its memory budget. Refunded when the thread ends.
    const THREAD_BYTES: usize = 2 << 20;
    /// Memory a snippet that hit its budget may still allocate while its panic unwinds.
    #[cfg_attr(lacuna_stable, allow(dead_code))]
    const PANIC_GRACE_BYTES: usize = 4 << 20;

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Role {
        /// Has not counted fuel yet: a thread the snippet started, or one outside any run.
        Unknown,
        /// The thread `run_snippet` runs the snippet on.
        Own,
        /// A thread the snippet started (found at its first fuel count).
        Helper,
        /// Outside any run (code of the snippet's that outlived it): counted against [`LATE_FUEL`].
        Outside,
    }

    #[derive(Clone, Copy)]
    struct Local {
        role: Role,
        slot: usize,
        generation: u64,
        /// Fuel this thread holds, taken from the run's pool.
        fuel: u64,
        deadline: Option<Instant>,
        interrupt: Option<&'static AtomicU32>,
        /// [`RawRun::epoch`], and its value when this thread last read its clock.
        epoch: Option<&'static AtomicU32>,
        seen_epoch: u32,
        stack_limit: usize,
    }

    const UNKNOWN: Local =
        Local {
            role: Role::Unknown,
            slot: 0,
            generation: 0,
            fuel: 0,
            deadline: None,
            interrupt: None,
            epoch: None,
            seen_epoch: 0,
            stack_limit: 0,
        };

    thread_local! {
        static LOCAL: Cell<Local> = const { Cell::new(UNKNOWN) };
        static TICKS: Cell<u32> = const { Cell::new(0) };
        static LAST_PANIC: RefCell<Option<PanicRecord>> = const { RefCell::new(None) };
        /// How many runs this thread is part of: panics outside them are the program's own and go to the hook
        /// that was there before.
        static CAPTURING: Cell<u32> = const { Cell::new(0) };
        /// The run this thread's stack is charged to ([`THREAD_BYTES`]), if it is a thread the snippet started.
        static STACK_CHARGE: StackCharge = const { StackCharge(Cell::new(None)) };
    }

    /// A started thread's charge for its stack: given back to its run (slot, generation) when the thread ends and
    /// its thread-locals are dropped, if that run is still going.
    struct StackCharge(Cell<Option<(usize, u64)>>);

    impl Drop for StackCharge {
        fn drop(&mut self) {
            if let Some((slot, generation)) = self.0.get() {
                let run = &RUNS[slot];
                if run.generation.load(Ordering::Acquire) == generation {
                    run.give_memory(THREAD_BYTES);
                }
            }
        }
    }

    /// The return addresses on this thread's stack, innermost first (at most 128), from the unwinder std uses.
    fn return_addresses() -> Vec<usize> {
        #[repr(C)]
        struct UnwindContext {
            _opaque: [u8; 0],
        }
        type Step = extern "C" fn(*mut UnwindContext, *mut std::ffi::c_void) -> i32;
        extern "C" {
            fn _Unwind_Backtrace(step: Step, data: *mut std::ffi::c_void) -> i32;
            fn _Unwind_GetIP(context: *mut UnwindContext) -> usize;
        }
        extern "C" fn step(context: *mut UnwindContext, data: *mut std::ffi::c_void) -> i32 {
            // SAFETY: `data` is the `Vec` `return_addresses` passed, alive for the whole walk; `context` is the
            // unwinder's, valid during this call.
            let ips = unsafe { &mut *data.cast::<Vec<usize>>() };
            // SAFETY: as above: `context` is the unwinder's, valid during this call.
            ips.push(unsafe { _Unwind_GetIP(context) });
            // _URC_NO_REASON continues, _URC_END_OF_STACK (5) stops.
            if ips.len() >= 128 { 5 } else { 0 }
        }
        let mut ips: Vec<usize> = Vec::with_capacity(128);
        // SAFETY: `step` matches the unwinder's callback signature and only touches `ips` through `data`.
        unsafe { _Unwind_Backtrace(step, (&mut ips as *mut Vec<usize>).cast()) };
        ips
    }

    /// Whether a panic on this thread now belongs to a run (which records it) rather than to the program.
    pub(crate) fn capturing() -> bool {
        CAPTURING.try_with(|c| c.get()).unwrap_or(0) > 0
    }

    /// This thread's run, if it is still the one the thread joined.
    fn current_run(local: &Local) -> Option<&'static Run> {
        if !matches!(local.role, Role::Own | Role::Helper) {
            return None;
        }
        let run = &RUNS[local.slot];
        (run.generation.load(Ordering::Acquire) == local.generation).then_some(run)
    }

    fn exceeded(kind: u32) -> ! {
        let local = LOCAL.try_with(Cell::get).unwrap_or(UNKNOWN);
        if local.role == Role::Helper {
            if let Some(run) = current_run(&local) {
                let _ = run.helper_fault.compare_exchange(FAULT_NONE, kind, Ordering::AcqRel, Ordering::Acquire);
            }
        }
        std::panic::panic_any(BudgetExceeded(kind))
    }

    fn stack_pointer() -> usize {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    }

    /// Called at the head of every loop iteration, function and closure body of a snippet.
    #[inline]
    pub fn tick() {
        LOCAL.with(|l| {
            let mut local = l.get();
            if local.fuel == 0 {
                local = refill(local);
            }
            local.fuel -= 1;
            l.set(local);
            if stack_pointer() < local.stack_limit {
                stack_exceeded(local.role);
            }
            if local.deadline.is_some() || local.interrupt.is_some() {
                let ticks = TICKS.with(|t| {
                    let n = t.get().wrapping_add(1);
                    t.set(n);
                    n
                });
                if ticks.is_multiple_of(1024)
                    && (local.deadline.is_some_and(|deadline| Instant::now() > deadline)
                        || local.interrupt.is_some_and(|flag| flag.load(Ordering::Relaxed) != 0))
                {
                    exceeded(FAULT_TIME);
                }
            }
            // Some run's time is up (perhaps this one's, while a call into the host kept the count still): the
            // clock read now, once per change.
            if let (Some(deadline), Some(epoch)) = (local.deadline, local.epoch) {
                let now_epoch = epoch.load(Ordering::Relaxed);
                if now_epoch != local.seen_epoch {
                    l.set(Local { seen_epoch: now_epoch, ..local });
                    if Instant::now() > deadline {
                        exceeded(FAULT_TIME);
                    }
                }
            }
        })
    }

    /// One wait of the snippet's (`__wait`: a receive, a lock, a join, ...), which blocks in slices and between two
    /// looks at the budgets. Inside a run, looking counts one fuel and stops the thread as out of time once the
    /// run's deadline has passed or the run was interrupted, as a tick in a loop does (but at once, not every
    /// 1024th tick: a wait is slow anyway). In code left behind (no run, no deadline), the time it waits is drawn
    /// from the late fuel at the latest run's rate ([`LATE_WAIT_RATE`]: waiting as long as that run's time budget
    /// takes all of it), so a kept closure that waits for good panics in the host's call as an endless loop does.
    pub struct Wait {
        since: Instant,
    }

    impl Wait {
        const SLICE: Duration = Duration::from_millis(10);

        #[allow(clippy::new_without_default)]
        pub fn new() -> Wait {
            Wait { since: Instant::now() }
        }

        /// How long the wait may block before it looks again.
        pub fn slice(&mut self) -> Duration {
            self.span().map_or(Wait::SLICE, |span| span.min(Wait::SLICE))
        }

        /// How long the wait may block before it must look again, where nothing but the run's deadline needs a
        /// look: up to that deadline (`None`: the run has none), one slice in code left behind (whose waiting is
        /// charged as it goes) and while a panic unwinds. A look inside a run counts one fuel and stops the
        /// thread as out of time once the deadline has passed or the run was interrupted.
        pub fn span(&mut self) -> Option<Duration> {
            // A wait reached while a panic unwinds (drop glue) must not panic again: that would abort the host.
            if std::thread::panicking() {
                return Some(Wait::SLICE);
            }
            tick();
            let local = LOCAL.try_with(Cell::get).unwrap_or(UNKNOWN);
            if local.role == Role::Outside {
                if self.charge() {
                    late_exceeded("waited longer than its time allows");
                }
                return Some(Wait::SLICE);
            }
            if local.interrupt.is_some_and(|flag| flag.load(Ordering::Relaxed) != 0) {
                exceeded(FAULT_TIME);
            }
            let deadline = local.deadline?;
            let now = Instant::now();
            if now >= deadline {
                exceeded(FAULT_TIME);
            }
            Some(deadline - now)
        }

        /// Draws the time waited since the last look from the late fuel, if this thread runs code left behind;
        /// true when none is left.
        fn charge(&mut self) -> bool {
            if LOCAL.try_with(Cell::get).map_or(true, |l| l.role != Role::Outside) {
                return false;
            }
            let now = Instant::now();
            let waited = now.saturating_duration_since(self.since);
            self.since = now;
            let rate = LATE_WAIT_RATE.load(Ordering::Acquire);
            let cost = (waited.as_micros() as u64).saturating_mul(rate) / 1000;
            let mut empty = false;
            let _ = LATE_FUEL.fetch_update(Ordering::AcqRel, Ordering::Acquire, |pool| {
                if pool == u64::MAX {
                    return None;
                }
                let left = pool.saturating_sub(cost);
                empty = left == 0;
                Some(left)
            });
            empty
        }
    }

    impl Drop for Wait {
        /// The last slice's time is drawn too (a wait that ends, or returns as a spurious wakeup, after it); an
        /// empty pool is found by the next look or tick, never by a panic here.
        fn drop(&mut self) {
            let _ = self.charge();
        }
    }

    /// An iterator that counts fuel at every step: what the rustc path makes the receiver of an iterator method std
    /// steps in a loop of its own (`it.count()`, `(0..).max()`, `it.flatten()`) and an iterator a std function
    /// drains (`Vec::from_iter(it)`, `set.extend(it)`), so those loops count as the snippet's own do. It forwards
    /// everything else, so what the method computes is unchanged.
    #[derive(Clone, Debug)]
    pub struct Ticking<I>(I);

    impl<I: Iterator> Iterator for Ticking<I> {
        type Item = I::Item;
        #[inline]
        fn next(&mut self) -> Option<I::Item> {
            tick();
            self.0.next()
        }
        #[inline]
        fn size_hint(&self) -> (usize, Option<usize>) {
            self.0.size_hint()
        }
    }

    impl<I: DoubleEndedIterator> DoubleEndedIterator for Ticking<I> {
        #[inline]
        fn next_back(&mut self) -> Option<I::Item> {
            tick();
            self.0.next_back()
        }
    }

    impl<I: ExactSizeIterator> ExactSizeIterator for Ticking<I> {}

    impl<I: std::iter::FusedIterator> std::iter::FusedIterator for Ticking<I> {}

    /// The wrapper as a method, so that it takes its receiver exactly as the iterator method it is inserted before
    /// does (method-call syntax: the same autoderef, autoref and reborrow): by value for a method taking `self`,
    /// by `&mut` for one taking `&mut self`.
    pub trait TickingIter: Iterator {
        #[inline]
        fn __lacuna_ticking(self) -> Ticking<Self>
        where
            Self: Sized,
        {
            Ticking(self)
        }
        #[inline]
        fn __lacuna_ticking_mut(&mut self) -> Ticking<&mut Self> {
            Ticking(self)
        }
    }

    impl<I: Iterator + ?Sized> TickingIter for I {}

    /// A function given to `filter` or `skip_while` (not a closure the snippet wrote, whose body counts), counting
    /// each call. The closure it returns takes any reference, as the adapter's bound asks.
    #[inline]
    pub fn ticking_predicate<T: ?Sized, P: FnMut(&T) -> bool>(mut predicate: P) -> impl FnMut(&T) -> bool {
        move |item: &T| {
            tick();
            predicate(item)
        }
    }

    /// A function given to `filter_map` or `flat_map`, counting each call.
    #[inline]
    pub fn ticking_function<T, R, F: FnMut(T) -> R>(mut function: F) -> impl FnMut(T) -> R {
        move |item: T| {
            tick();
            function(item)
        }
    }

    /// An iterator argument a std function drains, counting.
    #[inline]
    pub fn ticking_into<I: IntoIterator>(iter: I) -> Ticking<I::IntoIter> {
        Ticking(iter.into_iter())
    }

    /// The thread's fuel ran out: take more from the run's pool, or stop the snippet. A thread's first count
    /// finds the run it belongs to.
    #[cold]
    fn refill(mut local: Local) -> Local {
        if local.role == Role::Unknown {
            local = join_run();
        }
        let Some(run) = current_run(&local) else {
            return late(local);
        };
        let mut pool = run.fuel.load(Ordering::Acquire);
        loop {
            if pool == u64::MAX {
                local.fuel = u64::MAX;
                return local;
            }
            let take = pool.min(FUEL_CHUNK);
            if take == 0 {
                exceeded(FAULT_FUEL);
            }
            match run.fuel.compare_exchange_weak(pool, pool - take, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    local.fuel = take;
                    return local;
                }
                Err(now) => pool = now,
            }
        }
    }

    /// Fuel for code that runs outside any run of this library, from [`LATE_FUEL`]; the host's call that runs it
    /// panics when there is none left; its waits draw from it too ([`Wait`]). Its stack is the host thread's, less
    /// the margin a run keeps ([`late_stack_limit`]). No memory budget applies there (an allocation cannot tell the
    /// host's code from the snippet's left behind).
    fn late(local: Local) -> Local {
        let outside = Local {
            role: Role::Outside,
            fuel: 0,
            deadline: None,
            interrupt: None,
            epoch: None,
            stack_limit: late_stack_limit(),
            ..local
        };
        let mut pool = LATE_FUEL.load(Ordering::Acquire);
        loop {
            if pool == u64::MAX {
                return Local { fuel: u64::MAX, ..outside };
            }
            let take = pool.min(FUEL_CHUNK);
            if take == 0 {
                // Code reached while that panic unwinds (drop glue of what the snippet made) must not panic again:
                // that would abort the host. It gets one count at a time.
                if std::thread::panicking() {
                    return Local { fuel: 1, ..outside };
                }
                late_exceeded("used up its fuel budget");
            }
            match LATE_FUEL.compare_exchange_weak(pool, pool - take, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Local { fuel: take, ..outside },
                Err(now) => pool = now,
            }
        }
    }

    /// A tick found the stack below the thread's limit. Inside a run it is the run's budget fault; in code left
    /// behind, the host's call panics with a message that says so — unless the thread is already panicking, where
    /// a second panic would abort the host (drop glue then runs on, as it would without Lacuna).
    #[cold]
    fn stack_exceeded(role: Role) {
        if role != Role::Outside {
            exceeded(FAULT_STACK);
        }
        if !std::thread::panicking() {
            panic!(
                "code a Lacuna snippet left behind (a closure or value the host kept after the hole) recursed \
                 deeper than the stack it may use; stopped in the host's call to it"
            )
        }
    }

    /// The lowest address code left behind may push this thread's stack to (0: unknown, unchecked): the thread's
    /// stack less a margin for the std and host code it calls without counting, as for a run
    /// (`stack_limit` in the engine's runner). Found once per thread.
    fn late_stack_limit() -> usize {
        thread_local! {
            static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
        }
        LIMIT
            .try_with(|limit| match limit.get() {
                Some(known) => known,
                None => {
                    let found = thread_stack().map_or(0, |(low, size)| low + (size / 4).clamp(64 << 10, 1 << 20));
                    limit.set(Some(found));
                    found
                }
            })
            .unwrap_or(0)
    }

    /// The calling thread's stack: its lowest address and its size.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn thread_stack() -> Option<(usize, usize)> {
        /// `pthread_attr_t`, opaque: larger and more aligned than glibc's on every target it supports.
        #[repr(C, align(16))]
        struct Attr([u8; 128]);
        extern "C" {
            fn pthread_self() -> usize;
            fn pthread_getattr_np(thread: usize, attr: *mut Attr) -> i32;
            fn pthread_attr_getstack(attr: *const Attr, low: *mut *mut u8, size: *mut usize) -> i32;
            fn pthread_attr_destroy(attr: *mut Attr) -> i32;
        }
        let mut attr = Attr([0; 128]);
        let (mut low, mut size): (*mut u8, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: `pthread_getattr_np` fills `attr` (a buffer at least as large and aligned as glibc's
        // `pthread_attr_t`) for the calling thread, the main thread included; `attr` is destroyed only after it was
        // filled, and read only in between.
        let ok = unsafe {
            if pthread_getattr_np(pthread_self(), &mut attr) != 0 {
                return None;
            }
            let ok = pthread_attr_getstack(&attr, &mut low, &mut size) == 0;
            pthread_attr_destroy(&mut attr);
            ok
        };
        (ok && !low.is_null()).then_some((low as usize, size))
    }

    /// Elsewhere the stack of code left behind is not checked.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn thread_stack() -> Option<(usize, usize)> {
        None
    }

    #[cold]
    fn late_exceeded(what: &str) -> ! {
        panic!(
            "code a Lacuna snippet left behind (a closure or value the host kept after the hole) {what}; stopped in \
             the host's call to it"
        )
    }

    /// A thread counting fuel for the first time was started by a snippet (`thread::scope`): it joins the run
    /// of this library that is active — the one with the least fuel left when several are, so a budget is never
    /// exceeded (at worst a sibling's is charged).
    fn join_run() -> Local {
        let mut best: Option<(usize, u64, u64)> = None;
        for (slot, run) in RUNS.iter().enumerate() {
            let generation = run.generation.load(Ordering::Acquire);
            if generation % 2 == 1 {
                let fuel = run.fuel.load(Ordering::Acquire);
                if best.is_none_or(|(_, _, f)| fuel < f) {
                    best = Some((slot, generation, fuel));
                }
            }
        }
        let Some((slot, generation, _)) = best else {
            return Local { role: Role::Outside, fuel: u64::MAX, ..UNKNOWN };
        };
        let deadline = RUNS[slot].deadline.lock().map(|d| *d).unwrap_or(None);
        // SAFETY: a non-null interrupt lives as long as the process (`RawRun::interrupt`).
        let interrupt = unsafe { RUNS[slot].interrupt.load(Ordering::Acquire).cast_const().as_ref() };
        // SAFETY: a non-null epoch lives as long as the process (`RawRun::epoch`).
        let epoch = unsafe { RUNS[slot].epoch.load(Ordering::Acquire).cast_const().as_ref() };
        let _ = CAPTURING.try_with(|c| c.set(c.get() + 1));
        let local = Local {
            role: Role::Helper,
            slot,
            generation,
            fuel: 0,
            deadline,
            interrupt,
            epoch,
            seen_epoch: epoch.map_or(0, |e| e.load(Ordering::Relaxed)),
            stack_limit: stack_pointer().saturating_sub(HELPER_STACK),
        };
        let run = &RUNS[slot];
        if !run.take_memory(THREAD_BYTES) {
            // The thread is the run's now (its fault is the run's), but its stack does not fit the budget.
            LOCAL.with(|l| l.set(local));
            exceeded(FAULT_MEMORY);
        }
        let _ = STACK_CHARGE.try_with(|c| c.0.set(Some((slot, generation))));
        local
    }

    /// A free slot for a run, its generation now odd (taken).
    fn take_slot() -> (usize, u64) {
        loop {
            for (slot, run) in RUNS.iter().enumerate() {
                let generation = run.generation.load(Ordering::Acquire);
                if generation % 2 == 0
                    && run
                        .generation
                        .compare_exchange(generation, generation + 1, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    return (slot, generation + 1);
                }
            }
            std::thread::yield_now();
        }
    }

    fn install_panic_hook() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // Unstable; the `lacuna` crate a cargo project builds on stable (`cfg(lacuna_stable)`) goes without it:
            // a refused allocation aborts there, as in any Rust program.
            #[cfg(not(lacuna_stable))]
            std::alloc::set_alloc_error_hook(|layout| {
                // The panic itself allocates (its message, the hook's backtrace): grant a little grace so that does
                // not fail too and abort the process.
                if let Some(run) = LOCAL.try_with(Cell::get).ok().as_ref().and_then(current_run) {
                    let _ = run.memory_left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                        (left != usize::MAX).then_some(left.max(PANIC_GRACE_BYTES))
                    });
                }
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
                let local = LOCAL.try_with(Cell::get).unwrap_or(UNKNOWN);
                let _ = LOCAL.try_with(|l| l.set(Local { role: Role::Outside, ..local }));
                // The return addresses first (`lacuna-ips:`), for libraries std's symbolizer has not seen (it
                // lists the process's libraries once, at its first backtrace), then std's rendering.
                let trace = format!(
                    "lacuna-ips:{}\n{}",
                    return_addresses().iter().map(|ip| format!("{ip:x}")).collect::<Vec<_>>().join(","),
                    std::backtrace::Backtrace::force_capture()
                );
                let _ = LOCAL.try_with(|l| l.set(local));
                let record = (message, file, line, column, trace);
                match current_run(&local) {
                    Some(run) if local.role == Role::Helper => {
                        if let Ok(mut first) = run.helper_panic.try_lock() {
                            first.get_or_insert(record);
                        }
                    }
                    // A panic while a panic is being recorded must not recurse.
                    _ => {
                        let _ = LAST_PANIC.try_with(|p| p.try_borrow_mut().map(|mut p| *p = Some(record)));
                    }
                }
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

    /// [`run_snippet`] for a body called through a `dyn` reference: compiled once, here, rather than once per
    /// caller. What the JIT's calls of host functions go through (a shim per function; see `instrument::shim`),
    /// so a host with many functions does not compile `run_snippet`'s body once for each. `body` is called at most
    /// once.
    ///
    /// # Safety
    /// As for [`run_snippet`].
    #[inline(never)]
    pub unsafe fn run_call(run: *mut RawRun, body: &mut dyn FnMut()) -> u32 {
        // SAFETY: the caller's guarantee for `run` is passed on.
        unsafe { run_snippet(run, body) }
    }

    /// Runs a snippet's body under `run`'s budgets. Returns 0 when it finished, 1 with `run`'s fault filled in
    /// when it panicked or ran out of a budget. Threads the body starts with `thread::scope` count against the
    /// same budgets, and their faults are the run's. Budgets nest: a hole inside the snippet gets its own, and
    /// this snippet's are restored when it returns.
    ///
    /// # Safety
    /// `run` must point to a valid `RawRun` for the duration of the call, whose `interrupt` and `epoch` are each
    /// null or live as long as the process.
    pub unsafe fn run_snippet(run: *mut RawRun, body: impl FnOnce()) -> u32 {
        install_panic_hook();
        // SAFETY: the caller guarantees `run` is valid and not aliased during the call.
        let run = unsafe { &mut *run };
        let held = begin(run);
        let outer = enter(&held, run);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        leave(outer);
        end(&held, run, result)
    }

    /// A run's slot while it holds it.
    struct Held {
        slot: usize,
        generation: u64,
        deadline: Option<Instant>,
    }

    /// Takes a slot for `run` and fills it with its budgets.
    fn begin(run: &RawRun) -> Held {
        let (slot, generation) = take_slot();
        let shared = &RUNS[slot];
        let deadline = (run.time_ms > 0).then(|| Instant::now() + Duration::from_millis(run.time_ms));
        shared.fuel.store(if run.fuel == 0 { u64::MAX } else { run.fuel }, Ordering::Release);
        LATE_FUEL.store(if run.fuel == 0 { u64::MAX } else { run.fuel }, Ordering::Release);
        let rate = if run.fuel == 0 || run.time_ms == 0 { 0 } else { (run.fuel / run.time_ms).max(1) };
        LATE_WAIT_RATE.store(rate, Ordering::Release);
        shared.memory_left.store(if run.memory == 0 { usize::MAX } else { run.memory as usize }, Ordering::Release);
        shared.memory_refused.store(false, Ordering::Release);
        shared.helper_fault.store(FAULT_NONE, Ordering::Release);
        if let Ok(mut d) = shared.deadline.lock() {
            *d = deadline;
        }
        shared.interrupt.store(run.interrupt.cast_mut(), Ordering::Release);
        shared.epoch.store(run.epoch.cast_mut(), Ordering::Release);
        if let Ok(mut p) = shared.helper_panic.lock() {
            *p = None;
        }
        Held { slot, generation, deadline }
    }

    /// Makes this thread run `held`'s snippet (its stack limit from `run`, which may differ per poll); returns what
    /// the thread was doing before, for [`leave`].
    fn enter(held: &Held, run: &RawRun) -> Local {
        // SAFETY: a non-null interrupt lives as long as the process (the caller's guarantee for `RawRun`).
        let interrupt: Option<&'static AtomicU32> = unsafe { run.interrupt.as_ref() };
        // SAFETY: a non-null epoch lives as long as the process (the caller's guarantee for `RawRun`).
        let epoch: Option<&'static AtomicU32> = unsafe { run.epoch.as_ref() };
        let outer = LOCAL.with(Cell::get);
        LOCAL.with(|l| {
            l.set(Local {
                role: Role::Own,
                slot: held.slot,
                generation: held.generation,
                fuel: 0,
                deadline: held.deadline,
                interrupt,
                epoch,
                seen_epoch: epoch.map_or(0, |e| e.load(Ordering::Relaxed)),
                stack_limit: run.stack_limit,
            })
        });
        LAST_PANIC.with(|p| *p.borrow_mut() = None);
        CAPTURING.with(|c| c.set(c.get() + 1));
        outer
    }

    /// The thread stops running the snippet: fuel it took and did not use goes back to the run's pool (a snippet
    /// that awaits is entered once per poll).
    fn leave(outer: Local) {
        CAPTURING.with(|c| c.set(c.get() - 1));
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let local = LOCAL.with(Cell::get);
        if let Some(run) = current_run(&local) {
            if local.role == Role::Own && local.fuel != u64::MAX && local.fuel > 0 {
                let _ = run.fuel.fetch_update(Ordering::AcqRel, Ordering::Acquire, |pool| {
                    (pool != u64::MAX).then(|| pool.saturating_add(local.fuel).min(u64::MAX - 1))
                });
            }
        }
        LOCAL.with(|l| l.set(outer));
    }

    /// Leaves the slot and fills in `run`'s fault: 0 when the snippet finished, 1 when it did not.
    fn end(held: &Held, run: &mut RawRun, result: Result<(), Box<dyn std::any::Any + Send>>) -> u32 {
        let shared = &RUNS[held.slot];
        let memory_refused = shared.memory_refused.load(Ordering::Acquire);
        let helper_fault = shared.helper_fault.load(Ordering::Acquire);
        let helper_panic = shared.helper_panic.lock().ok().and_then(|mut p| p.take());
        // Leaving the slot: threads still holding this generation now count nothing.
        shared.generation.fetch_add(1, Ordering::AcqRel);
        let payload = match result {
            Ok(()) => return 0,
            Err(payload) => payload,
        };
        let own_panic = LAST_PANIC.with(|p| p.borrow_mut().take());
        run.fault = match payload.downcast_ref::<BudgetExceeded>() {
            Some(BudgetExceeded(kind)) => *kind,
            None if memory_refused => FAULT_MEMORY,
            None if helper_fault != FAULT_NONE => helper_fault,
            None => FAULT_PANIC,
        };
        let recorded = if run.fault == FAULT_PANIC { helper_panic.or(own_panic) } else { own_panic };
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

    /// A snippet that awaits (in a hole in async code): its future, polled by Lacuna each time the host's task
    /// polls the hole, under the run's budgets, which hold between polls too (its time runs while it waits).
    pub struct AsyncRun {
        future: Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>>,
        held: Held,
    }

    /// Starts a snippet that awaits: takes its run's slot; nothing of the snippet runs until [`poll_async`].
    ///
    /// # Safety
    /// As for [`run_snippet`]; `run` is the record every later [`poll_async`] and [`drop_async`] of the handle
    /// gets.
    pub unsafe fn start_async(run: *mut RawRun, future: impl std::future::Future<Output = ()> + 'static) -> *mut AsyncRun {
        install_panic_hook();
        // SAFETY: the caller guarantees `run` is valid.
        let held = begin(unsafe { &*run });
        Box::into_raw(Box::new(AsyncRun { future: Some(Box::pin(future)), held }))
    }

    /// Polls a snippet that awaits once, on this thread, under its budgets: 0 when it finished (the handle is
    /// freed), 1 with `run`'s fault filled in when it panicked or ran out of a budget (freed too), 2 when it is
    /// waiting (`waker` is woken when it can go on).
    ///
    /// # Safety
    /// `handle` comes from [`start_async`] and was not freed; `run` is its record, valid and not aliased during
    /// the call; `waker` points to a live `std::task::Waker`.
    pub unsafe fn poll_async(handle: *mut AsyncRun, run: *mut RawRun, waker: *const std::task::Waker) -> u32 {
        // SAFETY: the caller's contract.
        let (this, run, waker) = unsafe { (&mut *handle, &mut *run, &*waker) };
        let Some(future) = this.future.as_mut() else { return 1 };
        let outer = enter(&this.held, run);
        let mut cx = std::task::Context::from_waker(waker);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
        leave(outer);
        let result = match result {
            Ok(std::task::Poll::Pending) => return 2,
            Ok(std::task::Poll::Ready(())) => Ok(()),
            Err(payload) => Err(payload),
        };
        // SAFETY: made by `start_async`'s `Box::into_raw`; the caller does not use the handle after this.
        let mut this = unsafe { Box::from_raw(handle) };
        let status = end(&this.held, run, result);
        // An `async` block that returned or panicked holds nothing any more (a panic dropped its values as it
        // unwound): dropping it runs no code of the snippet.
        drop(this.future.take());
        status
    }

    /// Ends a snippet that awaits before it finished (the hole's future was dropped): its future is dropped under
    /// its budgets (its values' destructors and its `Resets` run), and the handle freed.
    ///
    /// # Safety
    /// As for [`poll_async`], without the waker.
    pub unsafe fn drop_async(handle: *mut AsyncRun, run: *mut RawRun) {
        // SAFETY: the caller's contract: made by `start_async`'s `Box::into_raw` and not used after this.
        let (mut this, run) = unsafe { (Box::from_raw(handle), &mut *run) };
        let future = this.future.take();
        let outer = enter(&this.held, run);
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(future)));
        leave(outer);
        end(&this.held, run, dropped);
    }

    /// The allocator of rustc-compiled snippets: the system allocator, refusing what would take a snippet past
    /// its memory budget (the refusal becomes a panic, as snippets are built with `-Z oom=panic`).
    pub struct BudgetAllocator;

    fn reserve(bytes: usize) -> bool {
        let Some(run) = LOCAL.try_with(Cell::get).ok().as_ref().and_then(current_run) else {
            return true;
        };
        let taken = run.take_memory(bytes);
        if !taken {
            run.memory_refused.store(true, Ordering::Release);
        }
        taken
    }

    fn release(bytes: usize) {
        if let Some(run) = LOCAL.try_with(Cell::get).ok().as_ref().and_then(current_run) {
            run.give_memory(bytes);
        }
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
