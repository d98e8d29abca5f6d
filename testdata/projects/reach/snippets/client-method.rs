// expect: rejected L0101
// A client the host hands over is a value of a crate safe mode does not allow: its methods are that crate's.
client.get("example.com:80", "/").unwrap_or_default()
