//! Safe mode: what a snippet may reach.
//!
//! The checker resolves every name, method, macro and operator a snippet uses to the item it denotes (where it is
//! *defined*, not the path it was written as), describes it as an [`Item`], and asks [`Policy::judge`]. This crate
//! is the rule table and nothing else: no IO, no rust-analyzer, so its rules are unit-tested on their own.
//!
//! The rules are an allowlist. `core` and `alloc` are allowed (minus intrinsics and the allocator hooks); of `std`,
//! the modules of pure computation are allowed and a few modules are allowed item by item (`io`, `thread`, `panic`,
//! `path`); everything else is denied, including any std module this table does not name. The host's own items
//! (its tools) are allowed: the host is trusted, and what the hole can name is what the host granted.

mod cycles;
mod iteration;
mod rules;
mod waiting;

use serde::{Deserialize, Serialize};

pub use cycles::{is_borrow_guard, is_shared_owner, is_thread_local};
pub use iteration::{iteration, wraps_receiver_type, Iteration};
pub use rules::{trusted_std_macro, ALLOWED_DERIVES, STD_EXPRESSION_MACROS};
pub use waiting::{flattening, is_receiver, is_receiver_iterator_type, waiting, Flattening, Waiting};

/// Why a snippet is rejected by safe mode. Each kind has a stable name (the diagnostic's `kind`) and a Lacuna code
/// (the diagnostic's `code`), documented in `docs/policy.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    /// A std item that acts on the world: files, network, processes, environment, the OS, the clock.
    AmbientAuthority,
    /// `unsafe` in any form, `static mut`.
    UnsafeCode,
    /// `extern` blocks, crates and ABIs, linkage attributes, inline assembly.
    ForeignCode,
    /// Reading the build machine at compile time: `include!` and friends, `env!`, `#[path]`, `mod x;`.
    CompileTimeRead,
    /// A thread that can outlive the hole (`thread::spawn`, `Builder::spawn`).
    DetachedThread,
    /// Ending or rewiring the host: `process::exit`/`abort`, panic hooks, the allocator, Lacuna's internals.
    HostTakeover,
    /// A known shape of a compiler soundness bug (rust-lang/rust#25860, #84591).
    SoundnessHole,
    /// A name, method or macro safe mode could not resolve, so could not judge.
    Unresolved,
    /// A snippet too large or too deeply nested (or with macros expanding too far) for safe mode to inspect.
    Unverifiable,
    /// A closure given to `Classified::map` that could let the content out: it captures a value from outside,
    /// prints, calls a host function, uses a capability, or holds a hole for a model not marked local.
    ClassifiedLeak,
    /// A loop std would run where the snippet's budgets cannot count it: an iterator method named as a value or by
    /// path, or put together by a macro from pieces; std's endless reader and sinks (`io::repeat`, `io::sink`).
    UnmeteredLoop,
    /// A wait inside std that cannot look at the run's time budget while it waits: `Barrier::wait`, a blocking
    /// call put together by a macro from pieces.
    UnboundedWait,
}

impl ViolationKind {
    pub const ALL: [ViolationKind; 12] = [
        ViolationKind::AmbientAuthority,
        ViolationKind::UnsafeCode,
        ViolationKind::ForeignCode,
        ViolationKind::CompileTimeRead,
        ViolationKind::DetachedThread,
        ViolationKind::HostTakeover,
        ViolationKind::SoundnessHole,
        ViolationKind::Unresolved,
        ViolationKind::Unverifiable,
        ViolationKind::ClassifiedLeak,
        ViolationKind::UnmeteredLoop,
        ViolationKind::UnboundedWait,
    ];

    /// The diagnostic's `kind`.
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::AmbientAuthority => "ambient-authority",
            ViolationKind::UnsafeCode => "unsafe-code",
            ViolationKind::ForeignCode => "foreign-code",
            ViolationKind::CompileTimeRead => "compile-time-read",
            ViolationKind::DetachedThread => "detached-thread",
            ViolationKind::HostTakeover => "host-takeover",
            ViolationKind::SoundnessHole => "soundness-hole",
            ViolationKind::Unresolved => "unresolved-item",
            ViolationKind::Unverifiable => "unverifiable",
            ViolationKind::ClassifiedLeak => "classified-leak",
            ViolationKind::UnmeteredLoop => "unmetered-loop",
            ViolationKind::UnboundedWait => "unbounded-wait",
        }
    }

    pub fn from_name(name: &str) -> Option<ViolationKind> {
        ViolationKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The diagnostic's `code`: `L` and four digits, as rustc's are `E` and four.
    pub fn code(self) -> &'static str {
        match self {
            ViolationKind::AmbientAuthority => "L0101",
            ViolationKind::UnsafeCode => "L0102",
            ViolationKind::ForeignCode => "L0103",
            ViolationKind::CompileTimeRead => "L0104",
            ViolationKind::DetachedThread => "L0105",
            ViolationKind::HostTakeover => "L0106",
            ViolationKind::SoundnessHole => "L0107",
            ViolationKind::Unresolved => "L0108",
            ViolationKind::Unverifiable => "L0109",
            ViolationKind::ClassifiedLeak => "L0110",
            ViolationKind::UnmeteredLoop => "L0111",
            ViolationKind::UnboundedWait => "L0112",
        }
    }

    /// What the model should do instead: the diagnostic's `help`.
    pub fn help(self) -> &'static str {
        match self {
            ViolationKind::AmbientAuthority => {
                "a snippet reaches the world only through the values and host functions in its scope; use one of \
                 those, or compute the answer from the data you were given"
            }
            ViolationKind::UnsafeCode => "snippets are safe Rust only; write it without `unsafe`",
            ViolationKind::ForeignCode => "snippets cannot declare foreign functions, link symbols or use assembly",
            ViolationKind::CompileTimeRead => {
                "snippets cannot read files or environment variables at compile time; use the values in scope"
            }
            ViolationKind::DetachedThread => {
                "use `std::thread::scope(|s| { s.spawn(..); })`: scoped threads end before the hole does"
            }
            ViolationKind::HostTakeover => {
                "a snippet cannot end the program or change its hooks; return a value (or an `Err`) instead"
            }
            ViolationKind::SoundnessHole => {
                "nested references with two named lifetimes (`&'a &'b T`) are the shape of a known compiler \
                 soundness bug; write the types without them"
            }
            ViolationKind::Unresolved => {
                "safe mode judges every item by what it resolves to; name it by its full path or annotate the types \
                 so it resolves"
            }
            ViolationKind::Unverifiable => "split the work into a smaller snippet, or hand parts of it to nested holes",
            ViolationKind::ClassifiedLeak => {
                "a closure given to `Classified::map` only computes its result from its argument: write it in place \
                 as `|content| ..`, capture nothing, print nothing, call no host function; a hole inside it must name \
                 a model marked local"
            }
            ViolationKind::UnmeteredLoop => {
                "call iterator methods as methods, written out (`it.count()`, `Vec::from_iter(it)`), so the budget \
                 counts each element std takes; read and write real data, not an endless reader or a sink"
            }
            ViolationKind::UnboundedWait => {
                "wait with channels, locks, condition variables or joins, called as methods written out \
                 (`rx.recv()`, `m.lock()`), so the time budget can end a wait that never ends; not with a `Barrier`"
            }
        }
    }
}

/// A capability of the process that safe mode denies by default but a host can grant (or one it allows by default
/// and a host can take away), in `lacuna.toml`'s `[policy]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grant {
    /// Printing: `println!` and friends, `dbg!`, `io::stdout`/`stderr`. Granted by default (a snippet reports
    /// progress with a plain `println!`).
    Stdout,
    /// The clock and waiting on it: `time::Instant`, `SystemTime`, `thread::sleep`. Denied by default.
    Time,
}

impl Grant {
    pub const ALL: [Grant; 2] = [Grant::Stdout, Grant::Time];

    pub fn name(self) -> &'static str {
        match self {
            Grant::Stdout => "stdout",
            Grant::Time => "time",
        }
    }

    pub fn from_name(name: &str) -> Option<Grant> {
        Grant::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// What a hole's snippets may reach. `Policy::default()` is safe mode with the default grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    grants: Vec<Grant>,
    /// Safe mode off: snippets run with the full authority of the process. Only an explicit, loudly named opt-out
    /// sets this.
    unconfined: bool,
    /// Models (`agent!(name, ..)`) that run where classified data may go: a hole inside `Classified::map` must
    /// name one of these.
    local_models: Vec<String>,
    /// Third-party crates (`serde_json`) or modules of them (`tokio::time`) a snippet may name, as a project lists
    /// them (`crates = [..]` in `[policy]`). Any other crate's items are denied.
    crates: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { grants: vec![Grant::Stdout], unconfined: false, local_models: Vec::new(), crates: Vec::new() }
    }
}

impl Policy {
    /// Safe mode off. Snippets may do anything the process can; for trusted experiments only.
    pub fn unconfined() -> Policy {
        Policy { grants: Grant::ALL.to_vec(), unconfined: true, local_models: Vec::new(), crates: Vec::new() }
    }

    /// This policy with the items of `entry` allowed: a crate (`regex`) or a module path in one (`tokio::time`).
    /// The whole crate or module is vouched for: all its items, and the methods of its types and traits.
    pub fn with_crate(mut self, entry: &str) -> Policy {
        let entry = entry.trim().trim_start_matches("::").replace('-', "_");
        if !self.crates.contains(&entry) {
            self.crates.push(entry);
            self.crates.sort();
        }
        self
    }

    /// The crates and modules [`Policy::with_crate`] allowed.
    pub fn allowed_crates(&self) -> &[String] {
        &self.crates
    }

    /// Whether an item of crate `krate` in module path `modules` is one a listed crate or module holds.
    fn allows_crate_item(&self, krate: &str, modules: &[String]) -> bool {
        self.crates.iter().any(|entry| {
            let mut parts = entry.split("::");
            parts.next() == Some(krate) && {
                let rest: Vec<&str> = parts.collect();
                rest.len() <= modules.len() && rest.iter().zip(modules).all(|(a, b)| a == b)
            }
        })
    }

    /// This policy with `model` marked local: holes inside `Classified::map` may name it.
    pub fn with_local_model(mut self, model: &str) -> Policy {
        if !self.local_models.iter().any(|m| m == model) {
            self.local_models.push(model.to_owned());
            self.local_models.sort();
        }
        self
    }

    /// Whether `model` is marked local.
    pub fn is_local_model(&self, model: &str) -> bool {
        self.local_models.iter().any(|m| m == model)
    }

    pub fn is_unconfined(&self) -> bool {
        self.unconfined
    }

    pub fn grants(&self, grant: Grant) -> bool {
        self.unconfined || self.grants.contains(&grant)
    }

    /// This policy with `grant` added.
    pub fn with(mut self, grant: Grant) -> Policy {
        if !self.grants.contains(&grant) {
            self.grants.push(grant);
            self.grants.sort();
        }
        self
    }

    /// This policy with `grant` removed.
    pub fn without(mut self, grant: Grant) -> Policy {
        self.grants.retain(|g| *g != grant);
        self
    }

    /// What both allow: a nested hole's policy is its own narrowed by its parent's, so nesting never widens.
    pub fn narrowed_by(&self, parent: &Policy) -> Policy {
        Policy {
            grants: self.grants.iter().copied().filter(|g| parent.grants(*g)).collect(),
            unconfined: self.unconfined && parent.unconfined,
            local_models: self.local_models.iter().filter(|m| parent.is_local_model(m)).cloned().collect(),
            crates: self.crates.iter().filter(|c| parent.crates.contains(c)).cloned().collect(),
        }
    }

    /// Whether a snippet may use `item`.
    pub fn judge(&self, item: &Item) -> Result<(), Denial> {
        if self.unconfined {
            return Ok(());
        }
        if let CrateKind::Other(krate) = &item.krate {
            if self.allows_crate_item(krate, &item.modules) {
                return Ok(());
            }
            let what = "a crate safe mode does not allow";
            let allow = Some(krate.clone());
            return Err(Denial { kind: ViolationKind::AmbientAuthority, what, grant: None, allow });
        }
        match rules::judge(item) {
            rules::Rule::Allow => Ok(()),
            rules::Rule::Deny(kind, what) => Err(Denial { kind, what, grant: None, allow: None }),
            rules::Rule::Grant(grant, _) if self.grants(grant) => Ok(()),
            rules::Rule::Grant(grant, what) => {
                Err(Denial { kind: ViolationKind::AmbientAuthority, what, grant: Some(grant), allow: None })
            }
        }
    }
}

/// Which crate an item is defined in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrateKind {
    Core,
    Alloc,
    Std,
    /// The `lacuna` prelude.
    Lacuna,
    /// The host program (and the snippet spliced into it).
    Host,
    Other(String),
}

impl CrateKind {
    pub fn from_name(name: &str) -> CrateKind {
        match name {
            "core" => CrateKind::Core,
            "alloc" => CrateKind::Alloc,
            "std" => CrateKind::Std,
            "lacuna" => CrateKind::Lacuna,
            "host" => CrateKind::Host,
            other => CrateKind::Other(other.to_owned()),
        }
    }

    /// One of the standard library's crates (`core`, `alloc`, `std`).
    pub fn is_std(&self) -> bool {
        matches!(self, CrateKind::Core | CrateKind::Alloc | CrateKind::Std)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Module,
    Function,
    /// A struct, enum, union or type alias.
    Type,
    Trait,
    Macro,
    Const,
    Static,
    Variant,
}

/// A resolved item, by where it is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub krate: CrateKind,
    /// The modules from the crate root to the one that defines the item (`["collections", "hash", "map"]` for
    /// `HashMap`); for a module, including the module itself.
    pub modules: Vec<String>,
    /// For an associated item: the type of its inherent impl, or its trait (`Path`, `Builder`, `Write`).
    pub owner: Option<String>,
    pub name: String,
    pub kind: ItemKind,
}

impl Item {
    /// The item as a path people read (`std::fs::read`, `std::thread::Builder::spawn`).
    pub fn display(&self) -> String {
        let krate = match &self.krate {
            CrateKind::Core => "core",
            CrateKind::Alloc => "alloc",
            CrateKind::Std => "std",
            CrateKind::Lacuna => "lacuna",
            CrateKind::Host => "crate",
            CrateKind::Other(name) => name,
        };
        let mut parts = vec![krate];
        let modules = if self.kind == ItemKind::Module {
            &self.modules[..self.modules.len().saturating_sub(1)]
        } else {
            &self.modules[..]
        };
        parts.extend(modules.iter().map(String::as_str));
        parts.extend(self.owner.as_deref());
        if !(self.kind == ItemKind::Module && self.modules.is_empty()) {
            parts.push(&self.name);
        }
        parts.join("::")
    }
}

/// Why an item is denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub kind: ViolationKind,
    /// The authority the item would reach, for people ("the filesystem").
    pub what: &'static str,
    /// The grant that would allow it, when one would.
    pub grant: Option<Grant>,
    /// The third-party crate whose listing in `[policy] crates` would allow it.
    pub allow: Option<String>,
}
