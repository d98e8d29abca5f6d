//! Stock checks that a model writes, against an inventory that answers asynchronously.

mod inventory;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use inventory::Inventory;
use lacuna::{agent, HoleError};

/// How many of `skus` have stock, looked up one after another.
async fn in_stock(inventory: &Inventory, skus: &[&str]) -> Result<usize, HoleError> {
    agent!("how many of the skus have at least one unit in stock (inventory.stock is async)")
}

/// One report line per sku, made in tasks of their own.
async fn describe(inventory: Arc<Inventory>, sku: String) -> Result<String, HoleError> {
    agent!("'<sku>: <units>' from inventory.stock, or '<sku>: unknown' when the lookup fails")
}

/// Waits for a restock that may never come.
async fn restocked(inventory: &Inventory, sku: &str) -> Result<u32, HoleError> {
    agent!("wait until the sku has stock and return its units")
}

/// The report's headline: plain code, where nothing can be awaited.
fn headline(skus: &[&str]) -> Result<String, HoleError> {
    agent!("'Stock of N skus' for the skus")
}

/// The sku in capitals: the snippet waits for nothing, but asking for it (the model, the check, the build) takes
/// its time.
async fn shout(sku: &str) -> Result<String, HoleError> {
    agent!("the sku in capital letters")
}

async fn ticker(times: u32) {
    for i in 1..=times {
        tokio::time::sleep(Duration::from_millis(25)).await;
        println!("tick {i}");
    }
}

fn main() {
    let inventory = Inventory::sample();
    println!("{}", headline(&["bolt", "nut", "gear"]).unwrap_or_else(|e| e.to_string()));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a runtime");

    // The hole's snippet waits for three lookups; the ticker runs on the same thread meanwhile.
    let (count, ()) = runtime.block_on(async { tokio::join!(in_stock(&inventory, &["bolt", "nut", "gear"]), ticker(2)) });
    println!("in stock: {count:?}");

    // Forty lookups take longer than the timeout: the hole's future is dropped before its snippet ends.
    let many = ["gear"; 40];
    let late = runtime.block_on(async { tokio::time::timeout(Duration::from_millis(100), in_stock(&inventory, &many)).await });
    println!("forty lookups: {}", if late.is_err() { "timed out" } else { "finished" });

    // A snippet that waits past its time budget gets an error, and the program goes on.
    match runtime.block_on(restocked(&inventory, "nut")) {
        Ok(units) => println!("restocked: {units}"),
        Err(e) => println!("restock: {e}"),
    }

    // Holes in spawned tasks on a multi-thread runtime: their futures are `Send`.
    let inventory = Arc::new(inventory);
    let workers = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().expect("a runtime");
    let lines = workers.block_on(async {
        let tasks: Vec<_> = ["gear", "cog"]
            .into_iter()
            .map(|sku| tokio::spawn(describe(inventory.clone(), sku.to_string())))
            .collect();
        let mut lines = Vec::new();
        for task in tasks {
            lines.push(task.await.expect("the task ends"));
        }
        lines
    });
    for line in lines {
        println!("{line:?}");
    }

    // While a hole's snippet is asked for, checked and built, the other tasks on the current thread run.
    let asked = AtomicBool::new(false);
    let (word, ticks) = runtime.block_on(async {
        tokio::join!(
            async {
                let word = shout("gear").await;
                asked.store(true, Ordering::SeqCst);
                word
            },
            async {
                let mut ticks = 0;
                while !asked.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    ticks += 1;
                }
                ticks
            }
        )
    });
    println!("{word:?}; ticks while it was asked for: {}", if ticks > 0 { "some" } else { "none" });
}
