// hole: src/triage.rs:21
// expect: accepted
let value = serde_json::to_value(issue).unwrap_or_default();
let body = value["body"].as_str().unwrap_or("");
let mut out = Vec::new();
for login in mentions(body) {
    if let Ok(user) = self.directory.user(&login) {
        if user.maintainer {
            out.push(user.login.clone());
        }
    }
}
out
