//! The fault suite: turns written to take a service down — nested past any parser's stack, recursing without
//! end (on the turn's thread and on a thread it starts), panicking in a destructor while a panic unwinds, dropping
//! a list too long for drop glue's recursion, never ending, allocating without bound, a host tool that panics —
//! sent through `lacuna serve` (stdio and HTTP) with two other sessions open. Every one is answered, the service
//! stays up, and the other sessions keep their locals. A turn that does end its process (its session's worker)
//! is answered with how, and its session is restored from its transcript.

use std::time::Duration;

use serde_json::{json, Value};

mod support;
use support::{http_service, scratch, worker_pids, Stdio_, PATIENCE};

/// A host whose tool panics: the turn that calls it faults; nothing else does.
const TOOLS_HOST: &str = r#"
pub fn lookup(id: u32) -> String {
    if id == 0 {
        panic!("the lookup tool failed on id 0");
    }
    format!("item-{id}")
}

fn main() {
    let n: Result<u32, lacuna::HoleError> = agent!("a number");
}
"#;

/// The turns (the one that ends its worker first: a restore replays the turns before it), each with what its answer may be: rejected before it runs, run with a fault (an error value), or
/// the end of its worker (a JSON-RPC error that says so, the session restored).
fn fault_turns() -> Vec<(&'static str, String)> {
    vec![
        (
            "drop glue of a 4,000,000-link list",
            "enum Chain {\n    Link(u64, Box<Chain>),\n    End,\n}\nlet mut c = Chain::End;\n\
             for i in 0..4_000_000u64 {\n    c = Chain::Link(i, Box::new(c));\n}\ndrop(c);\n1"
                .into(),
        ),
        ("nested 3000 deep", format!("{}1{}", "(".repeat(3000), ")".repeat(3000))),
        (
            "runaway recursion",
            "fn dive(n: u64) -> u64 { if n == u64::MAX { 0 } else { 1 + dive(n + 1) } }\ndive(0)".into(),
        ),
        (
            "runaway recursion on a scoped thread",
            "fn deep(n: u64) -> u64 { if n == 0 { 0 } else { 1 + deep(n - 1) } }\n\
             std::thread::scope(|s| s.spawn(|| deep(100_000_000)).join().unwrap())"
                .into(),
        ),
        (
            "a panic in a destructor while a panic unwinds",
            "struct Guard;\nimpl Drop for Guard {\n    fn drop(&mut self) {\n        panic!(\"guard\");\n    }\n}\n\
             let _g = Guard;\nlet v: Vec<u64> = Vec::new();\nlet i = 3;\nv[i]"
                .into(),
        ),
        (
            "a panic payload whose destructor panics",
            "struct Payload;\nimpl std::ops::Drop for Payload {\n    fn drop(&mut self) { panic!(\"payload\") }\n}\n\
             let n: u64 = std::panic::panic_any(Payload);\nn"
                .into(),
        ),
        (
            "an endless loop as the turn's value",
            "let mut spins: u64 = 0;\nloop {\n    spins = spins.wrapping_add(1);\n}".into(),
        ),
        ("an allocation bomb", "let v: Vec<u8> = vec![7; 1 << 40];\nv.len()".into()),
        ("a thread that never ends", "std::thread::scope(|s| {\n    s.spawn(|| loop {});\n});\n1".into()),
        ("a host tool that panics", "lookup(0)".into()),
    ]
}

/// What a fault turn's answer must be: a turn outcome (rejected, or a fault), or the worker's end with the session
/// restored. Never silence, never a success.
fn assert_contained(what: &str, answer: &Value) {
    if let Some(error) = answer.get("error") {
        assert_eq!(error["code"], -32004, "{what}: an error other than the worker's end: {answer}");
        assert_eq!(error["data"]["restored"], true, "{what}: {answer}");
        return;
    }
    let result = &answer["result"];
    let rejected = result["accepted"] == false && !result["diagnostics"].as_array().is_none_or(Vec::is_empty);
    let faulted = result["accepted"] == true && result["error"].is_string();
    assert!(rejected || faulted, "{what}: neither rejected nor a fault: {answer}");
}

#[test]
fn stdio_every_fault_turn_is_answered_and_other_sessions_keep_their_locals() {
    let dir = scratch(&[("tools.rs", TOOLS_HOST)]);
    let mut service = Stdio_::start(&[], dir.path());
    let a = service.call(1, "session.open", json!({}))["result"]["session"].clone();
    let b = service.call(2, "session.open", json!({}))["result"]["session"].clone();
    let kept =
        service.call(3, "session.turn", json!({"session": a, "snippet": "let kept = vec![1, 2, 3];\nkept.len()"}));
    assert_eq!(kept["result"]["value"], "3", "{kept}");
    let named = service.call(4, "session.turn", json!({"session": b, "snippet": "let name = String::from(\"b\");"}));
    assert_eq!(named["result"]["accepted"], true, "{named}");
    let c = service.call(5, "session.open", json!({"host": "tools.rs"}))["result"]["session"].clone();
    let before = service.call(6, "session.turn", json!({"session": c, "snippet": "let mark = lookup(7);\nmark.len()"}));
    assert_eq!(before["result"]["value"], "6", "{before}");

    let mut id = 100;
    let mut ended = Vec::new();
    for (what, turn) in fault_turns() {
        id += 1;
        let answer = service.call(id, "session.turn", json!({"session": c, "snippet": turn}));
        assert_contained(what, &answer);
        if answer.get("error").is_some() {
            ended.push(what);
        }
        // The service is up, and the faulted session still has what it had.
        id += 1;
        let health = service.call(id, "health", json!({}));
        assert_eq!(health["result"]["status"], "ok", "after {what}: {health}");
        id += 1;
        let mark = service.call(id, "session.turn", json!({"session": c, "snippet": "mark.clone()"}));
        assert_eq!(mark["result"]["value"], "\"item-7\"", "after {what}: {mark}");
    }
    // Drop glue of a long list overflows any stack: that turn ends its worker (the others are contained in it).
    assert_eq!(ended, ["drop glue of a 4,000,000-link list"]);

    let state = service.call(7, "session.state", json!({"session": a}));
    assert_eq!(state["result"]["locals"][0]["name"], "kept", "{state}");
    let len = service.call(8, "session.turn", json!({"session": a, "snippet": "kept.iter().sum::<i32>()"}));
    assert_eq!(len["result"]["value"], "6", "{len}");
    let name = service.call(9, "session.turn", json!({"session": b, "snippet": "name.clone()"}));
    assert_eq!(name["result"]["value"], "\"b\"", "{name}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn stdio_a_turn_that_aborts_its_worker_is_answered_and_its_session_restored() {
    let dir = scratch(&[]);
    // Safe mode off, so a turn can end its own process the plainest way.
    let mut service = Stdio_::start(&["--unconfined"], dir.path());
    let a = service.call(1, "session.open", json!({}))["result"]["session"].clone();
    let b = service.call(2, "session.open", json!({}))["result"]["session"].clone();
    service.call(3, "session.turn", json!({"session": a, "snippet": "let total = 40 + 2;"}));
    service.call(4, "session.turn", json!({"session": b, "snippet": "let other = 7;"}));
    let aborted = service.call(5, "session.turn", json!({"session": a, "snippet": "std::process::abort()"}));
    assert_eq!(aborted["error"]["code"], -32004, "{aborted}");
    let message = aborted["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("SIGABRT") && message.contains("restored"), "{aborted}");
    assert_eq!(aborted["error"]["data"]["replayed"], 1, "{aborted}");
    // Restored as it was before the turn, in a new worker; the other session never noticed.
    let total = service.call(6, "session.turn", json!({"session": a, "snippet": "total"}));
    assert_eq!(total["result"]["value"], "42", "{total}");
    let other = service.call(7, "session.turn", json!({"session": b, "snippet": "other * 2"}));
    assert_eq!(other["result"]["value"], "14", "{other}");
    // A worker killed from outside between turns: the next turn finds it gone and restores the session first.
    let workers = worker_pids(service.child.id());
    assert!(workers.len() >= 2, "a worker per session (and a spare): {workers:?}");
    for pid in &workers {
        let _ = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    let again = service.call(8, "session.turn", json!({"session": b, "snippet": "other + 1"}));
    let recovered = again["result"]["value"] == "8"
        || (again["error"]["code"] == -32004 && again["error"]["data"]["restored"] == true);
    assert!(recovered, "{again}");
    let after = service.call(9, "session.turn", json!({"session": b, "snippet": "other + 2"}));
    assert_eq!(after["result"]["value"], "9", "{after}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn http_fault_turns_are_answered_and_the_service_stays_up() {
    let dir = scratch(&[("tools.rs", TOOLS_HOST)]);
    let (mut child, url) = http_service(&[], dir.path());
    let client = reqwest::blocking::Client::builder().timeout(PATIENCE).build().expect("client");
    let call = |id: i64, method: &str, params: Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        client.post(&url).json(&body).send().and_then(|r| r.json()).expect("an answer over HTTP")
    };
    let a = call(1, "session.open", json!({}))["result"]["session"].clone();
    call(2, "session.turn", json!({"session": a, "snippet": "let kept = 5;"}));
    let c = call(3, "session.open", json!({"host": "tools.rs"}))["result"]["session"].clone();
    for (n, (what, turn)) in fault_turns().into_iter().enumerate().filter(|(n, _)| [0, 1, 2, 4, 9].contains(n)) {
        let answer = call(100 + n as i64, "session.turn", json!({"session": c, "snippet": turn}));
        assert_contained(what, &answer);
    }
    let kept = call(4, "session.turn", json!({"session": a, "snippet": "kept * 3"}));
    assert_eq!(kept["result"]["value"], "15", "{kept}");
    let shutdown = call(5, "shutdown", json!({}));
    assert_eq!(shutdown["result"], json!({}), "{shutdown}");
    let start = std::time::Instant::now();
    while child.try_wait().expect("the service's status").is_none() {
        assert!(start.elapsed() < Duration::from_secs(30), "the service did not stop after `shutdown`");
        std::thread::sleep(Duration::from_millis(50));
    }
}
