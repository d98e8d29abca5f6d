//! An order desk: orders, refunds, and an agent that settles complaints.
#![deny(missing_docs)]

use lacuna::{agent, HoleError};

pub mod desk;
pub mod orders;

pub use desk::Desk;
pub use orders::{Cents, Order};

/// Money in whole units, as cents: `cents!(12)` is `Cents(1200)`.
#[macro_export]
macro_rules! cents {
    ($units:expr) => {
        $crate::orders::Cents($units * 100)
    };
}

/// The id of the order with the largest total, if there are orders.
pub fn biggest(orders: &[Order]) -> Result<Option<u32>, HoleError> {
    agent!("the id of the order with the largest total")
}
