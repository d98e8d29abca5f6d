let mut changed = 0;
for item in self.items.iter_mut() {
    if item.count == 0 {
        item.count = amount;
        changed += 1;
    }
}
changed
