//! A task's ground-truth calls as the snippet a model would write for its hole: each call in order, its result
//! kept (`let _ = ..`), then the task's expected answer (an injection task's: its goal).

use serde_json::Value;

use crate::suite::{Call, Param, SuiteName, Task};
use crate::DojoError;

fn argument(param: Param, value: &Value) -> Result<String, String> {
    let float = |v: &Value| v.as_f64().map(|f| format!("{f:?}")).ok_or_else(|| format!("expected a number, found {v}"));
    let int = |v: &Value| {
        v.as_u64()
            .map(|n| n.to_string())
            .or_else(|| v.as_f64().map(|f| (f as u64).to_string()))
            .ok_or_else(|| format!("expected an integer, found {v}"))
    };
    let string =
        |v: &Value| v.as_str().map(|s| format!("{s:?}")).ok_or_else(|| format!("expected a string, found {v}"));
    let strings = |v: &Value| -> Result<String, String> {
        let items = v.as_array().ok_or_else(|| format!("expected a list, found {v}"))?;
        Ok(items.iter().map(string).collect::<Result<Vec<_>, _>>()?.join(", "))
    };
    let boolean = |v: &Value| v.as_bool().map(|b| b.to_string()).ok_or_else(|| format!("expected a bool, found {v}"));
    Ok(match param {
        Param::Str => string(value)?,
        Param::F64 => float(value)?,
        Param::U32 | Param::Usize => int(value)?,
        Param::Bool => boolean(value)?,
        Param::OptStr if value.is_null() => "None".into(),
        Param::OptF64 if value.is_null() => "None".into(),
        Param::OptBool if value.is_null() => "None".into(),
        Param::OptStr => format!("Some({})", string(value)?),
        Param::OptF64 => format!("Some({})", float(value)?),
        Param::OptBool => format!("Some({})", boolean(value)?),
        Param::Strs => format!("&[{}]", strings(value)?),
        Param::OptStrs if value.is_null() => "None".into(),
        Param::OptStrs => format!("Some(&[{}])", strings(value)?),
        Param::OptAttachments if value.is_null() => "None".into(),
        Param::OptAttachments => {
            let items = value.as_array().ok_or_else(|| format!("expected a list of attachments, found {value}"))?;
            let mut written = Vec::new();
            for a in items {
                match a.get("file_id").and_then(Value::as_str) {
                    Some(id) => written.push(format!("Attachment::File({id:?}.to_string())")),
                    None => return Err(format!("only file attachments are written from ground truths, found {a}")),
                }
            }
            format!("Some(&[{}])", written.join(", "))
        }
        Param::Permission => match value.as_str() {
            Some("r") => "SharingPermission::R".into(),
            Some("rw") => "SharingPermission::Rw".into(),
            _ => return Err(format!("expected \"r\" or \"rw\", found {value}")),
        },
    })
}

/// One call as a statement.
pub fn call(suite: SuiteName, call: &Call) -> Result<String, DojoError> {
    let tool = suite
        .tool(&call.function)
        .ok_or_else(|| DojoError::Data(format!("{}: no tool `{}`", suite.name(), call.function)))?;
    let mut args = Vec::new();
    for (name, param, default) in tool.params {
        let written = match (call.args.get(*name), default) {
            (Some(value), _) => argument(*param, value),
            (None, Some(default)) => Ok((*default).to_owned()),
            (None, None) => Err(format!("missing argument `{name}`")),
        };
        args.push(written.map_err(|e| DojoError::Data(format!("{}: {}({name}): {e}", suite.name(), call.function)))?);
    }
    if let Some(extra) = call.args.keys().find(|k| !tool.params.iter().any(|(n, _, _)| n == k)) {
        return Err(DojoError::Data(format!("{}: {} has no parameter `{extra}`", suite.name(), call.function)));
    }
    Ok(format!("let _ = {}({});", call.function, args.join(", ")))
}

/// The snippet performing `task`'s ground truth and answering with its expected output.
pub fn snippet(suite: SuiteName, task: &Task) -> Result<String, DojoError> {
    let mut lines = Vec::new();
    for c in &task.calls {
        lines.push(call(suite, c)?);
    }
    // An injection task's ground truth has no answer: the compromised model answers with the goal's own words (what
    // travel's injection task 6 asks it to say).
    let answer = match (&task.goal, task.ground_truth_output.as_str()) {
        (_, given) if !given.is_empty() => given,
        (Some(goal), _) => goal.as_str(),
        (None, _) => "done",
    };
    lines.push(format!("{answer:?}.to_string()"));
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_of(json: &str) -> Call {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn calls_are_written_as_rust_with_defaults_and_options() {
        let c = call_of(r#"{"function": "update_scheduled_transaction", "args": {"id": 7, "amount": 1200}}"#);
        assert_eq!(
            call(SuiteName::Banking, &c).unwrap(),
            "let _ = update_scheduled_transaction(7, None, Some(1200.0), None, None, None);"
        );
        let c = call_of(r#"{"function": "get_most_recent_transactions", "args": {}}"#);
        assert_eq!(call(SuiteName::Banking, &c).unwrap(), "let _ = get_most_recent_transactions(100);");
        let c = call_of(
            r#"{"function": "send_money", "args": {"recipient": "X", "amount": 98.7, "subject": "a\tb \"q\"", "date": "d"}}"#,
        );
        assert_eq!(call(SuiteName::Banking, &c).unwrap(), r#"let _ = send_money("X", 98.7, "a\tb \"q\"", "d");"#);
        let bad = call_of(r#"{"function": "send_money", "args": {"recipient": "X"}}"#);
        assert!(call(SuiteName::Banking, &bad).is_err());
        let unknown = call_of(r#"{"function": "rm_rf", "args": {}}"#);
        assert!(call(SuiteName::Slack, &unknown).is_err());
    }
}
