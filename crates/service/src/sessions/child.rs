//! A session worker (`lacuna session-worker`): one session on an engine of its own, serving the calls the service
//! sends. Calls run one at a time on the main thread; a reader thread takes cancels (for the call in progress) and
//! the service's answers to asks while a call runs.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use lacuna_engine::{Attempt, AttemptRecord, HoleRequest, Proposal, SnippetSource};
use serde_json::Value;

use super::wire::{self, Call, FromWorker, ToWorker};
use super::{LocalSessions, SaveParams, SessionParams, TurnParams};
use crate::protocol::{ErrorCode, RpcError};

/// Who waits for the service's answer to an ask.
type Answer = Sender<Result<Option<Proposal>, String>>;

/// The worker's half of the line protocol: where replies, asks and records go, and who waits for which answer.
struct Link {
    out: Mutex<Box<dyn Write + Send>>,
    next_ask: AtomicU64,
    waiting: Mutex<HashMap<u64, Answer>>,
    /// The call in progress and its cancel flag.
    current: Mutex<Option<(u64, Arc<AtomicBool>)>>,
}

impl Link {
    fn send(&self, message: &FromWorker) -> std::io::Result<()> {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        wire::send(&mut *out, message)
    }
}

/// The model of a turn written from a task, as the worker sees it: every proposal is asked of the service.
struct Relay {
    link: Arc<Link>,
    retry_after_fault: bool,
}

impl SnippetSource for Relay {
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String> {
        let ask = self.link.next_ask.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = channel();
        self.link.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(ask, reply);
        let asked = FromWorker::Ask { ask, hole: hole.clone(), attempts: attempts.to_vec() };
        self.link.send(&asked).map_err(|e| format!("cannot ask the service for the model's snippet: {e}"))?;
        answer.recv().map_err(|_| "the service went away while the model was asked".to_owned())?
    }

    fn retry_after_fault(&self) -> bool {
        self.retry_after_fault
    }

    fn record(&self, record: &AttemptRecord) {
        let _ = self.link.send(&FromWorker::Record { record: record.clone() });
    }
}

/// The worker's session, and whether every turn of it ended cleanly (none faulted, was cancelled or failed):
/// only then may the worker take another session after this one closes.
struct Serving {
    session: Option<u64>,
    troubled: bool,
    reuse: bool,
}

/// Serves `sessions` (which holds at most one session at a time) on `input` until it ends, writing to `output`.
/// `reuse`: whether the worker may offer to take another session after a clean one (not when safe mode is off: an
/// unconfined snippet can change the process in ways no fault shows).
pub fn serve<R, W>(sessions: LocalSessions, reuse: bool, input: R, output: W) -> std::io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let link = Arc::new(Link {
        out: Mutex::new(Box::new(output)),
        next_ask: AtomicU64::new(0),
        waiting: Mutex::new(HashMap::new()),
        current: Mutex::new(None),
    });
    let calls = read_input(input, link.clone());
    let mut serving = Serving { session: None, troubled: !reuse, reuse };
    for (id, call) in calls {
        let cancel = Arc::new(AtomicBool::new(false));
        *link.current.lock().unwrap_or_else(|e| e.into_inner()) = Some((id, cancel.clone()));
        let before = serving.session.map_or(0, |s| sessions.transcript_len(s));
        let (turn, open) = (matches!(call, Call::Turn { .. }), matches!(call, Call::Open { .. }));
        let result = answer(&sessions, &mut serving, call, &link, cancel.clone());
        if turn {
            let faulted = result.as_ref().map_or(true, |outcome| !outcome["error"].is_null());
            serving.troubled |= faulted || cancel.load(Ordering::Relaxed);
        }
        if open {
            // A replayed transcript may hold a turn that faulted (it ran, and may have left the process worse).
            let replayed = result.as_ref().ok().and_then(|opened| opened["replayed"].as_array().cloned());
            serving.troubled |= replayed.unwrap_or_default().iter().any(|turn| !turn["error"].is_null());
        }
        *link.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let kept = serving.session.map(|s| sessions.transcript_from(s, before)).unwrap_or_default();
        link.send(&FromWorker::Reply { id, result, kept })?;
    }
    sessions.close_all();
    Ok(())
}

/// The calls on `input`, in order; cancels and answers are acted on as they arrive.
fn read_input<R: BufRead + Send + 'static>(mut input: R, link: Arc<Link>) -> Receiver<(u64, Call)> {
    let (calls, received) = channel();
    std::thread::spawn(move || {
        loop {
            let message = match wire::receive::<_, ToWorker>(&mut input) {
                Ok(Some(message)) => message,
                Ok(None) => break,
                Err(e) => {
                    eprintln!("lacuna session-worker: an unreadable message from the service: {e}");
                    break;
                }
            };
            match message {
                ToWorker::Call { id, call } => {
                    if calls.send((id, call)).is_err() {
                        break;
                    }
                }
                ToWorker::Cancel { id } => {
                    if let Some((current, flag)) = &*link.current.lock().unwrap_or_else(|e| e.into_inner()) {
                        if *current == id {
                            flag.store(true, Ordering::Relaxed);
                        }
                    }
                }
                ToWorker::Answer { ask, proposal } => {
                    if let Some(reply) = link.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(&ask) {
                        let _ = reply.send(proposal);
                    }
                }
            }
        }
        // The service is gone: whatever waits on a model's answer fails, and the call loop ends.
        link.waiting.lock().unwrap_or_else(|e| e.into_inner()).clear();
    });
    received
}

fn answer(
    sessions: &LocalSessions,
    serving: &mut Serving,
    call: Call,
    link: &Arc<Link>,
    cancel: Arc<AtomicBool>,
) -> Result<Value, RpcError> {
    let no_session = || ErrorCode::Internal.with("the session worker has no session open (a Lacuna bug)");
    let session = &mut serving.session;
    match call {
        Call::Open { host, turns, from } => {
            if session.is_some() {
                return Err(ErrorCode::Internal.with("the session worker has a session already (a Lacuna bug)"));
            }
            let replay = (!turns.is_empty()).then_some((from, turns));
            let opened = sessions.open_with(host.as_deref(), replay)?;
            *session = opened.get("session").and_then(Value::as_u64);
            Ok(opened)
        }
        Call::Turn { snippet, task, attempts, retry_after_fault, hidden } => {
            let id = session.ok_or_else(no_session)?;
            let model = task.is_some().then(|| {
                let relay: Arc<dyn SnippetSource> = Arc::new(Relay { link: link.clone(), retry_after_fault });
                (relay, attempts)
            });
            sessions.turn_with(TurnParams { session: id, snippet, task, model: None, hidden }, model, cancel)
        }
        Call::State => sessions.state(SessionParams { session: session.ok_or_else(no_session)? }),
        Call::Save { path } => save(sessions, session.ok_or_else(no_session)?, path),
        Call::Close => {
            let id = session.take().ok_or_else(no_session)?;
            // A host's statics would carry what this session did into the next one: such a worker is not reused.
            let keeps_state = sessions.host_keeps_state(id);
            sessions.close(SessionParams { session: id })?;
            let troubled = std::mem::replace(&mut serving.troubled, !serving.reuse);
            let reusable = serving.reuse && !troubled && !keeps_state;
            Ok(serde_json::json!({ "reusable": reusable }))
        }
    }
}

fn save(sessions: &LocalSessions, session: u64, path: PathBuf) -> Result<Value, RpcError> {
    sessions.save(SaveParams { session, path })
}
