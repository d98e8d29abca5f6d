//! `lacuna serve` through its real transports: the binary as a child process, spoken to as a driver would —
//! JSON-RPC lines on its stdin/stdout, and HTTP on a port it picked.

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

mod support;
use support::{http_service, repo, scratch, worker_pids, Stdio_, PATIENCE};

const SUM_HOST: &str = "fn main() {\n    let xs = vec![1i64, 2, 3];\n    let total: i64 = agent!(\"sum xs\").unwrap();\n    println!(\"{total}\");\n}\n";

/// A host whose run takes a minute: what cancellation, time limits and SIGTERM stop.
const SLOW_HOST: &str = "fn main() {\n    std::thread::sleep(std::time::Duration::from_secs(60));\n    let n: i32 = agent!(\"a number\").unwrap();\n    println!(\"{n}\");\n}\n";

#[test]
fn stdio_checks_against_two_hosts_interleaved_and_stays_up_after_bad_input() {
    let dir = scratch(&[("sum.rs", SUM_HOST)]);
    let mut service = Stdio_::start(&[], dir.path());
    let primes = repo().join("examples/primes/host.rs");
    // Host A by path, host B by text, asked in turn; answers are matched by id.
    service.request(json!(1), "check", json!({"host": primes, "snippet": "xs"}));
    service.request(json!("b1"), "check", json!({"host": "sum.rs", "snippet": "xs.iter().sum()"}));
    service.request(
        json!(2),
        "check",
        json!({"host": primes, "snippet": "xs.iter().map(|x| x.to_string()).collect::<Vec<String>>()"}),
    );
    service.request(json!("b2"), "check", json!({"host_text": SUM_HOST, "snippet": "\"six\""}));
    let a1 = service.answer(&json!(1));
    assert_eq!(a1["result"]["accepted"], true, "{a1}");
    assert_eq!(a1["result"]["expected_type"], "Vec<i64>", "{a1}");
    assert_eq!(a1["result"]["host"], primes.display().to_string(), "{a1}");
    let b1 = service.answer(&json!("b1"));
    assert_eq!(b1["result"]["accepted"], true, "{b1}");
    assert_eq!(b1["result"]["expected_type"], "i64", "{b1}");
    let a2 = service.answer(&json!(2));
    assert_eq!(a2["result"]["accepted"], false, "{a2}");
    assert_eq!(a2["result"]["diagnostics"][0]["code"], "E0308", "{a2}");
    let b2 = service.answer(&json!("b2"));
    assert_eq!(b2["result"]["accepted"], false, "{b2}");
    assert_eq!(b2["result"]["diagnostics"][0]["code"], "E0308", "{b2}");
    assert_eq!(b2["result"]["task"], "sum xs", "{b2}");

    // Bad input of every kind gets an error that says what to do, and the service goes on.
    service.send("this is not json");
    let parse = service.answer(&Value::Null);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    let cases: [(Value, i64, &str); 6] = [
        (json!({"jsonrpc": "2.0", "id": 10, "method": "frobnicate"}), -32601, "no method `frobnicate`"),
        (json!({"id": 11, "method": "health"}), -32600, "\"jsonrpc\" must be \"2.0\""),
        (
            json!({"jsonrpc": "2.0", "id": 12, "method": "check", "params": {"host": "sum.rs"}}),
            -32602,
            "missing field `snippet`",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 13, "method": "check", "params": {"host": "sum.rs", "snippet": "1", "colour": 3}}),
            -32602,
            "unknown field `colour`",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 14, "method": "check", "params": {"host": "missing.rs", "snippet": "1"}}),
            -32003,
            "cannot read host missing.rs: no such file",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 15, "method": "check", "params": {"host": "sum.rs", "hole": 4, "snippet": "1"}}),
            -32003,
            "has 1 hole(s); there is no hole 4",
        ),
    ];
    for (message, code, says) in cases {
        let id = message["id"].clone();
        service.send(&message.to_string());
        let answer = service.answer(&id);
        assert_eq!(answer["error"]["code"], code, "{answer}");
        let text = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(text.contains(says), "{answer}");
    }
    let health = service.call(20, "health", json!({}));
    assert_eq!(health["result"]["status"], "ok", "{health}");
    assert_eq!(health["result"]["workers"], 2, "{health}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn stdio_cancellation_time_limits_and_size_limits() {
    let dir = scratch(&[("slow.rs", SLOW_HOST)]);
    // The default time limit (minutes): a first check, cold, may take a loaded machine many seconds.
    let mut service = Stdio_::start(&["--workers", "1", "--max-request-bytes", "2K"], dir.path());
    // A run that would take a minute does not hold up a check asked after it: the check's answer comes first.
    service.request(json!("slow"), "run", json!({"host": "slow.rs", "snippets": {"1": "5"}}));
    service.request(json!("quick"), "check", json!({"host_text": SUM_HOST, "snippet": "xs.iter().sum()"}));
    let line = service.lines.recv_timeout(PATIENCE).expect("an answer");
    let first: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(first["id"], "quick", "{first}");
    assert_eq!(first["result"]["accepted"], true, "{first}");
    // Cancelled, the run is answered as cancelled at once (its process is killed).
    service.send(&json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "slow"}}).to_string());
    let cancelled = service.answer(&json!("slow"));
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    // Over the size limit: refused unread, and the next request is served.
    let big = json!({"jsonrpc": "2.0", "id": "big", "method": "check", "params": {"host_text": "x".repeat(4096), "snippet": "1"}});
    service.send(&big.to_string());
    let refused = service.answer(&Value::Null);
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    let health = service.call(1, "health", json!({}));
    assert_eq!(health["result"]["status"], "ok", "{health}");
    assert_eq!(service.finish(), Some(0));

    // Over the time limit (a short one, which the minute the host sleeps passes however loaded the machine): a
    // timeout error, and the service goes on.
    let mut service = Stdio_::start(&["--request-timeout-ms", "3000"], dir.path());
    service.request(json!("late"), "run", json!({"host": "slow.rs", "snippets": {"1": "5"}}));
    let late = service.answer(&json!("late"));
    assert_eq!(late["error"]["code"], -32002, "{late}");
    assert!(late["error"]["message"].as_str().unwrap_or_default().contains("--request-timeout-ms"), "{late}");
    let health = service.call(2, "health", json!({}));
    assert_eq!(health["result"]["status"], "ok", "{health}");
    assert_eq!(service.finish(), Some(0));
}

/// A host whose type check takes rustc minutes (a constant it must evaluate), and which rust-analyzer never
/// evaluates: what a cancelled check stops.
const HEAVY_HOST: &str = "#[allow(long_running_const_eval)]\nconst SPIN: u64 = {\n    let mut i: u64 = 0;\n    while i < 50_000_000_000 {\n        i += 1;\n    }\n    i\n};\n\nfn main() {\n    let n: u64 = agent!(\"a number\").unwrap();\n    println!(\"{}\", n + SPIN);\n}\n";

/// The `rustc` processes `pid` or its descendants (a session's worker) started to check a program (not the ones
/// asked for facts at start-up).
fn rustc_children(pid: u32) -> Vec<u32> {
    // (pid, parent, name, checking)
    let mut processes: Vec<(u32, u32, String, bool)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid ...`; comm may hold spaces, so split after its closing parenthesis.
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let comm = head.split_once('(').map(|(_, c)| c).unwrap_or_default();
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        let id = head.split_whitespace().next().and_then(|p| p.parse::<u32>().ok());
        let checking = std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"no-codegen"));
        if let (Some(id), Some(ppid)) = (id, ppid) {
            processes.push((id, ppid, comm.to_owned(), checking));
        }
    }
    let descends = |mut p: u32| {
        for _ in 0..8 {
            let Some(&(_, parent, _, _)) = processes.iter().find(|(id, ..)| *id == p) else { return false };
            if parent == pid {
                return true;
            }
            p = parent;
        }
        false
    };
    processes
        .iter()
        .filter(|(id, _, comm, checking)| comm == "rustc" && *checking && descends(*id))
        .map(|p| p.0)
        .collect()
}

/// Waits (up to `limit`) for `done`; whether it came.
fn eventually(limit: Duration, done: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

#[test]
fn stdio_a_cancelled_check_or_turn_stops_its_rustc_and_changes_nothing() {
    let dir = scratch(&[("heavy.rs", HEAVY_HOST)]);
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let pid = service.child.id();
    service.request(json!("heavy"), "check", json!({"host_text": HEAVY_HOST, "snippet": "5"}));
    // rustc starts on the host (the checker's own check of it, before the snippet's): the request is in flight ...
    assert!(eventually(Duration::from_secs(30), || !rustc_children(pid).is_empty()), "rustc never started");
    // ... and is killed when the request is cancelled (its own limit, a minute, is far off).
    service.send(&json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "heavy"}}).to_string());
    let cancelled = service.answer(&json!("heavy"));
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    assert!(
        eventually(Duration::from_secs(20), || rustc_children(pid).is_empty()),
        "rustc still runs after the check was cancelled: {:?}",
        rustc_children(pid)
    );
    // The one worker is free for the next check; the cancelled host was not remembered as judged.
    let quick = service.call(2, "check", json!({"host_text": SUM_HOST, "snippet": "xs.iter().sum()"}));
    assert_eq!(quick["result"]["accepted"], true, "{quick}");

    // A session turn cancelled while it is checked: rustc is killed, and the turn changes nothing.
    let opened = service.call(3, "session.open", json!({"host": "heavy.rs"}));
    let heavy = opened["result"]["session"].clone();
    service.request(json!("turn"), "session.turn", json!({"session": heavy, "snippet": "let order = 5;\norder * 2"}));
    assert!(eventually(Duration::from_secs(30), || !rustc_children(pid).is_empty()), "rustc never started");
    service.send(&json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "turn"}}).to_string());
    let cancelled = service.answer(&json!("turn"));
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    assert!(eventually(Duration::from_secs(20), || rustc_children(pid).is_empty()), "the turn's rustc still runs");
    let state = service.call(4, "session.state", json!({"session": heavy}));
    assert_eq!((&state["result"]["turns"], &state["result"]["locals"]), (&json!(0), &json!([])), "{state}");
    // A cancel written right behind its request (one write, two lines) reaches it, though the request is long
    // (a snippet with 3 MB of comment: reading its JSON takes a while) and the cancel short: requests are
    // registered in the order they are read, not in the order their work gets going.
    let padded = format!("// {}\n6", "padding ".repeat(3 << 17));
    let check = json!({"jsonrpc": "2.0", "id": "at-once", "method": "check",
        "params": {"host_text": HEAVY_HOST, "snippet": padded}});
    let cancel = json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "at-once"}});
    service.send(&format!("{check}\n{cancel}"));
    let cancelled = service.answer(&json!("at-once"));
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    // Other sessions go on.
    let other = service.call(5, "session.open", json!({}));
    let other = other["result"]["session"].clone();
    let two = service.call(6, "session.turn", json!({"session": other, "snippet": "let a = 1;\na + 1"}));
    assert_eq!(two["result"]["value"], "2", "{two}");
    assert_eq!(service.finish(), Some(0));
}

/// A host whose function tells the test (a file appears) that a turn calling it runs.
const SIGNAL_HOST: &str = r#"
fn started() {
    std::fs::write("turn-started", "").expect("the test's directory is writable");
}

fn main() {
    let n: Result<u64, lacuna::HoleError> = agent!("a number");
}
"#;

#[test]
fn stdio_a_turn_cancelled_while_it_runs_stops_there() {
    let dir = scratch(&[("signal.rs", SIGNAL_HOST)]);
    let mut service = Stdio_::start(&[], dir.path());
    let opened = service.call(1, "session.open", json!({"host": "signal.rs"}));
    let session = opened["result"]["session"].clone();
    let first =
        service.call(2, "session.turn", json!({"session": session, "snippet": "let mut count: u64 = 0;\ncount"}));
    assert_eq!(first["result"]["value"], "0", "{first}");
    // A loop its budgets stop only after seconds (each round formats a number: its time budget, 10 s, runs out
    // long before its fuel); the test cancels it once it is seen running.
    let spin = "started();\nlet mut shown = String::new();\nwhile count < u64::MAX {\n    shown = count.to_string();\n    count += 1;\n}\ncount";
    service.request(json!("spin"), "session.turn", json!({"session": session, "snippet": spin}));
    let signal = dir.path().join("turn-started");
    assert!(eventually(Duration::from_secs(60), || signal.exists()), "the turn never started running");
    service.send(&json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "spin"}}).to_string());
    let cancelled = service.answer(&json!("spin"));
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    // The turn stopped as a fault that says it was cancelled (not one of its budgets), keeping what it changed.
    let saved = service.call(3, "session.save", json!({"session": session, "path": "spin.jsonl"}));
    assert!(saved["error"].is_null(), "{saved}");
    let transcript = std::fs::read_to_string(dir.path().join("spin.jsonl")).expect("the transcript is written");
    let last: Value = serde_json::from_str(transcript.lines().last().expect("turns")).expect("a JSON line");
    assert!(last["error"].as_str().is_some_and(|e| e.contains("cancelled")), "{transcript}");
    let counted = service.call(4, "session.turn", json!({"session": session, "snippet": "count > 0"}));
    assert_eq!(counted["result"]["value"], "true", "{counted}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn stdio_run_reports_what_the_host_printed_and_sigterm_stops_cleanly() {
    let dir = scratch(&[("sum.rs", SUM_HOST), ("slow.rs", SLOW_HOST)]);
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let ran = service.call(1, "run", json!({"host": "sum.rs", "snippets": {"1": "xs.iter().sum()"}}));
    assert_eq!(ran["result"]["stdout"], "6\n", "{ran}");
    assert_eq!(ran["result"]["exit_status"], 0, "{ran}");
    assert_eq!(ran["result"]["report"]["sites"][0]["accepted"], true, "{ran}");
    let rejected = service.call(2, "run", json!({"host": "sum.rs", "snippets": {"1": "\"six\""}}));
    assert_eq!(rejected["result"]["exit_status"], 101, "{rejected}");
    assert_eq!(rejected["result"]["report"]["sites"][0]["accepted"], false, "{rejected}");
    // With a model instead of snippets (a scripted one): its first reply is rejected, its second runs.
    std::fs::write(
        dir.path().join("replies.txt"),
        "=== reply\n```rust\n\"six\"\n```\n=== reply\n```rust\nxs.iter().sum()\n```\n",
    )
    .unwrap();
    let modelled = service.call(4, "run", json!({"host": "sum.rs", "model": "script:replies.txt"}));
    assert_eq!(modelled["result"]["stdout"], "6\n", "{modelled}");
    assert_eq!(modelled["result"]["report"]["sites"][0]["attempts"], 2, "{modelled}");
    let bad = service.call(3, "run", json!({"host": "sum.rs", "snippets": {"one": "1"}}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // SIGTERM with a run in flight: it is answered as cancelled, and the service exits 0.
    service.request(json!("slow"), "run", json!({"host": "slow.rs", "snippets": {"1": "5"}}));
    std::thread::sleep(Duration::from_millis(300));
    let pid = service.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    assert!(killed.success());
    let answer = service.answer(&json!("slow"));
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn http_serves_the_same_methods_in_parallel_and_shuts_down_on_request() {
    let dir = scratch(&[("sum.rs", SUM_HOST)]);
    let (mut child, url) = http_service(&["--max-request-bytes", "4K"], dir.path());
    let client = reqwest::blocking::Client::builder().timeout(PATIENCE).build().expect("client");
    let post = |body: String| {
        let response = client.post(&url).header("content-type", "application/json").body(body).send().expect("POST");
        let status = response.status().as_u16();
        (status, response.text().expect("body"))
    };
    let health: Value = client.get(format!("{url}/health")).send().expect("GET").json().expect("JSON");
    assert_eq!(health["status"], "ok", "{health}");
    // Two checks at once, from two threads.
    let bodies = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "check", "params": {"host": "sum.rs", "snippet": "xs.iter().sum()"}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "check", "params": {"host_text": SUM_HOST, "snippet": "xs.len()"}}),
    ];
    let answers: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = bodies
            .iter()
            .map(|body| scope.spawn(|| serde_json::from_str::<Value>(&post(body.to_string()).1).expect("JSON")))
            .collect();
        handles.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["result"]["accepted"], true, "{}", answers[0]);
    assert_eq!(answers[1]["result"]["accepted"], false, "{}", answers[1]);
    assert_eq!(answers[1]["result"]["diagnostics"][0]["code"], "E0308", "{}", answers[1]);
    // A notification has no answer; malformed and oversized bodies get JSON-RPC errors.
    let (status, _) = post(json!({"jsonrpc": "2.0", "method": "health"}).to_string());
    assert_eq!(status, 204);
    let (status, text) = post("{not json".into());
    assert_eq!(status, 200);
    assert!(text.contains("-32700"), "{text}");
    let (status, text) = post(format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"check\",\"params\":{{\"host_text\":\"{}\",\"snippet\":\"1\"}}}}",
        "y".repeat(8192)
    ));
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("-32001"), "{text}");
    let (_, text) = post(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}).to_string());
    assert!(text.contains("\"result\":{}"), "{text}");
    let status = child.wait().expect("the service exits");
    assert_eq!(status.code(), Some(0));
}

/// The README's driver example works against this binary.
#[test]
fn the_python_client_example_drives_the_service() {
    let out = Command::new("python3")
        .arg(repo().join("examples/service/client.py"))
        .env("LACUNA", env!("CARGO_BIN_EXE_lacuna"))
        .output()
        .expect("python3 runs (the test suite's scripts need it too)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("attempt 1: rejected: error[E0277]"), "{stdout}");
    assert!(stdout.contains("attempt 2: accepted by rustc as Vec<i64>"), "{stdout}");
    assert!(stdout.contains("run printed: [2, 7] exit status 0"), "{stdout}");
}

#[test]
fn stdio_sessions_keep_what_earlier_turns_left_and_run_side_by_side() {
    let dir = scratch(&[
        ("tools.rs", "fn greet(name: &str) -> String {\n    format!(\"hello, {name}\")\n}\n\nfn main() {}\n"),
        ("replies.txt", "=== reply\n```rust\nscore * \"3\"\n```\n=== reply\n```rust\nscore * 3\n```\n"),
    ]);
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let a = service.call(1, "session.open", json!({}))["result"]["session"].clone();
    let b = service.call(2, "session.open", json!({"host": "tools.rs"}))["result"]["session"].clone();
    assert_ne!(a, b);
    let turn = |service: &mut Stdio_, id: i64, session: &Value, snippet: &str| {
        service.call(id, "session.turn", json!({"session": session, "snippet": snippet}))
    };
    // Turn 1 defines a function and a value; turn 2 changes the value; turn 3 uses both.
    let t1 =
        turn(&mut service, 3, &a, "fn bump(x: u64) -> u64 { x + 10 }\nlet mut score: u64 = 1;\nprintln!(\"start\");");
    assert_eq!(t1["result"]["accepted"], true, "{t1}");
    assert_eq!(t1["result"]["stdout"], "start\n", "{t1}");
    // Session b, in between: the host's function is in scope there, not a's.
    let tb = turn(&mut service, 4, &b, "greet(\"ann\")");
    assert_eq!(tb["result"]["value"], "\"hello, ann\"", "{tb}");
    let tb2 = turn(&mut service, 5, &b, "bump(1)");
    assert_eq!(tb2["result"]["accepted"], false, "{tb2}");
    let t2 = turn(&mut service, 6, &a, "score *= 7;");
    assert_eq!(t2["result"]["accepted"], true, "{t2}");
    let t3 = turn(&mut service, 7, &a, "bump(score)");
    assert_eq!(t3["result"]["value"], "17", "{t3}");
    // A rejected turn changes nothing; a redefinition is what later turns see.
    let rejected = turn(&mut service, 8, &a, "let s: String = score;\ns");
    assert_eq!(rejected["result"]["accepted"], false, "{rejected}");
    assert!(rejected["result"]["diagnostics"][0].as_str().unwrap_or_default().contains("E0308"), "{rejected}");
    let redefined = turn(&mut service, 9, &a, "fn bump(x: u64) -> u64 { x * 100 }\nbump(score)");
    assert_eq!(redefined["result"]["value"], "700", "{redefined}");
    // A fault is the turn's error; what was there stays.
    let fault = turn(&mut service, 10, &a, "let v: Vec<u64> = Vec::new();\nv[score as usize]");
    assert!(fault["result"]["error"].as_str().unwrap_or_default().contains("index out of bounds"), "{fault}");
    // A turn a model writes from a task (a scripted model here): its ill-typed first reply is retried.
    let task = service.call(
        14,
        "session.turn",
        json!({"session": a, "task": "triple the score", "model": "script:replies.txt"}),
    );
    assert_eq!(task["result"]["value"], "21", "{task}");
    assert_eq!(task["result"]["attempts"], 2, "{task}");
    let state = service.call(11, "session.state", json!({"session": a}));
    assert_eq!(state["result"]["locals"], json!([{"name": "score", "ty": "u64"}]), "{state}");
    assert_eq!(state["result"]["items"], json!(["fn bump(x: u64) -> u64 { x * 100 }"]), "{state}");
    // The transcript replays into a new session with the same state (the model is not asked again).
    let saved = service.call(15, "session.save", json!({"session": a, "path": "a.jsonl"}));
    assert_eq!(saved["result"]["turns"], 6, "{saved}"); // the rejected turn is not in it; the faulting one is
    let replayed = service.call(16, "session.open", json!({"replay": "a.jsonl"}));
    let c = replayed["result"]["session"].clone();
    assert_eq!(replayed["result"]["replayed"][3]["value"], "700", "{replayed}");
    let replayed_state = service.call(17, "session.state", json!({"session": c}));
    assert_eq!(replayed_state["result"]["locals"], state["result"]["locals"], "{replayed_state}");
    let again = turn(&mut service, 18, &c, "bump(score)");
    assert_eq!(again["result"]["value"], "700", "{again}");
    let closed = service.call(12, "session.close", json!({"session": a}));
    assert_eq!(closed["result"], json!({}), "{closed}");
    let gone = turn(&mut service, 13, &a, "1");
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert!(gone["error"]["message"].as_str().unwrap_or_default().contains("session.open"), "{gone}");
    assert_eq!(service.finish(), Some(0));
}

/// A model-written turn whose code opens a hole of its own: the first reply is the turn, the second (rejected) and
/// third the nested hole's attempts.
const NESTING_REPLIES: &str = "=== reply\n```rust\nlet base: u64 = agent!(\"the answer to everything, as a \
number\").unwrap_or(0);\nbase + 1\n```\n=== reply\n```rust\n\"forty-two\"\n```\n=== reply\n```rust\n42\n```\n";

#[test]
fn stdio_a_model_turn_may_open_holes_and_a_replay_runs_their_code_again() {
    let dir = scratch(&[("tools.rs", "fn main() {}\n"), ("replies.txt", NESTING_REPLIES)]);
    let mut service = Stdio_::start(&[], dir.path());
    let turn = |service: &mut Stdio_, id: i64, session: &Value, snippet: &str| {
        service.call(id, "session.turn", json!({"session": session, "snippet": snippet}))
    };
    let opened = service.call(1, "session.open", json!({"host": "tools.rs"}));
    let a = opened["result"]["session"].clone();
    // The model writes the turn and, while it runs, the hole the turn's code opens (retried from its diagnostics).
    let task = service.call(
        2,
        "session.turn",
        json!({"session": a, "task": "the answer plus one", "model": "script:replies.txt"}),
    );
    assert_eq!(task["result"]["value"], "43", "{task}");
    assert_eq!(task["result"]["attempts"], 1, "{task}");
    // A turn written as code has no model for the holes it opens: that hole is an error value, the turn goes on.
    let plain = turn(&mut service, 3, &a, "agent!(\"a number\").map(|n: u64| n + base).map_err(|e| e.to_string())");
    assert!(plain["result"]["value"].as_str().unwrap_or_default().contains("no snippet"), "{plain}");
    // The transcript keeps the nested hole's code, and a replay runs it without a model (the script is used up).
    let saved = service.call(4, "session.save", json!({"session": a, "path": "a.jsonl"}));
    assert_eq!(saved["result"]["turns"], 2, "{saved}");
    let transcript = std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap();
    let first: Value = serde_json::from_str(transcript.lines().next().unwrap()).unwrap();
    assert_eq!(first["nested"][0]["snippet"], "42", "{transcript}");
    assert_eq!(first["task"], "the answer plus one", "{transcript}");
    let replayed = service.call(5, "session.open", json!({"replay": "a.jsonl"}));
    assert_eq!(replayed["result"]["replayed"][0]["value"], "43", "{replayed}");
    let b = replayed["result"]["session"].clone();
    let base = turn(&mut service, 6, &b, "base");
    assert_eq!(base["result"]["value"], "42", "{base}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn stdio_a_turn_cannot_reach_the_locals_it_is_denied() {
    // A benchmark's harness keeps the user's phone in the session and denies it to the agent's turns.
    let dir = scratch(&[
        (
            "world.rs",
            "#[derive(Debug)]\npub struct Phone { pub airplane: bool }\n#[derive(Debug)]\npub struct Carrier { pub \
             roaming: bool }\nimpl Carrier {\n    pub fn enable_roaming(&mut self) -> &'static str {\n        self.roaming = \
             true;\n        \"Roaming enabled\"\n    }\n}\n\nfn main() {}\n",
        ),
        ("replies.txt", "=== reply\n```rust\nphone.airplane = false;\n\"done\".to_string()\n```\n=== reply\n```rust\ncarrier.enable_roaming().to_string()\n```\n"),
    ]);
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let session = service.call(1, "session.open", json!({"host": "world.rs"}))["result"]["session"].clone();
    let turn = |service: &mut Stdio_, id: i64, snippet: &str, hidden: &[&str]| {
        service.call(id, "session.turn", json!({"session": session, "snippet": snippet, "hidden": hidden}))
    };
    let setup = turn(
        &mut service,
        2,
        "let mut phone = Phone { airplane: true };\nlet mut carrier = Carrier { roaming: false };",
        &[],
    );
    assert_eq!(setup["result"]["accepted"], true, "{setup}");
    // Denied: naming the phone is an unresolved name; nothing runs.
    let reach = turn(&mut service, 3, "phone.airplane = false;\ncarrier.enable_roaming()", &["phone"]);
    assert_eq!(reach["result"]["accepted"], false, "{reach}");
    assert_eq!(reach["result"]["kinds"], json!(["E0425"]), "{reach}");
    // Nor may a turn put a phone of its own in the local's place.
    let replace = turn(&mut service, 4, "let phone = Phone { airplane: false };", &["phone"]);
    assert_eq!(replace["result"]["accepted"], false, "{replace}");
    assert_eq!(replace["result"]["kinds"], json!(["hidden-local"]), "{replace}");
    // A model asked for the turn is retried from the same diagnostics, and what it may reach works.
    let task = service.call(
        5,
        "session.turn",
        json!({"session": session, "task": "turn roaming on", "model": "script:replies.txt", "hidden": ["phone"]}),
    );
    assert_eq!(
        (task["result"]["attempts"].clone(), task["result"]["value"].clone()),
        (json!(2), json!("\"Roaming enabled\"")),
        "{task}"
    );
    // The harness's own turn still reaches the phone, untouched by the denied turns.
    let after = turn(&mut service, 6, "(phone.airplane, carrier.roaming)", &[]);
    assert_eq!(after["result"]["value"], "(true, true)", "{after}");
    assert_eq!(service.finish(), Some(0));
}

#[test]
fn stdio_protocol_edges_cancel_with_an_id_shutdown_batches_big_ids_and_sigterm_with_stdin_open() {
    let dir = scratch(&[("slow.rs", SLOW_HOST)]);
    let mut service = Stdio_::start(&[], dir.path());
    // A cancel sent as a request (with an id of its own) is answered, whether or not it found its request.
    service.request(json!("slow"), "run", json!({"host": "slow.rs", "snippets": {"1": "5"}}));
    std::thread::sleep(Duration::from_millis(200));
    let cancel = service.call(1, "$/cancelRequest", json!({"id": "slow"}));
    assert_eq!(cancel["result"]["cancelled"], true, "{cancel}");
    assert_eq!(service.answer(&json!("slow"))["error"]["code"], -32800);
    let stray = service.call(2, "$/cancelRequest", json!({"id": "nothing-by-that-id"}));
    assert_eq!(stray["result"]["cancelled"], false, "{stray}");
    // An id beyond i64 is an id like any other, answered as sent.
    let big = u64::MAX;
    service.send(&format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"health"}}"#));
    let line = service.lines.recv_timeout(PATIENCE).expect("an answer");
    assert!(line.contains(&format!(r#""id":{big}"#)) && line.contains(r#""status":"ok""#), "{line}");
    // A batch is refused with a message that says so.
    service.send(r#"[{"jsonrpc":"2.0","id":3,"method":"health"}]"#);
    let line = service.lines.recv_timeout(PATIENCE).expect("an answer");
    assert!(line.contains("-32600") && line.contains("batches"), "{line}");
    // `shutdown` with bad params is answered with why, and nothing stops.
    let bad = service.call(4, "shutdown", json!({"now": true}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let health = service.call(5, "health", json!({}));
    assert_eq!(health["result"]["status"], "ok", "{health}");
    // A valid `shutdown` ends the service though its stdin stays open.
    let done = service.call(6, "shutdown", json!({}));
    assert_eq!(done["result"], json!({}), "{done}");
    assert_eq!(exit_within(&mut service.child, Duration::from_secs(20)), Some(0));

    // SIGTERM with stdin open: the service exits 0.
    let mut service = Stdio_::start(&[], dir.path());
    assert_eq!(service.call(1, "health", json!({}))["result"]["status"], "ok");
    let pid = service.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs").success());
    assert_eq!(exit_within(&mut service.child, Duration::from_secs(20)), Some(0));
}

/// The exit code of `child` once it has exited, waiting up to `limit` (`None`: still running, or killed).
fn exit_within(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// A cargo project as a person writes one: a library with derives and a dependency, and its policy in Cargo.toml.
const PANTRY_MANIFEST: &str = r#"[package]
name = "pantry"
version = "0.1.0"
edition = "2021"

[workspace]

[dependencies]
lacuna = { path = "LACUNA" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[package.metadata.lacuna]
crates = ["serde_json"]
"#;

const PANTRY_LIB: &str = r#"use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct Item {
    pub name: String,
    pub grams: u32,
}

pub mod shelf {
    use super::Item;

    pub struct Shelf {
        items: Vec<Item>,
    }

    impl Shelf {
        pub fn parse(json: &str) -> Result<Shelf, serde_json::Error> {
            Ok(Shelf { items: serde_json::from_str(json)? })
        }

        pub fn heaviest(&self) -> Option<&Item> {
            self.items.iter().max_by_key(|i| i.grams)
        }

        pub fn take(&mut self, name: &str) -> Option<Item> {
            let at = self.items.iter().position(|i| i.name == name)?;
            Some(self.items.remove(at))
        }
    }
}
"#;

/// `session.open` on a cargo project: its crate, derives and dependencies are in scope from the first turn, its
/// `[package.metadata.lacuna]` is the policy, a worker killed between turns comes back on the same project, and a
/// project that does not build is the open's error, with rustc's diagnostic.
#[test]
fn stdio_sessions_on_a_cargo_project_have_its_crate_dependencies_and_policy() {
    let lacuna = repo().join("crates/lacuna");
    let manifest = PANTRY_MANIFEST.replace("LACUNA", &lacuna.display().to_string());
    let dir = scratch(&[]);
    for (project, lib) in [("pantry", PANTRY_LIB), ("broken", "pub fn weight() -> u32 {\n    \"heavy\"\n}\n")] {
        std::fs::create_dir_all(dir.path().join(project).join("src")).unwrap();
        std::fs::write(
            dir.path().join(project).join("Cargo.toml"),
            manifest.replace("\"pantry\"", &format!("{project:?}")),
        )
        .unwrap();
        std::fs::write(dir.path().join(project).join("src/lib.rs"), lib).unwrap();
    }
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let opened = service.call(1, "session.open", json!({"host": "pantry"}));
    let a = opened["result"]["session"].clone();
    assert!(a.is_u64(), "{opened}");
    let turn = |service: &mut Stdio_, id: i64, snippet: &str| {
        service.call(id, "session.turn", json!({"session": a, "snippet": snippet}))
    };
    let loaded = turn(
        &mut service,
        2,
        "let mut shelf = shelf::Shelf::parse(r#\"[{\"name\": \"rice\", \"grams\": 1000}, {\"name\": \"tea\", \"grams\": 250}]\"#).unwrap();\nshelf.heaviest().map(|i| i.name.clone())",
    );
    assert_eq!(loaded["result"]["value"], "Some(\"rice\")", "{loaded}");
    // serde_json is allowed by the project's policy; a type error against a dependency's type is rustc's.
    let json = turn(&mut service, 3, "let v: serde_json::Value = serde_json::json!({\"n\": 2});\nv[\"n\"].as_u64()");
    assert_eq!(json["result"]["value"], "Some(2)", "{json}");
    let wrong = turn(&mut service, 4, "let v: serde_json::Value = serde_json::json!(1);\nv.len()");
    assert_eq!(wrong["result"]["accepted"], false, "{wrong}");
    assert!(wrong["result"]["diagnostics"][0].as_str().unwrap_or_default().contains("E0599"), "{wrong}");
    // serde is not in the policy's crates: naming it is refused, with how to allow the crate that defines the item
    // (serde re-exports serde_core's traits).
    let denied = turn(&mut service, 5, "let t: Result<Item, serde_json::Error> = serde_json::from_str(\"{}\");\nserde::de::Error::custom::<&str>(\"x\").to_string().len()");
    assert_eq!(denied["result"]["accepted"], false, "{denied}");
    assert_eq!(denied["result"]["kinds"][0], "L0101", "{denied}");
    assert!(denied["result"]["diagnostics"][0].to_string().contains("crates = [\\\"serde_core\\\"]"), "{denied}");
    let taken = turn(&mut service, 6, "let tea = shelf.take(\"tea\");\ntea.map(|i| i.grams)");
    assert_eq!(taken["result"]["value"], "Some(250)", "{taken}");
    // A worker killed from outside between turns: the session comes back on the project, as it was.
    for pid in worker_pids(service.child.id()) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    let again = turn(&mut service, 7, "shelf.heaviest().map(|i| i.grams)");
    let recovered = again["result"]["value"] == "Some(1000)"
        || (again["error"]["code"] == -32004 && again["error"]["data"]["restored"] == true);
    assert!(recovered, "{again}");
    let after = turn(&mut service, 8, "shelf.take(\"tea\").is_none()");
    assert_eq!(after["result"]["value"], "true", "{after}");
    // A project that does not build: the open fails with rustc's diagnostic, and the service stays up.
    let broken = service.call(9, "session.open", json!({"host": "broken/Cargo.toml"}));
    let message = broken["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("E0308") && message.contains("broken"), "{broken}");
    let plain = service.call(10, "session.open", json!({}));
    assert!(plain["result"]["session"].is_u64(), "{plain}");
    assert_eq!(service.finish(), Some(0));
}

/// A worker whose session closed cleanly takes the next session on the same host (warm); one whose session
/// faulted does not, nor one whose host keeps state in statics: the session after it gets a fresh process.
#[test]
fn stdio_a_worker_is_reused_after_a_clean_session_and_never_after_a_fault() {
    let counter = "use std::sync::atomic::{AtomicU32, Ordering};\n\nstatic CALLS: AtomicU32 = AtomicU32::new(0);\n\n\
                   fn pid() -> u32 {\n    CALLS.fetch_add(1, Ordering::Relaxed);\n    std::process::id()\n}\n\n\
                   fn main() {}\n";
    let dir = scratch(&[
        ("tools.rs", "fn pid() -> u32 {\n    std::process::id()\n}\n\nfn label() -> &'static str {\n    \"static\"\n}\n\nfn main() {}\n"),
        ("counter.rs", counter),
    ]);
    let mut service = Stdio_::start(&["--workers", "1"], dir.path());
    let mut next = 0;
    let mut session = |service: &mut Stdio_, host: &str, snippets: &[&str]| -> Vec<Value> {
        next += 10;
        let opened = service.call(next, "session.open", json!({"host": host}));
        let id = opened["result"]["session"].clone();
        let answers: Vec<Value> = (snippets.iter().enumerate())
            .map(|(k, s)| service.call(next + 1 + k as i64, "session.turn", json!({"session": id, "snippet": s})))
            .collect();
        let closed = service.call(next + 9, "session.close", json!({"session": id}));
        assert_eq!(closed["result"], json!({}), "{closed}");
        answers
    };
    let pid = |answer: &Value| answer["result"]["value"].as_str().unwrap_or_default().to_owned();
    let first = session(&mut service, "tools.rs", &["let kept = 7;\npid()"]);
    let second = session(&mut service, "tools.rs", &["pid()", "let v: Vec<u32> = Vec::new();\nlet i = 2;\nv[i]"]);
    let third = session(&mut service, "tools.rs", &["pid()", "kept"]);
    assert!(!pid(&first[0]).is_empty(), "{first:?}");
    assert_eq!(pid(&first[0]), pid(&second[0]), "the clean session's worker serves the next one");
    assert!(second[1]["result"]["error"].as_str().is_some_and(|e| e.contains("index out of bounds")), "{second:?}");
    assert_ne!(pid(&second[0]), pid(&third[0]), "a worker whose session faulted is not reused");
    // Nothing of the earlier sessions is in the next one.
    assert_eq!(third[1]["result"]["accepted"], false, "{third:?}");
    // A host with a static: what one session did to it would be seen by the next, so its worker is not reused.
    let counted = session(&mut service, "counter.rs", &["pid()"]);
    let again = session(&mut service, "counter.rs", &["pid()"]);
    assert!(!pid(&counted[0]).is_empty(), "{counted:?}");
    assert_ne!(pid(&counted[0]), pid(&again[0]), "a host that keeps state in statics gets a fresh worker");
    assert_eq!(service.finish(), Some(0));
}
