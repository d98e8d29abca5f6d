//! `lacuna serve`: the service on stdio or HTTP (see the `lacuna-service` crate).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use lacuna_checker::{Checker, CheckerOptions};
use lacuna_service::{CheckPool, RunCommand, Service, ServiceOptions};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "listen"])))]
#[command(after_help = "\
Methods (JSON-RPC 2.0; on stdio one object per line each way, over HTTP one per POST to /):
  check            {\"host\": PATH | \"host_text\": TEXT, \"hole\": N?, \"snippet\": TEXT}
                   -> the object `lacuna check --json` prints
  run              {\"host\": PATH, \"snippets\": {\"1\": TEXT, ..}} or {\"host\": PATH, \"model\": SPEC}
                   -> {\"stdout\", \"stderr\", \"exit_status\", \"report\"} (each run in its own process)
  health           {} -> {\"status\": \"ok\", \"workers\", ...}   (also GET /health over HTTP)
  shutdown         {} -> {}, then the service stops
  $/cancelRequest  {\"id\": ID} (a notification): the request with that id is answered as cancelled
  session.open     {\"host\": PATH?, \"replay\": PATH?} -> {\"session\": ID}
  session.turn     {\"session\": ID, \"snippet\": TEXT} or {\"session\": ID, \"task\": TEXT, \"model\": SPEC?}
                   -> {\"accepted\", \"value\", \"stdout\", \"diagnostics\", \"attempts\", \"path\", \"error\", ...}
  session.state    {\"session\": ID} -> {\"locals\": [{\"name\", \"ty\"}], \"items\": [..], \"turns\"}
  session.save     {\"session\": ID, \"path\": PATH} -> {\"turns\": N} (a transcript to replay)
  session.close    {\"session\": ID} -> {}

Examples:
  lacuna serve --stdio
  echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"health\"}' | lacuna serve --stdio
  lacuna serve --listen 127.0.0.1:7878
  curl -s localhost:7878 -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"check\",\"params\":{\"host\":\"examples/primes/host.rs\",\"snippet\":\"xs\"}}'
  python3 examples/service/client.py")]
pub struct ServeArgs {
    /// Speak JSON-RPC on stdin/stdout, one message per line (for drivers that start the service themselves).
    #[arg(long)]
    stdio: bool,

    /// Serve HTTP on this address (`127.0.0.1:7878`; port 0 picks a free one, printed on stderr).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,

    /// Checkers working at once (each holds rust-analyzer with std loaded, about 0.5 GB). [default: 2]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    workers: Option<u32>,

    /// Requests larger than this are refused unread; K, M and G suffixes allowed. [default: 4M]
    #[arg(long, value_name = "BYTES", value_parser = crate::config::parse_bytes)]
    max_request_bytes: Option<u64>,

    /// How long one request may take, in milliseconds. [default: 300000]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    request_timeout_ms: Option<u64>,

    /// The default model for session turns given as tasks (`openai:<model>`, `script:<file>`, ...; see
    /// `lacuna run --help`). A request may name another.
    #[arg(long, short = 'm', value_name = "SPEC")]
    model: Option<String>,

    /// Safe-mode defaults, models and more from a TOML file, as for `lacuna run`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Append every model request and reply of session turns to this cassette, for `replay:FILE` later.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Run every session in the service's own process instead of a worker process each (a turn that aborts the
    /// process then ends the service; for measuring what the workers cost).
    #[arg(long, hide = true)]
    sessions_in_process: bool,

    #[command(flatten)]
    policy: crate::policy::PolicyArgs,
}

/// `lacuna session-worker`: what `lacuna serve` starts for each session.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The cargo project the worker's session will open on: built and loaded before it is asked to.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,

    #[command(flatten)]
    policy: crate::policy::PolicyArgs,
}

/// The sessions' engines, under `policy`: for single-file hosts, or for a cargo project (built, its crate
/// flattened, its `[package.metadata.lacuna]` added to the policy).
fn engine_factory(policy: &lacuna_checker::Policy) -> lacuna_service::EngineFactory {
    let policy = policy.clone();
    Arc::new(move |project: Option<&std::path::Path>| {
        let (policy, loaded) = match project {
            None => (policy.clone(), None),
            Some(dir) => {
                let loaded = crate::project::load_for_session(dir, None).map_err(|e| format!("{e:#}"))?;
                (loaded.policy(policy.clone()).map_err(|e| format!("{e:#}"))?, Some(loaded))
            }
        };
        let checker = Checker::new(CheckerOptions {
            policy: policy.clone(),
            project: loaded.as_ref().map(|p| p.checker.clone()),
            ..CheckerOptions::default()
        })
        .map_err(|e| e.to_string())?;
        let engine = lacuna_engine::Engine::new(checker, lacuna_engine::RunOptions { policy, ..Default::default() })
            .map_err(|e| e.to_string())?;
        Ok(lacuna_service::Hosting { engine, crate_text: loaded.map(|p| p.flat.text.clone()) })
    })
}

/// Serves one session on stdin and the descriptor stdout was on (what the session's turns print goes to stderr,
/// unless a turn captures it).
pub fn worker(args: WorkerArgs) -> anyhow::Result<u8> {
    let (config, _) = crate::config::load(args.config.as_deref())?;
    let policy = crate::policy::resolve(&args.policy, &config.policy)?;
    let protocol = lacuna_engine::protocol_stdout().context("setting stdout aside for the protocol")?;
    // A worker's model is the service's: it asks for every proposal over the protocol.
    let models: lacuna_service::ModelFactory =
        Arc::new(|_| Err("a session worker asks the service for its model (a Lacuna bug)".into()));
    let sessions = lacuna_service::LocalSessions::new(engine_factory(&policy), models);
    // Started now, so the service's spare worker is warm when a session takes it. A project that does not build
    // is the session's error: `session.open` answers with it.
    if let Err(e) = sessions.start_engine(args.project.as_deref()) {
        eprintln!("lacuna session-worker: {}", e.message);
    }
    let input = std::io::BufReader::new(std::io::stdin());
    let reuse = !policy.is_unconfined();
    lacuna_service::sessions::child::serve(sessions, reuse, input, protocol).context("serving the session")?;
    Ok(crate::exit::ACCEPTED)
}

pub fn run(args: ServeArgs) -> anyhow::Result<u8> {
    let (config, config_dir) = crate::config::load(args.config.as_deref())?;
    let config = Arc::new(config);
    let policy = crate::policy::resolve(&args.policy, &config.policy)?;
    let factory: lacuna_service::CheckerFactory = {
        let policy = policy.clone();
        Arc::new(move || Checker::new(CheckerOptions { policy: policy.clone(), ..CheckerOptions::default() }))
    };
    let workers = args.workers.unwrap_or(2) as usize;
    let pool = CheckPool::start(workers, factory).context("starting the checkers")?;
    let mut run_args = args.policy.to_args();
    if let Some(config) = &args.config {
        run_args.push("--config".into());
        run_args.push(config.display().to_string());
    }
    let program = std::env::current_exe().context("finding the lacuna binary to run hosts with")?;
    let options = ServiceOptions {
        max_request_bytes: args.max_request_bytes.unwrap_or(4 << 20) as usize,
        request_timeout: Duration::from_millis(args.request_timeout_ms.unwrap_or(300_000)),
        run: RunCommand { program, args: run_args },
    };
    // Models for turns written from tasks: `--model` by default, or the spec a request names.
    let model_factory: lacuna_service::ModelFactory = {
        let (default_model, config, config_dir) = (args.model.clone(), Arc::clone(&config), config_dir.clone());
        let record = args.record.clone();
        let max_attempts = config.agent.max_attempts.unwrap_or(3);
        // One agent per spec for the service's life: a scripted or replayed model goes on where it left off.
        let agents: std::sync::Mutex<std::collections::HashMap<Option<String>, Arc<dyn lacuna_engine::SnippetSource>>> =
            Default::default();
        Arc::new(move |spec: Option<&str>| {
            let spec = spec.map(str::to_owned).or_else(|| default_model.clone());
            let mut agents = agents.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(agent) = agents.get(&spec) {
                return Ok((agent.clone(), max_attempts));
            }
            if spec.is_none() && config.agent.model.is_none() {
                return Err(
                    "no model for a task: name one in the request (\"model\") or start the service with --model".into(),
                );
            }
            let flags = crate::agent::Flags {
                record: record.clone(),
                trace: None,
                max_attempts: Some(max_attempts),
                retry_after_fault: false,
                model_timeout: None,
                system_prompt: None,
            };
            let agent = crate::agent::build(spec.as_deref(), &flags, &config, config_dir.as_deref())
                .map_err(|e| format!("{e:#}"))?;
            let agent: Arc<dyn lacuna_engine::SnippetSource> = Arc::new(agent);
            agents.insert(spec, agent.clone());
            Ok((agent, max_attempts))
        })
    };
    let sessions = if args.sessions_in_process {
        lacuna_service::Sessions::InProcess(lacuna_service::LocalSessions::new(engine_factory(&policy), model_factory))
    } else {
        let mut worker_args = args.policy.to_args();
        if let Some(config) = &args.config {
            worker_args.push("--config".into());
            worker_args.push(config.display().to_string());
        }
        let command = lacuna_service::WorkerCommand { program: options.run.program.clone(), args: worker_args };
        lacuna_service::Sessions::Workers(lacuna_service::WorkerSessions::new(command, model_factory))
    };
    let service = Arc::new(Service::new(pool, sessions, options));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    let served = runtime.block_on(async move {
        // SIGTERM and Ctrl-C: answer what is in flight as cancelled, then stop.
        let on_signal = service.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let Ok(mut term) = signal(SignalKind::terminate()) else { return };
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            on_signal.begin_shutdown();
        });
        match &args.listen {
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address)
                    .await
                    .with_context(|| format!("cannot listen on {address}"))?;
                let bound = listener.local_addr().context("reading the bound address")?;
                eprintln!("lacuna: serving on http://{bound} ({workers} checker(s))");
                lacuna_service::http::serve(service, listener).await.context("serving HTTP")
            }
            None => {
                // Session turns run hosts in this process: what they print must not reach the protocol.
                let protocol = lacuna_engine::protocol_stdout().context("setting stdout aside for the protocol")?;
                lacuna_service::stdio::serve(service, tokio::io::stdin(), tokio::fs::File::from_std(protocol))
                    .await
                    .context("serving on stdio")
            }
        }
    });
    // Everything read was answered. Reading stdin blocks a thread no one can wake: the runtime does not wait for
    // it (nor for a turn cancelled at shutdown that is still winding down).
    runtime.shutdown_background();
    served?;
    Ok(crate::exit::ACCEPTED)
}
