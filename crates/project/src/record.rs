//! The crate's exact rustc invocation, as cargo makes it: Lacuna runs `cargo build` with itself as
//! `RUSTC_WORKSPACE_WRAPPER`, and the wrapper writes down each invocation of rustc on a workspace member (its
//! arguments, cargo's environment for it, its directory) before running rustc unchanged. What rustc later checks
//! with a snippet in place uses these flags, so edition, features, cfgs, lints and externs are cargo's own.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

/// The environment variable that makes a Lacuna binary act as cargo's rustc wrapper: where to append invocations.
pub const RECORD_ENV: &str = "LACUNA_RECORD_RUSTC";

/// One rustc invocation cargo made for a workspace member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invocation {
    pub args: Vec<String>,
    /// What cargo set for rustc that code can read at compile time (`env!`): `CARGO_*`, `OUT_DIR`.
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// rustc's options that take their value as the next argument.
const TAKES_VALUE: &[&str] = &[
    "--crate-name",
    "--edition",
    "--crate-type",
    "--error-format",
    "--json",
    "--emit",
    "--out-dir",
    "-o",
    "-C",
    "--codegen",
    "-L",
    "-l",
    "--extern",
    "--cfg",
    "--check-cfg",
    "--cap-lints",
    "-A",
    "-W",
    "-D",
    "-F",
    "--allow",
    "--warn",
    "--deny",
    "--forbid",
    "--force-warn",
    "--target",
    "--diagnostic-width",
    "--color",
    "--sysroot",
    "--remap-path-prefix",
    "-Z",
    "--print",
    "--explain",
];

/// An argument: an option with its value, or the source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg<'a> {
    Opt(&'a str, Option<&'a str>),
    Source(&'a str),
}

/// `-C` settings that change what code means (its cfgs) rather than how it is built.
const MEANINGFUL_CODEGEN: &[&str] = &["debug-assertions", "overflow-checks", "panic", "target-feature", "target-cpu"];

impl Invocation {
    /// The arguments as options and values.
    pub fn parsed(&self) -> Vec<Arg<'_>> {
        let mut out = Vec::new();
        let mut args = self.args.iter();
        while let Some(arg) = args.next() {
            if let Some((flag, value)) = arg.split_once('=').filter(|(f, _)| f.starts_with("--")) {
                out.push(Arg::Opt(flag, Some(value)));
            } else if TAKES_VALUE.contains(&arg.as_str()) {
                out.push(Arg::Opt(arg, args.next().map(String::as_str)));
            } else if let Some(rest) = arg.strip_prefix("-C").filter(|r| !r.is_empty()) {
                out.push(Arg::Opt("-C", Some(rest)));
            } else if arg.starts_with('-') {
                out.push(Arg::Opt(arg, None));
            } else {
                out.push(Arg::Source(arg));
            }
        }
        out
    }

    fn value_of(&self, flag: &str) -> Option<&str> {
        self.values_of(flag).into_iter().next()
    }

    /// Every value given with `flag`, in order.
    fn values_of(&self, flag: &str) -> Vec<&str> {
        self.parsed()
            .into_iter()
            .filter_map(|a| match a {
                Arg::Opt(f, v) if f == flag => v,
                _ => None,
            })
            .collect()
    }

    pub fn crate_name(&self) -> Option<&str> {
        self.value_of("--crate-name")
    }

    pub fn edition(&self) -> &str {
        self.value_of("--edition").unwrap_or("2015")
    }

    pub fn crate_types(&self) -> Vec<&str> {
        self.values_of("--crate-type")
    }

    /// The crate root, absolute.
    pub fn source(&self) -> Option<PathBuf> {
        self.parsed().into_iter().find_map(|a| match a {
            Arg::Source(s) => Some(self.cwd.join(s)),
            _ => None,
        })
    }

    /// `--cfg` values (`feature="x"`, `debug_assertions` is not among them: see [`Invocation::debug_assertions`]).
    pub fn cfgs(&self) -> Vec<&str> {
        self.values_of("--cfg")
    }

    /// Whether `cfg(debug_assertions)` holds: `-C debug-assertions` when given, else on without optimization.
    pub fn debug_assertions(&self) -> bool {
        let mut codegen = self.values_of("-C");
        codegen.extend(self.values_of("--codegen"));
        // The last setting wins, as in rustc.
        for c in codegen.iter().rev() {
            if let Some(v) = c.strip_prefix("debug-assertions") {
                return matches!(v, "" | "=on" | "=yes" | "=y" | "=true");
            }
        }
        !codegen.iter().any(|c| c.starts_with("opt-level") && !c.ends_with("=0"))
    }

    /// `--extern NAME=PATH` pairs.
    pub fn externs(&self) -> Vec<(&str, &str)> {
        self.values_of("--extern").into_iter().filter_map(|v| v.split_once('=')).collect()
    }

    /// What a check or a build of the crate with another source takes from this invocation: everything that
    /// decides what the code means and which diagnostics are errors (edition, crate name and type, cfgs, lint
    /// levels, externs and where they are found), nothing about where output goes or how it is rendered. `env` is
    /// what `env!` reads at compile time.
    pub fn crate_flags(&self, env: Vec<(String, String)>) -> CrateFlags {
        let mut flags = CrateFlags { edition: "2015".into(), env, ..CrateFlags::default() };
        for arg in self.parsed() {
            let Arg::Opt(flag, Some(value)) = arg else { continue };
            let value = value.to_owned();
            match flag {
                "--crate-name" => flags.crate_name = Some(value),
                "--edition" => flags.edition = value,
                "--crate-type" => flags.crate_types.push(value),
                "--cfg" => flags.cfgs.push(value),
                "--check-cfg" => flags.check_cfgs.push(value),
                "--cap-lints" | "-A" | "-W" | "-D" | "-F" | "--allow" | "--warn" | "--deny" | "--forbid"
                | "--force-warn" => flags.lints.push((flag.to_owned(), value)),
                "-C" | "--codegen" if MEANINGFUL_CODEGEN.iter().any(|m| value.starts_with(m)) => {
                    flags.codegen.push(value)
                }
                "-L" | "-l" => flags.search.push((flag.to_owned(), value)),
                "--extern" => flags.externs.push(match value.split_once('=') {
                    Some((name, path)) => (name.to_owned(), Some(linkable(path))),
                    None => (value, None),
                }),
                "--target" => flags.target = Some(value),
                _ => {}
            }
        }
        flags
    }
}

/// A dependency's library as Lacuna links it. Cargo hands a library crate its dependencies' metadata alone
/// (`libserde-….rmeta`: pipelined, a library does not link), but Lacuna builds the crate into a `dylib`, which
/// links them: their `.rlib`, which the same build wrote beside the `.rmeta`.
fn linkable(path: &str) -> String {
    match path.strip_suffix(".rmeta") {
        Some(stem) if Path::new(&format!("{stem}.rlib")).is_file() => format!("{stem}.rlib"),
        _ => path.to_owned(),
    }
}

/// How cargo compiles a crate, read once from its invocation ([`Invocation::crate_flags`]): the flags that decide
/// what its code means, by kind, and the environment `env!` reads. The checker's rustc and the engine's builds
/// each take what they need of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CrateFlags {
    pub crate_name: Option<String>,
    pub edition: String,
    pub crate_types: Vec<String>,
    /// `--cfg` values (`feature="x"`).
    pub cfgs: Vec<String>,
    pub check_cfgs: Vec<String>,
    /// Lint levels and `--cap-lints`, in cargo's order (a later one wins): `("-W", "unused")`.
    pub lints: Vec<(String, String)>,
    /// `-C` settings that change what code means (`debug-assertions`, `overflow-checks`, `panic`, ...).
    pub codegen: Vec<String>,
    /// `-L` and `-l`, as given: `("-L", "dependency=/p/deps")`.
    pub search: Vec<(String, String)>,
    /// `--extern NAME=PATH` (or `NAME` alone), [`LACUNA`](crate::graph::LACUNA) among them.
    pub externs: Vec<(String, Option<String>)>,
    pub target: Option<String>,
    pub env: Vec<(String, String)>,
}

impl CrateFlags {
    /// rustc's arguments for a check of the crate, its `lacuna` the library at `lacuna` (the checker's own, not
    /// the copy cargo built) when given.
    pub fn rustc_args(&self, lacuna: Option<&Path>) -> Vec<String> {
        let mut out = Vec::new();
        let mut pair = |flag: &str, value: &str| out.extend([flag.to_owned(), value.to_owned()]);
        if let Some(name) = &self.crate_name {
            pair("--crate-name", name);
        }
        pair("--edition", &self.edition);
        self.crate_types.iter().for_each(|t| pair("--crate-type", t));
        self.cfgs.iter().for_each(|c| pair("--cfg", c));
        self.check_cfgs.iter().for_each(|c| pair("--check-cfg", c));
        self.lints.iter().for_each(|(flag, value)| pair(flag, value));
        self.codegen.iter().for_each(|c| pair("-C", c));
        self.search.iter().for_each(|(flag, value)| pair(flag, value));
        for (name, path) in self.dependencies() {
            pair("--extern", &path.map_or_else(|| name.to_owned(), |p| format!("{name}={p}")));
        }
        let cargos = self.externs.iter().find(|(n, _)| n == crate::graph::LACUNA).and_then(|(_, p)| p.clone());
        if let Some(lacuna) = lacuna.map(|l| l.display().to_string()).or(cargos) {
            pair("--extern", &format!("{}={lacuna}", crate::graph::LACUNA));
        }
        if let Some(target) = &self.target {
            pair("--target", target);
        }
        out
    }

    /// The crate's dependencies as `--extern` names them, but `lacuna`: whoever compiles the crate brings its own.
    pub fn dependencies(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.externs.iter().filter(|(n, _)| n != crate::graph::LACUNA).map(|(n, p)| (n.as_str(), p.as_deref()))
    }
}

/// When this process was started by cargo as the rustc wrapper of a project build (`RECORD_ENV` is set): acts as
/// [`wrap_rustc`] and returns rustc's exit code, which the caller exits with before doing anything else. Every
/// program that builds projects ([`crate::Project::build`] with its own path as the wrapper) calls this first in
/// `main`.
pub fn wrapper_main() -> Option<i32> {
    let record = std::env::var_os(RECORD_ENV)?;
    Some(wrap_rustc(Path::new(&record), std::env::args_os().skip(1).collect()))
}

/// Acts as cargo's rustc wrapper: `args` are this program's arguments after its own name, rustc's path first.
/// Appends the invocation to the file `RECORD_ENV` names, then runs rustc with the arguments unchanged and returns
/// its exit code. Used by the `lacuna` binary when `RECORD_ENV` is set.
pub fn wrap_rustc(record: &Path, args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let Some(rustc) = args.next() else {
        eprintln!("lacuna: used as a rustc wrapper without rustc's path");
        return 2;
    };
    let args: Vec<OsString> = args.collect();
    // cargo also asks the wrapper for rustc's version (`-vV`) and target facts; only compilations are recorded.
    if args.iter().any(|a| a == "--crate-name") {
        let invocation = Invocation {
            args: args.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
            env: std::env::vars().filter(|(k, _)| k.starts_with("CARGO_") || k == "OUT_DIR").collect(),
            cwd: std::env::current_dir().unwrap_or_default(),
        };
        let line = serde_json::to_string(&invocation).expect("an invocation serializes") + "\n";
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(record)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("lacuna: cannot record rustc's invocation in {}: {e}", record.display());
            return 2;
        }
    }
    match Command::new(&rustc).args(&args).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(e) => {
            eprintln!("lacuna: cannot run {}: {e}", rustc.to_string_lossy());
            2
        }
    }
}

/// What a build script told cargo about its package.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BuildScript {
    #[serde(default)]
    pub cfgs: Vec<String>,
    #[serde(default)]
    pub env: Vec<(String, String)>,
    pub out_dir: Option<PathBuf>,
}

/// What `cargo build --message-format=json` said, by package id.
#[derive(Debug, Clone, Default)]
pub struct BuildMessages {
    pub build_scripts: HashMap<String, BuildScript>,
    /// Each built target's output files (a proc macro's shared library among them).
    pub artifacts: HashMap<String, Vec<(String, Vec<PathBuf>)>>,
    /// rustc's errors, rendered as rustc renders them (warnings are left out: they are the project's business).
    pub errors: Vec<String>,
}

#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    package_id: String,
    #[serde(flatten)]
    rest: serde_json::Value,
}

impl BuildMessages {
    /// Reads cargo's JSON messages, one per line; lines that are not messages are skipped.
    pub fn parse(stdout: &str) -> BuildMessages {
        let mut out = BuildMessages::default();
        for line in stdout.lines() {
            let Ok(message) = serde_json::from_str::<Message>(line) else { continue };
            match message.reason.as_str() {
                "build-script-executed" => {
                    if let Ok(script) = serde_json::from_value::<BuildScript>(message.rest) {
                        out.build_scripts.insert(message.package_id, script);
                    }
                }
                "compiler-artifact" => {
                    let name = message.rest["target"]["name"].as_str().unwrap_or_default().to_owned();
                    let files = message.rest["filenames"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|f| f.as_str().map(PathBuf::from))
                        .collect();
                    out.artifacts.entry(message.package_id).or_default().push((name, files));
                }
                "compiler-message" if message.rest["message"]["level"] == "error" => {
                    if let Some(rendered) = message.rest["message"]["rendered"].as_str() {
                        out.errors.push(rendered.to_owned());
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// Reads the invocations a wrapper recorded, oldest first; unreadable lines are skipped.
pub fn recorded(record: &Path) -> Vec<Invocation> {
    std::fs::read_to_string(record).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invocation(args: &str) -> Invocation {
        Invocation {
            args: args.split_whitespace().map(str::to_owned).collect(),
            env: Vec::new(),
            cwd: PathBuf::from("/p"),
        }
    }

    #[test]
    fn cargo_arguments_are_read_as_rustc_reads_them() {
        let i = invocation(
            "--crate-name triage --edition=2021 src/main.rs --error-format=json --json=diagnostic-rendered-ansi \
             --crate-type bin --emit=dep-info,link -C embed-bitcode=no -C debuginfo=2 --cfg feature=\"fast\" \
             --check-cfg cfg(docsrs,test) -C metadata=abc --out-dir /p/target/debug/deps -L dependency=/p/deps \
             --extern lacuna=/p/deps/liblacuna-1.rlib --extern serde_json=/p/deps/libserde_json-2.rlib -W unused",
        );
        assert_eq!(i.crate_name(), Some("triage"));
        assert_eq!(i.edition(), "2021");
        assert_eq!(i.crate_types(), ["bin"]);
        assert_eq!(i.source(), Some(PathBuf::from("/p/src/main.rs")));
        assert_eq!(i.cfgs(), ["feature=\"fast\""]);
        assert!(i.debug_assertions());
        assert_eq!(i.externs()[1], ("serde_json", "/p/deps/libserde_json-2.rlib"));
        let flags = i.crate_flags(Vec::new());
        assert_eq!(
            flags.rustc_args(None).join(" "),
            "--crate-name triage --edition 2021 --crate-type bin --cfg feature=\"fast\" --check-cfg cfg(docsrs,test) \
             -W unused -L dependency=/p/deps --extern serde_json=/p/deps/libserde_json-2.rlib --extern \
             lacuna=/p/deps/liblacuna-1.rlib"
        );
        assert_eq!(
            flags.rustc_args(Some(Path::new("/lacuna/liblacuna.rlib"))).join(" ").rsplit_once(' ').unwrap().1,
            "lacuna=/lacuna/liblacuna.rlib"
        );
        assert_eq!(flags.dependencies().collect::<Vec<_>>(), [("serde_json", Some("/p/deps/libserde_json-2.rlib"))]);
    }

    #[test]
    fn optimized_builds_have_no_debug_assertions_unless_asked() {
        assert!(!invocation("--crate-name a -C opt-level=3 a.rs").debug_assertions());
        assert!(invocation("--crate-name a -C opt-level=3 -C debug-assertions=on a.rs").debug_assertions());
        assert!(!invocation("--crate-name a -C debug-assertions=off a.rs").debug_assertions());
        assert!(!invocation("--crate-name a -C debug-assertions=on -C debug-assertions=off a.rs").debug_assertions());
    }

    #[test]
    fn build_messages_keep_build_script_facts_and_artifacts() {
        let stdout = r#"{"reason":"build-script-executed","package_id":"p 1","linked_libs":[],"linked_paths":[],"cfgs":["has_x"],"env":[["K","v"]],"out_dir":"/o"}
not json
{"reason":"compiler-artifact","package_id":"q 1","target":{"name":"q_derive","kind":["proc-macro"]},"filenames":["/d/libq_derive.so"]}
{"reason":"compiler-message","package_id":"p 1","message":{"level":"warning","rendered":"warning: unused"}}
{"reason":"compiler-message","package_id":"p 1","message":{"level":"error","rendered":"error[E0308]: mismatched types"}}"#;
        let m = BuildMessages::parse(stdout);
        assert_eq!(m.build_scripts["p 1"].cfgs, ["has_x"]);
        assert_eq!(m.build_scripts["p 1"].out_dir.as_deref(), Some(Path::new("/o")));
        assert_eq!(m.artifacts["q 1"][0].1, [PathBuf::from("/d/libq_derive.so")]);
        assert_eq!(m.errors, ["error[E0308]: mismatched types"]);
    }
}
