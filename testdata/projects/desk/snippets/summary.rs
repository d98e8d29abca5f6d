// hole: src/report.rs:6
// expect: accepted
let refunded = desk.orders().iter().fold(order_desk::Cents(0), |sum, o| sum + o.refunded);
format!("{} orders, {} refunded", desk.orders().len(), refunded)
