//! A triage bot: reads issues and users from JSON, and lets a model make the judgement calls.

mod model;
mod tools;
mod triage;

use model::{Issue, User};
use tools::Directory;
use triage::Triage;

const ISSUES: &str = include_str!("../data/issues.json");
const USERS: &str = include_str!("../data/users.json");

fn main() {
    let issues: Vec<Issue> = serde_json::from_str(ISSUES).expect("data/issues.json is a list of issues");
    let users: Vec<User> = serde_json::from_str(USERS).expect("data/users.json is a list of users");
    let triage = Triage { directory: Directory::new(users), urgent_words: vec!["crash".into(), "data loss".into()] };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a tokio runtime");
    for issue in &issues {
        let priority = triage.priority(issue);
        let mentioned = triage.maintainers_mentioned(issue);
        let headline = runtime.block_on(triage::headline(&triage.directory, issue));
        match (priority, mentioned, headline) {
            (Ok(p), Ok(m), Ok(h)) => println!("#{} {h}: {p:?}, maintainers mentioned: {m:?}", issue.id),
            (p, m, h) => println!("#{} could not be triaged: {p:?} {m:?} {h:?}", issue.id),
        }
    }
}
