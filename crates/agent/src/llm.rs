//! What a model is to Lacuna: something that answers a chat request with text.

use serde::{Deserialize, Serialize};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Message {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// One request to a model: a system instruction and the conversation so far. Providers add their own model
/// name, temperature and limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<Message>,
}

/// Why a model gave no reply.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("cannot reach {url}: {detail} (is the server running, and is the base URL right?)")]
    Unreachable { url: String, detail: String },
    #[error("{url} did not answer within {seconds} s (raise the timeout with --model-timeout or in lacuna.toml)")]
    Timeout { url: String, seconds: u64 },
    #[error("{url} refused the credentials (HTTP {status}): {detail}; check {key_hint}")]
    Auth { url: String, status: u16, detail: String, key_hint: String },
    #[error("{url} answered HTTP 404: {detail} (unknown model `{model}`, or a base URL without the API path?)")]
    NotFound { url: String, model: String, detail: String },
    #[error("{url} answered HTTP {status} after {attempts} attempt(s): {detail}")]
    Http { url: String, status: u16, attempts: u32, detail: String },
    #[error("{url} sent a reply Lacuna cannot read: {detail}")]
    Malformed { url: String, detail: String },
    #[error(
        "the cassette {cassette} has no reply recorded for this request (key {key}); record it first with --record"
    )]
    NotRecorded { cassette: String, key: String },
    #[error("the script {script} has no reply left (it has {replies}); add replies separated by `=== reply` lines")]
    ScriptExhausted { script: String, replies: usize },
    #[error("{detail}")]
    Io { detail: String },
}

/// A reply with what the provider said it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// Tokens the request and reply took together, when the provider reports them.
    pub tokens: Option<u64>,
}

/// A model. Implementations are shared by every thread that reaches a hole.
pub trait Llm: Send + Sync {
    /// A short description for traces and messages (`openai:gpt-4o-mini`, `script:replies.txt`).
    fn describe(&self) -> String;

    /// The model's reply to `request`. Blocks the calling thread (a hole waits for its snippet).
    fn complete(&self, request: &ChatRequest) -> Result<String, LlmError> {
        self.reply(request).map(|r| r.text)
    }

    /// The reply with its token count, where the provider reports one.
    fn reply(&self, request: &ChatRequest) -> Result<Reply, LlmError>;
}
