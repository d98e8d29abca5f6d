//! The data-driven cases in `testdata/check/*.cases`, shared by the test suite and the benchmarks.
//!
//! A `.cases` file holds hosts and the snippets checked against them:
//!
//! ```text
//! # comments start with '#', before the first section
//! === host
//! fn main() { let x: i32 = agent!("a number").unwrap(); }
//! === case literal: accepted
//! 42
//! === case string-for-int: rejected E0308 snapshot
//! "42"
//! === case second-hole hole=2: rejected E0425
//! y
//! ```
//!
//! A case belongs to the host above it. Its expectation is what rustc says of the host with the snippet in
//! place: `accepted`, or `rejected` with rustc's error codes (`syntax` for a parse error, which has no code;
//! `lacuna` for a snippet that reaches outside its hole, which Lacuna rejects before any compiler sees it).
//! `snapshot` asks for the rendered diagnostics to be compared with `testdata/check/snapshots/`.
//! `ra=E0268` records a known divergence: rust-analyzer's fast path reports that code for this error where rustc
//! reports the labelled one (both reject; the test accepts either).
//!
//! `lifted` says rust-analyzer checks the snippet lifted out of its hole, as a function of its own, and finds it
//! clean there; `in-hole` that it checks it in its hole (the checker's `lifted` module says when each is so).
//!
//! `jit` says the snippet is in the JIT's subset: `lacuna run` must run it on the JIT path. `subset` says more: the
//! subset's own checks accept it, so it runs on the JIT without waiting for rustc's verdict (implies `jit`).
//!
//! Safe mode: `policy=KIND` says safe mode rejects the snippet with a violation of that kind (`ambient-authority`,
//! `detached-thread`, ...) whatever rustc says of it, so the checker and `lacuna run` must reject it, by policy;
//! the verdict label stays rustc's. `grant=NAME` checks and runs the case with that grant added to the default
//! policy (`grant=time` for a case that sleeps); `local=NAME` marks a model local (`Classified`'s holes).
//! `time=MS` runs the case with that time budget (a case that waits until the budget ends it); `memory=BYTES` with
//! that memory budget (a case whose run must hold no more than that at once).
//!
//! For `lacuna run`, `run=KIND` says what the hole evaluates to when the host runs — `ok`, `runtime` (a fault),
//! `budget:fuel|time|stack|memory`, `rejected` — and a following `=== stdout` section what the host prints. Cases
//! without it are compared with the rustc-compiled program instead (accepted ones; a fault there would kill or
//! hang the reference program, which is why fault cases say their outcome).

use std::path::{Path, PathBuf};

pub use lacuna_hole::{Outcome, Resource};
use lacuna_policy::{Grant, Policy, ViolationKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    Accepted,
    /// rustc's codes, sorted and deduplicated.
    Rejected(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Case {
    /// `<file stem>/<case name>`, unique.
    pub name: String,
    pub file: PathBuf,
    /// 1-based line of the case header, for messages.
    pub line: usize,
    pub host: std::sync::Arc<str>,
    /// 0-based hole index.
    pub hole: usize,
    pub snippet: String,
    pub expect: Expect,
    pub snapshot: bool,
    /// Codes rust-analyzer is known to give for this rejection instead of rustc's.
    pub ra_codes: Vec<String>,
    /// What running the host with this snippet does, when the case says.
    pub run: Option<RunExpect>,
    /// `jit`: the snippet is in the JIT's subset, so `lacuna run` must run it on the JIT path.
    pub jit: bool,
    /// `subset`: the subset's own checks accept it (no rustc verdict needed); implies `jit`.
    pub subset: bool,
    /// `lifted` (`Some(true)`) or `in-hole` (`Some(false)`): where rust-analyzer reads the snippet.
    pub lifted: Option<bool>,
    /// `policy=KIND`: safe mode rejects the snippet with this kind of violation.
    pub policy: Option<ViolationKind>,
    /// `grant=NAME`: grants added to the default policy for this case.
    pub grants: Vec<Grant>,
    /// `local=NAME`: models the policy marks local for this case (holes inside `Classified::map` may name them).
    pub local_models: Vec<String>,
    /// `time=MS`: the time budget the case runs with, instead of the suite's.
    pub time_ms: Option<u64>,
    /// `memory=BYTES`: the memory budget the case runs with, instead of the suite's.
    pub memory_bytes: Option<u64>,
}

impl Case {
    /// The policy this case is checked and run under.
    pub fn policy(&self) -> Policy {
        let policy = self.grants.iter().fold(Policy::default(), |p, g| p.with(*g));
        self.local_models.iter().fold(policy, |p, m| p.with_local_model(m))
    }

    /// Whether safe mode lets the snippet through to the compilers' verdict.
    pub fn allowed_by_policy(&self) -> bool {
        self.policy.is_none()
    }
}

/// The expected outcome of `lacuna run` for a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunExpect {
    pub outcome: RunOutcome,
    /// What the host prints (from an `=== stdout` section).
    pub stdout: Option<String>,
}

/// What a case's `run=` says: the hole's own outcome, or that the host does not load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// The hole's outcome, as the run's report gives it: `ok`, `runtime`, `budget:<resource>` or `rejected`.
    Hole(Outcome),
    /// `host-error`: `lacuna run` cannot load the host at all (a hole whose type only its snippet settles, as a
    /// type that cannot be written at the hole: a capturing closure's).
    HostError,
}

impl RunOutcome {
    /// The outcomes a case may expect: a snippet reaches its hole (no model, no nesting limit in a case).
    fn parse(text: &str) -> Option<RunOutcome> {
        if text == "host-error" {
            return Some(RunOutcome::HostError);
        }
        match Outcome::parse(text)? {
            o @ (Outcome::Ok | Outcome::Runtime | Outcome::Budget(_) | Outcome::Rejected) => Some(RunOutcome::Hole(o)),
            Outcome::NoCode | Outcome::Model | Outcome::Depth => None,
        }
    }
}

impl std::fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunOutcome::Hole(outcome) => outcome.fmt(f),
            RunOutcome::HostError => f.write_str("host-error"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct CaseError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// The repository's `testdata/` directory. Under `cargo test`/`cargo bench` the running package's directory
/// (every package is `crates/NAME`), so a binary built by another checkout sharing the target dir still reads this
/// checkout's cases; otherwise where this crate was built.
pub fn testdata_dir() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let package = package.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    // `benches/` belongs to the cli package: its manifest dir is `crates/cli` too.
    package.join("../../testdata")
}

/// The accepted cases marked `jit`, by the name of their cases file without `.cases`: what the JIT's layer tests
/// dump, one expectation file per cases file.
pub fn jit_cases_by_file() -> Result<std::collections::BTreeMap<String, Vec<Case>>, CaseError> {
    let mut files: std::collections::BTreeMap<String, Vec<Case>> = std::collections::BTreeMap::new();
    for case in load_all()?.into_iter().filter(|c| c.jit && c.expect == Expect::Accepted) {
        let stem = case.file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        files.entry(stem).or_default().push(case);
    }
    Ok(files)
}

/// Every case under `testdata/check/`, files in name order.
pub fn load_all() -> Result<Vec<Case>, CaseError> {
    let dir = testdata_dir().join("check");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| CaseError { file: dir.display().to_string(), line: 0, message: e.to_string() })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cases"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| CaseError {
            file: file.display().to_string(),
            line: 0,
            message: e.to_string(),
        })?;
        cases.extend(parse(&file, &text)?);
    }
    let mut names = std::collections::HashSet::new();
    for c in &cases {
        if !names.insert(c.name.clone()) {
            return Err(CaseError {
                file: c.file.display().to_string(),
                line: c.line,
                message: format!("duplicate case name {}", c.name),
            });
        }
    }
    Ok(cases)
}

/// Parses one `.cases` file.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Case>, CaseError> {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let err = |line: usize, message: String| CaseError { file: file.display().to_string(), line, message };
    // Sections: (header line number, header, body).
    let mut sections: Vec<(usize, String, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(header) = line.strip_prefix("=== ") {
            sections.push((i + 1, header.trim().to_owned(), String::new()));
        } else if let Some((_, _, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else if !(line.starts_with('#') || line.trim().is_empty()) {
            return Err(err(i + 1, "text before the first `=== host` section".into()));
        }
    }
    let mut cases = Vec::new();
    let mut host: Option<std::sync::Arc<str>> = None;
    for (line, header, body) in sections {
        if header == "host" {
            host = Some(body.into());
            continue;
        }
        if header == "stdout" {
            let run = cases
                .last_mut()
                .and_then(|c: &mut Case| c.run.as_mut())
                .ok_or_else(|| err(line, "`=== stdout` follows a case with `run=...`".into()))?;
            run.stdout = Some(body);
            continue;
        }
        let Some(rest) = header.strip_prefix("case ") else {
            return Err(err(line, format!("unknown section `{header}`; expected `host` or `case NAME: EXPECT`")));
        };
        let Some((name_part, expect_part)) = rest.split_once(':') else {
            return Err(err(line, "a case header is `case NAME [hole=N]: accepted|rejected CODES [snapshot]`".into()));
        };
        let mut name_words = name_part.split_whitespace();
        let name = name_words.next().ok_or_else(|| err(line, "case without a name".into()))?;
        let mut hole = 0;
        for word in name_words {
            match word.strip_prefix("hole=").and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 1 => hole = n - 1,
                _ => return Err(err(line, format!("unexpected `{word}` in case header"))),
            }
        }
        let mut run = None;
        let mut jit = false;
        let mut subset = false;
        let mut lifted = None;
        let mut policy = None;
        let mut grants = Vec::new();
        let mut local_models = Vec::new();
        let mut time_ms = None;
        let mut memory_bytes = None;
        let mut words_owned = Vec::new();
        for w in expect_part.split_whitespace() {
            if let Some(kind) = w.strip_prefix("policy=") {
                policy = Some(
                    ViolationKind::from_name(kind)
                        .ok_or_else(|| err(line, format!("unknown policy violation kind `{kind}`")))?,
                );
                continue;
            }
            if let Some(grant) = w.strip_prefix("grant=") {
                grants.push(Grant::from_name(grant).ok_or_else(|| err(line, format!("unknown grant `{grant}`")))?);
                continue;
            }
            if let Some(ms) = w.strip_prefix("time=") {
                time_ms = Some(ms.parse().map_err(|_| err(line, format!("`time=` takes milliseconds, not `{ms}`")))?);
                continue;
            }
            if let Some(bytes) = w.strip_prefix("memory=") {
                memory_bytes =
                    Some(bytes.parse().map_err(|_| err(line, format!("`memory=` takes bytes, not `{bytes}`")))?);
                continue;
            }
            if let Some(model) = w.strip_prefix("local=") {
                local_models.push(model.to_owned());
                continue;
            }
            if w == "lifted" || w == "in-hole" {
                lifted = Some(w == "lifted");
                continue;
            }
            if w == "jit" || w == "subset" {
                jit = true;
                subset |= w == "subset";
                continue;
            }
            match w.strip_prefix("run=") {
                Some(kind) => match RunOutcome::parse(kind) {
                    Some(outcome) => run = Some(RunExpect { outcome, stdout: None }),
                    None => {
                        return Err(err(
                            line,
                            format!(
                                "unknown run outcome `{kind}`; one of ok, runtime, budget:fuel, budget:time, \
                                 budget:stack, budget:memory, rejected, host-error"
                            ),
                        ));
                    }
                },
                None => words_owned.push(w),
            }
        }
        let mut words = words_owned.into_iter();
        let mut snapshot = false;
        let mut ra_codes = Vec::new();
        let expect = match words.next() {
            Some("accepted") => Expect::Accepted,
            Some("rejected") => Expect::Rejected(Vec::new()),
            other => return Err(err(line, format!("expected `accepted` or `rejected`, found {other:?}"))),
        };
        let expect = match expect {
            Expect::Accepted => {
                for w in words {
                    match w {
                        "snapshot" => snapshot = true,
                        _ => return Err(err(line, format!("unexpected `{w}` after `accepted`"))),
                    }
                }
                Expect::Accepted
            }
            Expect::Rejected(_) => {
                let mut codes = Vec::new();
                for w in words {
                    match w {
                        "snapshot" => snapshot = true,
                        ra if ra.starts_with("ra=") => ra_codes.extend(ra["ra=".len()..].split(',').map(str::to_owned)),
                        code => codes.push(code.to_owned()),
                    }
                }
                if codes.is_empty() {
                    return Err(err(line, "a rejected case names rustc's error codes".into()));
                }
                codes.sort();
                codes.dedup();
                Expect::Rejected(codes)
            }
        };
        let host = host.clone().ok_or_else(|| err(line, "case before any `=== host`".into()))?;
        // The body's final newline is the file's, not the snippet's.
        let snippet = body.strip_suffix('\n').unwrap_or(&body).to_owned();
        cases.push(Case {
            name: format!("{stem}/{name}"),
            file: file.to_path_buf(),
            line,
            host,
            hole,
            snippet,
            expect,
            snapshot,
            ra_codes,
            run,
            jit,
            subset,
            lifted,
            policy,
            grants,
            time_ms,
            memory_bytes,
            local_models,
        });
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hosts_cases_and_expectations() {
        let text = "# c\n=== host\nfn main() {}\n=== case a: accepted\n1\n=== case b hole=2: rejected E0425 E0308 snapshot ra=E0599,E0282\nx\ny\n";
        let cases = parse(Path::new("t.cases"), text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].name, "t/a");
        assert_eq!(cases[0].snippet, "1");
        assert_eq!(cases[1].hole, 1);
        assert_eq!(cases[1].snippet, "x\ny");
        assert_eq!(cases[1].expect, Expect::Rejected(vec!["E0308".into(), "E0425".into()]));
        assert!(cases[1].snapshot);
        assert_eq!(cases[1].ra_codes, vec!["E0599".to_owned(), "E0282".to_owned()]);
        assert_eq!(cases[0].run, None);
    }

    #[test]
    fn parses_run_expectations_and_stdout() {
        let text = "=== host\nfn main() {}\n=== case a: accepted run=runtime\n1\n=== stdout\nx\n[1]\n";
        let cases = parse(Path::new("t.cases"), text).unwrap();
        let run = cases[0].run.as_ref().unwrap();
        assert_eq!(run.outcome, RunOutcome::Hole(Outcome::Runtime));
        assert_eq!(run.stdout.as_deref(), Some("x\n[1]\n"));
        assert!(parse(Path::new("t.cases"), "=== host\nfn main() {}\n=== case a: accepted run=crash\n1\n").is_err());
    }

    #[test]
    fn reports_malformed_headers_with_line_numbers() {
        let e = parse(Path::new("t.cases"), "=== host\nfn main(){}\n=== case a accepted\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse(Path::new("t.cases"), "=== case a: rejected\n1\n").unwrap_err();
        assert!(e.message.contains("error codes"), "{e}");
    }
}
