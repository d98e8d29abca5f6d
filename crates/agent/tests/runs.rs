//! Whole runs with a model in the loop: a host program compiled and run by the engine, its holes filled by an
//! [`Agent`] talking HTTP to a chat-completions server on 127.0.0.1 with canned replies. Real checker, real
//! rustc, real loading; only the model's words are scripted.
//!
//! Runs redirect the process's stdout to read what the host printed, so they go one at a time.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lacuna_agent::{
    Agent, AgentOptions, HttpOptions, Llm, OpenAiCompatible, Recorder, Replay, Sampling, Scripted, Summary,
};
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, Outcome, RunOptions, RunReport};
use libtest_mimic::{Arguments, Failed, Trial};
use support::{Canned, ChatServer};

type RunTest = fn(&Engine) -> Result<(), Failed>;

/// The depth cap the engine runs with here (small, so the cap test is quick).
const MAX_DEPTH: u32 = 3;

fn main() {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let checker = Checker::new(CheckerOptions::default()).unwrap_or_else(|e| {
        eprintln!("cannot start the checker: {e}");
        std::process::exit(2);
    });
    let options = RunOptions { max_depth: MAX_DEPTH, ..RunOptions::default() };
    let engine = Engine::new(checker, options).unwrap_or_else(|e| {
        eprintln!("cannot start the engine: {e}");
        std::process::exit(2);
    });
    let engine = Arc::new(Mutex::new(engine));
    let tests: [(&str, RunTest); 13] = [
        ("a_rejection_is_retried_with_its_diagnostics", a_rejection_is_retried_with_its_diagnostics),
        ("a_rejected_attempt_changes_nothing", a_rejected_attempt_changes_nothing),
        ("a_reply_without_code_is_a_failed_attempt", a_reply_without_code_is_a_failed_attempt),
        ("attempts_run_out_as_rejected", attempts_run_out_as_rejected),
        ("holes_nest_and_the_depth_cap_stops_them", holes_nest_and_the_depth_cap_stops_them),
        ("holes_written_in_generated_code_nest_three_deep", holes_written_in_generated_code_nest_three_deep),
        ("generated_code_fans_out_to_holes_on_threads", generated_code_fans_out_to_holes_on_threads),
        ("the_depth_cap_stops_holes_nested_in_generated_code", the_depth_cap_stops_holes_nested_in_generated_code),
        ("nested_holes_in_methods_generic_functions_and_moves", nested_holes_in_methods_generic_functions_and_moves),
        (
            "a_runtime_fault_is_the_holes_error_unless_retry_is_on",
            a_runtime_fault_is_the_holes_error_unless_retry_is_on,
        ),
        ("model_failures_are_hole_errors_and_the_host_goes_on", model_failures_are_hole_errors_and_the_host_goes_on),
        ("named_models_answer_their_holes", named_models_answer_their_holes),
        ("a_recorded_run_replays_without_the_server", a_recorded_run_replays_without_the_server),
    ];
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            let engine = engine.clone();
            Trial::test(name, move || test(&engine.lock().unwrap_or_else(|p| p.into_inner())))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn openai(server: &ChatServer) -> Arc<dyn Llm> {
    let http = HttpOptions {
        timeout: Duration::from_secs(20),
        max_retries: 1,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(20),
    };
    Arc::new(OpenAiCompatible::new(&server.openai_url(), None, "test-model", Sampling::default(), http).unwrap())
}

fn options(max_attempts: u32) -> AgentOptions {
    AgentOptions { max_attempts, ..AgentOptions::default() }
}

/// Runs `host` with `agent` filling its holes: what the host printed, the report, the agent's summary.
fn run(engine: &Engine, host: &str, agent: Agent) -> Result<(String, RunReport, Summary), Failed> {
    let loaded = engine.load("host.rs", host).map_err(|e| format!("the host does not load: {e}"))?;
    let agent = Arc::new(agent);
    let source: Arc<dyn lacuna_engine::SnippetSource> = agent.clone();
    let (stdout, report) = lacuna_engine::capture::stdout(|| engine.run_with(&loaded, source))
        .map_err(|e| format!("cannot capture stdout: {e}"))?;
    let report = report.map_err(|e| format!("the run failed: {e}"))?;
    Ok((stdout, report, agent.summary()))
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, actual: T, expected: T) -> Result<(), Failed> {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, got {actual:?}").into())
    }
}

/// The depth of every attempt in a trace, in the order they were written.
fn trace_depths(trace: &tempfile::NamedTempFile) -> Result<Vec<u64>, Failed> {
    Ok(std::fs::read_to_string(trace.path())
        .map_err(|e| e.to_string())?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["depth"].as_u64())
        .collect())
}

fn expect(what: &str, condition: bool) -> Result<(), Failed> {
    if condition {
        Ok(())
    } else {
        Err(what.into())
    }
}

const PRIMES_HOST: &str = r#"
fn main() {
    let xs: Vec<i64> = vec![0, 1, 2, 4, 7, 9, 10];
    match agent!("filter the prime numbers from xs") {
        Ok(primes) => { let primes: Vec<i64> = primes; println!("{primes:?}") }
        Err(e) => println!("error: {e}"),
    }
}
"#;

fn a_rejection_is_retried_with_its_diagnostics(engine: &Engine) -> Result<(), Failed> {
    let server = ChatServer::start(vec![
        // Wrong element type: `filter` over `iter()` yields `&i64`.
        Canned::reply(
            "```rust\nxs.iter().filter(|x| **x > 1 && (2..**x).all(|d| **x % d != 0)).collect::<Vec<&i64>>()\n```",
        ),
        Canned::reply("```rust\nxs.iter().copied().filter(|&x| x > 1 && (2..x).all(|d| x % d != 0)).collect()\n```"),
    ]);
    let (stdout, report, summary) = run(engine, PRIMES_HOST, Agent::new(openai(&server), options(3)))?;
    expect_eq("stdout", stdout.as_str(), "[2, 7]\n")?;
    expect_eq("attempts", report.sites[0].attempts, 2)?;
    expect_eq("rejected", summary.rejected, 1)?;
    let seen = server.seen();
    expect_eq("requests", seen.len(), 2)?;
    let first = seen[0].message_texts();
    expect("the prompt shows the expected type", first[1].contains("`Vec<i64>`"))?;
    expect("the prompt lists the bindings", first[1].contains("- `xs: Vec<i64>`"))?;
    expect("the prompt shows the marked source", first[1].contains("match /* <HOLE> */ {"))?;
    let second = seen[1].message_texts();
    expect_eq("messages in the retry", second.len(), 4)?;
    expect("the retry repeats the rejected code", second[2].contains("collect::<Vec<&i64>>()"))?;
    expect(
        &format!("the retry carries rustc's diagnostic: {}", second[3]),
        second[3].contains("error[E0277]") || second[3].contains("error[E0308]"),
    )
}

fn a_rejected_attempt_changes_nothing(engine: &Engine) -> Result<(), Failed> {
    // The paper's atomicity case: the first statement would change `balance`, the second does not type-check,
    // so nothing of it runs.
    let host = r#"
fn main() {
    let mut balance: i64 = 100;
    let r: Result<(), lacuna::HoleError> = agent!("withdraw 30 and log it");
    match r {
        Ok(()) => println!("ok"),
        Err(lacuna::HoleError::Rejected { attempts, .. }) => println!("rejected after {attempts}"),
        Err(e) => println!("other: {e}"),
    }
    println!("balance = {balance}");
}
"#;
    let server = ChatServer::start(vec![Canned::reply(
        "```rust\nbalance -= 30;\nlet logged: String = balance;\nprintln!(\"{logged}\");\n```",
    )]);
    let (stdout, _, _) = run(engine, host, Agent::new(openai(&server), options(1)))?;
    expect_eq("stdout", stdout.as_str(), "rejected after 1\nbalance = 100\n")
}

fn a_reply_without_code_is_a_failed_attempt(engine: &Engine) -> Result<(), Failed> {
    let server = ChatServer::start(vec![
        Canned::reply("I would filter the list for primes."),
        Canned::reply("```rust\nxs.iter().copied().filter(|&x| x > 1 && (2..x).all(|d| x % d != 0)).collect()\n```"),
    ]);
    let (stdout, report, summary) = run(engine, PRIMES_HOST, Agent::new(openai(&server), options(3)))?;
    expect_eq("stdout", stdout.as_str(), "[2, 7]\n")?;
    expect_eq("attempts", report.sites[0].attempts, 2)?;
    expect_eq("rejected", summary.rejected, 1)?;
    let retry = server.seen()[1].message_texts();
    expect(&format!("the retry says why: {}", retry[3]), retry[3].contains("no ```rust code block"))
}

fn attempts_run_out_as_rejected(engine: &Engine) -> Result<(), Failed> {
    let server = ChatServer::start(vec![Canned::reply("```rust\nys.len()\n```")]);
    let (stdout, report, _) = run(engine, PRIMES_HOST, Agent::new(openai(&server), options(2)))?;
    expect(&format!("stdout: {stdout}"), stdout.starts_with("error: no snippet was accepted after 2 attempt(s)"))?;
    expect(&format!("the diagnostics come along: {stdout}"), stdout.contains("E0425"))?;
    expect_eq("requests", server.seen().len(), 2)?;
    expect_eq("outcome", report.sites[0].outcome, Some(Outcome::Rejected))
}

fn holes_nest_and_the_depth_cap_stops_them(engine: &Engine) -> Result<(), Failed> {
    // Each snippet calls `dive`, whose hole is reached while the snippet runs: one level deeper each time.
    let host = r#"
fn dive(n: u32) -> u32 {
    match agent!("go one level deeper") {
        Ok(v) => v,
        Err(lacuna::HoleError::Depth { limit }) => { println!("depth cap {limit} reached at n = {n}"); n }
        Err(e) => { println!("unexpected: {e}"); 0 }
    }
}

fn main() {
    println!("result {}", dive(0));
}
"#;
    let server = ChatServer::start(vec![Canned::reply("```rust\ndive(n + 1)\n```")]);
    let trace = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let agent = Agent::new(openai(&server), options(1)).with_trace(trace.path()).map_err(|e| e.to_string())?;
    let (stdout, report, _) = run(engine, host, agent)?;
    expect_eq("stdout", stdout.as_str(), "depth cap 3 reached at n = 3\nresult 3\n")?;
    expect_eq("requests (one per level)", server.seen().len(), MAX_DEPTH as usize)?;
    expect_eq("calls", report.sites[0].calls, MAX_DEPTH + 1)?;
    let depths = trace_depths(&trace)?;
    // Records are written when an attempt is done: the deepest first.
    expect_eq("trace depths", depths, vec![3, 2, 1])
}

fn holes_written_in_generated_code_nest_three_deep(engine: &Engine) -> Result<(), Failed> {
    // The model's code has a hole, whose code has a hole: each sees the host's bindings and the snippet locals
    // around it, and writes to the host's `log` reach the host.
    let host = r#"
fn main() {
    let words: Vec<String> = vec!["alpha".into(), "beta".into(), "gamma".into()];
    let mut log: Vec<String> = Vec::new();
    let summary: Result<String, lacuna::HoleError> = agent!("summarize the words");
    match summary {
        Ok(s) => println!("summary: {s}"),
        Err(e) => println!("error: {e}"),
    }
    println!("log: {log:?}");
}
"#;
    let server = ChatServer::start(vec![
        Canned::reply(
            "```rust\nlet longest: usize = words.iter().map(|w| w.len()).max().unwrap_or(0);\n\
             log.push(format!(\"depth 1 saw {} words\", words.len()));\n\
             let detail: String = match agent!(format!(\"describe the words of length {longest}\")) {\n\
             \x20   Ok(d) => d,\n    Err(e) => format!(\"failed: {e}\"),\n};\nformat!(\"{longest}: {detail}\")\n```",
        ),
        // Rejected (the second line does not type-check): its first line must not run.
        Canned::reply(
            "```rust\nlog.push(\"rejected code ran\".to_string());\nlet n: usize = \"many\";\nformat!(\"{n}\")\n```",
        ),
        Canned::reply(
            "```rust\nlet picked: Vec<&String> = words.iter().filter(|w| w.len() == longest).collect();\n\
             log.push(format!(\"depth 2 picked {}\", picked.len()));\n\
             let count: usize = agent!(\"count the letters of the picked words\").unwrap_or(0);\n\
             format!(\"{picked:?} with {count} letters\")\n```",
        ),
        Canned::reply(
            "```rust\nlog.push(\"depth 3 counted\".to_string());\npicked.iter().map(|w| w.len()).sum::<usize>()\n```",
        ),
    ]);
    let trace = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let agent = Agent::new(openai(&server), options(2)).with_trace(trace.path()).map_err(|e| e.to_string())?;
    let (stdout, report, _) = run(engine, host, agent)?;
    expect_eq(
        "stdout",
        stdout.as_str(),
        "summary: 5: [\"alpha\", \"gamma\"] with 10 letters\n\
         log: [\"depth 1 saw 3 words\", \"depth 2 picked 2\", \"depth 3 counted\"]\n",
    )?;
    let seen = server.seen();
    expect_eq("requests", seen.len(), 4)?;
    let retry = seen[2].message_texts();
    expect(&format!("the nested retry carries rustc's diagnostic: {}", retry[3]), retry[3].contains("E0308"))?;
    let second = seen[1].message_texts();
    expect("the nested prompt has the runtime task", second[1].contains("Task: describe the words of length 5"))?;
    expect("the nested prompt lists the snippet's locals", second[1].contains("- `longest: usize`"))?;
    expect("the nested prompt lists the host's bindings", second[1].contains("- `mut log: Vec<String>`"))?;
    expect("the nested prompt shows the outer snippet", second[1].contains("let longest: usize = words"))?;
    let third = seen[3].message_texts();
    expect("the deepest prompt sees both snippets' locals", third[1].contains("- `picked: Vec<&String>`"))?;
    let parents: Vec<(u32, Option<u32>)> = report.sites.iter().map(|s| (s.site, s.parent)).collect();
    expect_eq("sites and their parents", parents, vec![(1, None), (2, Some(1)), (3, Some(2))])?;
    expect_eq("nested lines (in their snippets)", (report.sites[1].line, report.sites[2].line), (3, 3))?;
    let depths = trace_depths(&trace)?;
    expect_eq("trace depths", depths, vec![2, 3, 2, 1])
}

fn generated_code_fans_out_to_holes_on_threads(engine: &Engine) -> Result<(), Failed> {
    // Parallel map written by the model: one nested hole per word, each reached on its own thread.
    let host = r#"
fn main() {
    let words: Vec<String> = vec!["alpha".into(), "beta".into(), "gamma".into()];
    let shouted: Result<Vec<String>, lacuna::HoleError> = agent!("shout every word, in parallel");
    println!("{shouted:?}");
}
"#;
    let server = ChatServer::start(vec![
        Canned::reply(
            "```rust\nstd::thread::scope(|s| {\n    let handles: Vec<_> = words\n        .iter()\n        \
             .map(|w| s.spawn(move || agent!(format!(\"shout {w}\")).unwrap_or_else(|e: lacuna::HoleError| e.to_string())))\n        \
             .collect();\n    handles.into_iter().map(|h| h.join().unwrap()).collect()\n})\n```",
        ),
        Canned::reply("```rust\nw.to_uppercase()\n```"),
    ]);
    let trace = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let agent = Agent::new(openai(&server), options(1)).with_trace(trace.path()).map_err(|e| e.to_string())?;
    let (stdout, report, _) = run(engine, host, agent)?;
    expect_eq("stdout", stdout.as_str(), "Ok([\"ALPHA\", \"BETA\", \"GAMMA\"])\n")?;
    // The threads start with no snippet running on them; the holes still count the snippet they are written in.
    let mut depths = trace_depths(&trace)?;
    depths.sort();
    expect_eq("trace depths", depths, vec![1, 2, 2, 2])?;
    expect_eq("requests (one per hole call)", server.seen().len(), 4)?;
    let nested = report.sites.iter().find(|s| s.parent == Some(1)).ok_or("no nested site in the report")?;
    expect_eq("nested calls", nested.calls, 3)?;
    expect_eq("nested outcome", nested.outcome, Some(Outcome::Ok))
}

fn the_depth_cap_stops_holes_nested_in_generated_code(engine: &Engine) -> Result<(), Failed> {
    // Every reply has a hole of its own: the fourth level is past the cap and is not asked for.
    let host = r#"
fn main() {
    let levels: u32 = agent!("go as deep as you can").unwrap_or(999);
    println!("levels {levels}");
}
"#;
    let server = ChatServer::start(vec![Canned::reply(
        "```rust\nlet deeper: Result<u32, lacuna::HoleError> = agent!(\"go one level deeper\");\n\
         match deeper {\n    Ok(v) => v + 1,\n    \
         Err(lacuna::HoleError::Depth { limit }) => { println!(\"cap {limit}\"); 0 }\n    \
         Err(e) => { println!(\"unexpected: {e}\"); 100 }\n}\n```",
    )]);
    let (stdout, report, _) = run(engine, host, Agent::new(openai(&server), options(1)))?;
    // The deepest snippet answers 0, each one above adds 1.
    expect_eq("stdout", stdout.as_str(), "cap 3\nlevels 2\n")?;
    expect_eq("requests (one per level)", server.seen().len(), MAX_DEPTH as usize)?;
    let outcomes: Vec<Option<Outcome>> = report.sites.iter().map(|s| s.outcome).collect();
    expect_eq(
        "outcomes per level",
        outcomes,
        vec![Some(Outcome::Ok), Some(Outcome::Ok), Some(Outcome::Ok), Some(Outcome::Depth)],
    )
}

fn nested_holes_in_methods_generic_functions_and_moves(engine: &Engine) -> Result<(), Failed> {
    // A nested hole writing through `&mut self`; nested holes under a generic function's hole (one set per
    // instantiation); a nested snippet that moves (and drops) a local of its parent snippet.
    let host = r#"
struct Counter { n: u32 }

impl Counter {
    fn bump(&mut self) -> u32 {
        agent!("bump the counter").unwrap_or(0)
    }
}

fn describe<T: std::fmt::Debug>(x: T) -> String {
    agent!("describe x").unwrap_or_else(|e| format!("error: {e}"))
}

fn main() {
    let mut c = Counter { n: 1 };
    println!("bump {}", c.bump());
    println!("n {}", c.n);
    println!("{}", describe(7));
    println!("{}", describe("seven"));
    let letters: Result<usize, lacuna::HoleError> = agent!("count letters");
    println!("{letters:?}");
}
"#;
    let describe = "```rust\nlet shown: String = format!(\"{x:?}\");\n\
                    agent!(format!(\"polish {shown}\")).unwrap_or_else(|e| format!(\"error: {e}\"))\n```";
    let server = ChatServer::start(vec![
        Canned::reply(
            "```rust\nself.n += 1;\nlet base: u32 = self.n;\nagent!(\"add ten and double base\").unwrap_or(0)\n```",
        ),
        Canned::reply("```rust\nself.n += 10;\nbase * 2\n```"),
        Canned::reply(describe),
        Canned::reply("```rust\nformat!(\"<{shown}>\")\n```"),
        Canned::reply(describe),
        Canned::reply("```rust\nformat!(\"<{shown}>\")\n```"),
        Canned::reply(
            "```rust\nlet owned: Vec<String> = vec![\"ab\".to_string(), \"cde\".to_string()];\n\
             agent!(\"count the letters, consuming owned\").unwrap_or(0)\n```",
        ),
        Canned::reply("```rust\nowned.into_iter().map(|s| s.len()).sum::<usize>()\n```"),
    ]);
    let (stdout, report, _) = run(engine, host, Agent::new(openai(&server), options(1)))?;
    expect_eq("stdout", stdout.as_str(), "bump 4\nn 12\n<7>\n<\"seven\">\nOk(5)\n")?;
    let parents: Vec<(u32, Option<u32>)> = report.sites.iter().map(|s| (s.site, s.parent)).collect();
    expect_eq(
        "sites and their parents",
        parents,
        vec![(1, None), (2, None), (3, None), (4, Some(1)), (5, Some(2)), (6, Some(2)), (7, Some(3))],
    )
}

fn a_runtime_fault_is_the_holes_error_unless_retry_is_on(engine: &Engine) -> Result<(), Failed> {
    let host = r#"
fn main() {
    let xs: Vec<i64> = vec![3, 1, 2];
    let r: Result<i64, lacuna::HoleError> = agent!("the fourth element");
    match r {
        Ok(v) => println!("value {v}"),
        Err(lacuna::HoleError::Runtime { message, line, .. }) => println!("fault at line {line}: {message}"),
        Err(e) => println!("other: {e}"),
    }
    println!("xs = {xs:?}");
}
"#;
    let replies = || {
        vec![
            Canned::reply("```rust\nlet i = 3;\nxs[i]\n```"),
            Canned::reply("```rust\nxs.get(3).copied().unwrap_or(-1)\n```"),
        ]
    };
    let server = ChatServer::start(replies());
    let (stdout, _, summary) = run(engine, host, Agent::new(openai(&server), options(3)))?;
    expect_eq(
        "stdout",
        stdout.as_str(),
        "fault at line 2: index out of bounds: the len is 3 but the index is 3\nxs = [3, 1, 2]\n",
    )?;
    expect_eq("faults", summary.runtime_faults, 1)?;
    expect_eq("requests without retry", server.seen().len(), 1)?;

    let server = ChatServer::start(replies());
    let agent = Agent::new(openai(&server), AgentOptions { retry_after_fault: true, ..options(3) });
    let (stdout, _, _) = run(engine, host, agent)?;
    expect_eq("stdout with retry", stdout.as_str(), "value -1\nxs = [3, 1, 2]\n")?;
    let retry = server.seen()[1].message_texts();
    expect(&format!("the retry names the fault: {}", retry[3]), retry[3].contains("index out of bounds"))
}

fn model_failures_are_hole_errors_and_the_host_goes_on(engine: &Engine) -> Result<(), Failed> {
    let server = ChatServer::start(vec![Canned::raw(500, r#"{"error":{"message":"boom"}}"#)]);
    let (stdout, report, summary) = run(engine, PRIMES_HOST, Agent::new(openai(&server), options(3)))?;
    expect(&format!("stdout: {stdout}"), stdout.starts_with("error: model error: ") && stdout.contains("boom"))?;
    expect_eq("outcome", report.sites[0].outcome, Some(Outcome::Model))?;
    expect_eq("model errors", summary.model_errors, 1)?;
    // One request and one retry (the HTTP retry budget), then the hole gives up.
    expect_eq("requests", server.seen().len(), 2)
}

fn named_models_answer_their_holes(engine: &Engine) -> Result<(), Failed> {
    let host = r#"
fn main() {
    let task = "sum 1..=4";
    let plan: String = agent!(planner, format!("plan: {task}")).unwrap_or_default();
    let total: i32 = agent!(worker, "compute the sum").unwrap_or(-1);
    println!("{plan} / {total}");
}
"#;
    let planner = ChatServer::start(vec![Canned::reply("```rust\nString::from(\"add them up\")\n```")]);
    let worker = ChatServer::start(vec![Canned::reply("```rust\n(1..=4).sum()\n```")]);
    let default = ChatServer::start(vec![Canned::reply("```rust\nunreachable!()\n```")]);
    let agent = Agent::new(openai(&default), options(1))
        .with_named_model("planner", openai(&planner))
        .with_named_model("worker", openai(&worker));
    let (stdout, _, _) = run(engine, host, agent)?;
    expect_eq("stdout", stdout.as_str(), "add them up / 10\n")?;
    expect_eq("default model requests", default.seen().len(), 0)?;
    let planner_prompt = planner.seen()[0].message_texts();
    // The task is the host's value at run time, not the expression's text.
    expect(
        &format!("the planner's task: {}", planner_prompt[1]),
        planner_prompt[1].starts_with("Task: plan: sum 1..=4\n"),
    )?;
    expect_eq("worker requests", worker.seen().len(), 1)
}

fn a_recorded_run_replays_without_the_server(engine: &Engine) -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cassette = dir.path().join("primes.jsonl");
    let server = ChatServer::start(vec![
        Canned::reply("```rust\nys\n```"),
        Canned::reply("```rust\nxs.iter().copied().filter(|&x| x > 1 && (2..x).all(|d| x % d != 0)).collect()\n```"),
    ]);
    let http = HttpOptions { timeout: Duration::from_secs(20), ..HttpOptions::default() };
    let model = OpenAiCompatible::new(&server.openai_url(), None, "test-model", Sampling::default(), http).unwrap();
    let recorder = Recorder::new(Box::new(model), &cassette).map_err(|e| e.to_string())?;
    let (recorded, _, _) = run(engine, PRIMES_HOST, Agent::new(Arc::new(recorder), options(3)))?;
    drop(server);
    let replay = Replay::from_file(&cassette, None).map_err(|e| e.to_string())?;
    let (replayed, report, _) = run(engine, PRIMES_HOST, Agent::new(Arc::new(replay), options(3)))?;
    expect_eq("recorded stdout", recorded.as_str(), "[2, 7]\n")?;
    expect_eq("replayed stdout", replayed.as_str(), recorded.as_str())?;
    expect_eq("replayed attempts", report.sites[0].attempts, 2)?;
    // A script gives the same run with no cassette at all.
    let script = Scripted::new("inline", vec!["```rust\nys\n```".into(), "```rust\nvec![2, 7]\n```".into()]);
    let (scripted, _, _) = run(engine, PRIMES_HOST, Agent::new(Arc::new(script), options(3)))?;
    expect_eq("scripted stdout", scripted.as_str(), "[2, 7]\n")
}
