// hole: 4
// expect: rejected E0728
// (hole 4 is in a plain function)
let units = tokio::time::timeout(std::time::Duration::from_millis(5), async { skus.len() }).await;
format!("Stock of {} skus", units.unwrap_or(0))
