// hole: src/report.rs:6
// expect: rejected E0616
format!("{} orders", desk.orders.len())
