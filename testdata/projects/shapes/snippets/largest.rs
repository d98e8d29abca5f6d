let mut best: Option<T> = None;
for &v in values {
    if best.map_or(true, |b| v > b) {
        best = Some(v);
    }
}
best
