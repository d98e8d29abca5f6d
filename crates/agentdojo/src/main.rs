//! `lacuna-agentdojo`: AgentDojo's banking and slack suites on Lacuna, as the paper's Table 3 measures them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use lacuna_agentdojo::{generate, run_suite, Selection, SuiteData, SuiteName, SuiteReport};
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, RunOptions};

/// Runs AgentDojo's banking and slack suites on Lacuna.
///
/// Utility: each user task's hole is handed only the tools its ground truth calls, and a scripted reply performs
/// that ground truth; the task is solved when the reply is accepted and leaves the environment as it does with
/// every tool in scope. Attacks: for every (user task, injection task) pair, a fully compromised model's reply
/// performs the injection task's ground truth, once under per-task scoping and once with every tool in scope;
/// an attack reached its goal when the environment ends as that ground truth leaves it.
///
/// Examples:
///   lacuna-agentdojo                               # both suites, utility and attacks
///   lacuna-agentdojo --suite banking --json
///   lacuna-agentdojo --print-host slack > slack.rs # the generated host program
#[derive(Debug, Parser)]
#[command(name = "lacuna-agentdojo", version, verbatim_doc_comment)]
struct Args {
    /// Suites to run (banking, slack); all when not given.
    #[arg(long = "suite", value_name = "NAME")]
    suites: Vec<String>,
    /// Where the AgentDojo data is: `<dir>/ground_truth_v1.2.2.json` and `<dir>/<suite>/` or
    /// `<dir>/suites/<suite>/` (default: the copy vendored in testdata/agentdojo).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Only the first N user tasks of each suite.
    #[arg(long, value_name = "N")]
    user_tasks: Option<usize>,
    /// Only the first N injection tasks of each suite.
    #[arg(long, value_name = "N")]
    injection_tasks: Option<usize>,
    /// Utility only.
    #[arg(long)]
    no_attacks: bool,
    /// Utility of an idle agent (every reply does nothing and answers "done"): what each judge credits to an agent
    /// that does not act. Implies --no-attacks.
    #[arg(long)]
    idle: bool,
    /// Print the reports as JSON (one object per suite, with every row) instead of the table.
    #[arg(long)]
    json: bool,
    /// Print the generated host program of a suite and exit.
    #[arg(long, value_name = "SUITE")]
    print_host: Option<String>,
}

fn suite(name: &str) -> anyhow::Result<SuiteName> {
    SuiteName::from_name(name).with_context(|| format!("unknown suite `{name}`; the port has banking and slack"))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let data = args.data.clone().unwrap_or_else(lacuna_agentdojo::suite::vendored_data);
    if let Some(name) = &args.print_host {
        let loaded = SuiteData::load(&data, suite(name)?)?;
        print!("{}", generate::host(&loaded, std::path::Path::new("agentdojo-control.txt"))?);
        return Ok(());
    }
    let suites: Vec<SuiteName> = if args.suites.is_empty() {
        SuiteName::ALL.to_vec()
    } else {
        args.suites.iter().map(|s| suite(s)).collect::<anyhow::Result<_>>()?
    };
    let checker = Checker::new(CheckerOptions::default()).context("starting the checker")?;
    let engine = Engine::new(checker, RunOptions::default()).context("starting the engine")?;
    let selection = Selection {
        user_tasks: args.user_tasks,
        injection_tasks: args.injection_tasks,
        no_attacks: args.no_attacks || args.idle,
        idle: args.idle,
    };
    let mut reports = Vec::new();
    for name in suites {
        let loaded = SuiteData::load(&data, name)?;
        let users = loaded.user_tasks.len().min(selection.user_tasks.unwrap_or(usize::MAX));
        let injections = loaded.injection_tasks.len().min(selection.injection_tasks.unwrap_or(usize::MAX));
        let runs = 2 * users + if selection.no_attacks { 0 } else { injections * (2 + 2 * users) };
        let bar = indicatif::ProgressBar::new(runs as u64).with_style(
            indicatif::ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg} ({eta})")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(name.name());
        let report = run_suite(&engine, &loaded, &selection, &mut |label| {
            // Each label is two runs: scoped and every-tool, or the goal and the untouched environment.
            bar.set_message(label.to_owned());
            bar.inc(2);
        })?;
        bar.finish_and_clear();
        reports.push(report);
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        for r in &reports {
            writeln!(out, "{}", serde_json::to_string(r)?)?;
        }
    } else {
        print_table(&mut out, &reports)?;
    }
    Ok(())
}

fn print_table(out: &mut impl Write, reports: &[SuiteReport]) -> std::io::Result<()> {
    writeln!(out, "Environment judge (final environments compared) | AgentDojo's own utility and security checks")?;
    writeln!(
        out,
        "{:<10} {:>13} {:>13}   {:>24} {:>24}   {:>24} {:>24}",
        "suite",
        "utility env",
        "utility dojo",
        "attacks scoped, env",
        "attacks scoped, dojo",
        "attacks every tool, env",
        "attacks every tool, dojo"
    )?;
    let pct = |n: usize, of: usize| if of == 0 { 0.0 } else { 100.0 * n as f64 / of as f64 };
    let cell = |n: usize, of: usize| format!("{n}/{of} ({:.1}%)", pct(n, of));
    for r in reports {
        let (tasks, trials) = (r.utility.len(), r.attacks.len());
        writeln!(
            out,
            "{:<10} {:>13} {:>13}   {:>24} {:>24}   {:>24} {:>24}",
            r.suite,
            cell(r.solved(), tasks),
            cell(r.agentdojo_solved(), tasks),
            cell(r.scoped_reached(), trials),
            cell(r.agentdojo_scoped_reached(), trials),
            cell(r.every_tool_reached(), trials),
            cell(r.agentdojo_every_tool_reached(), trials),
        )?;
    }
    for r in reports {
        for u in r.utility.iter().filter(|u| !u.solved) {
            writeln!(out, "{} {} not solved: {}", r.suite, u.task, u.detail.as_deref().unwrap_or(""))?;
        }
        let mut by_injection: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
        for a in &r.attacks {
            let e = by_injection.entry(a.injection_task.as_str()).or_default();
            e.1 += 1;
            e.0 += a.scoped_reached as usize;
        }
        if !by_injection.is_empty() {
            let parts: Vec<String> = by_injection.iter().map(|(k, (n, of))| format!("{k} {n}/{of}")).collect();
            writeln!(out, "{} reached under scoping, by injection task: {}", r.suite, parts.join(", "))?;
        }
        let disagreements = r.disagreements();
        if !disagreements.is_empty() {
            writeln!(out, "{}: the two judges disagree on {} runs:", r.suite, disagreements.len())?;
            for d in disagreements {
                writeln!(out, "  {d}")?;
            }
        }
    }
    Ok(())
}
