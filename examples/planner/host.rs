//! Paper, appendix F.4: planning and task assignment. `agent!(planner, ..)` and `agent!(worker, ..)` go to two
//! models configured in lacuna.toml; the planner plans and synthesizes, the worker handles each sub-task.

#[derive(Debug, Clone)]
struct Subtask {
    category: String,
    amounts: Vec<i64>,
}

#[derive(Debug)]
struct Report {
    total: i64,
    lines: Vec<String>,
}

fn main() {
    let task = "total the expenses per category";
    let expenses: Vec<(&str, i64)> = vec![("food", 12), ("travel", 40), ("food", 8), ("books", 15)];
    let plan: Vec<Subtask> = agent!(planner, format!("plan the steps to {task}")).expect("a plan");
    let parts: Vec<i64> =
        plan.iter().map(|sub| agent!(worker, format!("handle {sub:?}")).unwrap_or(0)).collect();
    let report: Report = agent!(planner, format!("synthesize {parts:?} into a report")).expect("a report");
    println!("{report:#?}");
}
