//! Cargo projects as hosts: `lacuna check` and `lacuna run` given a project directory or a Cargo.toml.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use lacuna_checker::{LineIndex, Policy, ProjectCrate};
pub use lacuna_project::CrateChoice;
use lacuna_project::{Flattened, Project};

/// A project, built once, its binary's crate flattened into one host text.
pub struct LoadedProject {
    pub project: Project,
    pub flat: Arc<Flattened>,
    pub checker: Arc<ProjectCrate>,
}

/// Whether a host argument names a cargo project (a directory, or a `Cargo.toml`) rather than a single-file host.
pub fn is_project(path: &Path) -> bool {
    path.join("Cargo.toml").is_file() || path.file_name().is_some_and(|n| n == "Cargo.toml")
}

/// The name of the project's binary (the only one: with several, `--bin` names it).
pub fn binary_name(path: &Path) -> anyhow::Result<String> {
    let project = Project::discover(&lacuna_project::cargo(), path, &CrateChoice::Bin(None))?;
    Ok(project.bin.name.clone())
}

/// Finds the project at `path`, builds it with cargo (dependencies cached in `<target>/lacuna`), and flattens its
/// binary's crate.
pub fn load(path: &Path, choice: &CrateChoice) -> anyhow::Result<LoadedProject> {
    let cargo = lacuna_project::cargo();
    let wrapper = std::env::current_exe().context("finding this program, cargo's rustc wrapper")?;
    let loaded = Project::discover(&cargo, path, choice)?.load(&cargo, &wrapper)?;
    let checker = Arc::new(ProjectCrate { graph: loaded.graph, flags: loaded.flags });
    Ok(LoadedProject { project: loaded.project, flat: Arc::new(loaded.flat), checker })
}

/// The crate a session on the project opens on: the binary `bin` names, else the package's library, else its
/// binary.
pub fn load_for_session(path: &Path, bin: Option<String>) -> anyhow::Result<LoadedProject> {
    if bin.is_some() {
        return load(path, &CrateChoice::Bin(bin));
    }
    match load(path, &CrateChoice::Lib) {
        Err(e)
            if e.downcast_ref::<lacuna_project::ProjectError>()
                .is_some_and(|e| matches!(e, lacuna_project::ProjectError::NoLibrary(_))) =>
        {
            load(path, &CrateChoice::Bin(None))
        }
        other => other,
    }
}

impl LoadedProject {
    /// The package's directory.
    pub fn dir(&self) -> &Path {
        self.project.manifest.parent().unwrap_or(Path::new("."))
    }

    /// The name hosts of this project go by: the package's.
    pub fn name(&self) -> String {
        self.project.package().name.clone()
    }

    /// `policy` with the crates `[package.metadata.lacuna] crates` lists.
    pub fn policy(&self, policy: Policy) -> anyhow::Result<Policy> {
        let Some(metadata) = self.project.package().metadata.as_ref().and_then(|m| m.get("lacuna")) else {
            return Ok(policy);
        };
        let config: crate::policy::PolicyConfig = serde_json::from_value(metadata.clone())
            .context("[package.metadata.lacuna] in Cargo.toml takes the keys of lacuna.toml's [policy] table")?;
        if config.unconfined {
            anyhow::bail!("[package.metadata.lacuna]: turn safe mode off with --unconfined, not in Cargo.toml");
        }
        if policy.is_unconfined() {
            return Ok(policy);
        }
        config.apply(policy, "[package.metadata.lacuna] in Cargo.toml")
    }

    /// Where line `line` (1-based) of the flattened crate is, as `src/file.rs:LINE` relative to the current
    /// directory.
    pub fn place_of_line(&self, line: u32) -> String {
        let index = LineIndex::new(&self.flat.text);
        let start =
            (line >= 1 && line as usize <= self.flat.text.lines().count().max(1)).then(|| index.line_start(line));
        let Some((file, offset)) = start.and_then(|s| self.flat.to_original(s)) else {
            return format!("line {line}");
        };
        let path = &self.flat.files[file];
        let cwd = std::env::current_dir().ok();
        let shown = cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()).unwrap_or(path);
        let (original, _) = LineIndex::one(&self.flat.texts[file], offset);
        format!("{}:{original}", shown.display())
    }

    /// The 0-based hole at `file:line` (a path relative to the current directory or the package's, or absolute).
    pub fn hole_at(&self, holes: &[lacuna_checker::Hole], file: &Path, line: u32) -> anyhow::Result<usize> {
        let candidates = [file.to_path_buf(), self.dir().join(file)];
        let index = candidates
            .iter()
            .find_map(|f| self.flat.file_index(f))
            .with_context(|| format!("{} is not a file of {}'s crate", file.display(), self.name()))?;
        let lines = LineIndex::new(&self.flat.texts[index]);
        let found = holes.iter().position(|h| {
            self.flat
                .to_original(h.range.start)
                .is_some_and(|(f, offset)| f == index && lines.line_col(offset).0 == line)
        });
        found.with_context(|| format!("there is no hole on line {line} of {}", file.display()))
    }
}
