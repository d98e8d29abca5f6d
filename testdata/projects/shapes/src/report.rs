use std::fmt;

use crate::store::Inventory;

pub struct Summary<'a>(pub &'a Inventory);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: String = lacuna::agent!("one line: how many items, and the stock's total value in dollars with two decimals")
            .unwrap_or_else(|e| format!("no summary: {e}"));
        write!(f, "{text}")
    }
}
