//! A suite's data and its tools' signatures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::DojoError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SuiteName {
    Banking,
    Slack,
}

impl SuiteName {
    pub const ALL: [SuiteName; 2] = [SuiteName::Banking, SuiteName::Slack];

    pub fn name(self) -> &'static str {
        match self {
            SuiteName::Banking => "banking",
            SuiteName::Slack => "slack",
        }
    }

    pub fn from_name(name: &str) -> Option<SuiteName> {
        SuiteName::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The tools the suite's host hands out, in the order its every-tool hole lists them.
    pub fn tools(self) -> &'static [Tool] {
        match self {
            SuiteName::Banking => BANKING_TOOLS,
            SuiteName::Slack => SLACK_TOOLS,
        }
    }

    pub fn tool(self, name: &str) -> Option<&'static Tool> {
        self.tools().iter().find(|t| t.name == name)
    }

    /// AgentDojo's `utility` and `security` checks of the suite's tasks, ported (`hosts/<suite>_checks.rs`): the
    /// body of the host's `checks` module, inside the module that holds the environment.
    pub fn checks(self) -> &'static str {
        match self {
            SuiteName::Banking => include_str!("../hosts/banking_checks.rs"),
            SuiteName::Slack => include_str!("../hosts/slack_checks.rs"),
        }
    }

    /// The host template (`hosts/<suite>.rs`).
    pub fn template(self) -> &'static str {
        match self {
            SuiteName::Banking => include_str!("../hosts/banking.rs"),
            SuiteName::Slack => include_str!("../hosts/slack.rs"),
        }
    }
}

/// A parameter's Rust type, which also says how a ground-truth argument is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    Str,
    F64,
    U32,
    Usize,
    Bool,
    OptStr,
    OptF64,
    OptBool,
}

impl Param {
    pub fn rust(self) -> &'static str {
        match self {
            Param::Str => "&str",
            Param::F64 => "f64",
            Param::U32 => "u32",
            Param::Usize => "usize",
            Param::Bool => "bool",
            Param::OptStr => "Option<&str>",
            Param::OptF64 => "Option<f64>",
            Param::OptBool => "Option<bool>",
        }
    }
}

/// A tool as a host closure: `name(params) -> ret`. `default` is what an argument the ground truth leaves out
/// stands for (AgentDojo's Python defaults).
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub params: &'static [(&'static str, Param, Option<&'static str>)],
    pub ret: &'static str,
}

impl Tool {
    /// The type a task function's parameter for this tool has.
    pub fn closure_type(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|(_, p, _)| p.rust()).collect();
        format!("&dyn Fn({}) -> {}", params.join(", "), self.ret)
    }
}

use Param::{Bool, OptBool, OptF64, OptStr, Str, Usize, F64, U32};

const BANKING_TOOLS: &[Tool] = &[
    Tool { name: "get_iban", params: &[], ret: "String" },
    Tool { name: "get_balance", params: &[], ret: "f64" },
    Tool {
        name: "send_money",
        params: &[("recipient", Str, None), ("amount", F64, None), ("subject", Str, None), ("date", Str, None)],
        ret: "String",
    },
    Tool {
        name: "schedule_transaction",
        params: &[
            ("recipient", Str, None),
            ("amount", F64, None),
            ("subject", Str, None),
            ("date", Str, None),
            ("recurring", Bool, None),
        ],
        ret: "String",
    },
    Tool {
        name: "update_scheduled_transaction",
        params: &[
            ("id", U32, None),
            ("recipient", OptStr, Some("None")),
            ("amount", OptF64, Some("None")),
            ("subject", OptStr, Some("None")),
            ("date", OptStr, Some("None")),
            ("recurring", OptBool, Some("None")),
        ],
        ret: "Result<String, String>",
    },
    Tool { name: "get_most_recent_transactions", params: &[("n", Usize, Some("100"))], ret: "Vec<Transaction>" },
    Tool { name: "get_scheduled_transactions", params: &[], ret: "Vec<Transaction>" },
    Tool { name: "read_file", params: &[("file_path", Str, None)], ret: "String" },
    Tool { name: "get_user_info", params: &[], ret: "UserInfo" },
    Tool { name: "update_password", params: &[("password", Str, None)], ret: "String" },
    Tool {
        name: "update_user_info",
        params: &[
            ("first_name", OptStr, Some("None")),
            ("last_name", OptStr, Some("None")),
            ("street", OptStr, Some("None")),
            ("city", OptStr, Some("None")),
        ],
        ret: "UserInfo",
    },
];

const SLACK_TOOLS: &[Tool] = &[
    Tool { name: "get_channels", params: &[], ret: "Vec<String>" },
    Tool {
        name: "add_user_to_channel",
        params: &[("user", Str, None), ("channel", Str, None)],
        ret: "Result<(), String>",
    },
    Tool { name: "read_channel_messages", params: &[("channel", Str, None)], ret: "Result<Vec<Message>, String>" },
    Tool { name: "read_inbox", params: &[("user", Str, None)], ret: "Result<Vec<Message>, String>" },
    Tool {
        name: "send_direct_message",
        params: &[("recipient", Str, None), ("body", Str, None)],
        ret: "Result<(), String>",
    },
    Tool {
        name: "send_channel_message",
        params: &[("channel", Str, None), ("body", Str, None)],
        ret: "Result<(), String>",
    },
    Tool {
        name: "invite_user_to_slack",
        params: &[("user", Str, None), ("user_email", Str, None)],
        ret: "Result<(), String>",
    },
    Tool { name: "remove_user_from_slack", params: &[("user", Str, None)], ret: "Result<(), String>" },
    Tool { name: "get_users_in_channel", params: &[("channel", Str, None)], ret: "Result<Vec<String>, String>" },
    Tool { name: "get_webpage", params: &[("url", Str, None)], ret: "String" },
    Tool { name: "post_webpage", params: &[("url", Str, None), ("content", Str, None)], ret: "()" },
];

/// One tool call of a ground truth.
#[derive(Debug, Clone, Deserialize)]
pub struct Call {
    pub function: String,
    #[serde(default)]
    pub args: BTreeMap<String, serde_json::Value>,
}

/// A user task (`prompt`) or an injection task (`goal`) with its ground-truth calls.
#[derive(Debug, Clone, Deserialize)]
pub struct Task {
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub goal: Option<String>,
    #[serde(default)]
    pub ground_truth_output: String,
    pub calls: Vec<Call>,
}

#[derive(Debug, Deserialize)]
struct SuiteTruth {
    user_tasks: BTreeMap<String, Task>,
    injection_tasks: BTreeMap<String, Task>,
}

#[derive(Debug, Deserialize)]
struct Vector {
    #[serde(default)]
    default: Option<serde_yaml::Value>,
}

/// A suite as loaded: the environment's YAML text with its `{vector}` placeholders, the vectors' defaults, and the
/// tasks in AgentDojo's order (`user_task_0`, `user_task_1`, .., not lexical).
#[derive(Debug)]
pub struct SuiteData {
    pub name: SuiteName,
    pub environment: String,
    pub vectors: Vec<(String, String)>,
    pub user_tasks: Vec<(String, Task)>,
    pub injection_tasks: Vec<(String, Task)>,
}

fn read(path: &Path) -> Result<String, DojoError> {
    std::fs::read_to_string(path).map_err(|source| DojoError::Io { path: path.display().to_string(), source })
}

/// The suite directory: `<data>/<suite>` (the vendored layout) or `<data>/suites/<suite>` (AgentDojo's).
fn suite_dir(data: &Path, name: SuiteName) -> PathBuf {
    let vendored = data.join(name.name());
    if vendored.join("environment.yaml").is_file() {
        vendored
    } else {
        data.join("suites").join(name.name())
    }
}

fn by_number(tasks: BTreeMap<String, Task>) -> Vec<(String, Task)> {
    let mut tasks: Vec<(String, Task)> = tasks.into_iter().collect();
    let number = |id: &str| id.rsplit('_').next().and_then(|n| n.parse::<u32>().ok()).unwrap_or(u32::MAX);
    tasks.sort_by_key(|(id, _)| number(id));
    tasks
}

impl SuiteData {
    /// Loads `name` from `data` (a directory with `ground_truth_v1.2.2.json` and the suite's YAML files).
    pub fn load(data: &Path, name: SuiteName) -> Result<SuiteData, DojoError> {
        let dir = suite_dir(data, name);
        let env_path = dir.join("environment.yaml");
        let environment = read(&env_path)?;
        let vectors_path = dir.join("injection_vectors.yaml");
        let vectors: BTreeMap<String, Vector> = serde_yaml::from_str(&read(&vectors_path)?).map_err(|e| {
            DojoError::Parse { path: vectors_path.display().to_string(), format: "YAML", detail: e.to_string() }
        })?;
        let vectors = vectors
            .into_iter()
            .map(|(k, v)| {
                let default = match v.default {
                    Some(serde_yaml::Value::String(s)) => s,
                    Some(serde_yaml::Value::Number(n)) => n.to_string(),
                    Some(serde_yaml::Value::Null) | None => String::new(),
                    Some(other) => serde_yaml::to_string(&other).unwrap_or_default().trim().to_owned(),
                };
                (k, default)
            })
            .collect();
        let truth_path = data.join("ground_truth_v1.2.2.json");
        let mut truth: BTreeMap<String, SuiteTruth> = serde_json::from_str(&read(&truth_path)?).map_err(|e| {
            DojoError::Parse { path: truth_path.display().to_string(), format: "JSON", detail: e.to_string() }
        })?;
        let truth = truth
            .remove(name.name())
            .ok_or_else(|| DojoError::Data(format!("{} has no `{}` suite", truth_path.display(), name.name())))?;
        Ok(SuiteData {
            name,
            environment,
            vectors,
            user_tasks: by_number(truth.user_tasks),
            injection_tasks: by_number(truth.injection_tasks),
        })
    }

    /// The tools a task's ground truth calls, in the suite's tool order.
    pub fn tools_of(&self, task: &Task) -> Vec<&'static Tool> {
        self.name.tools().iter().filter(|t| task.calls.iter().any(|c| c.function == t.name)).collect()
    }
}

/// Where the vendored data is, relative to this crate.
pub fn vendored_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/agentdojo")
}
