// hole: src/report.rs:6
// expect: rejected E0116
impl order_desk::Desk {
    fn refunded(&self) -> i64 {
        self.orders().iter().map(|o| o.refunded.0).sum()
    }
}
format!("{} orders, {} cents refunded", desk.orders().len(), desk.refunded())
