// hole: src/report.rs:6
// expect: rejected E0603
format!("{} orders, none below {}", desk.orders().len(), order_desk::desk::Cents(0))
