//! The data-driven suite: every case in `testdata/check/*.cases` becomes named tests.
//!
//! - `rustc::<case>`: rustc alone confirms the case's label (verdict and error codes). The labels are the truth
//!   the rest is measured against.
//! - `checker::<case>`: the checker (rust-analyzer first, rustc to confirm) gives the labelled verdict; for a case
//!   labelled `policy=KIND`, safe mode rejects it with that kind (or, when rustc rejects it too, either does).
//! - `snapshot::<case>`: for cases marked `snapshot`, the rendered diagnostics match
//!   `testdata/check/snapshots/`. Update with `UPDATE_EXPECT=1 cargo test -p lacuna-checker --test cases`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lacuna_checker::{Checker, CheckerOptions, DecidedBy, PreparedHost, Verdict};
use lacuna_testdata::{Case, Expect};
use libtest_mimic::{Arguments, Failed, Trial};

struct Shared {
    checker: Checker,
    hosts: HashMap<Arc<str>, Result<PreparedHost, String>>,
}

impl Shared {
    fn prepared(&mut self, case: &Case) -> Result<PreparedHost, Failed> {
        let checker = &mut self.checker;
        self.hosts
            .entry(case.host.clone())
            .or_insert_with(|| checker.prepare("host.rs", &case.host).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| format!("{}:{}: the host is not usable: {e}", case.file.display(), case.line).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let cases = match lacuna_testdata::load_all() {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("cannot load testdata: {e}");
            std::process::exit(2);
        }
    };
    let checker = match Checker::new(CheckerOptions::default()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start the checker: {e}");
            std::process::exit(2);
        }
    };
    let shared = Arc::new(Mutex::new(Shared { checker, hosts: HashMap::new() }));

    let mut trials = Vec::new();
    for case in cases {
        let case = Arc::new(case);
        {
            let (shared, case) = (shared.clone(), case.clone());
            trials.push(Trial::test(format!("rustc::{}", case.name), move || {
                let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                let prepared = s.prepared(&case)?;
                let verdict = s.checker.check_with_rustc_only(&prepared, case.hole, &case.snippet)?;
                confirm_label(&case, &verdict)
            }));
        }
        {
            let (shared, case) = (shared.clone(), case.clone());
            trials.push(Trial::test(format!("checker::{}", case.name), move || {
                let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                let prepared = s.prepared(&case)?;
                let verdict = s.checker.check_under(&prepared, case.hole, &case.snippet, &case.policy())?;
                checker_agrees(&case, &verdict)
            }));
        }
        if case.snapshot {
            let (shared, case) = (shared.clone(), case.clone());
            trials.push(Trial::test(format!("snapshot::{}", case.name), move || {
                let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                let prepared = s.prepared(&case)?;
                let mut verdict = s.checker.check_under(&prepared, case.hole, &case.snippet, &case.policy())?;
                verdict.timings = Default::default();
                let rendered = lacuna_checker::render::render_verdict(
                    &prepared,
                    case.hole,
                    "snippet.rs",
                    &case.snippet,
                    &verdict,
                    false,
                    None,
                );
                let file = lacuna_testdata::testdata_dir()
                    .join("check/snapshots")
                    .join(format!("{}.txt", case.name.replace('/', "--")));
                let file = std::fs::canonicalize(file.parent().unwrap())
                    .map(|d| d.join(file.file_name().unwrap()))
                    .unwrap_or(file);
                expect_test::expect_file![file].assert_eq(&rendered);
                Ok(())
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The codes of a verdict in the labels' vocabulary.
fn codes(verdict: &Verdict) -> Vec<String> {
    let mut codes: Vec<String> = verdict
        .diagnostics
        .iter()
        .map(|d| match (&d.code, verdict.decided_by) {
            (_, DecidedBy::Lacuna) => "lacuna".to_owned(),
            (Some(code), _) => code.clone(),
            (None, _) if d.kind == lacuna_checker::ErrorKind::SyntaxError.into() => "syntax".to_owned(),
            (None, _) => d.kind.name().to_owned(),
        })
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

fn describe(verdict: &Verdict) -> String {
    verdict
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "  {}:{} {} [{}] {}{}",
                d.line,
                d.column,
                d.code.as_deref().unwrap_or("-"),
                d.kind,
                d.message,
                d.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn confirm_label(case: &Case, verdict: &Verdict) -> Result<(), Failed> {
    let got = if verdict.accepted { Expect::Accepted } else { Expect::Rejected(codes(verdict)) };
    if got == case.expect {
        Ok(())
    } else {
        Err(format!(
            "{}:{}: labelled {:?}, rustc says {:?}\n{}",
            case.file.display(),
            case.line,
            case.expect,
            got,
            describe(verdict)
        )
        .into())
    }
}

fn checker_agrees(case: &Case, verdict: &Verdict) -> Result<(), Failed> {
    if let Some(lifted) = case.lifted.filter(|l| *l != verdict.timings.lifted) {
        let (said, did) = if lifted { ("lifted", "in its hole") } else { ("in-hole", "lifted") };
        return Err(format!(
            "{}:{}: labelled {said}, rust-analyzer read the snippet {did}\n{}",
            case.file.display(),
            case.line,
            describe(verdict)
        )
        .into());
    }
    if let Some(kind) = case.policy {
        let by_policy = verdict.decided_by == DecidedBy::Policy
            && verdict.diagnostics.iter().any(|d| {
                d.kind == lacuna_checker::DiagnosticKind::SafeMode(kind) && d.code.as_deref() == Some(kind.code())
            });
        // A snippet rustc rejects may be rejected for that first; one rustc accepts must be stopped by safe mode.
        if by_policy || (!verdict.accepted && case.expect != Expect::Accepted) {
            return Ok(());
        }
        return Err(format!(
            "{}:{}: labelled policy={}, the checker says {} (decided by {})\n{}",
            case.file.display(),
            case.line,
            kind.name(),
            if verdict.accepted { "accepted" } else { "rejected" },
            verdict.decided_by.as_str(),
            describe(verdict)
        )
        .into());
    }
    let expected_accept = case.expect == Expect::Accepted;
    if verdict.accepted != expected_accept {
        return Err(format!(
            "{}:{}: labelled {:?}, the checker says {} (decided by {})\n{}",
            case.file.display(),
            case.line,
            case.expect,
            if verdict.accepted { "accepted" } else { "rejected" },
            verdict.decided_by.as_str(),
            describe(verdict)
        )
        .into());
    }
    if verdict.accepted && verdict.decided_by != DecidedBy::Rustc {
        return Err("an acceptance must be rustc's word".into());
    }
    if !verdict.accepted && verdict.diagnostics.is_empty() {
        return Err("a rejection must come with diagnostics".into());
    }
    // What a model is shown agrees with rustc: at least one of the checker's diagnostics has a code rustc gives,
    // or the same kind (E0282 and E0283 are both `type-annotations-needed`).
    if let Expect::Rejected(expected) = &case.expect {
        let got = codes(verdict);
        let expected_kinds: Vec<lacuna_checker::ErrorKind> =
            expected.iter().filter_map(|c| lacuna_checker::kind_for_code(c)).collect();
        let agrees = got.iter().any(|c| expected.contains(c) || case.ra_codes.contains(c))
            || verdict
                .diagnostics
                .iter()
                .any(|d| matches!(d.kind, lacuna_checker::DiagnosticKind::Error(k) if expected_kinds.contains(&k)))
            || (expected.iter().any(|c| c == "E0765" || c == "E0758") && got.contains(&"syntax".to_owned()));
        if !agrees {
            return Err(format!(
                "{}:{}: rustc says {expected:?}, the checker ({}) says {got:?}\n{}",
                case.file.display(),
                case.line,
                verdict.decided_by.as_str(),
                describe(verdict)
            )
            .into());
        }
    }
    Ok(())
}
