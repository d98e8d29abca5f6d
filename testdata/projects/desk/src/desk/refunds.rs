use std::fmt;

use crate::orders::{Cents, Order};

/// Why a refund was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum RefundError {
    /// No order has this id.
    NoSuchOrder(u32),
    /// The amount is more than what is left to refund.
    TooMuch {
        /// What was asked.
        asked: Cents,
        /// What is left to refund.
        left: Cents,
    },
    /// Refunds are positive.
    NotPositive,
}

impl fmt::Display for RefundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefundError::NoSuchOrder(id) => write!(f, "no order {id}"),
            RefundError::TooMuch { asked, left } => write!(f, "asked {asked}, only {left} left"),
            RefundError::NotPositive => write!(f, "a refund must be positive"),
        }
    }
}

pub(crate) fn apply(order: &mut Order, amount: Cents) -> Result<(), RefundError> {
    if amount.0 <= 0 {
        return Err(RefundError::NotPositive);
    }
    let left = order.refundable();
    if amount > left {
        return Err(RefundError::TooMuch { asked: amount, left });
    }
    order.refunded = order.refunded + amount;
    order.notes.push(format!("refunded {amount}"));
    Ok(())
}
