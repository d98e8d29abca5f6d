//! `lacuna bench`: a suite's tasks, each an agent run in a session of a `lacuna serve --stdio` worker, recorded as
//! JSON lines; `lacuna bench report` merges records into the table.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use lacuna_bench::browsecomp::RetrievalSuite;
use lacuna_bench::record::read_records;
use lacuna_bench::runner::{self, Agent, RunOptions, Shard};
use lacuna_bench::tau2::user::UserSpec;
use lacuna_bench::{Report, Suite, SuiteKind, TaskRecord};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
#[command(after_help = "\
Examples:
  lacuna bench suites/tau2-retail.toml --model oracle -j 2 --out runs/retail.oracle.jsonl
  lacuna bench suites/tau2-airline.toml --model oracle -j 2 --out runs/airline.oracle.jsonl
  lacuna bench suites/tau2-retail.toml --model openai:<m> --user-model openai:<u> --judge-model openai:<j> -j 4 \\
      --out runs/retail.jsonl --record runs/retail.cassette.jsonl
  lacuna bench suites/tau2-retail.toml --model replay:runs/retail.cassette.jsonl --out runs/retail.replay.jsonl
  lacuna bench suites/tau2-retail.toml --model oracle --shard 2/8 --out runs/retail.2.jsonl
  lacuna bench suites/browsecomp-plus.toml --data ~/data/browsecomp-plus --model openai:<m> \
      --judge-model openai:<j> -j 4 --out runs/browsecomp.jsonl
  lacuna bench report runs/*.jsonl

Each task is a session on the suite's host: a turn loads the store, each user message is a turn the agent
writes (checked, retried from diagnostics, run), and a last turn compares the store with the one the task's
expected actions leave. Scored as τ² scores the task (its reward basis): DB, ENV_ASSERTION, COMMUNICATE, ACTION,
and NL_ASSERTION when a --judge-model grades it.

A BrowseComp-Plus suite (kind = \"browsecomp\") runs its host once per query with `lacuna run`: one hole whose
code searches the corpus (`search(query, k)`, `get_document(docid)`) and may open holes of its own. The
--judge-model grades each answer against the query's; recall of the evidence documents, searches, rounds and
retries are counted from the run. `--model oracle` there reads the evidence and answers with the known answer: it
checks the harness, not an agent.

One JSON line per task goes to --out as it finishes; --resume skips the tasks already there.")]
pub struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,

    /// The suite file (`suites/*.toml`): its host, its data, its tasks.
    #[arg(required = true)]
    suite: Option<PathBuf>,

    /// Who writes the agent's code: `oracle` (the built-in agent that performs each task's expected actions
    /// through the tools), or a model (`openai:<m>`, `anthropic:<m>`, `script:<file>`, `replay:<cassette>`).
    #[arg(long, short = 'm', value_name = "SPEC", required = true)]
    model: Option<String>,

    /// Who plays the user: a model (`openai:<m>`, ..., `replay:<cassette>`) given the task's scenario, as τ²'s
    /// user simulator; without it, a scripted user says what they want and know in one message.
    #[arg(long, value_name = "SPEC")]
    user_model: Option<String>,

    /// Who grades (a model: `openai:<m>`, ..., `replay:<cassette>`): τ²'s `NL_ASSERTION`s (it reads the
    /// conversation and says which of the task's assertions hold), and BrowseComp-Plus's answers (against the
    /// correct one). Without it, τ² tasks scored on `NL_ASSERTION` are scored on their other bases alone, and
    /// BrowseComp-Plus answers go ungraded; the records and table say so.
    #[arg(long, value_name = "SPEC")]
    judge_model: Option<String>,

    /// Tasks running at once, each in its own worker process (about 1 GB each).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    jobs: u32,

    /// Append one JSON line per task here, as each finishes.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Go on with a run --out already holds records of: its tasks are skipped.
    #[arg(long, requires = "out")]
    resume: bool,

    /// Only slice I of N of the suite's tasks (task k, from 0, is in slice k mod N + 1).
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,

    /// Only this task (repeat for more).
    #[arg(long = "task", value_name = "ID")]
    tasks: Vec<String>,

    /// Read the suite's data from here instead of its `data` (τ²: db.json and tasks.json; BrowseComp-Plus:
    /// decrypted.jsonl and corpus.jsonl).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,

    /// Append every model request and reply (the agent's and the user model's) to this cassette, for
    /// `--model replay:FILE` (and `--user-model replay:FILE`) later.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Models, safe-mode defaults and more from a TOML file, as for `lacuna run`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Print the table as JSON at the end.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Merge records (shards, reruns: a task's last record wins) and print the table
    Report(ReportArgs),
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// JSONL files `lacuna bench --out` wrote.
    #[arg(required = true)]
    files: Vec<PathBuf>,

    /// The table as JSON.
    #[arg(long)]
    json: bool,

    /// Also draw solved % and rejected % per suite as an SVG bar chart here.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<u8> {
    if let Some(BenchCommand::Report(report)) = args.command {
        return run_report(report);
    }
    let suite_path = args.suite.context("name a suite file")?;
    let suite = match SuiteKind::of(&suite_path)? {
        SuiteKind::Tau2 => {
            let suite = Suite::load(&suite_path, args.data.as_deref())?;
            let tasks = suite.tasks()?;
            Loaded::Tau2(suite, tasks)
        }
        SuiteKind::Browsecomp => {
            if args.user_model.is_some() {
                bail!("--user-model plays τ²'s customer; a BrowseComp-Plus query has no user");
            }
            let suite = RetrievalSuite::load(&suite_path, args.data.as_deref())?;
            let queries = suite.queries()?;
            Loaded::Retrieval(suite, queries)
        }
    };
    let name = suite.name().to_owned();
    let spec = args.model.context("name a model with --model")?;
    let agent = if spec == "oracle" { Agent::Oracle } else { Agent::Model(spec.clone()) };

    let mut earlier: Vec<TaskRecord> = Vec::new();
    if let Some(out) = &args.out {
        if out.exists() {
            earlier = read_records(out)?.into_iter().filter(|r| r.suite == name).collect();
            let any = std::fs::metadata(out).map(|m| m.len() > 0).unwrap_or(false);
            if any && !args.resume {
                bail!(
                    "{} already holds records ({} of this suite): pass --resume to go on where it stopped, or \
                     name another --out",
                    out.display(),
                    earlier.len()
                );
            }
        }
    }
    let done: BTreeSet<String> = earlier.iter().map(|r| r.task.clone()).collect();
    let mut worker_args = Vec::new();
    if let Some(record) = &args.record {
        worker_args.extend(["--record".to_owned(), record.display().to_string()]);
    }
    if let Some(config) = &args.config {
        worker_args.extend(["--config".to_owned(), config.display().to_string()]);
    }
    let user = match &args.user_model {
        None => UserSpec::Scripted,
        Some(spec) => {
            let parsed: lacuna_agent::ModelSpec = spec.parse()?;
            let settings = lacuna_agent::ModelSettings { record: args.record.clone(), ..Default::default() };
            UserSpec::Model(
                lacuna_agent::connect(&parsed, &settings).with_context(|| format!("the user model {spec}"))?,
            )
        }
    };
    let judge = match &args.judge_model {
        None => None,
        Some(spec) => {
            let parsed: lacuna_agent::ModelSpec = spec.parse()?;
            let settings = lacuna_agent::ModelSettings { record: args.record.clone(), ..Default::default() };
            Some(lacuna_bench::tau2::judge::Judge(
                lacuna_agent::connect(&parsed, &settings).with_context(|| format!("the judge model {spec}"))?,
            ))
        }
    };
    let options = RunOptions {
        program: std::env::current_exe().context("finding the lacuna binary for the workers")?,
        worker_args,
        agent,
        user,
        judge,
        jobs: args.jobs as usize,
        shard: args.shard,
        only: args.tasks.clone(),
        done,
    };
    let selected = match suite {
        Loaded::Tau2(suite, tasks) => Loaded::Tau2(suite, runner::select(tasks, |t| t.id.as_str(), &options)?),
        Loaded::Retrieval(suite, queries) => {
            Loaded::Retrieval(suite, runner::select(queries, |q| q.query_id.as_str(), &options)?)
        }
    };
    let mut out = match &args.out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            }
            Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("opening {}", path.display()))?,
            )
        }
        None => None,
    };
    let total = selected.len();
    eprintln!(
        "{}: {} task(s) with {} on {} worker(s){}",
        name,
        total,
        spec,
        args.jobs,
        if earlier.is_empty() { String::new() } else { format!(" ({} recorded earlier, skipped)", earlier.len()) }
    );
    let terminal = std::io::stderr().is_terminal();
    let progress = indicatif::ProgressBar::new(total as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed_precise}, ETA {eta}]")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let (mut solved, mut failed) = (0usize, 0usize);
    let on_record = |record: &TaskRecord| {
        if let Some(out) = out.as_mut() {
            let line = serde_json::to_string(record).map_err(|e| lacuna_bench::BenchError::Usage(e.to_string()))?;
            writeln!(out, "{line}").and_then(|_| out.flush()).map_err(|source| lacuna_bench::BenchError::Io {
                path: args.out.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                source,
            })?;
        }
        if record.solved {
            solved += 1;
        } else {
            failed += 1;
        }
        progress.set_message(format!("solved {solved}, not solved {failed}"));
        progress.inc(1);
        if !terminal {
            let why = record.error.clone().or_else(|| record.diff.first().cloned()).unwrap_or_default();
            eprintln!(
                "task {}: {} ({:.1} s){}",
                record.task,
                verdict(record),
                record.time_ms.wall / 1000.0,
                if why.is_empty() { String::new() } else { format!(": {why}") }
            );
        }
        Ok(())
    };
    let records = match selected {
        Loaded::Tau2(suite, tasks) => runner::run(&suite, tasks, &options, on_record)?,
        Loaded::Retrieval(suite, queries) => lacuna_bench::browsecomp::run(&suite, queries, &options, on_record)?,
    };
    progress.finish_and_clear();
    let report = Report::from_records(earlier.into_iter().chain(records));
    print_report(&report, args.json)?;
    Ok(crate::exit::ACCEPTED)
}

/// A finished task in a word: solved or not; a query's answer correct, wrong or not graded.
fn verdict(record: &TaskRecord) -> &'static str {
    match (&record.retrieval, record.solved) {
        (None, true) => "solved",
        (None, false) => "not solved",
        (Some(query), _) => match query.correct {
            Some(true) => "correct",
            Some(false) => "wrong",
            None => "answered (not graded)",
        },
    }
}

/// A suite and its tasks, by kind.
enum Loaded {
    Tau2(Suite, Vec<lacuna_bench::tau2::Task>),
    Retrieval(RetrievalSuite, Vec<lacuna_retrieval::Query>),
}

impl Loaded {
    fn name(&self) -> &str {
        match self {
            Loaded::Tau2(suite, _) => &suite.name,
            Loaded::Retrieval(suite, _) => &suite.name,
        }
    }

    fn len(&self) -> usize {
        match self {
            Loaded::Tau2(_, tasks) => tasks.len(),
            Loaded::Retrieval(_, queries) => queries.len(),
        }
    }
}

fn run_report(args: ReportArgs) -> anyhow::Result<u8> {
    let mut records = Vec::new();
    for file in &args.files {
        records.extend(read_records(file)?);
    }
    if records.is_empty() {
        bail!(
            "no task records in {}",
            args.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let report = Report::from_records(records);
    if let Some(svg) = &args.svg {
        std::fs::write(svg, lacuna_bench::report::svg(&report))
            .with_context(|| format!("writing {}", svg.display()))?;
    }
    print_report(&report, args.json)?;
    Ok(crate::exit::ACCEPTED)
}

fn print_report(report: &Report, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
