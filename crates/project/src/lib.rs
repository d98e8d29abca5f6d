//! Cargo projects as Lacuna hosts.
//!
//! A crate of a project — a binary, or the package's library — is a host: [`Project::discover`] finds the package
//! and the crate (`cargo metadata`), [`Project::build`] builds it with cargo once, writing down the crate's exact
//! rustc invocation ([`record`]) and what build scripts said, [`Project::flatten`] gives the crate's module tree as
//! one text ([`flatten`]) that the single-file machinery takes as it is, and [`graph::CrateGraph`] lists the crates
//! it is checked against. Nothing here knows rust-analyzer or runs a snippet.

pub mod flatten;
pub mod graph;
pub mod metadata;
pub mod record;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use flatten::{flatten, FlattenError, Flattened};
pub use graph::{Cfg, CrateGraph, CrateSpec};
pub use metadata::{Metadata, Package, Target};
pub use record::{BuildMessages, CrateFlags, Invocation, RECORD_ENV};

/// Names the Lacuna binary the rustc wrapper script runs.
const WRAPPER_EXE_ENV: &str = "LACUNA_WRAPPER_EXE";

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("`cargo {step}` failed: {detail}")]
    Cargo { step: &'static str, detail: String },
    #[error("the project does not build; fix it and run again (`cargo build` shows the same):\n{}", .0.join("\n"))]
    DoesNotBuild(Vec<String>),
    #[error("no Cargo.toml at {}: give a cargo project's directory or its Cargo.toml", .0.display())]
    NoManifest(PathBuf),
    #[error("{} is not the manifest of a package (a virtual workspace?): give a member's Cargo.toml", .0.display())]
    NotAPackage(PathBuf),
    #[error("package `{package}` has no binary{}", which.as_deref().map(|b| format!(" named `{b}`")).unwrap_or_default())]
    NoBinary { package: String, which: Option<String> },
    #[error("package `{package}` has several binaries ({names}): say which with --bin")]
    SeveralBinaries { package: String, names: String },
    #[error("package `{0}` has no library")]
    NoLibrary(String),
    #[error("package `{0}` does not depend on `lacuna`: add `lacuna = {{ path = \"<lacuna>/crates/lacuna\" }}` to its [dependencies]")]
    NoLacuna(String),
    #[error("cargo built `{0}` but Lacuna did not see its rustc invocation (was cargo's rustc wrapper replaced?)")]
    NotRecorded(String),
    #[error(transparent)]
    Flatten(#[from] FlattenError),
}

/// Which crate of the package holds the holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrateChoice {
    /// A binary: the only one, or the one named.
    Bin(Option<String>),
    /// The package's library.
    Lib,
}

/// A crate of a package (a binary, or the library), the host.
#[derive(Debug, Clone)]
pub struct Project {
    pub manifest: PathBuf,
    pub metadata: Metadata,
    /// The package's id in `metadata`.
    pub package: String,
    /// The host crate's target.
    pub bin: Target,
    /// The host is the package's library, not a binary.
    pub is_lib: bool,
    /// The package's library, when the host is a binary of a package that has one: the two are one crate then
    /// ([`flatten::flatten_package`]), built with the library's flags, so holes in either run.
    pub library: Option<Target>,
    /// Lacuna's own cargo target directory for the project: `<target>/lacuna`.
    pub target_dir: PathBuf,
}

/// What building the project once told Lacuna.
#[derive(Debug, Clone)]
pub struct Build {
    /// rustc's invocation for the binary's crate.
    pub rustc: Invocation,
    pub messages: BuildMessages,
}

/// A project's crate built and flattened: everything a checker and an engine need of it.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub project: Project,
    /// The crate as one text.
    pub flat: Flattened,
    /// The crates it is checked against.
    pub graph: CrateGraph,
    /// How cargo compiles it, with what its build script added to the environment.
    pub flags: CrateFlags,
}

/// The cargo that builds projects: `$CARGO` (set when run by cargo), else `cargo` from `PATH`.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("cargo"))
}

impl Project {
    /// Builds the crate ([`Project::build`], `wrapper` a program that calls [`record::wrapper_main`] first) and
    /// flattens it.
    pub fn load(self, cargo: &Path, wrapper: &Path) -> Result<Loaded, ProjectError> {
        let build = self.build(cargo, wrapper)?;
        let flat = self.flatten()?;
        // What cargo gave rustc, and what the package's build script added (`cargo::rustc-env`), which the recorded
        // environment names only when the wrapper saw it.
        let mut env = build.rustc.env.clone();
        let script = build.messages.build_scripts.get(&self.package).map(|b| b.env.as_slice()).unwrap_or_default();
        for (key, value) in script {
            if !env.iter().any(|(k, _)| k == key) {
                env.push((key.clone(), value.clone()));
            }
        }
        let flags = build.rustc.crate_flags(env);
        let graph = self.crate_graph(&build);
        Ok(Loaded { project: self, flat, graph, flags })
    }

    /// The project at `path` (a directory with a Cargo.toml, or a Cargo.toml), and its crate `choice`.
    pub fn discover(cargo: &Path, path: &Path, choice: &CrateChoice) -> Result<Project, ProjectError> {
        let manifest = if path.is_dir() { path.join("Cargo.toml") } else { path.to_path_buf() };
        if !manifest.is_file() {
            return Err(ProjectError::NoManifest(path.to_path_buf()));
        }
        let metadata = Metadata::load(cargo, &manifest)?;
        let package = metadata.package_at(&manifest).ok_or_else(|| ProjectError::NotAPackage(manifest.clone()))?;
        let bins: Vec<&Target> = package.targets.iter().filter(|t| t.is("bin")).collect();
        let chosen = match choice {
            CrateChoice::Lib => Some(
                package
                    .targets
                    .iter()
                    .find(|t| t.is_lib() && !t.is("proc-macro"))
                    .ok_or_else(|| ProjectError::NoLibrary(package.name.clone()))?,
            ),
            CrateChoice::Bin(Some(name)) => bins.iter().find(|t| &t.name == name).copied(),
            CrateChoice::Bin(None) if bins.len() > 1 => {
                let names = bins.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
                return Err(ProjectError::SeveralBinaries { package: package.name.clone(), names });
            }
            CrateChoice::Bin(None) => bins.first().copied(),
        };
        let which = match choice {
            CrateChoice::Bin(name) => name.clone(),
            CrateChoice::Lib => None,
        };
        let bin = chosen.ok_or_else(|| ProjectError::NoBinary { package: package.name.clone(), which })?.clone();
        let is_lib = *choice == CrateChoice::Lib;
        // A library a binary can use (not a proc macro, not only a C library).
        let library = match is_lib {
            true => None,
            false => package.targets.iter().find(|t| t.is_lib() && !t.is("proc-macro")).cloned(),
        };
        let depends_on_lacuna = metadata
            .nodes()
            .get(package.id.as_str())
            .is_some_and(|n| n.deps.iter().any(|d| d.name == graph::LACUNA && d.is_normal()));
        if !depends_on_lacuna {
            return Err(ProjectError::NoLacuna(package.name.clone()));
        }
        let target_dir = metadata.target_directory.join("lacuna");
        let package = package.id.clone();
        Ok(Project { manifest, metadata, package, bin, is_lib, library, target_dir })
    }

    pub fn package(&self) -> &Package {
        self.metadata.package(&self.package).expect("the project's package is in its metadata")
    }

    /// Builds the binary with cargo (dependencies once, then cached in [`Project::target_dir`]), `wrapper` — a
    /// Lacuna binary — acting as rustc's wrapper so the crate's invocation is written down. Cargo's progress goes to
    /// this process's stderr; the project's warnings do not.
    pub fn build(&self, cargo: &Path, wrapper: &Path) -> Result<Build, ProjectError> {
        let record = self.target_dir.join("rustc-invocations.jsonl");
        for attempt in 0..2 {
            if attempt == 1 {
                // Cargo found the crate fresh but the record of its invocation is gone: build the crate again.
                let status = Command::new(cargo)
                    .args(["clean", "--quiet", "-p", &self.package().name, "--manifest-path"])
                    .arg(&self.manifest)
                    .arg("--target-dir")
                    .arg(&self.target_dir)
                    .status();
                if !status.is_ok_and(|s| s.success()) {
                    return Err(ProjectError::Cargo { step: "clean", detail: "see its output above".into() });
                }
            }
            std::fs::create_dir_all(&self.target_dir).map_err(|e| ProjectError::Cargo {
                step: "build",
                detail: format!("cannot create {}: {e}", self.target_dir.display()),
            })?;
            let script = self.wrapper_script()?;
            let which = match self.is_lib {
                true => vec!["--lib"],
                false => vec!["--bin", self.bin.name.as_str()],
            };
            let out = Command::new(cargo)
                .args(["build", "--message-format=json"])
                .args(which)
                .arg("--manifest-path")
                .arg(&self.manifest)
                .arg("--target-dir")
                .arg(&self.target_dir)
                .env("RUSTC_WORKSPACE_WRAPPER", &script)
                .env(WRAPPER_EXE_ENV, wrapper)
                .env(RECORD_ENV, &record)
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| ProjectError::Cargo { step: "build", detail: format!("cannot run cargo: {e}") })?;
            let messages = BuildMessages::parse(&String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                return Err(match messages.errors.is_empty() {
                    true => ProjectError::Cargo { step: "build", detail: "see its output above".into() },
                    false => ProjectError::DoesNotBuild(messages.errors),
                });
            }
            if let Some(rustc) = self.recorded_invocation(&record) {
                return Ok(Build { rustc, messages });
            }
        }
        Err(ProjectError::NotRecorded(self.flags_target().name.clone()))
    }

    /// A wrapper script that runs the Lacuna binary `$LACUNA_WRAPPER_EXE`: cargo sees the same wrapper (path,
    /// content, age) whichever Lacuna binary builds, so a new Lacuna does not rebuild every dependency.
    fn wrapper_script(&self) -> Result<PathBuf, ProjectError> {
        let path = self.target_dir.join("rustc-wrapper");
        let text = format!("#!/bin/sh\nexec \"${WRAPPER_EXE_ENV}\" \"$@\"\n");
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            let written = std::fs::write(&path, &text).and_then(|_| {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            });
            written.map_err(|e| ProjectError::Cargo {
                step: "build",
                detail: format!("cannot write the rustc wrapper {}: {e}", path.display()),
            })?;
        }
        Ok(path)
    }

    /// The target whose rustc invocation the host crate is checked and built with: the library when there is one.
    fn flags_target(&self) -> &Target {
        self.library.as_ref().unwrap_or(&self.bin)
    }

    /// The last recorded invocation that compiled the host crate (the library's, when the binary is its module).
    fn recorded_invocation(&self, record: &Path) -> Option<Invocation> {
        let target = self.flags_target();
        let root = target.src_path.canonicalize().ok()?;
        let lib = self.is_lib || self.library.is_some();
        record::recorded(record).into_iter().rev().find(|i| {
            i.crate_types().iter().any(|t| match lib {
                true => matches!(*t, "lib" | "rlib" | "dylib" | "cdylib" | "staticlib"),
                false => *t == "bin",
            }) && i.crate_name() == Some(target.crate_name().as_str())
                && i.source().and_then(|s| s.canonicalize().ok()).as_deref() == Some(root.as_path())
        })
    }

    /// The host crate as one text: the binary's or the library's, or the two as one crate.
    pub fn flatten(&self) -> Result<Flattened, ProjectError> {
        // Line ends as Lacuna's hosts have them: offsets then agree with the host text checks see.
        let mut read =
            |p: &Path| std::fs::read_to_string(p).ok().map(|t| t.trim_start_matches('\u{feff}').replace("\r\n", "\n"));
        Ok(match &self.library {
            Some(lib) => flatten::flatten_package(&lib.src_path, &lib.crate_name(), &self.bin.src_path, &mut read)?,
            None => flatten(&self.bin.src_path, &mut read)?,
        })
    }

    /// The crates the binary is checked against.
    pub fn crate_graph(&self, build: &Build) -> CrateGraph {
        CrateGraph::new(&self.metadata, &self.package, &build.rustc, &build.messages)
    }
}
