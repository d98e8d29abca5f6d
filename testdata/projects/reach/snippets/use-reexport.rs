// expect: rejected L0101
use textkit::fs::File;
use std::io::Read;
let mut s = String::new();
File::open("/etc/hostname").and_then(|mut f| f.read_to_string(&mut s)).map(|_| s).unwrap_or_default()
