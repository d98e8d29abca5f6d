// hole: 2
// expect: accepted
match inventory.stock(&sku).await {
    Ok(units) => format!("{sku}: {units}"),
    Err(_) => format!("{sku}: unknown"),
}
