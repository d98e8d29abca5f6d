//! The service's methods and their parameters: the contract drivers rely on (names and fields are kept; new
//! ones are added).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use crate::protocol::{ErrorCode, RpcError};

/// Every method the service answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Check a snippet against a hole: the object `lacuna check --json` prints.
    Check,
    /// Run a host with given snippets (or a model): its stdout, exit status and per-site report.
    Run,
    /// Whether the service is up, and how busy.
    Health,
    /// Answer, then stop taking requests and exit once the ones in flight are answered.
    Shutdown,
    /// A notification: stop working on the request with this id and answer it as cancelled.
    CancelRequest,
    /// Open a session (empty, or with a host program's items in scope).
    SessionOpen,
    /// One turn of a session: a snippet whose `let`s, fns, types and impls stay in scope for later turns.
    SessionTurn,
    /// The locals and items in scope in a session.
    SessionState,
    /// Close a session, dropping its values.
    SessionClose,
    /// Write a session's transcript, for `session.open {"replay": PATH}`.
    SessionSave,
}

impl Method {
    pub const ALL: [Method; 10] = [
        Method::Check,
        Method::Run,
        Method::Health,
        Method::Shutdown,
        Method::CancelRequest,
        Method::SessionOpen,
        Method::SessionTurn,
        Method::SessionState,
        Method::SessionClose,
        Method::SessionSave,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Check => "check",
            Method::Run => "run",
            Method::Health => "health",
            Method::Shutdown => "shutdown",
            Method::CancelRequest => "$/cancelRequest",
            Method::SessionOpen => "session.open",
            Method::SessionTurn => "session.turn",
            Method::SessionState => "session.state",
            Method::SessionClose => "session.close",
            Method::SessionSave => "session.save",
        }
    }

    pub fn from_name(name: &str) -> Result<Method, RpcError> {
        Method::ALL.into_iter().find(|m| m.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
            ErrorCode::MethodNotFound.with(format!("no method `{name}`; the service has: {}", known.join(", ")))
        })
    }
}

/// `check`: a host by path or by text, the hole (from 1; may be left out when the host has one), the snippet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckParams {
    pub host: Option<PathBuf>,
    pub host_text: Option<String>,
    pub hole: Option<u32>,
    pub snippet: String,
}

/// `run`: a host file, and either snippets per hole (`{"1": TEXT}`) or a model spec (`openai:<model>`, ...).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    pub host: PathBuf,
    #[serde(default)]
    pub snippets: BTreeMap<String, String>,
    pub model: Option<String>,
    /// `auto` (default), `jit` or `rustc`.
    pub path: Option<String>,
}

/// `$/cancelRequest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelParams {
    pub id: crate::protocol::Id,
}

/// Parameters of `method`, or an `InvalidParams` error that says what was expected.
pub fn params<T: serde::de::DeserializeOwned>(method: Method, params: serde_json::Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| {
        let shape = match method {
            Method::Check => r#"{"host": PATH | "host_text": TEXT, "hole": N?, "snippet": TEXT}"#,
            Method::Run => r#"{"host": PATH, "snippets": {"1": TEXT, ...}} or {"host": PATH, "model": SPEC}"#,
            Method::Health | Method::Shutdown => "{}",
            Method::CancelRequest => r#"{"id": ID}"#,
            Method::SessionOpen => r#"{"host": PATH?, "replay": PATH?}"#,
            Method::SessionSave => r#"{"session": ID, "path": PATH}"#,
            Method::SessionTurn => {
                r#"{"session": ID, "snippet": TEXT} or {"session": ID, "task": TEXT, "model": SPEC?}"#
            }
            Method::SessionState | Method::SessionClose => r#"{"session": ID}"#,
        };
        ErrorCode::InvalidParams.with(format!("{e}; `{}` takes {shape}", method.name()))
    })
}
