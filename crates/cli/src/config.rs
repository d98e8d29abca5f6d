//! `lacuna.toml`: defaults for the command line. Flags override it; it overrides the built-in defaults.
//!
//! ```toml
//! [run]
//! path = "auto"          # auto | jit | rustc
//! fuel = 1000000000      # loop iterations plus fn and closure calls per snippet run (0: unlimited)
//! time-limit-ms = 10000  # per snippet run (0: unlimited)
//! memory-limit = "1G"    # bytes held at once per snippet run; K, M, G suffixes (0: unlimited)
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The file looked for in the current directory when `--config` is not given.
pub const DEFAULT_FILE: &str = "lacuna.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub run: RunConfig,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunConfig {
    pub path: Option<PathName>,
    pub fuel: Option<u64>,
    pub time_limit_ms: Option<u64>,
    pub memory_limit: Option<Bytes>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PathName {
    Auto,
    Jit,
    Rustc,
}

/// A size: a number of bytes, or a string with a K, M or G suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Number(n) => Ok(Bytes(n)),
            Raw::Text(t) => parse_bytes(&t).map(Bytes).map_err(serde::de::Error::custom),
        }
    }
}

/// `1048576`, `512K`, `64M`, `2G`.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, scale) = match text.chars().last() {
        Some('K' | 'k') => (&text[..text.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&text[..text.len() - 1], 1 << 20),
        Some('G' | 'g') => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is not a size in bytes (examples: 1048576, 512K, 64M, 2G)"))
}

/// The configuration: `explicit` if given (it must exist), else `lacuna.toml` in the current directory if there
/// is one, else the defaults.
pub fn load(explicit: Option<&Path>) -> anyhow::Result<(Config, Option<PathBuf>)> {
    let path = match explicit {
        Some(p) => p.to_owned(),
        None => {
            let p = PathBuf::from(DEFAULT_FILE);
            if !p.is_file() {
                return Ok((Config::default(), None));
            }
            p
        }
    };
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("cannot read the configuration {}", path.display()))?;
    let config: Config =
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
    Ok((config, Some(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_suffixes_and_reject_nonsense() {
        assert_eq!(parse_bytes("64M"), Ok(64 << 20));
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("99999999999999G").is_err());
    }

    #[test]
    fn run_table_parses_and_unknown_keys_are_errors() {
        let c: Config = toml::from_str("[run]\npath = \"rustc\"\nfuel = 5\nmemory-limit = \"2K\"\n").unwrap();
        assert_eq!(c.run.path, Some(PathName::Rustc));
        assert_eq!(c.run.fuel, Some(5));
        assert_eq!(c.run.memory_limit, Some(Bytes(2048)));
        assert!(toml::from_str::<Config>("[run]\nfule = 5\n").is_err());
    }
}
