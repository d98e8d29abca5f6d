//! Holes in async code whose snippet awaits: the snippet runs as a future, started at the hole's first poll and
//! polled through the hook each time the host's task polls the hole, until it ends or the hole's future is dropped.
//! Its budgets hold across the waits: its time runs while it waits (the watchdog wakes the task at the deadline,
//! and the next poll ends the snippet), fuel and memory count in every poll.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lacuna_hole::{AttemptRecord, Outcome, SnippetSource as Source};

use super::{stack_limit, Shared, DEPTH};
use crate::abi::{DropFn, PollFn, RawRun, STATUS_OK, STATUS_PENDING};
use crate::failure::{HoleFailure, Resource};
use crate::ms;
use crate::options::Budgets;
use crate::rustc_path::{fault_error, Artifact};
use crate::watchdog::{arm_waking, Armed};

/// A snippet that awaits, started and not finished. The host's hole future holds it (as `RawHoleCall::pending`)
/// between polls.
pub(crate) struct PendingHole {
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
    /// Set by the watchdog at the deadline or when whoever asked for the run cancels it (waking the task).
    expired: Box<AtomicU32>,
    /// Until the snippet ends: then it goes to the site's report and the source.
    record: Option<AttemptRecord>,
    source: Arc<dyn Source>,
    depth: u32,
    /// When the hole was entered, and when the snippet started.
    entered: Instant,
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
    pub(crate) fn new(
        started: Started,
        record: AttemptRecord,
        source: Arc<dyn Source>,
        depth: u32,
        entered: Instant,
    ) -> Box<PendingHole> {
        let Started { poll, drop, handle, artifact, run, budgets, cancel } = started;
        Box::new(PendingHole {
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
            expired: Box::new(AtomicU32::new(0)),
            record: Some(record),
            source,
            depth,
            entered,
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

    /// The attempt's record, taken back when its first poll finished it (the hole's attempts go on as for a
    /// snippet that does not wait).
    pub(crate) fn take_record(&mut self) -> AttemptRecord {
        let mut record = self.record.take().expect("a pending hole keeps its record until it ends");
        record.timings_ms.run += ms(self.started);
        record
    }

    /// The snippet ended after a wait: its attempt is recorded as a finished one is.
    pub(crate) fn finish(mut self: Box<Self>, shared: &Shared, site: u32, result: &Result<(), HoleFailure>) {
        let Some(mut record) = self.record.take() else { return };
        record.timings_ms.run += ms(self.started);
        record.outcome = match result {
            Ok(()) => Outcome::Ok,
            Err(error) => error.outcome(),
        };
        record.error = result.as_ref().err().map(|e| e.to_string());
        shared.note_attempt(&record);
        self.source.record(&record);
        let mut guard = shared.lock();
        if let Some(site) = guard.as_mut().and_then(|s| s.run.as_mut()).and_then(|r| r.sites.get_mut(&site)) {
            site.report.timings_ms.total += ms(self.entered);
            if let Err(error) = result {
                site.report.record_error(error);
            }
        }
    }

    /// The hole's future was dropped before the snippet ended: the snippet is ended, and the attempt recorded so.
    pub(crate) fn cancel(mut self: Box<Self>, shared: &Shared, site: u32) {
        self.end();
        let ended = Err(HoleFailure::runtime(
            "the hole's future was dropped before its snippet finished; the snippet was ended",
        ));
        self.finish(shared, site, &ended);
    }
}

impl Drop for PendingHole {
    fn drop(&mut self) {
        self.end();
    }
}
