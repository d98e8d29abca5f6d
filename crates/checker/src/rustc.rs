//! rustc as the judge of acceptance: its full analysis without codegen (`-Z no-codegen`: type and borrow check and
//! the MIR lints that are errors by default) on the spliced host,
//! with the `lacuna` prelude as an rlib compiled once per toolchain and prelude text.

use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;
use wait_timeout::ChildExt;

/// How often a running rustc's check looks at its interrupt.
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

use crate::CheckerError;

/// What a checker's scratch directory's name starts with, before its process's id: `lacuna-check-PID-XXXXXX`.
const SCRATCH_PREFIX: &str = "lacuna-check-";

/// Whether the process `pid` has ended, for removing what it left on disk (directories named by the process
/// that owns them). Read from `/proc`; where a process's liveness cannot be read there (no `/proc`), no process is
/// taken to have ended, so nothing is removed.
pub fn process_ended(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the scratch directories (with their incremental state, often hundreds of megabytes) of checkers whose
/// process ended without dropping them: one that exited with `std::process::exit` or was killed.
fn remove_orphaned_scratch(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(SCRATCH_PREFIX) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if process_ended(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A toolchain's rustc, with the prelude rlib ready and a scratch directory for outputs.
#[derive(Debug)]
pub struct Rustc {
    pub path: PathBuf,
    pub version: String,
    pub sysroot: PathBuf,
    prelude_rlib: PathBuf,
    scratch: tempfile::TempDir,
    timeout: Duration,
    /// A cargo project's crate: its own flags instead of a single-file host's.
    krate: Option<CrateFlags>,
    /// Held by the check that uses rustc's incremental state in `scratch` (one at a time; a check that finds it
    /// held runs without).
    incremental: std::sync::Mutex<()>,
}

/// The file an incremental check writes its source to, in the scratch directory. rustc reports its spans as
/// `<anon>`, as for a source read from stdin.
const INCREMENTAL_SOURCE: &str = "host.rs";

/// How cargo compiles a project's crate (`lacuna_project::CrateFlags`).
pub use lacuna_project::CrateFlags;

/// A rustc error as data: its code, message and byte ranges in the checked source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustcError {
    pub code: Option<String>,
    pub message: String,
    pub spans: Vec<std::ops::Range<usize>>,
    /// The primary spans (where rustc points the error), a subset of `spans`.
    pub primary: Vec<std::ops::Range<usize>>,
}

impl RustcError {
    fn new(d: &RustcDiagnostic, file_name: &str) -> RustcError {
        fn spans(d: &RustcDiagnostic, file_name: &str, out: &mut Vec<std::ops::Range<usize>>) {
            // A span inside a macro from elsewhere (`addr_of!` in core) counts where the macro was called.
            out.extend(d.spans.iter().filter_map(|s| s.in_file(file_name)).map(|s| s.byte_start..s.byte_end));
            for child in &d.children {
                spans(child, file_name, out);
            }
        }
        let mut all = Vec::new();
        spans(d, file_name, &mut all);
        let primary = d
            .spans
            .iter()
            .filter(|s| s.is_primary)
            .filter_map(|s| s.in_file(file_name))
            .map(|s| s.byte_start..s.byte_end)
            .collect();
        RustcError { code: d.code.as_ref().map(|c| c.code.clone()), message: d.message.clone(), spans: all, primary }
    }
}

/// The errors in rustc's `--error-format=json` output, with their spans in `file_name` (as rustc was given it).
pub fn parse_rustc_errors(stderr: &str, file_name: &str) -> Vec<RustcError> {
    parse_diagnostics(stderr)
        .iter()
        .filter(|d| d.level.starts_with("error"))
        .map(|d| RustcError::new(d, file_name))
        .collect()
}

/// One diagnostic from `--error-format=json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RustcDiagnostic {
    pub message: String,
    pub code: Option<RustcCode>,
    pub level: String,
    #[serde(default)]
    pub spans: Vec<RustcSpan>,
    #[serde(default)]
    pub children: Vec<RustcDiagnostic>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RustcCode {
    pub code: String,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RustcSpan {
    pub byte_start: usize,
    pub byte_end: usize,
    pub is_primary: bool,
    pub label: Option<String>,
    pub file_name: String,
    /// Set when the span is in a macro expansion; the span itself may then point into another file.
    #[serde(default)]
    pub expansion: Option<Box<RustcExpansion>>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RustcExpansion {
    /// Where the macro was invoked.
    pub span: RustcSpan,
}

impl RustcSpan {
    /// This span if it is in `file_name`, else the innermost macro call site in `file_name` it expands from.
    fn in_file(&self, file_name: &str) -> Option<&RustcSpan> {
        let mut span = self;
        loop {
            if span.file_name == file_name {
                return Some(span);
            }
            span = &span.expansion.as_ref()?.span;
        }
    }
}

/// What rustc said about one source text.
#[derive(Debug, Clone)]
pub(crate) enum RustcOutcome {
    Finished {
        errors: Vec<RustcDiagnostic>,
    },
    TimedOut,
    /// rustc died without a diagnostic (a stack overflow on absurdly deep input, say). Never an acceptance.
    Crashed {
        status: String,
    },
}

/// `rustc` on PATH is usually rustup's proxy, which starts, reads its settings and then starts the toolchain's
/// rustc: a process more for every check and build. The toolchain's own binary in the sysroot the proxy reported
/// is used instead when it reports the same version; a `$RUSTC` the user set is used as given.
fn toolchain_rustc(path: PathBuf, version: &str, sysroot: &Path) -> PathBuf {
    if std::env::var_os("RUSTC").is_some() {
        return path;
    }
    let direct = sysroot.join("bin").join("rustc");
    let same = Command::new(&direct)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == version);
    if same {
        direct
    } else {
        path
    }
}

impl Rustc {
    /// Finds rustc (`$RUSTC`, else `rustc` on PATH, resolved to the toolchain's own binary behind rustup's
    /// proxy), and builds or reuses the prelude rlib in `cache_dir`.
    pub fn discover(prelude: &str, cache_dir: &Path, timeout: Duration) -> Result<Rustc, CheckerError> {
        let path = PathBuf::from(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
        let run = |args: &[&str]| -> Result<String, CheckerError> {
            let out = Command::new(&path).args(args).output().map_err(|e| CheckerError::Rustc {
                detail: format!("cannot run `{}`: {e}; install Rust or set RUSTC", path.display()),
            })?;
            if !out.status.success() {
                return Err(CheckerError::Rustc {
                    detail: format!("`rustc {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr)),
                });
            }
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        };
        let version = run(&["--version"])?;
        let sysroot = PathBuf::from(run(&["--print", "sysroot"])?);
        let path = toolchain_rustc(path, &version, &sysroot);
        remove_orphaned_scratch(&std::env::temp_dir());
        let scratch = tempfile::Builder::new()
            .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|e| CheckerError::Io { detail: format!("creating a scratch directory: {e}") })?;
        let prelude_rlib = build_prelude(&path, &version, prelude, cache_dir, scratch.path())?;
        Ok(Rustc {
            path,
            version,
            sysroot,
            prelude_rlib,
            scratch,
            timeout,
            krate: None,
            incremental: std::sync::Mutex::new(()),
        })
    }

    /// Checks the crate as cargo compiles it, with `flags`, from now on — but against this checker's own `lacuna`
    /// (the prelude rust-analyzer sees and the runtime snippets run with), not the one cargo built from the
    /// project's path dependency, which may be another checkout's.
    pub fn set_crate_flags(&mut self, flags: CrateFlags) {
        self.krate = Some(flags);
    }

    pub fn crate_flags(&self) -> Option<&CrateFlags> {
        self.krate.as_ref()
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs the same check as the checker's confirmation and returns how many errors rustc reported (`None` on
    /// timeout). For benchmarks and tools that compare against plain rustc.
    pub fn check_text(&self, source: &str) -> Result<Option<usize>, CheckerError> {
        Ok(match self.check(source, None)? {
            RustcOutcome::Finished { errors } => Some(errors.len()),
            RustcOutcome::TimedOut | RustcOutcome::Crashed { .. } => None,
        })
    }

    /// The `lacuna` rlib hosts and snippets are checked against and linked with.
    pub fn prelude_rlib(&self) -> &Path {
        &self.prelude_rlib
    }

    /// rustc's errors for `source` (checked like a snippet, `-Z no-codegen`), each with every span it has in
    /// `source` (primary and secondary, children's too). `None` when rustc timed out or crashed.
    pub fn errors(&self, source: &str) -> Result<Option<Vec<RustcError>>, CheckerError> {
        Ok(match self.check(source, None)? {
            RustcOutcome::Finished { errors } => Some(errors.iter().map(|d| RustcError::new(d, "<anon>")).collect()),
            RustcOutcome::TimedOut | RustcOutcome::Crashed { .. } => None,
        })
    }

    /// Type- and borrow-checks `source` as a binary crate (edition 2021) that can use `lacuna`. When `interrupt`
    /// is set while rustc works, rustc is killed and the check is [`CheckerError::Cancelled`].
    pub(crate) fn check(
        &self,
        source: &str,
        interrupt: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<RustcOutcome, CheckerError> {
        let mut command = Command::new(&self.path);
        match &self.krate {
            None => {
                command
                    .args(["--edition", "2021", "--crate-type", "bin", "--crate-name", "host", "--extern"])
                    .arg(format!("lacuna={}", self.prelude_rlib.display()));
            }
            Some(flags) => {
                // Its `lacuna` is the checker's prelude, which rust-analyzer sees and snippets run with.
                command.args(flags.rustc_args(Some(&self.prelude_rlib))).envs(flags.env.iter().map(|(k, v)| (k, v)));
            }
        }
        // rustc's incremental compilation, as `cargo check` after an edit: a check of the host with another snippet
        // in the same function reuses what the last check computed for every other item (type checking, borrow
        // checking), so its cost grows far slower with the host. It needs the source in a file (from stdin, no
        // query is reused); one check at a time uses it.
        let incremental = self.incremental.try_lock().ok();
        let source_file = self.scratch.path().join(INCREMENTAL_SOURCE);
        let to_file = incremental.is_some() && std::fs::write(&source_file, source).is_ok();
        if to_file {
            command
                .arg(format!("-Cincremental={}", self.scratch.path().join("incremental").display()))
                .arg(format!("--remap-path-prefix={INCREMENTAL_SOURCE}=<anon>"))
                .arg(INCREMENTAL_SOURCE);
        } else {
            command.arg("-");
        }
        let mut child = command
            // Type and borrow checking alone (`--emit=metadata`) skips the MIR lints that are errors by default
            // (`arithmetic_overflow`, `unconditional_panic`): a program rustc would not build could be accepted.
            // `-Z no-codegen` runs the whole analysis, at the same cost, and writes nothing.
            .args(["-Z", "no-codegen"])
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["--error-format", "json"])
            .stdin(if to_file { Stdio::null() } else { Stdio::piped() })
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .current_dir(self.scratch.path())
            // rustc's parser recurses; a deeper stack lets it judge deeply nested snippets instead of crashing.
            .env("RUST_MIN_STACK", (256usize << 20).to_string())
            .spawn()
            .map_err(|e| CheckerError::Rustc { detail: format!("cannot run `{}`: {e}", self.path.display()) })?;
        let stdin = child.stdin.take();
        let text = if to_file { String::new() } else { source.to_owned() };
        // Writing and reading happen on their own threads: a large input or output must not deadlock on pipes.
        let writer = std::thread::spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(text.as_bytes());
            }
        });
        let mut stderr = child.stderr.take().expect("stderr was piped");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        // Waited for in slices, so an interrupt is seen within one.
        let deadline = std::time::Instant::now() + self.timeout;
        let (status, interrupted) = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let status = child
                .wait_timeout(left.min(INTERRUPT_POLL))
                .map_err(|e| CheckerError::Rustc { detail: format!("waiting for rustc: {e}") })?;
            let interrupted = interrupt.is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed));
            if status.is_some() || interrupted || left.is_zero() {
                break (status, interrupted);
            }
        };
        if status.is_none() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = writer.join();
            let _ = reader.join();
            return match interrupted {
                true => Err(CheckerError::Cancelled),
                false => Ok(RustcOutcome::TimedOut),
            };
        }
        let _ = writer.join();
        let stderr = reader.join().unwrap_or_default();
        let errors = parse_diagnostics(&stderr)
            .into_iter()
            .filter(|d| d.level == "error" || d.level == "error: internal compiler error")
            // "aborting due to N previous errors" carries no information of its own.
            .filter(|d| !(d.spans.is_empty() && d.message.starts_with("aborting due to")))
            .collect::<Vec<_>>();
        let status = status.expect("checked above");
        if !status.success() && errors.is_empty() {
            if to_file {
                // What a crash left of the incremental state is not trusted: the next check starts afresh.
                let _ = std::fs::remove_dir_all(self.scratch.path().join("incremental"));
            }
            return Ok(RustcOutcome::Crashed { status: status.to_string() });
        }
        Ok(RustcOutcome::Finished { errors })
    }
}

pub(crate) fn parse_diagnostics(stderr: &str) -> Vec<RustcDiagnostic> {
    stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str::<RustcDiagnostic>(l).ok())
        .collect()
}

/// Compiles the prelude to `cache_dir/liblacuna-<hash>.rlib` unless it is there already. The hash covers the
/// prelude text and the rustc version, so a toolchain upgrade or prelude change builds anew.
fn build_prelude(
    rustc: &Path,
    version: &str,
    prelude: &str,
    cache_dir: &Path,
    scratch: &Path,
) -> Result<PathBuf, CheckerError> {
    // A cache key, not a security boundary: SipHash with fixed keys is stable for a given std.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (version, prelude).hash(&mut hasher);
    let rlib = cache_dir.join(format!("liblacuna-{:016x}.rlib", hasher.finish()));
    if rlib.is_file() {
        return Ok(rlib);
    }
    std::fs::create_dir_all(cache_dir).map_err(|e| CheckerError::Io {
        detail: format!("creating the cache directory {}: {e}", cache_dir.display()),
    })?;
    let src = scratch.join("lacuna.rs");
    std::fs::write(&src, prelude).map_err(|e| CheckerError::Io { detail: format!("{}: {e}", src.display()) })?;
    let tmp_out = scratch.join("liblacuna.rlib");
    let out = Command::new(rustc)
        .args(["--edition", "2021", "--crate-type", "rlib", "--crate-name", "lacuna", "-o"])
        .arg(&tmp_out)
        // The runtime sets std's alloc-error hook (unstable) so a refused allocation in a snippet is a panic.
        .env("RUSTC_BOOTSTRAP", "1")
        .arg(&src)
        .output()
        .map_err(|e| CheckerError::Rustc { detail: format!("compiling the lacuna prelude: {e}") })?;
    if !out.status.success() {
        return Err(CheckerError::Internal {
            detail: format!("the lacuna prelude does not compile: {}", String::from_utf8_lossy(&out.stderr)),
        });
    }
    // Copy then rename within the cache dir: concurrent processes each publish a complete file.
    let staged = cache_dir.join(format!(".liblacuna-{}.tmp", std::process::id()));
    std::fs::copy(&tmp_out, &staged)
        .and_then(|_| std::fs::rename(&staged, &rlib))
        .map_err(|e| CheckerError::Io { detail: format!("writing {}: {e}", rlib.display()) })?;
    Ok(rlib)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_json_diagnostics_and_skips_other_lines() {
        let stderr = r#"{"$message_type":"diagnostic","message":"mismatched types","code":{"code":"E0308","explanation":null},"level":"error","spans":[{"file_name":"<anon>","byte_start":10,"byte_end":13,"line_start":1,"line_end":1,"column_start":11,"column_end":14,"is_primary":true,"text":[],"label":"expected `i32`, found `&str`","suggested_replacement":null,"suggestion_applicability":null,"expansion":null}],"children":[],"rendered":"error"}
not json
"#;
        let d = parse_diagnostics(stderr);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code.as_ref().map(|c| c.code.as_str()), Some("E0308"));
        assert_eq!(d[0].spans[0].label.as_deref(), Some("expected `i32`, found `&str`"));
    }

    #[test]
    fn scratch_of_ended_processes_goes_and_the_rest_stays() {
        let temp = tempfile::tempdir().expect("a directory");
        // No process has an id this large (Linux's `pid_max` is at most 2^22).
        let names = [
            format!("{SCRATCH_PREFIX}999999999-AbC123"),
            format!("{SCRATCH_PREFIX}{}-AbC123", std::process::id()),
            format!("{SCRATCH_PREFIX}AbC123"),
            "other-999999999-AbC123".to_owned(),
        ];
        for name in &names {
            std::fs::create_dir_all(temp.path().join(name).join("incremental")).expect("a directory");
        }
        remove_orphaned_scratch(temp.path());
        let mut left: Vec<String> = std::fs::read_dir(temp.path())
            .expect("readable")
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = names[1..].to_vec();
        expected.sort();
        assert_eq!(left, expected);
    }
}
