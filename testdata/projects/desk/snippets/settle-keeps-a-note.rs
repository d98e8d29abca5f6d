// hole: src/desk/mod.rs:54
// expect: accepted
let order = self.orders.iter_mut().find(|o| o.customer == "grace");
match order {
    Some(order) => {
        order.notes.push(complaint.to_string());
        format!("noted for order {}", order.id)
    }
    None => "no order from grace".to_string(),
}
