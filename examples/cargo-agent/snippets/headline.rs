// hole: src/triage.rs:27
// expect: accepted
match directory.fetch_user(&issue.author).await {
    Ok(user) => format!("{} by {}", issue.title, user.display_name),
    Err(e) => format!("{} by {} ({e})", issue.title, issue.author),
}
