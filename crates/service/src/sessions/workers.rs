//! The service's side of session workers: a `lacuna session-worker` process per session, with a started one kept
//! spare for each kind of host sessions were opened on (single-file hosts, or a cargo project: a worker for a
//! project is started with `--project DIR`, so its engine has the project built and loaded before a session takes
//! it). A worker whose session closes cleanly (its answer to `close` says so) is kept idle, warm, for the next
//! session on the same kind of host; any other is stopped. A turn's call goes to its session's worker; the model a task needs is asked here. When a worker dies
//! (a turn aborted it, a signal killed it), the call is answered with what happened, and the session is restored
//! in a new worker from the service's copy of its transcript — or, if a turn of that transcript no longer runs the
//! same way, reported lost.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lacuna_engine::{SnippetSource, TranscriptTurn};
use serde_json::{json, Value};

use super::wire::{self, Call, FromWorker, ToWorker};
use super::{ModelFactory, OpenParams, SaveParams, SessionParams, TurnParams};
use crate::protocol::{ErrorCode, RpcError};

/// How to start a worker: this program and the arguments that give it the service's policy and configuration.
#[derive(Debug, Clone)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// A running worker.
struct Worker {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    next_call: u64,
}

/// A worker being started on a thread of its own.
type Starting = std::thread::JoinHandle<Result<Worker, String>>;

/// A session: its worker, and what restores it in another.
struct Hosted {
    worker: Option<Worker>,
    host: Option<PathBuf>,
    transcript: Vec<TranscriptTurn>,
}

pub struct WorkerSessions {
    command: WorkerCommand,
    models: ModelFactory,
    /// By project directory (`None`: single-file hosts).
    spare: Arc<Mutex<HashMap<Option<PathBuf>, Starting>>>,
    /// Workers whose session closed cleanly, warm (their checker has the host's crate analysed, their builds are
    /// cached), by the same key: the next session on that kind of host takes one before the spare.
    idle: Mutex<HashMap<Option<PathBuf>, Vec<Worker>>>,
    open: Mutex<HashMap<u64, Arc<Mutex<Option<Hosted>>>>>,
    next_id: AtomicU64,
}

/// Why a call to a worker ended without a reply.
struct Died {
    status: Option<ExitStatus>,
}

impl Died {
    fn describe(&self) -> String {
        use std::os::unix::process::ExitStatusExt;
        match self.status {
            Some(status) => match (status.signal(), status.code()) {
                (Some(signal), _) => format!("killed by signal {signal} ({})", signal_name(signal)),
                (None, Some(code)) => format!("exited with status {code}"),
                (None, None) => "ended".to_owned(),
            },
            None => "stopped answering".to_owned(),
        }
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV: a stack overflow or a memory fault",
        libc::SIGABRT => "SIGABRT: an abort, such as a panic while panicking",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL: killed from outside, or out of memory",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

impl Worker {
    /// A worker for single-file hosts, or with the project in `project` loaded.
    fn start(command: &WorkerCommand, project: Option<&Path>) -> Result<Worker, String> {
        let mut child = Command::new(&command.program)
            .arg("session-worker")
            .args(&command.args)
            .args(project.map(|dir| [std::ffi::OsStr::new("--project"), dir.as_os_str()]).into_iter().flatten())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start a session worker ({}): {e}", command.program.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("a session worker started without its pipes".into());
        };
        Ok(Worker { child, stdin: Arc::new(Mutex::new(stdin)), stdout: BufReader::new(stdout), next_call: 1 })
    }

    /// Sends `call` and waits for its reply, answering the worker's asks with `model` meanwhile and forwarding a
    /// cancel. `Err` when the worker died first.
    fn call(
        &mut self,
        call: Call,
        model: Option<&dyn SnippetSource>,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Result<Value, RpcError>, Vec<TranscriptTurn>), Died> {
        let id = self.next_call;
        self.next_call += 1;
        let sent = wire::send(&mut *self.stdin.lock().unwrap_or_else(|e| e.into_inner()), &ToWorker::Call { id, call });
        if sent.is_err() {
            return Err(self.died());
        }
        let done = AtomicBool::new(false);
        let stdin = self.stdin.clone();
        std::thread::scope(|scope| {
            if let Some(cancel) = cancel {
                let done = &done;
                scope.spawn(move || {
                    while !done.load(Ordering::Relaxed) {
                        if cancel.load(Ordering::Relaxed) {
                            let mut stdin = stdin.lock().unwrap_or_else(|e| e.into_inner());
                            let _ = wire::send(&mut *stdin, &ToWorker::Cancel { id });
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                });
            }
            let outcome = self.replies(id, model);
            done.store(true, Ordering::Relaxed);
            outcome
        })
    }

    fn replies(
        &mut self,
        id: u64,
        model: Option<&dyn SnippetSource>,
    ) -> Result<(Result<Value, RpcError>, Vec<TranscriptTurn>), Died> {
        loop {
            let message = match wire::receive::<_, FromWorker>(&mut self.stdout) {
                Ok(Some(message)) => message,
                Ok(None) | Err(_) => return Err(self.died()),
            };
            match message {
                FromWorker::Reply { id: replied, result, kept } if replied == id => return Ok((result, kept)),
                FromWorker::Reply { .. } => {}
                FromWorker::Ask { ask, hole, attempts } => {
                    let proposal = match model {
                        Some(model) => model.propose(&hole, &attempts),
                        None => Err("this turn has no model to ask (a Lacuna bug)".to_owned()),
                    };
                    let mut stdin = self.stdin.lock().unwrap_or_else(|e| e.into_inner());
                    if wire::send(&mut *stdin, &ToWorker::Answer { ask, proposal }).is_err() {
                        drop(stdin);
                        return Err(self.died());
                    }
                }
                FromWorker::Record { record } => {
                    if let Some(model) = model {
                        model.record(&record);
                    }
                }
            }
        }
    }

    /// The worker is gone (or broke the protocol): its end, once it has ended.
    fn died(&mut self) -> Died {
        let _ = self.child.kill();
        Died { status: self.child.wait().ok() }
    }

    /// Ends the worker: its input closes, and a worker still busy after a while is killed.
    fn stop(mut self) {
        drop(self.stdin);
        std::thread::spawn(move || {
            for _ in 0..50 {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(40));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        });
    }
}

impl WorkerSessions {
    pub fn new(command: WorkerCommand, models: ModelFactory) -> WorkerSessions {
        // No spare until the first session: a service that only checks starts no worker.
        WorkerSessions {
            command,
            models,
            spare: Arc::new(Mutex::new(HashMap::new())),
            idle: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
        }
    }

    pub fn count(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Starts a worker in the background, for the next session on the same kind of host.
    fn start_spare(&self, project: Option<&Path>) {
        let command = self.command.clone();
        let dir = project.map(Path::to_path_buf);
        let started = std::thread::spawn(move || Worker::start(&command, dir.as_deref()));
        self.spare.lock().unwrap_or_else(|e| e.into_inner()).insert(project.map(Path::to_path_buf), started);
    }

    /// A started worker for sessions on `host`: an idle one that served such a session cleanly, else the spare
    /// (and another spare starts), else a new one.
    fn worker(&self, host: Option<&Path>) -> Result<Worker, RpcError> {
        let project = host.and_then(super::project_dir);
        let project = project.as_deref();
        let key = project.map(Path::to_path_buf);
        loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&key).and_then(Vec::pop);
            let Some(mut worker) = idle else { break };
            match worker.child.try_wait() {
                Ok(None) => return Ok(worker),
                _ => worker.stop(),
            }
        }
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).remove(&project.map(Path::to_path_buf));
        self.start_spare(project);
        // A spare that died waiting (killed from outside) is replaced.
        let worker = match spare.map(|s| s.join()) {
            Some(Ok(Ok(mut worker))) => match worker.child.try_wait() {
                Ok(None) => Ok(worker),
                _ => Worker::start(&self.command, project),
            },
            _ => Worker::start(&self.command, project),
        };
        worker.map_err(|e| ErrorCode::Internal.with(e))
    }

    fn session(&self, id: u64) -> Result<Arc<Mutex<Option<Hosted>>>, RpcError> {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned().ok_or_else(|| {
            ErrorCode::InvalidParams
                .with(format!("no session {id}; open one with `session.open` (ids are per service)"))
        })
    }

    pub fn open(&self, params: OpenParams) -> Result<Value, RpcError> {
        let (turns, from) = match &params.replay {
            Some(path) => (super::local::read_transcript(path)?, path.display().to_string()),
            None => (Vec::new(), String::new()),
        };
        let host = params.host.clone();
        let mut worker = self.worker(host.as_deref())?;
        let call = Call::Open { host: host.clone(), turns, from };
        let (result, kept) = worker.call(call, None, None).map_err(|died| {
            ErrorCode::Internal.with(format!(
                "the session's worker process {} while opening it (replaying a transcript whose turn ends its \
                 process?)",
                died.describe()
            ))
        })?;
        let mut opened = match result {
            Ok(opened) => opened,
            Err(e) => {
                worker.stop();
                return Err(e);
            }
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        opened["session"] = json!(id);
        let hosted = Hosted { worker: Some(worker), host, transcript: kept };
        self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(id, Arc::new(Mutex::new(Some(hosted))));
        Ok(opened)
    }

    pub fn turn(&self, params: TurnParams, cancel: Arc<AtomicBool>) -> Result<Value, RpcError> {
        let model = match (&params.snippet, &params.task) {
            (Some(_), None) if params.model.is_none() => None,
            (None, Some(_)) => Some((self.models)(params.model.as_deref()).map_err(|e| ErrorCode::InputError.with(e))?),
            _ => {
                return Err(ErrorCode::InvalidParams.with(
                    "give the turn's \"snippet\", or a \"task\" (and optionally a \"model\") for a model to write it",
                ))
            }
        };
        let call = Call::Turn {
            snippet: params.snippet,
            task: params.task,
            attempts: model.as_ref().map_or(0, |(_, attempts)| *attempts),
            retry_after_fault: model.as_ref().is_some_and(|(model, _)| model.retry_after_fault()),
            hidden: params.hidden,
        };
        let model = model.as_ref().map(|(model, _)| model.as_ref());
        self.call(params.session, call, model, Some(&cancel))
    }

    pub fn state(&self, params: SessionParams) -> Result<Value, RpcError> {
        let mut state = self.call(params.session, Call::State, None, None)?;
        state["session"] = json!(params.session);
        Ok(state)
    }

    pub fn save(&self, params: SaveParams) -> Result<Value, RpcError> {
        self.call(params.session, Call::Save { path: params.path }, None, None)
    }

    pub fn close(&self, params: SessionParams) -> Result<Value, RpcError> {
        let session = self.session(params.session)?;
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&params.session);
        let taken = session.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(hosted) = taken {
            if let Some(worker) = hosted.worker {
                self.retire(worker, hosted.host.as_deref());
            }
        }
        Ok(json!({}))
    }

    /// A worker whose session is closing: kept idle for the next session on the same kind of host if its
    /// session ended cleanly (and few are idle already), else stopped.
    fn retire(&self, mut worker: Worker, host: Option<&Path>) {
        const MAX_IDLE: usize = 2;
        let reusable =
            matches!(worker.call(Call::Close, None, None), Ok((Ok(answer), _)) if answer["reusable"] == true);
        let key = host.and_then(super::project_dir);
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let kept = idle.entry(key).or_default();
        if reusable && kept.len() < MAX_IDLE {
            kept.push(worker);
        } else {
            drop(idle);
            worker.stop();
        }
    }

    /// Closes every session (shutdown), and the spare.
    pub fn close_all(&self) {
        let ids: Vec<u64> = self.open.lock().unwrap_or_else(|e| e.into_inner()).keys().copied().collect();
        for id in ids {
            let _ = self.close(SessionParams { session: id });
        }
        let idle: Vec<Worker> =
            self.idle.lock().unwrap_or_else(|e| e.into_inner()).drain().flat_map(|(_, w)| w).collect();
        for worker in idle {
            worker.stop();
        }
        let spares: Vec<Starting> =
            self.spare.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, s)| s).collect();
        for spare in spares {
            if let Ok(Ok(worker)) = spare.join() {
                worker.stop();
            }
        }
    }

    /// `call` on session `id`'s worker. If the worker dies, the answer says how, and the session is restored in
    /// a new worker from its transcript (the turn that was running is not part of it), or closed as lost.
    fn call(
        &self,
        id: u64,
        call: Call,
        model: Option<&dyn SnippetSource>,
        cancel: Option<&AtomicBool>,
    ) -> Result<Value, RpcError> {
        let session = self.session(id)?;
        let mut guard = session.lock().unwrap_or_else(|e| e.into_inner());
        let hosted = guard.as_mut().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        if hosted.worker.is_none() {
            match self.restore(hosted) {
                Ok(worker) => hosted.worker = Some(worker),
                Err(lost) => return Err(self.lost(id, &mut guard, lost)),
            }
        }
        let worker = hosted.worker.as_mut().expect("restored above");
        match worker.call(call, model, cancel) {
            Ok((result, kept)) => {
                hosted.transcript.extend(kept);
                result
            }
            Err(died) => {
                hosted.worker = None;
                let what = died.describe();
                let turns = hosted.transcript.len();
                match self.restore(hosted) {
                    Ok(worker) => {
                        hosted.worker = Some(worker);
                        Err(RpcError {
                            code: ErrorCode::WorkerDied.code(),
                            message: format!(
                                "the turn ended its session's worker process ({what}); the session was restored \
                                 as it was before the turn ({turns} earlier turn(s) replayed)"
                            ),
                            data: Some(json!({"worker": what, "restored": true, "replayed": turns})),
                        })
                    }
                    Err(lost) => Err(self.lost(id, &mut guard, format!("its worker process {what}; {lost}"))),
                }
            }
        }
    }

    /// A new worker with the session's host and turns replayed.
    fn restore(&self, hosted: &Hosted) -> Result<Worker, String> {
        let mut worker = self.worker(hosted.host.as_deref()).map_err(|e| e.message)?;
        let call =
            Call::Open { host: hosted.host.clone(), turns: hosted.transcript.clone(), from: "the session".into() };
        match worker.call(call, None, None) {
            Ok((Ok(_), _)) => Ok(worker),
            Ok((Err(e), _)) => {
                worker.stop();
                Err(format!("replaying its transcript failed: {}", e.message))
            }
            Err(died) => Err(format!("replaying its transcript ended the new worker too ({})", died.describe())),
        }
    }

    /// Closes the session as lost, with what was lost.
    fn lost(&self, id: u64, guard: &mut Option<Hosted>, why: String) -> RpcError {
        let turns = guard.take().map_or(0, |h| h.transcript.len());
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        RpcError {
            code: ErrorCode::WorkerDied.code(),
            message: format!(
                "session {id} is lost: {why}. Its {turns} turn(s) and locals are gone; open a new session (a \
                 transcript saved earlier replays with `session.open {{\"replay\": PATH}}`)"
            ),
            data: Some(json!({"restored": false, "lost_turns": turns})),
        }
    }
}
