//! `cargo metadata`: the packages of a project and how they depend on each other, as the part of cargo's JSON a
//! host needs (format version 1).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use crate::ProjectError;

/// The project as cargo resolved it.
#[derive(Debug, Clone, Deserialize)]
pub struct Metadata {
    pub packages: Vec<Package>,
    pub workspace_members: Vec<String>,
    pub resolve: Option<Resolve>,
    pub target_directory: PathBuf,
    pub workspace_root: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Package {
    pub id: String,
    pub name: String,
    pub version: String,
    pub manifest_path: PathBuf,
    pub targets: Vec<Target>,
    #[serde(default)]
    pub edition: String,
    /// `[package.metadata]`, where `[package.metadata.lacuna]` lives.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Target {
    pub name: String,
    pub kind: Vec<String>,
    pub src_path: PathBuf,
    #[serde(default)]
    pub edition: String,
}

impl Target {
    pub fn is(&self, kind: &str) -> bool {
        self.kind.iter().any(|k| k == kind)
    }

    /// A library cargo builds for dependents: `lib`, `rlib`, `dylib`, `proc-macro`, ...
    pub fn is_lib(&self) -> bool {
        self.kind.iter().any(|k| matches!(k.as_str(), "lib" | "rlib" | "dylib" | "proc-macro"))
    }

    /// The name rustc knows it by (`-` becomes `_`).
    pub fn crate_name(&self) -> String {
        self.name.replace('-', "_")
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Resolve {
    pub nodes: Vec<Node>,
    pub root: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Node {
    pub id: String,
    #[serde(default)]
    pub deps: Vec<NodeDep>,
    /// Features enabled on this package.
    #[serde(default)]
    pub features: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct NodeDep {
    /// The name the dependent uses (`extern crate` name, renames applied).
    pub name: String,
    pub pkg: String,
    #[serde(default)]
    pub dep_kinds: Vec<DepKindInfo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DepKindInfo {
    /// `null` for a normal dependency, `"dev"` or `"build"`.
    pub kind: Option<String>,
}

impl NodeDep {
    /// A dependency of the package's library and binaries (not only of tests or build scripts).
    pub fn is_normal(&self) -> bool {
        self.dep_kinds.is_empty() || self.dep_kinds.iter().any(|k| k.kind.is_none())
    }
}

impl Metadata {
    /// Runs `cargo metadata` for the manifest.
    pub fn load(cargo: &Path, manifest: &Path) -> Result<Metadata, ProjectError> {
        let out = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(manifest)
            .output()
            .map_err(|e| ProjectError::Cargo { step: "metadata", detail: format!("cannot run cargo: {e}") })?;
        if !out.status.success() {
            return Err(ProjectError::Cargo {
                step: "metadata",
                detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        Metadata::parse(&out.stdout)
    }

    pub fn parse(json: &[u8]) -> Result<Metadata, ProjectError> {
        serde_json::from_slice(json)
            .map_err(|e| ProjectError::Cargo { step: "metadata", detail: format!("unexpected output: {e}") })
    }

    pub fn package(&self, id: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.id == id)
    }

    /// Each package's resolve node, by id.
    pub fn nodes(&self) -> HashMap<&str, &Node> {
        self.resolve.iter().flat_map(|r| &r.nodes).map(|n| (n.id.as_str(), n)).collect()
    }

    /// The package whose manifest is `manifest` (a workspace member).
    pub fn package_at(&self, manifest: &Path) -> Option<&Package> {
        let manifest = manifest.canonicalize().ok()?;
        self.packages
            .iter()
            .filter(|p| self.workspace_members.contains(&p.id))
            .find(|p| p.manifest_path.canonicalize().ok().as_deref() == Some(manifest.as_path()))
    }
}
