//! A hole's check against the size of the program around it: generated hosts of about 200, 2,000 and 10,000
//! lines (modules of structs with derives, enums, impls, iterator code and error handling; one hole in `main`).
//!
//! Run: `cargo bench -p lacuna-cli --bench host_size` (add `-- --json` for a machine-readable summary). With
//! `-- --project` the program is a cargo project instead of one file: each module a file of its own, its types
//! deriving serde's `Serialize`/`Deserialize` and its functions calling `serde_json`, checked as `lacuna check`
//! checks a project (rust-analyzer typing it against its dependencies; rustc with cargo's flags and externs).
//!
//! For each size: loading the host (`prepare`), the first check after it, and warm re-checks of snippets a model
//! writes — rejected ones (what a retry loop sees) and accepted ones (confirmed by rustc, its memo off) — p50/p90,
//! next to rustc alone on the same spliced file (`rustc -Z no-codegen`: the analysis `cargo check` of a one-crate
//! program runs after the same edit, without cargo's own start-up) and to `cargo check` itself after that edit (a
//! project with the spliced program as its binary and `lacuna` as its dependency, built once beforehand).

use std::time::Instant;

use lacuna_checker::{Checker, CheckerOptions};

mod common;
use common::{peak_rss_mib, percentile};

/// How many times each snippet is checked per size.
const REPEATS: usize = 5;

/// One module of the generated program, about 60 lines: inline (`mod inventory_N { .. }`), or with `deps` the
/// text of its own file, its types serde's and a function over `serde_json`.
fn module(i: usize, deps: bool) -> String {
    let body = module_body(i, deps);
    match deps {
        true => body,
        false => format!("\nmod inventory_{i} {{{body}}}\n"),
    }
}

fn module_body(i: usize, deps: bool) -> String {
    let (derive, json) = match deps {
        true => (
            ", serde::Serialize, serde::Deserialize",
            r#"
    pub fn to_json(store: &Store) -> String {
        let items: Vec<&Item> = store.items.values().collect();
        serde_json::to_string(&items).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Vec<Item>, serde_json::Error> {
        serde_json::from_str(text)
    }
"#,
        ),
        false => ("", ""),
    };
    format!(
        r#"
    use std::collections::HashMap;

    #[derive(Debug, Clone, PartialEq{derive})]
    pub struct Item {{
        pub id: u32,
        pub name: String,
        pub price_cents: i64,
        pub tags: Vec<String>,
    }}

    #[derive(Debug, Clone{derive})]
    pub enum Event {{
        Added(Item),
        Removed(u32),
        Repriced {{ id: u32, cents: i64 }},
    }}

    #[derive(Debug, Default)]
    pub struct Store {{
        items: HashMap<u32, Item>,
        log: Vec<Event>,
    }}

    impl Store {{
        pub fn new() -> Self {{
            Store::default()
        }}

        pub fn add(&mut self, item: Item) {{
            self.log.push(Event::Added(item.clone()));
            self.items.insert(item.id, item);
        }}

        pub fn remove(&mut self, id: u32) -> Option<Item> {{
            self.log.push(Event::Removed(id));
            self.items.remove(&id)
        }}

        pub fn total(&self) -> i64 {{
            self.items.values().map(|item| item.price_cents).sum()
        }}

        pub fn tagged(&self, tag: &str) -> Vec<&Item> {{
            let mut found: Vec<&Item> = self.items.values().filter(|item| item.tags.iter().any(|t| t == tag)).collect();
            found.sort_by_key(|item| item.id);
            found
        }}

        pub fn apply(&mut self, event: Event) -> Result<(), String> {{
            match event {{
                Event::Added(item) => self.add(item),
                Event::Removed(id) => {{
                    self.remove(id).ok_or_else(|| format!("no item {{id}} in store {i}"))?;
                }}
                Event::Repriced {{ id, cents }} => {{
                    let item = self.items.get_mut(&id).ok_or_else(|| format!("no item {{id}}"))?;
                    item.price_cents = cents;
                    self.log.push(Event::Repriced {{ id, cents }});
                }}
            }}
            Ok(())
        }}
    }}

    pub fn summarize(store: &Store) -> String {{
        let names: Vec<&str> = store.items.values().map(|item| item.name.as_str()).collect();
        format!("{{}} items, {{}} cents, {{}} events: {{}}", names.len(), store.total(), store.log.len(), names.join(", "))
    }}
{json}"#
    )
}

/// A program of `modules` modules and a `main` with one hole: one file's text, or with `deps` the `main.rs` that
/// names the modules' files.
fn host(modules: usize, deps: bool) -> String {
    let mut text: String = match deps {
        true => (0..modules).map(|i| format!("mod inventory_{i};\n")).chain(["use lacuna::agent;\n".into()]).collect(),
        false => (0..modules).map(|i| module(i, false)).collect(),
    };
    text.push_str(
        r#"
fn main() {
    let mut store = inventory_0::Store::new();
    store.add(inventory_0::Item { id: 1, name: "lamp".into(), price_cents: 1999, tags: vec!["home".into()] });
    store.add(inventory_0::Item { id: 2, name: "desk".into(), price_cents: 15000, tags: vec!["office".into()] });
    let limit: i64 = 10_000;
    let total: i64 = agent!("the total price of the items tagged home, at most the limit").unwrap_or(0);
    println!("{total} {}", inventory_0::summarize(&store));
}
"#,
    );
    text
}

/// Snippets as a model writes them for that hole: mistakes first, then ones that compile.
const REJECTED: &[&str] = &[
    "store.items.values().map(|i| i.price_cents).sum()",
    "store.tagged(\"home\").iter().map(|i| i.price).sum()",
    "store.total() as u32",
    "store.totl().min(limit)",
];
const ACCEPTED: &[&str] = &[
    "store.tagged(\"home\").iter().map(|i| i.price_cents).sum::<i64>().min(limit)",
    "store.total().min(limit)",
    "let home = store.tagged(\"home\");\nhome.len() as i64",
];

struct Size {
    lines: usize,
    prepare_ms: f64,
    first_check_ms: f64,
    rejected: Vec<f64>,
    accepted: Vec<f64>,
    rustc: Vec<f64>,
    cargo: Vec<f64>,
}

/// A cargo project holding the spliced program as its binary, `lacuna` its dependency: what `cargo check` after
/// the same edit costs (the first check, which builds the dependency, is not counted).
struct CargoProject {
    dir: tempfile::TempDir,
}

/// The dependencies of a project host: `lacuna`, and with `deps` serde and serde_json as the AgentDojo hosts use
/// them (the same lockfile).
fn manifest(deps: bool) -> String {
    let lacuna = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../lacuna");
    let serde = match deps {
        true => "serde = { version = \"1\", features = [\"derive\"] }\nserde_json = { version = \"1\", features = [\"float_roundtrip\"] }\n",
        false => "",
    };
    format!(
        "[package]\nname = \"host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nlacuna = {{ path = {:?} }}\n{serde}\n[workspace]\n",
        lacuna.display().to_string()
    )
}

/// Writes a project's manifest (and with `deps` its lockfile) into `dir`.
fn write_manifest(dir: &std::path::Path, deps: bool) {
    std::fs::write(dir.join("Cargo.toml"), manifest(deps)).expect("writes Cargo.toml");
    if deps {
        let lock = include_str!("../crates/agentdojo/hosts/Cargo.lock")
            .replace("name = \"agentdojo-host\"", "name = \"host\"");
        std::fs::write(dir.join("Cargo.lock"), lock).expect("writes Cargo.lock");
    }
    std::fs::create_dir_all(dir.join("src")).expect("creates src");
}

impl CargoProject {
    fn new(deps: bool) -> CargoProject {
        let dir = tempfile::tempdir().expect("a temporary directory");
        write_manifest(dir.path(), deps);
        CargoProject { dir }
    }

    /// `cargo check` of the project with `program` as its `src/main.rs`, in milliseconds.
    fn check(&self, program: &str) -> f64 {
        std::fs::write(self.dir.path().join("src/main.rs"), program).expect("writes main.rs");
        let t = Instant::now();
        let status = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["check", "--offline", "--quiet", "--message-format", "short"])
            .current_dir(self.dir.path())
            .env("CARGO_TARGET_DIR", self.dir.path().join("target"))
            .stderr(std::process::Stdio::null())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo check rejects the accepted program");
        t.elapsed().as_secs_f64() * 1e3
    }
}

/// The project host of `modules` modules, built by cargo as `lacuna check` builds a project, and a checker for it.
/// The returned directory holds the project while the checker checks it.
fn project_host(modules: usize) -> (tempfile::TempDir, String, Checker) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_manifest(dir.path(), true);
    std::fs::write(dir.path().join("src/main.rs"), host(modules, true)).expect("writes main.rs");
    for i in 0..modules {
        std::fs::write(dir.path().join(format!("src/inventory_{i}.rs")), module(i, true)).expect("writes a module");
    }
    let cargo = lacuna_project::cargo();
    let wrapper = std::env::current_exe().expect("this program's path");
    let mut project = lacuna_project::Project::discover(&cargo, dir.path(), &lacuna_project::CrateChoice::Bin(None))
        .expect("the generated project");
    if project.target_dir.starts_with(dir.path()) {
        // Its dependencies built once for every size.
        project.target_dir = lacuna_checker::default_cache_dir().join("host-size-target");
    }
    let loaded = project.load(&cargo, &wrapper).expect("the generated project builds");
    let crate_ = lacuna_checker::ProjectCrate { graph: loaded.graph, flags: loaded.flags };
    let options = CheckerOptions {
        memoize_rustc: false,
        project: Some(std::sync::Arc::new(crate_)),
        ..CheckerOptions::default()
    };
    (dir, loaded.flat.text, Checker::new(options).expect("checker starts"))
}

fn measure(checker: &mut Checker, text: &str, deps: bool) -> Size {
    let lines = text.lines().count();
    let t = Instant::now();
    let host = checker.prepare("host.rs", text).expect("the generated host compiles");
    let prepare_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    checker.check(&host, 0, ACCEPTED[0]).expect("checks");
    let first_check_ms = t.elapsed().as_secs_f64() * 1e3;
    let (mut rejected, mut accepted, mut rustc, mut cargo) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let project = CargoProject::new(deps);
    project.check(&checker.spliced_text(&host, 0, ACCEPTED[0]));
    // Each in a run of its own: rustc's incremental state is warm for what it checked last, as for a program
    // checked again and again after edits of one function.
    for _ in 0..REPEATS {
        for (snippets, expect, into) in [(REJECTED, false, &mut rejected), (ACCEPTED, true, &mut accepted)] {
            for snippet in snippets {
                let t = Instant::now();
                let verdict = checker.check(&host, 0, snippet).expect("checks");
                into.push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(verdict.accepted, expect, "{snippet}: {:?}", verdict.diagnostics);
            }
        }
    }
    for _ in 0..REPEATS {
        for snippet in ACCEPTED {
            let spliced = checker.spliced_text(&host, 0, snippet);
            let t = Instant::now();
            checker.rustc().check_text(&spliced).expect("rustc runs");
            rustc.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    for _ in 0..REPEATS {
        for snippet in ACCEPTED {
            cargo.push(project.check(&checker.spliced_text(&host, 0, snippet)));
        }
    }
    Size { lines, prepare_ms, first_check_ms, rejected, accepted, rustc, cargo }
}

fn main() {
    // Run by cargo as rustc's wrapper while a project host builds.
    if let Some(code) = lacuna_project::record::wrapper_main() {
        std::process::exit(code);
    }
    let json = std::env::args().any(|a| a == "--json");
    let deps = std::env::args().any(|a| a == "--project");
    let mut single = (!deps).then(|| {
        Checker::new(CheckerOptions { memoize_rustc: false, ..CheckerOptions::default() }).expect("checker starts")
    });
    let progress = indicatif::ProgressBar::new(3);
    let sizes: Vec<Size> = [3, 33, 165]
        .into_iter()
        .map(|modules| {
            let size = match &mut single {
                Some(checker) => measure(checker, &host(modules, false), false),
                None => {
                    let (_dir, text, mut checker) = project_host(modules);
                    measure(&mut checker, &text, true)
                }
            };
            progress.inc(1);
            size
        })
        .collect();
    progress.finish_and_clear();
    let p = |v: &[f64], q: f64| percentile(v, q);
    if json {
        let rows: Vec<_> = sizes
            .iter()
            .map(|s| {
                serde_json::json!({
                    "lines": s.lines,
                    "prepare_ms": s.prepare_ms,
                    "first_check_ms": s.first_check_ms,
                    "rejected_p50_ms": p(&s.rejected, 50.0), "rejected_p90_ms": p(&s.rejected, 90.0),
                    "accepted_p50_ms": p(&s.accepted, 50.0), "accepted_p90_ms": p(&s.accepted, 90.0),
                    "rustc_p50_ms": p(&s.rustc, 50.0), "rustc_p90_ms": p(&s.rustc, 90.0),
                    "cargo_check_p50_ms": p(&s.cargo, 50.0), "cargo_check_p90_ms": p(&s.cargo, 90.0),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({ "project": deps, "repeats": REPEATS, "sizes": rows, "peak_rss_mib": peak_rss_mib() })
        );
        return;
    }
    let kind = if deps { "a cargo project using serde and serde_json" } else { "one file, std only" };
    println!(
        "a hole's check against the program's size ({kind}; {REPEATS} checks of each snippet per size, one process)"
    );
    println!();
    println!(
        "{:>7} {:>10} {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "lines",
        "prepare",
        "1st check",
        "rej p50",
        "rej p90",
        "acc p50",
        "acc p90",
        "rustc p50",
        "rustc p90",
        "cargo p50",
        "cargo p90"
    );
    for s in &sizes {
        println!(
            "{:>7} {:>7.0} ms {:>7.0} ms {:>8.1} ms {:>8.1} ms {:>8.1} ms {:>8.1} ms {:>8.1} ms {:>8.1} ms {:>8.1} ms \
             {:>8.1} ms",
            s.lines,
            s.prepare_ms,
            s.first_check_ms,
            p(&s.rejected, 50.0),
            p(&s.rejected, 90.0),
            p(&s.accepted, 50.0),
            p(&s.accepted, 90.0),
            p(&s.rustc, 50.0),
            p(&s.rustc, 90.0),
            p(&s.cargo, 50.0),
            p(&s.cargo, 90.0)
        );
    }
    let (small, large) = (&sizes[0], &sizes[sizes.len() - 1]);
    println!();
    println!(
        "accepted p50 at {} lines / at {} lines: {:.2}x; at {} lines, accepted p50 / rustc alone p50: {:.2}x, \
         / cargo check p50: {:.2}x",
        large.lines,
        small.lines,
        p(&large.accepted, 50.0) / p(&small.accepted, 50.0),
        large.lines,
        p(&large.accepted, 50.0) / p(&large.rustc, 50.0),
        p(&large.accepted, 50.0) / p(&large.cargo, 50.0)
    );
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS of this process: {mib:.0} MiB");
    }
}
