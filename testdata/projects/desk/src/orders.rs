//! Orders and money.

use std::fmt;

/// An amount of money in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Cents(pub i64);

impl fmt::Display for Cents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}.{:02}", self.0 / 100, self.0 % 100)
    }
}

impl std::ops::Add for Cents {
    type Output = Cents;
    fn add(self, other: Cents) -> Cents {
        Cents(self.0 + other.0)
    }
}

/// A customer's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Its number.
    pub id: u32,
    /// Who placed it.
    pub customer: String,
    /// What it cost.
    pub total: Cents,
    /// What has been refunded so far.
    pub refunded: Cents,
    /// Notes the desk keeps; not for other crates.
    pub(crate) notes: Vec<String>,
}

impl Order {
    /// A new order, nothing refunded.
    pub fn new(id: u32, customer: &str, total: Cents) -> Order {
        Order { id, customer: customer.to_string(), total, refunded: Cents(0), notes: Vec::new() }
    }

    /// What can still be refunded.
    pub fn refundable(&self) -> Cents {
        Cents(self.total.0 - self.refunded.0)
    }
}

/// A line for the desk's audit trail: the order and its notes.
pub(crate) fn audit(order: &Order) -> String {
    format!("order {} ({}): {}", order.id, order.customer, order.notes.join("; "))
}
