//! JSON over HTTP for the providers: timeouts, retries with backoff on 429 and 5xx (honouring `Retry-After`),
//! and errors that say what to fix.

use std::time::Duration;

use crate::llm::LlmError;

/// How a provider talks HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpOptions {
    /// For one request, connection to last byte.
    pub timeout: Duration,
    /// Further tries after a 429, a 5xx or a failed connection.
    pub max_retries: u32,
    /// The wait before the first retry; doubled for each further one (a `Retry-After` header wins).
    pub initial_backoff: Duration,
    /// The longest wait between tries, `Retry-After` included.
    pub max_backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            timeout: Duration::from_secs(120),
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

/// A blocking JSON client: an async reqwest client driven by a small tokio runtime of its own, so any thread
/// (a host thread at a hole) can wait on it.
pub struct JsonClient {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    options: HttpOptions,
}

/// How to read an error for the user: which credentials to check, which model was asked for.
pub struct ErrorContext<'a> {
    pub key_hint: &'a str,
    pub model: &'a str,
}

impl JsonClient {
    pub fn new(options: HttpOptions) -> Result<JsonClient, LlmError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("lacuna-http")
            .enable_all()
            .build()
            .map_err(|e| LlmError::Io { detail: format!("cannot start the HTTP runtime: {e}") })?;
        let client = reqwest::Client::builder()
            .timeout(options.timeout)
            .connect_timeout(options.timeout.min(Duration::from_secs(30)))
            .user_agent(concat!("lacuna/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Io { detail: format!("cannot set up the HTTP client: {e}") })?;
        Ok(JsonClient { runtime, client, options })
    }

    /// POSTs `body` to `url` with `headers`; the reply's JSON. Retries 429, 5xx and failed connections.
    pub fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        context: &ErrorContext<'_>,
    ) -> Result<serde_json::Value, LlmError> {
        self.runtime.block_on(self.post_async(url, headers, body, context))
    }

    async fn post_async(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        context: &ErrorContext<'_>,
    ) -> Result<serde_json::Value, LlmError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut request = self.client.post(url).json(body);
            for (name, value) in headers {
                request = request.header(*name, value);
            }
            let retry_wait = match request.send().await {
                Err(e) if e.is_timeout() => {
                    return Err(LlmError::Timeout { url: url.to_owned(), seconds: self.options.timeout.as_secs() })
                }
                Err(e) => {
                    let error = LlmError::Unreachable { url: url.to_owned(), detail: error_chain(&e) };
                    if attempt > self.options.max_retries {
                        return Err(error);
                    }
                    self.backoff(attempt, None)
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .map(Duration::from_secs_f64);
                    let text = match response.text().await {
                        Ok(text) => text,
                        Err(e) if e.is_timeout() => {
                            return Err(LlmError::Timeout {
                                url: url.to_owned(),
                                seconds: self.options.timeout.as_secs(),
                            })
                        }
                        Err(e) => return Err(LlmError::Malformed { url: url.to_owned(), detail: error_chain(&e) }),
                    };
                    if (200..300).contains(&status) {
                        return serde_json::from_str(&text).map_err(|e| LlmError::Malformed {
                            url: url.to_owned(),
                            detail: format!("{e}; the body starts {:?}", preview(&text)),
                        });
                    }
                    let detail = error_detail(&text);
                    match status {
                        401 | 403 => {
                            return Err(LlmError::Auth {
                                url: url.to_owned(),
                                status,
                                detail,
                                key_hint: context.key_hint.to_owned(),
                            })
                        }
                        404 => {
                            return Err(LlmError::NotFound {
                                url: url.to_owned(),
                                model: context.model.to_owned(),
                                detail,
                            })
                        }
                        429 | 500..=599 if attempt <= self.options.max_retries => self.backoff(attempt, retry_after),
                        _ => return Err(LlmError::Http { url: url.to_owned(), status, attempts: attempt, detail }),
                    }
                }
            };
            tokio::time::sleep(retry_wait).await;
        }
    }

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let doubled = self.options.initial_backoff.saturating_mul(1 << (attempt - 1).min(16));
        retry_after.unwrap_or(doubled).min(self.options.max_backoff)
    }
}

/// The error's message and its causes (reqwest's own message alone is often just "error sending request").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The message of an API error body (`{"error": {"message": ..}}` for OpenAI and Anthropic), else the body.
fn error_detail(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message").or_else(|| v.get("message")).or_else(|| v.get("error")).and_then(|m| m.as_str())
    });
    match message {
        Some(m) => m.to_owned(),
        None if body.trim().is_empty() => "(empty body)".to_owned(),
        None => preview(body),
    }
}

fn preview(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
