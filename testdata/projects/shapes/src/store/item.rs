#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub count: u32,
    pub price_cents: i64,
}
