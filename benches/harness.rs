//! `lacuna bench`'s own cost, on all of τ²-bench retail replayed from a cassette (no model calls), with `-j 1`
//! against `-j 2`; and the rejection columns checked against rejections the run is known to contain.
//!
//! Run: `cargo bench -p lacuna-cli --bench harness` (`-- --tasks N` for the first N tasks only).
//!
//! 1. A scripted model answers each task with the oracle's code; before every fifth task's answer it first writes
//!    a reply the checker rejects (a field read on a `Result`: E0609). The run is recorded to a cassette.
//! 2. The cassette is replayed with `-j 1`, then `-j 2` (each task its own session in a `serve` worker).
//! 3. Every replayed run must solve every task, with exactly the known rejections in its records and table.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use lacuna_bench::record::read_records;
use lacuna_bench::tau2::code;
use lacuna_bench::{Report, Suite};

#[allow(dead_code)] // not every bench uses every helper
mod common;
use common::percentile;

const REJECTED: &str = "let order = retail.get_order_details(\"#W0000000\");\nlet paid: f64 = \
                        order.payment_history[0].amount;\nformat!(\"{paid}\")";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: Option<usize> = args.iter().position(|a| a == "--tasks").and_then(|i| args.get(i + 1)?.parse().ok());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let suite_file = repo.join("suites/tau2-retail.toml");
    let suite = Suite::load(&suite_file, None).expect("the retail suite and τ²'s data beside the repository");
    let mut tasks = suite.tasks().expect("tasks.json");
    if let Some(n) = limit {
        tasks.truncate(n);
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut script = String::new();
    let mut known_rejections = 0;
    for (k, task) in tasks.iter().enumerate() {
        if k % 5 == 0 {
            script.push_str(&format!("=== reply\n```rust\n{REJECTED}\n```\n"));
            known_rejections += 1;
        }
        let oracle = code::oracle_turn(suite.domain, task).expect("the oracle's code");
        script.push_str(&format!("=== reply\n```rust\n{oracle}\n```\n"));
    }
    std::fs::write(dir.path().join("script.txt"), script).unwrap();
    let ids: Vec<String> = tasks.iter().flat_map(|t| ["--task".to_owned(), t.id.clone()]).collect();
    let bench = |model: &str, jobs: &str, out: &str, extra: &[&str]| -> f64 {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .arg("bench")
            .arg(&suite_file)
            .args(["--model", model, "-j", jobs, "--out", out])
            .args(extra)
            .args(&ids)
            .current_dir(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("lacuna bench runs");
        assert!(status.success(), "lacuna bench --model {model} -j {jobs} failed");
        started.elapsed().as_secs_f64()
    };
    eprintln!("recording {} tasks with a scripted model ...", tasks.len());
    bench("script:script.txt", "1", "recorded.jsonl", &["--record", "cassette.jsonl"]);
    let mut walls = Vec::new();
    for jobs in ["1", "2"] {
        eprintln!("replaying with -j {jobs} ...");
        let out = format!("replay-j{jobs}.jsonl");
        let wall = bench("replay:cassette.jsonl", jobs, &out, &[]);
        let records = read_records(&dir.path().join(&out)).expect("records");
        assert_eq!(records.len(), tasks.len());
        for record in &records {
            assert!(record.solved, "{record:?}");
            let k = tasks.iter().position(|t| t.id == record.task).unwrap();
            let expected = u32::from(k % 5 == 0);
            assert_eq!((record.rejected, record.generations), (expected, 1 + expected), "{record:?}");
            assert!(record.rejections.iter().all(|r| r.kinds == ["E0609"]), "{record:?}");
        }
        let row = Report::from_records(records.clone()).rows.remove(0);
        assert_eq!(row.rejected as usize, known_rejections);
        assert_eq!(row.generations as usize, tasks.len() + known_rejections);
        assert_eq!(row.compile_success_pct, 100.0);
        let spent: Vec<f64> = records.iter().map(|r| r.time_ms.check + r.time_ms.compile + r.time_ms.run).collect();
        let task_wall: Vec<f64> = records.iter().map(|r| r.time_ms.wall).collect();
        println!(
            "-j {jobs}: {} tasks in {wall:.1} s ({:.2} tasks/s); per task: lacuna (check+compile+run) p50 {:.0} ms, \
             p90 {:.0} ms; task wall p50 {:.0} ms, p90 {:.0} ms; solved {}/{}; rejected {:.1}% of generations, \
             {:.2} regenerations/task",
            tasks.len(),
            tasks.len() as f64 / wall,
            percentile(&spent, 50.0),
            percentile(&spent, 90.0),
            percentile(&task_wall, 50.0),
            percentile(&task_wall, 90.0),
            row.solved,
            row.tasks,
            row.rejected_pct,
            row.regenerations_per_task
        );
        walls.push(wall);
    }
    println!("speed-up of -j 2 over -j 1: {:.2}x", walls[0] / walls[1]);
}
