//! JSON-RPC 2.0 messages as the service reads and writes them: one request (or notification) per line on stdio,
//! one per POST body over HTTP. Pure data and parsing; no IO.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request's id: a number (any JSON number, answered as it came: `u64` ids beyond `i64` too) or a string
/// (JSON-RPC 2.0 §4). `null` ids are answered like a missing id's errors.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(serde_json::Number),
    Text(String),
}

/// A parsed incoming message.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `None` for a notification (no answer is sent).
    pub id: Option<Id>,
    pub method: String,
    pub params: Value,
}

/// What goes back: exactly one of `result` and `error`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    pub jsonrpc: &'static str,
    /// `null` when the request's id could not be read.
    pub id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl Response {
    pub fn result(id: Option<Id>, result: Value) -> Response {
        Response { jsonrpc: "2.0", id, result: Some(result), error: None }
    }

    pub fn error(id: Option<Id>, error: RpcError) -> Response {
        Response { jsonrpc: "2.0", id, result: None, error: Some(error) }
    }
}

/// A JSON-RPC error object. `message` says what went wrong and what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The error codes the service answers with: JSON-RPC's own, LSP's cancellation code, and the service's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The line or body is not JSON.
    ParseError,
    /// JSON, but not a JSON-RPC 2.0 request object.
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    /// A failure inside the service (a bug, or a worker that went away).
    Internal,
    /// The client cancelled the request (`$/cancelRequest`), or the service is shutting down.
    RequestCancelled,
    /// The request is larger than `--max-request-bytes`.
    RequestTooLarge,
    /// The request ran longer than its time limit.
    Timeout,
    /// The request was well-formed but cannot be done: a missing host file, a host that does not compile.
    InputError,
    /// A session's worker process died during the request (the turn aborted it): `data` says whether the session
    /// was restored.
    WorkerDied,
}

impl ErrorCode {
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::Internal => -32603,
            ErrorCode::RequestCancelled => -32800,
            ErrorCode::RequestTooLarge => -32001,
            ErrorCode::Timeout => -32002,
            ErrorCode::InputError => -32003,
            ErrorCode::WorkerDied => -32004,
        }
    }

    pub fn with(self, message: impl Into<String>) -> RpcError {
        RpcError { code: self.code(), message: message.into(), data: None }
    }
}

/// One line (or body): a request, or the error response to send instead (with the id when it could be read).
pub fn parse(text: &str) -> Result<Request, Box<Response>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Box::new(Response::error(
            None,
            ErrorCode::ParseError.with(format!(
                "not JSON ({e}); send one JSON-RPC 2.0 object per line, e.g. \
                 {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"health\"}}"
            )),
        ))
    })?;
    if let Value::Array(_) = value {
        let message = "JSON-RPC batches (arrays of requests) are not supported: send each request as a message of \
                       its own (a line on stdio, a POST over HTTP); requests are answered concurrently anyway";
        return Err(Box::new(Response::error(None, ErrorCode::InvalidRequest.with(message))));
    }
    let Value::Object(mut object) = value else {
        let message = "a request is a JSON object with \"jsonrpc\": \"2.0\", \"method\" and, for an answer, \"id\"";
        return Err(Box::new(Response::error(None, ErrorCode::InvalidRequest.with(message))));
    };
    let id = match object.remove("id") {
        None | Some(Value::Null) => None,
        Some(value) => match serde_json::from_value::<Id>(value) {
            Ok(id) => Some(id),
            Err(_) => {
                let message = "\"id\" must be a number or a string";
                return Err(Box::new(Response::error(None, ErrorCode::InvalidRequest.with(message))));
            }
        },
    };
    let invalid = |message: &str| Err(Box::new(Response::error(id.clone(), ErrorCode::InvalidRequest.with(message))));
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        _ => return invalid("\"method\" must be a string naming a method (see the README's list)"),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(params @ (Value::Object(_) | Value::Array(_))) => params,
        Some(_) => return invalid("\"params\" must be an object"),
    };
    Ok(Request { id, method, params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn show(text: &str) -> String {
        match parse(text) {
            Ok(r) => format!("{r:?}"),
            Err(e) => serde_json::to_string(&e).unwrap(),
        }
    }

    #[test]
    fn requests_and_what_is_wrong_with_bad_ones() {
        expect![[r#"Request { id: Some(Number(Number(1))), method: "health", params: Object {} }"#]]
            .assert_eq(&show(r#"{"jsonrpc":"2.0","id":1,"method":"health"}"#));
        expect![[r#"Request { id: None, method: "$/cancelRequest", params: Object {"id": String("a")} }"#]]
            .assert_eq(&show(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}"#));
        expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON (EOF while parsing an object at line 1 column 10); send one JSON-RPC 2.0 object per line, e.g. {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"health\"}"}}"#]]
            .assert_eq(&show(r#"{"jsonrpc""#));
        expect![[r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"\"jsonrpc\" must be \"2.0\""}}"#]]
            .assert_eq(&show(r#"{"id":7,"method":"check"}"#));
        expect![[r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"\"params\" must be an object"}}"#]]
            .assert_eq(&show(r#"{"jsonrpc":"2.0","id":"x","method":"check","params":3}"#));
        expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches (arrays of requests) are not supported: send each request as a message of its own (a line on stdio, a POST over HTTP); requests are answered concurrently anyway"}}"#]]
            .assert_eq(&show("[1, 2]"));
    }
}
