// hole: 1
// expect: rejected E0277
// (`?` on the inventory's error in a function returning `Result<_, HoleError>`)
let mut count = 0;
for sku in skus {
    if inventory.stock(sku).await? > 0 {
        count += 1;
    }
}
count
