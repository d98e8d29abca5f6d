//! The crate graph rust-analyzer checks against, in memory: std's crates (every source file of the toolchain's
//! `library/`, one library root), the `lacuna` prelude crate, and one host crate whose single file is replaced for
//! each check. A cargo project's host also has the libraries it depends on, each one root of its package's files
//! (and its build script's output), with cargo's cfgs and environment. Built once per checker; nothing here reads
//! the host.

use std::collections::HashMap;
use std::path::PathBuf;

use ra_ap_base_db::{
    CrateBuilderId, CrateDisplayName, CrateGraphBuilder, CrateName, CrateOrigin, CrateWorkspaceData, DependencyBuilder,
    Env, FileChange, LangCrateOrigin, SourceRoot, SourceRootId,
};
use ra_ap_cfg::CfgOptions;
use ra_ap_ide::{Edition, FileId};
use ra_ap_intern::Symbol;
use ra_ap_paths::{AbsPathBuf, Utf8PathBuf};
use ra_ap_vfs::{file_set::FileSet, VfsPath};

use lacuna_project::{Cfg, CrateGraph, CrateSpec};

use crate::std_source::{rust_files, StdSource, TargetInfo};
use crate::CheckerError;

/// The first change rust-analyzer's database gets: every file and root, and the crate graph.
pub(crate) struct World {
    pub change: FileChange,
    /// The host crate's one file (empty until a check sets it).
    pub host_file: FileId,
    /// How many std source files were found.
    pub std_files: usize,
    /// std's files for this target, core's first.
    pub std_file_ids: Vec<FileId>,
    /// A project's proc-macro crates and their shared libraries (none was built: `None`).
    pub proc_macro_crates: Vec<(CrateBuilderId, Option<PathBuf>)>,
    /// The first file id no file has: where the host's module files take theirs ([`crate::apart`]).
    pub next_file: u32,
}

/// The host's source root: the host file and, beside it, its modules read as files of their own.
pub(crate) const HOST_ROOT: SourceRootId = SourceRootId(2);

/// The host's source root with `modules` (each a file id and a path below the host file's directory).
pub(crate) fn host_root(host_file: FileId, modules: &[(FileId, &str)]) -> SourceRoot {
    let mut set = one_file(host_file, HOST_PATH);
    for (id, path) in modules {
        set.insert(*id, VfsPath::new_virtual_path(format!("/host/{path}")));
    }
    SourceRoot::new_local(set)
}

const HOST_PATH: &str = "/host/main.rs";

/// File ids, handed out in order.
#[derive(Default)]
struct Ids(u32);

impl Ids {
    fn fresh(&mut self) -> FileId {
        self.0 += 1;
        FileId::from_raw(self.0 - 1)
    }
}

/// std's source files, loaded as one library root.
struct StdFiles {
    set: FileSet,
    /// Each file's id by its path (crate roots are looked up here).
    ids_by_path: HashMap<PathBuf, FileId>,
    count: usize,
    for_target: Vec<FileId>,
}

/// What every crate of the graph shares.
struct Shared {
    cwd: triomphe::Arc<AbsPathBuf>,
    ws: triomphe::Arc<CrateWorkspaceData>,
}

impl Shared {
    /// A crate: its root file, edition and name; its cfg (potential cfg the same), no env, no proc macros.
    fn add_crate(
        &self,
        graph: &mut CrateGraphBuilder,
        (root, edition, name): (FileId, Edition, &str),
        cfg: &CfgOptions,
        origin: CrateOrigin,
    ) -> CrateBuilderId {
        graph.add_crate_root(
            root,
            edition,
            Some(CrateDisplayName::from_canonical_name(name)),
            None,
            cfg.clone(),
            Some(cfg.clone()),
            Env::default(),
            origin,
            Vec::new(),
            false,
            self.cwd.clone(),
            self.ws.clone(),
        )
    }
}

impl World {
    pub fn new(
        std_src: &StdSource,
        target: &TargetInfo,
        prelude: &str,
        project: Option<&CrateGraph>,
    ) -> Result<World, CheckerError> {
        let mut change = FileChange::default();
        let mut ids = Ids::default();
        let std = std_files(std_src, target, &mut change, &mut ids);
        let project_files: Vec<(FileSet, bool, HashMap<PathBuf, FileId>)> = project
            .map(|p| p.crates.iter().map(|c| crate_files(c, &mut change, &mut ids)).collect())
            .unwrap_or_default();

        let prelude_id = ids.fresh();
        change.change_file(prelude_id, Some(prelude.to_owned()));
        let host_file = ids.fresh();
        change.change_file(host_file, Some(String::new()));
        let (std_files, std_file_ids) = (std.count, std.for_target);
        let mut roots = vec![
            SourceRoot::new_library(std.set),
            SourceRoot::new_library(one_file(prelude_id, "/lacuna/lib.rs")),
            // At `HOST_ROOT`.
            host_root(host_file, &[]),
        ];
        let mut project_roots = Vec::new();
        for (set, local, by_path) in project_files {
            roots.push(if local { SourceRoot::new_local(set) } else { SourceRoot::new_library(set) });
            project_roots.push(by_path);
        }
        change.set_roots(roots);

        let shared = Shared {
            cwd: triomphe::Arc::new(AbsPathBuf::assert(Utf8PathBuf::from("/"))),
            ws: triomphe::Arc::new(CrateWorkspaceData {
                target: Ok(ra_ap_base_db::target::TargetData {
                    data_layout: target.data_layout.clone().into_boxed_str(),
                    arch: ra_ap_base_db::target::Arch::Other,
                }),
                toolchain: None,
            }),
        };
        let target_cfg = target_cfg(target);
        let mut graph = CrateGraphBuilder::default();
        let std_crates = add_std_crates(&mut graph, std_src, &std.ids_by_path, &target_cfg, &shared)?;
        let mut host_cfg = target_cfg.clone();
        // A debug build, as `rustc` without -O compiles the host.
        host_cfg.insert_atom(Symbol::intern("debug_assertions"));
        let lacuna = shared.add_crate(
            &mut graph,
            (prelude_id, Edition::Edition2021, "lacuna"),
            &host_cfg,
            CrateOrigin::Library { repo: None, name: Symbol::intern("lacuna") },
        );
        add_std_deps(&mut graph, lacuna, &std_crates)?;
        let mut proc_macro_crates = Vec::new();
        let host_crate = match project {
            None => shared.add_crate(
                &mut graph,
                (host_file, Edition::Edition2021, "host"),
                &host_cfg,
                CrateOrigin::Local { repo: None, name: Some(Symbol::intern("host")) },
            ),
            Some(project) => {
                let deps = add_project_crates(&mut graph, project, &project_roots, &target_cfg, &shared, &std_crates)?;
                for (krate, id) in project.crates.iter().zip(&deps) {
                    if krate.proc_macro {
                        proc_macro_crates.push((*id, krate.proc_macro_dylib.clone()));
                    }
                }
                let cfg = with_cfgs(&target_cfg, &project.host_cfgs);
                let host = graph.add_crate_root(
                    host_file,
                    edition(&project.host_edition),
                    Some(CrateDisplayName::from_canonical_name("host")),
                    None,
                    cfg.clone(),
                    Some(cfg),
                    project.host_env.iter().cloned().collect(),
                    CrateOrigin::Local { repo: None, name: Some(Symbol::intern("host")) },
                    Vec::new(),
                    false,
                    shared.cwd.clone(),
                    shared.ws.clone(),
                );
                for (name, i) in &project.host_deps {
                    let name = CrateName::normalize_dashes(name);
                    graph.add_dep(host, DependencyBuilder::new(name, deps[*i])).map_err(graph_error)?;
                }
                host
            }
        };
        add_std_deps(&mut graph, host_crate, &std_crates)?;
        let dep = DependencyBuilder::new(CrateName::new("lacuna").expect("valid crate name"), lacuna);
        graph.add_dep(host_crate, dep).map_err(graph_error)?;
        change.set_crate_graph(graph);
        Ok(World { change, host_file, std_files, std_file_ids, proc_macro_crates, next_file: ids.0 })
    }
}

/// A project crate's files: every `.rs` file under its directories, one source root.
fn crate_files(krate: &CrateSpec, change: &mut FileChange, ids: &mut Ids) -> (FileSet, bool, HashMap<PathBuf, FileId>) {
    let mut files = Vec::new();
    for dir in &krate.dirs {
        project_rust_files(dir, &mut files, 0);
    }
    let mut set = FileSet::default();
    let mut by_path = HashMap::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Some(vfs) = vfs_path(&path) else { continue };
        let id = ids.fresh();
        change.change_file(id, Some(text));
        set.insert(id, vfs);
        by_path.insert(path, id);
    }
    (set, krate.local, by_path)
}

/// `.rs` files under `dir`, without build output, version control, tests, benchmarks or examples.
fn project_rust_files(dir: &std::path::Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() {
            if depth < 16
                && !name.starts_with('.')
                && !matches!(name.as_str(), "target" | "tests" | "benches" | "examples")
            {
                project_rust_files(&path, out, depth + 1);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The project's library crates, dependencies first; their ids in the order of [`CrateGraph::crates`].
fn add_project_crates(
    graph: &mut CrateGraphBuilder,
    project: &CrateGraph,
    roots: &[HashMap<PathBuf, FileId>],
    target_cfg: &CfgOptions,
    shared: &Shared,
    std_crates: &HashMap<&'static str, CrateBuilderId>,
) -> Result<Vec<CrateBuilderId>, CheckerError> {
    let mut ids: Vec<CrateBuilderId> = Vec::with_capacity(project.crates.len());
    for (krate, files) in project.crates.iter().zip(roots) {
        let root = files.get(&krate.root).copied().ok_or_else(|| CheckerError::Internal {
            detail: format!("the root of crate `{}` ({}) was not found", krate.name, krate.root.display()),
        })?;
        let mut cfg = with_cfgs(target_cfg, &krate.cfgs);
        cfg.insert_atom(Symbol::intern("debug_assertions"));
        let origin = match krate.local {
            true => CrateOrigin::Local { repo: None, name: Some(Symbol::intern(&krate.name)) },
            false => CrateOrigin::Library { repo: None, name: Symbol::intern(&krate.name) },
        };
        let id = graph.add_crate_root(
            root,
            edition(&krate.edition),
            Some(CrateDisplayName::from_canonical_name(&krate.name)),
            None,
            cfg.clone(),
            Some(cfg),
            krate.env.iter().cloned().collect(),
            origin,
            Vec::new(),
            krate.proc_macro,
            shared.cwd.clone(),
            shared.ws.clone(),
        );
        add_std_deps(graph, id, std_crates)?;
        for (name, dep) in &krate.deps {
            let dep = DependencyBuilder::new(CrateName::normalize_dashes(name), ids[*dep]);
            graph.add_dep(id, dep).map_err(graph_error)?;
        }
        ids.push(id);
    }
    Ok(ids)
}

fn with_cfgs(base: &CfgOptions, cfgs: &[Cfg]) -> CfgOptions {
    let mut cfg = base.clone();
    for c in cfgs {
        match c {
            Cfg::Atom(a) => cfg.insert_atom(Symbol::intern(a)),
            Cfg::KeyValue(k, v) => cfg.insert_key_value(Symbol::intern(k), Symbol::intern(v)),
        }
    }
    cfg
}

fn edition(e: &str) -> Edition {
    e.parse().unwrap_or(Edition::Edition2015)
}

fn graph_error(e: impl std::fmt::Debug) -> CheckerError {
    CheckerError::Internal { detail: format!("crate graph: {e:?}") }
}

fn one_file(id: FileId, path: &str) -> FileSet {
    let mut set = FileSet::default();
    set.insert(id, VfsPath::new_virtual_path(path.to_owned()));
    set
}

/// Every reachable std source file, in one library root, so `#[path]` includes across crate dirs resolve.
fn std_files(std_src: &StdSource, target: &TargetInfo, change: &mut FileChange, ids: &mut Ids) -> StdFiles {
    let mut files = Vec::new();
    for dir in std_src.source_dirs() {
        rust_files(&dir, &mut files);
    }
    let mut out =
        StdFiles { set: FileSet::default(), ids_by_path: HashMap::new(), count: files.len(), for_target: Vec::new() };
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Some(vfs_path) = vfs_path(&path) else { continue };
        let id = ids.fresh();
        change.change_file(id, Some(text));
        if !for_other_platform(&path, target) {
            out.for_target.push(id);
        }
        out.ids_by_path.insert(path, id);
        out.set.insert(id, vfs_path);
    }
    out
}

/// The target's cfg, as rustc prints it.
fn target_cfg(target: &TargetInfo) -> CfgOptions {
    let mut cfg = CfgOptions::default();
    for (key, value) in &target.cfg {
        match value {
            Some(v) => cfg.insert_key_value(Symbol::intern(key), Symbol::intern(v)),
            None => cfg.insert_atom(Symbol::intern(key)),
        }
    }
    cfg
}

/// std's crates with their features and dependencies on each other.
fn add_std_crates(
    graph: &mut CrateGraphBuilder,
    std_src: &StdSource,
    ids_by_path: &HashMap<PathBuf, FileId>,
    target_cfg: &CfgOptions,
    shared: &Shared,
) -> Result<HashMap<&'static str, CrateBuilderId>, CheckerError> {
    let mut std_crates = HashMap::new();
    for krate in std_src.crates() {
        let Some(&root) = ids_by_path.get(&std_src.library.join(&krate.root)) else { continue };
        let mut cfg = target_cfg.clone();
        for feature in krate.features {
            cfg.insert_key_value(Symbol::intern("feature"), Symbol::intern(feature));
        }
        let origin = match krate.name {
            "core" => CrateOrigin::Lang(LangCrateOrigin::Core),
            "alloc" => CrateOrigin::Lang(LangCrateOrigin::Alloc),
            "std" => CrateOrigin::Lang(LangCrateOrigin::Std),
            name => CrateOrigin::Library { repo: None, name: Symbol::intern(name) },
        };
        let id = shared.add_crate(graph, (root, Edition::Edition2024, krate.name), &cfg, origin);
        for dep in krate.deps {
            if let Some(&dep_id) = std_crates.get(dep) {
                let name = CrateName::new(dep).expect("std crate names have no dashes");
                graph.add_dep(id, DependencyBuilder::with_prelude(name, dep_id, true, true)).map_err(graph_error)?;
            }
        }
        std_crates.insert(krate.name, id);
    }
    if !std_crates.contains_key("std") {
        return Err(CheckerError::StdSourceMissing {
            detail: format!("{} has no usable std crate", std_src.library.display()),
        });
    }
    Ok(std_crates)
}

/// `core` and `std` in a crate's extern prelude; `alloc` a dependency but, as under rustc, not in it.
fn add_std_deps(
    graph: &mut CrateGraphBuilder,
    krate: CrateBuilderId,
    std_crates: &HashMap<&'static str, CrateBuilderId>,
) -> Result<(), CheckerError> {
    for name in ["core", "std"] {
        let dep = DependencyBuilder::with_prelude(
            CrateName::new(name).expect("valid crate name"),
            std_crates[name],
            true,
            true,
        );
        graph.add_dep(krate, dep).map_err(graph_error)?;
    }
    if let Some(&alloc) = std_crates.get("alloc") {
        let dep =
            DependencyBuilder::with_prelude(CrateName::new("alloc").expect("valid crate name"), alloc, false, true);
        graph.add_dep(krate, dep).map_err(graph_error)?;
    }
    Ok(())
}

/// Platform directories of std and stdarch whose modules the target's cfg turns off. Only a prefetch hint: a
/// file wrongly skipped is parsed when needed, a file wrongly kept is parsed for nothing.
fn for_other_platform(path: &std::path::Path, target: &TargetInfo) -> bool {
    const PLATFORM_DIRS: &[&str] = &[
        "aarch64",
        "arm",
        "arm_shared",
        "wasm32",
        "wasm",
        "mips",
        "mips64",
        "powerpc",
        "powerpc64",
        "nvptx",
        "riscv32",
        "riscv64",
        "riscv_shared",
        "loongarch32",
        "loongarch64",
        "loongarch_shared",
        "s390x",
        "hexagon",
        "amdgpu",
        "windows",
        "wasi",
        "hermit",
        "sgx",
        "uefi",
        "solid",
        "teeos",
        "xous",
        "zkvm",
        "vexos",
        "trusty",
        "motor",
        "itron",
        "darwin",
        "apple",
        "ios",
        "macos",
        "android",
        "freebsd",
        "netbsd",
        "openbsd",
        "dragonfly",
        "illumos",
        "solaris",
        "haiku",
        "horizon",
        "vita",
        "espidf",
        "fuchsia",
        "redox",
        "aix",
        "hurd",
        "nto",
        "vxworks",
        "l4re",
        "emscripten",
        "cygwin",
        "x86",
        "x86_64",
    ];
    let own: Vec<&str> = target
        .cfg
        .iter()
        .filter(|(k, _)| matches!(k.as_str(), "target_arch" | "target_os" | "target_family"))
        .filter_map(|(_, v)| v.as_deref())
        .collect();
    // x86_64 targets also compile core_arch's shared `x86` module.
    let own_x86 = own.contains(&"x86_64") || own.contains(&"x86");
    path.components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        PLATFORM_DIRS.contains(&name.as_ref())
            && !own.contains(&name.as_ref())
            && !(own_x86 && (name == "x86" || name == "x86_64"))
    })
}

fn vfs_path(path: &std::path::Path) -> Option<VfsPath> {
    let utf8 = Utf8PathBuf::from_path_buf(path.to_path_buf()).ok()?;
    AbsPathBuf::try_from(utf8).ok().map(VfsPath::from)
}
