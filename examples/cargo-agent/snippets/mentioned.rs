// hole: src/triage.rs:21
// expect: accepted
mentions(&issue.body)
    .into_iter()
    .filter(|login| self.directory.user(login).map(|u| u.maintainer).unwrap_or(false))
    .collect()
