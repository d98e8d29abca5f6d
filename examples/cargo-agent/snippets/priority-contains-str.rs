// hole: src/triage.rs:16
// expect: rejected E0308
if issue.labels.contains("bug") { Priority::Normal } else { Priority::Low }
