//! The simulated user: scripted (states what τ² says they want and know in one message, then the conversation
//! ends), or played by a model from the task's instructions, as τ²'s user simulator is, until it says
//! `###STOP###`.

use std::sync::Arc;

use lacuna_agent::{ChatRequest, Llm, Message};

use super::Task;

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
    pub fn new(spec: &UserSpec, task: &Task) -> User {
        match spec {
            UserSpec::Scripted => User::Scripted { said: false, message: scripted_message(task) },
            UserSpec::Model(llm) => User::Model {
                llm: llm.clone(),
                request: ChatRequest { system: system_prompt(task), messages: Vec::new() },
                tokens: None,
            },
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
