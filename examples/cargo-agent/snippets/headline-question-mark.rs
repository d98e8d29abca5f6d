// hole: src/triage.rs:27
// expect: rejected E0277
let user = directory.fetch_user(&issue.author).await?;
format!("{} by {}", issue.title, user.display_name)
