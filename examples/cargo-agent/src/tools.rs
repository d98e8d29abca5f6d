//! The tools a hole may use: a user directory (with an async lookup, as a real one would be) and text helpers.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use regex::Regex;

use crate::model::User;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    UnknownUser(String),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::UnknownUser(login) => write!(f, "no user with login {login:?}"),
        }
    }
}

impl std::error::Error for ToolError {}

pub struct Directory {
    users: HashMap<String, User>,
}

impl Directory {
    pub fn new(users: Vec<User>) -> Directory {
        Directory { users: users.into_iter().map(|u| (u.login.clone(), u)).collect() }
    }

    /// The user with this login.
    pub fn user(&self, login: &str) -> Result<&User, ToolError> {
        self.users.get(login).ok_or_else(|| ToolError::UnknownUser(login.to_owned()))
    }

    /// The same, as a remote directory answers: after a round trip.
    pub async fn fetch_user(&self, login: &str) -> Result<User, ToolError> {
        tokio::time::sleep(Duration::from_millis(5)).await;
        self.user(login).cloned()
    }
}

/// Every `@login` mentioned in a text, in order, without repeats.
pub fn mentions(text: &str) -> Vec<String> {
    let re = Regex::new(r"@([A-Za-z0-9-]+)").expect("a valid pattern");
    let mut out: Vec<String> = Vec::new();
    for cap in re.captures_iter(text) {
        let login = cap[1].to_owned();
        if !out.contains(&login) {
            out.push(login);
        }
    }
    out
}
