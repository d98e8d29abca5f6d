// hole: src/desk/mod.rs:54
// expect: accepted
let id: u32 = complaint
    .split_whitespace()
    .find_map(|word| word.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
    .unwrap_or(0);
match self.find(id) {
    None => format!("there is no order {id}"),
    Some(order) => {
        let half = Cents(order.total.0 / 2);
        match self.refund(id, half) {
            Ok(left) => format!("refunded {half} of order {id}, {left} still refundable"),
            Err(e) => format!("could not refund order {id}: {e}"),
        }
    }
}
