//! `lacuna.toml`: defaults for the command line. Flags override it; it overrides the built-in defaults.
//!
//! ```toml
//! [run]
//! path = "auto"          # auto | jit | rustc
//! fuel = 1000000000      # loop iterations plus fn and closure calls per snippet run (0: unlimited)
//! time-limit-ms = 10000  # per snippet run (0: unlimited)
//! memory-limit = "1G"    # bytes held at once per snippet run; K, M, G suffixes (0: unlimited)
//!
//! [agent]
//! model = "openai:gpt-4o-mini"   # openai:<model> | anthropic:<model> | script:<file> | replay:<file>
//! base-url = "http://127.0.0.1:8080/v1"   # default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the public API
//! api-key-env = "OPENAI_API_KEY" # which environment variable holds the key
//! temperature = 0.2
//! max-tokens = 2048
//! timeout-s = 120                # per model request
//! max-retries = 4                # on HTTP 429 / 5xx / refused connections, with backoff
//! max-attempts = 3               # snippets per hole call; each rejection's diagnostics feed the next
//! max-depth = 32                 # nested holes deeper than this are HoleError::Depth (0: no cap)
//! retry-after-fault = false      # ask again when an accepted snippet faults (see docs/models.md)
//! system-prompt-file = "prompts/system.txt"   # or system-prompt = "..."
//! context = "Amounts are in cents."           # extra text in every prompt
//!
//! [models.planner]               # for agent!(planner, "...") holes; same keys as [agent] for a model
//! model = "anthropic:claude-sonnet-4-5"
//!
//! [policy]                       # safe mode (on by default): what snippets may reach
//! grant = ["time"]               # capabilities denied by default that snippets get: time
//! deny = ["stdout"]              # capabilities allowed by default that snippets lose: stdout
//! local-models = ["local"]       # models holes inside Classified::map may name (agent!(local, ..))
//! # unconfined = true            # safe mode OFF: snippets get this process's full authority
//!
//! [sites.2]                      # a prompt for hole 2 only
//! [sites.2.policy]               # and its own policy: the run's, with these changes (not `unconfined`)
//! grant = ["time"]
//! system-prompt = "..."
//! context = "..."
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file looked for in the current directory when `--config` is not given.
pub const DEFAULT_FILE: &str = "lacuna.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub run: RunConfig,
    #[serde(default)]
    pub agent: AgentConfig,
    #[serde(default)]
    pub models: std::collections::BTreeMap<String, ModelConfig>,
    #[serde(default)]
    /// By hole number (TOML keys are strings; `[sites.2]`).
    pub sites: std::collections::BTreeMap<String, PromptConfig>,
    #[serde(default)]
    pub policy: crate::policy::PolicyConfig,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AgentConfig {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub timeout_s: Option<u64>,
    pub max_retries: Option<u32>,
    pub max_attempts: Option<u32>,
    pub max_depth: Option<u32>,
    pub retry_after_fault: Option<bool>,
    pub system_prompt: Option<String>,
    pub system_prompt_file: Option<PathBuf>,
    pub context: Option<String>,
}

impl AgentConfig {
    /// The default model's part.
    pub fn model_config(&self) -> ModelConfig {
        ModelConfig {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            timeout_s: self.timeout_s,
            max_retries: self.max_retries,
        }
    }

    pub fn prompt_config(&self) -> PromptConfig {
        PromptConfig {
            system_prompt: self.system_prompt.clone(),
            system_prompt_file: self.system_prompt_file.clone(),
            context: self.context.clone(),
            policy: None,
        }
    }
}

/// A model and how to reach it.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModelConfig {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub timeout_s: Option<u64>,
    pub max_retries: Option<u32>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PromptConfig {
    pub system_prompt: Option<String>,
    pub system_prompt_file: Option<PathBuf>,
    pub context: Option<String>,
    /// `[sites.N.policy]`: this hole's policy, the run's with these grants and denials.
    pub policy: Option<crate::policy::PolicyConfig>,
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
    let text = crate::input::read("configuration", &path)?;
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

    #[test]
    fn agent_models_and_sites_parse() {
        let c: Config = toml::from_str(
            "[agent]\nmodel = \"openai:m\"\nmax-attempts = 5\ncontext = \"c\"\n[models.planner]\nmodel = \"script:p.txt\"\n\
             [sites.2]\nsystem-prompt = \"s\"\n",
        )
        .unwrap();
        assert_eq!(c.agent.model_config().model.as_deref(), Some("openai:m"));
        assert_eq!(c.agent.max_attempts, Some(5));
        assert_eq!(c.agent.prompt_config().context.as_deref(), Some("c"));
        assert_eq!(c.models["planner"].model.as_deref(), Some("script:p.txt"));
        assert_eq!(c.sites["2"].system_prompt.as_deref(), Some("s"));
        assert!(toml::from_str::<Config>("[agent]\nmax-atempts = 5\n").is_err());
    }
}
