//! `lacuna repl`: a person at a session. Each line is a task for the model, or code typed directly (`:code`); what
//! a turn declares and leaves stays in scope for the next.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, RunOptions, Session, TurnOutcome};

use crate::agent;

#[derive(Debug, Args)]
#[command(after_help = "\
Each line is a task for the model, which writes the turn's code; or:
  :code SNIPPET    run SNIPPET as the turn (`\\n` in it is a line break)
  :code            then lines of code, ended by a line `:end`
  :state           the locals and items in scope
  :help            this list
  :quit            leave (also Ctrl-D)

Examples:
  lacuna repl --model openai:qwen2.5-coder
  lacuna repl tools.rs --model script:replies.txt
  lacuna repl . --model openai:gpt-4o-mini      # a cargo project: its library's items and its dependencies
  printf ':code let n = 20;\\n:code n + 1\\n' | lacuna repl")]
pub struct ReplArgs {
    /// A host program whose functions, types and impls are in scope from the first turn (its `main` is left out);
    /// or a cargo project (its directory or Cargo.toml): its library's crate, else its binary's, with the crate's
    /// dependencies.
    host: Option<PathBuf>,

    /// With a cargo project: the binary whose crate the session opens on (instead of the package's library).
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,

    /// The model that writes turns from tasks (as for `lacuna run`). Without it, type code with `:code`.
    #[arg(long, short = 'm', value_name = "SPEC")]
    model: Option<String>,

    /// Snippets the model may try per turn. [default: 3]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: Option<u32>,

    /// Write one JSON line per model attempt.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// Model settings and safe-mode defaults from a TOML file, as for `lacuna run`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(flatten)]
    policy: crate::policy::PolicyArgs,
}

pub fn run(args: ReplArgs) -> anyhow::Result<u8> {
    let (config, config_dir) = crate::config::load(args.config.as_deref())?;
    let mut policy = crate::policy::resolve(&args.policy, &config.policy)?;
    let project = match &args.host {
        Some(path) if crate::project::is_project(path) => {
            Some(crate::project::load_for_session(path, args.bin.clone())?)
        }
        _ if args.bin.is_some() => anyhow::bail!("--bin names a binary of a cargo project; give the project as HOST"),
        _ => None,
    };
    if let Some(project) = &project {
        policy = project.policy(policy)?;
    }
    let flags = agent::Flags {
        record: None,
        trace: args.trace.clone(),
        max_attempts: args.max_attempts,
        retry_after_fault: false,
        model_timeout: None,
        system_prompt: None,
    };
    let model = match &args.model {
        Some(spec) => Some(std::sync::Arc::new(agent::build(Some(spec), &flags, &config, config_dir.as_deref())?)),
        None => None,
    };
    let max_attempts = args.max_attempts.or(config.agent.max_attempts).unwrap_or(3);
    let checker = Checker::new(CheckerOptions {
        policy: policy.clone(),
        project: project.as_ref().map(|p| p.checker.clone()),
        ..CheckerOptions::default()
    })?;
    let engine = Engine::new(checker, RunOptions { policy, ..RunOptions::default() })?;
    let mut session = match &args.host {
        Some(path) if project.is_some() => {
            let flat = project.as_ref().map(|p| p.flat.text.as_str()).unwrap_or_default();
            Session::from_host(flat)
                .with_context(|| format!("the crate of {} does not parse as one host", path.display()))?
        }
        Some(path) => {
            let text = crate::input::read("host", path)?;
            Session::from_host(&text)
                .with_context(|| format!("{} does not parse; `lacuna check` on it shows where", path.display()))?
        }
        None => Session::new(),
    };
    let interactive = std::io::stdin().is_terminal();
    let mut lines = Lines::new(interactive)?;
    if interactive {
        eprintln!("lacuna repl: a task for the model, or :code SNIPPET; :help for more, :quit to leave");
    }
    while let Some(line) = lines.next("> ")? {
        let line = line.trim();
        let outcome = match line {
            "" => continue,
            ":quit" | ":q" => break,
            ":help" => {
                println!(":code SNIPPET | :code ... :end | :state | :quit — anything else is a task for the model");
                continue;
            }
            ":state" => {
                for local in session.locals() {
                    println!("let {}: {}", local.name, local.ty);
                }
                for item in session.items() {
                    println!("{}", item.lines().next().unwrap_or_default());
                }
                continue;
            }
            ":code" => {
                let mut code = String::new();
                while let Some(more) = lines.next(". ")? {
                    if more.trim() == ":end" {
                        break;
                    }
                    code.push_str(&more);
                    code.push('\n');
                }
                engine.session_turn(&mut session, &code)?
            }
            _ if line.starts_with(":code ") => {
                let code = line[":code ".len()..].replace("\\n", "\n");
                engine.session_turn(&mut session, &code)?
            }
            _ if line.starts_with(':') => {
                eprintln!("unknown command `{line}`; :help lists them");
                continue;
            }
            task => match &model {
                Some(model) => engine.session_task(&mut session, task, model.clone(), max_attempts)?,
                None => {
                    eprintln!("no model to give the task to: start with --model SPEC, or type code with :code");
                    continue;
                }
            },
        };
        show(&outcome);
    }
    engine.close_session(session);
    if let Some(model) = &model {
        eprintln!("lacuna: {}", model.summary());
    }
    Ok(crate::exit::ACCEPTED)
}

/// A turn as the REPL prints it: what it printed, then its value (or why there is none).
fn show(outcome: &TurnOutcome) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(outcome.stdout.as_bytes());
    if !outcome.accepted {
        for d in &outcome.diagnostics {
            let _ = writeln!(out, "{d}");
        }
    }
    match (&outcome.error, &outcome.value, &outcome.value_type) {
        (Some(error), _, _) => {
            let _ = writeln!(out, "error: {error}");
        }
        (None, Some(value), _) => {
            let _ = writeln!(out, "{value}");
        }
        (None, None, Some(ty)) if outcome.accepted && ty != "()" => {
            let _ = writeln!(out, "(a value of type {ty}, which has no Debug)");
        }
        _ => {}
    }
    if !outcome.may_have_changed.is_empty() {
        let names: Vec<String> = outcome.may_have_changed.iter().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(out, "note: before the fault it may have changed {} (kept as it left them)", names.join(", "));
    }
    for note in &outcome.dropped {
        let _ = writeln!(out, "note: {note}");
    }
    if outcome.attempts > 1 {
        let _ = writeln!(out, "({} attempts)", outcome.attempts);
    }
}

/// Lines from a terminal (with editing and history) or from piped input.
enum Lines {
    Editor(Box<rustyline::DefaultEditor>, Option<PathBuf>),
    Piped(std::io::StdinLock<'static>),
}

impl Lines {
    fn new(interactive: bool) -> anyhow::Result<Lines> {
        if !interactive {
            return Ok(Lines::Piped(std::io::stdin().lock()));
        }
        let mut editor = rustyline::DefaultEditor::new().context("starting the line editor")?;
        let history = lacuna_checker::default_cache_dir().join("repl-history.txt");
        let _ = editor.load_history(&history);
        Ok(Lines::Editor(Box::new(editor), Some(history)))
    }

    fn next(&mut self, prompt: &str) -> anyhow::Result<Option<String>> {
        match self {
            Lines::Piped(stdin) => {
                let mut line = String::new();
                Ok((stdin.read_line(&mut line)? > 0).then(|| line.trim_end_matches(['\n', '\r']).to_owned()))
            }
            Lines::Editor(editor, history) => match editor.readline(prompt) {
                Ok(line) => {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Some(path) = history {
                        let _ = std::fs::create_dir_all(path.parent().unwrap_or(std::path::Path::new(".")));
                        let _ = editor.save_history(path);
                    }
                    Ok(Some(line))
                }
                Err(rustyline::error::ReadlineError::Interrupted | rustyline::error::ReadlineError::Eof) => Ok(None),
                Err(e) => Err(e).context("reading a line"),
            },
        }
    }
}
