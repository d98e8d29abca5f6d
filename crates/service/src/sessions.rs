//! `session.*`: sessions live in the service's process, on one engine (made at the first `session.open`). Turns
//! run one at a time process-wide (a turn's output is captured from the process's stdout), each session's turns in
//! the order they arrive.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use lacuna_engine::{Engine, ExecError, Session, SnippetSource, TranscriptTurn};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::protocol::{ErrorCode, RpcError};

/// Makes the sessions' engine.
pub type EngineFactory = Arc<dyn Fn() -> Result<Engine, ExecError> + Send + Sync>;

/// The model that writes a turn from a task: the spec the request names, or the service's default (`None`); with
/// how many attempts a turn may take.
pub type ModelFactory = Arc<dyn Fn(Option<&str>) -> Result<(Arc<dyn SnippetSource>, u32), String> + Send + Sync>;

pub struct Sessions {
    factory: EngineFactory,
    models: ModelFactory,
    engine: OnceLock<Result<Arc<Engine>, String>>,
    open: Mutex<HashMap<u64, Arc<Mutex<Option<Session>>>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    pub host: Option<PathBuf>,
    /// A transcript `session.save` wrote: its turns run again, in order, before the session is handed out.
    pub replay: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveParams {
    pub session: u64,
    pub path: PathBuf,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnParams {
    pub session: u64,
    /// The turn's code; or, instead, a task for a model.
    pub snippet: Option<String>,
    pub task: Option<String>,
    /// The model for a task (`openai:<m>`, `script:<file>`, ...); the service's `--model` without it.
    pub model: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionParams {
    pub session: u64,
}

impl Sessions {
    pub fn new(factory: EngineFactory, models: ModelFactory) -> Sessions {
        Sessions { factory, models, engine: OnceLock::new(), open: Mutex::new(HashMap::new()) }
    }

    pub fn count(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn engine(&self) -> Result<Arc<Engine>, RpcError> {
        self.engine
            .get_or_init(|| (self.factory)().map(Arc::new).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| ErrorCode::Internal.with(format!("cannot start the sessions' engine: {e}")))
    }

    fn session(&self, id: u64) -> Result<Arc<Mutex<Option<Session>>>, RpcError> {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned().ok_or_else(|| {
            ErrorCode::InvalidParams
                .with(format!("no session {id}; open one with `session.open` (ids are per service)"))
        })
    }

    pub fn open(&self, params: OpenParams) -> Result<Value, RpcError> {
        self.engine()?;
        let session = match &params.host {
            None => Session::new(),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| ErrorCode::InputError.with(format!("cannot read host {}: {e}", path.display())))?;
                Session::from_host(&text).ok_or_else(|| {
                    ErrorCode::InputError
                        .with(format!("{} does not parse; `lacuna check` on it shows where", path.display()))
                })?
            }
        };
        let mut session = session;
        let mut replayed = Vec::new();
        if let Some(path) = &params.replay {
            let engine = self.engine()?;
            for (n, turn) in read_transcript(path)?.into_iter().enumerate() {
                let outcome = engine
                    .session_turn(&mut session, &turn.snippet)
                    .map_err(|e| ErrorCode::InputError.with(format!("{}: turn {}: {e}", path.display(), n + 1)))?;
                if !outcome.accepted {
                    engine.close_session(session);
                    return Err(ErrorCode::InputError.with(format!(
                        "{}: turn {} is rejected now (was the host or the policy changed?): {}",
                        path.display(),
                        n + 1,
                        outcome.diagnostics.join("\n")
                    )));
                }
                replayed.push(json!({"value": outcome.value, "recorded": turn.value, "error": outcome.error}));
            }
        }
        let id = session.id();
        self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(id, Arc::new(Mutex::new(Some(session))));
        Ok(if params.replay.is_some() { json!({"session": id, "replayed": replayed}) } else { json!({"session": id}) })
    }

    /// Writes the session's transcript (one JSON object per turn that ran) for `session.open {"replay": PATH}`.
    pub fn save(&self, params: SaveParams) -> Result<Value, RpcError> {
        let session = self.session(params.session)?;
        let guard = session.lock().unwrap_or_else(|e| e.into_inner());
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
        let engine = self.engine()?;
        let session = self.session(params.session)?;
        let mut guard = session.lock().unwrap_or_else(|e| e.into_inner());
        let session = guard.as_mut().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        session.set_interrupt(Some(cancel));
        let outcome = Sessions::turn_in(&engine, session, params, &self.models);
        session.set_interrupt(None);
        outcome
    }

    fn turn_in(
        engine: &Engine,
        session: &mut Session,
        params: TurnParams,
        models: &ModelFactory,
    ) -> Result<Value, RpcError> {
        let failed = |e: ExecError| match e {
            ExecError::Checker(e) => ErrorCode::InputError.with(e.to_string()),
            e => ErrorCode::Internal.with(e.to_string()),
        };
        let outcome = match (params.snippet, params.task) {
            (Some(snippet), None) if params.model.is_none() => {
                engine.session_turn(session, &snippet).map_err(failed)?
            }
            (None, Some(task)) => {
                let (model, attempts) = models(params.model.as_deref()).map_err(|e| ErrorCode::InputError.with(e))?;
                engine.session_task(session, &task, model.as_ref(), attempts).map_err(failed)?
            }
            _ => {
                return Err(ErrorCode::InvalidParams.with(
                    "give the turn's \"snippet\", or a \"task\" (and optionally a \"model\") for a model to write it",
                ))
            }
        };
        serde_json::to_value(&outcome).map_err(|e| ErrorCode::Internal.with(e.to_string()))
    }

    pub fn state(&self, params: SessionParams) -> Result<Value, RpcError> {
        let session = self.session(params.session)?;
        let guard = session.lock().unwrap_or_else(|e| e.into_inner());
        let session = guard.as_ref().ok_or_else(|| ErrorCode::InvalidParams.with("the session is closed"))?;
        Ok(json!({
            "session": session.id(),
            "turns": session.turns(),
            "locals": session.locals(),
            "items": session.items().collect::<Vec<_>>(),
        }))
    }

    pub fn close(&self, params: SessionParams) -> Result<Value, RpcError> {
        let session = self.session(params.session)?;
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&params.session);
        let taken = session.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let (Some(session), Ok(engine)) = (taken, self.engine()) {
            engine.close_session(session);
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

fn read_transcript(path: &PathBuf) -> Result<Vec<TranscriptTurn>, RpcError> {
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
