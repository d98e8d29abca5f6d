//! Paper, sections 1 and 3.3: the model's code has holes of its own. The reply for the report researches each
//! topic in parallel, one nested hole per topic on its own thread, then asks one more nested hole to write the
//! report from the findings. Each nested hole is checked against its own scope: the program's bindings plus the
//! locals the outer code introduced (`topic`, `findings`), and its own type.

fn main() {
    let topics: Vec<String> = vec!["LLM".into(), "world models".into(), "transformer".into()];
    let report: String = agent!("Research each topic and generate a report on their connections.")
        .unwrap_or_else(|e| format!("no report: {e}"));
    println!("{report}");
}
