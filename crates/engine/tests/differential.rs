//! Differential tests: every accepted case in `testdata/check/*.cases`, run by `lacuna run`'s engine, must print
//! exactly what the rustc-compiled host with the snippet spliced in textually prints, and exit the same way.
//!
//! - `rustc-path::<case>`: the snippet runs on the rustc path (forced). It runs after `auto::<case>`; when that
//!   trial ran the rustc path and passed, it was this trial's run, and is not made twice.
//! - `auto::<case>`: the snippet runs on the JIT path when it is in the JIT's subset, the rustc path otherwise
//!   (cases marked `jit` must take the JIT path). For a case rustc rejects, `auto::` checks that `lacuna run`
//!   rejects it too: in particular that the JIT subset's own acceptance (without rustc) never accepts it.
//! - cases that say `run=KIND` (faults, rejections) are not compared with a reference program (it would crash or
//!   hang): the hole must evaluate to that kind of error and the host must print the case's `=== stdout`, which
//!   shows it went on with its data intact.
//! - a host that panics (exit status 101) must be reported where rustc's program reports it, in the host's own
//!   lines and columns.
//!
//! Host output goes to the process's own stdout and stderr, so each run redirects file descriptors 1 and 2 to
//! files ([`lacuna_engine::capture::output`]); tests run one at a time.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Budgets, Engine, LoadedHost, PathChoice, RunOptions, RunReport};
use lacuna_testdata::{Case, Expect, Resource, RunOutcome};
use libtest_mimic::{Arguments, Failed, Trial};

/// Hosts loaded by one engine (or why one would not load).
type LoadedHosts = HashMap<Arc<str>, Result<Arc<LoadedHost>, String>>;

struct Shared {
    /// One engine per path: [`PathChoice::Rustc`] and [`PathChoice::Auto`].
    engines: [Engine; 2],
    hosts: [LoadedHosts; 2],
    rustc: PathBuf,
    rlib: PathBuf,
    /// The reference program's outcome per case (shared by both paths' trials).
    references: HashMap<String, Outcome>,
    /// The cases compared with a reference program, by host text: their references are built as one program.
    by_host: HashMap<Arc<str>, Vec<Arc<Case>>>,
    /// Cases whose `auto::` trial passed without the JIT: it ran the rustc path, so their `rustc-path::` trial
    /// would run the same check, build and program again.
    auto_took_rustc: HashSet<String>,
    scratch: tempfile::TempDir,
}

/// What a program printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    stdout: String,
    status: i32,
    /// Where the host panicked (exit status 101), as `LINE:COL` of the host's own text: rustc's program reports
    /// the position in its spliced text, which is mapped back; `lacuna run` must report the host's.
    panic_at: Option<String>,
}

/// Small budgets, so the fault cases end quickly; time enough that a loaded 2-core machine does not stop the
/// heaviest accepted cases (the time limit holds on the JIT path too). A case's `time=` replaces the time budget.
const TIME_MS: u64 = 10_000;
const BUDGETS: Budgets = Budgets { fuel: 20_000_000, time_ms: TIME_MS, memory_bytes: 256 << 20 };

/// The fuel a case that must run out of fuel (`run=budget:fuel`) gets: any finite budget shows its loops are
/// metered, and the suite's would take seconds per case to spend.
const RUNAWAY_FUEL: u64 = 1_000_000;

fn main() {
    let mut args = Arguments::from_args();
    // Runs redirect the process's stdout: one at a time.
    args.test_threads = Some(1);
    let cases = lacuna_testdata::load_all().unwrap_or_else(|e| {
        eprintln!("cannot load testdata: {e}");
        std::process::exit(2);
    });
    let engine = |path| {
        let checker = Checker::new(CheckerOptions::default()).unwrap_or_else(|e| {
            eprintln!("cannot start the checker: {e}");
            std::process::exit(2);
        });
        Engine::new(checker, RunOptions { path, budgets: BUDGETS, ..RunOptions::default() }).unwrap_or_else(|e| {
            eprintln!("cannot start the engine: {e}");
            std::process::exit(2);
        })
    };
    let engines = [engine(PathChoice::Rustc), engine(PathChoice::Auto)];
    let (rustc, rlib) = engines[0]
        .with_checker(|c| (c.rustc().path.clone(), c.rustc().prelude_rlib().to_owned()))
        .expect("the engine is open");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let cases: Vec<Arc<Case>> = cases.into_iter().map(Arc::new).collect();
    let mut by_host: HashMap<Arc<str>, Vec<Arc<Case>>> = HashMap::new();
    for case in cases.iter().filter(|c| has_reference(c)) {
        by_host.entry(case.host.clone()).or_default().push(case.clone());
    }
    let shared = Arc::new(Mutex::new(Shared {
        engines,
        hosts: [HashMap::new(), HashMap::new()],
        rustc,
        rlib,
        references: HashMap::new(),
        by_host,
        auto_took_rustc: HashSet::new(),
        scratch,
    }));
    let mut trials = Vec::new();
    for case in cases {
        let compared = (case.expect == Expect::Accepted && case.allowed_by_policy()) || case.run.is_some();
        // `auto::` first: when it runs the rustc path, the `rustc-path::` trial after it has nothing left to show.
        let engines: &[(usize, &str)] = if compared { &[(1, "auto"), (0, "rustc-path")] } else { &[(1, "auto")] };
        for &(engine, name) in engines {
            let (shared, case) = (shared.clone(), case.clone());
            trials.push(Trial::test(format!("{name}::{}", case.name), move || {
                let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
                differential(&mut shared, &case, engine)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn differential(shared: &mut Shared, case: &Case, engine: usize) -> Result<(), Failed> {
    if let Some(kind) = case.policy {
        return policy_rejects(shared, case, engine, kind);
    }
    if engine == 0 && shared.auto_took_rustc.contains(&case.name) {
        // The `auto::` trial of this case ran the rustc path and passed: the same check, library and program.
        return Ok(());
    }
    let unloadable = case.run.as_ref().is_some_and(|r| r.outcome == RunOutcome::HostError);
    if case.expect != Expect::Accepted && case.run.is_none() {
        return rejected_stays_rejected(shared, case, engine);
    }
    if unloadable {
        return host_does_not_load(shared, case, engine);
    }
    let expected = match &case.run {
        Some(run) => Outcome { stdout: run.stdout.clone().unwrap_or_default(), status: 0, panic_at: None },
        None => match shared.references.get(&case.name) {
            Some(outcome) => outcome.clone(),
            None => {
                references_of_host(shared, case);
                match shared.references.get(&case.name) {
                    Some(outcome) => outcome.clone(),
                    None => {
                        let outcome = reference(shared, case)?;
                        shared.references.insert(case.name.clone(), outcome.clone());
                        outcome
                    }
                }
            }
        },
    };
    let (stdout, stderr, report) = run_case(shared, case, engine)?;
    let panic_at = (report.exit_status == 101).then(|| panic_position(&stderr, "host.rs")).flatten();
    let mut got = Outcome { stdout, status: report.exit_status, panic_at };
    // Only a panic rustc's program places in the host is compared: one in the snippet (or in std called from it)
    // is the documented exception, the hole's `Err`, after which the host may panic elsewhere (its `unwrap`).
    if expected.panic_at.as_deref().is_none_or(|at| at.ends_with("(in the snippet)")) {
        got.panic_at = expected.panic_at.clone();
    }
    let site = &report.sites[case.hole];
    if engine == 1 && case.jit && site.path != Some(lacuna_engine::ExecPath::Jit) {
        return Err(format!(
            "{}:{}: the case is marked `jit` but ran on {:?}: {}",
            case.file.display(),
            case.line,
            site.path,
            serde_json::to_string(site).unwrap_or_default()
        )
        .into());
    }
    if engine == 1 && case.subset && site.decided_by != Some(lacuna_checker::DecidedBy::JitSubset) {
        return Err(format!(
            "{}:{}: the case is marked `subset` but rustc had to decide: {}",
            case.file.display(),
            case.line,
            site.rustc_because.as_deref().unwrap_or("(no reason given)")
        )
        .into());
    }
    if let Some(run) = &case.run {
        let outcome = report.sites[case.hole].outcome;
        if outcome.map(RunOutcome::Hole) != Some(run.outcome) {
            let outcome = outcome.map_or("none".to_owned(), |o| o.to_string());
            return Err(format!(
                "{}:{}: the hole evaluated to `{outcome}`, the case says `{}`\n  {}",
                case.file.display(),
                case.line,
                run.outcome,
                serde_json::to_string(&report.sites[case.hole]).unwrap_or_default()
            )
            .into());
        }
    }
    if got != expected {
        let site = &report.sites[case.hole];
        return Err(format!(
            "{}:{}: lacuna run differs from the rustc-compiled program\n  rustc:  {:?}\n  lacuna: {:?}\n  hole: {}",
            case.file.display(),
            case.line,
            expected,
            got,
            serde_json::to_string(site).unwrap_or_default()
        )
        .into());
    }
    if engine == 1 && site.path != Some(lacuna_engine::ExecPath::Jit) {
        shared.auto_took_rustc.insert(case.name.clone());
    }
    Ok(())
}

/// A host `lacuna run` cannot load (a hole whose type only its snippet settles, as a type that cannot be written
/// at the hole) is refused with the reason, and nothing runs.
fn host_does_not_load(shared: &mut Shared, case: &Case, engine: usize) -> Result<(), Failed> {
    match loaded(shared, engine, &case.host, case) {
        Err(e) if e.contains("cannot be written at the hole") => Ok(()),
        Err(e) => {
            Err(format!("{}:{}: the host did not load, but not as expected: {e}", case.file.display(), case.line)
                .into())
        }
        Ok(_) => {
            Err(format!("{}:{}: the case says the host cannot load, but it did", case.file.display(), case.line).into())
        }
    }
}

/// A snippet rustc rejects is rejected under `lacuna run` too: neither the checker nor the JIT subset's own
/// acceptance (which skips rustc) may accept it.
fn rejected_stays_rejected(shared: &mut Shared, case: &Case, engine: usize) -> Result<(), Failed> {
    // A host `lacuna run` refuses to load runs nothing at all.
    if let Err(e) = loaded(shared, engine, &case.host, case) {
        if e.contains("settled only by its snippet") {
            return Ok(());
        }
    }
    let (_, _, report) = run_case(shared, case, engine)?;
    let site = &report.sites[case.hole];
    if site.calls > 0 && site.accepted != Some(false) {
        return Err(format!(
            "{}:{}: rustc rejects this snippet, but lacuna run decided {:?} ({:?})",
            case.file.display(),
            case.line,
            site.accepted,
            site.decided_by
        )
        .into());
    }
    Ok(())
}

/// A snippet safe mode rejects is rejected under `lacuna run`, before anything of it runs; when rustc would accept
/// it, by the policy.
/// Where `testdata/check/safe-mode-attacks.cases` aims its writes.
const CANARY: &str = "/tmp/lacuna-canary";
/// What that file's host prints last when nothing touched its data.
const INTACT_LEDGER: &str = "ledger [100, 250, 75, 0] sent 1";

fn policy_rejects(
    shared: &mut Shared,
    case: &Case,
    engine: usize,
    kind: lacuna_checker::ViolationKind,
) -> Result<(), Failed> {
    let (stdout, _, report) = run_case(shared, case, engine)?;
    // Nothing of it ran: the attacks aim their writes at the canary, and their host prints its data last.
    if Path::new(CANARY).exists() {
        return Err(format!("{}:{}: {CANARY} exists after the run", case.file.display(), case.line).into());
    }
    if case.name.starts_with("safe-mode-attacks/") && !stdout.contains(INTACT_LEDGER) {
        return Err(format!(
            "{}:{}: the host did not end with its data intact: {stdout:?}",
            case.file.display(),
            case.line
        )
        .into());
    }
    let site = &report.sites[case.hole];
    let by_policy = site.decided_by == Some(lacuna_checker::DecidedBy::Policy)
        && site.diagnostics.iter().any(|d| d.kind.name() == kind.name());
    if site.calls > 0 && (site.accepted != Some(false) || (case.expect == Expect::Accepted && !by_policy)) {
        return Err(format!(
            "{}:{}: safe mode rejects this snippet ({}), but lacuna run decided {:?} ({:?})",
            case.file.display(),
            case.line,
            kind.name(),
            site.accepted,
            site.decided_by
        )
        .into());
    }
    Ok(())
}

/// A host text as loaded by one engine (once per engine and text), or why it does not load.
fn loaded(shared: &mut Shared, engine: usize, text: &Arc<str>, case: &Case) -> Result<Arc<LoadedHost>, String> {
    let Shared { engines, hosts, .. } = &mut *shared;
    let plain = hosts[engine]
        .entry(text.clone())
        .or_insert_with(|| engines[engine].load("host.rs", text).map_err(|e| e.to_string()))
        .clone();
    match plain {
        // A hole only its snippet types: the host is built for the case's snippet (as `lacuna run --snippet`).
        Err(e) if e.contains("settled only by its snippet") => {
            let key: Arc<str> = format!("{text}\0{}", case.snippet).into();
            let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
            hosts[engine]
                .entry(key)
                .or_insert_with(|| engines[engine].load_for("host.rs", text, &snippets).map_err(|e| e.to_string()))
                .clone()
        }
        plain => plain,
    }
}

/// Runs the case's host (loaded once per engine) with the case's snippet in its hole: what it printed, and the
/// report.
fn run_case(shared: &mut Shared, case: &Case, engine: usize) -> Result<(String, String, RunReport), Failed> {
    // A loaded host's statics live as long as the process, and a snippet acts on them: a host with state gets a
    // library of its own per case (a comment at its end makes it another build), as rustc's program starts afresh.
    let stateful = case.host.contains("static ") || case.host.contains("thread_local!");
    let text: Arc<str> =
        if stateful { format!("{}\n// {} {engine}\n", case.host, case.name).into() } else { case.host.clone() };
    let host = loaded(shared, engine, &text, case).map_err(|e| format!("the host does not load: {e}"))?;
    let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
    shared.engines[engine].set_policy(case.policy());
    let runaway = case
        .run
        .as_ref()
        .is_some_and(|r| r.outcome == RunOutcome::Hole(lacuna_testdata::Outcome::Budget(Resource::Fuel)));
    let fuel = if runaway { RUNAWAY_FUEL } else { BUDGETS.fuel };
    shared.engines[engine].set_budgets(Budgets {
        fuel,
        time_ms: case.time_ms.unwrap_or(TIME_MS),
        memory_bytes: case.memory_bytes.unwrap_or(BUDGETS.memory_bytes),
    });
    let (stdout, stderr, report) = lacuna_engine::capture::output(|| shared.engines[engine].run(&host, snippets))?;
    Ok((stdout, stderr, report.map_err(|e| format!("the run failed: {e}"))?))
}

/// Whether the case is compared with a reference program (rather than with its `run=` outcome).
fn has_reference(case: &Case) -> bool {
    case.policy.is_none() && case.run.is_none() && case.expect == Expect::Accepted && case.allowed_by_policy()
}

/// A case's host with its snippet spliced in: the text, the hole's range in the host, and how much longer the
/// text is than the host with the prelude.
struct Spliced {
    text: String,
    hole: std::ops::Range<usize>,
    added: isize,
}

fn spliced(shared: &Shared, case: &Case) -> Result<Spliced, Failed> {
    let spliced = shared.engines[0]
        .with_checker(|checker| {
            let prepared = checker.prepare("host.rs", &case.host)?;
            // The spliced text is the host's up to the hole and after it, then the prelude.
            let text = checker.spliced_text(&prepared, case.hole, &case.snippet);
            let added =
                text.len() as isize - (prepared.host.text.len() + lacuna_checker::PRELUDE_INJECTION.len()) as isize;
            Ok::<_, lacuna_checker::CheckerError>(Spliced {
                text,
                hole: prepared.host.holes[case.hole].range.clone(),
                added,
            })
        })
        .ok_or("the engine is closed")??;
    Ok(spliced)
}

/// rustc as the references are built: a debug build, like the libraries Lacuna builds.
fn reference_rustc(shared: &Shared, source: &Path, binary: &Path) -> Result<std::process::Output, Failed> {
    Ok(Command::new(&shared.rustc)
        .args(["--edition", "2021", "-C", "debug-assertions=on", "--cap-lints", "allow", "--extern"])
        .arg(format!("lacuna={}", shared.rlib.display()))
        .arg("-o")
        .arg(binary)
        .arg(source)
        .output()?)
}

/// The host with the snippet spliced in, compiled by rustc and run as its own process.
fn reference(shared: &mut Shared, case: &Case) -> Result<Outcome, Failed> {
    let spliced = spliced(shared, case)?;
    let dir = shared.scratch.path();
    let source = dir.join("reference.rs");
    let binary = dir.join("reference");
    std::fs::write(&source, &spliced.text)?;
    let out = reference_rustc(shared, &source, &binary)?;
    if !out.status.success() {
        return Err(format!("the reference program does not compile:\n{}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let run = Command::new(&binary).current_dir(dir).env("RUST_BACKTRACE", "0").output()?;
    Ok(outcome_of(&run, &spliced, case, "/reference.rs"))
}

/// The references of every case with `case`'s host, built as one program — each case's spliced text a module of
/// its own file, so rustc's positions in it are the case's, and `main` runs the one `$LACUNA_REFERENCE_CASE`
/// names (the host's arguments are its own) — and run once per case. rustc's start, std's monomorphizations and
/// the link are then paid once per host, not per case.
/// Where that program does not build (a host that names `crate::` paths, say), each case's reference is built
/// alone when its trial asks for it.
fn references_of_host(shared: &mut Shared, case: &Case) {
    let Some(group) = shared.by_host.remove(&case.host) else { return };
    if group.len() < 2 {
        return;
    }
    let dir = shared.scratch.path().join("batch");
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let injection = lacuna_checker::PRELUDE_INJECTION;
    let mut root = String::from("#[macro_use]\nextern crate lacuna;\n");
    let mut arms = String::new();
    let mut parts = Vec::new();
    for (k, member) in group.iter().enumerate() {
        let Ok(spliced) = spliced(shared, member) else { return };
        let Some(body) = spliced.text.strip_suffix(injection) else { return };
        // The prelude's `use` stays in the module; its `extern crate` (allowed only at a crate's root) is the root's.
        let module = format!(
            "{body}\n#[allow(unused_imports)] use lacuna::prelude::*;\n\
             pub(crate) fn __reference_main() -> impl std::process::Termination {{ main() }}\n"
        );
        if std::fs::write(dir.join(format!("c{k}.rs")), module).is_err() {
            return;
        }
        root.push_str(&format!("#[path = \"c{k}.rs\"]\nmod c{k};\n"));
        arms.push_str(&format!("        Ok(\"{k}\") => c{k}::__reference_main().report(),\n"));
        parts.push(spliced);
    }
    root.push_str(&format!(
        "fn main() -> std::process::ExitCode {{\n    use std::process::Termination;\n    \
         match std::env::var(\"LACUNA_REFERENCE_CASE\").as_deref() {{\n{arms}        _ => std::process::ExitCode::from(3),\n    }}\n}}\n"
    ));
    let (source, binary) = (dir.join("reference.rs"), dir.join("reference"));
    if std::fs::write(&source, root).is_err() {
        return;
    }
    match reference_rustc(shared, &source, &binary) {
        Ok(out) if out.status.success() => {}
        _ => return,
    }
    for (k, (member, spliced)) in group.iter().zip(&parts).enumerate() {
        let run = Command::new(&binary)
            .env("LACUNA_REFERENCE_CASE", k.to_string())
            .current_dir(&dir)
            .env("RUST_BACKTRACE", "0")
            .output();
        if let Ok(run) = run {
            let outcome = outcome_of(&run, spliced, member, &format!("/c{k}.rs"));
            shared.references.insert(member.name.clone(), outcome);
        }
    }
}

/// What a reference program printed and how it ended; a panic's position mapped back to the host's text (`file`
/// is the spliced text's file as rustc names it).
fn outcome_of(run: &std::process::Output, spliced: &Spliced, case: &Case, file: &str) -> Outcome {
    let status = run.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // A position past the snippet moves back by the length the splice added.
    let (hole, added, text) = (&spliced.hole, spliced.added, &spliced.text);
    let panic_at = (status == 101)
        .then(|| {
            let at = panic_position(&stderr, file)?;
            let offset = offset_of(text, &at)?;
            let host_offset = if offset < hole.start {
                offset
            } else if offset as isize >= hole.end as isize + added {
                (offset as isize - added) as usize
            } else {
                return Some(format!("{at} (in the snippet)"));
            };
            Some(line_col(&case.host, host_offset))
        })
        .flatten();
    Outcome { stdout: String::from_utf8_lossy(&run.stdout).into_owned(), status, panic_at }
}

/// `LINE:COL` of the first "panicked at PATH:LINE:COL" in a program's stderr whose path names `file`.
fn panic_position(stderr: &str, file: &str) -> Option<String> {
    stderr.match_indices("panicked at ").find_map(|(at, needle)| {
        let rest = stderr[at + needle.len()..].lines().next()?;
        let mut parts = rest.rsplitn(4, ':');
        let _message_start = parts.next()?;
        let (col, line, path) = (parts.next()?, parts.next()?, parts.next()?);
        let ok = path.ends_with(file) && line.parse::<u32>().is_ok() && col.parse::<u32>().is_ok();
        ok.then(|| format!("{line}:{col}"))
    })
}

/// The byte offset of rustc's `LINE:COL` (1-based; columns count characters) in `text`.
fn offset_of(text: &str, at: &str) -> Option<usize> {
    let (line, col) = at.split_once(':')?;
    let (line, col): (usize, usize) = (line.parse().ok()?, col.parse().ok()?);
    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let line_text = text[start..].split('\n').next()?;
    let within = line_text.char_indices().nth(col - 1).map_or(line_text.len(), |(i, _)| i);
    Some(start + within)
}

/// rustc's `LINE:COL` of a byte offset of `text`.
fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{line}:{col}")
}
