//! `session.*`. By default each session lives in a worker process of its own (`lacuna session-worker`), so
//! whatever a turn does to its process — a stack overflow in the checker, an abort in a destructor, a segfault in
//! drop glue — costs at most that session, and the session is restored from its transcript. The service keeps a
//! started worker spare, so opening a session does not wait for a checker to load.
//!
//! - [`local`]: sessions on an engine in this process (what a worker runs; `--sessions-in-process` serves every
//!   session this way).
//! - [`workers`]: the service's side: a worker per session, the model a turn's task needs (asked by the worker,
//!   answered here), crashes and restores.
//! - [`child`]: the worker's side.
//! - [`wire`]: what the two say to each other, one JSON object per line.

pub mod child;
pub mod local;
pub mod wire;
pub mod workers;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use lacuna_engine::{Engine, ExecError, SnippetSource};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::RpcError;
pub use local::LocalSessions;
pub use workers::{WorkerCommand, WorkerSessions};

/// Makes the sessions' engine.
pub type EngineFactory = Arc<dyn Fn() -> Result<Engine, ExecError> + Send + Sync>;

/// The model that writes a turn from a task: the spec the request names, or the service's default (`None`); with
/// how many attempts a turn may take.
pub type ModelFactory = Arc<dyn Fn(Option<&str>) -> Result<(Arc<dyn SnippetSource>, u32), String> + Send + Sync>;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    pub host: Option<PathBuf>,
    /// A transcript `session.save` wrote: its turns run again, in order, before the session is handed out.
    pub replay: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SaveParams {
    pub session: u64,
    pub path: PathBuf,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TurnParams {
    pub session: u64,
    /// The turn's code; or, instead, a task for a model.
    pub snippet: Option<String>,
    pub task: Option<String>,
    /// The model for a task (`openai:<m>`, `script:<file>`, ...); the service's `--model` without it.
    pub model: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SessionParams {
    pub session: u64,
}

/// Where the service's sessions live.
pub enum Sessions {
    /// A worker process each (the default).
    Workers(WorkerSessions),
    /// All in the service's own process.
    InProcess(LocalSessions),
}

impl Sessions {
    pub fn count(&self) -> usize {
        match self {
            Sessions::Workers(s) => s.count(),
            Sessions::InProcess(s) => s.count(),
        }
    }

    pub fn open(&self, params: OpenParams) -> Result<Value, RpcError> {
        match self {
            Sessions::Workers(s) => s.open(params),
            Sessions::InProcess(s) => s.open(params),
        }
    }

    pub fn save(&self, params: SaveParams) -> Result<Value, RpcError> {
        match self {
            Sessions::Workers(s) => s.save(params),
            Sessions::InProcess(s) => s.save(params),
        }
    }

    /// Runs on a blocking thread: a turn checks, compiles and runs. Cancelled (`cancel` set) while it is still
    /// being checked, it stops there and changes nothing; once it runs, it stops where it is, as a fault.
    pub fn turn(&self, params: TurnParams, cancel: Arc<AtomicBool>) -> Result<Value, RpcError> {
        match self {
            Sessions::Workers(s) => s.turn(params, cancel),
            Sessions::InProcess(s) => s.turn(params, cancel),
        }
    }

    pub fn state(&self, params: SessionParams) -> Result<Value, RpcError> {
        match self {
            Sessions::Workers(s) => s.state(params),
            Sessions::InProcess(s) => s.state(params),
        }
    }

    pub fn close(&self, params: SessionParams) -> Result<Value, RpcError> {
        match self {
            Sessions::Workers(s) => s.close(params),
            Sessions::InProcess(s) => s.close(params),
        }
    }

    /// Closes every session (shutdown).
    pub fn close_all(&self) {
        match self {
            Sessions::Workers(s) => s.close_all(),
            Sessions::InProcess(s) => s.close_all(),
        }
    }
}
