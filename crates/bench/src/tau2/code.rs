//! The Rust the harness writes into a task's session: the turn that loads the store, a task's expected actions
//! as calls on the host's tools (the oracle's turn, and the reference the reward compares with), and the last
//! turn, which reads the verdict.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::tools::{telecom_function, AirlineTool, Kind, MockTool, RetailTool};
use super::{Action, Domain, Task};
use crate::BenchError;

/// `receiver.tool(args..)` for one expected action.
pub fn call(domain: Domain, receiver: &str, action: &Action) -> Result<String, BenchError> {
    let unknown = || BenchError::Suite(format!("the {} host has no tool `{}`", domain.name(), action.name));
    let params = match domain {
        Domain::Retail => RetailTool::from_name(&action.name).ok_or_else(unknown)?.params(),
        Domain::Mock => MockTool::from_name(&action.name).ok_or_else(unknown)?.params(),
        Domain::Airline => AirlineTool::from_name(&action.name).ok_or_else(unknown)?.params(),
        Domain::Telecom => telecom_function(side(action), &action.name).ok_or_else(unknown)?.params,
    };
    let mut args = Vec::new();
    for (name, kind) in params {
        let value = match (action.arguments.get(*name), *kind) {
            (None | Some(Value::Null), Kind::OptText | Kind::OptBool | Kind::OptInt) => &Value::Null,
            (Some(value), _) => value,
            (None, _) => {
                return Err(BenchError::Suite(format!("an expected `{}` call has no argument `{name}`", action.name)))
            }
        };
        args.push(argument(&action.name, name, *kind, value)?);
    }
    if let Some(extra) = action.arguments.keys().find(|k| !params.iter().any(|(p, _)| p == k)) {
        return Err(BenchError::Suite(format!("`{}` takes no argument `{extra}`", action.name)));
    }
    Ok(format!("{receiver}.{}({})", action.name, args.join(", ")))
}

fn argument(tool: &str, name: &str, kind: Kind, value: &Value) -> Result<String, BenchError> {
    let bad = || BenchError::Suite(format!("`{tool}`'s argument `{name}` is not {}: {value}", describe(kind)));
    match kind {
        Kind::Text => Ok(literal(&text(value).ok_or_else(bad)?)),
        Kind::OptText if value.is_null() => Ok("None".to_owned()),
        Kind::OptText => Ok(format!("Some({})", literal(&text(value).ok_or_else(bad)?))),
        Kind::Count => Ok(whole(value).filter(|n| *n >= 0).ok_or_else(bad)?.to_string()),
        Kind::Int => Ok(whole(value).ok_or_else(bad)?.to_string()),
        Kind::Bool => Ok(value.as_bool().ok_or_else(bad)?.to_string()),
        Kind::OptBool if value.is_null() => Ok("None".to_owned()),
        Kind::OptBool => Ok(format!("Some({})", value.as_bool().ok_or_else(bad)?)),
        Kind::OptInt if value.is_null() => Ok("None".to_owned()),
        Kind::OptInt => Ok(format!("Some({})", whole(value).ok_or_else(bad)?)),
        // `{:?}` keeps the point: 2 is written `2.0`, a float literal.
        Kind::Float => Ok(format!("{:?}", value.as_f64().filter(|f| f.is_finite()).ok_or_else(bad)?)),
        Kind::Choice(choice) => {
            let wanted = value.as_str().ok_or_else(bad)?;
            let (_, variant) = choice.variants.iter().find(|(name, _)| *name == wanted).ok_or_else(bad)?;
            Ok(format!("{}::{variant}", choice.ty))
        }
        Kind::Records(record) => {
            let mut items = Vec::new();
            for item in value.as_array().ok_or_else(bad)? {
                let object = item.as_object().ok_or_else(bad)?;
                let mut fields = Vec::new();
                for (field, kind) in record.fields {
                    let field_value = object.get(*field).ok_or_else(|| {
                        BenchError::Suite(format!("`{tool}`'s argument `{name}` has an item without `{field}`: {item}"))
                    })?;
                    fields.push(argument(tool, &format!("{name}.{field}"), *kind, field_value)?);
                }
                if let Some(extra) = object.keys().find(|k| !record.fields.iter().any(|(f, _)| f == k)) {
                    return Err(BenchError::Suite(format!(
                        "`{tool}`'s argument `{name}` has an unknown field `{extra}`"
                    )));
                }
                items.push(format!("{}::new({})", record.ty, fields.join(", ")));
            }
            Ok(format!("&[{}]", items.join(", ")))
        }
        Kind::TextList => {
            let items = value.as_array().ok_or_else(bad)?;
            let items: Option<Vec<String>> = items.iter().map(|v| text(v).map(|t| literal(&t))).collect();
            Ok(format!("&[{}]", items.ok_or_else(bad)?.join(", ")))
        }
    }
}

/// A whole number, written as τ² writes one (`3`, or `3.0` where Python would take it as an `int`).
fn whole(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| value.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64))
}

/// τ²'s arguments are strings; a number where a string is meant (a zip code written as digits) is its text.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn describe(kind: Kind) -> String {
    match kind {
        Kind::Text => "a string".to_owned(),
        Kind::TextList => "a list of strings".to_owned(),
        Kind::OptText => "a string or null".to_owned(),
        Kind::Count => "a whole number, not negative".to_owned(),
        Kind::Int => "a whole number".to_owned(),
        Kind::Choice(choice) => {
            let names: Vec<String> = choice.variants.iter().map(|(name, _)| format!("{name:?}")).collect();
            format!("one of {}", names.join(", "))
        }
        Kind::Records(record) => {
            let fields: Vec<&str> = record.fields.iter().map(|(field, _)| *field).collect();
            format!("a list of objects with {}", fields.join(", "))
        }
        Kind::Bool => "true or false".to_owned(),
        Kind::OptBool => "true, false or null".to_owned(),
        Kind::Float => "a number".to_owned(),
        Kind::OptInt => "a whole number or null".to_owned(),
    }
}

/// A Rust string literal for `text` (`Debug` escapes exactly what a literal needs).
pub fn literal(text: &str) -> String {
    format!("{text:?}")
}

/// Whose call it is: "assistant" or "user".
fn side(action: &Action) -> &'static str {
    if action.by_user() {
        "user"
    } else {
        "assistant"
    }
}

/// The session local a call is made on: the store, or (telecom) the customer's phone.
fn receiver(domain: Domain, action: &Action) -> &'static str {
    if domain.two_sided() && action.by_user() {
        PHONE
    } else {
        domain.local()
    }
}

/// The session local of a two-sided domain's user's side, which the agent's turns are denied.
pub const PHONE: &str = "phone";

/// The harness's turn after every call of a two-sided domain: the carrier's state carried to the phone and a
/// payment back, as τ²'s environment syncs after each tool call.
pub fn sync_turn(domain: Domain) -> String {
    format!("let _ = {}.sync(&mut {PHONE});", domain.local())
}

/// Calls on whichever side each is, each followed by the sync (`let _ = telecom.sync(&mut phone);`): the scene's
/// calls, or the user's turn in a two-sided task (the user's next run of expected actions, on their phone).
pub fn two_sided_calls(domain: Domain, calls: &[Action]) -> Result<String, BenchError> {
    let mut code = String::new();
    for action in calls {
        code.push_str(&format!(
            "let _ = {};
{}
",
            call(domain, receiver(domain, action), action)?,
            sync_turn(domain)
        ));
    }
    Ok(code)
}

/// A user model's use of one of the phone's tools: the tool's answer as the turn's value, the sync after it. An
/// unknown tool, or one of the task's scene-setting functions or assertions, is refused with what is known.
pub fn phone_tool_turn(domain: Domain, name: &str, arguments: Map<String, Value>) -> Result<String, BenchError> {
    if !telecom_function("user", name).is_some_and(|f| f.tool) {
        let known: Vec<&str> = super::tools::PHONE.iter().filter(|f| f.tool).map(|f| f.name).collect();
        return Err(BenchError::Suite(format!("your phone has no tool `{name}` (it has: {})", known.join(", "))));
    }
    let action = Action { name: name.to_owned(), arguments, compare_args: None, requestor: Some("user".to_owned()) };
    Ok(format!("{{\n    let shown = {};\n    {}\n    shown\n}}", call(domain, PHONE, &action)?, sync_turn(domain)))
}

/// The first turn of every task: the store, loaded from `db` (the suite's database, or the task's own with its
/// initial data merged in), as a session local, with the task's initial calls made on it. A two-sided domain's
/// phone is loaded from `user_db` beside it, and the scene set on both sides.
pub fn setup_turn(domain: Domain, task: &Task, db: &Path, user_db: Option<&Path>) -> Result<String, BenchError> {
    if let (true, Some(user_db)) = (domain.two_sided(), user_db) {
        return Ok(format!(
            "let mut {} = {}::load({}).expect(\"the {} database\");\nlet mut {PHONE} = Phone::load({}).expect(\"the \
             user's phone\");\n{}{}",
            domain.local(),
            domain.store_type(),
            literal(&db.display().to_string()),
            domain.name(),
            literal(&user_db.display().to_string()),
            two_sided_calls(domain, &task.initial_calls)?,
            sync_turn(domain),
        ));
    }
    Ok(format!(
        "let mut {} = {}::load({}).expect(\"the {} database\");\n{}",
        domain.local(),
        domain.store_type(),
        literal(&db.display().to_string()),
        domain.name(),
        actions(domain, domain.local(), &task.initial_calls)?
    ))
}

/// The expected actions as statements on `receiver`, each result ignored (some are meant to fail).
pub fn actions(domain: Domain, receiver: &str, actions: &[Action]) -> Result<String, BenchError> {
    let mut code = String::new();
    for action in actions.iter().filter(|a| !domain.retired_tools().contains(&a.name.as_str())) {
        code.push_str(&format!("let _ = {};\n", call(domain, receiver, action)?));
    }
    Ok(code)
}

/// The oracle agent's turn: exactly the task's expected actions, through the same tools, then a reply that says
/// what the task wants the customer told. (A two-sided task's oracle makes its first run of agent actions; see
/// [`oracle_segment`].)
pub fn oracle_turn(domain: Domain, task: &Task) -> Result<String, BenchError> {
    if domain.two_sided() {
        return oracle_segment(domain, task, 0);
    }
    Ok(format!("{}{}.to_string()", actions(domain, domain.local(), &task.actions)?, literal(&oracle_reply(task))))
}

fn oracle_reply(task: &Task) -> String {
    let mut reply = "Done: everything you asked for is taken care of.".to_owned();
    if !task.communicate_info.is_empty() {
        reply.push_str(&format!(" For your records: {}.", task.communicate_info.join("; ")));
    }
    reply
}

/// The oracle's turn `k` of a two-sided task: its `k`th run of agent actions, then what the customer is to do
/// next on the phone (the next run of user actions), or that all is done.
pub fn oracle_segment(domain: Domain, task: &Task, k: usize) -> Result<String, BenchError> {
    let segments = super::segments(&task.actions);
    let (agent, user) = segments.get(k).map(|(a, u)| (a.as_slice(), u.as_slice())).unwrap_or((&[], &[]));
    let reply = match user {
        [] => oracle_reply(task),
        asks => {
            let names: Vec<&str> = asks.iter().map(|a| a.name.as_str()).collect();
            format!("Please do this on your phone, in order: {}.", names.join(", "))
        }
    };
    Ok(format!("{}{}.to_string()", actions(domain, domain.local(), agent)?, literal(&reply)))
}

/// The last turn: a fresh store with the initial calls and the expected actions replayed on it, compared with the
/// session's store; and the task's assertions, evaluated on the session's store.
pub fn reward_turn(domain: Domain, task: &Task, db: &Path) -> Result<String, BenchError> {
    if domain.two_sided() {
        return two_sided_reward_turn(domain, task);
    }
    let replay = actions(domain, "expected", &task.initial_calls)? + &actions(domain, "expected", &task.actions)?;
    let mut checks = Vec::new();
    for (check, value) in &task.assertions {
        checks.push(format!("{} == {value}", call(domain, domain.local(), check)?));
    }
    Ok(format!(
        "{{\n    let mut expected = {}::load({}).expect(\"the {} database\");\n{}    let assertions: Vec<bool> = vec![{}];\n    {}.verdict(&expected, &assertions)\n}}",
        domain.store_type(),
        literal(&db.display().to_string()),
        domain.name(),
        replay.lines().map(|l| format!("    {l}\n")).collect::<String>(),
        checks.join(", "),
        domain.local()
    ))
}

/// A two-sided task's last turn: its assertions on both sides (an assertion that answers `Result` holds when it
/// is `Ok` of the value asked), and both sides' calls. Its tasks are scored on assertions, not records.
fn two_sided_reward_turn(domain: Domain, task: &Task) -> Result<String, BenchError> {
    let mut checks = Vec::new();
    for (check, value) in &task.assertions {
        let fallible = telecom_function(side(check), &check.name).is_some_and(|f| f.fallible);
        let expected = if fallible { format!("Ok({value})") } else { value.to_string() };
        checks.push(format!("{} == {expected}", call(domain, receiver(domain, check), check)?));
    }
    Ok(format!(
        "{{\n    let assertions: Vec<bool> = vec![{}];\n    {}.verdict(&{PHONE}, &assertions)\n}}",
        checks.join(", "),
        domain.local()
    ))
}

/// What the last turn says: the tool calls the agent made and the records that differ from the expected ones.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct Verdict {
    pub tool_calls: u64,
    pub diff: Vec<String>,
    #[serde(default)]
    pub assertions: Vec<bool>,
    /// The calls made on the store, each `{"name", "arguments"}`, the scene's first.
    #[serde(default)]
    pub trace: Vec<Value>,
}

/// Reads the last turn's value: the `Debug` text of the JSON string the host's `verdict` returns.
pub fn parse_verdict(value: &str) -> Result<Verdict, String> {
    let json: String =
        serde_json::from_str(value).map_err(|e| format!("the verdict is not a string ({e}): {value}"))?;
    serde_json::from_str(&json).map_err(|e| format!("the verdict is not JSON ({e}): {json}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_take_the_methods_parameter_order() {
        let action: Action = serde_json::from_value(serde_json::json!({
            "name": "exchange_delivered_order_items",
            "arguments": {"payment_method_id": "gift_card_1", "new_item_ids": ["2"], "order_id": "#W1", "item_ids": ["1"]}
        }))
        .unwrap();
        assert_eq!(
            call(Domain::Retail, "retail", &action).unwrap(),
            r##"retail.exchange_delivered_order_items("#W1", &["1"], &["2"], "gift_card_1")"##
        );
    }

    #[test]
    fn structured_arguments_become_the_hosts_values() {
        let action: Action = serde_json::from_value(serde_json::json!({
            "name": "book_reservation",
            "arguments": {
                "user_id": "sophia_silva_7557", "origin": "ORD", "destination": "PHL", "flight_type": "one_way",
                "cabin": "basic_economy", "flights": [{"flight_number": "HAT271", "date": "2024-05-26"}],
                "passengers": [{"first_name": "Sophia", "last_name": "Silva", "dob": "1957-10-05"}],
                "payment_methods": [{"payment_id": "certificate_8045380", "amount": 348}],
                "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"
            }
        }))
        .unwrap();
        expect_test::expect![[r#"airline.book_reservation("sophia_silva_7557", "ORD", "PHL", FlightType::OneWay, Cabin::BasicEconomy, &[FlightInfo::new("HAT271", "2024-05-26")], &[Passenger::new("Sophia", "Silva", "1957-10-05")], &[Payment::new("certificate_8045380", 348)], 0, 0, Insurance::No)"#]]
            .assert_eq(&call(Domain::Airline, "airline", &action).unwrap());
        let mut bad = action.clone();
        bad.arguments.insert("cabin".into(), serde_json::json!("first"));
        expect_test::expect![[
            r#"`book_reservation`'s argument `cabin` is not one of "basic_economy", "economy", "business": "first""#
        ]]
        .assert_eq(&call(Domain::Airline, "airline", &bad).unwrap_err().to_string());
        let mut missing = action;
        missing.arguments.insert("passengers".into(), serde_json::json!([{"first_name": "Sophia"}]));
        assert!(call(Domain::Airline, "airline", &missing).unwrap_err().to_string().contains("without `last_name`"));
    }

    #[test]
    fn actions_naming_a_retired_tool_are_left_out() {
        let expected: Vec<Action> = serde_json::from_value(serde_json::json!([
            {"name": "get_item_details", "arguments": {"item_id": "4107812777"}},
            {"name": "get_order_details", "arguments": {"order_id": "#W1"}}
        ]))
        .unwrap();
        assert_eq!(
            actions(Domain::Retail, "retail", &expected).unwrap(),
            "let _ = retail.get_order_details(\"#W1\");\n"
        );
        assert!(call(Domain::Retail, "retail", &expected[0]).is_err());
    }

    #[test]
    fn unknown_tools_and_arguments_are_errors() {
        let unknown: Action = serde_json::from_value(serde_json::json!({"name": "delete_everything"})).unwrap();
        assert!(call(Domain::Retail, "retail", &unknown).unwrap_err().to_string().contains("no tool"));
        let extra: Action = serde_json::from_value(
            serde_json::json!({"name": "get_user_details", "arguments": {"user_id": "a", "pin": "1"}}),
        )
        .unwrap();
        assert!(call(Domain::Retail, "retail", &extra).unwrap_err().to_string().contains("`pin`"));
    }

    #[test]
    fn verdicts_read_back() {
        let verdict = parse_verdict(r#""{\"tool_calls\":3,\"diff\":[\"order #W1: differs\"]}""#).unwrap();
        assert_eq!(
            verdict,
            Verdict { tool_calls: 3, diff: vec!["order #W1: differs".into()], assertions: vec![], trace: vec![] }
        );
        assert!(parse_verdict("()").is_err());
    }
}
