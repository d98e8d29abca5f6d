// hole: src/report.rs:6
// expect: rejected E0603
let total = desk.orders().iter().fold(order_desk::desk::Cents(0), |sum, o| sum + o.total);
format!("{} orders worth {total}", desk.orders().len())
