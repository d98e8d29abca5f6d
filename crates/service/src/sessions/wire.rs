//! What the service and a session worker say to each other: one JSON object per line, over the worker's stdin and
//! the descriptor its stdout was on when it started (a turn's own output goes elsewhere: it is captured).
//!
//! The service sends calls (one at a time), a cancel for the call in progress, and answers to the worker's asks;
//! the worker sends, while a call runs, asks (a turn written from a task needs its model, which lives in the
//! service) and attempt records, then the call's reply.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use lacuna_engine::{Attempt, AttemptRecord, HoleRequest, Proposal, TranscriptTurn};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::RpcError;

/// From the service to a worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "to_worker", rename_all = "snake_case")]
pub enum ToWorker {
    Call {
        id: u64,
        call: Call,
    },
    /// Stop call `id` where it is (the request that asked for it was cancelled).
    Cancel {
        id: u64,
    },
    /// The model's answer to the worker's ask `ask`.
    Answer {
        ask: u64,
        proposal: Result<Option<Proposal>, String>,
    },
}

/// What a worker does for its one session.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Call {
    /// Open the session on `host`, then run `turns` (a transcript: a `session.save` file's, or the service's copy
    /// when it restores a session whose worker died) before answering.
    Open {
        host: Option<PathBuf>,
        turns: Vec<TranscriptTurn>,
        from: String,
    },
    /// A turn: its code, or a task for the service's model (which may take `attempts` attempts).
    Turn {
        snippet: Option<String>,
        task: Option<String>,
        attempts: u32,
        retry_after_fault: bool,
        #[serde(default)]
        hidden: Vec<String>,
    },
    State,
    Save {
        path: PathBuf,
    },
    /// Close the session, and answer whether the worker may take another session on the same kind of host:
    /// `{"reusable": true}` when no turn of it faulted, was cancelled or failed.
    Close,
}

/// From a worker to the service.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "from_worker", rename_all = "snake_case")]
pub enum FromWorker {
    /// Call `id` is done; `kept` are the turns it added to the session's transcript.
    Reply { id: u64, result: Result<Value, RpcError>, kept: Vec<TranscriptTurn> },
    /// A turn's hole needs a snippet from the model.
    Ask { ask: u64, hole: HoleRequest, attempts: Vec<Attempt> },
    /// An attempt decided (and run), for the model's own records.
    Record { record: AttemptRecord },
}

/// Writes one message as a line.
pub fn send<W: Write, M: Serialize>(out: &mut W, message: &M) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Reads the next message; `Ok(None)` at the end of the input.
pub fn receive<R: BufRead, M: for<'de> Deserialize<'de>>(input: &mut R) -> std::io::Result<Option<M>> {
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    serde_json::from_str(&line).map(Some).map_err(std::io::Error::other)
}
