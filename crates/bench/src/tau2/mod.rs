//! τ²-bench domains: the tasks (`tasks.json`), the tools each domain's host ports (a closed vocabulary, so a
//! task naming a tool the host lacks is an error, not a silent skip), the Rust a task's expected actions are, the
//! scripted user, and the oracle agent.

pub mod code;
pub mod judge;
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
    Airline,
    Telecom,
    Mock,
}

impl Domain {
    pub const ALL: [Domain; 4] = [Domain::Retail, Domain::Airline, Domain::Telecom, Domain::Mock];

    pub fn from_name(name: &str) -> Option<Domain> {
        Domain::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
            Domain::Airline => "airline",
            Domain::Telecom => "telecom",
            Domain::Mock => "mock",
        }
    }

    /// Whether the user acts on a world of their own (τ²'s dual control: telecom's phone). The user's side is the
    /// session local `phone`, which the agent's turns are denied.
    pub fn two_sided(self) -> bool {
        self == Domain::Telecom
    }

    /// The agent's database file in the domain's data directory, and the user's, if the user has one.
    pub fn db_files(self) -> (&'static str, Option<&'static str>) {
        match self {
            Domain::Telecom => ("db.toml", Some("user_db.toml")),
            Domain::Retail | Domain::Airline | Domain::Mock => ("db.json", None),
        }
    }

    /// The session local holding the domain's store, which the agent's code calls the tools on.
    pub fn local(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
            Domain::Airline => "airline",
            Domain::Telecom => "telecom",
            Domain::Mock => "tracker",
        }
    }

    /// The host's store type (`Store::load(path)`, `store.verdict(&expected)`).
    pub fn store_type(self) -> &'static str {
        match self {
            Domain::Retail => "Retail",
            Domain::Airline => "Airline",
            Domain::Telecom => "Telecom",
            Domain::Mock => "Mock",
        }
    }

    /// Tools some tasks' expected actions name that τ²'s toolkit for the domain no longer has (retail's
    /// `get_item_details`, in 3 of task 21's actions). τ²'s replay of such a call fails and changes nothing, and
    /// τ²'s agent cannot make it; the host lacks it too, and the harness leaves those actions out.
    pub fn retired_tools(self) -> &'static [&'static str] {
        match self {
            Domain::Retail => &["get_item_details"],
            Domain::Airline | Domain::Telecom | Domain::Mock => &[],
        }
    }

    /// What the agent is told about the store, before the domain's policy (its instructions) and the customer's
    /// message: where its tools are.
    pub fn role(self) -> &'static str {
        match self {
            Domain::Retail => {
                "You are a customer service agent of an online retail store, talking with a customer. `retail` (a \
                 `Retail`) is the store: its methods are your tools (look users, orders and products up; cancel \
                 or modify pending orders; return or exchange delivered ones; change a user's address; transfer \
                 to a human)."
            }
            Domain::Airline => {
                "You are a customer service agent of an airline, talking with a customer. `airline` (an \
                 `Airline`) is the reservation system: its methods are your tools (look users, reservations and \
                 flights up; search direct and one-stop flights; book, change and cancel reservations; change \
                 bags and passengers; send a certificate; transfer to a human). Bookings and changes take the \
                 host's types: `Cabin::Economy`, `FlightType::RoundTrip`, `Insurance::No`, \
                 `FlightInfo::new(\"HAT001\", \"2024-05-20\")`, `Passenger::new(first, last, dob)`, \
                 `Payment::new(\"credit_card_7815826\", 250)`."
            }
            Domain::Telecom => {
                "You are a customer service agent of a mobile carrier, talking with a customer. `telecom` (a \
                 `Telecom`) is the carrier's system: its methods are your tools (look customers, lines, bills and \
                 data usage up; suspend and resume lines; enable or disable roaming; refuel data; send a payment \
                 request; transfer to a human). The customer's phone is theirs: to check or change anything on it, \
                 ask the customer to do it and tell you what they see."
            }
            Domain::Mock => {
                "You are the assistant of a task tracker, talking with a user. `tracker` (a `Mock`) is the \
                 tracker: its methods are your tools (list users, create tasks, update a task's status, transfer to \
                 a human)."
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
    /// The arguments `ACTION` compares (all the call's when absent).
    #[serde(default)]
    pub compare_args: Option<Vec<String>>,
    /// Whose call it is: "assistant" (the default) or "user" (telecom's phone).
    #[serde(default)]
    pub requestor: Option<String>,
}

impl Action {
    /// Whether the user makes this call (on their phone).
    pub fn by_user(&self) -> bool {
        self.requestor.as_deref() == Some("user")
    }
}

/// A τ² task, as far as the harness needs it.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    /// The calls that solve it, in order (some are meant to fail).
    pub actions: Vec<Action>,
    /// What the simulated user knows and wants, as τ² words it.
    pub instructions: Instructions,
    /// How τ² scores it (`DB`, `ENV_ASSERTION`, `COMMUNICATE`, `NL_ASSERTION`, `ACTION`); the harness scores them
    /// all, `NL_ASSERTION` only with a judge model.
    pub reward_basis: Vec<String>,
    /// What the agent's replies must say, for `COMMUNICATE`: each found in some reply, as τ² looks (case
    /// ignored, commas dropped from the reply).
    pub communicate_info: Vec<String>,
    /// What a judge model must find true of the conversation, for `NL_ASSERTION`.
    pub nl_assertions: Vec<String>,
    /// Calls that set the scene before the conversation, on the agent's store and the expected one alike (τ²'s
    /// initialization actions, and the tool calls of an earlier conversation the task starts after).
    pub initial_calls: Vec<Action>,
    /// How many of `initial_calls` are initialization actions (the rest are the earlier conversation's, which
    /// τ²'s trajectory holds).
    pub initialization_calls: usize,
    /// Records merged into the database before anything runs (τ²'s initialization data for the agent's side).
    pub initial_data: Option<Value>,
    /// Checks on the final store (τ²'s environment assertions): a call on the store and the value it must give.
    pub assertions: Vec<(Action, bool)>,
    /// Why the harness cannot run it faithfully (it needs the user's own tools, say), if it cannot.
    pub unsupported: Option<String>,
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
    #[serde(default)]
    initial_state: Option<RawInitial>,
}

#[derive(Deserialize, Default)]
struct RawCriteria {
    #[serde(default)]
    actions: Option<Vec<Action>>,
    #[serde(default)]
    env_assertions: Option<Vec<RawCall>>,
    #[serde(default)]
    reward_basis: Option<Vec<String>>,
    #[serde(default)]
    communicate_info: Option<Vec<String>>,
    #[serde(default)]
    nl_assertions: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct RawScenario {
    instructions: Value,
}

#[derive(Deserialize, Default)]
struct RawInitial {
    #[serde(default)]
    initialization_data: Option<Value>,
    #[serde(default)]
    initialization_actions: Option<Vec<RawCall>>,
    #[serde(default)]
    message_history: Option<Vec<Value>>,
}

/// A call in τ²'s environment: on the agent's side (`assistant`) or the user's.
#[derive(Deserialize)]
struct RawCall {
    #[serde(default)]
    env_type: Option<String>,
    func_name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
    #[serde(default)]
    assert_value: Option<bool>,
}

/// Reads a domain's `tasks.json`. For a two-sided domain, the user's initialization calls and assertions are
/// kept (as calls the user makes); elsewhere a task that needs them is marked unsupported.
pub fn load_tasks(path: &Path, two_sided: bool) -> Result<Vec<Task>, BenchError> {
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
            let criteria = t.evaluation_criteria.unwrap_or_default();
            let initial = t.initial_state.unwrap_or_default();
            let mut unsupported = None;
            let mut user_side = |what: &str| {
                unsupported.get_or_insert_with(|| format!("it needs the user's own tools ({what}), not ported"));
            };
            let mut initial_calls = Vec::new();
            for call in initial.initialization_actions.unwrap_or_default() {
                let by_user = call.env_type.as_deref().unwrap_or("assistant") != "assistant";
                if by_user && !two_sided {
                    user_side(&call.func_name);
                    continue;
                }
                initial_calls.push(Action {
                    name: call.func_name,
                    arguments: call.arguments,
                    compare_args: None,
                    requestor: by_user.then(|| "user".to_owned()),
                });
            }
            let initialization_calls = initial_calls.len();
            // An earlier conversation's tool calls are replayed, as τ² replays them.
            for message in initial.message_history.unwrap_or_default() {
                let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
                for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    let action: Action = serde_json::from_value(call.clone())
                        .map_err(|e| parse(format!("task {}: a tool call in its history: {e}", t.id)))?;
                    if assistant {
                        initial_calls.push(action);
                    } else {
                        user_side(&action.name);
                    }
                }
            }
            let initial_data = match initial.initialization_data {
                Some(data) => {
                    if data.get("user_data").is_some_and(|d| !d.is_null()) {
                        user_side("initialization data for the user");
                    }
                    data.get("agent_data").cloned().filter(|d| !d.is_null())
                }
                None => None,
            };
            let mut assertions = Vec::new();
            for call in criteria.env_assertions.unwrap_or_default() {
                let by_user = call.env_type.as_deref().unwrap_or("assistant") != "assistant";
                if by_user && !two_sided {
                    user_side(&call.func_name);
                    continue;
                }
                assertions.push((
                    Action {
                        name: call.func_name,
                        arguments: call.arguments,
                        compare_args: None,
                        requestor: by_user.then(|| "user".to_owned()),
                    },
                    call.assert_value.unwrap_or(true),
                ));
            }
            Ok(Task {
                id: t.id,
                actions: criteria.actions.unwrap_or_default(),
                instructions,
                reward_basis: criteria.reward_basis.unwrap_or_else(|| vec!["DB".to_owned(), "COMMUNICATE".to_owned()]),
                communicate_info: criteria.communicate_info.unwrap_or_default(),
                nl_assertions: criteria.nl_assertions.unwrap_or_default(),
                initial_calls,
                initialization_calls,
                initial_data,
                assertions,
                unsupported,
            })
        })
        .collect()
}

/// A two-sided task's expected actions as alternating runs: the agent's actions up to the user's next ones, and
/// those user actions; the first run of agent actions may be empty (the user acts first).
pub fn segments(actions: &[Action]) -> Vec<(Vec<Action>, Vec<Action>)> {
    let mut out: Vec<(Vec<Action>, Vec<Action>)> = vec![(Vec::new(), Vec::new())];
    for action in actions {
        let last = out.last_mut().expect("one run at least");
        match (action.by_user(), last.1.is_empty()) {
            (true, _) => last.1.push(action.clone()),
            (false, true) => last.0.push(action.clone()),
            (false, false) => out.push((vec![action.clone()], Vec::new())),
        }
    }
    out
}

/// Whether every item of `info` is in one of the agent's `replies`, as τ²'s `COMMUNICATE` check finds it: case
/// ignored, and commas dropped from the reply (so "1,628" in a reply says "1628").
pub fn communicated(info: &[String], replies: &[String]) -> bool {
    let replies: Vec<String> = replies.iter().map(|r| r.to_lowercase().replace(',', "")).collect();
    info.iter().all(|item| {
        let item = item.to_lowercase();
        replies.iter().any(|reply| reply.contains(&item))
    })
}

/// The expected actions no call of `trace` matches, as τ²'s `ACTION` basis looks: a call matches when its name is
/// the action's and the arguments compared (the action's `compare_args`, else every argument the call names)
/// are equal, numbers compared as Python compares them (`2 == 2.0`).
pub fn missing_actions<'a>(expected: &'a [Action], trace: &[Value]) -> Vec<&'a Action> {
    let matches = |action: &Action, call: &Value| {
        if call.get("name").and_then(Value::as_str) != Some(action.name.as_str()) {
            return false;
        }
        let empty = Map::new();
        let arguments = call.get("arguments").and_then(Value::as_object).unwrap_or(&empty);
        let compared: Vec<&str> = match &action.compare_args {
            Some(names) => names.iter().map(String::as_str).collect(),
            None => arguments.keys().map(String::as_str).collect(),
        };
        compared.iter().all(|k| match (arguments.get(*k), action.arguments.get(*k)) {
            (Some(a), Some(b)) => python_eq(a, b),
            (None, None) => true,
            _ => false,
        })
    };
    expected.iter().filter(|action| !trace.iter().any(|call| matches(action, call))).collect()
}

/// JSON values equal as Python's `==` finds the values they were: an int equals the float of the same value.
fn python_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| python_eq(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| python_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `data` merged into `db`: objects key by key, recursively; anything else replaced.
pub fn merge(db: &mut Value, data: &Value) {
    match (db, data) {
        (Value::Object(db), Value::Object(data)) => {
            for (key, value) in data {
                match db.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        db.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (db, data) => *db = data.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn communicating_ignores_case_and_the_replys_commas() {
        let replies = vec!["Your refund of $1,628 is on its way.".to_owned(), "Anything ELSE?".to_owned()];
        assert!(communicated(&["1628".into(), "anything else".into()], &replies));
        assert!(!communicated(&["1,628".into()], &replies));
        assert!(!communicated(&["1629".into()], &replies));
        assert!(communicated(&[], &[]));
    }

    #[test]
    fn actions_are_found_in_the_trace_as_tau2_compares_them() {
        let expected: Vec<Action> = serde_json::from_value(serde_json::json!([
            {"name": "refuel_data", "arguments": {"customer_id": "C1", "line_id": "L1", "gb_amount": 2}},
            {"name": "toggle_roaming"},
            {"name": "transfer_to_human_agents", "arguments": {"summary": "x"}, "compare_args": []},
            {"name": "enable_roaming", "arguments": {"customer_id": "C1", "line_id": "L2"}, "compare_args": ["line_id"]}
        ]))
        .unwrap();
        let trace = vec![
            serde_json::json!({"name": "refuel_data", "arguments": {"customer_id": "C1", "line_id": "L1", "gb_amount": 2.0}}),
            serde_json::json!({"name": "transfer_to_human_agents", "arguments": {"summary": "anything"}}),
            serde_json::json!({"name": "enable_roaming", "arguments": {"customer_id": "C9", "line_id": "L2"}}),
        ];
        let missing: Vec<&str> = missing_actions(&expected, &trace).iter().map(|a| a.name.as_str()).collect();
        assert_eq!(missing, ["toggle_roaming"]);
        let wrong = vec![
            serde_json::json!({"name": "refuel_data", "arguments": {"customer_id": "C1", "line_id": "L1", "gb_amount": 3.0}}),
        ];
        assert_eq!(missing_actions(&expected[..1], &wrong).len(), 1);
    }

    #[test]
    fn merging_initial_data_keeps_what_it_does_not_name() {
        let mut db = serde_json::json!({"tasks": {"task_1": {"status": "pending"}}, "users": {"user_1": {"name": "A", "tasks": ["task_1"]}}});
        merge(
            &mut db,
            &serde_json::json!({"tasks": {"task_2": {"status": "pending"}}, "users": {"user_1": {"tasks": ["task_1", "task_2"]}}}),
        );
        assert_eq!(
            db,
            serde_json::json!({"tasks": {"task_1": {"status": "pending"}, "task_2": {"status": "pending"}}, "users": {"user_1": {"name": "A", "tasks": ["task_1", "task_2"]}}})
        );
    }
}
