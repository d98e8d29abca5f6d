use std::fmt;

/// Why a hole produced no value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HoleError {
    /// No attempt was accepted; `diagnostics` are the last attempt's, rendered.
    Rejected { attempts: u32, diagnostics: Vec<String> },
    /// The accepted snippet faulted (panic, overflow, out-of-bounds, ...) at a line and column of the snippet.
    Runtime { message: String, line: u32, column: u32 },
    /// The snippet ran out of a budget: `resource` is `fuel`, `time`, `stack` or `memory`, `limit` the budget in
    /// its unit (fuel, milliseconds, bytes).
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
            // Line 0: where in the snippet is not known (a refusal to run it, a future dropped early).
            HoleError::Runtime { message, line: 0, .. } => write!(f, "the snippet faulted: {message}"),
            HoleError::Runtime { message, line, column } => {
                write!(f, "the snippet faulted at {line}:{column}: {message}")
            }
            HoleError::Budget { resource, limit } => {
                let unit = match resource.as_str() {
                    "time" => " ms",
                    "memory" | "stack" => " bytes",
                    _ => "",
                };
                write!(f, "the snippet exceeded its {resource} budget ({limit}{unit})")
            }
            HoleError::Depth { limit } => write!(f, "holes nested deeper than {limit}"),
            HoleError::Model { message } => write!(f, "model error: {message}"),
        }
    }
}

impl std::error::Error for HoleError {}

#[doc(hidden)]
pub mod __private {
    //! The runtime side of `lacuna run`. A host run by Lacuna has each hole replaced by [`enter`] with the hole's
    //! binding table; Lacuna installs its [`Hook`] before `main`. Snippets compiled by rustc run inside
    //! [`run_snippet`], which turns panics and exhausted budgets into a fault Lacuna reads back.

    use std::mem::MaybeUninit;

    /// Names the never type on stable Rust: `<fn() -> ! as FnOutput>::Output` is `!` (generated code writes a
    /// hole's or a turn's type `!` so).
    pub trait FnOutput {
        type Output;
    }

    impl<T> FnOutput for fn() -> T {
        type Output = T;
    }
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// The error of a hole that was given no snippet.
    pub const NO_SNIPPET: &str = "no snippet was given for this hole";

    /// The error of a hole in a program that was not run by Lacuna (a plain `cargo run`).
    pub const NOT_UNDER_LACUNA: &str =
        "this hole is filled only when the program runs under Lacuna: run it with `lacuna run` (a plain build \
         compiles holes, but no model is asked)";

    /// The value of a hole that no snippet filled. `lacuna check` only types it; `lacuna run` replaces each hole
    /// with [`enter`] before anything executes. It runs in a plain cargo build of a project ([`NOT_UNDER_LACUNA`]),
    /// and in the reference programs Lacuna's tests build with one hole spliced, where the other holes read as
    /// under `lacuna run` with no snippet for them ([`NO_SNIPPET`]).
    pub fn hole<T, S: AsRef<str>>(model: Option<&'static str>, task: S) -> Result<T, crate::HoleError> {
        let _ = (model, task.as_ref());
        let message = if cfg!(lacuna_stable) { NOT_UNDER_LACUNA } else { NO_SNIPPET };
        Err(crate::HoleError::Model { message: message.into() })
    }

    /// A hole's task as text: what `agent!(task)` accepts (`&str`, `String`, anything `AsRef<str>`), borrowed so
    /// the host keeps its value.
    pub fn task_text<S: AsRef<str> + ?Sized>(task: &S) -> String {
        task.as_ref().to_owned()
    }

    /// A binding of the hole's table as a reference that lives as long as `anchor`, a local of the snippet's entry:
    /// a borrow of it that escapes the entry (a `move` closure the snippet returns or stores) is then a borrow
    /// error naming the anchor, which tells Lacuna the snippet moves the binding (and it is handed over owned).
    ///
    /// # Safety
    ///
    /// `p` points to a live, initialized `T` that nothing else uses for as long as the result is used.
    #[allow(clippy::needless_lifetimes)] // spelled out: the result lives as long as the anchor, which is the point
    pub unsafe fn anchored<'a, T: ?Sized>(_anchor: &'a (), p: *const T) -> &'a T {
        // SAFETY: the caller's contract.
        unsafe { &*p }
    }

    /// [`anchored`], writable.
    ///
    /// # Safety
    ///
    /// `p` points to a live, initialized `T` that nothing else uses for as long as the result is used.
    #[allow(clippy::mut_from_ref, clippy::needless_lifetimes)]
    pub unsafe fn anchored_mut<'a, T: ?Sized>(_anchor: &'a (), p: *mut T) -> &'a mut T {
        // SAFETY: the caller's contract.
        unsafe { &mut *p }
    }

    /// Host values a snippet used, and the host's statics, after the snippet ran: a `Mutex` or `RwLock` it held a
    /// guard of when its budget ran out or it panicked is poisoned — also a panic the snippet caught itself (a
    /// scoped thread's, joined; `catch_unwind`) — and the host's own next `lock().unwrap()` would panic. The
    /// hole's value is how the host learns what the snippet did; every lock reachable from those values is
    /// cleared so the host's code after it still runs, however the snippet reached
    /// it (a field, a method, an index, an iterator). Reached: through references, `Box`, `Rc`, `Arc`, `Option`,
    /// `RefCell` (when not borrowed), vectors, slices, arrays, `VecDeque` and the values of `HashMap`/`BTreeMap`
    /// ([`HoldsLocks`]'s impls here), and the host's own structs and enums in any module (impls the instrumented
    /// host adds). Not through a lock's own data (a lock inside a locked value), tuples, trait objects or generic
    /// host types. A lock the host had poisoned itself before the snippet ran is left as it was (a walk before the
    /// run records them, [`Seen::record`]).
    /// Called as `(&Locks(&value)).walk_locks(seen)`: [`WalkLocks`] for a type that implements [`HoldsLocks`],
    /// the no-op [`WalkNone`] (one more autoref away) for every other type.
    pub struct Locks<'a, T: ?Sized>(pub &'a T);

    /// Where a walk is: the `Rc`/`Arc` allocations it has been through, so a cycle ends, and how deep it is in
    /// containers, so a long chain (a linked list of a million boxes) cannot overflow the stack: past
    /// [`Seen::MAX_DEPTH`] it goes no deeper.
    ///
    /// A walk either records (before the snippet runs) which locks are poisoned already — the host's own doing,
    /// which stays — or clears (after a fault) every other one.
    #[derive(Default)]
    pub struct Seen {
        shared: std::collections::HashSet<usize>,
        depth: u32,
        recording: bool,
        /// The locks found poisoned before the snippet ran, by address.
        poisoned_before: std::collections::HashSet<usize>,
    }

    impl Seen {
        pub const MAX_DEPTH: u32 = 512;

        /// A walk that records the locks poisoned now.
        pub fn record() -> Seen {
            Seen { recording: true, ..Seen::default() }
        }

        /// A walk that clears every poisoned lock `before` did not find poisoned.
        pub fn clearing(before: &Seen) -> Seen {
            Seen { poisoned_before: before.poisoned_before.clone(), ..Seen::default() }
        }

        fn visit(&mut self, at: *const (), poisoned: bool, clear: impl FnOnce()) {
            let at = at as usize;
            if self.recording {
                if poisoned {
                    self.poisoned_before.insert(at);
                }
            } else if poisoned && !self.poisoned_before.contains(&at) {
                clear()
            }
        }

        /// `walk` one container level down, unless the walk is as deep as it may go.
        fn descend(&mut self, walk: impl FnOnce(&mut Seen)) {
            if self.depth < Seen::MAX_DEPTH {
                self.depth += 1;
                walk(self);
                self.depth -= 1;
            }
        }
    }

    /// A value whose locks [`Locks`] clears.
    pub trait HoldsLocks {
        fn walk(&self, seen: &mut Seen);
    }

    pub trait WalkLocks {
        fn walk_locks(&self, seen: &mut Seen);
    }

    pub trait WalkNone {
        fn walk_locks(&self, seen: &mut Seen);
    }

    impl<T: ?Sized + HoldsLocks> WalkLocks for Locks<'_, T> {
        fn walk_locks(&self, seen: &mut Seen) {
            self.0.walk(seen)
        }
    }

    impl<T: ?Sized> WalkNone for &Locks<'_, T> {
        fn walk_locks(&self, _: &mut Seen) {}
    }

    impl<T: ?Sized> HoldsLocks for std::sync::Mutex<T> {
        fn walk(&self, seen: &mut Seen) {
            seen.visit((self as *const Self).cast(), self.is_poisoned(), || self.clear_poison())
        }
    }

    impl<T: ?Sized> HoldsLocks for std::sync::RwLock<T> {
        fn walk(&self, seen: &mut Seen) {
            seen.visit((self as *const Self).cast(), self.is_poisoned(), || self.clear_poison())
        }
    }

    macro_rules! holds_locks_through {
        ($($ty:ty => |$v:ident, $seen:ident| $walk:expr;)*) => {$(
            impl<T: ?Sized + HoldsLocks> HoldsLocks for $ty {
                fn walk(&self, seen: &mut Seen) {
                    let $v = self;
                    seen.descend(|$seen| $walk)
                }
            }
        )*};
    }

    holds_locks_through! {
        &T => |v, seen| (**v).walk(seen);
        &mut T => |v, seen| (**v).walk(seen);
        Box<T> => |v, seen| (**v).walk(seen);
        std::rc::Rc<T> => |v, seen| if seen.shared.insert(std::rc::Rc::as_ptr(v).cast::<()>() as usize) {
            (**v).walk(seen)
        };
        std::sync::Arc<T> => |v, seen| if seen.shared.insert(std::sync::Arc::as_ptr(v).cast::<()>() as usize) {
            (**v).walk(seen)
        };
        std::cell::RefCell<T> => |v, seen| if let Ok(inner) = v.try_borrow() {
            inner.walk(seen)
        };
    }

    macro_rules! holds_locks_in_items {
        ($($ty:ty => |$v:ident| $items:expr;)*) => {$(
            impl<T: HoldsLocks> HoldsLocks for $ty {
                fn walk(&self, seen: &mut Seen) {
                    let $v = self;
                    seen.descend(|seen| {
                        for item in $items {
                            item.walk(seen);
                        }
                    })
                }
            }
        )*};
    }

    holds_locks_in_items! {
        Option<T> => |v| v.iter();
        [T] => |v| v.iter();
        Vec<T> => |v| v.iter();
        std::collections::VecDeque<T> => |v| v.iter();
    }

    impl<T: HoldsLocks, const N: usize> HoldsLocks for [T; N] {
        fn walk(&self, seen: &mut Seen) {
            seen.descend(|seen| self.iter().for_each(|item| item.walk(seen)))
        }
    }

    impl<K, T: HoldsLocks, S> HoldsLocks for std::collections::HashMap<K, T, S> {
        fn walk(&self, seen: &mut Seen) {
            seen.descend(|seen| self.values().for_each(|item| item.walk(seen)))
        }
    }

    impl<K, T: HoldsLocks> HoldsLocks for std::collections::BTreeMap<K, T> {
        fn walk(&self, seen: &mut Seen) {
            seen.descend(|seen| self.values().for_each(|item| item.walk(seen)))
        }
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
        /// What the call asks: one of the `PHASE_*` codes.
        pub phase: u32,
        /// [`PHASE_POLL`] (and [`PHASE_ENTER_ASYNC`]): the `std::task::Waker` of the task awaiting the hole.
        pub waker: *const (),
        /// A snippet that awaits and has not finished: Lacuna's handle of it, set by the hook when it returns
        /// [`STATUS_PENDING`], passed back with [`PHASE_POLL`] and [`PHASE_DROP`].
        pub pending: *mut (),
    }

    /// [`RawHoleCall::phase`]: a hole in plain code; the hook runs the snippet to its end.
    pub const PHASE_ENTER: u32 = 0;
    /// [`RawHoleCall::phase`]: a hole in async code being polled the first time; the hook may start a snippet that
    /// awaits and return [`STATUS_PENDING`] with its handle in [`RawHoleCall::pending`].
    pub const PHASE_ENTER_ASYNC: u32 = 1;
    /// [`RawHoleCall::phase`]: poll the pending snippet again.
    pub const PHASE_POLL: u32 = 2;
    /// [`RawHoleCall::phase`]: the hole's future was dropped before its snippet finished: end the snippet.
    pub const PHASE_DROP: u32 = 3;
    /// A hook's status: the snippet has not finished; the waker is woken when it can go on.
    pub const STATUS_PENDING: u32 = 2;

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
            phase: PHASE_ENTER,
            waker: std::ptr::null(),
            pending: std::ptr::null_mut(),
        };
        // SAFETY: Lacuna's hook returns 0 only after an accepted snippet whose value has type `T` (the hole's
        // type, which the checker and rustc agreed on) was written to `out`.
        let status = unsafe { hook(CONTEXT.load(Ordering::SeqCst), &mut call) };
        if status == 0 {
            // SAFETY: see above: status 0 means `out` holds a `T`.
            return Ok(unsafe { out.assume_init() });
        }
        Err(call_error(&call))
    }

    /// The error a hook's failed call left in `call`.
    fn call_error(call: &RawHoleCall) -> crate::HoleError {
        let text = if call.error.is_null() {
            String::new()
        } else {
            // SAFETY: the hook points `error` at `error_len` bytes it keeps alive until its next call.
            String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(call.error, call.error_len) }).into_owned()
        };
        decode_error(&text)
    }

    /// A hole in async code at run time (`agent!(..)` in an `async fn` or block, awaited in place): the snippet
    /// may `.await` the host's futures, so it runs as a future too. Its table is taken by value, so the host's
    /// future holds no borrowed temporaries across the await.
    pub fn enter_async<T, const N: usize>(
        site: u32,
        table: [*mut (); N],
        types: &[&'static str],
        task: &str,
    ) -> HoleFuture<T> {
        HoleFuture {
            site,
            table: table.to_vec(),
            moved: vec![0; N],
            types: types.join("\u{1f}"),
            task: task.to_owned(),
            out: Box::new(MaybeUninit::uninit()),
            pending: std::ptr::null_mut(),
            done: false,
        }
    }

    /// The future of a hole in async code (see [`enter_async`]). Its first poll asks Lacuna for the value as
    /// [`enter`] does; a snippet that awaits is then polled through the hook until it ends. Dropped before that,
    /// it tells Lacuna, which ends the snippet (dropping the snippet's own values).
    pub struct HoleFuture<T> {
        site: u32,
        table: Vec<*mut ()>,
        /// Never set by a snippet in async code (it cannot take a host binding: the host's future could be
        /// dropped while the snippet holds it), but part of the call.
        moved: Vec<u8>,
        types: String,
        task: String,
        /// Where the snippet writes the value: boxed, so it stays put while the future moves between polls.
        out: Box<MaybeUninit<T>>,
        pending: *mut (),
        done: bool,
    }

    // SAFETY: the table points into the frame of the host future that awaits this one (its bindings, which that
    // future holds across the await as the snippet spliced there would), and the snippet's pending state is the
    // snippet's own values and references to those bindings: the host future with the snippet spliced in, which
    // rustc checked, holds the same values across its awaits, so where that future must be `Send` rustc required
    // them to be. The value slot holds a `T` only within the one poll that writes and reads it, on one thread.
    unsafe impl<T> Send for HoleFuture<T> {}

    impl<T> HoleFuture<T> {
        fn call(&mut self, phase: u32, waker: *const ()) -> (u32, RawHoleCall) {
            let mut call = RawHoleCall {
                site: self.site,
                table: self.table.as_ptr(),
                moved: self.moved.as_mut_ptr(),
                len: self.table.len().min(self.moved.len()),
                types: self.types.as_ptr(),
                types_len: self.types.len(),
                task: self.task.as_ptr(),
                task_len: self.task.len(),
                out: self.out.as_mut_ptr().cast(),
                error: std::ptr::null(),
                error_len: 0,
                phase,
                waker,
                pending: self.pending,
            };
            let hook = HOOK.load(Ordering::SeqCst);
            if hook.is_null() {
                return (u32::MAX, call);
            }
            // SAFETY: only `install` stores into HOOK, and what it stores is a `Hook`.
            let hook: Hook = unsafe { std::mem::transmute::<*mut (), Hook>(hook) };
            // SAFETY: the call's pointers are this future's, alive during the call; `pending` is what the hook
            // last returned for this hole.
            let status = unsafe { hook(CONTEXT.load(Ordering::SeqCst), &mut call) };
            (status, call)
        }
    }

    impl<T> std::future::Future for HoleFuture<T> {
        type Output = Result<T, crate::HoleError>;

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
            use std::task::Poll;
            let this = &mut *self;
            if this.done {
                return Poll::Ready(Err(crate::HoleError::Model { message: "a hole's future was polled after it ended".into() }));
            }
            let _ = std::io::Write::flush(&mut std::io::stdout());
            let phase = if this.pending.is_null() { PHASE_ENTER_ASYNC } else { PHASE_POLL };
            let (status, call) = this.call(phase, (cx.waker() as *const std::task::Waker).cast());
            this.pending = call.pending;
            match status {
                STATUS_PENDING if !this.pending.is_null() => Poll::Pending,
                u32::MAX => {
                    this.done = true;
                    Poll::Ready(Err(crate::HoleError::Model { message: NO_SNIPPET.into() }))
                }
                0 => {
                    this.done = true;
                    this.pending = std::ptr::null_mut();
                    // SAFETY: Lacuna's hook returns 0 only after an accepted snippet wrote a value of the hole's
                    // type `T` to `out` (as for `enter`); it is read once (`done`).
                    Poll::Ready(Ok(unsafe { this.out.assume_init_read() }))
                }
                _ => {
                    this.done = true;
                    this.pending = std::ptr::null_mut();
                    Poll::Ready(Err(call_error(&call)))
                }
            }
        }
    }

    impl<T> Drop for HoleFuture<T> {
        fn drop(&mut self) {
            if !self.pending.is_null() {
                let _ = self.call(PHASE_DROP, std::ptr::null());
                self.pending = std::ptr::null_mut();
            }
        }
    }

    /// What a snippet that awaits does when it ends, however it ends: `f(0)` when it finished ([`Resets::finish`]),
    /// `f(1)` when it panicked or its future was dropped first (clearing locks it held for the host).
    pub struct Resets<F: FnMut(u32)>(pub Option<F>);

    impl<F: FnMut(u32)> Resets<F> {
        pub fn finish(mut self) {
            if let Some(mut f) = self.0.take() {
                f(0)
            }
        }
    }

    impl<F: FnMut(u32)> Drop for Resets<F> {
        fn drop(&mut self) {
            if let Some(mut f) = self.0.take() {
                f(1)
            }
        }
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

    /// The host's own positions in panic messages: `file` is the instrumented host, `positions` (instrumented
    /// line, column; host line, column) where the host's text resumes after each hole. A panic located in `file`
    /// after a hole on the same line is reported at the host's column (std's message otherwise unchanged); every
    /// other panic goes to the hook that was there before. Called each time a host library is installed: hosts
    /// that share this runtime (built as `dylib`s) register here, and the latest table for a file name wins.
    pub fn report_host_positions(file: &'static str, positions: &'static [(u32, u32, u32, u32)]) {
        type Table = &'static [(u32, u32, u32, u32)];
        static TABLES: std::sync::Mutex<Vec<(&'static str, Table)>> = std::sync::Mutex::new(Vec::new());
        static ONCE: std::sync::Once = std::sync::Once::new();
        {
            let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
            tables.retain(|(f, _)| *f != file);
            if !positions.is_empty() {
                tables.push((file, positions));
            }
        }
        ONCE.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                // A run's panic is the run's to record (hosts and snippets may share this hook's std).
                let Some(location) = info.location().filter(|_| !crate::__budget::capturing()) else {
                    return previous(info);
                };
                let positions = {
                    let tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
                    tables.iter().find(|(f, _)| *f == location.file()).map(|(_, t)| *t)
                };
                let Some(positions) = positions else { return previous(info) };
                let (line, column) = (location.line(), location.column());
                let Some(&(_, at, host_line, host_col)) =
                    positions.iter().filter(|p| p.0 == line && p.1 <= column).max_by_key(|p| p.1)
                else {
                    return previous(info);
                };
                let file = location.file();
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "Box<dyn Any>".to_owned());
                let thread = std::thread::current();
                let name = thread.name().unwrap_or("<unnamed>");
                let backtrace = std::env::var("RUST_BACKTRACE").is_ok_and(|v| v != "0");
                let mut text = format!(
                    "\nthread '{name}' panicked at {file}:{host_line}:{}:\n{message}\n",
                    column - at + host_col
                );
                if backtrace {
                    text.push_str(&format!("stack backtrace:\n{}", std::backtrace::Backtrace::force_capture()));
                } else {
                    text.push_str("note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n");
                }
                let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
            }));
        });
    }

    pub use crate::__budget::{
        drop_async, poll_async, run_call, run_snippet, start_async, tick, ticking_function, ticking_into, ticking_predicate, AsyncRun, BudgetAllocator, BudgetExceeded, RawRun, Ticking, TickingIter, FAULT_FUEL, FAULT_MEMORY, FAULT_NONE, FAULT_PANIC,
        FAULT_STACK, FAULT_TIME,
    };
    pub use crate::__wait::{
        sleeping, waiting_into, WaitingCondvar, WaitingIntoIter, WaitingJoin, WaitingMutex, WaitingReceiver, WaitingRwLock,
        WaitingSender,
    };
}

/// `use lacuna::prelude::*;` brings in what a host needs. Hosts run by `lacuna` have it without the import.
pub mod prelude {
    pub use crate::agent;
    pub use crate::HoleError;
    pub use crate::Classified;
}
