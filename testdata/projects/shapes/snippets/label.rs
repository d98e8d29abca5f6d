format!("{} [{}]", item.name.to_uppercase(), item.count)
