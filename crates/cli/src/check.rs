//! `lacuna check`: verdicts for snippets at holes, without running anything.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use lacuna_checker::render::render_verdict;
use lacuna_checker::{Checker, CheckerOptions, PreparedHost, Verdict};
use serde::Deserialize;
use serde_json::json;

use crate::exit;

/// Check snippets against a hole, exactly as rustc would judge the host with the snippet in place.
///
/// Nothing of a snippet runs. rust-analyzer gives fast rejections; a snippet it finds clean is confirmed by rustc
/// (`-Z no-codegen`: its analysis without code generation), and `decided_by` says which one decided.
///
/// Exit status: 0 all accepted, 1 any rejected, 2 usage or input error.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  lacuna check examples/primes/host.rs --snippet examples/primes/attempt1.rs --snippet examples/primes/attempt2.rs
  lacuna check host.rs --hole 2 --snippet s.rs --json
  lacuna check --batch jobs.jsonl --json
  lacuna check examples/cargo-agent/Cargo.toml --hole src/triage.rs:16 --snippet s.rs

A batch file has one job per line: {\"host\": PATH, \"snippet\": PATH, \"hole\": N}. `hole` is 1-based and may be
left out when the host has one hole; relative paths resolve against the batch file's folder.")]
pub struct CheckArgs {
    /// The host: a single-file Rust program (edition 2021) with `agent!(...)` holes, or a cargo project (its
    /// directory or Cargo.toml) whose binary has holes. A project is built with cargo first (dependencies once).
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    host: Option<PathBuf>,

    /// A snippet file to check in the hole. Repeat to check several, in order, in one warm process.
    #[arg(long = "snippet", short = 's', value_name = "FILE", required_unless_present = "batch")]
    snippets: Vec<PathBuf>,

    /// Which hole: N counts from 1 in source order; FILE:LINE is the hole on that line (in a project, FILE is
    /// one of its source files). Needed when the host has more than one.
    #[arg(long, value_name = "N|FILE:LINE", value_parser = parse_hole)]
    hole: Option<HoleRef>,

    /// The project's binary whose crate has the holes, when the package has several.
    #[arg(long, value_name = "NAME", conflicts_with = "lib")]
    bin: Option<String>,

    /// The holes are in the package's library (`src/lib.rs`), not a binary.
    #[arg(long)]
    lib: bool,

    /// Jobs from a JSONL file instead of HOST and --snippet.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with_all = ["snippets", "hole"])]
    batch: Option<PathBuf>,

    /// One JSON object per snippet per line on stdout, instead of rendered diagnostics.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    policy: crate::policy::PolicyArgs,

    /// Safe mode's `[policy]` from a TOML file. Without it, `lacuna.toml` in the current directory is read if
    /// present.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Print start-up facts (std source, rustc, timings) to stderr.
    #[arg(long, short = 'v')]
    verbose: bool,
}

struct Job {
    host: PathBuf,
    snippet: PathBuf,
    hole: Option<HoleRef>,
}

/// A hole as the command line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoleRef {
    /// 1-based, in source order.
    Number(u32),
    /// The hole on a line of a file.
    At(PathBuf, u32),
}

fn parse_hole(s: &str) -> Result<HoleRef, String> {
    if let Ok(n) = s.parse::<u32>() {
        return if n == 0 { Err("holes count from 1".into()) } else { Ok(HoleRef::Number(n)) };
    }
    match s.rsplit_once(':').map(|(f, l)| (f, l.parse::<u32>())) {
        Some((file, Ok(line))) if !file.is_empty() && line > 0 => Ok(HoleRef::At(PathBuf::from(file), line)),
        _ => Err(format!("`{s}` is neither a hole number (1, 2, ..) nor FILE:LINE")),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchLine {
    host: PathBuf,
    snippet: PathBuf,
    hole: Option<u32>,
}

pub fn run(args: CheckArgs) -> anyhow::Result<u8> {
    let jobs = match &args.batch {
        Some(batch) => read_batch(batch)?,
        None => {
            let host = args.host.clone().expect("clap requires HOST without --batch");
            args.snippets
                .iter()
                .map(|s| Job { host: host.clone(), snippet: s.clone(), hole: args.hole.clone() })
                .collect()
        }
    };
    if let Some(host) = jobs.iter().map(|j| &j.host).find(|h| args.batch.is_some() && crate::project::is_project(h)) {
        bail!("{}: a batch's hosts are single files; check a cargo project with `lacuna check DIR`", host.display());
    }
    let project = match args.host.as_deref().filter(|h| crate::project::is_project(h)) {
        Some(dir) => {
            let choice = match args.lib {
                true => crate::project::CrateChoice::Lib,
                false => crate::project::CrateChoice::Bin(args.bin.clone()),
            };
            Some(crate::project::load(dir, &choice)?)
        }
        None => {
            // Fail fast on a missing host in the single-host form: nothing could be checked.
            if args.batch.is_none() {
                crate::input::read("host", &jobs[0].host)?;
            }
            None
        }
    };

    let (config, _) = crate::config::load(args.config.as_deref())?;
    let mut policy = crate::policy::resolve(&args.policy, &config.policy)?;
    if let Some(project) = &project {
        policy = project.policy(policy)?;
    }
    let site_policies = crate::policy::site_policies(&policy, &config)?;
    let options = CheckerOptions { policy, project: project.as_ref().map(|p| p.checker.clone()), ..Default::default() };
    let mut checker = Checker::new(options).context("starting the checker")?;
    if args.verbose {
        let s = &checker.startup;
        eprintln!(
            "lacuna: std source {} ({} files), {}, ready in {:.0} ms",
            s.std_source.display(),
            s.std_files,
            s.rustc_version,
            s.startup_ms
        );
    }

    let styled = std::io::IsTerminal::is_terminal(&std::io::stdout()) && std::env::var_os("NO_COLOR").is_none();
    // On stderr, and only when it is a terminal (indicatif hides it otherwise), so JSON on stdout stays clean.
    let progress = args.batch.is_some().then(|| indicatif::ProgressBar::new(jobs.len() as u64));
    let mut hosts: HashMap<PathBuf, Result<PreparedHost, String>> = HashMap::new();
    let (mut any_rejected, mut any_error) = (false, false);
    for job in &jobs {
        // What this job prints: (stdout, stderr).
        let (out, err) = match check_job(&mut checker, &mut hosts, &site_policies, project.as_ref(), job) {
            Ok(Checked { prepared, hole, snippet, verdict }) => {
                any_rejected |= !verdict.accepted;
                if args.verbose {
                    for note in &verdict.notes {
                        eprintln!("lacuna: note: {note}");
                    }
                }
                if args.json {
                    (format!("{}\n", json_line(job, &prepared, hole, &verdict)), String::new())
                } else {
                    let name = job.snippet.display().to_string();
                    let cwd = std::env::current_dir().ok();
                    let base = project.as_ref().and(cwd.as_deref());
                    (render_verdict(&prepared, hole, &name, &snippet, &verdict, styled, base), String::new())
                }
            }
            Err(message) => {
                any_error = true;
                if args.json {
                    let hole = match &job.hole {
                        Some(HoleRef::Number(n)) => json!(n),
                        Some(HoleRef::At(file, line)) => json!(format!("{}:{line}", file.display())),
                        None => serde_json::Value::Null,
                    };
                    let line = json!({
                        "host": job.host, "snippet": job.snippet, "hole": hole,
                        "accepted": false, "error": message,
                    });
                    (format!("{line}\n"), String::new())
                } else {
                    (String::new(), format!("error: {message}\n"))
                }
            }
        };
        let write = || -> std::io::Result<()> {
            std::io::stdout().lock().write_all(out.as_bytes())?;
            std::io::stderr().lock().write_all(err.as_bytes())
        };
        match &progress {
            Some(p) => {
                p.suspend(write)?;
                p.inc(1);
            }
            None => write()?,
        }
        // Without --batch every job shares one host: if it failed, every snippet would fail the same way.
        if any_error && args.batch.is_none() {
            break;
        }
    }
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    Ok(if any_error {
        exit::INPUT_ERROR
    } else if any_rejected {
        exit::REJECTED
    } else {
        exit::ACCEPTED
    })
}

struct Checked {
    prepared: PreparedHost,
    /// 0-based.
    hole: usize,
    snippet: String,
    verdict: Verdict,
}

/// One job: an input error is a message for the user, not a verdict.
fn check_job(
    checker: &mut Checker,
    hosts: &mut HashMap<PathBuf, Result<PreparedHost, String>>,
    site_policies: &std::collections::BTreeMap<u32, lacuna_checker::Policy>,
    project: Option<&crate::project::LoadedProject>,
    job: &Job,
) -> Result<Checked, String> {
    let prepared = hosts
        .entry(job.host.clone())
        .or_insert_with(|| match project {
            Some(project) => {
                let mut prepared = checker.prepare(&project.name(), &project.flat.text).map_err(|e| match e {
                    lacuna_checker::CheckerError::NoHoles { .. } if project.project.library.is_some() => format!(
                        "{} has no `agent!` holes, in its library or in its binary `{}`",
                        project.name(),
                        project.project.bin.name
                    ),
                    lacuna_checker::CheckerError::NoHoles { .. } if !project.project.is_lib => {
                        format!("{}'s binary `{}` has no `agent!` holes", project.name(), project.project.bin.name)
                    }
                    lacuna_checker::CheckerError::HostDoesNotCompile { .. } => format!(
                        "{} does not compile as Lacuna reads it (its modules as one crate, holes unfilled): {e}",
                        project.name()
                    ),
                    e => e.to_string(),
                })?;
                prepared.host.sources = Some(project.flat.clone());
                Ok(prepared)
            }
            None => {
                let text = crate::input::read_text("host", &job.host)?;
                checker.prepare(&job.host.display().to_string(), &text).map_err(|e| e.to_string())
            }
        })
        .clone()?;
    let holes = &prepared.host.holes;
    let hole = match &job.hole {
        Some(HoleRef::Number(n)) if (*n as usize) <= holes.len() => *n as usize - 1,
        Some(HoleRef::Number(n)) => {
            return Err(format!("{} has {} hole(s); there is no hole {n}", job.host.display(), holes.len()))
        }
        Some(HoleRef::At(file, line)) => match project {
            Some(project) => project.hole_at(holes, file, *line).map_err(|e| format!("{e:#}"))?,
            None => holes
                .iter()
                .position(|h| h.line == *line)
                .ok_or_else(|| format!("there is no hole on line {line} of {}", job.host.display()))?,
        },
        None if holes.len() == 1 => 0,
        None if project.is_some() => {
            let cwd = std::env::current_dir().ok();
            let at: Vec<String> = (0..holes.len()).map(|i| prepared.host.hole_location(i, cwd.as_deref())).collect();
            return Err(format!(
                "{} has {} holes ({}); pick one with --hole N or --hole FILE:LINE",
                job.host.display(),
                holes.len(),
                at.join(", ")
            ));
        }
        None => {
            let lines: Vec<String> = holes.iter().map(|h| h.line.to_string()).collect();
            return Err(format!(
                "{} has {} holes (on lines {}); pick one with --hole N",
                job.host.display(),
                holes.len(),
                lines.join(", ")
            ));
        }
    };
    let snippet = crate::input::read_text("snippet", &job.snippet)?;
    let verdict = match site_policies.get(&(hole as u32 + 1)) {
        Some(policy) => checker.check_under(&prepared, hole, &snippet, policy),
        None => checker.check(&prepared, hole, &snippet),
    }
    .map_err(|e| format!("{}: {e}", job.snippet.display()))?;
    Ok(Checked { prepared, hole, snippet, verdict })
}

fn read_batch(path: &Path) -> anyhow::Result<Vec<Job>> {
    let text = crate::input::read("batch file", path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut jobs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let job: BatchLine = serde_json::from_str(line).with_context(|| {
            format!("{}:{}: expected {{\"host\": PATH, \"snippet\": PATH, \"hole\": N}}", path.display(), n + 1)
        })?;
        if job.hole == Some(0) {
            bail!("{}:{}: holes count from 1", path.display(), n + 1);
        }
        jobs.push(Job {
            host: base.join(job.host),
            snippet: base.join(job.snippet),
            hole: job.hole.map(HoleRef::Number),
        });
    }
    if jobs.is_empty() {
        bail!("{} has no jobs", path.display());
    }
    Ok(jobs)
}

fn json_line(job: &Job, prepared: &PreparedHost, hole: usize, verdict: &Verdict) -> serde_json::Value {
    let (host, snippet) = (job.host.display().to_string(), job.snippet.display().to_string());
    lacuna_service::verdict_json(Some(&host), Some(&snippet), prepared, hole, verdict)
}
