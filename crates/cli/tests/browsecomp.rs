//! `lacuna bench` on a BrowseComp-Plus suite, through the real binary: each query a `lacuna run` of the retrieval
//! host (a cargo project on `lacuna-retrieval`), a BM25 index over a corpus the test writes in the release's
//! format, a scripted model whose code recurses and is rejected on the way, and a scripted judge.

use std::path::Path;
use std::process::Command;

mod support;
use lacuna_bench::record::read_records;
use lacuna_bench::TaskRecord;
use support::{bench, ok, repo};

/// A corpus in the release's shape (`{"docid", "text", "url"}` per line), written as web pages read.
const CORPUS: &str = r#"{"docid": "6021", "text": "The Falcons of Mount Erebus is a 1998 novel by the Norwegian writer Ingrid Halvorsen. It follows a glaciologist who winters at an Antarctic station and the falcons she keeps there.", "url": "https://example.org/falcons"}
{"docid": "118", "text": "Ingrid Halvorsen (born 1961 in Tromsø) is a Norwegian novelist. Her debut, published in 1994, won the Brage Prize; she later taught creative writing in Bergen.", "url": "https://example.org/halvorsen"}
{"docid": "77", "text": "Mount Erebus is the second-highest volcano in Antarctica and the southernmost active volcano on Earth.", "url": "https://example.org/erebus"}
{"docid": "9034", "text": "Falcons are birds of prey in the genus Falco. Peregrine falcons are the fastest birds when diving.", "url": "https://example.org/falco"}
{"docid": "500", "text": "The Brage Prize is a Norwegian literature prize awarded annually since 1992.", "url": "https://example.org/brage"}
{"docid": "4410", "text": "Tromsø is a city in northern Norway, known for its Arctic cathedral and the midnight sun.", "url": "https://example.org/tromso"}
"#;

/// Decrypted queries in the release's shape: answers, evidence, gold and negative documents (with their text).
const QUERIES: &str = r#"{"query_id": "784", "query": "A novel about a glaciologist wintering near a volcano was written by an author whose debut won a national prize. In which city did the author later teach?", "answer": "Bergen", "evidence_docs": [{"docid": "6021", "text": "The Falcons of Mount Erebus ..."}, {"docid": "118", "text": "Ingrid Halvorsen ..."}], "gold_docs": [{"docid": "118", "text": "Ingrid Halvorsen ..."}], "negative_docs": [{"docid": "9034", "text": "Falcons are ..."}]}
{"query_id": "785", "query": "Which volcano is the southernmost active one on Earth?", "answer": "Mount Erebus", "evidence_docs": [{"docid": "77", "text": "Mount Erebus ..."}], "gold_docs": [{"docid": "77", "text": "Mount Erebus ..."}], "negative_docs": []}
"#;

/// A directory with the data, a suite file on the repository's host, and its index kept beside it.
fn suite_dir(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/corpus.jsonl"), CORPUS).unwrap();
    std::fs::write(dir.path().join("data/decrypted.jsonl"), QUERIES).unwrap();
    let host = repo().join("suites/browsecomp");
    let suite = format!(
        "name = \"bc-test\"\nkind = \"browsecomp\"\nhost = {:?}\ndata = \"data\"\nindex = \"index\"\nk = 5\n{extra}",
        host.to_str().unwrap()
    );
    std::fs::write(dir.path().join("suite.toml"), suite).unwrap();
    dir
}

/// A script of replies, one per attempt (of the agent's holes, or of the judge's gradings), in order.
fn script(dir: &Path, name: &str, replies: &[&str]) -> String {
    let text: String = replies.iter().map(|r| format!("=== reply\n{r}\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
    format!("script:{name}")
}

fn record<'r>(records: &'r [TaskRecord], query: &str) -> &'r TaskRecord {
    records.iter().find(|r| r.task == query).expect("a record of the query")
}

#[test]
fn the_oracle_reads_the_evidence_and_the_judge_grades_its_answers() {
    let dir = suite_dir("");
    let judge = script(dir.path(), "judge.txt", &["extracted_final_answer: x\nreasoning: matches\ncorrect: yes"; 2]);
    let out = bench(dir.path(), &["suite.toml", "--model", "oracle", "--judge-model", &judge, "--out", "runs.jsonl"]);
    let table = ok(&out);
    let records = read_records(&dir.path().join("runs.jsonl")).unwrap();
    assert_eq!(records.len(), 2, "{table}");
    for r in &records {
        let query = r.retrieval.as_ref().expect("a retrieval record");
        assert!(r.solved && r.error.is_none(), "{r:?}");
        assert_eq!(query.correct, Some(true), "{r:?}");
        assert_eq!(query.evidence_recall, 1.0, "{r:?}");
        assert_eq!((query.searches, query.documents_read), (1, query.evidence), "{r:?}");
        assert_eq!((r.turns, r.generations, r.rejected), (1, 1, 0), "{r:?}");
        assert!(query.answer.as_deref().is_some_and(|a| a.contains("Exact Answer:")), "{r:?}");
    }
    // The oracle's answer is the query's own.
    let bergen = record(&records, "784").retrieval.as_ref().unwrap();
    assert!(bergen.answer.as_deref().unwrap().contains("Exact Answer: Bergen"), "{bergen:?}");
    assert!(table.contains("bc-test") && table.contains("acc %"), "{table}");
    // The index was built once, beside the suite, and is reused.
    assert_eq!(std::fs::read_dir(dir.path().join("index")).unwrap().count(), 1);
}

/// The first query's model: code that reaches for the index's own crate (denied: not in the host's allowed
/// crates), then code of the wrong type, then code that searches and hands what it found to a hole of its own,
/// whose code reads a document and answers. The second query's model answers without looking.
const RESEARCH: [&str; 4] = [
    "```rust\nlet index = lacuna_retrieval::Index::open(std::path::Path::new(\"index\")).unwrap();\nformat!(\"{}\", index.len())\n```",
    "```rust\nlet hits = search(\"glaciologist volcano novel\", 5);\nhits.len()\n```",
    "```rust\nlet hits = search(\"glaciologist Antarctic station novel\", 1);\nlet found: Vec<String> = hits.iter().map(|h| format!(\"{} ({}): {}\", h.docid, h.url, h.snippet)).collect();\nagent!(format!(\"Who wrote the novel in these hits, and where did they later teach?\\n{}\", found.join(\"\\n\")))\n    .unwrap_or_else(|e| format!(\"Exact Answer: none ({e})\"))\n```",
    "```rust\nlet page = get_document(\"118\").map(|d| d.text).unwrap_or_default();\nlet city = if page.contains(\"Bergen\") { \"Bergen\" } else { \"unknown\" };\nformat!(\"Explanation: the author's page says where she taught.\\nExact Answer: {city}\\nConfidence: 70%\")\n```",
];

#[test]
fn rounds_rejections_searches_and_recall_are_counted_as_table_1_counts_them() {
    let dir = suite_dir("");
    let d = dir.path();
    let agent = script(d, "research.txt", &RESEARCH);
    let judge = script(d, "judge1.txt", &["extracted_final_answer: Bergen\nreasoning: the same city\ncorrect: yes"]);
    let first = ["suite.toml", "--model", &agent, "--judge-model", &judge, "--task", "784", "--out", "runs.jsonl"];
    ok(&bench(d, &first));
    let guess = script(
        d,
        "guess.txt",
        &["```rust\n\"Explanation: a guess.\\nExact Answer: Etna\\nConfidence: 10%\".to_string()\n```"],
    );
    let judge =
        script(d, "judge2.txt", &["extracted_final_answer: Etna\nreasoning: Etna is not Mount Erebus\ncorrect: no"]);
    let second =
        ["suite.toml", "--model", &guess, "--judge-model", &judge, "--task", "785", "--out", "runs.jsonl", "--resume"];
    ok(&bench(d, &second));

    let records = read_records(&d.join("runs.jsonl")).unwrap();
    let researched = record(&records, "784");
    let query = researched.retrieval.as_ref().unwrap();
    assert!(researched.solved && query.correct == Some(true), "{researched:?}");
    // Two rounds (the query's hole and the one its code opened), four generations, two of them rejected: first
    // by safe mode (the index's crate is not the snippet's to name), then by the type checker.
    assert_eq!((researched.turns, researched.turns_compiled), (2, 2), "{researched:?}");
    assert_eq!((researched.generations, researched.rejected), (4, 2), "{researched:?}");
    let kinds: Vec<&Vec<String>> = researched.rejections.iter().map(|r| &r.kinds).collect();
    assert!(kinds[0].iter().all(|k| k == "L0101") && kinds[1] == &["E0308"], "{kinds:?}");
    // One search (top 1: the novel's page), one document read (the author's): both evidence documents.
    assert_eq!((query.searches, query.documents_read), (1, 1), "{query:?}");
    assert_eq!(query.retrieved, ["6021", "118"], "{query:?}");
    assert_eq!(query.evidence_recall, 1.0);
    let guessed = record(&records, "785");
    let query = guessed.retrieval.as_ref().unwrap();
    assert!(!guessed.solved && query.correct == Some(false), "{guessed:?}");
    assert_eq!((query.searches, query.evidence_recall, guessed.turns), (0, 0.0, 1), "{guessed:?}");

    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["bench", "report", "runs.jsonl"])
        .current_dir(d)
        .output()
        .expect("lacuna bench report runs");
    expect_test::expect![[r#"
        suite    queries  acc %  recall %  searches  rounds  rejected %  #retry  compile %
        -------  -------  -----  --------  --------  ------  ----------  ------  ---------
        bc-test        2   50.0      50.0       0.5     1.5        40.0    1.00      100.0
        bc-test: 50.0% of queries needed no retry
        bc-test: rejections by kind: L0101 3, E0308 1
    "#]]
    .assert_eq(&ok(&out));
}

#[test]
fn bad_suites_and_budgets_say_what_happened() {
    // No data: the error says where to get it.
    let dir = suite_dir("");
    std::fs::remove_file(dir.path().join("data/corpus.jsonl")).unwrap();
    let out = bench(dir.path(), &["suite.toml", "--model", "oracle"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("no corpus.jsonl") && stderr.contains("docs/bench.md"), "{stderr}");
    // A query over its wall clock is stopped and recorded with why; no judge, so the table says nothing was graded.
    let dir = suite_dir("time_limit_s = 1\n");
    let out = bench(dir.path(), &["suite.toml", "--model", "oracle", "--task", "785", "--out", "runs.jsonl"]);
    let table = ok(&out);
    let records = read_records(&dir.path().join("runs.jsonl")).unwrap();
    let error = records[0].error.as_deref().unwrap_or_default();
    assert!(error.contains("wall-clock budget (1 s)"), "{records:?}");
    assert!(table.contains("bc-test: 1 query(ies) stopped on an error"), "{table}");
    // A user model has no place here.
    let out = bench(dir.path(), &["suite.toml", "--model", "oracle", "--user-model", "script:x.txt"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no user"), "{out:?}");
}
