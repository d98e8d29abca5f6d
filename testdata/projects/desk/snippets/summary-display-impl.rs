// hole: src/report.rs:6
// expect: rejected E0117
impl std::fmt::Display for order_desk::Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} orders", self.orders().len())
    }
}
desk.to_string()
