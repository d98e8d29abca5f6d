//! The time budget of JIT-compiled snippets: one thread for the process that, at a run's deadline, sets its
//! context's `interrupt`, which generated code reads at every 1,024th fuel count and after every host call. So a
//! time limit holds whatever the fuel setting (fuel off included), at the cost of one load per 1,024 counts.
//!
//! Rustc-path snippets read their clock at every 1,024th fuel count; so that time a snippet spends in calls into
//! the host counts when the call returns, the watchdog also bumps [`DEADLINES`] at each such run's deadline
//! ([`arm_deadline`]), and every rustc-path snippet that sees it change reads its clock at its next count.
//!
//! It also relays cancellation: an entry may watch a caller's cancel flag (polled every [`CANCEL_POLL`]) and set
//! its `interrupt` when that is set — a JIT context's, or the engine's run interrupt that rustc-path snippets read
//! (`RawRun::interrupt`).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Changed at every rustc-path run's deadline (`RawRun::epoch`; lives as long as the process).
pub(crate) static DEADLINES: AtomicU32 = AtomicU32::new(0);

/// How often a cancel flag is looked at.
pub(crate) const CANCEL_POLL: Duration = Duration::from_millis(20);

struct Entry {
    id: u64,
    deadline: Option<Instant>,
    /// Whoever asked for the run; when it is set, the flag is set as at the deadline.
    cancel: Option<Arc<AtomicBool>>,
    /// The run's interrupt flag, valid while the entry is registered ([`Armed`] removes it before the flag goes).
    flag: *const AtomicU32,
    /// Woken when the flag is set: the task awaiting a snippet that waits (so it is polled, and ended).
    waker: Option<std::task::Waker>,
}

// SAFETY: the pointer is only dereferenced by the watchdog thread while the entry is registered, and an entry is
// removed (under the same lock) before the `AtomicU32` it points to is dropped; an atomic may be shared.
unsafe impl Send for Entry {}

#[derive(Default)]
struct State {
    entries: Vec<Entry>,
    next_id: u64,
}

struct Watchdog {
    state: Mutex<State>,
    wake: Condvar,
}

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<&'static Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let dog: &'static Watchdog =
            Box::leak(Box::new(Watchdog { state: Mutex::new(State::default()), wake: Condvar::new() }));
        // If the thread cannot start, runs keep their fuel budget only; `arm` still works (nothing fires).
        let _ = std::thread::Builder::new().name("lacuna-watchdog".into()).spawn(move || watch(dog));
        dog
    })
}

fn watch(dog: &'static Watchdog) {
    let mut state = dog.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        state.entries.retain(|e| {
            let cancelled = e.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
            if cancelled || e.deadline.is_some_and(|d| d <= now) {
                // SAFETY: registered entries point to live flags (see `Entry::flag`).
                // A bump rather than a store of 1: a run's flag is only ever set once (the entry goes now), and
                // [`DEADLINES`] is shared by every run's entry.
                unsafe { &*e.flag }.fetch_add(1, Ordering::Release);
                if let Some(waker) = &e.waker {
                    waker.wake_by_ref();
                }
                false
            } else {
                true
            }
        });
        let polled = state.entries.iter().any(|e| e.cancel.is_some()).then(|| Instant::now() + CANCEL_POLL);
        let next = state.entries.iter().filter_map(|e| e.deadline).chain(polled).min();
        state = match next {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now()).max(Duration::from_micros(100));
                dog.wake.wait_timeout(state, wait).unwrap_or_else(|e| e.into_inner()).0
            }
            None => dog.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

/// A registered deadline; dropping it unregisters it, after which the flag is never touched again.
pub(crate) struct Armed {
    id: Option<u64>,
}

/// Sets `*flag` to 1 at `deadline` (if any), or as soon as `cancel` (if any) is seen set, unless the returned
/// guard is dropped first. With neither, registers nothing.
///
/// # Safety
/// `flag` must stay valid until the returned [`Armed`] is dropped.
pub(crate) unsafe fn arm_with(
    flag: *const AtomicU32,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
) -> Armed {
    // SAFETY: the caller's contract.
    unsafe { arm_waking(flag, deadline, cancel, None) }
}

/// Bumps [`DEADLINES`] just after a rustc-path run's deadline, `time_ms` from now (0: no time budget, nothing
/// registered). The snippet's own deadline, set as it starts, comes before.
pub(crate) fn arm_deadline(time_ms: u64) -> Armed {
    if time_ms == 0 {
        return Armed::none();
    }
    let at = Instant::now() + Duration::from_millis(time_ms) + Duration::from_millis(1);
    // SAFETY: `DEADLINES` is a static.
    unsafe { arm_with(&DEADLINES, Some(at), None) }
}

/// [`arm_with`], and `waker` is woken when the flag is set.
///
/// # Safety
/// As for [`arm_with`].
pub(crate) unsafe fn arm_waking(
    flag: *const AtomicU32,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    waker: Option<std::task::Waker>,
) -> Armed {
    if deadline.is_none() && cancel.is_none() {
        return Armed::none();
    }
    let dog = watchdog();
    let mut state = dog.state.lock().unwrap_or_else(|e| e.into_inner());
    let id = state.next_id;
    state.next_id += 1;
    state.entries.push(Entry { id, deadline, cancel, flag, waker });
    dog.wake.notify_one();
    Armed { id: Some(id) }
}

impl Armed {
    /// A guard that registered nothing (no time budget).
    pub(crate) fn none() -> Armed {
        Armed { id: None }
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut state = watchdog().state.lock().unwrap_or_else(|e| e.into_inner());
            state.entries.retain(|e| e.id != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_at_the_deadline_and_never_after_disarming() {
        let fired = AtomicU32::new(0);
        // SAFETY: `fired` outlives the guard.
        let armed = unsafe { arm_with(&fired, Some(Instant::now() + Duration::from_millis(20)), None) };
        let started = Instant::now();
        while fired.load(Ordering::Acquire) == 0 && started.elapsed() < Duration::from_secs(10) {
            std::thread::yield_now();
        }
        assert_eq!(fired.load(Ordering::Acquire), 1);
        drop(armed);
        let quiet = AtomicU32::new(0);
        // SAFETY: `quiet` outlives the guard.
        let armed = unsafe { arm_with(&quiet, Some(Instant::now() + Duration::from_millis(30)), None) };
        drop(armed);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(quiet.load(Ordering::Acquire), 0);
    }

    #[test]
    fn relays_a_cancel_and_never_after_disarming() {
        let flag = AtomicU32::new(0);
        let cancel = Arc::new(AtomicBool::new(false));
        // SAFETY: `flag` outlives the guard.
        let armed = unsafe { arm_with(&flag, None, Some(cancel.clone())) };
        std::thread::sleep(CANCEL_POLL * 3);
        assert_eq!(flag.load(Ordering::Acquire), 0, "set before the cancel");
        cancel.store(true, Ordering::Relaxed);
        let started = Instant::now();
        while flag.load(Ordering::Acquire) == 0 && started.elapsed() < Duration::from_secs(10) {
            std::thread::yield_now();
        }
        assert_eq!(flag.load(Ordering::Acquire), 1);
        drop(armed);
        let quiet = AtomicU32::new(0);
        let later = Arc::new(AtomicBool::new(false));
        // SAFETY: `quiet` outlives the guard.
        let armed = unsafe { arm_with(&quiet, None, Some(later.clone())) };
        drop(armed);
        later.store(true, Ordering::Relaxed);
        std::thread::sleep(CANCEL_POLL * 3);
        assert_eq!(quiet.load(Ordering::Acquire), 0);
    }
}
