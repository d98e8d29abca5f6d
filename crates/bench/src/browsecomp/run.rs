//! One query, one process: `lacuna run` on the host project with the query's question, under the suite's wall
//! clock; its trace (one line per attempt, nested holes included) and the host's output file make the record.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lacuna_hole::{AttemptRecord, Outcome};
use lacuna_retrieval::{evidence_recall, Index, Query};
use serde::Deserialize;
use serde_json::Value;

use super::{judge, oracle_reply, RetrievalSuite};
use crate::record::{Rejection, RetrievalRecord, TaskRecord};
use crate::runner::{Agent, RunOptions};
use crate::BenchError;

/// Runs `queries` on `options.jobs` processes at once; `on_record` sees each record as its query finishes (in the
/// calling thread). The index is built first (once per corpus file, then kept under the suite's cache).
pub fn run(
    suite: &RetrievalSuite,
    queries: Vec<Query>,
    options: &RunOptions,
    on_record: impl FnMut(&TaskRecord) -> Result<(), BenchError>,
) -> Result<Vec<TaskRecord>, BenchError> {
    let index =
        Index::open_or_build(&suite.corpus, &suite.index_cache).map_err(|e| BenchError::Suite(e.to_string()))?;
    let index_dir = index.path().to_path_buf();
    drop(index);
    let scratch = tempfile::Builder::new()
        .prefix("lacuna-browsecomp-")
        .tempdir()
        .map_err(|source| BenchError::Io { path: "a temporary directory".into(), source })?;
    let scratch = scratch.path();
    let work = |_: &mut (), query: Query| run_query(suite, &index_dir, &query, options, scratch);
    crate::runner::pool(queries, options.jobs, || (), work, on_record)
}

/// What the host writes to `--out`.
#[derive(Deserialize)]
struct HostOutput {
    answer: Option<String>,
    error: Option<String>,
    calls: Vec<Value>,
}

/// One query's run and its record; a query that could not be run is a record with its `error`.
pub fn run_query(
    suite: &RetrievalSuite,
    index_dir: &Path,
    query: &Query,
    options: &RunOptions,
    scratch: &Path,
) -> TaskRecord {
    let started = Instant::now();
    let mut record = TaskRecord {
        suite: suite.name.clone(),
        task: query.query_id.clone(),
        agent: options.agent.describe(),
        ..TaskRecord::default()
    };
    let safe: String = query.query_id.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let file = |what: &str| scratch.join(format!("{safe}.{what}"));
    let (question, out, trace, log) = (file("question.txt"), file("out.json"), file("trace.jsonl"), file("log"));
    let model = match &options.agent {
        Agent::Model(spec) => spec.clone(),
        Agent::Oracle => {
            let script = file("oracle.txt");
            if let Err(e) = std::fs::write(&script, oracle_reply(query, suite.k)) {
                record.error = Some(format!("writing {}: {e}", script.display()));
                return record;
            }
            format!("script:{}", script.display())
        }
    };
    for stale in [&out, &trace] {
        let _ = std::fs::remove_file(stale);
    }
    if let Err(e) = std::fs::write(&question, &query.query) {
        record.error = Some(format!("writing {}: {e}", question.display()));
        return record;
    }
    let ran = run_host(suite, options, &model, index_dir, &question, &out, &trace, &log);
    let attempts = read_trace(&trace);
    count_attempts(&mut record, &attempts);
    let output: Option<HostOutput> =
        std::fs::read_to_string(&out).ok().and_then(|text| serde_json::from_str(&text).ok());
    let mut retrieval = RetrievalRecord { evidence: query.evidence_ids().len() as u32, ..RetrievalRecord::default() };
    match (ran, output) {
        (Err(why), _) => record.error = Some(why),
        (Ok(()), None) => {
            record.error = Some(format!("the host wrote no answer: {}", tail(&log)));
        }
        (Ok(()), Some(output)) => {
            tools(&mut retrieval, &output.calls);
            record.tool_calls = output.calls.len() as u64;
            retrieval.answer = output.answer;
            retrieval.hole_error = output.error;
        }
    }
    let retrieved = retrieval.retrieved.iter().map(String::as_str);
    retrieval.evidence_recall = evidence_recall(&query.evidence_ids(), retrieved);
    if record.error.is_none() {
        match (&retrieval.answer, &options.judge) {
            // No answer (the hole's error) is a wrong one, judge or not.
            (None, _) => retrieval.correct = Some(false),
            (Some(answer), Some(j)) => match judge::grade(j, &query.query, answer, &query.answer) {
                Ok((grade, tokens)) => {
                    retrieval.correct = Some(grade.correct);
                    retrieval.grade = Some(grade);
                    if let Some(n) = tokens {
                        *record.tokens.get_or_insert(0) += n;
                    }
                }
                Err(e) => record.error = Some(e),
            },
            (Some(_), None) => {}
        }
    }
    record.solved = retrieval.correct == Some(true);
    record.reward = if record.solved { 1.0 } else { 0.0 };
    record.retrieval = Some(retrieval);
    record.time_ms.wall = started.elapsed().as_secs_f64() * 1000.0;
    record
}

/// `lacuna run` on the host; `Err` says why it did not finish (the wall clock, a failed start, a bad exit).
#[allow(clippy::too_many_arguments)]
fn run_host(
    suite: &RetrievalSuite,
    options: &RunOptions,
    model: &str,
    index_dir: &Path,
    question: &Path,
    out: &Path,
    trace: &Path,
    log: &Path,
) -> Result<(), String> {
    let log_file = std::fs::File::create(log).map_err(|e| format!("creating {}: {e}", log.display()))?;
    let stderr = log_file.try_clone().map_err(|e| format!("sharing {}: {e}", log.display()))?;
    let mut command = Command::new(&options.program);
    command
        .arg("run")
        .arg("--manifest-path")
        .arg(suite.host.join("Cargo.toml"))
        .args(["--model", model])
        .arg("--trace")
        .arg(trace)
        .args(["--max-depth", &suite.max_depth.to_string()])
        .args(&options.worker_args)
        .arg("--")
        .arg("--index")
        .arg(index_dir)
        .arg("--question")
        .arg(question)
        .arg("--out")
        .arg(out)
        .args(["--k", &suite.k.to_string()])
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(stderr);
    let mut child = command.spawn().map_err(|e| format!("cannot start {}: {e}", options.program.display()))?;
    let deadline = Instant::now() + suite.time_limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("`lacuna run` on the host failed ({status}): {}", tail(log))),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("over the query's wall-clock budget ({} s)", suite.time_limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for `lacuna run`: {e}")),
        }
    }
}

/// The last lines of a log, for an error message.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(6)..].join("\n")
}

/// The attempts a run's trace holds (none when it wrote no trace).
fn read_trace(trace: &Path) -> Vec<AttemptRecord> {
    let text = std::fs::read_to_string(trace).unwrap_or_default();
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

/// Rounds (hole calls, the query's own and every nested one), generations, rejections, faults and times.
fn count_attempts(record: &mut TaskRecord, attempts: &[AttemptRecord]) {
    // A call's attempts share its site and depth; a first attempt there begins a new call.
    let mut call_of: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for attempt in attempts {
        let key = (attempt.site, attempt.depth);
        if attempt.attempt == 1 || !call_of.contains_key(&key) {
            record.turns += 1;
            call_of.insert(key, record.turns);
        }
        let call = call_of[&key];
        if attempt.snippet.is_some() || attempt.outcome == Outcome::NoCode {
            record.generations += 1;
        }
        match attempt.outcome {
            Outcome::Rejected | Outcome::NoCode => {
                record.rejected += 1;
                record.rejections.push(Rejection { turn: call, kinds: kinds(&attempt.diagnostics, attempt.outcome) });
            }
            Outcome::Runtime | Outcome::Budget(_) => {
                record.turns_compiled += 1;
                record.faults.push(format!("round {call}: {}", attempt.error.as_deref().unwrap_or("a fault")));
            }
            Outcome::Ok => record.turns_compiled += 1,
            Outcome::Model | Outcome::Depth => {
                record.faults.push(format!("round {call}: {}", attempt.error.as_deref().unwrap_or("no snippet")))
            }
        }
        record.time_ms.model += attempt.timings_ms.model;
        record.time_ms.check += attempt.timings_ms.check;
        record.time_ms.compile += attempt.timings_ms.lower + attempt.timings_ms.compile;
        record.time_ms.run += attempt.timings_ms.run;
        if let Some(n) = attempt.source.get("tokens").and_then(Value::as_u64) {
            *record.tokens.get_or_insert(0) += n;
        }
    }
}

/// A rejected attempt's diagnostic kinds: rustc's codes (`error[E0308]`), else the checker's names
/// (`error[L0110]`), else `error`.
fn kinds(diagnostics: &[String], outcome: Outcome) -> Vec<String> {
    if outcome == Outcome::NoCode {
        return vec!["no-code".to_owned()];
    }
    diagnostics
        .iter()
        .filter_map(|d| {
            let first = d.lines().next()?.trim_start();
            let rest = first.strip_prefix("error")?;
            Some(match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((code, _)) => code.to_owned(),
                None => "error".to_owned(),
            })
        })
        .collect()
}

/// What the tools were asked and returned: searches, documents read, and every document id they handed over.
fn tools(retrieval: &mut RetrievalRecord, calls: &[Value]) {
    let mut seen = BTreeSet::new();
    let mut keep = |id: &str, retrieval: &mut RetrievalRecord| {
        if seen.insert(id.to_owned()) {
            retrieval.retrieved.push(id.to_owned());
        }
    };
    for call in calls {
        if call.get("search").is_some() {
            retrieval.searches += 1;
            for hit in call.get("hits").and_then(Value::as_array).into_iter().flatten() {
                if let Some(id) = hit.as_str() {
                    keep(id, retrieval);
                }
            }
        } else if let Some(id) = call.get("get_document").and_then(Value::as_str) {
            retrieval.documents_read += 1;
            if call.get("found").and_then(Value::as_bool) == Some(true) {
                keep(id, retrieval);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_give_their_codes() {
        let diagnostics = vec![
            "error[E0308]: mismatched types\n --> snippet:1:1".to_owned(),
            "error[L0110]: denied".to_owned(),
            "error: expected expression".to_owned(),
            "warning: unused".to_owned(),
        ];
        assert_eq!(kinds(&diagnostics, Outcome::Rejected), ["E0308", "L0110", "error"]);
        assert_eq!(kinds(&[], Outcome::NoCode), ["no-code"]);
    }

    #[test]
    fn retrieved_documents_are_hits_and_found_documents_once_each() {
        let calls: Vec<Value> = serde_json::from_str(
            r#"[{"search": "a", "k": 5, "hits": ["1", "2"]}, {"get_document": "2", "found": true},
                {"get_document": "9", "found": false}, {"search": "b", "k": 5, "hits": ["3", "1"]}]"#,
        )
        .unwrap();
        let mut retrieval = RetrievalRecord::default();
        tools(&mut retrieval, &calls);
        assert_eq!((retrieval.searches, retrieval.documents_read), (2, 2));
        assert_eq!(retrieval.retrieved, ["1", "2", "3"]);
    }
}
