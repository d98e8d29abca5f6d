//! The rule table: one function from a resolved item to allow, deny, or allow-if-granted.

use crate::{CrateKind, Grant, Item, ItemKind, ViolationKind};

pub(crate) enum Rule {
    Allow,
    Deny(ViolationKind, &'static str),
    /// Allowed when the policy grants it.
    Grant(Grant, &'static str),
}

use Rule::{Allow, Deny};
use ViolationKind::{AmbientAuthority, CompileTimeRead, DetachedThread, ForeignCode, HostTakeover, UnmeteredLoop};

/// std modules of pure computation: every item defined in them is allowed. Anything a std item is defined in and
/// that is neither here nor handled item by item in [`std_item`] is denied.
const PURE_STD_MODULES: &[&str] = &[
    "any",
    "array",
    "ascii",
    "borrow",
    "boxed",
    "cell",
    "char",
    "clone",
    "cmp",
    "collections",
    "convert",
    "default",
    "error",
    "f16",
    "f32",
    "f64",
    "f128",
    "ffi",
    "fmt",
    "future",
    "hash",
    "hint",
    "iter",
    "marker",
    "mem",
    "num",
    "ops",
    "option",
    "pin",
    "prelude",
    "primitive",
    "ptr",
    "rc",
    "result",
    "slice",
    "str",
    "string",
    "sync",
    "task",
    "vec",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "range",
    "bstr",
    "macros",
    "simd",
];

/// Macros of `core`, `alloc` and `std` whose arguments are Rust expressions, the code a snippet runs (a loop there
/// counts fuel). A snippet may call them; see [`trusted_std_macro`].
pub const STD_EXPRESSION_MACROS: &[&str] = &[
    "vec",
    "format",
    "format_args",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "dbg",
    "matches",
    "todo",
    "unimplemented",
    "unreachable",
];

/// The other macros of `core`, `alloc` and `std` a snippet may call (their arguments are literals, tokens, items
/// or nothing).
const STD_OTHER_MACROS: &[&str] = &[
    "concat",
    "stringify",
    "line",
    "column",
    "file",
    "module_path",
    "cfg",
    "thread_local",
    "compile_error",
    "const_format_args",
    "format_args_nl",
    "derive",
    "try",
];

/// Whether `name` is a macro of `core`, `alloc` or `std` a snippet may call; their expansions are trusted (their
/// arguments are still judged). Printing macros are also subject to the `stdout` grant.
pub fn trusted_std_macro(name: &str) -> bool {
    STD_EXPRESSION_MACROS.contains(&name) || STD_OTHER_MACROS.contains(&name)
}

/// The derive macros of `core` a snippet's own types may use.
pub const ALLOWED_DERIVES: &[&str] =
    &["Debug", "Clone", "Copy", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash", "Default"];

/// Items of `lacuna::cap` that make a capability out of ambient authority: the host's, never a snippet's. Every
/// other item there is a method of a capability a snippet was handed.
const HOST_ONLY_CAP: &[&str] = &[
    "ambient_authority",
    "AmbientAuthority",
    "open_ambient",
    "from_ambient",
    "with_dir",
    "with_net",
    "with_env",
    "with_clock",
];

/// What leaking a value reaches.
const LEFT_HELD: &str =
    "the host's locks and borrows: a value never dropped (a lock guard, a `RefCell` borrow) stays held after the hole";

const PRINTING_MACROS: &[&str] = &["print", "println", "eprint", "eprintln", "dbg"];

pub(crate) fn judge(item: &Item) -> Rule {
    if item.kind == ItemKind::Macro && item.krate.is_std() {
        return std_macro(&item.name);
    }
    match &item.krate {
        CrateKind::Host => Allow,
        CrateKind::Lacuna => match item.modules.first().map(String::as_str) {
            Some(internal) if internal.starts_with("__") => Deny(HostTakeover, "Lacuna's runtime internals"),
            None if item.owner.as_deref() == Some("Classified") && item.name == "declassify" => {
                Deny(AmbientAuthority, "classified data, which only the host may take out")
            }
            Some("cap") if HOST_ONLY_CAP.contains(&item.name.as_str()) => {
                Deny(AmbientAuthority, "the host's ambient authority, which makes capabilities")
            }
            _ => Allow,
        },
        CrateKind::Core | CrateKind::Alloc => core_item(item),
        CrateKind::Std => std_item(item),
        CrateKind::Other(_) => Deny(AmbientAuthority, "a crate outside safe mode's allowlist"),
    }
}

fn std_macro(name: &str) -> Rule {
    match name {
        _ if PRINTING_MACROS.contains(&name) => Rule::Grant(Grant::Stdout, "standard output"),
        _ if trusted_std_macro(name) || ALLOWED_DERIVES.contains(&name) => Allow,
        "include" | "include_str" | "include_bytes" => Deny(CompileTimeRead, "files at compile time"),
        "env" | "option_env" => Deny(CompileTimeRead, "environment variables at compile time"),
        "asm" | "global_asm" | "naked_asm" | "llvm_asm" => Deny(ForeignCode, "inline assembly"),
        "global_allocator" | "alloc_error_handler" => Deny(HostTakeover, "the global allocator"),
        _ => Deny(AmbientAuthority, "a std macro outside safe mode's allowlist"),
    }
}

fn core_item(item: &Item) -> Rule {
    match item.modules.first().map(String::as_str) {
        Some("intrinsics" | "arch") => Deny(HostTakeover, "compiler intrinsics"),
        // A destructor that panics while a panic unwinds (or that a panic payload carries) aborts the process:
        // nothing of the host survives it, so a snippet declares none.
        Some("ops") if item.name == "Drop" || item.owner.as_deref() == Some("Drop") => Deny(
            HostTakeover,
            "the host's unwinding: a destructor that panics while a panic unwinds aborts the process",
        ),
        // A value never dropped keeps what it holds: a forgotten `MutexGuard`, `RefMut` or stdout lock stays held
        // after the hole, and the host's own next `lock()` blocks forever or its `borrow_mut()` panics.
        Some("mem")
            if item.name == "forget"
                || matches!(item.owner.as_deref().unwrap_or(item.name.as_str()), "ManuallyDrop" | "MaybeUninit") =>
        {
            Deny(HostTakeover, LEFT_HELD)
        }
        _ if matches!(item.owner.as_deref(), Some("Box" | "Vec" | "String" | "Rc" | "Arc"))
            && matches!(
                item.name.as_str(),
                "leak" | "into_raw" | "into_raw_parts" | "into_non_null" | "into_raw_with_allocator"
            ) =>
        {
            Deny(HostTakeover, LEFT_HELD)
        }
        Some("alloc") if matches!(item.name.as_str(), "handle_alloc_error" | "set_alloc_error_hook") => {
            Deny(HostTakeover, "the global allocator")
        }
        _ => Allow,
    }
}

fn std_item(item: &Item) -> Rule {
    let Some(top) = item.modules.first().map(String::as_str) else {
        // The crate root itself (`std` in `std::fs::read`) is harmless; items defined at the root are not known.
        return if item.kind == ItemKind::Module {
            Allow
        } else {
            Deny(AmbientAuthority, "a std item outside safe mode's allowlist")
        };
    };
    let name = item.name.as_str();
    let owner = item.owner.as_deref();
    let is_module = item.kind == ItemKind::Module;
    match top {
        // Waiting with a timeout is sleeping: the clock.
        "sync"
            if matches!(
                (owner, name),
                (Some("Receiver"), "recv_timeout" | "recv_deadline")
                    | (Some("Condvar"), "wait_timeout" | "wait_timeout_ms" | "wait_timeout_while")
            ) =>
        {
            Rule::Grant(Grant::Time, "the clock")
        }
        _ if PURE_STD_MODULES.contains(&top) => Allow,
        "fs" => Deny(AmbientAuthority, "the filesystem"),
        "net" => Deny(AmbientAuthority, "the network"),
        // The target's constants (`env::consts::OS`) say what the program was compiled for, nothing of its world.
        "env" if item.modules.get(1).map(String::as_str) == Some("consts") || (is_module && name == "consts") => Allow,
        "env" => Deny(AmbientAuthority, "the process environment"),
        // `std::os::unix::ffi`: byte views of OS strings (`OsStrExt::as_bytes`, `OsStringExt::from_vec`),
        // conversions with no system call.
        "os" if item.modules.get(1..3).is_some_and(|m| m == ["unix", "ffi"])
            || (is_module && item.modules.len() == 1 && name == "unix")
            || (is_module && item.modules.len() == 2 && name == "ffi" && item.modules[1] == "unix") =>
        {
            Allow
        }
        "os" => Deny(AmbientAuthority, "operating-system interfaces"),
        "backtrace" => Deny(AmbientAuthority, "the process's own executable and environment"),
        "process" if matches!(name, "exit" | "abort") => Deny(HostTakeover, "the host process's life"),
        // A value, not an act: `ExitCode::SUCCESS`, `ExitCode::from(2)`, `Termination` in signatures.
        "process" if matches!(owner.or(Some(name)), Some("ExitCode" | "Termination")) => Allow,
        "process" => Deny(AmbientAuthority, "processes"),
        // Modules allowed item by item may be named themselves (`use std::time;` for `time::Duration`).
        "alloc" | "time" | "io" | "thread" | "panic" | "path" if is_module => Allow,
        "alloc" if matches!(name, "Layout" | "LayoutError") => Allow,
        "alloc" => Deny(HostTakeover, "the global allocator"),
        "arch" | "intrinsics" => Deny(HostTakeover, "compiler intrinsics"),
        "time" => Rule::Grant(Grant::Time, "the clock"),
        "io" => io_item(owner, name),
        "thread" => match (owner, name) {
            (None | Some("Builder"), "spawn") | (Some("Builder"), "spawn_unchecked") => {
                Deny(DetachedThread, "threads that outlive the hole")
            }
            // The stack budget of a thread the snippet starts assumes std's default stack size.
            (Some("Builder"), "stack_size") => {
                Deny(HostTakeover, "a thread's stack size, which its stack budget relies on")
            }
            (None, "sleep" | "sleep_ms" | "sleep_until" | "park_timeout" | "park_timeout_ms") => {
                Rule::Grant(Grant::Time, "the clock")
            }
            // Parked with nothing bound to wake it, a thread outlasts every budget (they act at its next tick).
            (None, "park") => Deny(HostTakeover, "the hole's thread, parked with nothing bound to wake it"),
            // The machine's processors and the process's CPU quota (read from `/proc` and cgroup files).
            (None, "available_parallelism") => Deny(AmbientAuthority, "the OS"),
            _ => Allow,
        },
        "panic" | "panicking" => match name {
            "set_hook" | "take_hook" | "update_hook" | "always_abort" => Deny(HostTakeover, "the host's panic hook"),
            _ if top == "panicking" => Deny(HostTakeover, "the panic runtime"),
            _ => Allow,
        },
        "path" => match (owner, name) {
            (
                None | Some("Path") | Some("PathBuf"),
                "exists" | "try_exists" | "metadata" | "symlink_metadata" | "canonicalize" | "read_link" | "read_dir"
                | "is_file" | "is_dir" | "is_symlink" | "absolute",
            ) => Deny(AmbientAuthority, "the filesystem"),
            _ => Allow,
        },
        _ => Deny(AmbientAuthority, "a std item outside safe mode's allowlist"),
    }
}

fn io_item(owner: Option<&str>, name: &str) -> Rule {
    const STDIN: &[&str] = &["stdin", "Stdin", "StdinLock"];
    const STDOUT: &[&str] = &["stdout", "stderr", "Stdout", "Stderr", "StdoutLock", "StderrLock", "_print", "_eprint"];
    let subject = owner.unwrap_or(name);
    if STDIN.contains(&subject) || STDIN.contains(&name) {
        Deny(AmbientAuthority, "standard input")
    } else if STDOUT.contains(&subject) || STDOUT.contains(&name) {
        Rule::Grant(Grant::Stdout, "standard output")
    } else if matches!(subject, "repeat" | "Repeat" | "sink" | "Sink" | "empty" | "Empty") {
        // `io::copy(&mut io::repeat(0), &mut io::sink())` and a padded `write!` into a sink loop inside std with
        // no snippet code between their steps, so no budget counts them; with data of its own a snippet has no
        // use for them.
        Deny(UnmeteredLoop, "an endless reader or a sink, which std loops over where no budget counts")
    } else {
        Allow
    }
}

#[cfg(test)]
mod tests {
    use crate::{CrateKind, Denial, Grant, Item, ItemKind, Policy, ViolationKind};

    fn item(krate: CrateKind, path: &str, kind: ItemKind) -> Item {
        let mut parts: Vec<String> = path.split("::").map(str::to_owned).collect();
        let name = parts.pop().unwrap();
        let owner = match parts.last() {
            Some(p) if p.starts_with(char::is_uppercase) => parts.pop(),
            _ => None,
        };
        if kind == ItemKind::Module {
            parts.push(name.clone());
        }
        Item { krate, modules: parts, owner, name, kind }
    }

    fn std(path: &str, kind: ItemKind) -> Item {
        item(CrateKind::Std, path, kind)
    }

    fn kind_of(policy: &Policy, item: &Item) -> Option<ViolationKind> {
        policy.judge(item).err().map(|d| d.kind)
    }

    #[test]
    fn denied_by_where_they_are_defined() {
        let p = Policy::default();
        use ItemKind::*;
        for (path, kind, want) in [
            ("fs::read_to_string", Function, ViolationKind::AmbientAuthority),
            ("fs", Module, ViolationKind::AmbientAuthority),
            ("net::tcp::TcpStream::connect", Function, ViolationKind::AmbientAuthority),
            ("net::socket_addr::ToSocketAddrs::to_socket_addrs", Function, ViolationKind::AmbientAuthority),
            ("process::Command::new", Function, ViolationKind::AmbientAuthority),
            ("process::exit", Function, ViolationKind::HostTakeover),
            ("process::abort", Function, ViolationKind::HostTakeover),
            ("process::id", Function, ViolationKind::AmbientAuthority),
            ("env::var", Function, ViolationKind::AmbientAuthority),
            ("os::unix::process::CommandExt::exec", Function, ViolationKind::AmbientAuthority),
            ("thread::functions::spawn", Function, ViolationKind::DetachedThread),
            ("thread::Builder::spawn", Function, ViolationKind::DetachedThread),
            ("thread::Builder::stack_size", Function, ViolationKind::HostTakeover),
            ("panic::set_hook", Function, ViolationKind::HostTakeover),
            ("panicking::take_hook", Function, ViolationKind::HostTakeover),
            ("io::stdio::stdin", Function, ViolationKind::AmbientAuthority),
            ("path::Path::exists", Function, ViolationKind::AmbientAuthority),
            ("path::Path::read_dir", Function, ViolationKind::AmbientAuthority),
            ("alloc::System", Type, ViolationKind::HostTakeover),
            ("time::Instant::now", Function, ViolationKind::AmbientAuthority),
            ("sys::pal::unix::os::getenv", Function, ViolationKind::AmbientAuthority),
            // Endless readers and sinks: std loops over them (`io::copy`, padded writes) where no budget counts.
            ("io::util::repeat", Function, ViolationKind::UnmeteredLoop),
            ("io::util::Repeat::read", Function, ViolationKind::UnmeteredLoop),
            ("io::util::sink", Function, ViolationKind::UnmeteredLoop),
            ("io::util::Sink::write", Function, ViolationKind::UnmeteredLoop),
            ("io::util::empty", Function, ViolationKind::UnmeteredLoop),
        ] {
            assert_eq!(kind_of(&p, &std(path, kind)), Some(want), "std::{path}");
        }
        // A snippet's own destructor could abort the host (a panic in it while a panic unwinds).
        for (path, kind) in [("ops::drop::Drop", Trait), ("ops::drop::Drop::drop", Function)] {
            assert_eq!(kind_of(&p, &item(CrateKind::Core, path, kind)), Some(ViolationKind::HostTakeover), "{path}");
        }
        // A value never dropped leaves what it holds held (a lock guard, a `RefCell` borrow).
        for (krate, path, kind) in [
            (CrateKind::Core, "mem::forget", Function),
            (CrateKind::Core, "mem::manually_drop::ManuallyDrop", Type),
            (CrateKind::Core, "mem::manually_drop::ManuallyDrop::new", Function),
            (CrateKind::Core, "mem::maybe_uninit::MaybeUninit::new", Function),
            (CrateKind::Alloc, "boxed::Box::leak", Function),
            (CrateKind::Alloc, "boxed::Box::into_raw", Function),
            (CrateKind::Alloc, "vec::Vec::leak", Function),
            (CrateKind::Alloc, "string::String::leak", Function),
            (CrateKind::Alloc, "rc::Rc::into_raw", Function),
            (CrateKind::Alloc, "sync::Arc::into_raw", Function),
        ] {
            assert_eq!(kind_of(&p, &item(krate, path, kind)), Some(ViolationKind::HostTakeover), "{path}");
        }
        for path in
            ["sync::mpsc::Receiver::recv_timeout", "sync::condvar::Condvar::wait_timeout", "thread::park_timeout"]
        {
            assert_eq!(kind_of(&p, &std(path, Function)), Some(ViolationKind::AmbientAuthority), "{path}");
            assert_eq!(kind_of(&p.clone().with(Grant::Time), &std(path, Function)), None, "{path}");
        }
        assert_eq!(kind_of(&p, &std("thread::functions::park", Function)), Some(ViolationKind::HostTakeover));
        assert_eq!(
            kind_of(&p, &std("thread::functions::available_parallelism", Function)),
            Some(ViolationKind::AmbientAuthority)
        );
        for (krate, path) in
            [(CrateKind::Core, "mem::take"), (CrateKind::Core, "mem::swap"), (CrateKind::Alloc, "boxed::Box::new")]
        {
            assert_eq!(kind_of(&p, &item(krate, path, Function)), None, "{path}");
        }
    }

    #[test]
    fn pure_std_is_allowed() {
        let p = Policy::default();
        use ItemKind::*;
        for (path, kind) in [
            ("collections::hash::map::HashMap::new", Function),
            ("sync::poison::mutex::Mutex", Type),
            ("thread::scoped::scope", Function),
            ("thread::scoped::Scope::spawn", Function),
            ("thread::Builder::spawn_scoped", Function),
            ("thread", Module),
            ("time", Module),
            ("io::Write::write_all", Function),
            ("io::cursor::Cursor", Type),
            ("io::stdio::stdout", Function),
            ("path::Path::extension", Function),
            ("path::PathBuf::join", Function),
            ("f64::sqrt", Function),
            ("hash::random::RandomState", Type),
        ] {
            assert_eq!(p.judge(&std(path, kind)), Ok(()), "std::{path}");
        }
        assert_eq!(p.judge(&item(CrateKind::Core, "mem::swap", Function)), Ok(()));
        assert_eq!(p.judge(&item(CrateKind::Core, "mem::drop", Function)), Ok(()));
        for (path, kind) in [
            ("env::consts::OS", Const),
            ("env::consts", Module),
            ("process::ExitCode::SUCCESS", Const),
            ("process::ExitCode", Type),
            ("os::unix::ffi::os_str::OsStrExt::as_bytes", Function),
            ("os::unix::ffi::OsStringExt::from_vec", Function),
        ] {
            assert_eq!(p.judge(&std(path, kind)), Ok(()), "std::{path}");
        }
        assert_eq!(p.judge(&item(CrateKind::Core, "ops::Deref", Trait)), Ok(()));
        assert_eq!(p.judge(&item(CrateKind::Host, "tools::send_money", Function)), Ok(()));
    }

    #[test]
    fn macros_by_name() {
        let p = Policy::default();
        let mac = |k, n: &str| Item {
            krate: k,
            modules: vec!["macros".into()],
            owner: None,
            name: n.into(),
            kind: ItemKind::Macro,
        };
        assert_eq!(p.judge(&mac(CrateKind::Std, "println")), Ok(()));
        assert_eq!(p.judge(&mac(CrateKind::Alloc, "vec")), Ok(()));
        assert_eq!(kind_of(&p, &mac(CrateKind::Core, "include_str")), Some(ViolationKind::CompileTimeRead));
        assert_eq!(kind_of(&p, &mac(CrateKind::Core, "env")), Some(ViolationKind::CompileTimeRead));
        assert_eq!(kind_of(&p, &mac(CrateKind::Core, "asm")), Some(ViolationKind::ForeignCode));
        let quiet = Policy::default().without(Grant::Stdout);
        assert_eq!(
            quiet.judge(&mac(CrateKind::Std, "println")),
            Err(Denial {
                kind: ViolationKind::AmbientAuthority,
                what: "standard output",
                grant: Some(Grant::Stdout),
                allow: None
            })
        );
    }

    #[test]
    fn grants_widen_and_nesting_narrows() {
        let now = std("time::Instant::now", ItemKind::Function);
        assert!(Policy::default().judge(&now).is_err());
        let timed = Policy::default().with(Grant::Time);
        assert_eq!(timed.judge(&now), Ok(()));
        assert!(timed.narrowed_by(&Policy::default()).judge(&now).is_err());
        assert_eq!(Policy::unconfined().judge(&std("fs::write", ItemKind::Function)), Ok(()));
        assert!(!Policy::unconfined().narrowed_by(&Policy::default()).is_unconfined());
    }

    #[test]
    fn lacuna_internals_and_other_crates() {
        let p = Policy::default();
        let private = Item {
            krate: CrateKind::Lacuna,
            modules: vec!["__private".into()],
            owner: None,
            name: "enter".into(),
            kind: ItemKind::Function,
        };
        assert_eq!(kind_of(&p, &private), Some(ViolationKind::HostTakeover));
        let libc = Item {
            krate: CrateKind::Other("libc".into()),
            modules: vec![],
            owner: None,
            name: "system".into(),
            kind: ItemKind::Function,
        };
        assert_eq!(kind_of(&p, &libc), Some(ViolationKind::AmbientAuthority));
        assert_eq!(p.judge(&libc).unwrap_err().allow.as_deref(), Some("libc"));
        assert_eq!(std("fs::read", ItemKind::Function).display(), "std::fs::read");
    }

    #[test]
    fn a_project_lists_the_crates_and_modules_snippets_may_name() {
        let item = |krate: &str, modules: &[&str], name: &str| Item {
            krate: CrateKind::Other(krate.into()),
            modules: modules.iter().map(|m| m.to_string()).collect(),
            owner: None,
            name: name.into(),
            kind: ItemKind::Function,
        };
        let p = Policy::default().with_crate("serde_json").with_crate("tokio::time");
        assert_eq!(p.judge(&item("serde_json", &["de"], "from_str")), Ok(()));
        assert_eq!(p.judge(&item("tokio", &["time", "sleep"], "sleep")), Ok(()));
        assert!(p.judge(&item("tokio", &["fs", "read"], "read")).is_err());
        assert!(p.judge(&item("tokio", &[], "spawn")).is_err());
        assert!(p.judge(&item("serde_json_ext", &[], "f")).is_err());
        // A nested hole's policy never lists more than its parent's.
        let narrowed = p.narrowed_by(&Policy::default().with_crate("serde_json"));
        assert!(narrowed.judge(&item("tokio", &["time"], "sleep")).is_err());
        // A listed crate does not reach past std's rules: its re-export of `std::fs` resolves to std.
        assert!(p.judge(&std("fs::read", ItemKind::Function)).is_err());
        assert_eq!(std("fs", ItemKind::Module).display(), "std::fs");
    }

    #[test]
    fn capabilities_are_used_not_made() {
        let p = Policy::default();
        let cap = |owner: Option<&str>, name: &str, kind| Item {
            krate: CrateKind::Lacuna,
            modules: vec!["cap".into()],
            owner: owner.map(str::to_owned),
            name: name.into(),
            kind,
        };
        for made in [
            cap(None, "ambient_authority", ItemKind::Function),
            cap(None, "AmbientAuthority", ItemKind::Type),
            cap(Some("Dir"), "open_ambient", ItemKind::Function),
            cap(Some("Net"), "from_ambient", ItemKind::Function),
            cap(None, "with_dir", ItemKind::Function),
        ] {
            assert_eq!(kind_of(&p, &made), Some(ViolationKind::AmbientAuthority), "{}", made.display());
        }
        for used in [
            cap(Some("Dir"), "read_to_string", ItemKind::Function),
            cap(Some("Net"), "connect", ItemKind::Function),
            cap(None, "Dir", ItemKind::Type),
            cap(None, "CapError", ItemKind::Type),
        ] {
            assert_eq!(p.judge(&used), Ok(()), "{}", used.display());
        }
    }

    #[test]
    fn every_kind_has_a_distinct_name_and_code() {
        let mut names: Vec<_> = ViolationKind::ALL.iter().map(|k| k.name()).collect();
        let mut codes: Vec<_> = ViolationKind::ALL.iter().map(|k| k.code()).collect();
        names.dedup();
        codes.sort();
        codes.dedup();
        assert_eq!((names.len(), codes.len()), (ViolationKind::ALL.len(), ViolationKind::ALL.len()));
        for k in ViolationKind::ALL {
            assert_eq!(ViolationKind::from_name(k.name()), Some(k));
        }
    }
}
