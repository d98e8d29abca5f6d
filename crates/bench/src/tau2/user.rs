//! The simulated user: scripted (states what τ² says they want and know in one message, then the conversation
//! ends), or played by a model from the task's instructions, as τ²'s user simulator is, until it says
//! `###STOP###`.

use std::sync::Arc;

use lacuna_agent::{ChatRequest, Llm, Message};
use serde_json::{Map, Value};

use super::tools::{Kind, PHONE};
use super::{Domain, Task};

/// What ends a conversation, as τ²'s user simulator says it.
pub const STOP: &str = "###STOP###";

/// The agent's first words, before the user's first message (τ²'s greeting).
pub const GREETING: &str = "Hi! How can I help you today?";

/// Who plays the user.
#[derive(Clone)]
pub enum UserSpec {
    Scripted,
    Model(Arc<dyn Llm>),
}

impl std::fmt::Debug for UserSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserSpec::Scripted => f.write_str("Scripted"),
            UserSpec::Model(llm) => write!(f, "Model({})", llm.describe()),
        }
    }
}

/// One conversation's user.
pub enum User {
    Scripted { said: bool, message: String },
    Model { llm: Arc<dyn Llm>, request: ChatRequest, tokens: Option<u64> },
}

impl User {
    pub fn new(spec: &UserSpec, task: &Task, domain: Domain) -> User {
        match spec {
            UserSpec::Scripted => User::Scripted { said: false, message: scripted_message(task) },
            UserSpec::Model(llm) => {
                let mut system = system_prompt(task);
                if domain.two_sided() {
                    system.push_str(&phone_tools_prompt());
                }
                User::Model { llm: llm.clone(), request: ChatRequest { system, messages: Vec::new() }, tokens: None }
            }
        }
    }

    /// The user's next message, given the agent's last reply (`None` before the first); `None` ends the
    /// conversation.
    pub fn next(&mut self, agent_reply: Option<&str>) -> Result<Option<String>, String> {
        match self {
            User::Scripted { said, message } => {
                if std::mem::replace(said, true) {
                    Ok(None)
                } else {
                    Ok(Some(message.clone()))
                }
            }
            User::Model { llm, request, tokens } => {
                // The roles flip: to the user model, the agent is the one it answers.
                request.messages.push(Message::user(agent_reply.unwrap_or(GREETING)));
                let reply = llm.reply(request).map_err(|e| format!("the user model: {e}"))?;
                if let Some(n) = reply.tokens {
                    *tokens.get_or_insert(0) += n;
                }
                let text = reply.text.trim().to_owned();
                if text.is_empty() || text.contains(STOP) {
                    return Ok(None);
                }
                request.messages.push(Message::assistant(text.clone()));
                Ok(Some(text))
            }
        }
    }
}

impl User {
    /// Tokens the user model took, when its provider reports them.
    pub fn tokens(&self) -> Option<u64> {
        match self {
            User::Scripted { .. } => None,
            User::Model { tokens, .. } => *tokens,
        }
    }
}

/// What a user model with a phone is told of it: its tools, and how to use one.
fn phone_tools_prompt() -> String {
    let mut tools = String::new();
    for function in PHONE.iter().filter(|f| f.tool) {
        let params: Vec<String> =
            function.params.iter().map(|(name, kind)| format!("{name}: {}", kind_name(*kind))).collect();
        tools.push_str(&format!("- {}({})\n", function.name, params.join(", ")));
    }
    format!(
        "\nYou have your phone with you. To look at it or change a setting, reply with one line and nothing else:\n\
         {TOOL} <name> <arguments as a JSON object>\n(for example `{TOOL} toggle_airplane_mode {{}}` or `{TOOL} \
         check_app_status {{\"app_name\": \"messaging\"}}`); you are told what the phone shows, and then reply \
         again. Do only what the agent asks of your phone, and tell the agent what you saw. Never make up what the \
         phone shows. Your phone's tools:\n{tools}"
    )
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "string",
        Kind::Bool => "boolean",
        Kind::Float => "number",
        _ => "value",
    }
}

/// How a user model's reply asks to use their phone.
pub const TOOL: &str = "TOOL";

/// A phone tool's name and its arguments.
pub type ToolCall = (String, Map<String, Value>);

/// The phone tool a user model's reply asks for: its name and arguments (`TOOL name {..}`), or why the line
/// cannot be read. `None` when the reply is a message to the agent.
pub fn tool_call(reply: &str) -> Option<Result<ToolCall, String>> {
    let rest = reply.trim().strip_prefix(TOOL)?.trim_start();
    let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let arguments = arguments.trim();
    let parsed = if arguments.is_empty() {
        Ok(Map::new())
    } else {
        match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(format!("the arguments of `{name}` are not a JSON object: {arguments}")),
        }
    };
    Some(parsed.map(|map| (name.to_owned(), map)))
}

/// The scripted user's one message: why they call and what they know.
pub fn scripted_message(task: &Task) -> String {
    let i = &task.instructions;
    let parts: Vec<&str> = [&i.reason_for_call, &i.known_info].into_iter().flatten().map(|p| p.trim()).collect();
    parts.join(" ")
}

/// What the user model is told: to play the customer of the task's scenario.
pub fn system_prompt(task: &Task) -> String {
    let i = &task.instructions;
    let mut scenario = String::new();
    for (label, part) in [
        ("Why you are contacting customer service", &i.reason_for_call),
        ("What you know", &i.known_info),
        ("What you do not know", &i.unknown_info),
        ("How to behave", &i.task_instructions),
    ] {
        if let Some(part) = part {
            scenario.push_str(&format!("{label}: {}\n", part.trim()));
        }
    }
    format!(
        "You are playing a customer talking with a customer service agent. Stay in character: write only what the \
         customer says, one message at a time, in plain words. Give information only when the agent needs it, and \
         never make up information you were not given. When your goal is met, or it cannot be, reply with \
         {STOP} alone.\n\n{scenario}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_lines_are_read_and_other_replies_are_messages() {
        assert_eq!(tool_call("TOOL toggle_airplane_mode {}"), Some(Ok(("toggle_airplane_mode".into(), Map::new()))));
        let (name, args) = tool_call(" TOOL check_app_status {\"app_name\": \"messaging\"}\n").unwrap().unwrap();
        assert_eq!((name.as_str(), args["app_name"].as_str()), ("check_app_status", Some("messaging")));
        assert_eq!(tool_call("TOOL run_speed_test"), Some(Ok(("run_speed_test".into(), Map::new()))));
        assert!(tool_call("TOOL grant_app_permission sms").unwrap().is_err());
        assert_eq!(tool_call("My phone says no service."), None);
        assert!(phone_tools_prompt().contains("- grant_app_permission(app_name: string, permission: string)\n"));
        assert!(!phone_tools_prompt().contains("unseat_sim_card"));
    }
}
