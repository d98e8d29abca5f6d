//! τ²-bench domains: the tasks (`tasks.json`), the tools each domain's host ports (a closed vocabulary, so a
//! task naming a tool the host lacks is an error, not a silent skip), the Rust a task's expected actions are, the
//! scripted user, and the oracle agent.

pub mod code;
pub mod tools;
pub mod user;

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::BenchError;

/// The τ² domains Lacuna has a host for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Retail,
}

impl Domain {
    pub const ALL: [Domain; 1] = [Domain::Retail];

    pub fn from_name(name: &str) -> Option<Domain> {
        Domain::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
        }
    }

    /// The session local holding the domain's store, which the agent's code calls the tools on.
    pub fn local(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
        }
    }

    /// The host's store type (`Store::load(path)`, `store.verdict(&expected)`).
    pub fn store_type(self) -> &'static str {
        match self {
            Domain::Retail => "Retail",
        }
    }

    /// What the agent is told about the store, before the customer's message.
    pub fn role(self) -> &'static str {
        match self {
            Domain::Retail => {
                "You are a customer service agent of an online retail store, talking with a customer. `retail` (a \
                 `Retail`) is the store: its methods are your tools (look users, orders and products up; cancel \
                 or modify pending orders; return or exchange delivered ones; change a user's address; transfer \
                 to a human). Authenticate the customer (by email, or name and zip) before acting on their \
                 account, act only on what they asked for, and do not make up ids."
            }
        }
    }
}

/// One expected tool call.
#[derive(Debug, Clone, Deserialize)]
pub struct Action {
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// A τ² task, as far as the harness needs it.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    /// The calls that solve it, in order (some are meant to fail).
    pub actions: Vec<Action>,
    /// What the simulated user knows and wants, as τ² words it.
    pub instructions: Instructions,
    /// How τ² scores it (`DB`, `NL_ASSERTION`, ...); the harness scores the `DB` part.
    pub reward_basis: Vec<String>,
}

/// The user's side of a task.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Instructions {
    #[serde(default)]
    pub reason_for_call: Option<String>,
    #[serde(default)]
    pub known_info: Option<String>,
    #[serde(default)]
    pub unknown_info: Option<String>,
    #[serde(default)]
    pub task_instructions: Option<String>,
}

#[derive(Deserialize)]
struct RawTask {
    id: String,
    #[serde(default)]
    evaluation_criteria: Option<RawCriteria>,
    user_scenario: RawScenario,
}

#[derive(Deserialize)]
struct RawCriteria {
    #[serde(default)]
    actions: Option<Vec<Action>>,
    #[serde(default)]
    reward_basis: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct RawScenario {
    instructions: Value,
}

/// Reads a domain's `tasks.json`.
pub fn load_tasks(path: &Path) -> Result<Vec<Task>, BenchError> {
    let text = crate::read(path)?;
    let parse =
        |detail: String| BenchError::Parse { path: path.display().to_string(), what: "τ² tasks file", detail };
    let raw: Vec<RawTask> = serde_json::from_str(&text).map_err(|e| parse(e.to_string()))?;
    raw.into_iter()
        .map(|t| {
            let instructions = match t.user_scenario.instructions {
                Value::String(text) => Instructions { reason_for_call: Some(text), ..Instructions::default() },
                other => serde_json::from_value(other).map_err(|e| parse(format!("task {}: {e}", t.id)))?,
            };
            let criteria = t.evaluation_criteria.unwrap_or(RawCriteria { actions: None, reward_basis: None });
            Ok(Task {
                id: t.id,
                actions: criteria.actions.unwrap_or_default(),
                instructions,
                reward_basis: criteria.reward_basis.unwrap_or_else(|| vec!["DB".to_owned()]),
            })
        })
        .collect()
}
