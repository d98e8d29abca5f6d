// hole: 3
// expect: accepted
loop {
    let units = inventory.stock(sku).await.unwrap_or(0);
    if units > 0 {
        break units;
    }
}
