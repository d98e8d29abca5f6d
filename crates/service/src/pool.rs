//! Checkers on worker threads. Each worker owns a [`Checker`] (rust-analyzer with std loaded, and rustc) and the
//! hosts it has prepared, so a host seen before is not prepared again. A check goes to the worker that prepared
//! its host when that one is free, else to a free one, else it queues behind its host's worker: a slow check (one
//! long rustc run) holds one worker, not the service.

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use lacuna_checker::{Checker, CheckerError, PreparedHost};
use serde_json::Value;

use crate::protocol::{ErrorCode, RpcError};

/// Makes a worker's checker (called on the worker's thread, and again if a checker panicked).
pub type CheckerFactory = Arc<dyn Fn() -> Result<Checker, CheckerError> + Send + Sync>;

/// How many prepared hosts a worker keeps.
const HOSTS_PER_WORKER: usize = 64;

/// One check for a worker.
pub struct CheckJob {
    /// Shown in diagnostics and the answer (`host.rs` for a host given as text).
    pub name: String,
    /// The path the client named, echoed in the answer.
    pub path: Option<String>,
    pub text: Arc<str>,
    /// From 1.
    pub hole: Option<u32>,
    pub snippet: String,
    /// Set when the client no longer waits: a worker skips a job it has not started.
    pub cancelled: Arc<AtomicBool>,
    pub reply: tokio::sync::oneshot::Sender<Result<Value, RpcError>>,
}

struct Worker {
    queue: mpsc::Sender<CheckJob>,
    /// Jobs queued or running.
    load: Arc<AtomicUsize>,
}

pub struct CheckPool {
    workers: Vec<Worker>,
    /// Which worker prepared which host last (by the host's hash).
    homes: std::sync::Mutex<HashMap<u64, usize>>,
}

impl CheckPool {
    /// Starts `count` workers (at least one), each making its checker; fails if the first cannot.
    pub fn start(count: usize, factory: CheckerFactory) -> Result<CheckPool, CheckerError> {
        let mut workers = Vec::new();
        let mut ready = Vec::new();
        for index in 0..count.max(1) {
            let (queue, jobs) = mpsc::channel::<CheckJob>();
            let (ready_tx, ready_rx) = mpsc::channel::<Result<(), CheckerError>>();
            let load = Arc::new(AtomicUsize::new(0));
            let (factory, worker_load) = (factory.clone(), load.clone());
            std::thread::Builder::new()
                .name(format!("lacuna-check-{index}"))
                .spawn(move || work(factory, jobs, worker_load, ready_tx))
                .map_err(|e| CheckerError::Internal { detail: format!("cannot start a check worker: {e}") })?;
            workers.push(Worker { queue, load });
            ready.push(ready_rx);
        }
        for rx in ready {
            rx.recv().map_err(|_| CheckerError::Internal { detail: "a check worker died while starting".into() })??;
        }
        Ok(CheckPool { workers, homes: std::sync::Mutex::new(HashMap::new()) })
    }

    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Jobs queued or running, over all workers.
    pub fn load(&self) -> usize {
        self.workers.iter().map(|w| w.load.load(Ordering::Relaxed)).sum()
    }

    /// Queues a check (see the module doc for which worker takes it).
    pub fn submit(&self, job: CheckJob) {
        let key = host_key(&job.name, &job.text);
        let mut homes = self.homes.lock().unwrap_or_else(|e| e.into_inner());
        let idle = |i: usize| self.workers[i].load.load(Ordering::Relaxed) == 0;
        let chosen = match homes.get(&key) {
            Some(&home) if idle(home) => home,
            home => (0..self.workers.len())
                .find(|&i| idle(i))
                .or(home.copied())
                .unwrap_or_else(|| (key % self.workers.len() as u64) as usize),
        };
        homes.insert(key, chosen);
        drop(homes);
        let worker = &self.workers[chosen];
        worker.load.fetch_add(1, Ordering::Relaxed);
        if let Err(mpsc::SendError(job)) = worker.queue.send(job) {
            worker.load.fetch_sub(1, Ordering::Relaxed);
            let _ = job.reply.send(Err(ErrorCode::Internal.with("the check worker is gone; restart the service")));
        }
    }
}

fn host_key(name: &str, text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (name, text).hash(&mut hasher);
    hasher.finish()
}

/// A worker's loop: make the checker, then answer jobs until the pool is dropped.
fn work(
    factory: CheckerFactory,
    jobs: mpsc::Receiver<CheckJob>,
    load: Arc<AtomicUsize>,
    ready: mpsc::Sender<Result<(), CheckerError>>,
) {
    let mut checker = match factory() {
        Ok(checker) => {
            let _ = ready.send(Ok(()));
            checker
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let mut hosts = Hosts::default();
    for job in jobs {
        if !job.cancelled.load(Ordering::Relaxed) {
            // A cancelled request stops its check: rustc, if it is running, is killed.
            checker.set_interrupt(Some(job.cancelled.clone()));
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut checker, &mut hosts, &job)));
            checker.set_interrupt(None);
            let answer = match outcome {
                Ok(answer) => answer,
                Err(_) => {
                    // The checker's state is unknown after a panic: start afresh.
                    hosts = Hosts::default();
                    if let Ok(fresh) = factory() {
                        checker = fresh;
                    }
                    Err(ErrorCode::Internal
                        .with("internal error in the checker (a Lacuna bug); the check was not done"))
                }
            };
            let _ = job.reply.send(answer);
        }
        load.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Prepared hosts, the most recently used last.
#[derive(Default)]
struct Hosts {
    entries: VecDeque<(u64, Result<PreparedHost, String>)>,
}

impl Hosts {
    fn get(&mut self, checker: &mut Checker, name: &str, text: &str) -> Result<PreparedHost, String> {
        let key = host_key(name, text);
        let entry = match self.entries.iter().position(|(k, _)| *k == key) {
            Some(at) => self.entries.remove(at).expect("position is in range"),
            None => match checker.prepare(name, text) {
                // Not kept: the host was not judged (the next request prepares it again).
                Err(e @ (CheckerError::Cancelled | CheckerError::Rustc { .. })) => return Err(e.to_string()),
                prepared => (key, prepared.map_err(|e| e.to_string())),
            },
        };
        let prepared = entry.1.clone();
        self.entries.push_back(entry);
        if self.entries.len() > HOSTS_PER_WORKER {
            self.entries.pop_front();
        }
        prepared
    }
}

fn check(checker: &mut Checker, hosts: &mut Hosts, job: &CheckJob) -> Result<Value, RpcError> {
    let input = |message: String| ErrorCode::InputError.with(message);
    let prepared = hosts.get(checker, &job.name, &job.text).map_err(input)?;
    let holes = &prepared.host.holes;
    let hole = match job.hole {
        Some(n) if n >= 1 && (n as usize) <= holes.len() => n as usize - 1,
        Some(n) => return Err(input(format!("{} has {} hole(s); there is no hole {n}", job.name, holes.len()))),
        None if holes.len() == 1 => 0,
        None => {
            let lines: Vec<String> = holes.iter().map(|h| h.line.to_string()).collect();
            return Err(input(format!(
                "{} has {} holes (on lines {}); say which with \"hole\": N",
                job.name,
                holes.len(),
                lines.join(", ")
            )));
        }
    };
    let verdict = checker.check(&prepared, hole, &job.snippet).map_err(|e| input(e.to_string()))?;
    Ok(crate::verdict_json(job.path.as_deref(), None, &prepared, hole, &verdict))
}
