//! Running a suite: the tasks of a shard, less those already recorded, on `-j` workers; each task a session of
//! turns; one record per task, handed back as it finishes.

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

use lacuna_hole::TurnTimings;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::record::{Rejection, TaskRecord};
use crate::tau2::judge::{self, Judge};
use crate::tau2::user::{User, UserSpec};
use crate::tau2::{self, code, Task};
use crate::worker::Worker;
use crate::{BenchError, Suite};

/// Who writes the agent's turns.
#[derive(Debug, Clone)]
pub enum Agent {
    /// The built-in scripted agent: each task's expected actions, exactly, through the host's tools.
    Oracle,
    /// A model, as the worker names it (`openai:<m>`, `anthropic:<m>`, `script:<file>`, `replay:<cassette>`).
    Model(String),
}

impl Agent {
    pub fn describe(&self) -> String {
        match self {
            Agent::Oracle => "oracle".into(),
            Agent::Model(spec) => spec.clone(),
        }
    }
}

/// One slice of a suite: task `k` (from 0) is in shard `index` of `count` when `k % count == index - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard: write I/N with 1 <= I <= N, e.g. 2/8");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The `lacuna` binary the workers run (`serve --stdio`).
    pub program: PathBuf,
    /// More arguments for each worker (`--model`, `--record`, `--config`, policy flags).
    pub worker_args: Vec<String>,
    pub agent: Agent,
    /// Who plays the user.
    pub user: UserSpec,
    /// Who grades `NL_ASSERTION`s (none: that basis is not scored, and records say so).
    pub judge: Option<Judge>,
    /// Workers, each running one task at a time.
    pub jobs: usize,
    pub shard: Option<Shard>,
    /// Only these task ids (all when empty).
    pub only: Vec<String>,
    /// Task ids already recorded, skipped (`--resume`).
    pub done: BTreeSet<String>,
}

/// The tasks a run takes, in suite order (`id` names a task: a τ² task's id, a query's id).
pub fn select<T>(tasks: Vec<T>, id: impl Fn(&T) -> &str, options: &RunOptions) -> Result<Vec<T>, BenchError> {
    if let Some(missing) = options.only.iter().find(|wanted| !tasks.iter().any(|t| id(t) == wanted.as_str())) {
        return Err(BenchError::Usage(format!("the suite has no task `{missing}`")));
    }
    Ok(tasks
        .into_iter()
        .enumerate()
        .filter(|(k, _)| options.shard.is_none_or(|s| k % s.count == s.index - 1))
        .map(|(_, t)| t)
        .filter(|t| options.only.is_empty() || options.only.iter().any(|o| o == id(t)))
        .filter(|t| !options.done.contains(id(t)))
        .collect())
}

/// Where a run keeps its files: a single-file host with its support files appended (a project host is used where
/// it is), and the databases of tasks that start from initial data.
pub struct Workspace {
    dir: tempfile::TempDir,
    host: PathBuf,
}

impl Workspace {
    pub fn new(suite: &Suite) -> Result<Workspace, BenchError> {
        let io = |source| BenchError::Io { path: "a temporary directory".into(), source };
        let dir = tempfile::Builder::new().prefix("lacuna-bench-").tempdir().map_err(io)?;
        if suite.is_project() {
            return Ok(Workspace { dir, host: suite.host.clone() });
        }
        let host = dir.path().join(suite.host.file_name().unwrap_or("host.rs".as_ref()));
        std::fs::write(&host, suite.host_text()?).map_err(io)?;
        Ok(Workspace { dir, host })
    }

    /// The database a task starts from: the suite's, or a copy with the task's initial data merged in.
    pub fn db_for(&self, suite: &Suite, task: &Task) -> Result<PathBuf, BenchError> {
        let Some(data) = &task.initial_data else { return Ok(suite.db()) };
        if suite.user_db().is_some() {
            return Err(BenchError::Suite(format!(
                "task {}: initial data for {}'s databases is not ported (no task of its benchmark split has any)",
                task.id,
                suite.domain.name()
            )));
        }
        let parse =
            |detail: String| BenchError::Parse { path: suite.db().display().to_string(), what: "database", detail };
        let mut db: Value = serde_json::from_str(&crate::read(&suite.db())?).map_err(|e| parse(e.to_string()))?;
        crate::tau2::merge(&mut db, data);
        let safe: String = task.id.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let path = self.dir.path().join(format!("db-{safe}.json"));
        std::fs::write(&path, db.to_string())
            .map_err(|source| BenchError::Io { path: path.display().to_string(), source })?;
        Ok(path)
    }
}

/// Runs `tasks` on `options.jobs` workers; `on_record` sees each record as its task finishes (in the calling
/// thread). Returns the records in the order they finished.
pub fn run(
    suite: &Suite,
    tasks: Vec<Task>,
    options: &RunOptions,
    on_record: impl FnMut(&TaskRecord) -> Result<(), BenchError>,
) -> Result<Vec<TaskRecord>, BenchError> {
    let workspace = Workspace::new(suite)?;
    let workspace = &workspace;
    let run_one = |worker: &mut Option<Worker>, task: Task| match worker_for(worker, options) {
        Ok(w) => match run_task(w, workspace, suite, &task, &options.agent, &options.user, options.judge.as_ref()) {
            Ok(record) => record,
            Err(e) => {
                // The worker is gone: this task failed; the next one gets a new worker.
                *worker = None;
                failed(suite, &task, &options.agent, e.to_string())
            }
        },
        Err(e) => failed(suite, &task, &options.agent, e.to_string()),
    };
    pool(tasks, options.jobs, || None, run_one, on_record)
}

/// Runs `work` over `items` on `jobs` threads, each with state of its own (`fresh()`, e.g. its worker process);
/// `on_record` sees each record in the calling thread as it comes. When `on_record` fails, no more items are
/// handed out (the threads finish the ones they have) and its error is returned. The records in the order they
/// finished.
pub(crate) fn pool<T: Send, S>(
    items: Vec<T>,
    jobs: usize,
    fresh: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, T) -> TaskRecord + Sync,
    mut on_record: impl FnMut(&TaskRecord) -> Result<(), BenchError>,
) -> Result<Vec<TaskRecord>, BenchError> {
    let queue = Mutex::new(items.into_iter().collect::<VecDeque<T>>());
    let (send, receive) = mpsc::channel::<TaskRecord>();
    let mut records = Vec::new();
    std::thread::scope(|scope| -> Result<(), BenchError> {
        for _ in 0..jobs.max(1) {
            let (queue, send, fresh, work) = (&queue, send.clone(), &fresh, &work);
            scope.spawn(move || {
                let mut state = fresh();
                loop {
                    let Some(item) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else { break };
                    if send.send(work(&mut state, item)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        for record in receive {
            let result = on_record(&record);
            records.push(record);
            if let Err(e) = result {
                queue.lock().unwrap_or_else(|e| e.into_inner()).clear();
                return Err(e);
            }
        }
        Ok(())
    })?;
    Ok(records)
}

fn worker_for<'w>(worker: &'w mut Option<Worker>, options: &RunOptions) -> Result<&'w mut Worker, BenchError> {
    if worker.is_none() {
        *worker = Some(Worker::start(&options.program, &options.worker_args)?);
    }
    Ok(worker.as_mut().expect("just started"))
}

fn failed(suite: &Suite, task: &Task, agent: &Agent, error: String) -> TaskRecord {
    TaskRecord {
        suite: suite.name.clone(),
        task: task.id.clone(),
        agent: agent.describe(),
        error: Some(error),
        ..TaskRecord::default()
    }
}

/// What the agent is asked to do for one customer message, after the conversation so far.
pub fn turn_task(suite: &Suite, earlier: &[(String, String)], message: &str) -> String {
    let mut conversation = String::new();
    for (said, replied) in earlier {
        conversation.push_str(&format!("Customer: {said}\nYou: {replied}\n"));
    }
    if !conversation.is_empty() {
        conversation = format!("\n\nThe conversation so far:\n{conversation}");
    }
    // The domain's policy is the agent's instructions, as τ²'s reference agent gets it in its system prompt.
    let policy = match &suite.policy {
        Some(policy) => format!("\n\nFollow this policy:\n<policy>\n{}\n</policy>", policy.trim()),
        None => String::new(),
    };
    format!(
        "{}{policy}{conversation}\n\nThe customer says: {message}\n\nWrite this turn's code: call the tools on `{}` \
         as needed (what earlier turns computed is still in scope). Its value is your reply to the customer, a \
         `String`.",
        suite.domain.role(),
        suite.domain.local()
    )
}

/// One task as a session in `worker`. `Err` only when the worker itself failed; a task that went wrong is a
/// record with its `error`.
pub fn run_task(
    worker: &mut Worker,
    workspace: &Workspace,
    suite: &Suite,
    task: &Task,
    agent: &Agent,
    user: &UserSpec,
    judge: Option<&Judge>,
) -> Result<TaskRecord, BenchError> {
    let started = Instant::now();
    let mut record = TaskRecord {
        suite: suite.name.clone(),
        task: task.id.clone(),
        agent: agent.describe(),
        ..TaskRecord::default()
    };
    if let Some(why) = &task.unsupported {
        record.error = Some(format!("not run: {why}"));
        return Ok(record);
    }
    let db = match workspace.db_for(suite, task) {
        Ok(db) => db,
        Err(e) => {
            record.error = Some(e.to_string());
            return Ok(record);
        }
    };
    let session = match worker.call("session.open", json!({"host": workspace.host}))? {
        Ok(result) => result.get("session").cloned().unwrap_or(Value::Null),
        Err(e) => {
            record.error = Some(format!("session.open: {e}"));
            return Ok(record);
        }
    };
    let mut user = User::new(user, task, suite.domain);
    let mut conversation = Vec::new();
    let result = converse(worker, suite, task, agent, &mut user, &session, &db, &mut record, &mut conversation);
    if let Some(n) = user.tokens() {
        *record.tokens.get_or_insert(0) += n;
    }
    let _ = worker.call("session.close", json!({"session": session}))?;
    if let Err(error) = result? {
        record.error = Some(error);
    }
    let scored = |basis: &str| task.reward_basis.iter().any(|b| b == basis);
    if record.error.is_none() && scored("NL_ASSERTION") && !task.nl_assertions.is_empty() {
        match judge {
            Some(judge) => match judge::grade(judge, &task.nl_assertions, &conversation) {
                Ok((checks, tokens)) => {
                    record.nl_assertions = Some(checks);
                    if let Some(n) = tokens {
                        *record.tokens.get_or_insert(0) += n;
                    }
                }
                Err(e) => record.error = Some(e),
            },
            None => record.nl_unjudged = true,
        }
    }
    record.solved = record.error.is_none()
        && (!scored("DB") || record.diff.is_empty())
        && (!scored("ENV_ASSERTION") || record.assertions.iter().all(|a| *a))
        && (!scored("COMMUNICATE") || record.not_communicated.is_empty())
        && (!scored("ACTION") || record.actions_missing.is_empty())
        && record.nl_assertions.iter().flatten().all(|check| check.met);
    record.reward = if record.solved { 1.0 } else { 0.0 };
    record.time_ms.wall = started.elapsed().as_secs_f64() * 1000.0;
    Ok(record)
}

/// The task's turns: the store loaded, the agent's turns, the verdict. The inner `Err` is why the task stopped.
#[allow(clippy::too_many_arguments)]
fn converse(
    worker: &mut Worker,
    suite: &Suite,
    task: &Task,
    agent: &Agent,
    user: &mut User,
    session: &Value,
    db: &Path,
    record: &mut TaskRecord,
    earlier: &mut Vec<(String, String)>,
) -> Result<Result<(), String>, BenchError> {
    let two_sided = suite.domain.two_sided();
    let user_db = suite.user_db();
    let setup = code::setup_turn(suite.domain, task, db, user_db.as_deref());
    if let Err(why) = harness_turn(worker, session, setup, record)? {
        return Ok(Err(format!("loading the store: {why}")));
    }
    // A two-sided task's scripted user performs their runs of the expected actions on the phone, one after each
    // agent turn; a user model uses the phone's tools when it likes (`TOOL name {..}` replies).
    let segments = crate::tau2::segments(&task.actions);
    let scripted = matches!(user, User::Scripted { .. });
    let mut reply: Option<String> = None;
    for k in 0..suite.max_turns as usize {
        let next = match (two_sided, scripted, k) {
            (true, true, k) if k > 0 && k < segments.len() => Ok(Some("I did that on my phone. What next?".to_owned())),
            (true, true, k) if k > 0 => Ok(None),
            (true, false, _) => match users_phone_turns(worker, suite, session, user, reply.as_deref(), record)? {
                Ok(said) => Ok(said),
                Err(why) => return Ok(Err(why)),
            },
            _ => user.next(reply.as_deref()),
        };
        let message = match next {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(e) => return Ok(Err(e)),
        };
        let mut params = match agent {
            Agent::Oracle if two_sided => match code::oracle_segment(suite.domain, task, k) {
                Ok(snippet) => json!({"snippet": snippet}),
                Err(e) => return Ok(Err(e.to_string())),
            },
            Agent::Oracle if k == 0 => match code::oracle_turn(suite.domain, task) {
                Ok(snippet) => json!({"snippet": snippet}),
                Err(e) => return Ok(Err(e.to_string())),
            },
            // Everything was done in the first turn; the oracle only answers.
            Agent::Oracle => json!({"snippet": "\"Is there anything else I can help you with?\".to_string()"}),
            Agent::Model(spec) => json!({"task": turn_task(suite, earlier, &message), "model": spec}),
        };
        if two_sided {
            // The agent reaches the carrier's tools, never the customer's phone.
            params["hidden"] = json!([code::PHONE]);
        }
        record.turns += 1;
        let outcome = match turn(worker, session, params, record)? {
            Ok(outcome) => outcome,
            Err(e) => return Ok(Err(format!("turn {}: {e}", k + 1))),
        };
        let attempts = outcome.get("attempts").and_then(Value::as_u64).unwrap_or(1) as u32;
        record.generations += attempts;
        let accepted = outcome.get("accepted").and_then(Value::as_bool).unwrap_or(false);
        let error = outcome.get("error").and_then(Value::as_str);
        let rejections: Vec<Vec<String>> =
            serde_json::from_value(outcome.get("rejections").cloned().unwrap_or(Value::Null)).unwrap_or_default();
        record.rejected += rejections.len() as u32;
        record.rejections.extend(rejections.into_iter().map(|kinds| Rejection { turn: k as u32 + 1, kinds }));
        match (accepted, error) {
            (true, None) => record.turns_compiled += 1,
            (true, Some(fault)) => record.faults.push(format!("turn {}: {fault}", k + 1)),
            // No snippet at all (the model unreachable, a cassette without this request): the run, not the
            // agent, failed.
            (false, Some(error)) if attempts == 0 => return Ok(Err(format!("turn {}: {error}", k + 1))),
            (false, _) => {}
        }
        let said = match (accepted && error.is_none(), outcome.get("value").and_then(Value::as_str)) {
            // The value is `Debug` text: a `String` reads back as JSON; anything else is shown as it is.
            (true, Some(value)) => serde_json::from_str::<String>(value).unwrap_or_else(|_| value.to_owned()),
            (true, None) => "(no reply)".to_owned(),
            (false, _) => "Sorry, something went wrong on my side.".to_owned(),
        };
        earlier.push((message, said.clone()));
        reply = Some(said);
        if two_sided {
            // What the agent's turn changed reaches the phone; then the scripted user does their next run on it.
            let user_actions = match scripted {
                true => segments.get(k).map(|(_, user)| user.as_slice()).unwrap_or_default(),
                false => &[],
            };
            let acts = code::two_sided_calls(suite.domain, user_actions)
                .map(|calls| code::sync_turn(suite.domain) + "\n" + &calls);
            if let Err(why) = harness_turn(worker, session, acts, record)? {
                return Ok(Err(format!("the user's turn on their phone: {why}")));
            }
        }
    }
    let replies: Vec<String> = earlier.iter().map(|(_, said)| said.clone()).collect();
    record.not_communicated = task
        .communicate_info
        .iter()
        .filter(|info| !tau2::communicated(std::slice::from_ref(info), &replies))
        .cloned()
        .collect();
    let outcome = match harness_turn(worker, session, code::reward_turn(suite.domain, task, db), record)? {
        Ok(outcome) => outcome,
        Err(why) => {
            return Ok(Err(format!("the verdict could not be read (did the agent drop or redefine the store?): {why}")))
        }
    };
    let value = outcome.get("value").and_then(Value::as_str).unwrap_or("");
    match code::parse_verdict(value) {
        Ok(verdict) => {
            // The setup turn's initial calls are the scene, not the agent's (a two-sided domain's scene-setting
            // functions are not tools, and not counted).
            let scene = if suite.domain.two_sided() { 0 } else { task.initial_calls.len() };
            record.tool_calls = verdict.tool_calls.saturating_sub(scene as u64);
            record.diff = verdict.diff;
            record.assertions = verdict.assertions;
            // The conversation's calls (an earlier conversation's count, as in τ²'s trajectory; the scene's do not).
            let scene = if suite.domain.two_sided() { 0 } else { task.initialization_calls };
            let trace = verdict.trace.get(scene..).unwrap_or_default();
            record.actions_missing =
                tau2::missing_actions(&task.actions, trace).into_iter().map(|a| a.name.clone()).collect();
            Ok(Ok(()))
        }
        Err(e) => Ok(Err(e)),
    }
}

/// Most phone tool calls a user model may make before it says something to the agent.
const PHONE_CALLS_PER_MESSAGE: usize = 12;

/// A user model's next message to the agent, after the phone tool calls it makes first: each `TOOL name {..}`
/// reply runs as a harness turn on the phone (a tool of the phone's only; then the sync), and what the phone shows
/// goes back to the model. The outer `Err` is the worker's; the inner one why the conversation stopped.
fn users_phone_turns(
    worker: &mut Worker,
    suite: &Suite,
    session: &Value,
    user: &mut User,
    agent_reply: Option<&str>,
    record: &mut TaskRecord,
) -> Result<Result<Option<String>, String>, BenchError> {
    let mut said = user.next(agent_reply);
    for _ in 0..PHONE_CALLS_PER_MESSAGE {
        let text = match &said {
            Ok(Some(text)) => text.clone(),
            _ => return Ok(said),
        };
        let Some(asked) = crate::tau2::user::tool_call(&text) else { return Ok(said) };
        let shown = match asked {
            Err(why) => why,
            Ok((name, arguments)) => match code::phone_tool_turn(suite.domain, &name, arguments) {
                Err(why) => why.to_string(),
                Ok(snippet) => match harness_turn(worker, session, Ok(snippet), record)? {
                    Ok(outcome) => {
                        let value = outcome.get("value").and_then(Value::as_str).unwrap_or("");
                        serde_json::from_str::<String>(value).unwrap_or_else(|_| value.to_owned())
                    }
                    Err(why) => format!("the phone could not do that: {why}"),
                },
            },
        };
        said = user.next(Some(&format!("[your phone] {shown}")));
    }
    Ok(Err(format!(
        "the user model made more than {PHONE_CALLS_PER_MESSAGE} phone tool calls without a word to the agent"
    )))
}

/// One `session.turn`; its timings are added to the record's.
fn turn(
    worker: &mut Worker,
    session: &Value,
    mut params: Value,
    record: &mut TaskRecord,
) -> Result<Result<Value, String>, BenchError> {
    params["session"] = session.clone();
    let outcome = worker.call("session.turn", params)?;
    if let Ok(outcome) = &outcome {
        if let Some(n) = outcome.get("tokens").and_then(Value::as_u64) {
            *record.tokens.get_or_insert(0) += n;
        }
        if let Some(Ok(timings)) = outcome.get("timings_ms").map(TurnTimings::deserialize) {
            record.time_ms.add_turn(&timings);
        }
    }
    Ok(outcome)
}

/// A turn the harness writes (not the agent): its outcome, or why it did not run cleanly.
fn harness_turn(
    worker: &mut Worker,
    session: &Value,
    snippet: Result<String, BenchError>,
    record: &mut TaskRecord,
) -> Result<Result<Value, String>, BenchError> {
    let snippet = match snippet {
        Ok(snippet) => snippet,
        Err(e) => return Ok(Err(e.to_string())),
    };
    Ok(match turn(worker, session, json!({"snippet": snippet}), record)? {
        Ok(outcome) => match unaccepted(&outcome) {
            Some(why) => Err(why),
            None => Ok(outcome),
        },
        Err(e) => Err(e),
    })
}

/// Why a harness turn did not run cleanly, if it did not.
fn unaccepted(outcome: &Value) -> Option<String> {
    let accepted = outcome.get("accepted").and_then(Value::as_bool).unwrap_or(false);
    match outcome.get("error").and_then(Value::as_str) {
        Some(error) => Some(error.to_owned()),
        None if !accepted => {
            let diagnostics: Vec<&str> = outcome
                .get("diagnostics")
                .and_then(Value::as_array)
                .map(|d| d.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Some(format!("rejected: {}", diagnostics.join("\n")))
        }
        None => None,
    }
}
