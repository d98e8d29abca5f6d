// hole: 3
// expect: accepted
// (it panics after its first wait: the hole's error says where)
let units = inventory.stock(sku).await.unwrap_or(0);
let washers = inventory.stock("washer").await.expect("the inventory knows washers");
units + washers
