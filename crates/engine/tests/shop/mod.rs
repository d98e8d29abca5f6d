//! The shop host the session-host tests open sessions on: a module a person would write (a private-field `Cart`,
//! a `Result`-returning `add`, a static receipt counter).

pub const HOST: &str = r#"
mod shop {
    use std::sync::atomic::{AtomicU32, Ordering};

    static RECEIPTS: AtomicU32 = AtomicU32::new(0);

    #[derive(Debug, Clone, PartialEq)]
    pub struct Item {
        pub name: String,
        pub cents: u64,
    }

    #[derive(Debug, Default)]
    pub struct Cart {
        items: Vec<Item>,
    }

    impl Cart {
        pub fn add(&mut self, name: &str, cents: u64) -> Result<usize, String> {
            if cents == 0 {
                return Err(format!("{name} has no price"));
            }
            self.items.push(Item { name: name.to_string(), cents });
            Ok(self.items.len())
        }

        pub fn total(&self) -> u64 {
            self.items.iter().map(|i| i.cents).sum()
        }

        pub fn names(&self) -> Vec<&str> {
            self.items.iter().map(|i| i.name.as_str()).collect()
        }

        pub fn checkout(&mut self) -> u32 {
            self.items.clear();
            RECEIPTS.fetch_add(1, Ordering::SeqCst) + 1
        }
    }
}

use shop::Cart;

fn main() {
    let mut cart = Cart::default();
    let r: Result<u64, lacuna::HoleError> = agent!("what the customer asks");
    println!("{:?}", r);
}
"#;
