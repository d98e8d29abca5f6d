// hole: 4
// expect: accepted
format!("Stock of {} skus", skus.len())
