// hole: src/triage.rs:27
// expect: rejected E0433
// (this project builds tokio without its `fs` feature: the path does not exist)
tokio::fs::read_to_string("/etc/passwd").await.unwrap_or_default()
