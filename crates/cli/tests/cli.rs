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

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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
        (&["check", "host.rs", "-s", "missing.rs"], "missing.rs: cannot read"),
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
