// hole: 1
// expect: rejected E0728
// (a closure inside the snippet is not async, whatever the hole is)
skus.iter().filter(|sku| inventory.stock(sku).await.unwrap_or(0) > 0).count()
