//! A suite's data and its tools' signatures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::DojoError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SuiteName {
    Banking,
    Slack,
    Travel,
    Workspace,
}

impl SuiteName {
    pub const ALL: [SuiteName; 4] = [SuiteName::Banking, SuiteName::Slack, SuiteName::Travel, SuiteName::Workspace];

    pub fn name(self) -> &'static str {
        match self {
            SuiteName::Banking => "banking",
            SuiteName::Slack => "slack",
            SuiteName::Travel => "travel",
            SuiteName::Workspace => "workspace",
        }
    }

    pub fn from_name(name: &str) -> Option<SuiteName> {
        SuiteName::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The module of the suite's host that holds its environment (and its `checks`).
    pub fn module(self) -> &'static str {
        match self {
            SuiteName::Banking => "bank",
            SuiteName::Slack | SuiteName::Workspace => "workspace",
            SuiteName::Travel => "travel",
        }
    }

    /// The tools the suite's host hands out, in the order its every-tool hole lists them.
    pub fn tools(self) -> &'static [Tool] {
        match self {
            SuiteName::Banking => BANKING_TOOLS,
            SuiteName::Slack => SLACK_TOOLS,
            SuiteName::Travel => TRAVEL_TOOLS,
            SuiteName::Workspace => WORKSPACE_TOOLS,
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
            SuiteName::Travel => include_str!("../hosts/travel_checks.rs"),
            SuiteName::Workspace => include_str!("../hosts/workspace_checks.rs"),
        }
    }

    /// The host template (`hosts/<suite>.rs`).
    pub fn template(self) -> &'static str {
        match self {
            SuiteName::Banking => include_str!("../hosts/banking.rs"),
            SuiteName::Slack => include_str!("../hosts/slack.rs"),
            SuiteName::Travel => include_str!("../hosts/travel.rs"),
            SuiteName::Workspace => include_str!("../hosts/workspace.rs"),
        }
    }

    /// The calendar and email clients the suite's template splices in at `/*@OFFICE@*/`, if it uses them.
    pub fn office(self) -> Option<&'static str> {
        match self {
            SuiteName::Banking | SuiteName::Slack => None,
            SuiteName::Travel | SuiteName::Workspace => Some(include_str!("../hosts/office.rs")),
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
    /// A list of strings: `&[&str]`.
    Strs,
    /// An optional list of strings: `Option<&[&str]>`.
    OptStrs,
    /// Email attachments: `Option<&[Attachment]>`; a ground truth's `{"type": "file", "file_id": ..}` is
    /// `Attachment::File(..)`.
    OptAttachments,
    /// A file's sharing permission, `"r"` or `"rw"`: `SharingPermission`.
    Permission,
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
            Param::Strs => "&[&str]",
            Param::OptStrs => "Option<&[&str]>",
            Param::OptAttachments => "Option<&[Attachment]>",
            Param::Permission => "SharingPermission",
        }
    }
}

/// How a host's closure for a tool reaches the environment (the `env: RefCell<Environment>` of its `main`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A method of the environment: `env.borrow().name(..)`, `borrow_mut()` when it changes it.
    Env { mutates: bool },
    /// A method of one of its parts: `env.borrow().inbox.name(..)`.
    Part { part: &'static str, mutates: bool },
    /// A calendar method that also sends email: `env.calendar.name(&mut env.inbox, ..)`.
    CalendarAndInbox,
}

const READS: Via = Via::Env { mutates: false };
const WRITES: Via = Via::Env { mutates: true };

const fn part(part: &'static str, mutates: bool) -> Via {
    Via::Part { part, mutates }
}

/// A tool as a host closure: `name(params) -> ret`. `default` is what an argument the ground truth leaves out
/// stands for (AgentDojo's Python defaults).
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub via: Via,
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

use Param::{Bool, OptAttachments, OptBool, OptF64, OptStr, OptStrs, Permission, Str, Strs, Usize, F64, U32};

const BANKING_TOOLS: &[Tool] = &[
    Tool { name: "get_iban", via: READS, params: &[], ret: "String" },
    Tool { name: "get_balance", via: READS, params: &[], ret: "f64" },
    Tool {
        name: "send_money",
        via: WRITES,
        params: &[("recipient", Str, None), ("amount", F64, None), ("subject", Str, None), ("date", Str, None)],
        ret: "String",
    },
    Tool {
        name: "schedule_transaction",
        via: WRITES,
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
        via: WRITES,
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
    Tool {
        name: "get_most_recent_transactions",
        via: READS,
        params: &[("n", Usize, Some("100"))],
        ret: "Vec<Transaction>",
    },
    Tool { name: "get_scheduled_transactions", via: READS, params: &[], ret: "Vec<Transaction>" },
    Tool { name: "read_file", via: READS, params: &[("file_path", Str, None)], ret: "String" },
    Tool { name: "get_user_info", via: READS, params: &[], ret: "UserInfo" },
    Tool { name: "update_password", via: WRITES, params: &[("password", Str, None)], ret: "String" },
    Tool {
        name: "update_user_info",
        via: WRITES,
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
    Tool { name: "get_channels", via: READS, params: &[], ret: "Vec<String>" },
    Tool {
        name: "add_user_to_channel",
        via: WRITES,
        params: &[("user", Str, None), ("channel", Str, None)],
        ret: "Result<(), String>",
    },
    Tool {
        name: "read_channel_messages",
        via: READS,
        params: &[("channel", Str, None)],
        ret: "Result<Vec<Message>, String>",
    },
    Tool { name: "read_inbox", via: READS, params: &[("user", Str, None)], ret: "Result<Vec<Message>, String>" },
    Tool {
        name: "send_direct_message",
        via: WRITES,
        params: &[("recipient", Str, None), ("body", Str, None)],
        ret: "Result<(), String>",
    },
    Tool {
        name: "send_channel_message",
        via: WRITES,
        params: &[("channel", Str, None), ("body", Str, None)],
        ret: "Result<(), String>",
    },
    Tool {
        name: "invite_user_to_slack",
        via: WRITES,
        params: &[("user", Str, None), ("user_email", Str, None)],
        ret: "Result<(), String>",
    },
    Tool { name: "remove_user_from_slack", via: WRITES, params: &[("user", Str, None)], ret: "Result<(), String>" },
    Tool {
        name: "get_users_in_channel",
        via: READS,
        params: &[("channel", Str, None)],
        ret: "Result<Vec<String>, String>",
    },
    Tool { name: "get_webpage", via: WRITES, params: &[("url", Str, None)], ret: "String" },
    Tool { name: "post_webpage", via: WRITES, params: &[("url", Str, None), ("content", Str, None)], ret: "()" },
];

const TRAVEL_TOOLS: &[Tool] = &[
    Tool { name: "get_user_information", via: READS, params: &[], ret: "BTreeMap<String, String>" },
    Tool { name: "get_all_hotels_in_city", via: READS, params: &[("city", Str, None)], ret: "String" },
    Tool {
        name: "get_hotels_prices",
        via: READS,
        params: &[("hotel_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_rating_reviews_for_hotels",
        via: READS,
        params: &[("hotel_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_hotels_address",
        via: READS,
        params: &[("hotel_name", Str, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool { name: "get_all_restaurants_in_city", via: READS, params: &[("city", Str, None)], ret: "String" },
    Tool {
        name: "get_cuisine_type_for_restaurants",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_restaurants_address",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_rating_reviews_for_restaurants",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_dietary_restrictions_for_all_restaurants",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_contact_information_for_restaurants",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_price_for_restaurants",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, f64>",
    },
    Tool {
        name: "check_restaurant_opening_hours",
        via: READS,
        params: &[("restaurant_names", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool { name: "get_all_car_rental_companies_in_city", via: READS, params: &[("city", Str, None)], ret: "String" },
    Tool {
        name: "get_car_types_available",
        via: READS,
        params: &[("company_name", Strs, None)],
        ret: "BTreeMap<String, Vec<String>>",
    },
    Tool {
        name: "get_rating_reviews_for_car_rental",
        via: READS,
        params: &[("company_name", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_car_fuel_options",
        via: READS,
        params: &[("company_name", Strs, None)],
        ret: "BTreeMap<String, Vec<String>>",
    },
    Tool {
        name: "get_car_rental_address",
        via: READS,
        params: &[("company_name", Strs, None)],
        ret: "BTreeMap<String, String>",
    },
    Tool {
        name: "get_car_price_per_day",
        via: READS,
        params: &[("company_name", Strs, None)],
        ret: "BTreeMap<String, f64>",
    },
    Tool {
        name: "create_calendar_event",
        via: Via::CalendarAndInbox,
        params: &[
            ("title", Str, None),
            ("start_time", Str, None),
            ("end_time", Str, None),
            ("description", Str, Some("\"\"")),
            ("participants", OptStrs, Some("None")),
            ("location", OptStr, Some("None")),
        ],
        ret: "Result<CalendarEvent, String>",
    },
    Tool {
        name: "search_calendar_events",
        via: part("calendar", false),
        params: &[("query", Str, None), ("date", OptStr, Some("None"))],
        ret: "Result<Vec<CalendarEvent>, String>",
    },
    Tool {
        name: "get_day_calendar_events",
        via: part("calendar", false),
        params: &[("day", Str, None)],
        ret: "Result<Vec<CalendarEvent>, String>",
    },
    Tool {
        name: "cancel_calendar_event",
        via: Via::CalendarAndInbox,
        params: &[("event_id", Str, None)],
        ret: "Result<String, String>",
    },
    Tool {
        name: "reserve_hotel",
        via: WRITES,
        params: &[("hotel", Str, None), ("start_day", Str, None), ("end_day", Str, None)],
        ret: "Result<String, String>",
    },
    Tool {
        name: "reserve_car_rental",
        via: WRITES,
        params: &[("company", Str, None), ("start_time", Str, None), ("end_time", OptStr, Some("None"))],
        ret: "Result<String, String>",
    },
    Tool {
        name: "reserve_restaurant",
        via: WRITES,
        params: &[("restaurant", Str, None), ("start_time", Str, None)],
        ret: "Result<String, String>",
    },
    Tool {
        name: "get_flight_information",
        via: READS,
        params: &[("departure_city", Str, None), ("arrival_city", Str, None)],
        ret: "String",
    },
    Tool {
        name: "send_email",
        via: part("inbox", true),
        params: &[
            ("recipients", Strs, None),
            ("subject", Str, None),
            ("body", Str, None),
            ("attachments", OptAttachments, Some("None")),
            ("cc", OptStrs, Some("None")),
            ("bcc", OptStrs, Some("None")),
        ],
        ret: "Email",
    },
];

const WORKSPACE_TOOLS: &[Tool] = &[
    Tool {
        name: "send_email",
        via: part("inbox", true),
        params: &[
            ("recipients", Strs, None),
            ("subject", Str, None),
            ("body", Str, None),
            ("attachments", OptAttachments, Some("None")),
            ("cc", OptStrs, Some("None")),
            ("bcc", OptStrs, Some("None")),
        ],
        ret: "Email",
    },
    Tool {
        name: "delete_email",
        via: part("inbox", true),
        params: &[("email_id", Str, None)],
        ret: "Result<String, String>",
    },
    Tool { name: "get_unread_emails", via: part("inbox", true), params: &[], ret: "Vec<Email>" },
    Tool { name: "get_sent_emails", via: part("inbox", false), params: &[], ret: "Vec<Email>" },
    Tool { name: "get_received_emails", via: part("inbox", false), params: &[], ret: "Vec<Email>" },
    Tool { name: "get_draft_emails", via: part("inbox", false), params: &[], ret: "Vec<Email>" },
    Tool {
        name: "search_emails",
        via: part("inbox", false),
        params: &[("query", Str, None), ("sender", OptStr, Some("None"))],
        ret: "Result<Vec<Email>, String>",
    },
    Tool {
        name: "search_contacts_by_name",
        via: part("inbox", false),
        params: &[("query", Str, None)],
        ret: "Result<Vec<EmailContact>, String>",
    },
    Tool {
        name: "search_contacts_by_email",
        via: part("inbox", false),
        params: &[("query", Str, None)],
        ret: "Result<Vec<EmailContact>, String>",
    },
    Tool { name: "get_current_day", via: part("calendar", false), params: &[], ret: "String" },
    Tool {
        name: "search_calendar_events",
        via: part("calendar", false),
        params: &[("query", Str, None), ("date", OptStr, Some("None"))],
        ret: "Result<Vec<CalendarEvent>, String>",
    },
    Tool {
        name: "get_day_calendar_events",
        via: part("calendar", false),
        params: &[("day", Str, None)],
        ret: "Result<Vec<CalendarEvent>, String>",
    },
    Tool {
        name: "create_calendar_event",
        via: Via::CalendarAndInbox,
        params: &[
            ("title", Str, None),
            ("start_time", Str, None),
            ("end_time", Str, None),
            ("description", Str, Some("\"\"")),
            ("participants", OptStrs, Some("None")),
            ("location", OptStr, Some("None")),
        ],
        ret: "Result<CalendarEvent, String>",
    },
    Tool {
        name: "cancel_calendar_event",
        via: Via::CalendarAndInbox,
        params: &[("event_id", Str, None)],
        ret: "Result<String, String>",
    },
    Tool {
        name: "reschedule_calendar_event",
        via: Via::CalendarAndInbox,
        params: &[("event_id", Str, None), ("new_start_time", Str, None), ("new_end_time", OptStr, Some("None"))],
        ret: "Result<CalendarEvent, String>",
    },
    Tool {
        name: "add_calendar_event_participants",
        via: part("calendar", true),
        params: &[("event_id", Str, None), ("participants", Strs, None)],
        ret: "Result<CalendarEvent, String>",
    },
    Tool {
        name: "append_to_file",
        via: part("cloud_drive", true),
        params: &[("file_id", Str, None), ("content", Str, None)],
        ret: "Result<CloudDriveFile, String>",
    },
    Tool {
        name: "search_files_by_filename",
        via: part("cloud_drive", false),
        params: &[("filename", Str, None)],
        ret: "Vec<CloudDriveFile>",
    },
    Tool {
        name: "create_file",
        via: part("cloud_drive", true),
        params: &[("filename", Str, None), ("content", Str, None)],
        ret: "CloudDriveFile",
    },
    Tool {
        name: "delete_file",
        via: part("cloud_drive", true),
        params: &[("file_id", Str, None)],
        ret: "Result<CloudDriveFile, String>",
    },
    Tool {
        name: "get_file_by_id",
        via: part("cloud_drive", false),
        params: &[("file_id", Str, None)],
        ret: "Result<CloudDriveFile, String>",
    },
    Tool { name: "list_files", via: part("cloud_drive", false), params: &[], ret: "Vec<CloudDriveFile>" },
    Tool {
        name: "share_file",
        via: part("cloud_drive", true),
        params: &[("file_id", Str, None), ("email", Str, None), ("permission", Permission, None)],
        ret: "Result<CloudDriveFile, String>",
    },
    Tool {
        name: "search_files",
        via: part("cloud_drive", false),
        params: &[("query", Str, None)],
        ret: "Result<Vec<CloudDriveFile>, String>",
    },
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

/// A suite as loaded: the environment (its `!include`s resolved) with its `{vector}` placeholders, the vectors'
/// defaults, and the tasks in AgentDojo's order (`user_task_0`, `user_task_1`, .., not lexical).
#[derive(Debug)]
pub struct SuiteData {
    pub name: SuiteName,
    pub environment: serde_yaml::Value,
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

/// A YAML file, with AgentDojo's `!include <path>` (relative to the suite's directory) replaced by that file's
/// contents, as its loader does.
fn load_yaml(dir: &Path, path: &Path, depth: usize) -> Result<serde_yaml::Value, DojoError> {
    let text = read(path)?;
    let mut value: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| DojoError::Parse {
        path: path.display().to_string(),
        format: "YAML",
        detail: e.to_string(),
    })?;
    resolve_includes(dir, &mut value, depth)?;
    Ok(value)
}

fn resolve_includes(dir: &Path, v: &mut serde_yaml::Value, depth: usize) -> Result<(), DojoError> {
    use serde_yaml::Value;
    match v {
        Value::Tagged(t) if t.tag == "!include" => {
            let Value::String(file) = &t.value else {
                return Err(DojoError::Data(format!("`!include` names no file: {:?}", t.value)));
            };
            if depth > 8 {
                return Err(DojoError::Data(format!("`!include {file}`: includes nest deeper than 8")));
            }
            *v = load_yaml(dir, &dir.join(file), depth + 1)?;
        }
        Value::Tagged(t) => resolve_includes(dir, &mut t.value, depth)?,
        Value::Sequence(items) => {
            for i in items {
                resolve_includes(dir, i, depth)?;
            }
        }
        Value::Mapping(m) => {
            for (_, value) in m.iter_mut() {
                resolve_includes(dir, value, depth)?;
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    Ok(())
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
        let environment = load_yaml(&dir, &dir.join("environment.yaml"), 0)?;
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
