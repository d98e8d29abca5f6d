use lacuna::{agent, HoleError};
use order_desk::Desk;

/// One line about the desk, for the end of the day.
pub fn summary(desk: &Desk) -> String {
    let line: Result<String, HoleError> = agent!("one line: how many orders, and the refunded total");
    line.unwrap_or_else(|e| format!("no summary: {e}"))
}
