//! What every τ² host shares (each host's `lib.rs` has it as `mod support` by `#[path]`): the tools' error, the
//! record-by-record comparison of two stores, and the verdict the harness reads.

use std::collections::BTreeMap;

/// Why a tool refused; nothing changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

/// Adds `kind id: ...` for each record that differs between `ours` and `expected` (compared as `Debug` text),
/// is only in ours, or is missing.
pub fn differ<T: std::fmt::Debug>(
    kind: &str,
    ours: &BTreeMap<String, T>,
    expected: &BTreeMap<String, T>,
    out: &mut Vec<String>,
) {
    for (id, record) in ours {
        match expected.get(id) {
            None => out.push(format!("{kind} {id}: not expected")),
            Some(other) if format!("{record:?}") != format!("{other:?}") => out.push(format!("{kind} {id}: differs")),
            Some(_) => {}
        }
    }
    for id in expected.keys() {
        if !ours.contains_key(id) {
            out.push(format!("{kind} {id}: missing"));
        }
    }
}

/// The tool calls made on a store, in order, each with its arguments as τ² names them (an argument left out, a
/// `None`, is not listed, as a τ² tool call leaves out a default argument): what τ²'s `ACTION` basis looks for the
/// expected actions in.
#[derive(Debug, Clone, Default)]
pub struct Trace(pub Vec<serde_json::Value>);

impl Trace {
    pub fn record(&mut self, name: &str, arguments: serde_json::Value) {
        let arguments: serde_json::Map<String, serde_json::Value> = match arguments {
            serde_json::Value::Object(map) => map.into_iter().filter(|(_, v)| !v.is_null()).collect(),
            _ => serde_json::Map::new(),
        };
        self.0.push(serde_json::json!({"name": name, "arguments": arguments}));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What the benchmark harness reads after a task, as JSON: `{"tool_calls": N, "diff": [..], "assertions": [..],
/// "trace": [..]}` (the task's assertions on the final state, as the harness evaluated them, and the calls made).
pub fn verdict(trace: &Trace, diff: &[String], assertions: &[bool]) -> String {
    serde_json::json!({"tool_calls": trace.len(), "diff": diff, "assertions": assertions, "trace": trace.0}).to_string()
}

/// A domain's `db.json`, read into the host's types.
pub fn read_db<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}
