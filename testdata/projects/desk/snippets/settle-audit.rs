// hole: src/desk/mod.rs:54
// expect: accepted
let trail: Vec<String> = self.orders().iter().map(crate::orders::audit).collect();
format!("{complaint}: {}", trail.join(" | "))
