//! Layer tests: the IR the checker builds for every testdata case marked `jit`, and what the lowering makes of
//! it, as text (`lacuna_ir::dump`), one expectation file per cases file under `testdata/ir/`. A change in the
//! builder or the lowering shows as a diff here without any snippet going through rustc (hosts are prepared
//! once, as the checker always does).
//!
//! `UPDATE_EXPECT=1 cargo test -p lacuna-lowering --test ir` rewrites the expectations.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lacuna_checker::{Checker, CheckerOptions, PreparedHost};
use lacuna_testdata::Case;
use libtest_mimic::{Arguments, Failed, Trial};

struct Shared {
    checker: Checker,
    hosts: HashMap<Arc<str>, Result<PreparedHost, String>>,
}

fn main() {
    let args = Arguments::from_args();
    let files = lacuna_testdata::jit_cases_by_file().unwrap_or_else(|e| {
        eprintln!("cannot load testdata: {e}");
        std::process::exit(2);
    });
    let checker = Checker::new(CheckerOptions::default()).unwrap_or_else(|e| {
        eprintln!("cannot start the checker: {e}");
        std::process::exit(2);
    });
    let shared = Arc::new(Mutex::new(Shared { checker, hosts: HashMap::new() }));
    let trials = files
        .into_iter()
        .map(|(stem, cases)| {
            let shared = shared.clone();
            Trial::test(format!("ir::{stem}"), move || {
                let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
                let text = cases.iter().map(|c| dump_case(&mut shared, c)).collect::<Vec<_>>().join("\n");
                let path = lacuna_testdata::testdata_dir().join("ir").join(format!("{stem}.ir"));
                expect_test::expect_file![path].assert_eq(&text);
                Ok::<(), Failed>(())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// One case: its name, the IR (or why the builder declined), and the lowering's answer.
fn dump_case(shared: &mut Shared, case: &Case) -> String {
    let name = case.name.split_once('/').map_or(case.name.as_str(), |(_, n)| n);
    let mut out = format!("=== {name}\n");
    let Shared { checker, hosts } = shared;
    let prepared = hosts
        .entry(case.host.clone())
        .or_insert_with(|| checker.prepare("host.rs", &case.host).map_err(|e| e.to_string()));
    let prepared = match prepared {
        Ok(p) => p,
        Err(e) => return out + &format!("host not prepared: {e}\n"),
    };
    let typed = match checker.typed_snippet(prepared, case.hole, &case.snippet) {
        Ok(Ok(typed)) => typed,
        Ok(Err(u)) => return out + &format!("outside the IR: {} at {:?}\n", u.construct, u.range),
        Err(e) => return out + &format!("checker error: {e}\n"),
    };
    out.push_str(&lacuna_ir::dump(&typed));
    let bindings = prepared.scopes[case.hole].as_ref().map(|s| s.bindings.clone()).unwrap_or_default();
    match lacuna_lowering::lower(typed, &bindings) {
        Ok(lowered) => {
            let written: Vec<String> = lowered.written_bindings.iter().map(|b| format!("b{b}")).collect();
            out.push_str(&format!("lowered; writes [{}]\n", written.join(", ")));
            let facts = lacuna_lowering::HostFacts::new(
                prepared.host.outline.raises_lints,
                prepared.glue_type(case.hole),
                &lowered.snippet.ty,
                &bindings,
            );
            match lacuna_lowering::accept_without_rustc(&lowered, facts) {
                Ok(()) => out.push_str("accepted without rustc\n"),
                Err(why) => out.push_str(&format!("rustc decides: {why}\n")),
            }
        }
        Err(u) => out.push_str(&format!("not lowered: {} at {:?}\n", u.construct, u.range)),
    }
    out
}
