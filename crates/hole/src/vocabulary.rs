//! The closed vocabularies that cross from the engine to its reports, traces and clients: who decided a verdict,
//! how an attempt ended, which budget ran out, where a turn's time went. Each is an enum (or a struct of named
//! parts) from where it is made to where it is read; it becomes text only when serialized.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which checker decided a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DecidedBy {
    /// rust-analyzer's parser or type checker found errors.
    #[serde(rename = "rust-analyzer")]
    RustAnalyzer,
    /// rustc checked the spliced host.
    #[serde(rename = "rustc")]
    Rustc,
    /// Lacuna's own rule: the snippet must be a block body and may not reach outside its hole.
    #[serde(rename = "lacuna")]
    Lacuna,
    /// Safe mode: the snippet reaches authority its scope does not grant (decided before any compiler saw it).
    #[serde(rename = "policy")]
    Policy,
    /// An acceptance by the JIT subset's own checks (rust-analyzer found no error, and the subset's rules cover
    /// what rustc would still say of it); only `lacuna run` gives these.
    #[serde(rename = "jit-subset")]
    JitSubset,
}

impl DecidedBy {
    /// The name reports and JSON use.
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::RustAnalyzer => "rust-analyzer",
            DecidedBy::Rustc => "rustc",
            DecidedBy::Lacuna => "lacuna",
            DecidedBy::Policy => "policy",
            DecidedBy::JitSubset => "jit-subset",
        }
    }
}

impl fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A budget a snippet can exhaust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    Fuel,
    Time,
    Stack,
    Memory,
}

impl Resource {
    pub const ALL: [Resource; 4] = [Resource::Fuel, Resource::Time, Resource::Stack, Resource::Memory];

    /// The name the runtime's `HoleError::Budget` and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Resource::Fuel => "fuel",
            Resource::Time => "time",
            Resource::Stack => "stack",
            Resource::Memory => "memory",
        }
    }

    /// What a limit of this resource counts, for reports (`500 ms`); the host gets the number alone.
    pub fn unit(self) -> &'static str {
        match self {
            Resource::Fuel => "",
            Resource::Time => " ms",
            Resource::Stack | Resource::Memory => " bytes",
        }
    }

    pub fn from_name(name: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// How an attempt at a hole, or a hole's last call, ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Accepted, run, and it gave a value.
    Ok,
    /// The checker rejected the snippet.
    Rejected,
    /// The source's reply held no code (its reason goes back like a diagnostic).
    NoCode,
    /// The accepted snippet faulted (a panic, an arithmetic fault, ...).
    Runtime,
    /// The accepted snippet ran out of a budget.
    Budget(Resource),
    /// The source of snippets failed, or the engine could not serve the hole.
    Model,
    /// Holes nested deeper than the run allows.
    Depth,
}

impl Outcome {
    /// An accepted snippet that did not end with a value: it faulted or ran out of a budget.
    pub fn is_fault(self) -> bool {
        matches!(self, Outcome::Runtime | Outcome::Budget(_))
    }

    /// Reads an outcome as [`Display`](fmt::Display) writes it.
    pub fn parse(text: &str) -> Option<Outcome> {
        Some(match text {
            "ok" => Outcome::Ok,
            "rejected" => Outcome::Rejected,
            "no-code" => Outcome::NoCode,
            "runtime" => Outcome::Runtime,
            "model" => Outcome::Model,
            "depth" => Outcome::Depth,
            _ => Outcome::Budget(Resource::from_name(text.strip_prefix("budget:")?)?),
        })
    }
}

/// As JSON and reports spell it: `ok`, `rejected`, `no-code`, `runtime`, `budget:<resource>`, `model`, `depth`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Rejected => f.write_str("rejected"),
            Outcome::NoCode => f.write_str("no-code"),
            Outcome::Runtime => f.write_str("runtime"),
            Outcome::Budget(resource) => write!(f, "budget:{}", resource.name()),
            Outcome::Model => f.write_str("model"),
            Outcome::Depth => f.write_str("depth"),
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        let text = String::deserialize(deserializer)?;
        Outcome::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("not an outcome: `{text}`")))
    }
}

/// Where a session turn's time went, in milliseconds: the model's attempts, the check, building its hosts,
/// running it, and the whole turn. A part the turn did not reach is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnTimings {
    pub model: f64,
    pub check: f64,
    pub host_compile: f64,
    pub run: f64,
    pub total: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_back_as_written() {
        let all = [Outcome::Ok, Outcome::Rejected, Outcome::NoCode, Outcome::Runtime, Outcome::Model, Outcome::Depth]
            .into_iter()
            .chain(Resource::ALL.map(Outcome::Budget));
        for outcome in all {
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(serde_json::from_str::<Outcome>(&json).unwrap(), outcome, "{json}");
        }
        assert_eq!(Outcome::Budget(Resource::Time).to_string(), "budget:time");
        assert!(serde_json::from_str::<Outcome>("\"budget:patience\"").is_err());
    }
}
