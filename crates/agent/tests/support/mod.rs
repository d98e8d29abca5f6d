//! A chat-completions server on 127.0.0.1 for tests: it answers each request with the next canned response
//! (the last one again once they run out) and keeps every request body it saw.

#![allow(dead_code)] // each test binary uses part of it

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One canned HTTP response.
#[derive(Debug, Clone)]
pub struct Canned {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
    /// Wait this long before answering (for timeouts).
    pub delay: Duration,
}

impl Canned {
    /// A chat-completions reply whose message is `text`.
    pub fn reply(text: &str) -> Canned {
        let body = serde_json::json!({
            "id": "test",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
        });
        Canned::raw(200, &body.to_string())
    }

    /// An Anthropic Messages reply whose text is `text`.
    pub fn anthropic_reply(text: &str) -> Canned {
        let body = serde_json::json!({
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 30, "output_tokens": 7},
        });
        Canned::raw(200, &body.to_string())
    }

    pub fn raw(status: u16, body: &str) -> Canned {
        Canned { status, body: body.to_owned(), headers: Vec::new(), delay: Duration::ZERO }
    }

    pub fn header(mut self, name: &str, value: &str) -> Canned {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Canned {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The text of every message, in order (OpenAI's and Anthropic's shapes alike; OpenAI's first is the system
    /// message).
    pub fn message_texts(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

pub struct ChatServer {
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ChatServer {
    pub fn start(responses: Vec<Canned>) -> ChatServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a local port"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (server2, seen2) = (server.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            let mut next = 0usize;
            for mut request in server2.incoming_requests() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let headers = request.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect();
                seen2.lock().unwrap().push(Seen {
                    path: request.url().to_owned(),
                    headers,
                    body: serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
                });
                let Some(canned) = responses.get(next.min(responses.len().saturating_sub(1))).cloned() else {
                    continue;
                };
                next += 1;
                // Each answer on its own thread, so a slow one does not hold up the next request.
                std::thread::spawn(move || {
                    std::thread::sleep(canned.delay);
                    let mut response = tiny_http::Response::from_string(canned.body).with_status_code(canned.status);
                    response.add_header(
                        tiny_http::Header::from_bytes("content-type", "application/json").expect("a header"),
                    );
                    for (name, value) in &canned.headers {
                        response.add_header(
                            tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a header"),
                        );
                    }
                    let _ = request.respond(response);
                });
            }
        });
        ChatServer { port, seen, server, thread: Some(thread) }
    }

    /// The base URL an OpenAI-compatible client is given.
    pub fn openai_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
