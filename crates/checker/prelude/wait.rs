/// The twins of std's blocking waits that rustc-compiled snippets call instead (the checker renames
/// `rx.recv()` to `rx.__lacuna_waiting_recv()`, `m.lock()` to `m.__lacuna_waiting_lock()`, ...): each waits in
/// slices and, between two, looks at the run's time budget (`__budget::Wait`), so a wait that never ends — a
/// sender never dropped, a lock taken twice, a notify that never comes — ends as the hole's time budget error
/// instead of blocking the host for good. What each returns is what std's returns. Re-exported from `__private`.
#[doc(hidden)]
pub mod __wait {
    use crate::__budget::{tick, Wait};
    use std::sync::mpsc::{Receiver, RecvError, RecvTimeoutError, SendError, SyncSender, TrySendError};
    use std::sync::{Condvar, LockResult, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};
    use std::sync::{RwLockWriteGuard, TryLockError, WaitTimeoutResult};
    use std::time::{Duration, Instant};

    /// Waiting for something another thread changes that std cannot be asked to wait for with a timeout (a
    /// lock's release, a thread's end): a few yields, then sleeps growing to a millisecond, each after a look at
    /// the budget.
    struct Backoff(u32, Wait);

    impl Backoff {
        fn new() -> Backoff {
            Backoff(0, Wait::new())
        }

        fn pause(&mut self) {
            let slice = self.1.slice();
            self.0 = self.0.saturating_add(1);
            if self.0 <= 8 {
                std::thread::yield_now();
            } else {
                let sleep = Duration::from_micros(20u64 << (self.0 - 8).min(6)).min(slice);
                std::thread::sleep(sleep);
            }
        }
    }

    /// Takes a lock by trying until it is free (std's locks cannot be asked to wait with a timeout).
    fn locking<G>(mut attempt: impl FnMut() -> std::sync::TryLockResult<G>) -> LockResult<G> {
        let mut backoff = Backoff::new();
        loop {
            match attempt() {
                Ok(guard) => return Ok(guard),
                Err(TryLockError::Poisoned(poisoned)) => return Err(poisoned),
                Err(TryLockError::WouldBlock) => backoff.pause(),
            }
        }
    }

    /// Waits until `finished` says so (a thread's end, before it is joined).
    fn until(finished: impl Fn() -> bool) {
        let mut backoff = Backoff::new();
        while !finished() {
            backoff.pause();
        }
    }

    /// How much of a wait of `timeout` begun at `start` is left (`None`: more than any `Duration`, as a timeout
    /// `Instant` cannot hold).
    fn left(start: Instant, timeout: Duration) -> Option<Duration> {
        start.checked_add(timeout).map(|end| end.saturating_duration_since(Instant::now()))
    }

    /// `thread::sleep`'s twin, as the checker wraps the path the snippet names (`sleeping(thread::sleep)(d)`, or
    /// the wrapped path as a value): a `fn(Duration)` that sleeps as long in slices and looks at the run's time
    /// budget between them, so a sleep longer than the budget ends as the hole's time error.
    pub fn sleeping(_std: fn(Duration)) -> fn(Duration) {
        slept
    }

    /// Sleeps `duration` in slices, looking at the run's time budget between them (also `cap::Clock::sleep`).
    pub(crate) fn slept(duration: Duration) {
        let start = Instant::now();
        let mut wait = Wait::new();
        loop {
            let slice = wait.slice();
            match left(start, duration) {
                Some(left) if left.is_zero() => return,
                Some(left) => std::thread::sleep(left.min(slice)),
                None => std::thread::sleep(slice),
            }
        }
    }

    /// `Receiver::recv`, `Receiver::iter` and `Receiver::recv_timeout`.
    pub trait WaitingReceiver<T> {
        fn __lacuna_waiting_recv(&self) -> Result<T, RecvError>;
        fn __lacuna_waiting_iter(&self) -> WaitingIter<'_, T>;
        fn __lacuna_waiting_recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError>;
    }

    impl<T> WaitingReceiver<T> for Receiver<T> {
        fn __lacuna_waiting_recv(&self) -> Result<T, RecvError> {
            let mut wait = Wait::new();
            loop {
                match self.recv_timeout(wait.slice()) {
                    Ok(value) => return Ok(value),
                    Err(RecvTimeoutError::Disconnected) => return Err(RecvError),
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
        }

        fn __lacuna_waiting_iter(&self) -> WaitingIter<'_, T> {
            WaitingIter(self)
        }

        /// Waits in slices until a value comes, the senders are gone or `timeout` has passed: a slice that times
        /// out with time left waits again (a value sent meanwhile stays in the channel).
        fn __lacuna_waiting_recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
            let start = Instant::now();
            let mut wait = Wait::new();
            loop {
                let slice = wait.slice();
                let left = left(start, timeout).unwrap_or(Duration::MAX);
                match self.recv_timeout(left.min(slice)) {
                    Err(RecvTimeoutError::Timeout) if left > slice => {}
                    done => return done,
                }
            }
        }
    }

    /// `Receiver::iter`'s twin: each step waits as [`WaitingReceiver::__lacuna_waiting_recv`] does (and counts
    /// fuel, as a step std's loops take does).
    #[derive(Debug)]
    pub struct WaitingIter<'a, T>(&'a Receiver<T>);

    impl<T> Iterator for WaitingIter<'_, T> {
        type Item = T;
        fn next(&mut self) -> Option<T> {
            tick();
            self.0.__lacuna_waiting_recv().ok()
        }
    }

    /// `Receiver::into_iter`'s twin.
    #[derive(Debug)]
    pub struct WaitingIntoIterator<T>(Receiver<T>);

    impl<T> Iterator for WaitingIntoIterator<T> {
        type Item = T;
        fn next(&mut self) -> Option<T> {
            tick();
            self.0.__lacuna_waiting_recv().ok()
        }
    }

    /// `IntoIterator::into_iter` of a receiver and of a reference to one.
    pub trait WaitingIntoIter {
        type Iter: Iterator;
        fn __lacuna_waiting_into_iter(self) -> Self::Iter;
    }

    impl<T> WaitingIntoIter for Receiver<T> {
        type Iter = WaitingIntoIterator<T>;
        fn __lacuna_waiting_into_iter(self) -> WaitingIntoIterator<T> {
            WaitingIntoIterator(self)
        }
    }

    impl<'a, T> WaitingIntoIter for &'a Receiver<T> {
        type Iter = WaitingIter<'a, T>;
        fn __lacuna_waiting_into_iter(self) -> WaitingIter<'a, T> {
            WaitingIter(self)
        }
    }

    /// A receiver handed to code that steps any iterator (a `for` loop, `v.extend(&rx)`, a generic function), as
    /// its waiting iterator.
    pub fn waiting_into<R: WaitingIntoIter>(receiver: R) -> R::Iter {
        receiver.__lacuna_waiting_into_iter()
    }

    /// `SyncSender::send`: a full channel (or a rendezvous one nobody receives from) waits.
    pub trait WaitingSender<T> {
        fn __lacuna_waiting_send(&self, value: T) -> Result<(), SendError<T>>;
    }

    impl<T> WaitingSender<T> for SyncSender<T> {
        fn __lacuna_waiting_send(&self, mut value: T) -> Result<(), SendError<T>> {
            let mut backoff = Backoff::new();
            loop {
                match self.try_send(value) {
                    Ok(()) => return Ok(()),
                    Err(TrySendError::Disconnected(back)) => return Err(SendError(back)),
                    Err(TrySendError::Full(back)) => value = back,
                }
                backoff.pause();
            }
        }
    }

    /// `Mutex::lock`.
    pub trait WaitingMutex<T: ?Sized> {
        fn __lacuna_waiting_lock(&self) -> LockResult<MutexGuard<'_, T>>;
    }

    impl<T: ?Sized> WaitingMutex<T> for Mutex<T> {
        fn __lacuna_waiting_lock(&self) -> LockResult<MutexGuard<'_, T>> {
            locking(|| self.try_lock())
        }
    }

    /// `RwLock::read` and `RwLock::write`.
    pub trait WaitingRwLock<T: ?Sized> {
        fn __lacuna_waiting_read(&self) -> LockResult<RwLockReadGuard<'_, T>>;
        fn __lacuna_waiting_write(&self) -> LockResult<RwLockWriteGuard<'_, T>>;
    }

    impl<T: ?Sized> WaitingRwLock<T> for RwLock<T> {
        fn __lacuna_waiting_read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
            locking(|| self.try_read())
        }

        fn __lacuna_waiting_write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
            locking(|| self.try_write())
        }
    }

    /// `Condvar::wait`, `wait_while`, `wait_timeout` and `wait_timeout_while`: each waits with a timeout of one
    /// slice (`wait_while` and `wait_timeout_while` again while their condition holds and time is left), but
    /// `wait_timeout`, which cannot, until its own timeout or the run's deadline.
    pub trait WaitingCondvar {
        fn __lacuna_waiting_wait_timeout<'a, T>(
            &self,
            guard: MutexGuard<'a, T>,
            timeout: Duration,
        ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>;
        fn __lacuna_waiting_wait_timeout_while<'a, T, F: FnMut(&mut T) -> bool>(
            &self,
            guard: MutexGuard<'a, T>,
            timeout: Duration,
            condition: F,
        ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>;
        fn __lacuna_waiting_wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>>;
        fn __lacuna_waiting_wait_while<'a, T, F: FnMut(&mut T) -> bool>(
            &self,
            guard: MutexGuard<'a, T>,
            condition: F,
        ) -> LockResult<MutexGuard<'a, T>>;
    }

    impl WaitingCondvar for Condvar {
        fn __lacuna_waiting_wait_timeout<'a, T>(
            &self,
            mut guard: MutexGuard<'a, T>,
            timeout: Duration,
        ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
            // Not in slices: one that timed out and waited again could miss a notify sent between the two (the
            // wait would then last its whole timeout), and one that returned early would say it timed out when it
            // had not. So std waits once until the timeout or the run's deadline, whichever comes first, and past
            // the deadline the next look stops the thread. (In code left behind, which has no deadline, it waits
            // in slices to charge them as it goes.)
            let start = Instant::now();
            let mut wait = Wait::new();
            loop {
                let left = left(start, timeout).unwrap_or(Duration::MAX);
                let span = wait.span().unwrap_or(Duration::MAX);
                if left <= span {
                    return self.wait_timeout(guard, left);
                }
                match self.wait_timeout(guard, span) {
                    Ok((back, result)) if result.timed_out() => guard = back,
                    Err(poisoned) if poisoned.get_ref().1.timed_out() => guard = poisoned.into_inner().0,
                    done => return done,
                }
            }
        }


        fn __lacuna_waiting_wait_timeout_while<'a, T, F: FnMut(&mut T) -> bool>(
            &self,
            mut guard: MutexGuard<'a, T>,
            timeout: Duration,
            mut condition: F,
        ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
            let start = Instant::now();
            let mut wait = Wait::new();
            loop {
                let slice = wait.slice();
                let left = left(start, timeout).unwrap_or(Duration::MAX);
                match self.wait_timeout_while(guard, left.min(slice), &mut condition) {
                    Ok((back, result)) if result.timed_out() && left > slice => guard = back,
                    Err(poisoned) if poisoned.get_ref().1.timed_out() && left > slice => {
                        guard = poisoned.into_inner().0
                    }
                    done => return done,
                }
            }
        }

        fn __lacuna_waiting_wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
            // A slice that ends without a notify returns as a spurious wakeup, which `wait` may have (so code
            // waits in a loop over its condition): waiting again here could miss a notify sent just as the slice
            // ended, for good.
            match self.wait_timeout(guard, Wait::new().slice()) {
                Ok((guard, _)) => Ok(guard),
                Err(poisoned) => Err(PoisonError::new(poisoned.into_inner().0)),
            }
        }

        fn __lacuna_waiting_wait_while<'a, T, F: FnMut(&mut T) -> bool>(
            &self,
            mut guard: MutexGuard<'a, T>,
            mut condition: F,
        ) -> LockResult<MutexGuard<'a, T>> {
            let mut wait = Wait::new();
            loop {
                match self.wait_timeout_while(guard, wait.slice(), &mut condition) {
                    Ok((back, result)) if result.timed_out() => guard = back,
                    Ok((back, _)) => return Ok(back),
                    Err(poisoned) => return Err(PoisonError::new(poisoned.into_inner().0)),
                }
            }
        }
    }

    /// `JoinHandle::join` and `ScopedJoinHandle::join`: waits until the thread has finished, then joins it.
    pub trait WaitingJoin {
        type Output;
        fn __lacuna_waiting_join(self) -> std::thread::Result<Self::Output>;
    }

    impl<T> WaitingJoin for std::thread::ScopedJoinHandle<'_, T> {
        type Output = T;
        fn __lacuna_waiting_join(self) -> std::thread::Result<T> {
            until(|| self.is_finished());
            self.join()
        }
    }

    impl<T> WaitingJoin for std::thread::JoinHandle<T> {
        type Output = T;
        fn __lacuna_waiting_join(self) -> std::thread::Result<T> {
            until(|| self.is_finished());
            self.join()
        }
    }
}
