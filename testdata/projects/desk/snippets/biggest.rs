// hole: src/lib.rs:22
// expect: accepted
orders.iter().max_by_key(|o| o.total).map(|o| o.id)
