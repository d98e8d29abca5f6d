//! A remote inventory, as a client of one looks: every lookup is a round trip.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupError {
    UnknownSku(String),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::UnknownSku(sku) => write!(f, "no such sku: {sku}"),
        }
    }
}

pub struct Inventory {
    stock: HashMap<String, u32>,
    round_trip: Duration,
}

impl Inventory {
    pub fn sample() -> Inventory {
        let stock = [("bolt", 40), ("nut", 0), ("gear", 3)].into_iter().map(|(s, n)| (s.to_string(), n)).collect();
        Inventory { stock, round_trip: Duration::from_millis(40) }
    }

    /// Units in stock for one sku.
    pub async fn stock(&self, sku: &str) -> Result<u32, LookupError> {
        tokio::time::sleep(self.round_trip).await;
        self.stock.get(sku).copied().ok_or_else(|| LookupError::UnknownSku(sku.to_string()))
    }
}
