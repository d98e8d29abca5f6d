// hole: src/triage.rs:27
// expect: accepted
let spaces = regex::Regex::new(r"\s+").unwrap();
let title = spaces.replace_all(issue.title.trim(), " ").to_string();
let name = directory.user(&issue.author).map(|u| u.display_name.clone()).unwrap_or_else(|_| issue.author.clone());
format!("{title} by {name}")
