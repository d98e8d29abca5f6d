//! The bot's judgement calls, each a hole.

use lacuna::{agent, HoleError};

use crate::model::{Issue, Priority};
use crate::tools::{mentions, Directory};

pub struct Triage {
    pub directory: Directory,
    pub urgent_words: Vec<String>,
}

impl Triage {
    /// How urgent an issue is.
    pub fn priority(&self, issue: &Issue) -> Result<Priority, HoleError> {
        agent!("Urgent if the title or body contains one of the urgent words (any case), Normal if it has a 'bug' label, else Low")
    }

    /// The logins of maintainers mentioned in the issue's body.
    pub fn maintainers_mentioned(&self, issue: &Issue) -> Result<Vec<String>, HoleError> {
        agent!("the logins mentioned in the body (use mentions) that belong to maintainers in the directory; unknown logins are skipped")
    }
}

/// The issue's title followed by its author's display name, looked up in the (remote) directory.
pub async fn headline(directory: &Directory, issue: &Issue) -> Result<String, HoleError> {
    agent!("the issue's title, then ' by ', then the author's display name from directory.fetch_user")
}
