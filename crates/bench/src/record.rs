//! What is recorded of a task: one JSON line, written as the task finishes, so an interrupted run resumes where it
//! stopped and shards merge.

use std::io::{BufRead, BufReader};
use std::path::Path;

use lacuna_hole::TurnTimings;
use serde::{Deserialize, Serialize};

use crate::BenchError;

/// One task's run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub suite: String,
    pub task: String,
    /// `oracle`, or the model spec.
    pub agent: String,
    pub solved: bool,
    /// τ²'s reward on the `DB` basis: 1 when the database equals the one the expected actions leave.
    pub reward: f64,
    /// User messages the agent answered (each a session turn).
    pub turns: u32,
    /// Turns whose code was accepted (at some attempt) and ran.
    pub turns_compiled: u32,
    /// Snippets generated, accepted or not.
    pub generations: u32,
    /// Generations the checker rejected (their diagnostics went back for another attempt).
    pub rejected: u32,
    /// Each rejected generation: the turn (from 1) and its diagnostics' kinds (`E0308`, `unresolved-name`, ...).
    pub rejections: Vec<Rejection>,
    /// Turns that were accepted but faulted when run (a panic, a budget), with the error.
    pub faults: Vec<String>,
    /// Calls the agent made to the store's tools.
    pub tool_calls: u64,
    /// Tokens the providers reported (the agent's model and the user model), when they do.
    pub tokens: Option<u64>,
    /// Where the time went, summed over the task's turns, and the task's wall time.
    pub time_ms: TaskTimings,
    /// Records of the database that differ from the expected ones (why it is not solved).
    pub diff: Vec<String>,
    /// The task's assertions on the final state, in order, as they came out.
    #[serde(default)]
    pub assertions: Vec<bool>,
    /// The expected actions no call of the conversation matched (τ²'s `ACTION` basis), by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions_missing: Vec<String>,
    /// What the task wanted the customer told that no reply said (τ²'s `COMMUNICATE` basis).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_communicated: Vec<String>,
    /// The task's `NL_ASSERTION`s as the judge graded them; left out when the task has none or no judge ran (then
    /// `nl_unjudged` says the basis went unscored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nl_assertions: Option<Vec<crate::tau2::judge::NlCheck>>,
    /// The task is scored on `NL_ASSERTION` but no `--judge-model` graded it: solved on its other bases alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nl_unjudged: bool,
    /// What stopped the task, when something did (the task is then unsolved).
    pub error: Option<String>,
    /// A retrieval query's part (BrowseComp-Plus): its answer, the judge's grade, evidence recall, searches. In
    /// such a record `turns` counts rounds (hole calls, nested ones included), `tool_calls` the searches and
    /// documents read, and a rejection's `turn` is its round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieval: Option<RetrievalRecord>,
}

/// What Table 1 counts of one query, besides the generations every record counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RetrievalRecord {
    /// The hole's response (`None` when the hole gave an error instead: `hole_error`).
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole_error: Option<String>,
    /// Whether the answer is correct, as the judge graded it; `None` when no `--judge-model` graded it (an answer
    /// that never came is `Some(false)`).
    pub correct: Option<bool>,
    /// The judge's grade, when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<crate::browsecomp::judge::Grade>,
    /// The share of the query's evidence documents among those retrieved.
    pub evidence_recall: f64,
    /// The query's evidence documents.
    pub evidence: u32,
    pub searches: u32,
    /// `get_document` calls.
    pub documents_read: u32,
    /// Every document id the tools handed the agent (search hits, documents read), first seen first.
    pub retrieved: Vec<String>,
}

/// Milliseconds a task spent, by part, over all its turns (`compile` is building the turns' hosts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskTimings {
    pub model: f64,
    pub check: f64,
    pub compile: f64,
    pub run: f64,
    pub wall: f64,
}

impl TaskTimings {
    /// Adds a turn's parts (the worker's `session.turn` answer's `timings_ms`).
    pub fn add_turn(&mut self, turn: &TurnTimings) {
        self.model += turn.model;
        self.check += turn.check;
        self.compile += turn.host_compile;
        self.run += turn.run;
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejection {
    pub turn: u32,
    pub kinds: Vec<String>,
}

/// Every record in JSONL files, in order; a line that does not parse is an error naming its file and line (a
/// line cut short by an interrupted run, the last one, is skipped).
pub fn read_records(path: &Path) -> Result<Vec<TaskRecord>, BenchError> {
    let file =
        std::fs::File::open(path).map_err(|source| BenchError::Io { path: path.display().to_string(), source })?;
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|source| BenchError::Io { path: path.display().to_string(), source })?;
    let mut records = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<TaskRecord>(line) {
            Ok(record) => records.push(record),
            Err(_) if n + 1 == lines.len() && !line.ends_with('}') => {}
            Err(e) => {
                return Err(BenchError::Parse {
                    path: format!("{}:{}", path.display(), n + 1),
                    what: "task record",
                    detail: e.to_string(),
                })
            }
        }
    }
    Ok(records)
}
