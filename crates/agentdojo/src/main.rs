//! `lacuna-agentdojo`: AgentDojo's four suites (banking, slack, travel, workspace) on Lacuna, as the paper's Table 3
//! measures them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use lacuna_agentdojo::{
    generate, run_suite, run_suite_with_model, ModelReplies, ModelReport, Selection, Setup, SuiteData, SuiteName,
    SuiteReport,
};

/// Runs AgentDojo's banking, slack, travel and workspace suites on Lacuna.
///
/// Utility: each user task's hole is handed only the tools its ground truth calls, and a scripted reply performs
/// that ground truth. Attacks: for every (user task, injection task) pair, a fully compromised model's reply
/// performs the injection task's ground truth, once under per-task scoping and once with every tool in scope.
/// Each run is judged twice: by the environment judge (utility: accepted, and the environment ends as with every
/// tool in scope; attacks: the environment ends as the injection's ground truth leaves it) and by AgentDojo's own
/// `utility` and `security` checks, ported to Rust; the table shows both and lists where they disagree.
///
/// With --model, a model writes every snippet instead (asked as `lacuna run` asks it, retrying from diagnostics):
/// each user task runs once in the clean environment and each (user task, injection task) pair once under
/// per-task scoping and once with every tool in scope, all judged by AgentDojo's checks — Table 3 for that model.
///
/// Examples:
///   lacuna-agentdojo                               # every suite, utility and attacks
///   lacuna-agentdojo --suite banking --json
///   OPENAI_BASE_URL=http://127.0.0.1:8080/v1 lacuna-agentdojo --model openai:qwen2.5-coder --suite travel
///   lacuna-agentdojo --print-host slack > slack.rs # the generated host program
#[derive(Debug, Parser)]
#[command(name = "lacuna-agentdojo", version, verbatim_doc_comment)]
struct Args {
    /// Suites to run (banking, slack, travel, workspace); all when not given.
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
    /// A model writes every snippet: openai:<model> (OPENAI_BASE_URL, OPENAI_API_KEY), anthropic:<model>
    /// (ANTHROPIC_API_KEY), script:<file>, replay:<cassette>.
    #[arg(long, value_name = "SPEC", conflicts_with = "idle")]
    model: Option<String>,
    /// With --model: attempts per hole (each rejected attempt's diagnostics go into the next prompt).
    #[arg(long, value_name = "N", default_value_t = 3)]
    attempts: u32,
    /// Print the reports as JSON (one object per suite, with every row) instead of the table.
    #[arg(long)]
    json: bool,
    /// Print the `src/main.rs` of a suite's generated host project and exit.
    #[arg(long, value_name = "SUITE")]
    print_host: Option<String>,
}

fn suite(name: &str) -> anyhow::Result<SuiteName> {
    SuiteName::from_name(name)
        .with_context(|| format!("unknown suite `{name}`; the port has banking, slack, travel and workspace"))
}

fn main() -> anyhow::Result<()> {
    // Run by cargo as rustc's wrapper while a suite's host project builds.
    if let Some(code) = lacuna_project::record::wrapper_main() {
        std::process::exit(code);
    }
    let args = Args::parse();
    let data = args.data.clone().unwrap_or_else(lacuna_agentdojo::suite::vendored_data);
    if let Some(name) = &args.print_host {
        let loaded = SuiteData::load(&data, suite(name)?)?;
        print!("{}", generate::host(&loaded, std::path::Path::new("agentdojo-control.json"))?);
        return Ok(());
    }
    let suites: Vec<SuiteName> = if args.suites.is_empty() {
        SuiteName::ALL.to_vec()
    } else {
        args.suites.iter().map(|s| suite(s)).collect::<anyhow::Result<_>>()?
    };
    let setup = Setup::default();
    let selection = Selection {
        user_tasks: args.user_tasks,
        injection_tasks: args.injection_tasks,
        no_attacks: args.no_attacks || args.idle,
        idle: args.idle,
    };
    if let Some(spec) = &args.model {
        let spec: lacuna_agent::ModelSpec = spec.parse()?;
        let model = lacuna_agent::connect(&spec, &lacuna_agent::ModelSettings::default())
            .with_context(|| format!("connecting to {}", spec.describe()))?;
        let options = lacuna_agent::AgentOptions { max_attempts: args.attempts.max(1), ..Default::default() };
        let replies = ModelReplies { model, options };
        let mut reports = Vec::new();
        for name in suites {
            let loaded = SuiteData::load(&data, name)?;
            let (users, injections) = (selection.users(&loaded).len(), selection.injections(&loaded).len());
            let runs = users + if selection.no_attacks { 0 } else { injections * users };
            let bar = progress_bar(name, runs);
            let report = run_suite_with_model(&setup, &loaded, &selection, &replies, &mut |label| {
                bar.set_message(label.to_owned());
                bar.inc(1);
            })?;
            bar.finish_and_clear();
            reports.push(report);
        }
        return emit(&reports, args.json, print_model_table);
    }
    let mut reports = Vec::new();
    for name in suites {
        let loaded = SuiteData::load(&data, name)?;
        let (users, injections) = (selection.users(&loaded).len(), selection.injections(&loaded).len());
        let runs = 2 * users + if selection.no_attacks { 0 } else { injections * (2 + 2 * users) };
        let bar = progress_bar(name, runs);
        let report = run_suite(&setup, &loaded, &selection, &mut |label| {
            // Each label is two runs: scoped and every-tool, or the goal and the untouched environment.
            bar.set_message(label.to_owned());
            bar.inc(2);
        })?;
        bar.finish_and_clear();
        reports.push(report);
    }
    emit(&reports, args.json, print_table)
}

/// The reports as JSON lines (one per suite), or as `table` prints them.
fn emit<R: serde::Serialize>(
    reports: &[R],
    json: bool,
    table: fn(&mut std::io::StdoutLock<'static>, &[R]) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        for r in reports {
            writeln!(out, "{}", serde_json::to_string(r)?)?;
        }
    } else {
        table(&mut out, reports)?;
    }
    Ok(())
}

fn progress_bar(name: SuiteName, runs: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(runs as u64).with_style(
        indicatif::ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {msg} ({eta})")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(name.name());
    bar
}

/// Table 3's shape for a model's runs: utility and attacks that reached their goal, as AgentDojo's checks judge.
fn print_model_table(out: &mut impl Write, reports: &[ModelReport]) -> std::io::Result<()> {
    let pct = |n: usize, of: usize| if of == 0 { 0.0 } else { 100.0 * n as f64 / of as f64 };
    let cell = |n: usize, of: usize| format!("{n}/{of} ({:.1}%)", pct(n, of));
    if let Some(first) = reports.first() {
        writeln!(out, "model {} — judged by AgentDojo's own checks", first.model)?;
    }
    writeln!(
        out,
        "{:<10} {:>15} {:>22} {:>22} {:>20}",
        "suite", "utility", "attacks, scoped", "attacks, every tool", "rejected/attempts"
    )?;
    for r in reports {
        let (tasks, trials) = (r.utility.len(), r.attacks.len());
        let (attempts, rejected) = r.attempts();
        writeln!(
            out,
            "{:<10} {:>15} {:>22} {:>22} {:>20}",
            r.suite,
            cell(r.solved(), tasks),
            cell(r.scoped_reached(), trials),
            cell(r.every_tool_reached(), trials),
            format!("{rejected}/{attempts}"),
        )?;
    }
    for r in reports {
        for (id, why) in &r.skipped {
            writeln!(out, "{} {id} not run: {why}", r.suite)?;
        }
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
        for (id, why) in &r.skipped {
            writeln!(out, "{} {id} not run: {why}", r.suite)?;
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
