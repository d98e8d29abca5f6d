// hole: src/triage.rs:27
// expect: rejected L0101
tokio::time::sleep(std::time::Duration::from_millis(1)).await;
issue.title.clone()
