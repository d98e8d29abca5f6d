// hole: 2
// expect: accepted
// (rustc accepts taking `sku`; running it is refused: a snippet in async code never takes a host binding)
let name = sku;
match inventory.stock(&name).await {
    Ok(units) => format!("{name}: {units}"),
    Err(_) => format!("{name}: unknown"),
}
