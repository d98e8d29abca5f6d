//! `lacuna bench` on τ²-bench retail, airline and mock, through the real binary and its `serve --stdio` workers:
//! the oracle solves tasks (one whose expected actions include calls that fail), an agent that omits or alters one
//! action, or does not say what the task wants said, is rewarded 0, the rejection columns count a scripted model's
//! rejected replies exactly, records resume and merge.

use std::path::{Path, PathBuf};

mod support;
use lacuna_bench::record::read_records;
use lacuna_bench::tau2::{code, Domain, Task};
use lacuna_bench::{Report, Suite, TaskRecord};
use support::{bench, ok, repo};

fn suite_file() -> PathBuf {
    repo().join("suites/tau2-retail.toml")
}

fn tasks() -> Vec<Task> {
    let suite = Suite::load(&suite_file(), None).expect("the retail suite and τ²'s data beside the repository");
    suite.tasks().expect("tasks.json")
}

fn task(id: &str) -> Task {
    tasks().into_iter().find(|t| t.id == id).expect("the task")
}

fn records(path: &Path) -> Vec<TaskRecord> {
    read_records(path).expect("records")
}

/// A script of replies, one per attempt, each a fenced Rust block.
fn script(dir: &Path, name: &str, replies: &[String]) -> String {
    let text: String = replies.iter().map(|r| format!("=== reply\n```rust\n{r}\n```\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
    format!("script:{name}")
}

#[test]
fn the_oracle_solves_tasks_and_records_resume_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_file();
    let suite = suite.to_str().unwrap();
    // Task 0: an exchange after four look-ups; 38: a cancellation after two look-ups of the same user and a
    // calculation.
    let out = bench(dir.path(), &[suite, "--model", "oracle", "--task", "0", "--task", "38", "--out", "runs/a.jsonl"]);
    let table = ok(&out);
    assert!(table.contains("tau2-retail"), "{table}");
    // Both are scored on DB and NL_ASSERTION; 38 has assertions to grade (0 has none), so with no judge model it
    // is scored on DB alone, and the table says so.
    assert!(table.contains("tau2-retail: 1 task(s) scored without their NL_ASSERTION basis"), "{table}");
    let first = records(&dir.path().join("runs/a.jsonl"));
    assert_eq!(first.len(), 2);
    for record in &first {
        assert!(record.solved && record.reward == 1.0, "{record:?}");
        assert_eq!(record.nl_unjudged, record.task == "38", "{record:?}");
        assert!(record.nl_assertions.is_none(), "{record:?}");
        assert!(record.error.is_none() && record.diff.is_empty(), "{record:?}");
        assert_eq!(record.tool_calls, task(&record.task).actions.len() as u64, "{record:?}");
        assert_eq!((record.turns, record.turns_compiled, record.generations, record.rejected), (1, 1, 1, 0));
        let t = record.time_ms;
        for (part, ms) in [("check", t.check), ("compile", t.compile), ("run", t.run), ("wall", t.wall)] {
            assert!(ms > 0.0, "{part}: {record:?}");
        }
    }

    // The same --out again needs --resume; with it, the recorded tasks are skipped and a new one runs.
    let refused = bench(dir.path(), &[suite, "--model", "oracle", "--task", "0", "--out", "runs/a.jsonl"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--resume"));
    let resumed = bench(
        dir.path(),
        &[
            suite,
            "--model",
            "oracle",
            "--task",
            "0",
            "--task",
            "38",
            "--task",
            "69",
            "--out",
            "runs/a.jsonl",
            "--resume",
        ],
    );
    ok(&resumed);
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("1 task(s) with oracle"), "{resumed:?}");
    let all = records(&dir.path().join("runs/a.jsonl"));
    assert_eq!(all.iter().map(|r| r.task.as_str()).collect::<Vec<_>>(), ["0", "38", "69"]);

    // A second shard's file merges into one table.
    std::fs::write(
        dir.path().join("runs/b.jsonl"),
        serde_json::to_string(&TaskRecord {
            suite: "tau2-retail".into(),
            task: "7".into(),
            agent: "oracle".into(),
            turns: 1,
            generations: 1,
            ..TaskRecord::default()
        })
        .unwrap()
            + "\n",
    )
    .unwrap();
    let report = ok(&bench(dir.path(), &["report", "runs/a.jsonl", "runs/b.jsonl", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&report).expect("--json prints JSON");
    assert_eq!(report["rows"][0]["tasks"], 4);
    assert_eq!(report["rows"][0]["solved"], 3);
    let svg = ok(&bench(dir.path(), &["report", "runs/a.jsonl", "--svg", "chart.svg"]));
    assert!(svg.contains("100.0"), "{svg}");
    assert!(std::fs::read_to_string(dir.path().join("chart.svg")).unwrap().starts_with("<svg"));
}

#[test]
fn an_agent_that_omits_or_alters_an_action_is_rewarded_zero_and_rejections_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_file();
    let suite = suite.to_str().unwrap();
    // Task 38 without its cancellation; task 69 cancelling for another (valid) reason. Task 38's agent first
    // writes a turn that reads a field of a `Result` (rejected: E0609), then one that runs.
    let omit = task("38");
    let mut omitted = omit.clone();
    assert_eq!(omitted.actions.pop().map(|a| a.name).as_deref(), Some("cancel_pending_order"));
    let alter = task("69");
    let oracle = code::oracle_turn(Domain::Retail, &alter).unwrap();
    assert!(oracle.contains("\"no longer needed\""));
    let altered = oracle.replace("\"no longer needed\"", "\"ordered by mistake\"");
    let spec = script(
        dir.path(),
        "replies.txt",
        &[
            "let order = retail.get_order_details(\"#W9348897\");\nlet total: f64 = order.payment_history[0].amount;\nformat!(\"{total}\")".to_owned(),
            code::oracle_turn(Domain::Retail, &omitted).unwrap(),
            altered,
        ],
    );
    let out = bench(dir.path(), &[suite, "--model", &spec, "--task", "38", "--task", "69", "--out", "r.jsonl"]);
    ok(&out);
    let got = records(&dir.path().join("r.jsonl"));
    let by_id = |id: &str| got.iter().find(|r| r.task == id).expect("a record").clone();
    let r38 = by_id("38");
    assert!(!r38.solved && r38.reward == 0.0, "{r38:?}");
    assert!(r38.error.is_none(), "{r38:?}");
    assert!(r38.diff.iter().any(|d| d.starts_with("order #W9348897")), "{r38:?}");
    assert_eq!((r38.generations, r38.rejected, r38.turns, r38.turns_compiled), (2, 1, 1, 1), "{r38:?}");
    assert_eq!(r38.rejections.len(), 1);
    assert_eq!(r38.rejections[0].kinds, ["E0609"]);
    assert_eq!(r38.tool_calls, omitted.actions.len() as u64);
    let r69 = by_id("69");
    assert!(!r69.solved && r69.reward == 0.0, "{r69:?}");
    assert_eq!(r69.diff, ["order #W2417020: differs"], "{r69:?}");
    assert_eq!((r69.generations, r69.rejected), (1, 0));

    let report = Report::from_records(got);
    let row = &report.rows[0];
    assert_eq!((row.tasks, row.solved, row.generations, row.rejected), (2, 0, 3, 1));
    assert!((row.rejected_pct - 100.0 / 3.0).abs() < 1e-9);
    assert_eq!(row.regenerations_per_task, 0.5);
    assert_eq!(row.compile_success_pct, 100.0);
}

#[test]
fn a_judge_model_grades_nl_assertions() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_file();
    let suite = suite.to_str().unwrap();
    // The oracle does what tasks 2 and 38 ask; the judge finds every assertion of task 2 met, and the first of
    // task 38's not: 38's database is right, but it is not solved.
    let judged = |task: &Task, first_met: bool| {
        let results: Vec<String> = (0..task.nl_assertions.len())
            .map(|k| {
                format!(
                    "{{\"expectedOutcome\": \"#{k}\", \"reasoning\": \"r{k}\", \"metExpectation\": {}}}",
                    k > 0 || first_met
                )
            })
            .collect();
        format!("{{\"results\": [{}]}}", results.join(", "))
    };
    let (t2, t38) = (task("2"), task("38"));
    assert!(!t2.nl_assertions.is_empty() && !t38.nl_assertions.is_empty());
    let spec = script(dir.path(), "judge.txt", &[judged(&t2, true), judged(&t38, false)]);
    let out = bench(
        dir.path(),
        &[suite, "--model", "oracle", "--judge-model", &spec, "--task", "2", "--task", "38", "--out", "j.jsonl"],
    );
    let table = ok(&out);
    assert!(!table.contains("NL_ASSERTION"), "{table}");
    let got = records(&dir.path().join("j.jsonl"));
    let by_id = |id: &str| got.iter().find(|r| r.task == id).expect("a record").clone();
    let r2 = by_id("2");
    assert!(r2.solved && !r2.nl_unjudged, "{r2:?}");
    assert_eq!(r2.nl_assertions.as_ref().map(Vec::len), Some(t2.nl_assertions.len()));
    let r38 = by_id("38");
    assert!(!r38.solved && r38.diff.is_empty() && r38.error.is_none(), "{r38:?}");
    let checks = r38.nl_assertions.expect("graded");
    assert_eq!(
        (checks[0].assertion.as_str(), checks[0].met, checks[0].reasoning.as_str()),
        (t38.nl_assertions[0].as_str(), false, "r0")
    );

    // A judge whose reply cannot be read stops the task with a reason; it is neither passed nor failed by a guess.
    let spec = script(dir.path(), "confused.txt", &["I think the agent did fine.".to_owned()]);
    let out =
        bench(dir.path(), &[suite, "--model", "oracle", "--judge-model", &spec, "--task", "38", "--out", "c.jsonl"]);
    ok(&out);
    let r38 = records(&dir.path().join("c.jsonl")).remove(0);
    assert!(!r38.solved && r38.error.as_deref().is_some_and(|e| e.contains("no JSON object")), "{r38:?}");
}

#[test]
fn bad_suites_and_arguments_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_file();
    let suite = suite.to_str().unwrap();
    let missing = bench(dir.path(), &[suite, "--model", "oracle", "--data", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no db.json in"), "{missing:?}");
    let shard = bench(dir.path(), &[suite, "--model", "oracle", "--shard", "3/2"]);
    assert_eq!(shard.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&shard.stderr).contains("I/N"), "{shard:?}");
    let task = bench(dir.path(), &[suite, "--model", "oracle", "--task", "no-such-task"]);
    assert_eq!(task.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&task.stderr).contains("no task `no-such-task`"), "{task:?}");
    std::fs::write(
        dir.path().join("bad.toml"),
        "name = \"x\"\nkind = \"tau2\"\ndomain = \"banking\"\nhost = \"h.rs\"\ndata = \".\"\n",
    )
    .unwrap();
    let domain = bench(dir.path(), &["bad.toml", "--model", "oracle"]);
    assert!(String::from_utf8_lossy(&domain.stderr).contains("unknown τ² domain `banking`"), "{domain:?}");
    std::fs::write(dir.path().join("broken.jsonl"), "{\"suite\": 1}\n{}\n").unwrap();
    let report = bench(dir.path(), &["report", "broken.jsonl"]);
    assert_eq!(report.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&report.stderr).contains("broken.jsonl:1"), "{report:?}");
}

/// A snippet a model writes for airline task 3 (how many bags may Anya Garcia bring?): it reads the reservation
/// and the user, applies the policy's allowance (free bags per passenger by membership and cabin) and says the
/// number.
const BAG_ALLOWANCE: &str = r#"let answer = match (airline.get_reservation_details("JMO1MG"), airline.get_user_details("anya_garcia_5901")) {
    (Ok(reservation), Ok(user)) => {
        let free_per_passenger = match (user.membership, reservation.cabin) {
            (Membership::Regular, Cabin::BasicEconomy) => 0,
            (Membership::Regular, Cabin::Economy) => 1,
            (Membership::Regular, Cabin::Business) => 2,
            (Membership::Silver, Cabin::BasicEconomy) => 0,
            (Membership::Silver, Cabin::Economy) => 2,
            (Membership::Silver, Cabin::Business) => 3,
            (Membership::Gold, Cabin::BasicEconomy) => 1,
            (Membership::Gold, Cabin::Economy) => 3,
            (Membership::Gold, Cabin::Business) => 4,
        };
        let total = free_per_passenger * reservation.passengers.len();
        format!("Your profile shows a {:?} membership, and reservation {} is in {:?} for {} passengers, so you can bring {} checked bags in total at no charge.", user.membership, reservation.reservation_id, reservation.cabin, reservation.passengers.len(), total)
    }
    (Err(e), _) | (_, Err(e)) => format!("I could not look that up: {e}"),
};
answer"#;

#[test]
fn the_airline_suite_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo().join("suites/tau2-airline.toml");
    let suite = suite.to_str().unwrap();
    let airline = Suite::load(Path::new(suite), None).expect("the airline suite and τ²'s data beside the repository");
    let tasks = airline.tasks().expect("tasks.json");
    let task = |id: &str| tasks.iter().find(|t| t.id == id).expect("the task").clone();
    // Task 3 is scored on what the agent says (the number of bags); task 14 cancels a reservation and books
    // another paid with a certificate, two gift cards and a credit card, and must say three amounts.
    let out = bench(dir.path(), &[suite, "--model", "oracle", "--task", "3", "--task", "14", "--out", "o.jsonl"]);
    assert!(ok(&out).contains("tau2-airline"));
    for record in records(&dir.path().join("o.jsonl")) {
        assert!(record.solved && record.not_communicated.is_empty(), "{record:?}");
    }

    // A model's own code for task 3 says the number and solves it; task 14 with insurance the customer did not
    // ask for: the payments no longer add up, the booking fails, and the database differs.
    let oracle14 = code::oracle_turn(Domain::Airline, &task("14")).unwrap();
    assert!(oracle14.contains("Insurance::No"), "{oracle14}");
    let spec = script(
        dir.path(),
        "replies.txt",
        &[BAG_ALLOWANCE.to_owned(), oracle14.replace("Insurance::No", "Insurance::Yes")],
    );
    let out = bench(dir.path(), &[suite, "--model", &spec, "--task", "3", "--task", "14", "--out", "s.jsonl"]);
    ok(&out);
    let got = records(&dir.path().join("s.jsonl"));
    let by_id = |id: &str| got.iter().find(|r| r.task == id).expect("a record").clone();
    let r3 = by_id("3");
    assert!(r3.solved && r3.tool_calls == 2 && r3.rejected == 0, "{r3:?}");
    let r14 = by_id("14");
    assert!(!r14.solved && r14.error.is_none(), "{r14:?}");
    assert!(r14.diff.iter().any(|d| d.starts_with("reservation HATHAT")), "{r14:?}");

    // The right calls, but a reply that never says the number: τ²'s COMMUNICATE basis scores it 0.
    let silent = code::oracle_turn(Domain::Airline, &Task { communicate_info: Vec::new(), ..task("3") }).unwrap();
    let spec = script(dir.path(), "silent.txt", &[silent.replace("everything you asked for", "your question")]);
    let out = bench(dir.path(), &[suite, "--model", &spec, "--task", "3", "--out", "n.jsonl"]);
    ok(&out);
    let r3 = records(&dir.path().join("n.jsonl")).remove(0);
    assert!(!r3.solved && r3.diff.is_empty() && r3.error.is_none(), "{r3:?}");
    assert_eq!(r3.not_communicated, ["4"]);
}

#[test]
fn the_telecom_suite_end_to_end_with_the_phone_out_of_the_agents_reach() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo().join("suites/tau2-telecom.toml");
    let suite = suite.to_str().unwrap();
    let telecom = Suite::load(Path::new(suite), None).expect("the telecom suite and τ²'s data beside the repository");
    let tasks = telecom.tasks().expect("tasks.json");
    assert_eq!(tasks.len(), 114, "the base split");
    let task = |id: &str| tasks.iter().find(|t| t.id == id).expect("the task").clone();
    // The user turns airplane mode off, the agent asks for a payment, the user pays (the payment reaches the
    // carrier through the sync), the agent resumes the line, the user reboots: scored on the phone's and the
    // carrier's state. And a task scored on ACTION too: the agent must transfer the user.
    let (paid, transfer) = (
        "[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]",
        "[service_issue]airplane_mode_on|lock_sim_card_pin[PERSONA:Easy]",
    );
    let out = bench(dir.path(), &[suite, "--model", "oracle", "--task", paid, "--task", transfer, "--out", "o.jsonl"]);
    assert!(ok(&out).contains("tau2-telecom"));
    for record in records(&dir.path().join("o.jsonl")) {
        assert!(record.solved && record.error.is_none(), "{record:?}");
        assert!(!record.assertions.is_empty() && record.assertions.iter().all(|a| *a), "{record:?}");
    }

    // A model that reaches for the customer's phone is refused (E0425: not in its scope) and retried; one that
    // then leaves out resuming the line does not solve the task, whatever the user does on the phone.
    let t = task(paid);
    let segment = |k: usize| code::oracle_segment(Domain::Telecom, &t, k).unwrap();
    assert!(segment(2).contains("telecom.resume_line("), "{}", segment(2));
    let spec = script(
        dir.path(),
        "replies.txt",
        &[
            "let _ = phone.toggle_airplane_mode();\n\"Your phone is fixed.\".to_string()".to_owned(),
            segment(0),
            segment(1),
            "\"All done on my side.\".to_string()".to_owned(),
        ],
    );
    let out = bench(dir.path(), &[suite, "--model", &spec, "--task", paid, "--out", "s.jsonl"]);
    ok(&out);
    let record = records(&dir.path().join("s.jsonl")).remove(0);
    assert_eq!(record.rejections.len(), 1, "{record:?}");
    assert_eq!(record.rejections[0].kinds, ["E0425"], "{record:?}");
    assert!(!record.solved && record.error.is_none() && record.assertions.contains(&false), "{record:?}");

    // A user model acts on the phone through its tools (`TOOL name {..}` replies), each a turn of the harness's on
    // the phone; a tool the phone does not have (a task's scene-setting function) is refused to it.
    let user = [
        "My phone shows no service at all. Can you help?",
        "TOOL toggle_airplane_mode {}",
        "TOOL unseat_sim_card {}",
        "I turned airplane mode off.",
        "TOOL check_payment_request {}",
        "TOOL make_payment {}",
        "I paid the bill.",
        "TOOL reboot_device {}",
        "Rebooted; it all works now. ###STOP###",
    ];
    let write_user = |name: &str, replies: &[&str]| {
        let text: String = replies.iter().map(|r| format!("=== reply\n{r}\n")).collect();
        std::fs::write(dir.path().join(name), text).unwrap();
    };
    write_user("user.txt", &user);
    let out = bench(
        dir.path(),
        &[suite, "--model", "oracle", "--user-model", "script:user.txt", "--task", paid, "--out", "u.jsonl"],
    );
    ok(&out);
    let record = records(&dir.path().join("u.jsonl")).remove(0);
    assert!(record.solved && record.assertions.iter().all(|a| *a), "{record:?}");
    assert_eq!(record.turns, 3, "{record:?}");

    // A user who says they turned airplane mode off but skipped it: the oracle agent does all its part, and the
    // task scores 0 (the phone still has no service).
    let skipping: Vec<&str> = user.iter().copied().filter(|r| *r != "TOOL toggle_airplane_mode {}").collect();
    write_user("skip.txt", &skipping);
    let out = bench(
        dir.path(),
        &[suite, "--model", "oracle", "--user-model", "script:skip.txt", "--task", paid, "--out", "k.jsonl"],
    );
    ok(&out);
    let record = records(&dir.path().join("k.jsonl")).remove(0);
    assert!(!record.solved && record.error.is_none() && record.assertions.contains(&false), "{record:?}");

    // The transfer task without the transfer: its assertions may hold, its ACTION basis does not.
    let spec = script(dir.path(), "stay.txt", &["\"Let us keep trying together.\".to_string()".to_owned()]);
    let out = bench(dir.path(), &[suite, "--model", &spec, "--task", transfer, "--out", "n.jsonl"]);
    ok(&out);
    let record = records(&dir.path().join("n.jsonl")).remove(0);
    assert!(!record.solved && record.error.is_none(), "{record:?}");
    assert_eq!(record.actions_missing, ["transfer_to_human_agents"]);
}

#[test]
fn the_mock_suite_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo().join("suites/tau2-mock.toml");
    let out = bench(dir.path(), &[suite.to_str().unwrap(), "--model", "oracle", "-j", "2", "--out", "m.jsonl"]);
    let table = ok(&out);
    assert!(table.contains("tau2-mock"), "{table}");
    let got = records(&dir.path().join("m.jsonl"));
    assert_eq!(got.len(), 10);
    let by_id = |id: &str| got.iter().find(|r| r.task == id).expect("a record").clone();
    // Initial data merged into the database, initialization actions and an earlier conversation's tool calls
    // replayed before the conversation, a task checked by assertions too: the oracle's actions solve them.
    for id in [
        "create_task_1",
        "create_task_1_with_env_assertions",
        "update_task_1",
        "update_task_with_message_history",
        "update_task_with_initialization_data",
        "update_task_with_initialization_actions",
        "impossible_task_1",
    ] {
        let record = by_id(id);
        assert!(record.solved, "{record:?}");
        assert_eq!(record.tool_calls, 1, "{record:?}");
    }
    assert_eq!(by_id("create_task_1_with_env_assertions").assertions, [true]);
    // A task whose goal is only in an assertion: the oracle performs no action, so the assertion fails.
    let assertion_only = by_id("update_task_with_history_and_env_assertions");
    assert!(!assertion_only.solved && assertion_only.assertions == [false], "{assertion_only:?}");
    // The user's own tools are not ported: that task is recorded as not run, not silently passed.
    let user_tools = by_id("update_task_with_user_tools");
    assert!(!user_tools.solved, "{user_tools:?}");
    assert!(user_tools.error.as_deref().is_some_and(|e| e.starts_with("not run")), "{user_tools:?}");

    // `impossible_task_1` is scored on DB and ACTION: an agent that declines but never transfers the user leaves
    // the database as expected and still scores 0, as τ² scores it.
    let spec =
        script(dir.path(), "decline.txt", &["\"Sorry, I cannot delete all your tasks.\".to_string()".to_owned()]);
    let out = bench(
        dir.path(),
        &[suite.to_str().unwrap(), "--model", &spec, "--task", "impossible_task_1", "--out", "d.jsonl"],
    );
    ok(&out);
    let declined = records(&dir.path().join("d.jsonl")).remove(0);
    assert!(!declined.solved && declined.diff.is_empty() && declined.error.is_none(), "{declined:?}");
    assert_eq!(declined.actions_missing, ["transfer_to_human_agents"]);
    assert!(by_id("impossible_task_1").actions_missing.is_empty());
}

#[test]
fn a_conversation_with_a_user_model_runs_turn_by_turn_in_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo().join("suites/tau2-mock.toml");
    // The user (a scripted model) asks for one thing, then another, then stops; the agent's second turn uses a
    // local its first turn left.
    std::fs::write(
        dir.path().join("user.txt"),
        "=== reply\nPlease mark task_1 as completed.\n=== reply\nThanks! How many users are there?\n=== reply\n###STOP###\n",
    )
    .unwrap();
    let agent = script(
        dir.path(),
        "agent.txt",
        &[
            "let done = tracker.update_task_status(\"task_1\", \"completed\");\nmatch &done {\n    Ok(task) => format!(\"Done: {} is {}\", task.task_id, task.status),\n    Err(e) => format!(\"Sorry: {e}\"),\n}".to_owned(),
            "let users = tracker.get_users();\nformat!(\"{} user(s); your task is {}\", users.len(), done.map(|t| t.status).unwrap_or_default())".to_owned(),
        ],
    );
    let out = bench(
        dir.path(),
        &[
            suite.to_str().unwrap(),
            "--model",
            &agent,
            "--user-model",
            "script:user.txt",
            "--task",
            "update_task_1",
            "--out",
            "c.jsonl",
            "--record",
            "cassette.jsonl",
        ],
    );
    ok(&out);
    let record = records(&dir.path().join("c.jsonl")).remove(0);
    assert!(record.solved, "{record:?}");
    assert_eq!(
        (record.turns, record.turns_compiled, record.generations, record.tool_calls),
        (2, 2, 2, 2),
        "{record:?}"
    );
    // The user model was told what the agent answered (the cassette keeps its requests).
    let cassette = std::fs::read_to_string(dir.path().join("cassette.jsonl")).unwrap();
    assert!(cassette.contains("Done: task_1 is completed"), "{cassette}");
    assert!(cassette.contains("1 user(s); your task is completed"), "{cassette}");
    // The agent's model was told it writes a session turn (the workers record to the same cassette).
    assert!(cassette.contains("This is one turn of a session"), "{cassette}");
}
