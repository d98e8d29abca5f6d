//! rust-analyzer's thread: where every step of analysis runs, with a large stack, its panics caught and kept off
//! the terminal, and its time limited.
//!
//! One thread per [`crate::Checker`], started with it and kept for its life: a check asks rust-analyzer several
//! times (safe mode's syntax rules, the analysis, the resolved-item rules, the snippet's uses, its typed view), and
//! starting a thread with a 1 GiB stack for each cost about a quarter of a millisecond apiece. The work is handed
//! over with `rayon_core`'s scoped spawn on a one-thread pool, so it may borrow from the caller, and the caller
//! waits, watching the budget, until it ends.
//!
//! Invariant: the caller returns only once the work has ended (finished, unwound or stopped); nothing of one step
//! is left running into the next.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::analysis;
use crate::CheckerError;

/// rust-analyzer recurses on nesting; it runs on a thread with a stack this large (reserved, not committed).
const RA_STACK_BYTES: usize = 1 << 30;

/// The name of the thread rust-analyzer runs on: its panics are caught, recorded and kept off the terminal.
const RA_THREAD: &str = "lacuna-rust-analyzer";

/// The last panic on the analysis thread (message and place), for the error it becomes.
static LAST_RA_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A stop begun because a step ran past its limit: the error to answer with, and the thread finishing the stop
/// (which [`crate::analysis::RaSession::finish_stop`] must end).
pub(crate) type Stop = (CheckerError, Option<std::thread::JoinHandle<ra_ap_ide::AnalysisHost>>);

/// The checker's analysis thread.
pub(crate) struct RaThread {
    pool: rayon_core::ThreadPool,
}

impl RaThread {
    pub fn start() -> Result<RaThread, CheckerError> {
        quiet_analysis_panics();
        let pool = rayon_core::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| RA_THREAD.into())
            .stack_size(RA_STACK_BYTES)
            .build()
            .map_err(|e| CheckerError::Internal { detail: format!("starting the analysis thread: {e}") })?;
        Ok(RaThread { pool })
    }

    /// Runs `f(session)` on the analysis thread, turning its panics into errors. With a limit, waits at most its
    /// budget and then starts the stop, which is returned beside whatever the cut-short work answered.
    pub fn run<S: Send, T: Send>(
        &self,
        session: S,
        limit: Option<(Limit, analysis::Stopper)>,
        f: impl FnOnce(S) -> Result<T, CheckerError> + Send,
    ) -> (Result<T, CheckerError>, Option<Stop>) {
        let mut stop = None;
        let mut outcome = None;
        let slot = &mut outcome;
        // The scope ends only when the spawned work has: everything it borrows outlives it.
        self.pool.in_place_scope(|scope| {
            // Dropped when `f` returns or unwinds: the waiting below ends then.
            let (done, finished) = mpsc::channel::<()>();
            scope.spawn(move |_| {
                let _done = done;
                *slot = Some(std::panic::catch_unwind(AssertUnwindSafe(|| f(session))));
            });
            if let Some((limit, stopper)) = limit {
                if let Some(stopped) = limit.wait(&finished) {
                    // If no thread can be started to stop it, the analysis runs to its end: slow, not wrong.
                    stop = Some((stopped, stopper.stop().ok()));
                }
            }
        });
        let result = match outcome {
            Some(Ok(result)) => result,
            Some(Err(panic)) => {
                let recorded = LAST_RA_PANIC.lock().ok().and_then(|mut last| last.take());
                let detail = recorded
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "rust-analyzer panicked".into());
                Err(CheckerError::Internal { detail })
            }
            None => Err(CheckerError::Internal { detail: "the analysis thread did not run the step".into() }),
        };
        (result, stop)
    }
}

/// How long one step of rust-analyzer's work may take, and who else may stop it.
pub(crate) struct Limit {
    pub budget: Duration,
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Limit {
    /// Waits for `finished` (a channel whose sender is dropped when the work ends); the error to stop the work
    /// with, if its budget ran out or it was interrupted first.
    fn wait(&self, finished: &mpsc::Receiver<()>) -> Option<CheckerError> {
        const SLICE: Duration = Duration::from_millis(50);
        let started = Instant::now();
        loop {
            match finished.recv_timeout(SLICE) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return None,
            }
            if self.interrupt.as_ref().is_some_and(|i| i.load(Ordering::Relaxed)) {
                return Some(CheckerError::Cancelled);
            }
            if started.elapsed() >= self.budget {
                return Some(CheckerError::AnalysisTimedOut { secs: self.budget.as_secs_f64() });
            }
        }
    }
}

/// Keeps rust-analyzer's panics (caught by [`RaThread::run`]) off stderr; every other panic goes to the hook
/// that was there before.
fn quiet_analysis_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some(RA_THREAD) {
                return previous(info);
            }
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()));
            // salsa's cancellations and other non-text payloads are control flow, not failures worth a note.
            if let Some(message) = message {
                let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
                if let Ok(mut last) = LAST_RA_PANIC.lock() {
                    *last = Some(format!("rust-analyzer panicked{place}: {message}"));
                }
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_serves_every_step_and_survives_a_panic() {
        let thread = RaThread::start().expect("starts");
        let first = thread.run((), None, |()| Ok(std::thread::current().id())).0.expect("runs");
        let (panicked, stop) = thread.run((), None, |()| -> Result<(), CheckerError> { panic!("a bug in analysis") });
        assert!(stop.is_none());
        match panicked {
            Err(CheckerError::Internal { detail }) => assert!(detail.contains("a bug in analysis"), "{detail}"),
            other => panic!("expected the panic as an error, got {other:?}"),
        }
        let again = thread.run((), None, |()| Ok(std::thread::current().id())).0.expect("runs after a panic");
        assert_eq!(first, again);
        assert_ne!(first, std::thread::current().id());
    }

    #[test]
    fn work_borrows_from_the_caller_and_runs_on_the_large_stack() {
        let thread = RaThread::start().expect("starts");
        let mut seen = vec![1u8, 2, 3];
        let depth = thread
            .run(&mut seen, None, |seen| {
                seen.push(4);
                // 64 MiB of frames: far past a default thread's 2 MiB (8 MiB main) stack.
                fn deep(n: usize) -> usize {
                    let pad = std::hint::black_box([0u8; 1024]);
                    if n == 0 {
                        pad[0] as usize
                    } else {
                        deep(n - 1) + 1 + pad[1] as usize
                    }
                }
                Ok(deep(64 * 1024))
            })
            .0
            .expect("runs");
        assert_eq!(depth, 64 * 1024);
        assert_eq!(seen, [1, 2, 3, 4]);
    }
}
