// hole: src/lib.rs:22
// expect: rejected E0277
orders.iter().max_by_key(|o| o.total.0 as f64).map(|o| o.id)
