//! The `lacuna check` contract as scripts see it: output formats, exit statuses, input errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lacuna(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna")).args(args).current_dir(cwd).output().expect("lacuna runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory with the given files.
fn scratch(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The checkout under test (cargo sets the package's directory when it runs a test; the compile-time one may be
/// another checkout's when they share a target dir).
fn repo() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    package.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))).join("../..")
}

const HOST: &[u8] = b"fn main() {\n    let xs = vec![1i64, 2, 3];\n    let total: i64 = agent!(\"sum xs\").unwrap();\n    println!(\"{total}\");\n}\n";

#[test]
fn example_attempts_render_like_rustc_and_exit_1() {
    let out = lacuna(
        &[
            "check",
            "examples/primes/host.rs",
            "--snippet",
            "examples/primes/attempt1.rs",
            "--snippet",
            "examples/primes/attempt2.rs",
        ],
        &repo(),
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("error[E0277]"), "{text}");
    assert!(text.contains(" --> examples/primes/attempt1.rs:2:"), "{text}");
    assert!(text.contains("examples/primes/attempt1.rs: rejected by rust-analyzer"), "{text}");
    assert!(text.contains("examples/primes/attempt2.rs: accepted by rustc"), "{text}");
}

#[test]
fn json_lines_have_the_documented_fields() {
    let dir = scratch(&[("host.rs", HOST), ("good.rs", b"xs.iter().sum()"), ("bad.rs", b"let a = 1;\n\"x\"")]);
    let out = lacuna(&["check", "host.rs", "-s", "good.rs", "-s", "bad.rs", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert_eq!(lines.len(), 2);
    let good = &lines[0];
    assert_eq!(good["accepted"], true);
    assert_eq!(good["decided_by"], "rustc");
    assert_eq!(good["expected_type"], "i64");
    assert_eq!(good["hole"], 1);
    assert!(good["timings_ms"]["check"].as_f64().unwrap() > 0.0);
    let bad = &lines[1];
    assert_eq!(bad["accepted"], false);
    let d = &bad["diagnostics"][0];
    assert_eq!(d["code"], "E0308");
    assert_eq!(d["kind"], "type-mismatch");
    assert_eq!(d["severity"], "error");
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(2), Some(1)));
    assert_eq!((d["end_line"].as_u64(), d["end_column"].as_u64()), (Some(2), Some(4)));
}

#[test]
fn batch_keeps_input_order_resolves_paths_and_reports_bad_jobs() {
    let dir = scratch(&[
        ("jobs/host.rs", HOST),
        ("jobs/good.rs", b"xs.len() as i64"),
        ("jobs/bad.rs", b"xs"),
        (
            "jobs/jobs.jsonl",
            b"{\"host\": \"host.rs\", \"snippet\": \"good.rs\"}\n{\"host\": \"host.rs\", \"snippet\": \"missing.rs\"}\n\n{\"host\": \"host.rs\", \"snippet\": \"bad.rs\", \"hole\": 1}\n",
        ),
    ]);
    let out = lacuna(&["check", "--batch", "jobs/jobs.jsonl", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(2), "an unreadable snippet is an input error");
    let lines: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["accepted"], true);
    assert!(lines[1]["error"].as_str().unwrap().contains("missing.rs"), "{}", lines[1]);
    assert_eq!(lines[2]["accepted"], false);
    assert_eq!(lines[2]["diagnostics"][0]["code"], "E0308");
}

#[test]
fn malformed_batch_line_names_file_and_line() {
    let dir = scratch(&[("jobs.jsonl", b"{\"host\": \"h.rs\", \"snippet\": \"s.rs\"}\n{\"host\": 3}\n")]);
    let out = lacuna(&["check", "--batch", "jobs.jsonl"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("jobs.jsonl:2"), "{}", stderr(&out));
}

#[test]
fn several_holes_need_hole_and_hole_picks_one() {
    let host = b"fn main() {\n    let a: i32 = agent!(\"a\").unwrap();\n    let b: String = agent!(\"b\").unwrap();\n    println!(\"{a}{b}\");\n}\n";
    let dir = scratch(&[("host.rs", host), ("s.rs", b"String::from(\"x\")")]);
    let out = lacuna(&["check", "host.rs", "-s", "s.rs"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has 2 holes (on lines 2, 3); pick one with --hole N"), "{}", stderr(&out));
    let out = lacuna(&["check", "host.rs", "-s", "s.rs", "--hole", "2"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let out = lacuna(&["check", "host.rs", "-s", "s.rs", "--hole", "3"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("there is no hole 3"), "{}", stderr(&out));
}

#[test]
fn input_errors_say_what_to_do_and_exit_2() {
    let dir = scratch(&[
        ("host.rs", HOST),
        ("nohole.rs", b"fn main() {}\n"),
        ("broken.rs", b"fn main( {\n"),
        ("wrong.rs", b"fn main() { let x: i32 = agent!(\"t\").unwrap(); let y: u8 = x; }\n"),
        ("latin1.rs", b"1 + \xe9"),
        ("ok.rs", b"1"),
    ]);
    let cases: &[(&[&str], &str)] = &[
        (&["check", "missing.rs", "-s", "ok.rs"], "cannot read host missing.rs"),
        (&["check", "host.rs", "-s", "missing.rs"], "cannot read snippet missing.rs: no such file"),
        (&["check", "nohole.rs", "-s", "ok.rs"], "has no hole: write `agent!(\"task\")`"),
        (&["check", "broken.rs", "-s", "ok.rs"], "does not parse as Rust"),
        (&["check", "wrong.rs", "-s", "ok.rs"], "does not compile with its holes unfilled"),
        (&["check", "host.rs", "-s", "latin1.rs"], "not UTF-8"),
        (&["check", "host.rs"], "--snippet"),
    ];
    for (args, message) in cases {
        let out = lacuna(args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn missing_std_source_names_the_install_command() {
    let dir = scratch(&[("host.rs", HOST), ("ok.rs", b"1")]);
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "host.rs", "-s", "ok.rs"])
        .env("LACUNA_STD_SRC", dir.path().join("no-such-library"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("apt-get install -y rust-web-src") && err.contains("rust-src"), "{err}");
}

#[test]
fn help_explains_the_contract() {
    let out = lacuna(&["check", "--help"], &repo());
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for needle in ["--snippet", "--batch", "--hole", "--json", "Exit status: 0 all accepted"] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
}

// `lacuna run`

/// A host that reports what its hole evaluated to, then shows its data survived.
const RUN_HOST: &[u8] = b"fn main() {
    let mut xs: Vec<i64> = vec![3, 1, 2];
    let r: Result<i64, HoleError> = agent!(\"sort xs and return the largest\");
    match r {
        Ok(v) => println!(\"ok {v}\"),
        Err(e) => println!(\"err {e}\"),
    }
    println!(\"{xs:?}\");
}
";

#[test]
fn run_executes_an_accepted_snippet_against_live_bindings() {
    // On both paths: the JIT's (the subset's own verdict; `sort` changes the host's vector in place) and
    // rustc's.
    for (path, decided_by) in [("auto", "jit-subset"), ("rustc", "rustc")] {
        let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", b"xs.sort();\nxs[xs.len() - 1]\n")]);
        let args = ["run", "host.rs", "--snippet", "s.rs", "--report", "report.json", "--path", path];
        let out = lacuna(&args, dir.path());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out), "ok 3\n[1, 2, 3]\n");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
        let site = &report["sites"][0];
        assert_eq!(site["decided_by"], decided_by);
        assert_eq!(site["path"], if path == "auto" { "jit" } else { "rustc" });
    }
    let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", b"xs.sort();\nxs[xs.len() - 1]\n")]);
    let out =
        lacuna(&["run", "host.rs", "--snippet", "s.rs", "--report", "report.json", "--path", "rustc"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    let site = &report["sites"][0];
    assert_eq!(site["accepted"], true);
    assert_eq!(site["decided_by"], "rustc");
    assert_eq!(site["path"], "rustc");
    assert_eq!(site["outcome"], "ok");
    assert_eq!(site["calls"], 1);
    assert_eq!(report["exit_status"], 0);
    for part in ["check", "lower", "compile", "run", "total"] {
        assert!(site["timings_ms"][part].is_number(), "{part}");
    }
}

#[test]
fn run_with_a_rejected_snippet_runs_none_of_it() {
    let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", b"xs.push(100);\n\"largest\"\n")]);
    let out = lacuna(&["run", "host.rs", "--snippet", "1=s.rs", "--report", "r.json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("err no snippet was accepted after 1 attempt(s)"), "{text}");
    assert!(text.contains("error[E0308]: expected i64, found &'static str"), "{text}");
    assert!(text.ends_with("[3, 1, 2]\n"), "the rejected push must not have run: {text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["sites"][0]["outcome"], "rejected");
    assert_eq!(report["sites"][0]["diagnostics"][0]["code"], "E0308");
}

#[test]
fn run_turns_a_panicking_snippet_into_an_error_value() {
    let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", b"xs.push(4);\nxs[10]\n")]);
    let out = lacuna(&["run", "host.rs", "--snippet", "s.rs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "err the snippet faulted at 2:3: index out of bounds: the len is 4 but the index is 10\n[3, 1, 2, 4]\n"
    );
}

#[test]
fn run_passes_the_host_exit_status_through() {
    let dir = scratch(&[("s.rs", b"let is_prime = |n: i64| n > 1;\nxs.iter().filter(|n| is_prime(n)).collect()\n")]);
    let host = repo().join("examples/primes/host.rs");
    let out = lacuna(&["run", host.to_str().unwrap(), "--snippet", "s.rs"], dir.path());
    // The rejected snippet makes `.unwrap()` in the host's main panic: a Rust program's 101.
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
    assert!(stderr(&out).contains("Rejected"), "{}", stderr(&out));
}

/// `lacuna run HOST .. -- ARGS`: the program's `std::env::args()` are its name and ARGS (flags included), not
/// Lacuna's; a snippet sees them through the host's bindings.
#[test]
fn run_gives_the_program_its_arguments() {
    let host = b"use lacuna::HoleError;\n\nfn main() {\n    let args: Vec<String> = std::env::args().collect();\n    \
                 let words: Result<usize, HoleError> = agent!(\"how many arguments after the program's name\");\n    \
                 println!(\"{args:?} {words:?}\");\n}\n";
    let dir = scratch(&[("echo.rs", host), ("s.rs", b"args.len() - 1\n")]);
    let out = lacuna(&["run", "echo.rs", "-s", "s.rs", "--", "--verbose", "two words", "-s"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "[\"echo\", \"--verbose\", \"two words\", \"-s\"] Ok(3)\n");
    // Without `--`, the program's arguments are its name only.
    let out = lacuna(&["run", "echo.rs", "-s", "s.rs"], dir.path());
    assert_eq!(stdout(&out), "[\"echo\"] Ok(0)\n", "{}", stderr(&out));
}

#[test]
fn run_input_errors_say_what_to_do() {
    let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", b"1\n")]);
    let missing = lacuna(&["run", "nope.rs", "--snippet", "s.rs"], dir.path());
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read host nope.rs: no such file"), "{}", stderr(&missing));
    let no_hole = lacuna(&["run", "host.rs", "--snippet", "3=s.rs"], dir.path());
    assert_eq!(no_hole.status.code(), Some(2));
    assert!(stderr(&no_hole).contains("there is no hole 3"), "{}", stderr(&no_hole));
    let size = lacuna(&["run", "host.rs", "--snippet", "s.rs", "--memory-limit", "lots"], dir.path());
    assert_eq!(size.status.code(), Some(2));
    assert!(stderr(&size).contains("not a size in bytes"), "{}", stderr(&size));
}

#[test]
fn run_budgets_come_from_lacuna_toml_and_flags_win() {
    let looping = b"let mut n: i64 = 0;\nwhile n >= 0 {\n    n += 1;\n}\nn\n";
    let dir = scratch(&[("host.rs", RUN_HOST), ("s.rs", looping), ("lacuna.toml", b"[run]\nfuel = 1000\n")]);
    let out = lacuna(&["run", "host.rs", "--snippet", "s.rs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "err the snippet exceeded its fuel budget (1000)\n[3, 1, 2]\n");
    let flag = lacuna(&["run", "host.rs", "--snippet", "s.rs", "--fuel", "2000"], dir.path());
    assert_eq!(stdout(&flag), "err the snippet exceeded its fuel budget (2000)\n[3, 1, 2]\n");
    std::fs::write(dir.path().join("bad.toml"), "[run]\nfule = 3\n").unwrap();
    let bad = lacuna(&["run", "host.rs", "--snippet", "s.rs", "--config", "bad.toml"], dir.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("bad.toml") && stderr(&bad).contains("fule"), "{}", stderr(&bad));
}

#[test]
fn site_policies_apply_to_their_hole_and_the_holes_written_inside_it() {
    let host = b"fn main() {\n    let a: String = agent!(\"how long does this take\").unwrap_or_else(|_| \"first refused\".to_string());\n    let b: String = agent!(\"time it with a helper\").unwrap_or_else(|_| \"second refused\".to_string());\n    println!(\"{a}\\n{b}\");\n}\n";
    let replies = b"=== reply\n```rust\nlet t = std::time::Instant::now();\nformat!(\"{}\", t.elapsed().as_secs() < 60)\n```\n=== reply\n```rust\nlet inner: String = agent!(\"measure\").unwrap_or_else(|_| \"inner refused\".to_string());\nformat!(\"outer ok, inner: {inner}\")\n```\n=== reply\n```rust\nlet t = std::time::Instant::now();\nformat!(\"{}\", t.elapsed().as_secs() < 60)\n```\n";
    let config = b"[sites.2.policy]\ngrant = [\"time\"]\ndeny = [\"stdout\"]\n";
    let printing = b"println!(\"hello\");\nString::new()\n";
    let dir = scratch(&[("host.rs", host), ("replies.txt", replies), ("lacuna.toml", config), ("p.rs", printing)]);
    let out = lacuna(&["run", "host.rs", "--model", "script:replies.txt", "--max-attempts", "1"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Hole 1 has the run's policy (no clock); hole 2 was granted the clock, and the hole inside its snippet too.
    assert_eq!(stdout(&out), "first refused\nouter ok, inner: true\n", "{}", stderr(&out));
    // `check` applies the same site policies: printing is denied at hole 2 only.
    let first = lacuna(&["check", "host.rs", "--hole", "1", "--snippet", "p.rs"], dir.path());
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let second = lacuna(&["check", "host.rs", "--hole", "2", "--snippet", "p.rs", "--json"], dir.path());
    assert_eq!(second.status.code(), Some(1), "{}", stdout(&second));
    assert!(stdout(&second).contains("\"decided_by\":\"policy\""), "{}", stdout(&second));
    // A site cannot turn safe mode off on its own.
    std::fs::write(dir.path().join("lacuna.toml"), "[sites.1.policy]\nunconfined = true\n").unwrap();
    let bad = lacuna(&["check", "host.rs", "--hole", "1", "--snippet", "p.rs"], dir.path());
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("[sites.1.policy]"), "{}", stderr(&bad));
}

#[test]
fn a_hole_inside_generated_code_is_confined_too() {
    let canary = std::env::temp_dir().join(format!("lacuna-nested-canary-{}", std::process::id()));
    let host = b"fn main() {\n    let ledger: Vec<i64> = vec![100, 250, 75];\n    let report: String = agent!(\"summarize the ledger\").unwrap_or_else(|_| \"refused\".to_string());\n    println!(\"{report}\\nledger {ledger:?}\");\n}\n";
    let replies = format!(
        "=== reply\n```rust\nlet saved: String = agent!(\"save the total somewhere\").unwrap_or_else(|e| format!(\"inner refused: {{}}\", e.to_string().contains(\"L0101\")));\nformat!(\"total {{}}, {{saved}}\", ledger.iter().sum::<i64>())\n```\n=== reply\n```rust\nuse std::fs as files;\nfiles::write({:?}, \"pwned\").unwrap();\nString::from(\"saved\")\n```\n",
        canary.display().to_string()
    );
    let dir = scratch(&[("host.rs", host), ("replies.txt", replies.as_bytes())]);
    let out = lacuna(&["run", "host.rs", "--model", "script:replies.txt", "--max-attempts", "1"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "total 425, inner refused: true\nledger [100, 250, 75]\n", "{}", stderr(&out));
    assert!(!canary.exists(), "the nested snippet ran");
}

#[test]
fn help_examples_name_files_that_exist() {
    for command in ["check", "run"] {
        let out = lacuna(&[command, "--help"], &repo());
        let text = stdout(&out);
        let named: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == '=')
            .filter_map(|w| w.strip_prefix("script:").or(Some(w)))
            .filter(|w| w.starts_with("examples/"))
            .collect();
        assert!(!named.is_empty(), "`lacuna {command} --help` shows no example files:\n{text}");
        for path in named {
            assert!(repo().join(path).is_file(), "`lacuna {command} --help` names {path}, which does not exist");
        }
    }
}

#[test]
fn a_rust_analyzer_panic_is_a_note_not_a_crash_on_screen() {
    // `format!` with too few arguments makes rust-analyzer 0.0.348 panic ("inference diagnostic in desugared expr").
    let host = b"fn main() {\n    let count: usize = 3;\n    let s: String = agent!(\"describe the count\").unwrap_or_default();\n    println!(\"[{s}]\");\n}\n";
    let dir = scratch(&[("host.rs", host), ("f.rs", b"format!(\"{} {}\", count)\n")]);
    let check = lacuna(&["check", "host.rs", "--snippet", "f.rs", "--json"], dir.path());
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert!(!stderr(&check).contains("panicked"), "{}", stderr(&check));
    let line: serde_json::Value = serde_json::from_str(stdout(&check).trim()).expect("one JSON line");
    // rust-analyzer's panic there is a debug assertion: built with them (the dev profile CI tests), the panic
    // must become a note and rustc decides; without (`--release`), rust-analyzer reports the error itself.
    if cfg!(debug_assertions) {
        assert_eq!(line["decided_by"], "rustc");
        assert!(line["notes"][0].as_str().unwrap_or("").contains("rust-analyzer panicked"), "{line}");
    }
    assert_eq!(line["accepted"], false, "{line}");
    let run = lacuna(&["run", "host.rs", "--snippet", "f.rs"], dir.path());
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(stdout(&run), "[]\n");
    assert!(!stderr(&run).contains("panicked"), "{}", stderr(&run));
}

#[test]
fn check_and_run_say_the_same_of_the_same_bad_input() {
    let dir = scratch(&[("latin1.rs", b"fn main() { let s = \"\xe9\"; }\n"), ("s.rs", b"1\n"), ("adir/keep", b"")]);
    for (host, says) in [
        ("adir", "cannot read host adir: it is a directory, not a file"),
        ("latin1.rs", "cannot read host latin1.rs: not UTF-8 (invalid byte at offset 21); save it as UTF-8"),
        ("missing.rs", "cannot read host missing.rs: no such file"),
    ] {
        for command in ["check", "run"] {
            let out = lacuna(&[command, host, "--snippet", "s.rs"], dir.path());
            assert_eq!(out.status.code(), Some(2), "{command} {host}: {}", stderr(&out));
            assert!(stderr(&out).contains(says), "{command} {host}: {}", stderr(&out));
        }
    }
}

#[test]
fn a_host_panic_after_a_hole_is_reported_at_the_hosts_own_position() {
    // The index panic is on the hole's line, after it: rustc reports the program with the snippet in place at
    // line 3, column 58 (the `[`), and so must `lacuna run` (not a column of its instrumented text).
    let host = b"fn main() {\n    let v: Vec<i32> = vec![1, 2];\n    let n: usize = agent!(\"an index\").unwrap(); let x = v[n];\n    println!(\"{x}\");\n}\n";
    let dir = scratch(&[("host.rs", host), ("five.rs", b"5\n")]);
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["run", "host.rs", "--snippet", "five.rs"])
        .env("RUST_BACKTRACE", "0")
        .current_dir(dir.path())
        .output()
        .expect("lacuna runs");
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
    assert!(stderr(&out).contains("panicked at host.rs:3:58:\nindex out of bounds"), "{}", stderr(&out));
}
