// hole: src/desk/mod.rs:54
// expect: rejected E0502
let order = self.find(2).unwrap();
let _ = self.refund(2, Cents(order.total.0 / 2));
format!("refunded half of order {}", order.id)
