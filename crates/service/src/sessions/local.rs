//! Sessions in this process, on an engine per host kind: one for single-file hosts, one per cargo project (each
//! made at the first `session.open` that needs it). Turns run one at a time process-wide (a turn's output is captured from the process's stdout), each session's turns in the order they
//! arrive. A session worker process serves its one session this way; `lacuna serve --sessions-in-process` serves
//! every session this way (a turn that aborts the process then ends them all).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use lacuna_engine::{Engine, ExecError, Session, SnippetSource, TranscriptTurn};
use serde_json::{json, Value};

use super::{EngineFactory, Hosting, ModelFactory, OpenParams, SaveParams, SessionParams, TurnParams};
use crate::protocol::{ErrorCode, RpcError};

/// The model a turn written from a task asks, and how many attempts it may take.
pub type Model = (Arc<dyn SnippetSource>, u32);

/// The engine of single-file hosts (`None`) or of a project (its canonical directory), made once.
type Engines = HashMap<Option<PathBuf>, Arc<OnceLock<Result<Arc<Hosting>, String>>>>;

/// An open session and the engine it runs on.
struct Open {
    hosting: Arc<Hosting>,
    session: Mutex<Option<Session>>,
    /// Whether its host declares statics: state the host's code keeps in the process, which the next session on
    /// the same host in this process would see.
    keeps_state: bool,
}

pub struct LocalSessions {
    factory: EngineFactory,
    models: ModelFactory,
    engines: Mutex<Engines>,
    open: Mutex<HashMap<u64, Arc<Open>>>,
}

impl LocalSessions {
    pub fn new(factory: EngineFactory, models: ModelFactory) -> LocalSessions {
        LocalSessions { factory, models, engines: Mutex::new(HashMap::new()), open: Mutex::new(HashMap::new()) }
    }

    pub fn count(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Makes the engine for single-file hosts (`project` `None`) or for the project in a directory now, rather
    /// than at the first `session.open` on it.
    pub fn start_engine(&self, project: Option<&Path>) -> Result<(), RpcError> {
        let project = project.map(|p| super::project_dir(p).unwrap_or_else(|| p.to_path_buf()));
        self.engine(project.as_deref()).map(drop)
    }

    /// The engine of `project` (a canonical project directory) or of single-file hosts.
    fn engine(&self, project: Option<&Path>) -> Result<Arc<Hosting>, RpcError> {
        let cell = self
            .engines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(project.map(Path::to_path_buf))
            .or_default()
            .clone();
        cell.get_or_init(|| (self.factory)(project).map(Arc::new)).clone().map_err(|e| match project {
            Some(dir) => {
                ErrorCode::InputError.with(format!("cannot open sessions on the project {}: {e}", dir.display()))
            }
            None => ErrorCode::Internal.with(format!("cannot start the sessions' engine: {e}")),
        })
    }

    fn session(&self, id: u64) -> Result<Arc<Open>, RpcError> {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned().ok_or_else(|| {
            ErrorCode::InvalidParams
                .with(format!("no session {id}; open one with `session.open` (ids are per service)"))
        })
    }

    pub fn open(&self, params: OpenParams) -> Result<Value, RpcError> {
        let turns = match &params.replay {
            Some(path) => Some((path.display().to_string(), read_transcript(path)?)),
            None => None,
        };
        self.open_with(params.host.as_deref(), turns)
    }

    /// Opens a session on `host` and runs `replay`'s turns (named by where they came from) before handing it out.
    pub fn open_with(
        &self,
        host: Option<&std::path::Path>,
        replay: Option<(String, Vec<TranscriptTurn>)>,
    ) -> Result<Value, RpcError> {
        let project = host.and_then(super::project_dir);
        let hosting = self.engine(project.as_deref())?;
        let engine = &hosting.engine;
        let (session, keeps_state) = match (host, &hosting.crate_text) {
            (None, _) => (Session::new(), false),
            (Some(path), Some(text)) => (
                Session::from_host(text).ok_or_else(|| {
                    ErrorCode::InputError.with(format!("the crate of {} does not parse as one host", path.display()))
                })?,
                declares_statics(text),
            ),
            (Some(path), None) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| ErrorCode::InputError.with(format!("cannot read host {}: {e}", path.display())))?;
                let session = Session::from_host(&text).ok_or_else(|| {
                    ErrorCode::InputError
                        .with(format!("{} does not parse; `lacuna check` on it shows where", path.display()))
                })?;
                (session, declares_statics(&text))
            }
        };
        let mut session = session;
        let mut replayed = Vec::new();
        let replaying = replay.is_some();
        if let Some((from, turns)) = replay {
            for (n, turn) in turns.into_iter().enumerate() {
                let outcome = engine
                    .session_replay(&mut session, &turn)
                    .map_err(|e| ErrorCode::InputError.with(format!("{from}: turn {}: {e}", n + 1)))?;
                if !outcome.accepted {
                    engine.close_session(session);
                    return Err(ErrorCode::InputError.with(format!(
                        "{}: turn {} is rejected now (was the host or the policy changed?): {}",
                        from,
                        n + 1,
                        outcome.diagnostics.join("\n")
                    )));
                }
                replayed.push(json!({"value": outcome.value, "recorded": turn.value, "error": outcome.error}));
            }
        }
        let id = session.id();
        let open = Open { hosting: hosting.clone(), session: Mutex::new(Some(session)), keeps_state };
        self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(id, Arc::new(open));
        Ok(if replaying { json!({"session": id, "replayed": replayed}) } else { json!({"session": id}) })
    }

    /// Whether the session's host keeps state of its own in the process (it declares a `static`).
    pub fn host_keeps_state(&self, id: u64) -> bool {
        self.session(id).map_or(true, |open| open.keeps_state)
    }

    /// How many turns the session kept.
    pub fn transcript_len(&self, id: u64) -> usize {
        let Ok(open) = self.session(id) else { return 0 };
        let guard = open.session.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().map_or(0, |s| s.transcript().len())
    }

    /// The turns the session kept, from the `from`th on.
    pub fn transcript_from(&self, id: u64, from: usize) -> Vec<TranscriptTurn> {
        let Ok(open) = self.session(id) else { return Vec::new() };
        let guard = open.session.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().map(|s| s.transcript().get(from..).unwrap_or_default().to_vec()).unwrap_or_default()
    }

    /// Writes the session's transcript (one JSON object per turn that ran) for `session.open {"replay": PATH}`.
    pub fn save(&self, params: SaveParams) -> Result<Value, RpcError> {
        let open = self.session(params.session)?;
        let guard = open.session.lock().unwrap_or_else(|e| e.into_inner());
        let session = guard.as_ref().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        let mut text = String::new();
        for turn in session.transcript() {
            text.push_str(&serde_json::to_string(turn).map_err(|e| ErrorCode::Internal.with(e.to_string()))?);
            text.push('\n');
        }
        std::fs::write(&params.path, text).map_err(|e| {
            ErrorCode::InputError.with(format!("cannot write the transcript to {}: {e}", params.path.display()))
        })?;
        Ok(json!({"turns": session.transcript().len()}))
    }

    /// Runs on a blocking thread: a turn checks, compiles and runs. Cancelled (`cancel` set) while it is still
    /// being checked, it stops there and changes nothing; once it runs, it stops where it is, as a fault.
    pub fn turn(&self, params: TurnParams, cancel: Arc<AtomicBool>) -> Result<Value, RpcError> {
        let model = match (&params.snippet, &params.task) {
            (None, Some(_)) => Some((self.models)(params.model.as_deref()).map_err(|e| ErrorCode::InputError.with(e))?),
            _ => None,
        };
        self.turn_with(params, model, cancel)
    }

    /// A turn whose model (for a task) is already chosen.
    pub fn turn_with(
        &self,
        params: TurnParams,
        model: Option<Model>,
        cancel: Arc<AtomicBool>,
    ) -> Result<Value, RpcError> {
        let open = self.session(params.session)?;
        let mut guard = open.session.lock().unwrap_or_else(|e| e.into_inner());
        let session = guard.as_mut().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        session.set_interrupt(Some(cancel));
        session.set_hidden(params.hidden.clone());
        let outcome = LocalSessions::turn_in(&open.hosting.engine, session, params, model);
        session.set_hidden(Vec::new());
        session.set_interrupt(None);
        outcome
    }

    fn turn_in(
        engine: &Engine,
        session: &mut Session,
        params: TurnParams,
        model: Option<Model>,
    ) -> Result<Value, RpcError> {
        let failed = |e: ExecError| match e {
            ExecError::Checker(e) => ErrorCode::InputError.with(e.to_string()),
            e => ErrorCode::Internal.with(e.to_string()),
        };
        let outcome =
            match (params.snippet, params.task, model) {
                (Some(snippet), None, _) if params.model.is_none() => {
                    engine.session_turn(session, &snippet).map_err(failed)?
                }
                (None, Some(task), Some((model, attempts))) => {
                    engine.session_task(session, &task, model, attempts).map_err(failed)?
                }
                _ => return Err(ErrorCode::InvalidParams.with(
                    "give the turn's \"snippet\", or a \"task\" (and optionally a \"model\") for a model to write it",
                )),
            };
        serde_json::to_value(&outcome).map_err(|e| ErrorCode::Internal.with(e.to_string()))
    }

    pub fn state(&self, params: SessionParams) -> Result<Value, RpcError> {
        let open = self.session(params.session)?;
        let guard = open.session.lock().unwrap_or_else(|e| e.into_inner());
        let session = guard.as_ref().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        Ok(json!({
            "session": session.id(),
            "turns": session.turns(),
            "locals": session.locals(),
            "items": session.items().collect::<Vec<_>>(),
        }))
    }

    pub fn close(&self, params: SessionParams) -> Result<Value, RpcError> {
        let open = self.session(params.session)?;
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&params.session);
        let taken = open.session.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(session) = taken {
            open.hosting.engine.close_session(session);
        }
        Ok(json!({}))
    }

    /// Closes every session (shutdown).
    pub fn close_all(&self) {
        let ids: Vec<u64> = self.open.lock().unwrap_or_else(|e| e.into_inner()).keys().copied().collect();
        for id in ids {
            let _ = self.close(SessionParams { session: id });
        }
    }
}

/// Whether `text` declares a `static` (an item, or one inside `thread_local!`, `lazy_static!` and the like) — by its
/// tokens, so a lifetime `'static` is not one, and a `static` in a comment or string counts (erring towards "yes").
fn declares_statics(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices("static").any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + "static".len()).copied();
        let starts = before.is_none_or(|b| !(b == b'\'' || b == b'_' || b.is_ascii_alphanumeric()));
        starts && after.is_some_and(|b| b.is_ascii_whitespace())
    })
}

pub(crate) fn read_transcript(path: &PathBuf) -> Result<Vec<TranscriptTurn>, RpcError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ErrorCode::InputError.with(format!("cannot read the transcript {}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| {
                ErrorCode::InputError.with(format!(
                    "{}:{}: not a transcript line ({e}); `session.save` writes them",
                    path.display(),
                    n + 1
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::declares_statics;

    #[test]
    fn statics_are_found_by_their_keyword_not_by_lifetimes() {
        assert!(declares_statics("static CALLS: AtomicU32 = AtomicU32::new(0);"));
        assert!(declares_statics("pub(crate) static NAMES: &[&str] = &[];"));
        assert!(declares_statics("thread_local! {\n    static SEEN: Cell<u32> = Cell::new(0);\n}"));
        assert!(declares_statics("fn f() {\n    static\tONCE: OnceLock<u8> = OnceLock::new();\n}"));
        assert!(!declares_statics("fn name(&self) -> &'static str { \"a\" }\nstruct Statics;\nfn is_static() {}"));
        assert!(!declares_statics("const LIMIT: usize = 3;\nfn nonstatic_value() -> u8 { 1 }"));
    }
}
