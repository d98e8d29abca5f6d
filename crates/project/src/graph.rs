//! The crates a project's code is checked against, as plain data for the checker's crate graph: every library the
//! crate depends on, transitively, with the root file, edition, cfgs and compile-time environment cargo gives it.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::metadata::Metadata;
use crate::record::{BuildMessages, Invocation};

/// A `cfg` as rustc takes it: `name` or `name="value"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cfg {
    Atom(String),
    KeyValue(String, String),
}

impl Cfg {
    /// Reads `name` or `name="value"` (cargo's `--cfg` values and build scripts' `cargo:rustc-cfg`).
    pub fn parse(s: &str) -> Cfg {
        match s.split_once('=') {
            Some((k, v)) => Cfg::KeyValue(k.trim().to_owned(), v.trim().trim_matches('"').to_owned()),
            None => Cfg::Atom(s.trim().to_owned()),
        }
    }
}

/// One library crate of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateSpec {
    /// Its crate name (`serde_json`).
    pub name: String,
    pub root: PathBuf,
    /// The directories whose `.rs` files are the crate's: its package's, and its build script's `OUT_DIR`.
    pub dirs: Vec<PathBuf>,
    /// `2015`, `2018`, `2021` or `2024`.
    pub edition: String,
    pub cfgs: Vec<Cfg>,
    pub env: Vec<(String, String)>,
    /// Its dependencies: the name it uses for each, and the dependency's index in [`CrateGraph::crates`].
    pub deps: Vec<(String, usize)>,
    pub proc_macro: bool,
    /// A proc-macro crate's shared library, as cargo built it (rust-analyzer's proc-macro server loads it).
    pub proc_macro_dylib: Option<PathBuf>,
    /// It is the library of the host's own package (`src/lib.rs` beside `src/main.rs`): host code, as the binary's
    /// own items are. Every other crate — other workspace members and path dependencies too — is a dependency,
    /// which safe mode allows only as `[policy] crates` lists it.
    pub local: bool,
}

/// The host crate (the one holes are in) and every crate it depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateGraph {
    pub crates: Vec<CrateSpec>,
    pub host_edition: String,
    pub host_cfgs: Vec<Cfg>,
    pub host_env: Vec<(String, String)>,
    /// The host crate's dependencies, as [`CrateSpec::deps`]. The `lacuna` crate is not among them: the checker
    /// has its own copy of the same source, which it adds under that name.
    pub host_deps: Vec<(String, usize)>,
}

/// The crate name Lacuna's own library has in a project.
pub const LACUNA: &str = "lacuna";

impl CrateGraph {
    /// The graph of the crate `host` compiles, from cargo's metadata and build output.
    pub fn new(metadata: &Metadata, host_package: &str, host: &Invocation, build: &BuildMessages) -> CrateGraph {
        let nodes = metadata.nodes();
        let mut crates: Vec<CrateSpec> = Vec::new();
        let mut index: HashMap<String, Option<usize>> = HashMap::new();
        // Iterative depth-first: a package's crate is pushed after its dependencies'.
        #[allow(clippy::too_many_arguments)]
        fn visit(
            id: &str,
            host_package: &str,
            metadata: &Metadata,
            nodes: &HashMap<&str, &crate::metadata::Node>,
            build: &BuildMessages,
            crates: &mut Vec<CrateSpec>,
            index: &mut HashMap<String, Option<usize>>,
        ) -> Option<usize> {
            if let Some(done) = index.get(id) {
                return *done;
            }
            index.insert(id.to_owned(), None);
            let package = metadata.package(id)?;
            let lib = package.targets.iter().find(|t| t.is_lib())?;
            if lib.crate_name() == LACUNA {
                return None;
            }
            let node = nodes.get(id);
            let mut deps = Vec::new();
            for dep in node.map(|n| n.deps.as_slice()).unwrap_or_default() {
                if dep.is_normal() {
                    if let Some(i) = visit(&dep.pkg, host_package, metadata, nodes, build, crates, index) {
                        deps.push((dep.name.clone(), i));
                    }
                }
            }
            let script = build.build_scripts.get(id);
            let mut cfgs: Vec<Cfg> = node
                .map(|n| n.features.iter().map(|f| Cfg::KeyValue("feature".into(), f.clone())).collect())
                .unwrap_or_default();
            cfgs.extend(script.iter().flat_map(|s| s.cfgs.iter().map(|c| Cfg::parse(c))));
            let dir = package.manifest_path.parent().map(PathBuf::from).unwrap_or_default();
            let mut env = package_env(package, &dir);
            let mut dirs = vec![dir];
            if let Some(script) = script {
                env.extend(script.env.iter().cloned());
                if let Some(out) = &script.out_dir {
                    env.push(("OUT_DIR".into(), out.display().to_string()));
                    dirs.push(out.clone());
                }
            }
            let edition = if lib.edition.is_empty() { package.edition.clone() } else { lib.edition.clone() };
            let proc_macro = lib.is("proc-macro");
            let proc_macro_dylib = proc_macro
                .then(|| build.artifacts.get(id))
                .flatten()
                .into_iter()
                .flatten()
                .filter(|(target, _)| target == &lib.name)
                .flat_map(|(_, files)| files)
                .find(|f| f.extension().is_some_and(|e| e == "so" || e == "dylib" || e == "dll"))
                .cloned();
            crates.push(CrateSpec {
                name: lib.crate_name(),
                root: lib.src_path.clone(),
                dirs,
                edition,
                cfgs,
                env,
                deps,
                proc_macro,
                proc_macro_dylib,
                local: id == host_package,
            });
            let i = crates.len() - 1;
            index.insert(id.to_owned(), Some(i));
            Some(i)
        }

        let externs = host.externs();
        let mut host_deps = Vec::new();
        for dep in nodes.get(host_package).map(|n| n.deps.as_slice()).unwrap_or_default() {
            // The host compiles against what its invocation names: a dev- or build-only dependency is not there.
            if !dep.is_normal() || !externs.iter().any(|(name, _)| *name == dep.name) {
                continue;
            }
            if let Some(i) = visit(&dep.pkg, host_package, metadata, &nodes, build, &mut crates, &mut index) {
                host_deps.push((dep.name.clone(), i));
            }
        }
        // The package's own library, when a binary of it uses it.
        if let Some(package) = metadata.package(host_package) {
            if let Some(lib) = package.targets.iter().find(|t| t.is_lib()) {
                let name = lib.crate_name();
                if externs.iter().any(|(n, _)| *n == name) && Some(name.as_str()) != host.crate_name() {
                    index.remove(host_package);
                    if let Some(i) = visit(host_package, host_package, metadata, &nodes, build, &mut crates, &mut index)
                    {
                        host_deps.push((name, i));
                    }
                }
            }
        }
        let mut host_cfgs: Vec<Cfg> = host.cfgs().into_iter().map(Cfg::parse).collect();
        if host.debug_assertions() {
            host_cfgs.push(Cfg::Atom("debug_assertions".into()));
        }
        CrateGraph { crates, host_edition: host.edition().to_owned(), host_cfgs, host_env: host.env.clone(), host_deps }
    }
}

/// What cargo sets for every crate it compiles (`env!("CARGO_PKG_NAME")` and friends).
fn package_env(package: &crate::metadata::Package, dir: &std::path::Path) -> Vec<(String, String)> {
    let mut env = vec![
        ("CARGO_PKG_NAME".to_owned(), package.name.clone()),
        ("CARGO_PKG_VERSION".to_owned(), package.version.clone()),
        ("CARGO_MANIFEST_DIR".to_owned(), dir.display().to_string()),
        ("CARGO_CRATE_NAME".to_owned(), package.name.replace('-', "_")),
    ];
    let mut parts = package.version.split(['.', '-', '+']);
    for key in ["CARGO_PKG_VERSION_MAJOR", "CARGO_PKG_VERSION_MINOR", "CARGO_PKG_VERSION_PATCH"] {
        env.push((key.to_owned(), parts.next().unwrap_or("0").to_owned()));
    }
    env
}
