// hole: src/report.rs:6
// expect: rejected E0433
let refunded = desk.orders().iter().fold(crate::orders::Cents(0), |sum, o| sum + o.refunded);
format!("{} orders, {refunded} refunded", desk.orders().len())
