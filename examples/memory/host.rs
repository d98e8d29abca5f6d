//! Paper, appendix C: a tool is a function in scope. The memory tool is a map with a few methods; `send_email`
//! is another tool. The second task never says when the meeting is: the snippet looks it up, then mails.

use std::collections::BTreeMap;

struct Memory {
    entries: BTreeMap<String, String>,
}

impl Memory {
    fn set(&mut self, key: &str, value: &str) {
        self.entries.insert(key.to_owned(), value.to_owned());
    }
    fn get(&self, key: &str) -> Option<String> {
        self.entries.get(key).cloned()
    }
    /// Entries whose key or value contains `query`.
    fn search(&self, query: &str) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter(|(k, v)| k.contains(query) || v.contains(query))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
    fn delete(&mut self, key: &str) {
        self.entries.remove(key);
    }
}

fn send_email(to: &str, subject: &str, body: &str) {
    println!("email to {to}: [{subject}] {body}");
}

fn main() {
    let mut memory = Memory { entries: BTreeMap::new() };
    let remembered: Result<(), lacuna::HoleError> = agent!("remember the team sync is Friday at 3pm");
    remembered.expect("remembered");
    let reminded: Result<(), lacuna::HoleError> = agent!("remind Alice (alice@example.com) about the team sync");
    reminded.expect("reminded");
    println!("memory: {:?}", memory.get("team sync"));
    memory.delete("team sync");
    println!("after delete: {} entries", memory.search("").len());
}
