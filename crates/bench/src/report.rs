//! Records merged (across shards, reruns: the last record of a task wins) into the table the paper prints.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::record::TaskRecord;

/// One suite's line of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteRow {
    pub suite: String,
    pub tasks: usize,
    pub solved: usize,
    pub solved_pct: f64,
    pub generations: u64,
    pub rejected: u64,
    /// Share of generations the checker rejected.
    pub rejected_pct: f64,
    /// Rejected generations per task.
    pub regenerations_per_task: f64,
    /// Share of agent turns whose code was eventually accepted and ran.
    pub compile_success_pct: f64,
    pub mean_turns: f64,
    pub mean_tool_calls: f64,
    /// Tasks that stopped on an error (worker, setup, verdict), counted unsolved.
    pub errors: usize,
    /// Tasks scored on `NL_ASSERTION` that no judge model graded (scored on their other bases alone).
    pub nl_unjudged: usize,
    /// Diagnostic kinds of the rejected generations, most frequent first.
    pub rejection_kinds: Vec<(String, u64)>,
}

/// One retrieval suite's line of the table (the paper's Table 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievalRow {
    pub suite: String,
    pub queries: usize,
    /// Queries a judge graded (an answer that never came counts as graded wrong).
    pub graded: usize,
    pub correct: usize,
    /// Correct answers among the graded queries; `None` when no query was graded (no `--judge-model`).
    pub accuracy_pct: Option<f64>,
    /// Mean recall of a query's evidence documents among those its tools returned.
    pub recall_pct: f64,
    pub searches_per_query: f64,
    /// Hole calls per query: the query's own and every nested one.
    pub rounds_per_query: f64,
    pub generations: u64,
    pub rejected: u64,
    pub rejected_pct: f64,
    /// Compile-rejected regenerations per query (Table 1's `#retry`).
    pub retries_per_query: f64,
    /// Queries with no rejected generation.
    pub no_retry_pct: f64,
    /// Rounds whose code was eventually accepted and ran.
    pub compile_success_pct: f64,
    pub errors: usize,
    pub rejection_kinds: Vec<(String, u64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// τ²-bench suites (Table 2's shape).
    pub rows: Vec<SuiteRow>,
    /// All τ² suites' tasks pooled into one row (the paper's "overall"), when there is more than one suite.
    pub overall: Option<SuiteRow>,
    /// Retrieval suites (Table 1's shape).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retrieval: Vec<RetrievalRow>,
}

impl Report {
    pub fn from_records(records: impl IntoIterator<Item = TaskRecord>) -> Report {
        let mut latest: BTreeMap<(String, String), TaskRecord> = BTreeMap::new();
        for record in records {
            latest.insert((record.suite.clone(), record.task.clone()), record);
        }
        let (mut by_suite, mut retrieval): (BTreeMap<String, Vec<TaskRecord>>, BTreeMap<String, Vec<TaskRecord>>) =
            Default::default();
        for ((suite, _), record) in latest {
            let kind = if record.retrieval.is_some() { &mut retrieval } else { &mut by_suite };
            kind.entry(suite).or_default().push(record);
        }
        let overall = (by_suite.len() > 1).then(|| {
            let all: Vec<TaskRecord> = by_suite.values().flatten().cloned().collect();
            row("overall".to_owned(), &all)
        });
        Report {
            rows: by_suite.into_iter().map(|(suite, records)| row(suite, &records)).collect(),
            overall,
            retrieval: retrieval.into_iter().map(|(suite, records)| retrieval_row(suite, &records)).collect(),
        }
    }

    /// The tables as text: τ²'s suites, then retrieval suites.
    pub fn table(&self) -> String {
        let mut out = if self.rows.is_empty() { String::new() } else { self.tau2_table() };
        if !self.retrieval.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&self.retrieval_table());
        }
        out
    }

    fn retrieval_table(&self) -> String {
        let header =
            ["suite", "queries", "acc %", "recall %", "searches", "rounds", "rejected %", "#retry", "compile %"];
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for r in &self.retrieval {
            lines.push(vec![
                r.suite.clone(),
                r.queries.to_string(),
                r.accuracy_pct.map_or("-".to_owned(), |a| format!("{a:.1}")),
                format!("{:.1}", r.recall_pct),
                format!("{:.1}", r.searches_per_query),
                format!("{:.1}", r.rounds_per_query),
                format!("{:.1}", r.rejected_pct),
                format!("{:.2}", r.retries_per_query),
                format!("{:.1}", r.compile_success_pct),
            ]);
        }
        let mut out = columns(&lines, false);
        for r in &self.retrieval {
            if r.graded < r.queries {
                out.push_str(&format!(
                    "{}: {} of {} answers not graded (no --judge-model): acc % is over the graded ones\n",
                    r.suite,
                    r.queries - r.graded,
                    r.queries
                ));
            }
            if r.errors > 0 {
                out.push_str(&format!("{}: {} query(ies) stopped on an error (counted wrong)\n", r.suite, r.errors));
            }
            out.push_str(&format!("{}: {:.1}% of queries needed no retry\n", r.suite, r.no_retry_pct));
            if !r.rejection_kinds.is_empty() {
                let kinds: Vec<String> = r.rejection_kinds.iter().take(8).map(|(k, n)| format!("{k} {n}")).collect();
                out.push_str(&format!("{}: rejections by kind: {}\n", r.suite, kinds.join(", ")));
            }
        }
        out
    }

    fn tau2_table(&self) -> String {
        let header = ["suite", "tasks", "solved %", "rejected %", "regen/task", "compile %", "turns", "tool calls"];
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for r in self.rows.iter().chain(&self.overall) {
            lines.push(vec![
                r.suite.clone(),
                r.tasks.to_string(),
                format!("{:.1}", r.solved_pct),
                format!("{:.1}", r.rejected_pct),
                format!("{:.2}", r.regenerations_per_task),
                format!("{:.1}", r.compile_success_pct),
                format!("{:.1}", r.mean_turns),
                format!("{:.1}", r.mean_tool_calls),
            ]);
        }
        let mut out = columns(&lines, self.overall.is_some());
        for r in &self.rows {
            if r.errors > 0 {
                out.push_str(&format!("{}: {} task(s) stopped on an error (counted unsolved)\n", r.suite, r.errors));
            }
            if r.nl_unjudged > 0 {
                out.push_str(&format!(
                    "{}: {} task(s) scored without their NL_ASSERTION basis (no --judge-model)\n",
                    r.suite, r.nl_unjudged
                ));
            }
            if !r.rejection_kinds.is_empty() {
                let kinds: Vec<String> = r.rejection_kinds.iter().take(8).map(|(k, n)| format!("{k} {n}")).collect();
                out.push_str(&format!("{}: rejections by kind: {}\n", r.suite, kinds.join(", ")));
            }
        }
        out
    }
}

/// Lines of cells as aligned columns under a ruled header; `pooled`: the last line is set off by a rule.
fn columns(lines: &[Vec<String>], pooled: bool) -> String {
    let width = lines.first().map_or(0, Vec::len);
    let widths: Vec<usize> =
        (0..width).map(|c| lines.iter().map(|l| l[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(
                |(c, cell)| {
                    if c == 0 {
                        format!("{cell:<w$}", w = widths[c])
                    } else {
                        format!("{cell:>w$}", w = widths[c])
                    }
                },
            )
            .collect();
        // The pooled row, set off from the suites' rows.
        if n == lines.len() - 1 && pooled {
            out.push_str(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
            out.push('\n');
        }
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if n == 0 {
            out.push_str(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
            out.push('\n');
        }
    }
    out
}

/// Solved % and rejected % per suite as a grouped bar chart.
pub fn svg(report: &Report) -> String {
    let (bar, gap, left, top, height) = (28.0, 36.0, 48.0, 28.0, 200.0);
    let width = left + report.rows.len() as f64 * (2.0 * bar + gap) + gap;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" font-family=\"sans-serif\" \
         font-size=\"11\">\n",
        top + height + 48.0
    );
    for tick in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let y = top + height * (1.0 - tick / 100.0);
        out.push_str(&format!(
            "<line x1=\"{left}\" x2=\"{width}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{tick}%</text>\n",
            left - 4.0,
            y + 4.0
        ));
    }
    for (k, row) in report.rows.iter().enumerate() {
        let x = left + gap + k as f64 * (2.0 * bar + gap);
        for (n, (value, color)) in [(row.solved_pct, "#2b8a3e"), (row.rejected_pct, "#c92a2a")].into_iter().enumerate()
        {
            let h = height * value.clamp(0.0, 100.0) / 100.0;
            let bx = x + n as f64 * bar;
            out.push_str(&format!(
                "<rect x=\"{bx}\" y=\"{}\" width=\"{}\" height=\"{h}\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\" \
                 text-anchor=\"middle\">{value:.0}</text>\n",
                top + height - h,
                bar - 2.0,
                bx + bar / 2.0,
                top + height - h - 3.0
            ));
        }
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            x + bar,
            top + height + 16.0,
            escape(&row.suite)
        ));
    }
    out.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\"><tspan fill=\"#2b8a3e\">■ solved %</tspan>  <tspan fill=\"#c92a2a\">■ \
         generations rejected %</tspan></text>\n</svg>\n",
        top + height + 38.0
    ));
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

fn kind_counts(records: &[TaskRecord]) -> Vec<(String, u64)> {
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for kind in records.iter().flat_map(|r| &r.rejections).flat_map(|r| &r.kinds) {
        *kinds.entry(kind.clone()).or_insert(0) += 1;
    }
    let mut counted: Vec<(String, u64)> = kinds.into_iter().collect();
    counted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counted
}

fn retrieval_row(suite: String, records: &[TaskRecord]) -> RetrievalRow {
    let queries = records.len();
    let n = queries.max(1) as f64;
    let parts: Vec<&crate::record::RetrievalRecord> = records.iter().filter_map(|r| r.retrieval.as_ref()).collect();
    let graded = records
        .iter()
        .filter(|r| r.error.is_some() || r.retrieval.as_ref().is_some_and(|q| q.correct.is_some()))
        .count();
    let correct = parts.iter().filter(|q| q.correct == Some(true)).count();
    let generations: u64 = records.iter().map(|r| r.generations as u64).sum();
    let rejected: u64 = records.iter().map(|r| r.rejected as u64).sum();
    let rounds: u64 = records.iter().map(|r| r.turns as u64).sum();
    let compiled: u64 = records.iter().map(|r| r.turns_compiled as u64).sum();
    RetrievalRow {
        suite,
        queries,
        graded,
        correct,
        accuracy_pct: (graded > 0).then(|| pct(correct as f64, graded as f64)),
        recall_pct: 100.0 * parts.iter().map(|q| q.evidence_recall).sum::<f64>() / n,
        searches_per_query: parts.iter().map(|q| q.searches as f64).sum::<f64>() / n,
        rounds_per_query: rounds as f64 / n,
        generations,
        rejected,
        rejected_pct: pct(rejected as f64, generations as f64),
        retries_per_query: rejected as f64 / n,
        no_retry_pct: pct(records.iter().filter(|r| r.rejected == 0).count() as f64, queries as f64),
        compile_success_pct: pct(compiled as f64, rounds as f64),
        errors: records.iter().filter(|r| r.error.is_some()).count(),
        rejection_kinds: kind_counts(records),
    }
}

fn row(suite: String, records: &[TaskRecord]) -> SuiteRow {
    let tasks = records.len();
    let n = tasks.max(1) as f64;
    let solved = records.iter().filter(|r| r.solved).count();
    let generations: u64 = records.iter().map(|r| r.generations as u64).sum();
    let rejected: u64 = records.iter().map(|r| r.rejected as u64).sum();
    let turns: u64 = records.iter().map(|r| r.turns as u64).sum();
    let compiled: u64 = records.iter().map(|r| r.turns_compiled as u64).sum();
    let rejection_kinds = kind_counts(records);
    SuiteRow {
        suite,
        tasks,
        solved,
        solved_pct: pct(solved as f64, tasks as f64),
        generations,
        rejected,
        rejected_pct: pct(rejected as f64, generations as f64),
        regenerations_per_task: rejected as f64 / n,
        compile_success_pct: pct(compiled as f64, turns as f64),
        mean_turns: turns as f64 / n,
        mean_tool_calls: records.iter().map(|r| r.tool_calls as f64).sum::<f64>() / n,
        errors: records.iter().filter(|r| r.error.is_some()).count(),
        nl_unjudged: records.iter().filter(|r| r.nl_unjudged).count(),
        rejection_kinds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Rejection;

    fn record(task: &str, solved: bool, generations: u32, rejected: &[&[&str]]) -> TaskRecord {
        TaskRecord {
            suite: "s".into(),
            task: task.into(),
            solved,
            turns: 1,
            turns_compiled: u32::from(generations as usize > rejected.len()),
            generations,
            rejected: rejected.len() as u32,
            rejections: rejected
                .iter()
                .map(|kinds| Rejection { turn: 1, kinds: kinds.iter().map(|k| k.to_string()).collect() })
                .collect(),
            tool_calls: 4,
            ..TaskRecord::default()
        }
    }

    #[test]
    fn columns_count_generations_and_the_last_record_of_a_task_wins() {
        let records = vec![
            record("1", false, 3, &[&["E0308"], &["E0308", "E0599"], &["E0425"]]),
            record("2", true, 2, &[&["E0308"]]),
            record("3", true, 1, &[]),
            record("1", true, 1, &[]), // a rerun of task 1
        ];
        let row = &Report::from_records(records).rows[0];
        assert_eq!((row.tasks, row.solved, row.generations, row.rejected), (3, 3, 4, 1));
        assert_eq!(row.rejected_pct, 25.0);
        assert!((row.regenerations_per_task - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(row.compile_success_pct, 100.0);
        assert_eq!(row.rejection_kinds, vec![("E0308".to_string(), 1)]);
        assert!(Report::from_records(vec![record("1", true, 1, &[])]).overall.is_none());
    }

    #[test]
    fn suites_pool_into_an_overall_row_weighted_by_tasks() {
        let mut records = vec![record("1", true, 1, &[]), record("2", false, 2, &[&["E0308"]])];
        for task in ["1", "2", "3", "4"] {
            records.push(TaskRecord { suite: "t".into(), ..record(task, task == "1", 1, &[]) });
        }
        let report = Report::from_records(records);
        let overall = report.overall.as_ref().expect("two suites");
        assert_eq!((overall.tasks, overall.solved, overall.generations, overall.rejected), (6, 2, 7, 1));
        assert!((overall.solved_pct - 100.0 / 3.0).abs() < 1e-9);
        expect_test::expect![[r#"
            suite    tasks  solved %  rejected %  regen/task  compile %  turns  tool calls
            -------  -----  --------  ----------  ----------  ---------  -----  ----------
            s            2      50.0        33.3        0.50      100.0    1.0         4.0
            t            4      25.0         0.0        0.00      100.0    1.0         4.0
            -------  -----  --------  ----------  ----------  ---------  -----  ----------
            overall      6      33.3        14.3        0.17      100.0    1.0         4.0
            s: rejections by kind: E0308 1
        "#]]
        .assert_eq(&report.table());
    }
}
