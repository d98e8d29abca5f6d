//! What a run may do: which path accepted snippets take, their budgets, the nesting limit.

use std::path::PathBuf;

use serde::Serialize;

/// Which way accepted snippets run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathChoice {
    /// The JIT where the snippet is in its subset, rustc otherwise.
    #[default]
    Auto,
    Jit,
    Rustc,
}

/// What one snippet run may use. A snippet that runs out gets `HoleError::Budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budgets {
    /// Loop iterations plus function and closure calls in the snippet (0: unlimited).
    pub fuel: u64,
    /// Wall time in milliseconds (0: unlimited). Checked with the fuel, so time spent inside one call into std or
    /// host code is not interrupted.
    pub time_ms: u64,
    /// Bytes the snippet may hold allocated at once (0: unlimited).
    pub memory_bytes: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets { fuel: 1_000_000_000, time_ms: 10_000, memory_bytes: 1 << 30 }
    }
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub path: PathChoice,
    pub budgets: Budgets,
    /// Stack of the thread the host's `main` runs on (snippets run on the thread that reaches their hole).
    pub stack_bytes: usize,
    /// Where compiled hosts and snippets are cached (default: [`lacuna_checker::default_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// The most the cache of compiled libraries may hold, in bytes (0: no limit); the builds used longest ago
    /// go first. Default 4 GiB, or `LACUNA_CACHE_LIMIT_MB` megabytes.
    pub cache_limit_bytes: u64,
    /// Holes nested deeper than this (a hole reached while this many snippets run on the thread) are
    /// `HoleError::Depth` (0: no cap).
    pub max_depth: u32,
    /// What snippets may reach (safe mode by default), for every hole and every nested hole.
    pub policy: lacuna_checker::Policy,
    /// Per host hole (1-based), a policy of its own instead of `policy` (the host's choice for that site). A
    /// hole written inside generated code is checked under its parent's: nesting never widens.
    pub site_policies: std::collections::BTreeMap<u32, lacuna_checker::Policy>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            path: PathChoice::Auto,
            budgets: Budgets::default(),
            stack_bytes: 64 << 20,
            cache_dir: None,
            cache_limit_bytes: default_cache_limit(),
            max_depth: 32,
            policy: lacuna_checker::Policy::default(),
            site_policies: std::collections::BTreeMap::new(),
        }
    }
}

/// 4 GiB, or `LACUNA_CACHE_LIMIT_MB` megabytes when it is set to a number (0: no limit).
fn default_cache_limit() -> u64 {
    std::env::var("LACUNA_CACHE_LIMIT_MB")
        .ok()
        .and_then(|mb| mb.trim().parse::<u64>().ok())
        .map_or(4 << 30, |mb| mb.saturating_mul(1 << 20))
}
