// hole: src/triage.rs:27
// expect: rejected control-escapes-hole
// (a snippet cannot suspend the host's async fn yet: see headline-regex.rs for one that runs)
match directory.fetch_user(&issue.author).await {
    Ok(user) => format!("{} by {}", issue.title, user.display_name),
    Err(e) => format!("{} by {} ({e})", issue.title, issue.author),
}
