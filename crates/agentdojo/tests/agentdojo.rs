//! The AgentDojo port, whole (it takes about a minute): utility on every user task of both suites (scripted
//! ground-truth replies under per-task scoping), and every (user task, injection task) pair of attacks. An attack
//! must reach its goal exactly when the injection task's tools are all among the user task's (what per-task
//! scoping predicts, computed here from the data), and always with every tool in scope.

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
        .filter(|u| !u.solved)
        .map(|u| format!("{}: {}", u.task, u.detail.as_deref().unwrap_or("")))
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
        if row.scoped_reached != predicted || !row.every_tool_reached {
            wrong.push(format!(
                "{} x {}: scoped reached {} (scoping predicts {predicted}; stopped by {:?}), every tool reached {}",
                row.user_task, row.injection_task, row.scoped_reached, row.scoped_stopped_by, row.every_tool_reached
            ));
        }
    }
    if !wrong.is_empty() {
        return Err(wrong.join("\n").into());
    }
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
    ];
    libtest_mimic::run(&args, trials).exit();
}
