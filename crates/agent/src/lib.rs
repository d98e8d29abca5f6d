//! The model in the loop.
//!
//! A hole reached at run time asks a [`SnippetSource`](lacuna_hole::SnippetSource) for code; [`Agent`] is the
//! source that asks a model. It builds the prompt ([`PromptTemplate`]: system instruction, expected type,
//! enclosing source with the hole marked, bindings, item signatures, task), calls an [`Llm`], takes the code out
//! of the reply ([`extract_code`]), and after a rejection asks again with the diagnostics, up to a limit. The
//! engine (`lacuna-engine`) checks and runs what it proposes; nothing here runs model output.
//!
//! Models: [`OpenAiCompatible`] (any chat-completions endpoint) and [`Anthropic`] over HTTP (reqwest on a small
//! tokio runtime; timeouts, retries with backoff on 429/5xx honouring `Retry-After`), [`Scripted`] replies, and
//! [`Recorder`]/[`Replay`] cassettes keyed by the request. [`ModelSpec`] parses `openai:<model>`,
//! `anthropic:<model>`, `script:<file>`, `replay:<file>`.

mod agent;
mod extract;
mod http;
mod llm;
mod prompt;
mod providers;
mod recorded;
mod spec;

pub use agent::{Agent, AgentOptions, Summary};
pub use extract::extract_code;
pub use http::HttpOptions;
pub use llm::{ChatRequest, Llm, LlmError, Message, Reply, Role};
pub use prompt::{PromptTemplate, DEFAULT_SYSTEM};
pub use providers::{Anthropic, OpenAiCompatible, Sampling, ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL};
pub use recorded::{request_key, CassetteEntry, Recorder, Replay, Scripted, REPLY_SEPARATOR};
pub use spec::{connect, ModelSettings, ModelSpec};

/// Why an agent could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("`{spec}` is not a model: {why}")]
    BadSpec { spec: String, why: String },
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error("{path}: {detail}")]
    Io { path: String, detail: String },
}

impl AgentError {
    pub(crate) fn io(path: &std::path::Path, e: std::io::Error) -> AgentError {
        AgentError::Io { path: path.display().to_string(), detail: e.to_string() }
    }
}
