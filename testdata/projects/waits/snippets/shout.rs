// hole: 5
// expect: accepted
sku.to_uppercase()
