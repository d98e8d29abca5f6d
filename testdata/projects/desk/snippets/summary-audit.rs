// hole: src/report.rs:6
// expect: rejected E0603
let lines: Vec<String> = desk.orders().iter().map(order_desk::orders::audit).collect();
lines.join("\n")
