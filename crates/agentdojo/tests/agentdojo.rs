//! The AgentDojo port, whole (it takes a few minutes): utility on every user task of every suite (scripted
//! ground-truth replies under per-task scoping), and every (user task, injection task) pair of attacks, each run
//! judged twice — by comparing final environments and by AgentDojo's own checks. A ground-truth reply must pass
//! both; an attack must reach its goal, by both judges, exactly when the injection task's tools are all among the
//! user task's (what per-task scoping predicts, computed here from the data), and always with every tool in scope.
//! An idle agent (replies that do nothing) must pass AgentDojo's utility check only where the check does not look
//! at what the task asked for.

use expect_test::{expect, Expect};
use lacuna_agentdojo::{run_suite, Selection, SuiteData, SuiteName};
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, RunOptions};
use libtest_mimic::{Arguments, Failed, Trial};

fn engine() -> Engine {
    let checker = Checker::new(CheckerOptions::default()).expect("the checker starts");
    Engine::new(checker, RunOptions::default()).expect("the engine starts")
}

fn utility(name: SuiteName) -> Result<(), Failed> {
    let data = SuiteData::load(&lacuna_agentdojo::suite::vendored_data(), name)?;
    let selection = Selection { no_attacks: true, ..Selection::default() };
    let report = run_suite(&engine(), &data, &selection, &mut |_| {})?;
    let failed: Vec<String> = report
        .utility
        .iter()
        .filter(|u| !u.solved || !u.agentdojo.passed())
        .map(|u| format!("{}: {} (AgentDojo's check: {:?})", u.task, u.detail.as_deref().unwrap_or(""), u.agentdojo))
        .collect();
    if report.utility.len() != data.user_tasks.len() || !failed.is_empty() {
        return Err(format!(
            "{} of {} user tasks not solved:\n{}",
            failed.len(),
            data.user_tasks.len(),
            failed.join("\n")
        )
        .into());
    }
    Ok(())
}

fn attacks(name: SuiteName) -> Result<(), Failed> {
    let data = SuiteData::load(&lacuna_agentdojo::suite::vendored_data(), name)?;
    let users = data.user_tasks.len();
    let selection = Selection::default();
    let report = run_suite(&engine(), &data, &selection, &mut |_| {})?;
    if report.attacks.len() != users * data.injection_tasks.len() {
        return Err(format!("{} trials, expected {}", report.attacks.len(), users * data.injection_tasks.len()).into());
    }
    let task = |id: &str, list: &[(String, lacuna_agentdojo::suite::Task)]| {
        list.iter().find(|(t, _)| t == id).map(|(_, t)| t.clone()).expect("a task of the report")
    };
    let mut wrong = Vec::new();
    for row in &report.attacks {
        let user_tools: Vec<&str> =
            data.tools_of(&task(&row.user_task, &data.user_tasks)).iter().map(|t| t.name).collect();
        let needed = data.tools_of(&task(&row.injection_task, &data.injection_tasks));
        let predicted = needed.iter().all(|t| user_tools.contains(&t.name));
        if row.scoped_reached != predicted
            || !row.every_tool_reached
            || row.scoped_security.passed() != predicted
            || !row.every_tool_security.passed()
        {
            wrong.push(format!(
                "{} x {}: scoped reached {} (scoping predicts {predicted}; stopped by {:?}; security check {:?}), every \
                 tool reached {} (security check {:?})",
                row.user_task,
                row.injection_task,
                row.scoped_reached,
                row.scoped_stopped_by,
                row.scoped_security,
                row.every_tool_reached,
                row.every_tool_security
            ));
        }
    }
    if !wrong.is_empty() {
        return Err(wrong.join("\n").into());
    }
    Ok(())
}

/// The user tasks whose AgentDojo utility check an idle agent passes.
fn idle(name: SuiteName, expected: Expect) -> Result<(), Failed> {
    let data = SuiteData::load(&lacuna_agentdojo::suite::vendored_data(), name)?;
    let selection = Selection { no_attacks: true, idle: true, ..Selection::default() };
    let report = run_suite(&engine(), &data, &selection, &mut |_| {})?;
    let passed: Vec<&str> = report.utility.iter().filter(|u| u.agentdojo.passed()).map(|u| u.task.as_str()).collect();
    let raised: Vec<String> = report
        .utility
        .iter()
        .filter_map(|u| match &u.agentdojo {
            lacuna_agentdojo::Check::Raised(e) => Some(format!("{} raised {e}", u.task)),
            _ => None,
        })
        .collect();
    expected.assert_eq(&format!("passed: {passed:?}\nraised: {raised:?}"));
    Ok(())
}

fn main() {
    let mut args = Arguments::from_args();
    // Each trial starts its own rust-analyzer: one at a time on a small machine.
    args.test_threads = Some(1);
    let trials = vec![
        Trial::test("banking::utility", || utility(SuiteName::Banking)),
        Trial::test("slack::utility", || utility(SuiteName::Slack)),
        Trial::test("banking::attacks", || attacks(SuiteName::Banking)),
        Trial::test("slack::attacks", || attacks(SuiteName::Slack)),
        // Banking's task 5 check looks for a payment that the history already holds; 8 has no check; 9 and 10
        // ask that nothing change.
        Trial::test("banking::idle", || {
            idle(
                SuiteName::Banking,
                expect![[r#"
                passed: ["user_task_5", "user_task_8", "user_task_9", "user_task_10"]
                raised: []"#]],
            )
        }),
        Trial::test("slack::idle", || {
            idle(
                SuiteName::Slack,
                expect![[r#"
                passed: []
                raised: []"#]],
            )
        }),
    ];
    libtest_mimic::run(&args, trials).exit();
}
