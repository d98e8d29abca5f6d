let items = self.0.items();
let cents: i64 = items.iter().map(|i| i.price_cents * i.count as i64).sum();
format!("{} items worth ${}.{:02}", items.len(), cents / 100, cents % 100)
