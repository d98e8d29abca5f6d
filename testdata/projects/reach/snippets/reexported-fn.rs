// expect: rejected L0101
textkit::io::load("/etc/passwd").unwrap_or_default()
