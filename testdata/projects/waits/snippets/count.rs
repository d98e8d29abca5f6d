// hole: 1
// expect: accepted
let mut count = 0;
for sku in skus {
    if inventory.stock(sku).await.unwrap_or(0) > 0 {
        count += 1;
    }
}
count
