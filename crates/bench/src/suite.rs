//! A suite file: which host, which data, how many turns a conversation may take. Paths in it are relative to the
//! file. The host is a cargo project (its directory: sessions open on its crate, with its dependencies), or a
//! single `.rs` file with `support` files appended to it.
//!
//! ```toml
//! name = "tau2-retail"
//! kind = "tau2"
//! domain = "retail"
//! host = "tau2/retail"
//! data = "../../shared/benchmarks/tau2/retail"
//! # policy = "…/policy.md"   (the agent's instructions; `<data>/policy.md` by default)
//! max_turns = 10
//! ```
//!
//! Telecom's instructions are two documents, as τ² gives them: the main policy (`<data>/main_policy.md`) and the
//! technical support one (`tech_support`, `<data>/tech_support_manual.md` by default; the workflow variant names
//! `tech_support_workflow.md`); and its benchmark is a split of its tasks (`split = "base"`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::tau2::Domain;
use crate::BenchError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: String,
    kind: String,
    domain: String,
    host: PathBuf,
    #[serde(default)]
    support: Vec<PathBuf>,
    data: PathBuf,
    /// The domain's policy document (relative to this file); `<data>/policy.md` when left out.
    #[serde(default)]
    policy: Option<PathBuf>,
    /// Telecom's technical support document (relative to this file).
    #[serde(default)]
    tech_support: Option<PathBuf>,
    /// Only the tasks of this split of `split_tasks.json`.
    #[serde(default)]
    split: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    max_turns: Option<u32>,
}

/// The kinds of suite `lacuna bench` runs (a suite file's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteKind {
    /// A τ²-bench domain: each task a session of turns in a `lacuna serve` worker.
    Tau2,
    /// BrowseComp-Plus: each query a `lacuna run` of a retrieval host ([`crate::browsecomp`]).
    Browsecomp,
}

impl SuiteKind {
    pub const ALL: [SuiteKind; 2] = [SuiteKind::Tau2, SuiteKind::Browsecomp];

    pub fn name(self) -> &'static str {
        match self {
            SuiteKind::Tau2 => "tau2",
            SuiteKind::Browsecomp => "browsecomp",
        }
    }

    /// The `kind` a suite file names.
    pub fn of(path: &Path) -> Result<SuiteKind, BenchError> {
        #[derive(Deserialize)]
        struct Kind {
            kind: String,
        }
        let file: Kind = parse_file(path)?;
        SuiteKind::ALL.into_iter().find(|k| k.name() == file.kind).ok_or_else(|| {
            BenchError::Suite(format!(
                "{}: unknown suite kind `{}` (known: {})",
                path.display(),
                file.kind,
                SuiteKind::ALL.map(SuiteKind::name).join(", ")
            ))
        })
    }
}

/// A suite, its paths resolved.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub description: Option<String>,
    pub domain: Domain,
    /// The host each task's session opens on: a cargo project's directory, or a file with `support` files
    /// appended to it (what several hosts share).
    pub host: PathBuf,
    pub support: Vec<PathBuf>,
    /// The domain's `db.json` and `tasks.json`.
    pub data: PathBuf,
    /// The domain's policy document, which the agent is given as its instructions (as τ²'s own agent is).
    pub policy: Option<String>,
    /// User messages a conversation may have.
    pub max_turns: u32,
    /// Only the tasks of this split (`split_tasks.json`).
    pub split: Option<String>,
}

impl Suite {
    /// Reads a suite file; `data` replaces the directory it names (`--data`).
    pub fn load(path: &Path, data: Option<&Path>) -> Result<Suite, BenchError> {
        let file: SuiteFile = parse_file(path)?;
        if file.kind != "tau2" {
            return Err(BenchError::Suite(format!(
                "{}: a suite of kind `{}`, not `tau2` (see `SuiteKind::of`)",
                path.display(),
                file.kind
            )));
        }
        let domain = Domain::from_name(&file.domain).ok_or_else(|| {
            BenchError::Suite(format!(
                "{}: unknown τ² domain `{}` (known: {})",
                path.display(),
                file.domain,
                Domain::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
            ))
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let host = absolute(&base.join(&file.host));
        let data = absolute(&data.map(Path::to_path_buf).unwrap_or_else(|| base.join(&file.data)));
        let support: Vec<PathBuf> = file.support.iter().map(|s| absolute(&base.join(s))).collect();
        let project = host.join("Cargo.toml").is_file();
        if project && !support.is_empty() {
            return Err(BenchError::Suite(format!(
                "{}: `support` files are appended to a single-file host; {} is a cargo project (share code \
                 between projects as a module or a crate)",
                path.display(),
                host.display()
            )));
        }
        if host.is_dir() && !project {
            return Err(BenchError::Suite(format!(
                "{}: the host {} is a directory without a Cargo.toml (a host is a cargo project or a .rs file)",
                path.display(),
                host.display()
            )));
        }
        for file in std::iter::once(&host).chain(&support).filter(|_| !project) {
            if !file.is_file() {
                return Err(BenchError::Suite(format!("{}: {} does not exist", path.display(), file.display())));
            }
        }
        let (db, user_db) = domain.db_files();
        let split_file = file.split.as_ref().map(|_| "split_tasks.json");
        for needed in [Some(db), user_db, Some("tasks.json"), split_file].into_iter().flatten() {
            if !data.join(needed).is_file() {
                return Err(BenchError::Suite(format!(
                    "{}: no {needed} in {} (the suite reads τ²'s data from `shared/benchmarks` beside the \
                     repository; pass --data DIR to read another copy)",
                    path.display(),
                    data.display()
                )));
            }
        }
        let policy = match (&file.policy, domain) {
            (Some(named), _) => Some(crate::read(&base.join(named))?),
            (None, Domain::Telecom) => {
                let main = crate::read(&data.join("main_policy.md"))?;
                let tech = match &file.tech_support {
                    Some(named) => crate::read(&base.join(named))?,
                    None => crate::read(&data.join("tech_support_manual.md"))?,
                };
                // As τ²'s telecom environment joins them.
                Some(format!(
                    "<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{tech}\n</tech_support_policy>"
                ))
            }
            (None, _) => {
                let default = data.join("policy.md");
                default.is_file().then(|| crate::read(&default)).transpose()?
            }
        };
        Ok(Suite {
            policy,
            name: file.name,
            description: file.description,
            domain,
            host,
            support,
            data,
            max_turns: file.max_turns.unwrap_or(10).max(1),
            split: file.split,
        })
    }

    /// Whether the host is a cargo project (sessions open on its directory).
    pub fn is_project(&self) -> bool {
        self.host.join("Cargo.toml").is_file()
    }

    /// A single-file host's text with the support files appended.
    pub fn host_text(&self) -> Result<String, BenchError> {
        let mut text = crate::read(&self.host)?;
        for file in &self.support {
            text.push('\n');
            text.push_str(&crate::read(file)?);
        }
        Ok(text)
    }

    /// The agent's database.
    pub fn db(&self) -> PathBuf {
        self.data.join(self.domain.db_files().0)
    }

    /// The user's database (telecom's phone), if the domain has one.
    pub fn user_db(&self) -> Option<PathBuf> {
        self.domain.db_files().1.map(|f| self.data.join(f))
    }

    /// The suite's tasks: the domain's, or its split's, in the file's order.
    pub fn tasks(&self) -> Result<Vec<crate::tau2::Task>, BenchError> {
        let tasks = crate::tau2::load_tasks(&self.tasks_file(), self.domain.two_sided())?;
        let Some(split) = &self.split else { return Ok(tasks) };
        let path = self.data.join("split_tasks.json");
        let parse =
            |detail: String| BenchError::Parse { path: path.display().to_string(), what: "task splits", detail };
        let splits: std::collections::BTreeMap<String, Vec<String>> =
            serde_json::from_str(&crate::read(&path)?).map_err(|e| parse(e.to_string()))?;
        let ids = splits.get(split).ok_or_else(|| {
            parse(format!("no split `{split}` (it has {})", splits.keys().cloned().collect::<Vec<_>>().join(", ")))
        })?;
        Ok(tasks.into_iter().filter(|t| ids.contains(&t.id)).collect())
    }

    pub fn tasks_file(&self) -> PathBuf {
        self.data.join("tasks.json")
    }
}

/// A suite file, read and parsed.
pub(crate) fn parse_file<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, BenchError> {
    let text = crate::read(path)?;
    toml::from_str(&text).map_err(|e| BenchError::Parse {
        path: path.display().to_string(),
        what: "suite file",
        detail: e.to_string(),
    })
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite_dir(extra: &str, policy: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        for (name, text) in [("db.json", "{}"), ("tasks.json", "[]"), ("host.rs", "fn main() {}\n")] {
            let at = if name == "host.rs" { dir.path().join(name) } else { dir.path().join("data").join(name) };
            std::fs::write(at, text).unwrap();
        }
        if let Some(policy) = policy {
            std::fs::write(dir.path().join("data/policy.md"), policy).unwrap();
        }
        let file =
            format!("name = \"t\"\nkind = \"tau2\"\ndomain = \"mock\"\nhost = \"host.rs\"\ndata = \"data\"\n{extra}");
        std::fs::write(dir.path().join("suite.toml"), file).unwrap();
        dir
    }

    #[test]
    fn the_domain_policy_is_the_agent_instructions() {
        let dir = suite_dir("", Some("# Tracker policy\n\nNever delete a task.\n"));
        let suite = Suite::load(&dir.path().join("suite.toml"), None).unwrap();
        assert_eq!(suite.policy.as_deref(), Some("# Tracker policy\n\nNever delete a task.\n"));
        let task = crate::runner::turn_task(&suite, &[("hi".into(), "hello".into())], "mark task_1 done");
        let (policy, rest) = (task.find("<policy>\n# Tracker policy").unwrap(), task.find("Customer: hi").unwrap());
        assert!(task.find("`tracker`").unwrap() < policy && policy < rest, "{task}");
        assert!(task.contains("Never delete a task.\n</policy>"), "{task}");
        // Without a policy document the agent gets its role alone; a policy the suite names must exist.
        let bare = Suite::load(&suite_dir("", None).path().join("suite.toml"), None).unwrap();
        assert!(bare.policy.is_none() && !crate::runner::turn_task(&bare, &[], "x").contains("<policy>"));
        let named = suite_dir("policy = \"data/workflow.md\"\n", Some("main"));
        let missing = Suite::load(&named.path().join("suite.toml"), None).unwrap_err().to_string();
        assert!(missing.contains("workflow.md"), "{missing}");
    }
}
