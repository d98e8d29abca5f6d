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

/// What the benchmark harness reads after a task, as JSON: `{"tool_calls": N, "diff": [..], "assertions": [..]}`
/// (the task's assertions on the final state, as the harness evaluated them).
pub fn verdict(tool_calls: usize, diff: &[String], assertions: &[bool]) -> String {
    serde_json::json!({"tool_calls": tool_calls, "diff": diff, "assertions": assertions}).to_string()
}

/// A domain's `db.json`, read into the host's types.
pub fn read_db<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}
