//! The desk: its orders, the refunds it made, and an agent for complaints.

mod refunds;

use crate::orders::{Cents, Order};
use lacuna::{agent, HoleError};

pub use refunds::RefundError;

/// Orders and what happened to them.
#[derive(Debug, Default)]
pub struct Desk {
    orders: Vec<Order>,
    log: Vec<String>,
}

impl Desk {
    /// An empty desk.
    pub fn new() -> Desk {
        Desk::default()
    }

    /// Takes an order.
    pub fn add(&mut self, order: Order) {
        self.log.push(format!("order {} from {}", order.id, order.customer));
        self.orders.push(order);
    }

    /// The orders, in the order they came.
    pub fn orders(&self) -> &[Order] {
        &self.orders
    }

    /// The order with this id.
    pub fn find(&self, id: u32) -> Option<&Order> {
        self.orders.iter().find(|o| o.id == id)
    }

    /// Refunds `amount` of order `id`: at most what is left of its total.
    pub fn refund(&mut self, id: u32, amount: Cents) -> Result<Cents, RefundError> {
        let order = self.orders.iter_mut().find(|o| o.id == id).ok_or(RefundError::NoSuchOrder(id))?;
        refunds::apply(order, amount)?;
        self.log.push(format!("refunded {amount} of order {id}"));
        Ok(order.refundable())
    }

    /// What happened, one line per event.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// Settles a customer's complaint with the desk's tools; says what it did.
    pub fn settle(&mut self, complaint: &str) -> Result<String, HoleError> {
        agent!("settle the complaint: refund what it asks for if the order allows it, and say what was done")
    }
}
