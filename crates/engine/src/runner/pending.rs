//! Holes in async code. The hole's future asks for its snippet on a thread of its own (the model, the check, the
//! build), so the host's task and the others on its executor go on meanwhile; the polls that follow run the
//! accepted snippet on the polling thread. A snippet that awaits runs as a future, polled through the hook each
//! time the host's task polls the hole, until it ends or the hole's future is dropped. Its budgets hold across the
//! waits: its time runs while it waits (the watchdog wakes the task at the deadline, and the next poll ends the
//! snippet), fuel and memory count in every poll. A snippet that faults, after a wait or not, is followed by
//! another attempt as anywhere when the source retries after faults.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lacuna_hole::{AttemptRecord, Outcome};

use super::{stack_limit, Asked, Asking, Executed, Shared, DEPTH};
use crate::abi::{DropFn, PollFn, RawHoleCall, RawRun, STATUS_OK, STATUS_PENDING};
use crate::failure::{HoleFailure, Resource};
use crate::ms;
use crate::options::Budgets;
use crate::rustc_path::{fault_error, Artifact};
use crate::watchdog::{arm_waking, Armed};

/// A hole in async code between polls: its snippet being asked for, or running. The host's hole future holds it
/// (as `RawHoleCall::pending`).
pub(crate) struct PendingHole {
    /// The hole's attempts; with the asking thread while it asks.
    asking: Option<Asking>,
    state: State,
    entered: Instant,
}

enum State {
    /// A thread asks for the next snippet; it sends the attempts back with what it got, then wakes the task.
    Asking {
        answer: std::sync::mpsc::Receiver<(Asking, Asked)>,
        waker: Arc<std::sync::Mutex<Option<Waker>>>,
    },
    Running(Box<Running>),
    Ended,
}

use std::task::Waker;

/// A snippet that awaits, started and not finished.
pub(crate) struct Running {
    poll: PollFn,
    drop: DropFn,
    /// The snippet's handle in its library; null once the snippet ended (the library freed it).
    handle: *mut (),
    /// Keeps what the fault is read against (the library is never unloaded).
    artifact: Arc<Artifact>,
    run: Box<RawRun>,
    budgets: Budgets,
    stack_bytes: usize,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    /// Unregisters `expired` from the watchdog: declared (so dropped) before it.
    armed: Armed,
    /// Marks the deadline for the snippet's own time checks ([`crate::watchdog::arm_deadline`]), so time spent in
    /// host calls between two of its fuel counts is noticed at the next.
    _deadline_mark: Armed,
    /// Set by the watchdog at the deadline or when whoever asked for the run cancels it (waking the task).
    expired: Box<AtomicU32>,
    /// Until the snippet ends: then it goes to the site's report and the source.
    record: Option<AttemptRecord>,
    snippet: String,
    depth: u32,
    started: Instant,
}

/// A snippet's library started it; what its first poll needs.
pub(crate) struct Started {
    pub(crate) poll: PollFn,
    pub(crate) drop: DropFn,
    pub(crate) handle: *mut (),
    pub(crate) artifact: Arc<Artifact>,
    pub(crate) run: Box<RawRun>,
    pub(crate) budgets: Budgets,
    pub(crate) cancel: Option<Arc<AtomicBool>>,
}

impl PendingHole {
    /// A hole whose first snippet is asked for on a thread of its own.
    pub(crate) fn asking(shared: &'static Shared, asking: Asking) -> Box<PendingHole> {
        let entered = asking.entered;
        Box::new(PendingHole { asking: None, state: ask(shared, asking), entered })
    }

    /// Polls the hole once: `None` while it waits (for its snippet, or in its snippet), else how it ended.
    ///
    /// # Safety
    /// `call` is the hole's own call of this poll: its table, slot and waker live for the call.
    pub(crate) unsafe fn poll(
        &mut self,
        shared: &'static Shared,
        call: &mut RawHoleCall,
    ) -> Option<Result<(), HoleFailure>> {
        loop {
            let result = match &mut self.state {
                State::Ended => return Some(Err(HoleFailure::runtime("the hole already ended"))),
                State::Asking { answer, waker } => {
                    let got = match answer.try_recv() {
                        Err(std::sync::mpsc::TryRecvError::Empty) => {
                            // Registered first, then looked again: the asking thread sends before it wakes.
                            // SAFETY: the caller's contract for `call.waker`.
                            let current = unsafe { &*call.waker.cast::<Waker>() }.clone();
                            *waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(current);
                            answer.try_recv()
                        }
                        other => other,
                    };
                    let (asking, asked) = match got {
                        Ok(got) => got,
                        Err(std::sync::mpsc::TryRecvError::Empty) => return None,
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                            self.state = State::Ended;
                            return Some(Err(HoleFailure::model(
                                "internal error in Lacuna: the hole's snippet was asked for, and no answer came",
                            )));
                        }
                    };
                    let asking = self.asking.insert(asking);
                    let (runnable, budgets, mut record, snippet) = match asked {
                        Asked::Ready { runnable, budgets, record, snippet } => (runnable, budgets, record, snippet),
                        Asked::Failed(error) => {
                            self.state = State::Ended;
                            return Some(Err(error));
                        }
                    };
                    let previous_depth = DEPTH.with(|d| d.replace(asking.depth));
                    let executed = shared.execute(call, &runnable, &budgets, &mut record);
                    DEPTH.with(|d| d.set(previous_depth));
                    match executed {
                        Executed::Ended(result) => (snippet, record, result),
                        Executed::Started(started) => {
                            self.state = State::Running(Running::new(started, record, snippet, asking.depth));
                            continue;
                        }
                    }
                }
                State::Running(running) => {
                    // SAFETY: the caller's contract for `call.waker`.
                    match unsafe { running.poll(shared, call.waker) } {
                        None => return None,
                        Some(result) => {
                            let (snippet, record) = running.take();
                            (snippet, record, result)
                        }
                    }
                }
            };
            let (snippet, record, result) = result;
            self.state = State::Ended;
            let asking = self.asking.as_mut().expect("the attempts are back once a snippet ran");
            match shared.ran(asking, snippet, record, result) {
                Some(result) => return Some(result),
                // Another attempt after the fault: asked for as the first was.
                None => self.state = ask(shared, self.asking.take().expect("the attempts are here")),
            }
        }
    }

    /// The hole ended after a wait: its site's report gets its time and error (its attempts are recorded).
    pub(crate) fn finish(self: Box<Self>, shared: &Shared, site: u32, result: &Result<(), HoleFailure>) {
        let mut guard = shared.lock();
        if let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&site)) {
            site.report.timings_ms.total += ms(self.entered);
            if let Err(error) = result {
                site.report.record_error(error);
            }
        }
    }

    /// The hole's future was dropped before it ended: a running snippet is ended, and its attempt recorded so; a
    /// snippet still being asked for is never run.
    pub(crate) fn cancel(mut self: Box<Self>, shared: &Shared, site: u32) {
        let state = std::mem::replace(&mut self.state, State::Ended);
        let ended = match state {
            State::Running(mut running) => {
                running.end();
                let ended = Err(HoleFailure::runtime(
                    "the hole's future was dropped before its snippet finished; the snippet was ended",
                ));
                let (_, mut record) = running.take();
                record.outcome = Outcome::Runtime;
                record.error = ended.as_ref().err().map(|e: &HoleFailure| e.to_string());
                shared.note_attempt(&record);
                if let Some(asking) = &self.asking {
                    asking.source.record(&record);
                }
                ended
            }
            State::Asking { .. } => Err(HoleFailure::runtime(
                "the hole's future was dropped while its snippet was being asked for; nothing ran",
            )),
            State::Ended => return,
        };
        self.finish(shared, site, &ended);
    }
}

/// Starts asking for `asking`'s next snippet on a thread of its own.
fn ask(shared: &'static Shared, mut asking: Asking) -> State {
    let (send, answer) = std::sync::mpsc::channel();
    let waker: Arc<std::sync::Mutex<Option<Waker>>> = Arc::default();
    let wake = waker.clone();
    let spawned = std::thread::Builder::new().name("lacuna-hole".into()).spawn(move || {
        let asked =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.ask(&mut asking))).unwrap_or_else(|_| {
                Asked::Failed(HoleFailure::model("internal error in Lacuna while asking for a snippet"))
            });
        // Sent before the waker is taken: a poll that registered one after looking finds the answer.
        let _ = send.send((asking, asked));
        if let Some(waker) = wake.lock().unwrap_or_else(|e| e.into_inner()).take() {
            waker.wake();
        }
    });
    // A thread that could not start dropped the sender with its closure: the next poll reports no answer.
    drop(spawned);
    State::Asking { answer, waker }
}

impl Running {
    pub(crate) fn new(started: Started, record: AttemptRecord, snippet: String, depth: u32) -> Box<Running> {
        let Started { poll, drop, handle, artifact, run, budgets, cancel } = started;
        Box::new(Running {
            poll,
            drop,
            handle,
            artifact,
            run,
            deadline: (budgets.time_ms > 0).then(|| Instant::now() + Duration::from_millis(budgets.time_ms)),
            budgets,
            stack_bytes: 0,
            cancel,
            armed: Armed::none(),
            _deadline_mark: crate::watchdog::arm_deadline(budgets.time_ms),
            expired: Box::new(AtomicU32::new(0)),
            record: Some(record),
            snippet,
            depth,
            started: Instant::now(),
        })
    }

    /// Polls the snippet once with the task's waker: `None` while it waits, else how it ended. A snippet past its
    /// deadline (or whose run was cancelled) is ended here, without being polled again.
    ///
    /// # Safety
    /// `waker` points to a live `std::task::Waker`.
    pub(crate) unsafe fn poll(&mut self, shared: &Shared, waker: *const ()) -> Option<Result<(), HoleFailure>> {
        if self.handle.is_null() {
            return Some(Err(HoleFailure::runtime("the snippet already ended")));
        }
        let cancelled = self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        if cancelled || late || self.expired.load(Ordering::Acquire) != 0 {
            self.end();
            return Some(Err(match cancelled {
                true => HoleFailure::runtime("the run was cancelled by whoever asked for it"),
                false => HoleFailure::Budget { resource: Resource::Time, limit: self.budgets.time_ms },
            }));
        }
        let (limit, bytes) = stack_limit();
        self.run.stack_limit = limit;
        self.stack_bytes = bytes;
        self.run.interrupt = &shared.interrupt;
        let previous_depth = DEPTH.with(|d| d.replace(self.depth));
        // SAFETY: `handle` is the live handle `__lacuna_snippet_start` returned (not ended: non-null), `run` its
        // record, and `waker` a live waker (the caller's contract); `poll` is the same library's
        // `__lacuna_snippet_poll`.
        let status = unsafe { (self.poll)(self.handle, &mut *self.run, waker) };
        DEPTH.with(|d| d.set(previous_depth));
        match status {
            STATUS_PENDING => {
                // SAFETY: the caller's contract for `waker`.
                let waker = unsafe { &*waker.cast::<std::task::Waker>() }.clone();
                // Re-armed with this poll's waker (the old registration goes first).
                self.armed = Armed::none();
                // SAFETY: `expired` is boxed and outlives `armed`, which is dropped before it.
                self.armed = unsafe { arm_waking(&*self.expired, self.deadline, self.cancel.clone(), Some(waker)) };
                None
            }
            STATUS_OK => {
                self.handle = std::ptr::null_mut();
                Some(Ok(()))
            }
            _ => {
                self.handle = std::ptr::null_mut();
                Some(Err(fault_error(&self.run, &self.artifact, &self.budgets, self.stack_bytes)))
            }
        }
    }

    /// Ends a snippet that has not finished: its library drops its future.
    fn end(&mut self) {
        if self.handle.is_null() {
            return;
        }
        let previous_depth = DEPTH.with(|d| d.replace(self.depth));
        // SAFETY: a live handle of the library whose `__lacuna_snippet_drop` this is; it is not used after.
        unsafe { (self.drop)(self.handle, &mut *self.run) };
        DEPTH.with(|d| d.set(previous_depth));
        self.handle = std::ptr::null_mut();
    }

    /// The snippet and its attempt's record, once it ended.
    fn take(&mut self) -> (String, AttemptRecord) {
        let mut record = self.record.take().expect("a running snippet keeps its record until it ends");
        record.timings_ms.run += ms(self.started);
        (std::mem::take(&mut self.snippet), record)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.end();
    }
}
