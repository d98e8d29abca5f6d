mod report;
mod store;

use lacuna::agent;
use store::{Inventory, Item};

fn largest<T: PartialOrd + Copy + std::fmt::Debug>(values: &[T]) -> Option<T> {
    agent!("the largest value, None when there are none").unwrap_or(None)
}

fn main() {
    let mut inventory = Inventory::default();
    inventory.add(Item { name: "bolt".into(), count: 40, price_cents: 15 });
    inventory.add(Item { name: "nut".into(), count: 0, price_cents: 5 });
    inventory.add(Item { name: "gear".into(), count: 3, price_cents: 1250 });

    let restocked = inventory.restock(10).unwrap_or(0);
    println!("restocked {restocked} item(s)");

    let label = |item: &Item| -> String { agent!("a label: the name upper-cased, then the count in brackets").unwrap_or_default() };
    for item in inventory.items() {
        println!("{}", label(item));
    }

    println!("largest count: {:?}", largest(&inventory.items().iter().map(|i| i.count).collect::<Vec<_>>()));
    println!("largest price: {:?}", largest(&[1.5f64, 0.25, 9.0]));
    println!("{}", report::Summary(&inventory));
}
