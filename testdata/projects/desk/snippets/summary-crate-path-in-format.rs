// hole: src/report.rs:6
// expect: rejected E0433
format!("{} orders, none below {}", desk.orders().len(), crate::orders::Cents(0))
