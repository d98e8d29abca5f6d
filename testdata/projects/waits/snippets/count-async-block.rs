// hole: 1
// expect: accepted
// (an async block the snippet makes and awaits)
let lookups = async {
    let mut found = Vec::new();
    for sku in skus {
        found.push(inventory.stock(sku).await);
    }
    found
};
lookups.await.into_iter().filter(|r| matches!(r, Ok(n) if *n > 0)).count()
