//! Text helpers. Like some utility crates, it re-exports a std module for its users' convenience.

pub use std::fs;

/// Words of a text, lowercased, without punctuation.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

pub mod io {
    pub use std::fs::read_to_string as load;
}
