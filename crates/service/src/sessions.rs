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

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use lacuna_engine::{Engine, SnippetSource};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::RpcError;
pub use local::LocalSessions;
pub use workers::{WorkerCommand, WorkerSessions};

/// What the sessions on one host run on: an engine, and for a cargo project, its crate as one host text.
pub struct Hosting {
    pub engine: Engine,
    /// The project's crate (`lacuna_project::flatten`), which a session on the project opens with in scope.
    pub crate_text: Option<String>,
}

/// Makes the engine of the sessions on single-file hosts (`None`) or on the cargo project in a directory: the
/// project is built and its crate flattened here, once per process. The error is what to tell the client.
pub type EngineFactory = Arc<dyn Fn(Option<&Path>) -> Result<Hosting, String> + Send + Sync>;

/// The directory of the cargo project `host` names (the directory, or its `Cargo.toml`), canonical; `None` for a
/// single-file host.
pub fn project_dir(host: &Path) -> Option<PathBuf> {
    let dir = if host.file_name().is_some_and(|n| n == "Cargo.toml") && host.is_file() {
        host.parent()?.to_path_buf()
    } else if host.join("Cargo.toml").is_file() {
        host.to_path_buf()
    } else {
        return None;
    };
    Some(dir.canonicalize().unwrap_or(dir))
}

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
    /// Locals this turn may not reach (naming one is an unresolved name; declaring one is rejected), though they
    /// stay in the session for turns that may: a benchmark's user-side state kept from the agent's turns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
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
