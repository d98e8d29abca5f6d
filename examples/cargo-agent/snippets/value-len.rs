// hole: src/triage.rs:21
// expect: rejected E0599
let v = serde_json::to_value(issue).unwrap();
vec![v.len().to_string()]
