//! `lacuna run`: run a host program, with given snippets or a model filling its holes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Budgets, Engine, GivenSnippets, PathChoice, RunOptions, SnippetSource};

use crate::{agent, config, exit};

/// Run a host program; when it reaches a hole, get a snippet for it (given with --snippet, or written by a model
/// with --model), check it against the hole and, if accepted, run it right there, against the live values in
/// scope. With a model, a rejected snippet's diagnostics go back to the model for another attempt.
///
/// The host is compiled by rustc and runs in this process; it is not restarted for a snippet. A rejected snippet
/// runs nothing: the hole evaluates to `Err(HoleError::Rejected { .. })`. A snippet that panics, overflows,
/// indexes out of bounds or runs out of a budget makes the hole `Err(HoleError::Runtime { .. })` or
/// `Err(HoleError::Budget { .. })`, and the host goes on.
///
/// The program's stdout and stderr pass through; Lacuna's own messages go to stderr. The exit status is the
/// host's (101 if its `main` panicked); 2 if Lacuna could not run it at all.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  lacuna run examples/primes/host.rs --snippet examples/primes/attempt2.rs
  lacuna run --manifest-path examples/cargo-agent/Cargo.toml -s 1=priority.rs -s 2=mentioned.rs -s 3=headline.rs
  cd my-project && lacuna run --model openai:gpt-4o-mini       # a cargo project: its binary's holes
  lacuna run --model openai:gpt-4o-mini -- input.txt --verbose  # the program's own arguments after `--`
  lacuna run host.rs --snippet 1=first.rs --snippet 2=second.rs --report report.json
  lacuna run host.rs --snippet s.rs --path rustc --fuel 1000000
  lacuna run examples/memory/host.rs --model script:examples/memory/replies.txt --trace trace.jsonl
  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 lacuna run examples/memory/host.rs --model openai:qwen2.5-coder
  lacuna run examples/memory/host.rs --model openai:gpt-4o-mini --record traces/memory.jsonl
  lacuna run examples/memory/host.rs --model replay:traces/memory.jsonl     # no network

Without --model, a hole with no snippet evaluates to `Err(HoleError::Model { .. })` (\"no snippet was given for
this hole\"). Model settings (base URL, key variable, temperature, named models for `agent!(name, ..)`) can
also come from lacuna.toml; see docs/models.md.")]
pub struct RunArgs {
    /// The host program: a single-file Rust program (edition 2021) with `agent!(...)` holes and a `main`, or a
    /// cargo project (its directory or Cargo.toml) whose binary has holes. Default: the cargo project in the
    /// current directory.
    host: Option<PathBuf>,

    /// The cargo project's manifest (as cargo's own flag; the same as giving it as HOST).
    #[arg(long, value_name = "PATH", conflicts_with = "host")]
    manifest_path: Option<PathBuf>,

    /// The project's binary to run, when the package has several.
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,

    /// Arguments for the program, after `--`: what its `std::env::args()` gives after its name (as with `cargo
    /// run -- ARGS`).
    #[arg(last = true, value_name = "ARGS")]
    program_args: Vec<String>,

    /// A snippet for a hole: `N=FILE` for hole N (counting from 1 in source order), or just `FILE` for a host
    /// with one hole. Repeat for several holes.
    #[arg(long = "snippet", short = 's', value_name = "[N=]FILE", conflicts_with = "model")]
    snippets: Vec<String>,

    /// The model that writes snippets: `openai:<model>` (any OpenAI-compatible endpoint: $OPENAI_BASE_URL,
    /// $OPENAI_API_KEY), `anthropic:<model>` ($ANTHROPIC_API_KEY), `script:<file>` (canned replies separated by
    /// `=== reply` lines), `replay:<file>` (a cassette written by --record).
    #[arg(long, short = 'm', value_name = "SPEC")]
    model: Option<String>,

    /// Append every model request and reply to this cassette (JSON lines), for `--model replay:FILE` later.
    #[arg(long, value_name = "FILE", requires = "model")]
    record: Option<PathBuf>,

    /// Write one JSON line per attempt (hole, depth, prompt, reply, snippet, verdict, diagnostics, path, timings).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// Snippets the model may try per hole call. [default: 3]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: Option<u32>,

    /// Holes nested deeper than this are `HoleError::Depth` (0: no cap). [default: 32]
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,

    /// Ask the model again when an accepted snippet faults at run time (off: the fault is the hole's error).
    /// With it, code that ran may be followed by more code: only ill-typed code is guaranteed never to run.
    #[arg(long)]
    retry_after_fault: bool,

    /// Seconds one model request may take. [default: 120]
    #[arg(long, value_name = "SECS")]
    model_timeout: Option<u64>,

    /// A file whose text replaces the default system instruction.
    #[arg(long, value_name = "FILE")]
    system_prompt: Option<PathBuf>,

    /// How accepted snippets run: `auto` (the JIT where it can, rustc otherwise), `jit`, or `rustc`.
    /// [default: auto]
    #[arg(long, value_enum)]
    path: Option<PathArg>,

    /// Write a JSON report (per hole site: verdict, path, error, timings; the host's compile time and exit
    /// status) to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,

    /// Loop iterations plus function and closure calls one snippet run may make (0: unlimited).
    /// [default: 1000000000]
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,

    /// Wall time one snippet run may take, in milliseconds (0: unlimited). [default: 10000]
    #[arg(long, value_name = "MS")]
    time_limit_ms: Option<u64>,

    /// Memory one snippet run may hold allocated, in bytes; K, M and G suffixes allowed (0: unlimited).
    /// [default: 1G]
    #[arg(long, value_name = "BYTES", value_parser = config::parse_bytes)]
    memory_limit: Option<u64>,

    /// Defaults for these options from a TOML file (a `[run]` table; see docs/run.md). Without it,
    /// `lacuna.toml` in the current directory is read if present. Flags win over the file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(flatten)]
    policy: crate::policy::PolicyArgs,

    /// Print what happened at each hole to stderr when the program ends.
    #[arg(long, short = 'v')]
    verbose: bool,
}

impl RunArgs {
    fn agent_flags(&self) -> agent::Flags {
        agent::Flags {
            record: self.record.clone(),
            trace: self.trace.clone(),
            max_attempts: self.max_attempts,
            retry_after_fault: self.retry_after_fault,
            model_timeout: self.model_timeout,
            system_prompt: self.system_prompt.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PathArg {
    Auto,
    Jit,
    Rustc,
}

/// Where `lacuna run .. -- ARGS` keeps its own arguments when it executes itself again with the program's.
pub const REEXEC_ENV: &str = "LACUNA_RUN_ARGS";

/// This process is that second execution: the process's arguments are the program's.
pub static REEXECUTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Gives the host program its own arguments (none but its name without `--`): the host runs in this process, and `std::env::args()` (in every copy
/// of std) reads the process's, so Lacuna executes itself again with `NAME ARGS..` as the process's arguments
/// and its own in the environment ([`REEXEC_ENV`]). Returns only on failure.
fn reexec_with_program_args(args: &RunArgs, host_path: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let name = match (crate::project::is_project(host_path), &args.bin) {
        (true, Some(bin)) => bin.clone(),
        (true, None) => crate::project::binary_name(host_path)?,
        (false, _) => host_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "host".into()),
    };
    let own: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let exe = std::env::current_exe().context("finding this program, to run it with the program's arguments")?;
    let error = std::process::Command::new(exe)
        .arg0(&name)
        .args(&args.program_args)
        .env(REEXEC_ENV, serde_json::to_string(&own)?)
        .exec();
    Err(anyhow::anyhow!("could not run the program with its arguments: {error}"))
}

pub fn run(args: RunArgs) -> anyhow::Result<u8> {
    let (config, config_path) = config::load(args.config.as_deref())?;
    let config_dir = config_path.as_deref().and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty());
    let defaults = Budgets::default();
    let path = args.path.unwrap_or(match config.run.path {
        Some(config::PathName::Jit) => PathArg::Jit,
        Some(config::PathName::Rustc) => PathArg::Rustc,
        Some(config::PathName::Auto) | None => PathArg::Auto,
    });
    let budgets = Budgets {
        fuel: args.fuel.or(config.run.fuel).unwrap_or(defaults.fuel),
        time_ms: args.time_limit_ms.or(config.run.time_limit_ms).unwrap_or(defaults.time_ms),
        memory_bytes: args.memory_limit.or(config.run.memory_limit.map(|b| b.0)).unwrap_or(defaults.memory_bytes),
    };
    let host_path = match (&args.host, &args.manifest_path) {
        (Some(host), _) => host.clone(),
        (None, Some(manifest)) => manifest.clone(),
        (None, None) if std::path::Path::new("Cargo.toml").is_file() => PathBuf::from("."),
        (None, None) => bail!("no host: give a host file or a cargo project, or run in a cargo project's directory"),
    };
    // Always, so that a program without `--` ARGS sees its name only, not Lacuna's flags.
    if !REEXECUTED.load(std::sync::atomic::Ordering::Relaxed) {
        reexec_with_program_args(&args, &host_path)?;
    }
    let project = match crate::project::is_project(&host_path) {
        true => Some(crate::project::load(&host_path, &crate::project::CrateChoice::Bin(args.bin.clone()))?),
        false => None,
    };
    let host_text = match &project {
        Some(project) => project.flat.text.clone(),
        None => crate::input::read("host", &host_path)?,
    };
    let mut snippets = BTreeMap::new();
    for spec in &args.snippets {
        let (site, file) = match spec.split_once('=') {
            Some((n, file)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                let n: u32 = n.parse().with_context(|| format!("`{n}` is not a hole number"))?;
                if n == 0 {
                    bail!("holes are numbered from 1 (in `--snippet {spec}`)");
                }
                (Some(n), PathBuf::from(file))
            }
            _ => (None, PathBuf::from(spec)),
        };
        let text = crate::input::read("snippet", &file)?;
        let site = match site {
            Some(n) => n,
            None if args.snippets.len() == 1 => 1,
            None => bail!("with several snippets, say which hole each is for: `--snippet N={}`", file.display()),
        };
        if snippets.insert(site, text).is_some() {
            bail!("two snippets for hole {site}");
        }
    }
    let wants_model = args.model.is_some() || (config.agent.model.is_some() && args.snippets.is_empty());
    let agent = if wants_model {
        Some(Arc::new(agent::build(args.model.as_deref(), &args.agent_flags(), &config, config_dir)?))
    } else {
        None
    };
    let mut policy = crate::policy::resolve(&args.policy, &config.policy)?;
    if let Some(project) = &project {
        policy = project.policy(policy)?;
    }
    let checker = Checker::new(CheckerOptions {
        policy: policy.clone(),
        project: project.as_ref().map(|p| p.checker.clone()),
        ..CheckerOptions::default()
    })?;
    let site_policies = crate::policy::site_policies(&policy, &config)?;
    let options = RunOptions {
        policy,
        site_policies,
        path: match path {
            PathArg::Auto => PathChoice::Auto,
            PathArg::Jit => PathChoice::Jit,
            PathArg::Rustc => PathChoice::Rustc,
        },
        budgets,
        max_depth: args.max_depth.or(config.agent.max_depth).unwrap_or(RunOptions::default().max_depth),
        ..RunOptions::default()
    };
    let engine = Engine::new(checker, options)?;
    let name = match &project {
        Some(project) => project.name(),
        None => host_path.display().to_string(),
    };
    // Snippets given up front also settle the types of holes only they settle.
    let up_front = if agent.is_some() { BTreeMap::new() } else { snippets.clone() };
    let host = engine.load_for(&name, &host_text, &up_front)?;
    let holes = host.prepared.host.holes.len() as u32;
    if let Some((&site, _)) = snippets.iter().find(|(&site, _)| site > holes) {
        bail!("{name} has {holes} hole(s); there is no hole {site}");
    }
    if snippets.len() == 1 && holes > 1 && args.snippets.iter().all(|s| !s.contains('=')) {
        bail!("{name} has {holes} holes; say which one the snippet is for: `--snippet N=FILE`");
    }
    let source: Arc<dyn SnippetSource> = match &agent {
        Some(agent) => agent.clone(),
        None => Arc::new(GivenSnippets(snippets)),
    };
    let report = engine.run_with(&host, source)?;
    let _ = std::io::stdout().flush();
    if let Some(agent) = &agent {
        eprintln!("lacuna: {}", agent.summary());
    }
    if args.verbose {
        for site in &report.sites {
            let verdict = match site.accepted {
                Some(true) => format!("accepted by {}", site.decided_by.map_or("?", |d| d.as_str())),
                Some(false) => format!("rejected by {}", site.decided_by.map_or("?", |d| d.as_str())),
                None => "no verdict".into(),
            };
            let error = site.error.as_deref().map(|e| format!("; {e}")).unwrap_or_default();
            let path = match site.path {
                Some(lacuna_engine::ExecPath::Jit) => ", ran on the JIT".to_owned(),
                Some(lacuna_engine::ExecPath::Rustc) => match &site.not_jit {
                    Some(why) => format!(", ran on the rustc path (not the JIT: {why})"),
                    None => ", ran on the rustc path".to_owned(),
                },
                None => String::new(),
            };
            let place = match site.parent {
                Some(parent) => format!("line {} of hole {parent}'s snippet", site.line),
                None => match &project {
                    Some(project) => project.place_of_line(site.line),
                    None => format!("line {}", site.line),
                },
            };
            eprintln!(
                "lacuna: hole {} ({place}): {} call(s), {} attempt(s), {verdict}{path}{error}; model {:.1} ms, check \
                 {:.1} ms, compile {:.1} ms, run {:.1} ms",
                site.site,
                site.calls,
                site.attempts,
                site.timings_ms.model,
                site.timings_ms.check,
                site.timings_ms.compile,
                site.timings_ms.run
            );
        }
        eprintln!("lacuna: host compiled in {:.1} ms; exit status {}", report.host_compile_ms, report.exit_status);
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write the report {}", path.display()))?;
    }
    Ok(u8::try_from(report.exit_status).unwrap_or(exit::HOST_FAILED))
}
