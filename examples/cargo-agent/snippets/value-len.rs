// hole: src/triage.rs:21
// expect: rejected E0599
// decided-by: rust-analyzer
// (its derives expanded by the toolchain's proc-macro server: `Issue: Serialize` holds, the one error is `len`)
let v = serde_json::to_value(issue).unwrap();
vec![v.len().to_string()]
