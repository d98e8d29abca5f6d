// hole: src/triage.rs:16
// expect: accepted
let text = format!("{} {}", issue.title, issue.body).to_lowercase();
if self.urgent_words.iter().any(|w| text.contains(&w.to_lowercase())) {
    Priority::Urgent
} else if issue.labels.iter().any(|l| l == "bug") {
    Priority::Normal
} else {
    Priority::Low
}
