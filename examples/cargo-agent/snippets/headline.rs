// hole: src/triage.rs:27
// expect: accepted
// (the hole is in an async fn: the snippet awaits the directory's async lookup)
match directory.fetch_user(&issue.author).await {
    Ok(user) => format!("{} by {}", issue.title, user.display_name),
    Err(e) => format!("{} by {} ({e})", issue.title, issue.author),
}
