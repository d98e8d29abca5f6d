//! Naming a model: `openai:<model>`, `anthropic:<model>`, `script:<file>`, `replay:<file>`, and the settings
//! that go with it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::http::HttpOptions;
use crate::llm::Llm;
use crate::providers::{Anthropic, OpenAiCompatible, Sampling, ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL};
use crate::recorded::{Recorder, Replay, Scripted};
use crate::AgentError;

/// Which model answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSpec {
    OpenAi { model: String },
    Anthropic { model: String },
    Script { path: PathBuf },
    Replay { path: PathBuf },
}

impl std::str::FromStr for ModelSpec {
    type Err = AgentError;

    fn from_str(spec: &str) -> Result<ModelSpec, AgentError> {
        let bad = |why: &str| AgentError::BadSpec { spec: spec.to_owned(), why: why.to_owned() };
        let (kind, rest) = spec.split_once(':').ok_or_else(|| {
            bad("write PROVIDER:NAME: openai:<model>, anthropic:<model>, script:<file>, replay:<file>")
        })?;
        if rest.is_empty() {
            return Err(bad("nothing after the colon"));
        }
        match kind {
            "openai" => Ok(ModelSpec::OpenAi { model: rest.to_owned() }),
            "anthropic" => Ok(ModelSpec::Anthropic { model: rest.to_owned() }),
            "script" => Ok(ModelSpec::Script { path: rest.into() }),
            "replay" => Ok(ModelSpec::Replay { path: rest.into() }),
            other => Err(bad(&format!("unknown provider `{other}` (openai, anthropic, script, replay)"))),
        }
    }
}

impl ModelSpec {
    /// How the model is named in traces and cassettes (what [`Llm::describe`] says once connected).
    pub fn describe(&self) -> String {
        match self {
            ModelSpec::OpenAi { model } => format!("openai:{model}"),
            ModelSpec::Anthropic { model } => format!("anthropic:{model}"),
            ModelSpec::Script { path } => format!("script:{}", path.display()),
            ModelSpec::Replay { path } => format!("replay:{}", path.display()),
        }
    }
}

/// Settings for connecting to a model; unset ones come from the environment, then defaults.
#[derive(Debug, Clone, Default)]
pub struct ModelSettings {
    /// Default: `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, else the provider's public endpoint.
    pub base_url: Option<String>,
    /// The key itself (default: from `api_key_env`).
    pub api_key: Option<String>,
    /// Which environment variable holds the key (default `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`).
    pub api_key_env: Option<String>,
    pub sampling: Sampling,
    pub http: HttpOptions,
    /// Append every exchange to this cassette.
    pub record: Option<PathBuf>,
    /// For a replay: answer only with replies recorded from this model (a named model of a planner/worker run).
    pub replay_as: Option<String>,
}

/// The model `spec` names, set up with `settings`.
pub fn connect(spec: &ModelSpec, settings: &ModelSettings) -> Result<Arc<dyn Llm>, AgentError> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let key = |default_env: &str| {
        settings.api_key.clone().or_else(|| env(settings.api_key_env.as_deref().unwrap_or(default_env)))
    };
    let model: Box<dyn Llm> = match spec {
        ModelSpec::OpenAi { model } => {
            let base = settings.base_url.clone().or_else(|| env("OPENAI_BASE_URL"));
            let base = base.as_deref().unwrap_or(OPENAI_DEFAULT_BASE_URL);
            // Local servers (Ollama, llama.cpp, vLLM) need no key; a server that wants one says so with a 401.
            Box::new(OpenAiCompatible::new(
                base,
                key("OPENAI_API_KEY"),
                model,
                settings.sampling.clone(),
                settings.http.clone(),
            )?)
        }
        ModelSpec::Anthropic { model } => {
            let base = settings.base_url.clone().or_else(|| env("ANTHROPIC_BASE_URL"));
            let base = base.as_deref().unwrap_or(ANTHROPIC_DEFAULT_BASE_URL);
            let var = settings.api_key_env.as_deref().unwrap_or("ANTHROPIC_API_KEY");
            let api_key = key("ANTHROPIC_API_KEY").ok_or_else(|| AgentError::BadSpec {
                spec: format!("anthropic:{model}"),
                why: format!("no API key: set {var}"),
            })?;
            Box::new(Anthropic::new(base, api_key, model, settings.sampling.clone(), settings.http.clone())?)
        }
        ModelSpec::Script { path } => Box::new(Scripted::from_file(path)?),
        ModelSpec::Replay { path } => Box::new(Replay::from_file(path, settings.replay_as.clone())?),
    };
    Ok(match &settings.record {
        Some(path) => Arc::new(Recorder::new(model, path)?),
        None => Arc::from(model),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_to_write() {
        assert_eq!(
            "openai:gpt-4o-mini".parse::<ModelSpec>().unwrap(),
            ModelSpec::OpenAi { model: "gpt-4o-mini".into() }
        );
        assert_eq!(
            "replay:traces/a.jsonl".parse::<ModelSpec>().unwrap(),
            ModelSpec::Replay { path: "traces/a.jsonl".into() }
        );
        let e = "gpt-4o".parse::<ModelSpec>().unwrap_err().to_string();
        assert!(e.contains("openai:<model>"), "{e}");
        let e = "cohere:x".parse::<ModelSpec>().unwrap_err().to_string();
        assert!(e.contains("unknown provider `cohere`"), "{e}");
    }
}
