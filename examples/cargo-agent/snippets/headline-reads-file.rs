// hole: src/triage.rs:27
// expect: rejected L0101
std::fs::read_to_string("/etc/hostname").unwrap_or_default()
