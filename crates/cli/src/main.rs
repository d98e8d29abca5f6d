//! `lacuna`: typed holes for Rust. Parsing arguments, rendering and exit codes; the work is in the libraries.

mod agent;
mod bench;
mod check;
mod config;
mod input;
mod policy;
mod project;
mod repl;
mod run;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Lacuna: safe LLM agents for Rust, as typed program holes.
///
/// A host program writes `agent!("task")` where a value should come from a model. Lacuna checks the code a model
/// writes for a hole against the hole's scope and expected type before any of it runs.
#[derive(Parser)]
#[command(name = "lacuna", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(check::CheckArgs),
    Run(run::RunArgs),
    /// Serve check and run as JSON-RPC 2.0 on stdio or HTTP, with warm checkers, for drivers, editors and agent
    /// frameworks
    Serve(serve::ServeArgs),
    /// A session at the terminal: each line is a task for the model (or code with `:code`); what a turn declares
    /// and leaves stays in scope for the next
    Repl(repl::ReplArgs),
    /// Benchmark runs: a suite's tasks (τ²-bench retail, ...) as agent sessions, one JSON line per task, and the
    /// table (`lacuna bench report`)
    Bench(bench::BenchArgs),
    /// One session's process, started by `lacuna serve` (its protocol is internal)
    #[command(hide = true)]
    SessionWorker(serve::WorkerArgs),
}

/// Exit statuses, stable for scripts.
pub(crate) mod exit {
    /// Every snippet was accepted.
    pub const ACCEPTED: u8 = 0;
    /// At least one snippet was rejected.
    pub const REJECTED: u8 = 1;
    /// Usage or input error: nothing, or not everything, could be checked.
    pub const INPUT_ERROR: u8 = 2;
    /// `lacuna run`: the host's status did not fit a process exit status.
    pub const HOST_FAILED: u8 = 1;
}

fn main() -> ExitCode {
    // Run by cargo as its rustc wrapper while Lacuna builds a project: write the invocation down, run rustc.
    if let Some(code) = lacuna_project::record::wrapper_main() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    // `lacuna run .. -- ARGS` executed itself again with the program's arguments as the process's (what the host's
    // `std::env::args()` reads); its own arguments came along in the environment.
    let parsed = match std::env::var_os(run::REEXEC_ENV) {
        Some(saved) => {
            std::env::remove_var(run::REEXEC_ENV);
            run::REEXECUTED.store(true, std::sync::atomic::Ordering::Relaxed);
            match serde_json::from_str::<Vec<String>>(&saved.to_string_lossy()) {
                Ok(args) => Cli::try_parse_from(args),
                Err(e) => {
                    eprintln!("error: ${} is not Lacuna's arguments as JSON: {e}", run::REEXEC_ENV);
                    return ExitCode::from(exit::INPUT_ERROR);
                }
            }
        }
        None => Cli::try_parse(),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::INPUT_ERROR } else { exit::ACCEPTED });
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Repl(args) => repl::run(args),
        Command::Bench(args) => bench::run(args),
        Command::SessionWorker(args) => serve::worker(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit::INPUT_ERROR)
        }
    }
}
