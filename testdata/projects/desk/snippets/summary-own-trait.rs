// hole: src/report.rs:6
// expect: accepted
trait Refunded {
    fn refunded(&self) -> order_desk::Cents;
}
impl Refunded for order_desk::Desk {
    fn refunded(&self) -> order_desk::Cents {
        self.orders().iter().fold(order_desk::Cents::default(), |sum, o| sum + o.refunded)
    }
}
format!("{} orders, {} refunded", desk.orders().len(), desk.refunded())
