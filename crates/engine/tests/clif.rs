//! Layer test of the JIT's code generation: the CLIF Cranelift is given for every testdata case marked `jit`, one
//! expectation file per cases file under `testdata/clif/` (as `testdata/ir/` holds the layer above). A change in
//! codegen shows here as a diff of the code, not only far away as a differential failure. The CLIF is as generated,
//! before Cranelift optimizes it; addresses in this process (data the code keeps, host shims) are named, so the
//! text is the same on every run. Hosts are loaded (instrumented and built) as `lacuna run` loads them, since
//! layouts come from the host library; no snippet runs.
//!
//! `UPDATE_EXPECT=1 cargo test -p lacuna-engine --test clif` rewrites the expectations.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, LoadedHost, RunOptions};
use lacuna_testdata::Case;
use libtest_mimic::{Arguments, Failed, Trial};

/// A host's text (and, for a hole only its snippet types, that snippet): the host as loaded, or why not.
type Hosts = HashMap<(Arc<str>, Option<String>), Result<Arc<LoadedHost>, String>>;

struct Shared {
    engine: Engine,
    hosts: Hosts,
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
    let engine = Engine::new(checker, RunOptions::default()).unwrap_or_else(|e| {
        eprintln!("cannot start the engine: {e}");
        std::process::exit(2);
    });
    let shared = Arc::new(Mutex::new(Shared { engine, hosts: HashMap::new() }));
    let trials = files
        .into_iter()
        .map(|(stem, cases)| {
            let shared = shared.clone();
            Trial::test(format!("clif::{stem}"), move || {
                let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
                let text = cases.iter().map(|c| dump_case(&mut shared, c)).collect::<Vec<_>>().join("\n");
                let path = lacuna_testdata::testdata_dir().join("clif").join(format!("{stem}.clif"));
                expect_test::expect_file![path].assert_eq(&text);
                Ok::<(), Failed>(())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// One case: its name, then the CLIF of each function, or why the JIT does not take it.
fn dump_case(shared: &mut Shared, case: &Case) -> String {
    let name = case.name.split_once('/').map_or(case.name.as_str(), |(_, n)| n);
    let mut out = format!("=== {name}\n");
    let Shared { engine, hosts } = shared;
    engine.set_policy(case.policy());
    let plain = hosts
        .entry((case.host.clone(), None))
        .or_insert_with(|| engine.load("host.rs", &case.host).map_err(|e| e.to_string()))
        .clone();
    let host = match plain {
        // A hole only its snippet types: the host is built for the case's snippet (as `lacuna run --snippet`).
        Err(e) if e.contains("settled only by its snippet") => {
            let snippets = BTreeMap::from([(case.hole as u32 + 1, case.snippet.clone())]);
            hosts
                .entry((case.host.clone(), Some(case.snippet.clone())))
                .or_insert_with(|| engine.load_for("host.rs", &case.host, &snippets).map_err(|e| e.to_string()))
                .clone()
        }
        plain => plain,
    };
    let host = match host {
        Ok(host) => host,
        Err(e) => return out + &format!("the host does not load: {e}\n"),
    };
    match engine.jit_clif(&host, case.hole, &case.snippet) {
        Ok(Ok(clif)) => out.push_str(&clif),
        Ok(Err(why)) => out.push_str(&format!("not for the JIT: {why}\n")),
        Err(e) => out.push_str(&format!("engine error: {e}\n")),
    }
    out
}
