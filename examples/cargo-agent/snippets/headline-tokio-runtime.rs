// hole: src/triage.rs:27
// expect: rejected L0101
let handle = tokio::runtime::Handle::current();
handle.block_on(async { issue.title.clone() })
