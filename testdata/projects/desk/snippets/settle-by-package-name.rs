// hole: src/desk/mod.rs:54
// expect: rejected E0433
let half = order_desk::Cents(self.find(2).map_or(0, |o| o.total.0 / 2));
match self.refund(2, half) {
    Ok(left) => format!("refunded {half} of order 2 ({complaint}); {left} left"),
    Err(e) => format!("no refund: {e}"),
}
