// expect: rejected L0101
// An allowed crate's re-export of `std::fs` is `std::fs`.
textkit::fs::read_to_string("/etc/passwd").unwrap_or_default()
