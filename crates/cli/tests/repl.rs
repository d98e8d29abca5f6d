//! `lacuna repl` in its line-driven mode (input piped), with a scripted model: what a person at a session sees.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn a_session_at_the_repl_with_a_scripted_model() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("tools.rs"),
        "fn price(item: &str) -> u32 {\n    match item {\n        \"tea\" => 4,\n        \"rice\" => 3,\n        _ => 0,\n    }\n}\n\nfn main() {}\n",
    )
    .unwrap();
    // The model's first reply for the second task is ill-typed: its diagnostics go back, and the second is taken.
    std::fs::write(
        dir.path().join("replies.txt"),
        "=== reply\n```rust\nlet basket = vec![\"tea\", \"rice\", \"tea\"];\nbasket.len()\n```\n\
         === reply\n```rust\nlet total: String = basket.iter().map(|i| price(i)).sum();\ntotal\n```\n\
         === reply\n```rust\nlet total: u32 = basket.iter().map(|i| price(i)).sum();\ntotal\n```\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["repl", "tools.rs", "--model", "script:replies.txt"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lacuna repl starts");
    let input = "make a basket of tea, rice and tea\nwhat does the basket cost?\n:code total * 2\n:state\n:quit\n";
    child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("the repl reads");
    let out = child.wait_with_output().expect("lacuna repl ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let expected = "3\n11\n(2 attempts)\n22\nlet basket: Vec<&str>\nlet total: u32\nfn price(item: &str) -> u32 {\n";
    assert_eq!(stdout, expected, "stderr: {stderr}");
}

/// `lacuna repl` on a cargo project (`examples/cargo-agent`, a binary): its modules, items and dependencies are in
/// scope from the first turn, and safe mode is the project's (`[package.metadata.lacuna]` lists serde_json).
#[test]
fn a_session_on_a_cargo_project_has_its_crate_and_dependencies() {
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cargo-agent");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["repl", "."])
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lacuna repl starts");
    let input = "\
:code let issues: Vec<model::Issue> = serde_json::from_str(ISSUES).unwrap();\\nissues.len()
:code tools::mentions(&issues[0].body)
:code issues.iter().map(|i| i.title.len()).max()
:code std::fs::read_to_string(\"data/users.json\").map(|t| t.len()).unwrap_or(0)
:quit
";
    child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("the repl reads");
    let out = child.wait_with_output().expect("lacuna repl ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"3"), "{stdout}\n{stderr}");
    assert_eq!(lines.get(1), Some(&"[\"bo\", \"zed\"]"), "{stdout}\n{stderr}");
    assert_eq!(lines.get(2), Some(&"Some(31)"), "{stdout}\n{stderr}");
    assert!(stdout.contains("L0101") || stderr.contains("L0101"), "std::fs is denied: {stdout}\n{stderr}");
}
