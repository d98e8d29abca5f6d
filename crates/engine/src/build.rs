//! Compiling generated sources (the instrumented host, rustc-path snippets) into libraries Lacuna loads, cached
//! by content: the same source with the same toolchain is compiled once, across runs and processes.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use lacuna_checker::{parse_rustc_errors, Rustc, RustcError};

use crate::ExecError;

/// Flags every library is built with. Hosts and snippets must agree (they share types across the boundary);
/// debug-build arithmetic (overflow checks, debug assertions) is what the programs they are compared with have.
const FLAGS: &[&str] = &[
    "-C",
    "opt-level=0",
    "-C",
    "debug-assertions=on",
    "-C",
    "overflow-checks=on",
    "-C",
    "panic=unwind",
    // Line tables let a fault inside std or host code be traced back to the snippet line that called it.
    "-C",
    "debuginfo=line-tables-only",
    "--cap-lints",
    "allow",
    "--error-format",
    "json",
];

/// How a library is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Linkage<'a> {
    /// A `cdylib` with everything it uses inside: its own std, its own copy of `lacuna`.
    Standalone,
    /// The `lacuna` runtime as a Rust `dylib` on the shared std, with the budget allocator as the global one:
    /// one runtime (run records, budgets, hooks) for every host in the process that links to it.
    Runtime,
    /// The host as a Rust `dylib` on the shared std (`-C prefer-dynamic`) and the shared runtime, which snippet
    /// libraries link to.
    Host,
    /// A snippet library that links to the host `dylib` at this path (and shares its std, `lacuna` and items).
    LinksHost(&'a Path),
}

/// A built (or cached) library.
#[derive(Debug, Clone)]
pub struct Built {
    pub library: PathBuf,
    /// The source file rustc compiled (panic locations name it).
    pub source: PathBuf,
    /// Milliseconds spent compiling; 0 for a cache hit.
    pub compile_ms: f64,
}

/// rustc said no.
#[derive(Debug, Clone)]
pub struct BuildFailure {
    pub errors: Vec<RustcError>,
    pub stderr: String,
    /// Milliseconds rustc took to say no.
    pub compile_ms: f64,
}

#[derive(Debug, Clone)]
pub struct Builder {
    rustc: PathBuf,
    version: String,
    rlib: PathBuf,
    dir: PathBuf,
    /// Where the shared std is (`rustc --print target-libdir`); without it, every library is standalone.
    target_libdir: Option<PathBuf>,
    /// The shared runtime, built on first use (`None` inside: it did not build, so hosts are standalone).
    runtime: std::sync::Arc<std::sync::OnceLock<Option<PathBuf>>>,
    /// The most the cache may hold, in bytes (0: no limit); see [`trim`].
    limit: u64,
    /// Builds since the cache was last trimmed.
    builds: std::sync::Arc<std::sync::atomic::AtomicU32>,
    /// A cargo project's crate: what its host and snippet libraries are built with besides [`FLAGS`].
    project: Option<ProjectArgs>,
}

/// What a cargo project's host library (and each snippet library linking to it) is built with: the crate's
/// edition, cfgs and dependencies as cargo gives them (`lacuna` excepted: the shared runtime stands for it), and
/// the environment its `env!` reads.
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
struct ProjectArgs {
    edition: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl ProjectArgs {
    fn new(flags: &lacuna_checker::CrateFlags) -> ProjectArgs {
        let mut args = Vec::new();
        for cfg in &flags.cfgs {
            args.extend(["--cfg".to_owned(), cfg.clone()]);
        }
        for (flag, value) in &flags.search {
            args.extend([flag.clone(), value.clone()]);
        }
        for (name, path) in flags.dependencies() {
            args.extend(["--extern".to_owned(), path.map_or_else(|| name.to_owned(), |p| format!("{name}={p}"))]);
        }
        if let Some(target) = &flags.target {
            args.extend(["--target".to_owned(), target.clone()]);
        }
        ProjectArgs { edition: flags.edition.clone(), args, env: flags.env.clone() }
    }
}

/// The runtime's source as a `dylib`: the prelude, plus the allocator every library that links to it uses.
pub(crate) fn runtime_source() -> String {
    format!(
        "{}\n#[global_allocator]\nstatic __LACUNA_ALLOCATOR: crate::__private::BudgetAllocator = \
         crate::__private::BudgetAllocator;\n",
        lacuna_checker::PRELUDE_SOURCE
    )
}

impl Builder {
    /// A builder caching under `cache_dir/run`, which it keeps under `limit` bytes (0: no limit).
    pub fn new(rustc: &Rustc, cache_dir: &Path, limit: u64) -> Result<Builder, ExecError> {
        let dir = cache_dir.join("run");
        std::fs::create_dir_all(&dir)
            .map_err(|e| ExecError::Io { detail: format!("creating {}: {e}", dir.display()) })?;
        remove_orphaned_incremental(&dir);
        trim(&dir, limit, std::time::SystemTime::now());
        let target_libdir = Command::new(&rustc.path)
            .args(["--print", "target-libdir"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .filter(|dir| dir.is_dir());
        Ok(Builder {
            target_libdir,
            runtime: Default::default(),
            rustc: rustc.path.clone(),
            version: rustc.version.clone(),
            rlib: rustc.prelude_rlib().to_owned(),
            dir,
            limit,
            builds: Default::default(),
            project: rustc.crate_flags().map(ProjectArgs::new),
        })
    }

    /// Whether hosts can be built as a `dylib` snippet libraries link to (the shared std was found and the shared
    /// runtime builds).
    pub fn links_dynamically(&self) -> bool {
        self.target_libdir.is_some() && self.runtime().is_some()
    }

    /// The shared runtime `dylib`, built once per builder (and cached on disk like every library).
    fn runtime(&self) -> Option<&Path> {
        self.runtime
            .get_or_init(|| {
                self.target_libdir.as_ref()?;
                let built = self.build("lacuna", &runtime_source(), None, Linkage::Runtime).ok()?.ok()?;
                Some(built.library)
            })
            .as_deref()
    }

    /// Compiles `source` as crate `crate_name` into a library, unless that exact build is cached. With
    /// `display_name`, panic locations and debug info name that file instead of the generated one (a host's
    /// panics then point at the user's file).
    pub fn build(
        &self,
        crate_name: &str,
        source: &str,
        display_name: Option<&str>,
        linkage: Linkage<'_>,
    ) -> Result<Result<Built, BuildFailure>, ExecError> {
        self.build_in(crate_name, source, display_name, linkage, None)
    }

    /// [`Builder::build`] for one build of a [`Lineage`]: hosts that differ a little from one build to the next (a
    /// session's, turn by turn) share a crate id, so rustc's incremental compilation reuses what the earlier
    /// builds compiled (this process's builds of the lineage share one incremental directory).
    pub fn build_in(
        &self,
        crate_name: &str,
        source: &str,
        display_name: Option<&str>,
        linkage: Linkage<'_>,
        lineage: Option<&Lineage>,
    ) -> Result<Result<Built, BuildFailure>, ExecError> {
        // Only a dylib host has a crate id of its own to share.
        let lineage = lineage.filter(|_| linkage == Linkage::Host && self.target_libdir.is_some());
        // A cache key, not a security boundary: SipHash with fixed keys is stable for a given std.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        // The runtime: the shared one for libraries on the shared std, else the rlib each library holds a copy of.
        let runtime = match linkage {
            Linkage::Host | Linkage::LinksHost(_) => self.runtime().map(Path::to_path_buf),
            Linkage::Standalone | Linkage::Runtime => None,
        };
        // The runtime is the same library for every host; hosts and snippets are the project's crate's.
        let project = self.project.as_ref().filter(|_| linkage != Linkage::Runtime);
        (&self.version, FLAGS, &self.rlib, crate_name, source, display_name, linkage, &runtime).hash(&mut hasher);
        project.hash(&mut hasher);
        // The crate id is part of the library: a lineage's build differs from the same text's build alone.
        lineage.map(|l| &l.0).hash(&mut hasher);
        let stem = format!("{crate_name}-{:016x}", hasher.finish());
        let library = self.dir.join(format!("lib{stem}.so"));
        let source_path = self.dir.join(format!("{stem}.rs"));
        // Libraries in use are recent in the cache: what is found, and the host a snippet library links to.
        if let Linkage::LinksHost(host) = linkage {
            touch(host);
        }
        if library.is_file() && source_path.is_file() {
            touch(&library);
            touch(&source_path);
            return Ok(Ok(Built { library, source: source_path, compile_ms: 0.0 }));
        }
        if self.builds.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % TRIM_EVERY == TRIM_EVERY - 1 {
            trim(&self.dir, self.limit, std::time::SystemTime::now());
        }
        let io = |e: std::io::Error, what: &Path| ExecError::Io { detail: format!("{}: {e}", what.display()) };
        // Write and build under private names, then rename: builders in other processes (or threads) building
        // the same text each publish complete files, and no rustc reads a source another is still writing.
        // A lineage's builds are the exception: rustc keys its incremental state by the source's path and the
        // output's, so they go through one of each, in this process's directory for the lineage, one at a time.
        let lineage_lock = lineage.map(|l| lock_for(&self.incremental_dir(l)));
        let _one_at_a_time = lineage_lock.as_ref().map(|lock| lock.lock().unwrap_or_else(|e| e.into_inner()));
        let (staged_source, staged) = match lineage {
            Some(lineage) => {
                let work = self.incremental_dir(lineage);
                std::fs::create_dir_all(&work).map_err(|e| io(e, &work))?;
                (work.join(format!("{crate_name}.rs")), work.join(format!("lib{crate_name}.so")))
            }
            None => {
                let private =
                    format!("{}.{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], "");
                (self.dir.join(format!(".{stem}.{private}.rs")), self.dir.join(format!(".{stem}.{private}.so")))
            }
        };
        std::fs::write(&staged_source, source).map_err(|e| io(e, &staged_source))?;
        let started = Instant::now();
        let mut command = Command::new(&self.rustc);
        let shown = display_name.map(str::to_owned).unwrap_or_else(|| source_path.display().to_string());
        command.arg(format!("--remap-path-prefix={}={shown}", staged_source.display()));
        match (linkage, &self.target_libdir) {
            (Linkage::Standalone, _) | (_, None) => {
                command.args(["--crate-type", "cdylib"]);
            }
            (Linkage::Runtime | Linkage::Host | Linkage::LinksHost(_), Some(std_dir)) => {
                // A crate id of its own (or its lineage's), a soname that names the published file, and the shared
                // std found at run time. Libraries are loaded `RTLD_LOCAL`, so hosts of one lineage with the same
                // symbols never meet: a snippet library binds to the host it names (its soname).
                let metadata = match lineage {
                    Some(lineage) => {
                        let incremental = self.incremental_dir(lineage).join("rustc");
                        command.arg(format!("-Cincremental={}", incremental.display()));
                        format!("lineage-{}", lineage.0)
                    }
                    None => stem.clone(),
                };
                command
                    .args(["--crate-type", "dylib", "-C", "prefer-dynamic"])
                    .arg(format!("-Cmetadata={metadata}"))
                    .arg(format!("-Clink-arg=-Wl,-soname,lib{stem}.so"))
                    .arg(format!("-Clink-arg=-Wl,-rpath,{}", std_dir.display()));
                if let Linkage::LinksHost(host) = linkage {
                    let dir = host.parent().unwrap_or(Path::new("."));
                    command
                        .arg("--extern")
                        .arg(format!("{}={}", lacuna_checker::export::HOST_CRATE, host.display()))
                        .arg("-L")
                        .arg(format!("dependency={}", dir.display()))
                        .arg(format!("-Clink-arg=-Wl,-rpath,{}", dir.display()));
                }
            }
        }
        if let Some(runtime) = &runtime {
            let dir = runtime.parent().unwrap_or(Path::new("."));
            command
                .arg("--extern")
                .arg(format!("lacuna={}", runtime.display()))
                .arg("-L")
                .arg(format!("dependency={}", dir.display()))
                .arg(format!("-Clink-arg=-Wl,-rpath,{}", dir.display()));
        } else if linkage != Linkage::Runtime {
            command.arg("--extern").arg(format!("lacuna={}", self.rlib.display()));
        } else {
            // The runtime sets std's alloc-error hook (unstable) so a refused allocation is a panic.
            command.env("RUSTC_BOOTSTRAP", "1");
        }
        match project {
            Some(project) => {
                command.args(["--edition", &project.edition]).args(&project.args);
                command.envs(project.env.iter().map(|(k, v)| (k, v)));
            }
            None => {
                command.args(["--edition", "2021"]);
            }
        }
        let out = command
            .args(FLAGS)
            .args(["--crate-name", crate_name])
            .arg("-o")
            .arg(&staged)
            .arg(&staged_source)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| ExecError::Io { detail: format!("running {}: {e}", self.rustc.display()) })?;
        let compile_ms = started.elapsed().as_secs_f64() * 1e3;
        if !out.status.success() {
            let _ = std::fs::remove_file(&staged);
            let _ = std::fs::rename(&staged_source, &source_path);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let errors = parse_rustc_errors(&stderr, &shown);
            return Ok(Err(BuildFailure { errors, stderr, compile_ms }));
        }
        // The source first: a library found in the cache always has its source beside it.
        std::fs::rename(&staged_source, &source_path).map_err(|e| io(e, &source_path))?;
        std::fs::rename(&staged, &library).map_err(|e| io(e, &library))?;
        Ok(Ok(Built { library, source: source_path, compile_ms }))
    }
}

/// Builds that share a crate id and rustc's incremental state: a session's hosts (see [`Builder::build_in`]).
/// The name is a cache key's worth of the lineage's origin (what its first host declares), so the same session
/// started again — in this process or another — builds the same libraries and finds them cached.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lineage(String);

impl Lineage {
    pub fn of(origin: &str) -> Lineage {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        origin.hash(&mut hasher);
        Lineage(format!("{:016x}", hasher.finish()))
    }
}

impl Builder {
    /// This process's incremental directory for `lineage`; directories of processes that are gone are removed
    /// when the builder starts ([`Builder::new`]).
    fn incremental_dir(&self, lineage: &Lineage) -> PathBuf {
        self.dir.join(INCREMENTAL).join(format!("{}-{}", lineage.0, std::process::id()))
    }

    /// Removes this process's incremental state for `lineage` (no more builds of it will come).
    pub fn forget(&self, lineage: &Lineage) {
        let work = self.incremental_dir(lineage);
        let _ = std::fs::remove_dir_all(&work);
        // A service opens and closes sessions for as long as it runs: their locks go with them.
        LINEAGE_LOCKS.lock().unwrap_or_else(|e| e.into_inner()).remove(&work);
    }
}

/// Per lineage directory of this process, the lock that keeps its builds one at a time.
static LINEAGE_LOCKS: Mutex<BTreeMap<PathBuf, Arc<Mutex<()>>>> = Mutex::new(BTreeMap::new());

/// The lock that keeps a lineage's builds in this process one at a time (they share a source and an output path).
fn lock_for(work: &Path) -> Arc<Mutex<()>> {
    let mut locks = LINEAGE_LOCKS.lock().unwrap_or_else(|e| e.into_inner());
    locks.entry(work.to_owned()).or_default().clone()
}

/// How many builds a builder makes between trims of the cache (it also trims when it starts).
const TRIM_EVERY: u32 = 64;

/// A library (or source) used this recently stays, whatever the cache's size: another process may be about to
/// load it or link to it.
const KEEP_RECENT: std::time::Duration = std::time::Duration::from_secs(3600);

/// Marks a cached file as just used (its modification time is the cache's clock).
fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// Keeps the cache under `limit` bytes (0: no limit): when it holds more, the builds used longest ago go (a
/// library with its source) until it holds three quarters of the limit. The shared runtime, incremental state and
/// anything used within the last hour stay; files a build left behind half-written (a killed process) go once
/// they are an hour old. Errors are ignored: a file that cannot be removed stays.
pub(crate) fn trim(dir: &Path, limit: u64, now: std::time::SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    // Per build (its stem): bytes, and when it was last used.
    let mut builds: std::collections::HashMap<String, (u64, std::time::SystemTime, Vec<PathBuf>)> = Default::default();
    let mut total = 0u64;
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let modified = meta.modified().unwrap_or(now);
        let old = now.duration_since(modified).unwrap_or_default() > KEEP_RECENT;
        if name.starts_with('.') {
            if old {
                let _ = std::fs::remove_file(entry.path());
            }
            continue;
        }
        total += meta.len();
        let stem = name.strip_prefix("lib").unwrap_or(&name);
        let stem = stem.strip_suffix(".so").or_else(|| stem.strip_suffix(".rs")).unwrap_or(stem).to_owned();
        // The runtime every host links to (`lacuna-<hash>`) is never trimmed.
        if stem.starts_with("lacuna-") {
            continue;
        }
        let build = builds.entry(stem).or_insert((0, modified, Vec::new()));
        build.0 += meta.len();
        build.1 = build.1.max(modified);
        build.2.push(entry.path());
    }
    if limit == 0 || total <= limit {
        return;
    }
    let recent = |used: &std::time::SystemTime| now.duration_since(*used).unwrap_or_default() <= KEEP_RECENT;
    let mut builds: Vec<_> = builds.into_values().filter(|(_, used, _)| !recent(used)).collect();
    builds.sort_by_key(|(_, used, _)| *used);
    let target = limit / 4 * 3;
    for (bytes, _, files) in builds {
        if total <= target {
            break;
        }
        // Another process may have just found it in the cache (and touched it): then it stays.
        let used_since =
            files.iter().any(|f| std::fs::metadata(f).and_then(|m| m.modified()).is_ok_and(|t| recent(&t)));
        if used_since {
            continue;
        }
        for file in files {
            let _ = std::fs::remove_file(file);
        }
        total = total.saturating_sub(bytes);
    }
}

/// Under the cache's `run/`: incremental state, one directory per lineage and process.
const INCREMENTAL: &str = "incremental";

/// Removes the incremental directories of processes that are no longer running.
fn remove_orphaned_incremental(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir.join(INCREMENTAL)) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.rsplit('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if lacuna_checker::process_ended(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl BuildFailure {
    /// The first few errors, one line each.
    pub fn summary(&self) -> String {
        if self.errors.is_empty() {
            return self.stderr.lines().filter(|l| !l.starts_with('{')).take(5).collect::<Vec<_>>().join("; ");
        }
        self.errors
            .iter()
            .take(3)
            .map(|e| format!("{}{}", e.code.as_deref().map(|c| format!("[{c}] ")).unwrap_or_default(), e.message))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    /// A cache file of `bytes` last used `hours_ago`.
    fn file(dir: &Path, name: &str, bytes: usize, hours_ago: u64, now: SystemTime) {
        let path = dir.join(name);
        std::fs::write(&path, vec![0u8; bytes]).unwrap();
        let file = std::fs::File::options().append(true).open(&path).unwrap();
        file.set_modified(now - Duration::from_secs(hours_ago * 3600 + 60)).unwrap();
    }

    fn left(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn trimming_removes_the_builds_used_longest_ago_whole() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        // Four builds of 1000 + 100 bytes, used 5, 4, 3 and 0 hours ago; the runtime, old; a half-written file.
        for (stem, hours) in [("lacuna_host-a", 5), ("lacuna_snippet-b", 4), ("lacuna_host-c", 3), ("lacuna_host-d", 0)]
        {
            file(dir.path(), &format!("lib{stem}.so"), 1000, hours, now);
            file(dir.path(), &format!("{stem}.rs"), 100, hours, now);
        }
        file(dir.path(), "liblacuna-r.so", 1000, 9, now);
        file(dir.path(), ".lacuna_host-e.1.ThreadId2.rs", 10, 2, now);

        // Under the limit: only the leftover goes.
        trim(dir.path(), 100_000, now);
        assert_eq!(left(dir.path()).len(), 9);
        assert!(!left(dir.path()).iter().any(|n| n.starts_with('.')));

        // 5400 bytes against a limit of 4400: builds go, oldest first, a library with its source, until no more
        // than 3300 are left (two go).
        trim(dir.path(), 4400, now);
        assert_eq!(
            left(dir.path()),
            ["lacuna_host-c.rs", "lacuna_host-d.rs", "liblacuna-r.so", "liblacuna_host-c.so", "liblacuna_host-d.so"]
        );

        // The runtime and the build of this hour stay whatever the size.
        trim(dir.path(), 1, now);
        assert_eq!(left(dir.path()), ["lacuna_host-d.rs", "liblacuna-r.so", "liblacuna_host-d.so"]);

        // No limit: nothing goes.
        file(dir.path(), "liblacuna_host-f.so", 5000, 8, now);
        trim(dir.path(), 0, now);
        assert_eq!(left(dir.path()).len(), 4);
    }
}
