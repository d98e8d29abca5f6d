//! Models over HTTP: any OpenAI-compatible chat-completions endpoint, and Anthropic's Messages API.

use serde_json::json;

use crate::http::{ErrorContext, HttpOptions, JsonClient};
use crate::llm::{ChatRequest, Llm, LlmError, Reply};

/// Sampling and length settings shared by the HTTP providers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sampling {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
}

/// OpenAI, DeepSeek, vLLM, Ollama, llama.cpp's server, OpenRouter: `POST {base_url}/chat/completions`.
pub struct OpenAiCompatible {
    base_url: String,
    api_key: Option<String>,
    model: String,
    sampling: Sampling,
    client: JsonClient,
}

pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

impl OpenAiCompatible {
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: &str,
        sampling: Sampling,
        http: HttpOptions,
    ) -> Result<OpenAiCompatible, LlmError> {
        Ok(OpenAiCompatible {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model: model.to_owned(),
            sampling,
            client: JsonClient::new(http)?,
        })
    }
}

impl Llm for OpenAiCompatible {
    fn describe(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn reply(&self, request: &ChatRequest) -> Result<Reply, LlmError> {
        let url = format!("{}/chat/completions", self.base_url);
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        messages.extend(request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})));
        let mut body = json!({"model": self.model, "messages": messages});
        if let Some(t) = self.sampling.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = self.sampling.max_tokens {
            body["max_tokens"] = json!(n);
        }
        let headers: Vec<(&str, String)> =
            self.api_key.iter().map(|key| ("authorization", format!("Bearer {key}"))).collect();
        let context = ErrorContext { key_hint: "OPENAI_API_KEY (or api_key_env in lacuna.toml)", model: &self.model };
        let reply = self.client.post(&url, &headers, &body, &context)?;
        let malformed = |detail: &str| LlmError::Malformed { url: url.clone(), detail: detail.to_owned() };
        let choice = reply.pointer("/choices/0").ok_or_else(|| malformed("no `choices[0]` in the reply"))?;
        let text = match choice.pointer("/message/content") {
            Some(serde_json::Value::String(text)) => text.clone(),
            // A reply with only reasoning or a refusal has no content: that is an attempt without code.
            Some(serde_json::Value::Null) | None if choice.get("message").is_some() => String::new(),
            _ => return Err(malformed("`choices[0].message.content` is not text")),
        };
        Ok(Reply { text, tokens: reply.pointer("/usage/total_tokens").and_then(serde_json::Value::as_u64) })
    }
}

/// Anthropic's Messages API: `POST {base_url}/v1/messages`.
pub struct Anthropic {
    base_url: String,
    api_key: String,
    model: String,
    sampling: Sampling,
    client: JsonClient,
}

pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

impl Anthropic {
    pub fn new(
        base_url: &str,
        api_key: String,
        model: &str,
        sampling: Sampling,
        http: HttpOptions,
    ) -> Result<Anthropic, LlmError> {
        Ok(Anthropic {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model: model.to_owned(),
            sampling,
            client: JsonClient::new(http)?,
        })
    }
}

impl Llm for Anthropic {
    fn describe(&self) -> String {
        format!("anthropic:{}", self.model)
    }

    fn reply(&self, request: &ChatRequest) -> Result<Reply, LlmError> {
        let url = format!("{}/v1/messages", self.base_url);
        let messages: Vec<_> = request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
        let mut body = json!({
            "model": self.model,
            "system": request.system,
            "messages": messages,
            // Required by the API.
            "max_tokens": self.sampling.max_tokens.unwrap_or(4096),
        });
        if let Some(t) = self.sampling.temperature {
            body["temperature"] = json!(t);
        }
        let headers = [("x-api-key", self.api_key.clone()), ("anthropic-version", "2023-06-01".to_owned())];
        let context =
            ErrorContext { key_hint: "ANTHROPIC_API_KEY (or api_key_env in lacuna.toml)", model: &self.model };
        let reply = self.client.post(&url, &headers, &body, &context)?;
        let content = reply.get("content").and_then(|c| c.as_array()).ok_or_else(|| LlmError::Malformed {
            url: url.clone(),
            detail: "no `content` array in the reply".into(),
        })?;
        let text = content
            .iter()
            .filter(|block| block.get("type").and_then(|t| t.as_str()) == Some("text"))
            .filter_map(|block| block.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("\n");
        let count = |field: &str| reply.pointer(&format!("/usage/{field}")).and_then(serde_json::Value::as_u64);
        let tokens = match (count("input_tokens"), count("output_tokens")) {
            (None, None) => None,
            (input, output) => Some(input.unwrap_or(0) + output.unwrap_or(0)),
        };
        Ok(Reply { text, tokens })
    }
}
