mod item;

pub use item::Item;

use lacuna::{agent, HoleError};

#[derive(Default)]
pub struct Inventory {
    items: Vec<Item>,
}

impl Inventory {
    pub fn add(&mut self, item: Item) {
        self.items.push(item);
    }

    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Brings every item that ran out back to `amount`; how many were restocked.
    pub fn restock(&mut self, amount: u32) -> Result<usize, HoleError> {
        agent!("set the count of every item with count 0 to amount; return how many were changed")
    }
}
