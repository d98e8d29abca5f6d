//! The HTTP providers against a local server: request shapes, replies, and every way a request can fail.

mod support;

use std::time::Duration;

use lacuna_agent::{Anthropic, ChatRequest, HttpOptions, Llm, LlmError, Message, OpenAiCompatible, Sampling};
use support::{Canned, ChatServer};

fn request() -> ChatRequest {
    ChatRequest { system: "be brief".into(), messages: vec![Message::user("add 1 and 2")] }
}

fn quick(max_retries: u32) -> HttpOptions {
    HttpOptions {
        timeout: Duration::from_secs(10),
        max_retries,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    }
}

fn openai(server: &ChatServer, http: HttpOptions) -> OpenAiCompatible {
    let sampling = Sampling { temperature: Some(0.25), max_tokens: Some(100) };
    OpenAiCompatible::new(&server.openai_url(), Some("sk-test".into()), "coder", sampling, http).unwrap()
}

#[test]
fn openai_request_has_the_model_the_system_message_and_the_key() {
    let server = ChatServer::start(vec![Canned::reply("```rust\n1 + 2\n```")]);
    let reply = openai(&server, quick(0)).complete(&request()).unwrap();
    assert_eq!(reply, "```rust\n1 + 2\n```");
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test"));
    let body = &seen[0].body;
    assert_eq!(body["model"], "coder");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_tokens"], 100);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "be brief");
    assert_eq!(body["messages"][1]["role"], "user");
}

#[test]
fn a_429_is_retried_after_the_time_retry_after_gives() {
    let server = ChatServer::start(vec![
        Canned::raw(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "0"),
        Canned::reply("42"),
    ]);
    let reply = openai(&server, quick(3)).complete(&request()).unwrap();
    assert_eq!(reply, "42");
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn five_hundreds_are_retried_until_the_retries_run_out() {
    let server = ChatServer::start(vec![Canned::raw(503, r#"{"error":{"message":"overloaded"}}"#)]);
    let error = openai(&server, quick(2)).complete(&request()).unwrap_err();
    let LlmError::Http { status, attempts, detail, .. } = &error else { panic!("expected an HTTP error: {error}") };
    assert_eq!((*status, *attempts, detail.as_str()), (503, 3, "overloaded"));
    assert_eq!(server.seen().len(), 3);
    assert!(error.to_string().contains("HTTP 503 after 3 attempt(s): overloaded"), "{error}");
}

#[test]
fn malformed_json_is_an_error_that_shows_the_body() {
    let server = ChatServer::start(vec![Canned::raw(200, "<html>gateway</html>")]);
    let error = openai(&server, quick(0)).complete(&request()).unwrap_err();
    assert!(matches!(error, LlmError::Malformed { .. }), "{error}");
    assert!(error.to_string().contains("<html>gateway</html>"), "{error}");
    let server = ChatServer::start(vec![Canned::raw(200, r#"{"choices": []}"#)]);
    let error = openai(&server, quick(0)).complete(&request()).unwrap_err();
    assert!(error.to_string().contains("choices[0]"), "{error}");
}

#[test]
fn a_slow_server_times_out() {
    let server = ChatServer::start(vec![Canned::reply("late").delayed(Duration::from_secs(3))]);
    let http = HttpOptions { timeout: Duration::from_millis(300), ..quick(2) };
    let error = openai(&server, http).complete(&request()).unwrap_err();
    assert!(matches!(error, LlmError::Timeout { .. }), "{error}");
    // A timeout is not retried: the same request would most likely time out again.
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn bad_keys_and_unknown_models_say_what_to_check() {
    let server = ChatServer::start(vec![Canned::raw(401, r#"{"error":{"message":"Incorrect API key"}}"#)]);
    let error = openai(&server, quick(3)).complete(&request()).unwrap_err().to_string();
    assert!(error.contains("Incorrect API key") && error.contains("OPENAI_API_KEY"), "{error}");
    assert_eq!(server.seen().len(), 1, "a 401 is not retried");
    let server = ChatServer::start(vec![Canned::raw(404, r#"{"error":{"message":"model not found"}}"#)]);
    let error = openai(&server, quick(3)).complete(&request()).unwrap_err().to_string();
    assert!(error.contains("unknown model `coder`"), "{error}");
}

#[test]
fn an_unreachable_endpoint_is_named() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let model =
        OpenAiCompatible::new(&format!("http://127.0.0.1:{port}/v1"), None, "coder", Sampling::default(), quick(1))
            .unwrap();
    let error = model.complete(&request()).unwrap_err();
    assert!(matches!(error, LlmError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains(&format!("127.0.0.1:{port}")), "{error}");
}

#[test]
fn anthropic_messages_api_shape() {
    let server = ChatServer::start(vec![Canned::anthropic_reply("```rust\n3\n```")]);
    let model = Anthropic::new(&server.url(), "key-a".into(), "claude-test", Sampling::default(), quick(0)).unwrap();
    assert_eq!(model.complete(&request()).unwrap(), "```rust\n3\n```");
    let seen = &server.seen()[0];
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(seen.header("x-api-key"), Some("key-a"));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(seen.body["system"], "be brief");
    assert_eq!(seen.body["model"], "claude-test");
    assert_eq!(seen.body["messages"][0]["role"], "user");
    assert!(seen.body["max_tokens"].as_u64().is_some());
}

#[test]
fn replies_carry_the_tokens_the_provider_reports_and_a_cassette_keeps_them() {
    let server = ChatServer::start(vec![Canned::reply("42"), Canned::anthropic_reply("43")]);
    let reply = openai(&server, quick(0)).reply(&request()).unwrap();
    assert_eq!((reply.text.as_str(), reply.tokens), ("42", Some(25)));
    let anthropic =
        Anthropic::new(&server.url(), "key-a".into(), "claude-test", Sampling::default(), quick(0)).unwrap();
    assert_eq!(anthropic.reply(&request()).unwrap().tokens, Some(37));

    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassette.jsonl");
    let server = ChatServer::start(vec![Canned::reply("44")]);
    let recorder = lacuna_agent::Recorder::new(Box::new(openai(&server, quick(0))), &cassette).unwrap();
    assert_eq!(recorder.reply(&request()).unwrap().tokens, Some(25));
    let replay = lacuna_agent::Replay::from_file(&cassette, None).unwrap();
    let replayed = replay.reply(&request()).unwrap();
    assert_eq!((replayed.text.as_str(), replayed.tokens), ("44", Some(25)));
}
