//! `lacuna check` on a cargo project: `examples/cargo-agent`, a crate with modules, derives and dependencies
//! (serde, serde_json, regex, tokio), holes in methods and an async fn. Each file of its `snippets/` says which
//! hole it is for and what the verdict must be (`// hole: FILE:LINE`, `// expect: accepted` or `// expect:
//! rejected CODE`, optionally `// decided-by: STAGE`); the checks run through the `lacuna` binary, which builds the
//! project with cargo first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    package.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))).join("../..")
}

fn lacuna(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna")).args(args).current_dir(cwd).output().expect("lacuna runs")
}

/// A scratch directory with these files.
fn scratch(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

struct Case {
    file: String,
    hole: String,
    /// `// decided-by:` when the case says which stage must decide.
    decided_by: Option<String>,
    /// `None`: accepted; else the code of the rejection.
    rejected: Option<String>,
}

fn cases(project: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(project.join("snippets")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_owned))
                .unwrap_or_else(|| panic!("{} has no `// {key}:` line", path.display()))
        };
        let expect = field("expect");
        let rejected = match expect.as_str() {
            "accepted" => None,
            e => Some(e.strip_prefix("rejected ").unwrap_or_else(|| panic!("{}: bad expect", path.display())).into()),
        };
        let file = path.strip_prefix(project).unwrap().display().to_string();
        let decided_by = text.lines().find_map(|l| l.strip_prefix("// decided-by: ")).map(str::to_owned);
        let hole = text.lines().find_map(|l| l.strip_prefix("// hole: ")).unwrap_or("1").to_owned();
        out.push(Case { file, hole, decided_by, rejected });
    }
    out
}

#[test]
fn snippets_are_judged_against_the_crate_its_dependencies_and_the_projects_policy() {
    judge_all(&repo().join("examples/cargo-agent"), 10);
}

/// Safe mode over dependencies (`testdata/projects/reach`): a crate the project does not list is denied, its
/// constructors, its methods on a value the host hands over, its impls of std traits; a listed crate's
/// re-exports of `std::fs` are `std::fs`; a host type that wraps a client is a tool.
#[test]
fn dependencies_reach_only_what_the_policy_lists() {
    judge_all(&repo().join("testdata/projects/reach"), 8);
}

/// Holes in async code (`testdata/projects/waits`): a snippet there may `.await` the host's futures, not in a
/// closure of its own (E0728) and not in a hole in a plain function; `?` on a tool's error is E0277 as in rustc.
#[test]
fn snippets_in_async_code_may_await() {
    judge_all(&repo().join("testdata/projects/waits"), 9);
}

fn judge_all(project: &Path, at_least: usize) {
    let cases = cases(project);
    assert!(cases.len() >= at_least, "{} has its snippets", project.display());
    let mut by_hole: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for case in &cases {
        by_hole.entry(case.hole.as_str()).or_default().push(case);
    }
    let mut failures = Vec::new();
    for (hole, cases) in by_hole {
        let mut args = vec!["check", ".", "--hole", hole, "--json"];
        for case in &cases {
            args.extend(["--snippet", case.file.as_str()]);
        }
        let out = lacuna(&args, project);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(
            lines.len(),
            cases.len(),
            "one verdict per snippet; stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (case, verdict) in cases.iter().zip(&lines) {
            // A diagnostic by its code, else (Lacuna's own, without one) by its kind.
            let codes: Vec<&str> = verdict["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["code"].as_str().or(d["kind"].as_str()))
                .collect();
            let got = match verdict["accepted"].as_bool() {
                Some(true) => None,
                _ => codes.first().map(|c| c.to_string()).or(Some("(none)".into())),
            };
            if got != case.rejected {
                failures.push(format!("{}: expected {:?}, got {:?} ({verdict})", case.file, case.rejected, got));
            }
            if let Some(by) = &case.decided_by {
                if verdict["decided_by"].as_str() != Some(by.as_str()) {
                    failures.push(format!("{}: expected a verdict by {by} ({verdict})", case.file));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `lacuna run` on the project: the crate built as a library with its dependencies, each snippet a library
/// linking to it (serde_json and regex called through the host's copies), holes in methods and in an `async fn`.
#[test]
fn the_project_runs_with_its_holes_filled() {
    let project = repo().join("examples/cargo-agent");
    let out = lacuna(
        &[
            "run",
            "--snippet",
            "1=snippets/priority.rs",
            "--snippet",
            "2=snippets/mentioned-via-json.rs",
            "--snippet",
            "3=snippets/headline-regex.rs",
            "-v",
        ],
        &project,
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    expect_test::expect![[r#"
        #1 Crash when saving an empty file by Ana Lima: Urgent, maintainers mentioned: ["bo"]
        #2 Typo in the README by Zed Okafor: Low, maintainers mentioned: []
        #3 Export loses rows by Bo Chen: Urgent, maintainers mentioned: ["ana"]
    "#]]
    .assert_eq(&stdout);
    assert!(stderr.contains("hole 3 (src/triage.rs:27): 3 call(s)"), "{stderr}");

    // Run from elsewhere, by manifest path; a snippet that uses `?` on the directory's error is rejected (E0277)
    // and the hole is an `Err`.
    let out = lacuna(
        &[
            "run",
            "--manifest-path",
            "examples/cargo-agent/Cargo.toml",
            "-s",
            "1=examples/cargo-agent/snippets/priority.rs",
            "-s",
            "2=examples/cargo-agent/snippets/mentioned.rs",
            "-s",
            "3=examples/cargo-agent/snippets/headline-question-mark.rs",
        ],
        &repo(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("#1 could not be triaged: Ok(Urgent) Ok([\"bo\"]) Err(Rejected"), "{stdout}");
    assert!(stdout.contains("E0277"), "{stdout}");
}

#[test]
fn a_crate_the_project_does_not_allow_is_named_with_how_to_allow_it() {
    let project = repo().join("examples/cargo-agent");
    let out = lacuna(&["check", ".", "--hole", "src/triage.rs:27", "-s", "snippets/headline-tokio-sleep.rs"], &project);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("`sleep` is `tokio::time::sleep::sleep`"), "{stdout}");
    assert!(stdout.contains("crates = [\"tokio\"]"), "{stdout}");
    assert!(stdout.contains("(hole 3 of triage at src/triage.rs:27"), "{stdout}");
}

#[test]
fn project_input_errors_say_what_to_do() {
    let project = repo().join("examples/cargo-agent");
    let out = lacuna(&["check", ".", "--hole", "src/triage.rs:2", "-s", "snippets/headline.rs"], &project);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no hole on line 2 of src/triage.rs"));
    let out = lacuna(&["check", ".", "-s", "snippets/headline.rs"], &project);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has 3 holes (src/triage.rs:16, src/triage.rs:21"));

    // A project that does not depend on lacuna.
    let dir = scratch(&[
        ("Cargo.toml", "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n".into()),
        ("src/main.rs", "fn main() {}\n".into()),
        ("s.rs", "1".into()),
    ]);
    let out = lacuna(&["check", ".", "-s", "s.rs"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not depend on `lacuna`") && stderr.contains("[dependencies]"), "{stderr}");
}

/// A package with a library and a binary that uses it: the holes are in the library.
#[test]
fn holes_in_the_package_library_are_checked_with_its_binary_or_alone() {
    let lacuna_crate = repo().join("crates/lacuna").canonicalize().unwrap();
    let dir = scratch(&[
        (
            "Cargo.toml",
            format!(
                "[package]\nname = \"shop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\n\
                 lacuna = {{ path = {:?} }}\n",
                lacuna_crate.display().to_string()
            ),
        ),
        (
            "src/lib.rs",
            "use lacuna::{agent, HoleError};\n\npub mod orders;\n\npub fn biggest(orders: &[orders::Order]) -> \
             Result<Option<u32>, HoleError> {\n    agent!(\"the id of the order with the largest total\")\n}\n"
                .to_owned(),
        ),
        ("src/orders.rs", "pub struct Order {\n    pub id: u32,\n    pub total_cents: i64,\n}\n".to_owned()),
        (
            "src/main.rs",
            "fn main() {\n    let orders = vec![shop::orders::Order { id: 1, total_cents: 500 }];\n    \
             println!(\"{:?}\", shop::biggest(&orders));\n}\n"
                .to_owned(),
        ),
        ("good.rs", "orders.iter().max_by_key(|o| o.total_cents).map(|o| o.id)\n".to_owned()),
        ("bad.rs", "orders.iter().max_by_key(|o| o.total).map(|o| o.id)\n".to_owned()),
    ]);
    // The binary and its library are one crate: the library's holes are the binary's too.
    let out = lacuna(&["check", ".", "-s", "good.rs"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.contains("(hole 1 of shop at src/lib.rs:6, expected `Option<u32>`)"), "{stdout}");
    let out = lacuna(&["check", ".", "--lib", "-s", "good.rs", "-s", "bad.rs"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("good.rs: accepted by rustc"), "{stdout}");
    assert!(stdout.contains("(hole 1 of shop at src/lib.rs:6, expected `Option<u32>`)"), "{stdout}");
    assert!(stdout.contains("error[E0609]: no field `total` on type `&&Order`"), "{stdout}");
}

/// A package laid out as most are (`testdata/projects/desk`): the logic in the library, a binary that uses it by
/// the package's name. Holes in the library (a `&mut self` method in a module directory, a function at its root)
/// and in the binary's module are checked as one crate, and a snippet in the binary is held to what cargo's two
/// crates allow it: the library's `pub(crate)` items and fields are private to it (E0603, E0616), its types take
/// no inherent impl (E0116) and no foreign trait's (E0117). Every label here is cargo's own, checked below.
#[test]
fn holes_in_the_library_and_the_binary_are_judged_as_cargo_builds_them() {
    let project = repo().join("testdata/projects/desk");
    judge_all(&project, 12);
    cargo_agrees(&project);
}

/// Each snippet of `project` written into its hole (`Ok::<_, HoleError>({ snippet })`) in a copy of the project:
/// `cargo check`'s first error code is the snippet's `// expect:` (none for `accepted`).
fn cargo_agrees(project: &Path) {
    let copy = tempfile::tempdir().unwrap();
    let lacuna_crate = repo().join("crates/lacuna").canonicalize().unwrap();
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    let manifest = manifest.replace("\"../../../crates/lacuna\"", &format!("{:?}", lacuna_crate.display().to_string()));
    let copy_tree = |from: &Path, to: &Path| {
        for entry in walk(from) {
            let target = to.join(entry.strip_prefix(from).unwrap());
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(&entry, target).unwrap();
        }
    };
    let mut failures = Vec::new();
    for case in cases(project) {
        let (file, _) = case.hole.rsplit_once(':').expect("`// hole: FILE:LINE`");
        let _ = std::fs::remove_dir_all(copy.path().join("src"));
        copy_tree(&project.join("src"), &copy.path().join("src"));
        std::fs::write(copy.path().join("Cargo.toml"), &manifest).unwrap();
        let snippet = std::fs::read_to_string(project.join(&case.file)).unwrap();
        let path = copy.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text.find("agent!(").expect("the file has a hole");
        let end = start + text[start..].find("\")").expect("the hole's task ends") + 2;
        let filled = format!("{}Ok::<_, HoleError>({{\n{snippet}\n}}){}", &text[..start], &text[end..]);
        std::fs::write(&path, filled).unwrap();
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["check", "--quiet", "--offline", "--message-format", "short"])
            .env("CARGO_TARGET_DIR", copy.path().join("target"))
            .current_dir(copy.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let got = stderr.split("error[").nth(1).map(|rest| rest[..5].to_owned());
        if got != case.rejected {
            failures.push(format!("{}: expected {:?}, cargo says {:?}\n{stderr}", case.file, case.rejected, got));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `lacuna run` on a package with a library: the library's holes and the binary's run in one process, the
/// library's macro and re-exports used by the binary as cargo builds it.
#[test]
fn holes_in_the_package_library_run() {
    let project = repo().join("testdata/projects/desk");
    let out = lacuna(
        &[
            "run",
            "-s",
            "1=snippets/settle.rs",
            "-s",
            "2=snippets/biggest.rs",
            "-s",
            "3=snippets/summary-own-trait.rs",
            "-v",
        ],
        &project,
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    expect_test::expect![[r#"
        biggest: order 2
        settled: refunded $40.00 of order 2, $40.00 still refundable
        log: order 1 from ada
        log: order 2 from grace
        log: order 3 from alan
        log: refunded $40.00 of order 2
        3 orders, $40.00 refunded
    "#]]
    .assert_eq(&stdout);
    for place in ["hole 1 (src/desk/mod.rs:54)", "hole 2 (src/lib.rs:22)", "hole 3 (src/report.rs:6)"] {
        assert!(stderr.contains(place), "{place}: {stderr}");
    }
}

/// Holes where a person puts them (`testdata/projects/shapes`): a `&mut self` method in a module directory, a
/// `Display` impl, a generic function called at two types, a closure; numbered in the crate's module order.
#[test]
fn holes_in_methods_closures_generic_functions_and_trait_impls_run() {
    let project = repo().join("testdata/projects/shapes");
    let out = lacuna(
        &[
            "run",
            "-s",
            "1=snippets/summary.rs",
            "-s",
            "2=snippets/restock.rs",
            "-s",
            "3=snippets/largest.rs",
            "-s",
            "4=snippets/label.rs",
            "-v",
        ],
        &project,
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    expect_test::expect![[r#"
        restocked 1 item(s)
        BOLT [40]
        NUT [10]
        GEAR [3]
        largest count: Some(40)
        largest price: Some(9.0)
        3 items worth $44.00
    "#]]
    .assert_eq(&stdout);
    for place in ["hole 1 (src/report.rs:9)", "hole 2 (src/store/mod.rs:23)", "hole 3 (src/main.rs:8): 2 call(s)"] {
        assert!(stderr.contains(place), "{place}: {stderr}");
    }
}

/// Snippets that await run as futures the host's task polls: the ticker on the same current-thread runtime runs
/// while the snippet waits for its lookups; a timeout that fires first drops the hole's future, and the snippet
/// is ended; a snippet that waits past its time budget gets the budget's error; holes in tasks spawned on a
/// multi-thread runtime build (their futures are `Send`) and run. A snippet that takes a host binding is refused
/// to run in async code, with the reason; one that panics after a wait fails its hole with the panic's place.
#[test]
fn snippets_that_await_run_as_futures_of_the_hosts_task() {
    let project = repo().join("testdata/projects/waits");
    let run = |describe: &str, restock: &str| {
        let (describe, restock) = (format!("2=snippets/{describe}"), format!("3=snippets/{restock}"));
        let args = ["run", "-s", "1=snippets/count.rs", "-s", &describe, "-s", &restock];
        let out = lacuna(
            &[
                &args[..],
                &["-s", "4=snippets/headline.rs", "-s", "5=snippets/shout.rs", "--time-limit-ms", "500", "-v"],
            ]
            .concat(),
            &project,
        );
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        (stdout.into_owned(), stderr.into_owned())
    };
    let (stdout, stderr) = run("describe.rs", "wait-forever.rs");
    expect_test::expect![[r#"
        Stock of 3 skus
        tick 1
        tick 2
        in stock: Ok(2)
        forty lookups: timed out
        restock: the snippet exceeded its time budget (500 ms)
        Ok("gear: 3")
        Ok("cog: unknown")
        Ok("GEAR"); ticks while it was asked for: some
    "#]]
    .assert_eq(&stdout);
    // Dropped while its snippet ran, or (the timeout counts the asking too) while it was asked for.
    assert!(stderr.contains("the hole's future was dropped"), "{stderr}");
    assert!(stderr.contains("not the JIT: it awaits"), "{stderr}");
    // A panic after a wait is the hole's error, at its place in the snippet.
    let (stdout, _) = run("describe-takes-sku.rs", "restock-unknown.rs");
    assert!(stdout.contains("a snippet in async code cannot do"), "{stdout}");
    assert!(stdout.contains("restock: the snippet faulted at 5:"), "{stdout}");
    assert!(stdout.contains("the inventory knows washers"), "{stdout}");
}

/// A model in async code (`replies-retry.txt`): the model is asked, and the snippet checked and built, off the
/// host's task, so the other tasks on its current-thread runtime run meanwhile; a snippet that panics after a wait
/// is followed by another attempt (`--retry-after-fault`), which fills the hole.
#[test]
fn in_async_code_the_model_is_asked_off_the_task_and_a_fault_after_a_wait_is_retried() {
    let project = repo().join("testdata/projects/waits");
    let out = lacuna(&["run", "--model", "script:replies-retry.txt", "--retry-after-fault", "-v"], &project);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("restocked: 0\n"), "{stdout}");
    assert!(stdout.contains("Ok(\"GEAR\"); ticks while it was asked for: some"), "{stdout}");
    assert!(stderr.contains("hole 3 (src/main.rs:24): 1 call(s), 2 attempt(s)"), "{stderr}");
}

/// A dependency's proc macro is code that runs while it expands (`canary`'s write the file they are given). The
/// host's derive is expanded for rust-analyzer (a misspelt method of it is rejected at once), but a snippet's
/// own invocations run nowhere before safe mode judged the snippet — not in rust-analyzer's proc-macro server,
/// not in rustc — and safe mode denies `canary`, which the project does not list. Unconfined, the same snippet
/// is compiled and the proc macro runs: the canary can tell.
#[test]
fn a_snippets_proc_macros_do_not_run_before_safe_mode_judged_it() {
    let project = repo().join("testdata/projects/macros");
    let dir = tempfile::tempdir().unwrap();
    let canary = |name: &str| dir.path().join(name);
    let snippets = [
        ("named.rs", "format!(\"{} of size {}\", widget.name(), widget.size)\n".to_owned()),
        ("misspelt.rs", "format!(\"{}\", widget.nam())\n".to_owned()),
        ("bang.rs", format!("canary::touch!({:?});\nString::new()\n", canary("bang").display().to_string())),
        (
            "attribute.rs",
            format!(
                "#[canary::touch_attr({:?})]\nfn helper() -> u32 {{ 1 }}\nhelper().to_string()\n",
                canary("attribute").display().to_string()
            ),
        ),
    ];
    let mut args = vec!["check".to_owned(), ".".to_owned(), "--json".to_owned()];
    for (name, text) in &snippets {
        std::fs::write(dir.path().join(name), text).unwrap();
        args.extend(["-s".to_owned(), dir.path().join(name).display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = lacuna(&args, &project);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(verdicts.len(), 4, "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let code = |v: &serde_json::Value| v["diagnostics"][0]["code"].as_str().map(str::to_owned);
    assert_eq!(verdicts[0]["accepted"], true, "{}", verdicts[0]);
    assert_eq!((code(&verdicts[1]), verdicts[1]["decided_by"].as_str()), (Some("E0599".into()), Some("rust-analyzer")));
    for v in &verdicts[2..] {
        assert_eq!((v["accepted"].as_bool(), code(v).as_deref()), (Some(false), Some("L0101")), "{v}");
    }
    assert!(!canary("bang").exists() && !canary("attribute").exists(), "a snippet's proc macro ran before its verdict");

    // The positive control: unconfined, rustc compiles the snippet and the proc macro runs.
    let bang = dir.path().join("bang.rs").display().to_string();
    let out = lacuna(&["check", ".", "--unconfined", "-s", &bang], &project);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(canary("bang").exists(), "the canary cannot tell");
}
