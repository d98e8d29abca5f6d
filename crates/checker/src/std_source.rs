//! Finding the standard library's source on disk, without network.
//!
//! rust-analyzer needs std's *source* to type snippets that use it. We never run `cargo metadata` on the std
//! workspace (that may hit the network); instead the crates are listed explicitly, as rustc's sysroot lays them
//! out. Search order: `LACUNA_STD_SRC`, the active toolchain's rustup `rust-src` component, Debian's
//! `rust-web-src` (`/usr/src/rustc-*/library`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::CheckerError;

/// Environment variable naming a `library/` directory (the one holding `core/`, `alloc/`, `std/`).
pub const STD_SRC_ENV: &str = "LACUNA_STD_SRC";

/// What to tell a user who has no std source installed.
pub const INSTALL_HINT: &str = "install the Rust standard library source: `apt-get install -y rust-web-src` \
     (Debian) or `rustup component add rust-src`, or point LACUNA_STD_SRC at a `library/` directory";

/// A std crate as rustc's sysroot builds it: name, root file (relative to `library/`) and dependencies.
pub(crate) struct StdCrate {
    pub name: &'static str,
    pub root: PathBuf,
    pub deps: &'static [&'static str],
    /// `feature = "..."` cfgs the std build enables for this crate.
    pub features: &'static [&'static str],
}

/// A located std source tree.
#[derive(Debug, Clone)]
pub struct StdSource {
    /// The `library/` directory.
    pub library: PathBuf,
}

impl StdSource {
    /// Finds the std source, or says how to install it.
    pub fn locate(rustc_sysroot: Option<&Path>) -> Result<StdSource, CheckerError> {
        if let Some(dir) = std::env::var_os(STD_SRC_ENV) {
            let dir = PathBuf::from(dir);
            return if is_library_dir(&dir) {
                Ok(StdSource { library: dir })
            } else {
                Err(CheckerError::StdSourceMissing {
                    detail: format!(
                        "{STD_SRC_ENV}={} does not contain core/src/lib.rs and std/src/lib.rs",
                        dir.display()
                    ),
                })
            };
        }
        let mut candidates = Vec::new();
        if let Some(sysroot) = rustc_sysroot {
            candidates.push(sysroot.join("lib/rustlib/src/rust/library"));
        }
        // Debian's rust-web-src; several versions may be installed: take the newest.
        if let Ok(entries) = std::fs::read_dir("/usr/src") {
            let mut debian: Vec<PathBuf> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with("rustc-"))
                .map(|e| e.path().join("library"))
                .collect();
            debian.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
            candidates.extend(debian);
        }
        candidates.into_iter().find(|dir| is_library_dir(dir)).map(|library| StdSource { library }).ok_or_else(|| {
            CheckerError::StdSourceMissing {
                detail: "no std source found in the rustup sysroot or /usr/src/rustc-*/library".into(),
            }
        })
    }

    /// The std crates, in dependency order (a crate's deps come before it).
    pub(crate) fn crates(&self) -> Vec<StdCrate> {
        let mut crates = vec![
            StdCrate { name: "core", root: "core/src/lib.rs".into(), deps: &[], features: &[] },
            StdCrate { name: "alloc", root: "alloc/src/lib.rs".into(), deps: &["core"], features: &[] },
        ];
        if let Some(hashbrown) = self.hashbrown() {
            crates.push(StdCrate {
                name: "hashbrown",
                root: hashbrown.join("src/lib.rs"),
                deps: &["core", "alloc"],
                features: &["rustc-dep-of-std", "nightly", "rustc-internal-api", "raw-entry"],
            });
        }
        crates.push(StdCrate {
            name: "std_detect",
            root: "std_detect/src/lib.rs".into(),
            deps: &["core", "alloc"],
            features: &[],
        });
        crates.push(StdCrate {
            name: "std",
            root: "std/src/lib.rs".into(),
            deps: &["core", "alloc", "hashbrown", "std_detect"],
            features: &[],
        });
        crates.retain(|c| self.library.join(&c.root).is_file());
        crates
    }

    /// Directories whose `.rs` files the std crates can reach (module trees and `#[path]` includes).
    pub(crate) fn source_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = [
            "core/src",
            "alloc/src",
            "std/src",
            "std_detect/src",
            "stdarch/crates/core_arch/src",
            "portable-simd/crates/core_simd/src",
            "portable-simd/crates/std_float/src",
            "backtrace/src",
        ]
        .iter()
        .map(|d| self.library.join(d))
        .collect();
        if let Some(hashbrown) = self.hashbrown() {
            dirs.push(self.library.join(hashbrown).join("src"));
        }
        dirs.retain(|d| d.is_dir());
        dirs
    }

    /// The `hashbrown` crate std's `HashMap`/`HashSet` wrap. A `rust-src` with a `vendor/` tree has it; rustup's
    /// does not (cargo fetches it when std is built), so without it we look for the exact version std's
    /// `Cargo.lock` names in cargo's registry cache — any machine that built Lacuna has it, because Lacuna's own
    /// lockfile pins the same version. Without hashbrown, rust-analyzer types every `HashMap` as
    /// `HashMap<{unknown}, {unknown}>` (rustc still decides verdicts; only the typed view is poorer).
    fn hashbrown(&self) -> Option<PathBuf> {
        if let Some(vendored) = self.vendored("hashbrown-") {
            return Some(vendored);
        }
        let lock = std::fs::read_to_string(self.library.join("Cargo.lock")).ok()?;
        let version = locked_version(&lock, "hashbrown")?;
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
        let mut registries: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path().join(format!("hashbrown-{version}")))
            .filter(|dir| dir.join("src/lib.rs").is_file())
            .collect();
        registries.sort();
        registries.into_iter().next()
    }

    /// `vendor/<prefix>*`, relative to `library/`, newest first.
    fn vendored(&self, prefix: &str) -> Option<PathBuf> {
        let mut found: Vec<String> = std::fs::read_dir(self.library.join("vendor"))
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix))
            .collect();
        found.sort_by_key(|n| std::cmp::Reverse(version_key(Path::new(n))));
        found.first().map(|n| PathBuf::from("vendor").join(n))
    }
}

/// The version a `Cargo.lock` pins for `package` (the first entry of that name).
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    lines.by_ref().find(|l| l.trim() == name_line)?;
    let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
    Some(version.to_owned())
}

fn is_library_dir(dir: &Path) -> bool {
    dir.join("core/src/lib.rs").is_file() && dir.join("std/src/lib.rs").is_file()
}

/// Numeric version components found in a path, for picking the newest of several.
fn version_key(path: &Path) -> Vec<u64> {
    path.to_string_lossy().split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect()
}

/// All `.rs` files below `dir`, depth-first, sorted for determinism.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            // Test and benchmark trees are never part of a std crate's module tree.
            if name != "tests" && name != "benches" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The target configuration rustc compiles for, from `rustc --print cfg`.
#[derive(Debug, Clone)]
pub struct TargetInfo {
    /// `(key, Some(value))` for `key="value"`, `(atom, None)` for a bare atom.
    pub cfg: Vec<(String, Option<String>)>,
    /// LLVM data layout string of the target.
    pub data_layout: String,
}

impl TargetInfo {
    /// Asks rustc. The full cfg set and the data layout need unstable prints, which rustc gives on stable under
    /// `RUSTC_BOOTSTRAP=1` (rust-analyzer does the same); without it we fall back to the x86-64 Linux layout.
    pub fn query(rustc: &Path) -> Result<TargetInfo, CheckerError> {
        // The unstable cfgs too (`target_has_atomic_load_store`, ...): std's own items depend on them
        // (`AtomicUsize` is behind one), and a stable `--print cfg` leaves them out.
        let unstable = Command::new(rustc)
            .args(["-Z", "unstable-options", "--print", "cfg"])
            .env("RUSTC_BOOTSTRAP", "1")
            .output()
            .ok()
            .filter(|o| o.status.success());
        let out = match unstable {
            Some(out) => out,
            None => Command::new(rustc).args(["--print", "cfg"]).output().map_err(|e| CheckerError::Rustc {
                detail: format!("running `{} --print cfg`: {e}", rustc.display()),
            })?,
        };
        if !out.status.success() {
            return Err(CheckerError::Rustc {
                detail: format!("`rustc --print cfg` failed: {}", String::from_utf8_lossy(&out.stderr)),
            });
        }
        let cfg = parse_cfg(&String::from_utf8_lossy(&out.stdout));
        let data_layout = Command::new(rustc)
            .args(["-Z", "unstable-options", "--print", "target-spec-json"])
            .env("RUSTC_BOOTSTRAP", "1")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .and_then(|v| v.get("data-layout").and_then(|d| d.as_str()).map(str::to_owned))
            .unwrap_or_else(|| {
                "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128".to_owned()
            });
        Ok(TargetInfo { cfg, data_layout })
    }
}

fn parse_cfg(text: &str) -> Vec<(String, Option<String>)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| match line.split_once('=') {
            Some((k, v)) => (k.to_owned(), Some(v.trim_matches('"').to_owned())),
            None => (line.to_owned(), None),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rustc_cfg_output() {
        let cfg = parse_cfg("debug_assertions\ntarget_os=\"linux\"\nunix\n");
        assert_eq!(
            cfg,
            vec![
                ("debug_assertions".to_owned(), None),
                ("target_os".to_owned(), Some("linux".to_owned())),
                ("unix".to_owned(), None)
            ]
        );
    }

    #[test]
    fn newest_version_sorts_first() {
        let mut v = [PathBuf::from("/usr/src/rustc-1.9.0"), PathBuf::from("/usr/src/rustc-1.96.0")];
        v.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
        assert_eq!(v[0], PathBuf::from("/usr/src/rustc-1.96.0"));
    }

    #[test]
    fn reads_a_locked_version() {
        let lock = "[[package]]\nname = \"hashbrown\"\nversion = \"0.16.1\"\nsource = \"registry\"\n";
        assert_eq!(locked_version(lock, "hashbrown").as_deref(), Some("0.16.1"));
        assert_eq!(locked_version(lock, "libc"), None);
    }
}
