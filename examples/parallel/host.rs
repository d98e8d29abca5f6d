//! Paper, appendix F.3: parallel reasoning is ordinary parallel code. Each thread reaches its own hole call; the
//! model requests go out at the same time.

fn read_file(name: &str) -> String {
    match name {
        "a.txt" => "Cranelift compiles the snippet to machine code in well under a millisecond",
        "b.txt" => "rustc checks every snippet against the hole before any of it runs",
        _ => "rejected snippets run nothing and their diagnostics drive a retry",
    }
    .to_owned()
}

fn main() {
    let files = vec!["a.txt", "b.txt", "c.txt"];
    let summaries: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|f| {
                s.spawn(move || {
                    let text = read_file(f);
                    let summary: String =
                        agent!(format!("summarize in four words: {text}")).unwrap_or_else(|e| format!("error: {e}"));
                    summary
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a summary")).collect()
    });
    for (file, summary) in files.iter().zip(&summaries) {
        println!("{file}: {summary}");
    }
}
