//! A rustc-path snippet as a library: the instrumented host (so host items, and holes inside them, work as in
//! the host) with one exported entry declared in the innermost block around the hole, where it sees every item the
//! hole sees. The entry rebuilds the hole's bindings from the binding table and runs the snippet under
//! `lacuna::__private::run_snippet`.
//!
//! Bindings the snippet uses are made available under their own names where that keeps the snippet's meaning
//! (copies of `Copy` values it cannot assign, values it owns), and otherwise as references with each use rewritten
//! to `(*__lacuna_bN)`, so reads and writes reach the host's frame.

use std::collections::BTreeMap;
use std::ops::Range;

use lacuna_ir::{Binding, FuelPoint, HoleScope, SnippetUses, UseKind};

use crate::instrument::{ClosurePass, HostMode, Instrumented, SitePlan};
use crate::ExecError;

/// How the entry makes one binding available to the snippet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `let x: T = ptr::read(..)`: a copy (`Copy` types and `&mut` reborrows the snippet cannot assign).
    Copy,
    /// `let x: &T = &*ptr`, uses rewritten.
    Shared,
    /// `let x: &mut T = &mut *ptr`, uses rewritten.
    Mutable,
    /// `let mut x: T = ptr::read(..)` and the moved flag set: the snippet owns it (it moves it; the host
    /// forgets it).
    Owned,
}

/// The generated library source, and how to map its positions back to the snippet.
#[derive(Debug, Clone)]
pub struct SnippetSource {
    pub text: String,
    /// Line (1-based) of the library source where the snippet's first line is.
    pub first_line: u32,
    /// Byte offset in `text` where the (edited) snippet starts.
    pub snippet_start: usize,
    /// For mapping columns: per edited snippet line, (edited column, original column) boundaries.
    map: OffsetMap,
    /// The library links to the host `dylib` (made from its mirror) rather than holding a copy of it.
    pub links_host: bool,
    /// The snippet awaits: the library exports `__lacuna_snippet_start`, `_poll` and `_drop` instead of
    /// `__lacuna_snippet`.
    pub asynchronous: bool,
}

impl SnippetSource {
    /// The snippet position (1-based line and column) of a position in the library source, if it is in the
    /// snippet.
    pub fn snippet_position(&self, line: u32, column: u32) -> Option<(u32, u32)> {
        if line < self.first_line {
            return None;
        }
        let snippet_line = line - self.first_line + 1;
        if snippet_line > self.map.lines {
            return None;
        }
        Some((snippet_line, self.map.original_column(snippet_line, column)))
    }
}

/// The library source an entry is declared in.
#[derive(Debug, Clone, Copy)]
pub enum LibraryBase<'a> {
    /// The instrumented host, for the host's own holes: the library holds a copy of it.
    Host(&'a Instrumented),
    /// The host's mirror, for the host's own holes when the host is a `dylib` the library links to (its site
    /// index in `sites`).
    Mirror(&'a Instrumented, usize),
    /// The library of the snippet a hole was written in, for holes inside generated code: the new entry goes
    /// inside that snippet (where it sees the snippet's items), and the old entry is no longer exported.
    /// `snippet_start` is where that snippet starts in the program the hole's scope was computed on.
    Snippet { source: &'a SnippetSource, snippet_start: usize },
}

/// How an entry is declared: exported, and once it is the base of a nested hole's library, private (the
/// replacement keeps the line count, so positions after it stay put).
const ENTRY_EXPORTED: &str = "#[no_mangle]\n#[allow(warnings)]\npub extern \"C\" fn __lacuna_snippet(";
const ENTRY_PRIVATE: &str = "#[allow(warnings)]\n#[allow(unused)]\nextern \"C\" fn __lacuna_snippet_outer(";
/// The same for the entry of a snippet that awaits.
const ASYNC_ENTRY_EXPORTED: &str = "#[no_mangle]\n#[allow(warnings)]\npub extern \"C\" fn __lacuna_snippet_start(";
const ASYNC_ENTRY_PRIVATE: &str = "#[allow(warnings)]\n#[allow(unused)]\nextern \"C\" fn __lacuna_snippet_outer_start(";
/// What a library whose snippet awaits exports besides its entry: polling and dropping the started snippet.
const ASYNC_EXPORTS: &str =
    "\n#[no_mangle]\n#[allow(warnings)]\npub unsafe extern \"C\" fn __lacuna_snippet_poll(handle: *mut (), \
    run: *mut ::lacuna::__private::RawRun, waker: *const ()) -> u32 {\n    \
    unsafe { ::lacuna::__private::poll_async(handle.cast(), run, waker.cast()) }\n}\n\
    #[no_mangle]\n#[allow(warnings)]\npub unsafe extern \"C\" fn __lacuna_snippet_drop(handle: *mut (), \
    run: *mut ::lacuna::__private::RawRun) {\n    unsafe { ::lacuna::__private::drop_async(handle.cast(), run) }\n}\n";
/// What a snippet library that links to the host ends with (the shared runtime's allocator is its allocator).
const MIRROR_TRAILER: &str = "\nextern crate alloc as __lacuna_alloc;\n";
/// What every other snippet library ends with.
const LIBRARY_TRAILER: &str =
    "\nextern crate alloc as __lacuna_alloc;\n#[global_allocator]\nstatic __LACUNA_ALLOCATOR: \
    ::lacuna::__private::BudgetAllocator = ::lacuna::__private::BudgetAllocator;\n";

/// A base source split where an entry goes: the entry's body starts with `prefix`, which opens `blocks` blocks.
struct Split {
    before: String,
    after: String,
    prefix: String,
    blocks: usize,
}

impl LibraryBase<'_> {
    fn links_host(&self) -> bool {
        match self {
            LibraryBase::Host(_) => false,
            LibraryBase::Mirror(..) => true,
            LibraryBase::Snippet { source, .. } => source.links_host,
        }
    }

    /// The base source split where an entry for a hole whose innermost block opens at `item_position` goes.
    fn split(&self, item_position: usize) -> Result<Split, ExecError> {
        let plain = |before: String, after: String| Split { before, after, prefix: String::new(), blocks: 0 };
        match self {
            LibraryBase::Host(instrumented) => {
                let at = instrumented.offset(item_position);
                // The host's positions are the host library's: in a snippet library (an entry inserted above
                // them) they would misplace its panics.
                Ok(plain(instrumented.text[..at].to_owned(), without_positions(&instrumented.text[at..])))
            }
            LibraryBase::Mirror(instrumented, site) => {
                let mirror = instrumented
                    .mirror
                    .as_ref()
                    .ok_or_else(|| ExecError::Internal { detail: "the host has no mirror".into() })?;
                let site = mirror
                    .sites
                    .get(*site)
                    .ok_or_else(|| ExecError::Internal { detail: "a site the mirror does not know".into() })?;
                let at = site.at.min(mirror.text.len());
                Ok(Split {
                    before: mirror.text[..at].to_owned(),
                    after: mirror.text[at..].to_owned(),
                    prefix: site.prefix.clone(),
                    blocks: site.blocks,
                })
            }
            LibraryBase::Snippet { source, snippet_start } => {
                let trailer = if source.links_host { MIRROR_TRAILER } else { LIBRARY_TRAILER };
                let text = source
                    .text
                    .strip_suffix(trailer)
                    .ok_or_else(|| ExecError::Internal { detail: "a snippet library without its trailer".into() })?;
                let in_snippet = item_position.saturating_sub(*snippet_start).min(source.map.original_len);
                let at = source.snippet_start + source.map.edited_offset(in_snippet);
                let before = &text[..at];
                let (exported, private) = match source.asynchronous {
                    false => (ENTRY_EXPORTED, ENTRY_PRIVATE),
                    true => (ASYNC_ENTRY_EXPORTED, ASYNC_ENTRY_PRIVATE),
                };
                if !before.contains(exported) {
                    return Err(ExecError::Internal { detail: "the enclosing snippet's entry is missing".into() });
                }
                Ok(plain(before.replacen(exported, private, 1), text[at..].to_owned()))
            }
        }
    }
}

/// `text` with the `__LACUNA_POSITIONS` table emptied (same lines).
fn without_positions(text: &str) -> String {
    const TABLE: &str = "static __LACUNA_POSITIONS: &[(u32, u32, u32, u32)] = &[";
    match text.find(TABLE).and_then(|start| text[start..].find("];").map(|end| (start, start + end))) {
        Some((start, end)) => format!("{}{}", &text[..start + TABLE.len()], &text[end..]),
        None => text.to_owned(),
    }
}

/// A hole written inside the snippet. At run time it calls Lacuna like a host's hole does, with its own site id
/// and a binding table built in the entry: the snippet's locals and the outer hole's bindings, as its scope lists
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NestedHole {
    pub site: u32,
    /// Byte range of the `agent!(..)` call in the (normalized) snippet.
    pub range: Range<usize>,
    /// Byte range of its task expression in the snippet.
    pub task: Option<Range<usize>>,
    /// `T` as Rust source, when rustc confirmed it.
    pub ty: Option<String>,
    /// Type parameters in scope there (of generic functions the snippet declares, or the outer hole's).
    pub type_params: Vec<String>,
    /// One entry per binding of the nested hole's scope, in its order.
    pub table: Vec<TableEntry>,
}

/// How one binding of a nested hole's scope is passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    pub place: Place,
    pub mode: HostMode,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A local the snippet declared.
    Local { name: String, mutable: bool },
    /// Binding `i` of the outer hole's table.
    Outer(usize),
}

/// The table of a hole written inside a snippet: `inner` is the hole's scope and `inner_modes` what rustc allowed
/// at it in the filled program (whose `snippet` range is the outer snippet); `outer` is the outer hole's plan.
/// Outer bindings are capped by how the outer entry can hand them on (it holds them by reference or by copy, so
/// they are never movable from the nested hole).
pub fn nested_table(
    outer: &SitePlan,
    inner: &[Binding],
    inner_modes: &[HostMode],
    snippet: Range<usize>,
) -> Vec<TableEntry> {
    inner
        .iter()
        .zip(inner_modes)
        .map(|(b, &mode)| {
            if snippet.contains(&b.decl) {
                return TableEntry { place: Place::Local { name: b.name.clone(), mutable: b.mutable }, mode };
            }
            let found = outer.bindings().iter().position(|o| o.decl == b.decl && o.name == b.name);
            let Some(i) = found else { return TableEntry { place: Place::Outer(usize::MAX), mode: HostMode::Absent } };
            let o = &outer.bindings()[i];
            let outer_mode = outer.modes[i];
            let cap = if outer_mode == HostMode::Absent || o.ty.is_none() {
                HostMode::Absent
            } else if declared_mut(o, default_access(o), outer_mode) {
                HostMode::Mutable
            } else {
                HostMode::Shared
            };
            TableEntry { place: Place::Outer(i), mode: weaker(mode, cap) }
        })
        .collect()
}

fn weaker(a: HostMode, b: HostMode) -> HostMode {
    let rank = |m| match m {
        HostMode::Absent => 0,
        HostMode::Shared => 1,
        HostMode::Mutable => 2,
        HostMode::Movable => 3,
    };
    if rank(a) <= rank(b) {
        a
    } else {
        b
    }
}

/// Whether the entry declares a binding writable (`&mut T` or an owned `let mut`).
fn declared_mut(b: &Binding, access: Access, mode: HostMode) -> bool {
    match access {
        Access::Owned => true,
        Access::Mutable => matches!(mode, HostMode::Mutable | HostMode::Movable) && b.mutable,
        Access::Copy | Access::Shared => false,
    }
}

/// Names of things the entry declares, chosen so no snippet refers to them by accident.
fn reference_name(binding: usize) -> String {
    format!("__lacuna_b{binding}")
}

/// The local a binding's reference borrows its lifetime from (see `lacuna::__private::anchored`).
fn anchor_name(binding: usize) -> String {
    format!("{ANCHOR_PREFIX}{binding}")
}

pub(crate) const ANCHOR_PREFIX: &str = "__lacuna_a";

/// Builds the library source for `snippet` at `plan`'s hole. `overrides` replaces the default access per binding
/// index (the runner passes `Owned` for bindings rustc said the snippet moves).
pub fn generate(
    base: LibraryBase<'_>,
    plan: &SitePlan,
    input: &SnippetInput<'_>,
    overrides: &BTreeMap<usize, Access>,
) -> Result<SnippetSource, ExecError> {
    let SnippetInput { hole_type, snippet, uses, type_args, nested, asynchronous } = *input;
    let (scope, item_position) = runnable_scope(plan, type_args)?;
    let entry = EntryScope {
        plan,
        bindings: &scope.bindings,
        generic_self: scope.type_params.iter().any(|p| p == "Self"),
        type_params: &scope.type_params,
    };
    let declared = entry.accesses(uses, overrides, nested);
    let mut lines = entry.type_aliases(&scope.type_params, type_args);
    if uses.fuel_points.iter().any(FuelPoint::needs_import) {
        lines.push_str("        ");
        lines.push_str(lacuna_ir::TICKING_IMPORT);
        lines.push('\n');
    }
    let decls = entry.declarations(&declared, uses)?;
    lines.push_str(&decls.lines);
    let (edited, map) = entry.edited_snippet(snippet, uses, &decls.accesses, nested, scope.self_type.as_deref())?;

    let ty = erase_lifetimes(&entry.unselfed(hole_type));
    let Split { before, after, prefix, blocks } = base.split(item_position)?;
    let Declarations { write_backs, resets, locks_before, .. } = decls;
    let locks_before = if locks_before.is_empty() {
        locks_before
    } else {
        format!("let mut __lacuna_locks = ::lacuna::__private::Seen::record(); {locks_before}\n    ")
    };
    // In the hole, the snippet may do what the `unsafe` block around it allows; here too.
    let open = if plan.in_unsafe { "unsafe " } else { "" };
    const PARAMETERS: &str = "(__lacuna_table: *const *mut (), __lacuna_moved: *mut u8, __lacuna_out: *mut (), \
                              __lacuna_run: *mut ::lacuna::__private::RawRun)";
    let (head, tail) = if asynchronous {
        // A future the engine polls at each poll of the hole: its resets run however it ends (finished, panicked,
        // or dropped before it finished), from the guard.
        let head = format!(
            "\n{ASYNC_ENTRY_EXPORTED}{} -> *mut () {{\n    let __lacuna_body = async move {{\n{prefix}{lines}        \
             {locks_before}let __lacuna_resets = ::lacuna::__private::Resets(::core::option::Option::Some(move |__lacuna_status: u32| \
             {{ {resets} }}));\n        let __lacuna_value: {ty} = {open}{{\n",
            &PARAMETERS[1..]
        );
        let tail = format!(
            "\n        }};\n        {write_backs}unsafe {{ ::core::ptr::write(__lacuna_out as *mut {ty}, __lacuna_value) }};\n        \
             __lacuna_resets.finish();\n    {}}};\n    unsafe {{ ::lacuna::__private::start_async(__lacuna_run, __lacuna_body) }}.cast()\n}}\n\
             {ASYNC_EXPORTS}",
            "}".repeat(blocks)
        );
        (head, tail)
    } else {
        let head = format!(
            "\n{ENTRY_EXPORTED}{} -> u32 {{\n    {locks_before}let __lacuna_body = move || {{\n{prefix}{lines}        \
             let __lacuna_value: {ty} = {open}{{\n",
            &PARAMETERS[1..]
        );
        let tail = format!(
            "\n        }};\n        {write_backs}unsafe {{ ::core::ptr::write(__lacuna_out as *mut {ty}, __lacuna_value) }};\n    \
             {}}};\n    let __lacuna_status = unsafe {{ ::lacuna::__private::run_snippet(__lacuna_run, __lacuna_body) }};\n    \
             {resets}__lacuna_status\n}}\n",
            "}".repeat(blocks)
        );
        (head, tail)
    };
    let mut text = String::with_capacity(before.len() + after.len() + head.len() + edited.len() + tail.len() + 256);
    text.push_str(&before);
    text.push_str(&head);
    let first_line = text.matches('\n').count() as u32 + 1;
    let snippet_start = text.len();
    text.push_str(&edited);
    text.push_str(&tail);
    text.push_str(&after);
    let links_host = base.links_host();
    text.push_str(if links_host { MIRROR_TRAILER } else { LIBRARY_TRAILER });
    Ok(SnippetSource { text, first_line, snippet_start, map, links_host, asynchronous })
}

/// What a snippet library is generated from, besides its base and the hole's plan.
#[derive(Debug, Clone, Copy)]
pub struct SnippetInput<'a> {
    /// `T` as Rust source.
    pub hole_type: &'a str,
    /// Normalized.
    pub snippet: &'a str,
    pub uses: &'a SnippetUses,
    /// The hole's type arguments (empty outside generic functions).
    pub type_args: &'a [String],
    /// Holes written inside the snippet.
    pub nested: &'a [NestedHole],
    /// The snippet awaits (in a hole in async code): the entry starts it as a future.
    pub asynchronous: bool,
}

/// The hole's scope, if an entry can be declared for it with these type arguments; and where its innermost item
/// block opens.
fn runnable_scope<'p>(plan: &'p SitePlan, type_args: &[String]) -> Result<(&'p HoleScope, usize), ExecError> {
    let scope = plan.scope.as_ref().ok_or_else(|| ExecError::unsupported("rust-analyzer could not place this hole"))?;
    if scope.const_params {
        return Err(ExecError::unsupported("holes inside functions with const parameters cannot run yet"));
    }
    if type_args.len() != scope.type_params.len() {
        return Err(ExecError::Internal {
            detail: format!(
                "the host passed {} type(s) for {} type parameter(s)",
                type_args.len(),
                scope.type_params.len()
            ),
        });
    }
    let item_position =
        scope.item_position.ok_or_else(|| ExecError::unsupported("the hole is not inside a function body"))?;
    Ok((scope, item_position))
}

/// What the entry's declarations are made from: the hole's plan and bindings.
struct EntryScope<'a> {
    plan: &'a SitePlan,
    bindings: &'a [Binding],
    /// A trait's `Self` (a hole in a default method) cannot be declared: it is `__LacunaSelf`, in types and in
    /// the snippet.
    generic_self: bool,
    /// The hole's generic parameters: inside the snippet's closure they are aliases of the type arguments, outside
    /// it (where a fault's resets run) they do not exist.
    type_params: &'a [String],
}

/// The entry's bindings as declared: the statements, what is written back when the snippet ends and what is reset
/// if it faults, and how each binding's uses reach it.
struct Declarations {
    lines: String,
    /// Bindings the snippet owns for its run and hands back (see `Access::Owned`).
    write_backs: String,
    resets: String,
    /// Before the run: the walks that record which locks are poisoned already (the host's own doing, which a
    /// fault's resets leave as it is), into `__lacuna_locks`; empty when no binding is walked.
    locks_before: String,
    accesses: BTreeMap<usize, Access>,
}

impl EntryScope<'_> {
    fn unselfed(&self, ty: &str) -> String {
        if self.generic_self {
            without_self(ty)
        } else {
            ty.to_owned()
        }
    }

    /// Which bindings the entry declares, and how: those the snippet uses, and those only the nested holes pass on.
    fn accesses(
        &self,
        uses: &SnippetUses,
        overrides: &BTreeMap<usize, Access>,
        nested: &[NestedHole],
    ) -> BTreeMap<usize, Access> {
        let mut accesses = BTreeMap::new();
        for u in &uses.uses {
            let b = &self.bindings[u.binding];
            let access = overrides.get(&u.binding).copied().unwrap_or_else(|| default_access(b));
            // A `move` closure captures by value: a binding that is not `Copy` is moved into it, so the snippet
            // owns it (a `Copy` one is copied where the closure is made: see `edited_snippet`).
            let moved = u.moved_into.is_some()
                && matches!(access, Access::Shared | Access::Mutable)
                && !b.copy
                && crate::instrument::closure_as_dyn(b).is_none();
            let access = if moved { Access::Owned } else { access };
            let entry = accesses.entry(u.binding).or_insert(access);
            if access == Access::Owned {
                *entry = Access::Owned;
            }
        }
        // Bindings only the nested holes pass on are declared by `&mut` only where one of them may write (a shared
        // reference is `Copy`, so closures that spawn threads can each take it).
        let mut nested_only: BTreeMap<usize, Access> = BTreeMap::new();
        for entry in nested.iter().flat_map(|n| &n.table) {
            if let (Place::Outer(i), true) = (&entry.place, entry.mode != HostMode::Absent) {
                if !accesses.contains_key(i) {
                    let writes = matches!(entry.mode, HostMode::Mutable | HostMode::Movable);
                    let access = nested_only.entry(*i).or_insert(Access::Shared);
                    if writes {
                        *access = Access::Mutable;
                    }
                }
            }
        }
        accesses.extend(nested_only);
        // A host closure arrives as a `dyn` reference (see `closure_as_dyn`): a copy of it is all the snippet needs;
        // an `FnOnce` arrives boxed, to be taken.
        for (i, access) in accesses.iter_mut() {
            match crate::instrument::closure_as_dyn(&self.bindings[*i]) {
                Some(ClosurePass::Once(_)) => *access = Access::Owned,
                Some(_) => *access = Access::Copy,
                None => {}
            }
        }
        accesses
    }

    /// A hole in a generic function runs per instantiation: its type parameters become aliases of the types this
    /// call was made with.
    fn type_aliases(&self, type_params: &[String], type_args: &[String]) -> String {
        // A parameter that is a host closure's type (`f: F` with `F: Fn(i32) -> i32`) is often a closure's or a fn
        // item's, which cannot be named: the closure is handed over as `dyn`, and the parameter is left undeclared.
        let closure_param =
            |param: &str| self.bindings.iter().any(|b| b.callable.is_some() && b.ty.as_deref() == Some(param));
        let mut lines = String::new();
        for (param, arg) in type_params.iter().zip(type_args) {
            if closure_param(param) {
                continue;
            }
            let param = if param == "Self" { SELF_ALIAS } else { param };
            lines.push_str(&format!("        type {param} = {};\n", type_name_as_source(arg)));
        }
        lines
    }

    /// The statements that rebuild each declared binding from the table.
    fn declarations(&self, declared: &BTreeMap<usize, Access>, uses: &SnippetUses) -> Result<Declarations, ExecError> {
        let bindings = self.bindings;
        let mut out = Declarations {
            lines: String::new(),
            write_backs: String::new(),
            resets: String::new(),
            locks_before: String::new(),
            accesses: declared.clone(),
        };
        // Bindings whose number types the snippet settled: a converted copy under their own name (uses are not
        // rewritten), written back converted where the snippet may write them.
        let retyped: BTreeMap<usize, &str> = uses
            .retyped
            .iter()
            .filter(|(i, new)| {
                bindings.get(*i).and_then(|b| b.ty.as_deref()).is_some_and(|old| numbers_only_differ(old, new))
            })
            .map(|(i, new)| (*i, new.as_str()))
            .collect();
        for i in retyped.keys() {
            if let Some(access) = out.accesses.get_mut(i) {
                *access = Access::Copy;
            }
        }
        for (&i, &access) in declared {
            let b = &bindings[i];
            let mode = self.plan.modes[i];
            let unavailable = || match self.plan.in_async && crate::instrument::closure_as_dyn(b).is_some() {
                true => ExecError::unsupported(format!(
                    "`{}` is a host closure, and host closures are not handed to snippets in async code (the host's \
                     future would hold a reference to it across the hole's await): compute without it",
                    b.name
                )),
                false => ExecError::unsupported(format!(
                    "`{}` is borrowed or moved by the host at this hole, so it cannot be handed to the snippet",
                    b.name
                )),
            };
            if mode == HostMode::Absent {
                return Err(unavailable());
            }
            let ptr = format!("(*__lacuna_table.add({i}))");
            let closure = crate::instrument::closure_as_dyn(b);
            if let Some(pass @ ClosurePass::Once(_)) = &closure {
                if mode != HostMode::Movable {
                    return Err(unavailable());
                }
                let (held, ty) = (pass.host_type(), pass.snippet_type());
                out.lines.push_str(&format!(
                    "        let {local}: {ty} = unsafe {{ (*({ptr} as *mut {held})).take() }}\
                     .expect(\"a host `FnOnce` closure is handed to one snippet once\");\n",
                    local = b.name,
                ));
                continue;
            }
            let ty = match &closure {
                Some(pass) => pass.snippet_type(),
                None => b.ty.as_deref().map(|t| erase_lifetimes(&self.unselfed(t))).ok_or_else(|| {
                    ExecError::unsupported(format!(
                        "the type of `{}` ({}) cannot be written as Rust",
                        b.name, b.ty_display
                    ))
                })?,
            };
            let local = if b.is_self { reference_name(i) } else { b.name.clone() };
            if let Some(new) = retyped.get(&i) {
                let new = erase_lifetimes(&self.unselfed(new));
                let writes = matches!(access, Access::Mutable | Access::Owned)
                    && b.mutable
                    && matches!(mode, HostMode::Mutable | HostMode::Movable);
                if writes && !(access == Access::Owned && mode == HostMode::Movable) {
                    out.write_backs.push_str(&format!(
                        "unsafe {{ *({ptr} as *mut {ty}) = ::lacuna::__retype::Retype::<{ty}>::retype(&{local}) }}; "
                    ));
                }
                let mutable = if writes { "mut " } else { "" };
                out.lines.push_str(&format!(
                    "        let {mutable}{local}: {new} = ::lacuna::__retype::Retype::<{new}>::retype(unsafe {{ \
                     &*({ptr} as *const {ty}) }});\n"
                ));
                continue;
            }
            let line = match access {
                Access::Copy => format!("let {local}: {ty} = unsafe {{ ::core::ptr::read({ptr} as *const {ty}) }};"),
                Access::Owned if mode == HostMode::Movable => format!(
                    "let mut {local}: {ty} = unsafe {{ ::core::ptr::read({ptr} as *const {ty}) }}; \
                     unsafe {{ *__lacuna_moved.add({i}) = 1 }};"
                ),
                // The host reads it after the hole, so rustc accepted the snippet only if it leaves a value there:
                // the snippet owns it while it runs and hands it back at the end. If the snippet faults, what it
                // held may be gone, so the host's place gets the type's default (a type without one cannot run
                // this way).
                Access::Owned if mode == HostMode::Mutable && b.mutable => {
                    out.write_backs
                        .push_str(&format!("unsafe {{ ::core::ptr::write({ptr} as *mut {ty}, {local}) }}; "));
                    out.resets.push_str(&format!(
                        "if __lacuna_status != 0 {{ unsafe {{ ::core::ptr::write({ptr} as *mut {ty}, \
                         <{ty} as ::core::default::Default>::default()) }} }} "
                    ));
                    format!("let mut {local}: {ty} = unsafe {{ ::core::ptr::read({ptr} as *const {ty}) }};")
                }
                Access::Owned if self.plan.in_async => {
                    return Err(ExecError::unsupported(format!(
                        "the snippet moves `{}` out of the host, which a snippet in async code cannot do (the \
                         hole's future may be dropped while the snippet holds it): borrow or clone it instead",
                        b.name
                    )))
                }
                Access::Owned => {
                    return Err(ExecError::unsupported(format!(
                        "the snippet moves `{}`, which the host still uses after the hole",
                        b.name
                    )))
                }
                // The reference lives as long as its anchor, a local of the entry: if the snippet lets a borrow of
                // it escape (a `move` closure it returns), rustc names the anchor and the binding goes over owned.
                Access::Mutable if declared_mut(b, access, mode) => format!(
                    "let {anchor} = (); let {}: &mut {ty} = unsafe {{ ::lacuna::__private::anchored_mut(&{anchor}, \
                     {ptr} as *mut {ty}) }};",
                    reference_name(i),
                    anchor = anchor_name(i),
                ),
                Access::Mutable | Access::Shared => format!(
                    "let {anchor} = (); let {}: &{ty} = unsafe {{ ::lacuna::__private::anchored(&{anchor}, \
                     {ptr} as *const {ty}) }};",
                    reference_name(i),
                    anchor = anchor_name(i),
                ),
            };
            // A lock the snippet held when it (or a thread of its, or code under its `catch_unwind`) panicked is
            // poisoned; the host's own next `lock()` must still work, whether or not the hole faulted.
            // Every lock reachable from a binding the host keeps is cleared (`lacuna::__private::Locks`), and the
            // fields holding one that the snippet named (`state.log.lock()`), at the path it wrote, for types the
            // walk does not enter (generic ones, a dependency's). Not for a type written with the hole's generic
            // parameters: they are not in scope where resets run.
            let generic = ty.contains(SELF_ALIAS)
                || ty
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| self.type_params.iter().any(|p| p == word));
            if matches!(access, Access::Mutable | Access::Shared | Access::Copy) && closure.is_none() && !generic {
                let fields =
                    uses.lock_fields.iter().filter(|p| p.binding == i).map(|p| format!(".{}", p.fields.join(".")));
                for path in std::iter::once(String::new()).chain(fields) {
                    let walk = format!(
                        "use ::lacuna::__private::{{WalkLocks as _, WalkNone as _}}; \
                         (&::lacuna::__private::Locks(unsafe {{ &(*({ptr} as *const {ty})){path} }})).walk_locks"
                    );
                    out.locks_before.push_str(&format!("{{ {walk}(&mut __lacuna_locks); }} "));
                    out.resets.push_str(&format!(
                        "{{ {walk}(&mut ::lacuna::__private::Seen::clearing(&__lacuna_locks)); }} "
                    ));
                }
            }
            out.lines.push_str("        ");
            out.lines.push_str(&line);
            out.lines.push('\n');
        }
        Ok(out)
    }

    /// The snippet with uses rewritten, `Self` named, fuel checks inserted and nested holes made calls.
    fn edited_snippet(
        &self,
        snippet: &str,
        uses: &SnippetUses,
        accesses: &BTreeMap<usize, Access>,
        nested: &[NestedHole],
        self_type: Option<&str>,
    ) -> Result<(String, OffsetMap), ExecError> {
        let bindings = self.bindings;
        let mut edits: Vec<Edit> = Vec::new();
        let mut captures: BTreeMap<(usize, bool), Vec<usize>> = BTreeMap::new();
        // `move` closures that capture a `Copy` binding the entry holds by reference, and those bindings.
        let mut copied_into: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
        for u in &uses.uses {
            let b = &bindings[u.binding];
            if let (Some(closure), Access::Shared | Access::Mutable, false) =
                (&u.moved_into, accesses[&u.binding], b.is_self)
            {
                let names = copied_into.entry((closure.start, closure.end)).or_default();
                if !names.contains(&u.binding) {
                    names.push(u.binding);
                }
                continue;
            }
            let target = match accesses[&u.binding] {
                Access::Copy | Access::Owned if b.is_self => reference_name(u.binding),
                Access::Copy | Access::Owned => continue,
                Access::Shared | Access::Mutable => format!("(*{})", reference_name(u.binding)),
            };
            match &u.kind {
                UseKind::Path => edits.push(Edit::replace(u.range.clone(), target)),
                UseKind::FieldShorthand => edits.push(Edit::insert(u.range.end, format!(": {target}"))),
                UseKind::FormatCapture { close, comma } => {
                    let names = captures.entry((*close, *comma)).or_default();
                    if !names.contains(&u.binding) {
                        names.push(u.binding);
                    }
                }
            }
        }
        for ((close, comma), names) in captures {
            let args: Vec<String> =
                names.iter().map(|&i| format!("{} = (*{})", bindings[i].name, reference_name(i))).collect();
            let sep = if comma { " " } else { ", " };
            edits.push(Edit::insert(close, format!("{sep}{}", args.join(", "))));
        }
        // Such a closure gets a copy of the binding under its own name, made where the closure is (as rustc's
        // capture copies it), so the closure's writes stay its own; its uses inside stay as written.
        for ((start, end), names) in copied_into {
            let copies: String =
                names.iter().map(|&i| format!("let mut {} = (*{}); ", bindings[i].name, reference_name(i))).collect();
            edits.push(Edit::insert(start, format!("{{ {copies}")));
            edits.push(Edit::insert_after(end, " }".into()));
        }
        let self_type = if self.generic_self { Some(SELF_ALIAS) } else { self_type };
        if let Some(self_type) = self_type {
            for range in &uses.self_types {
                edits.push(Edit::replace(range.clone(), self_type.to_owned()));
            }
        }
        for (at, closes, text) in uses.fuel_points.iter().flat_map(FuelPoint::insertions) {
            edits.push(if closes { Edit::insert_after(at, text) } else { Edit::insert(at, text) });
        }
        for hole in nested {
            let replacement = nested_call(hole, &mut edits, bindings, accesses, self.plan, snippet)?;
            edits.push(Edit::replace(hole.range.clone(), replacement));
        }
        Ok(apply(snippet, edits))
    }
}

/// The call a nested hole becomes inside the entry (as the host's holes become calls in the instrumented host).
/// Takes the edits inside the hole out of `edits`: they apply to its task, which the call evaluates first.
fn nested_call(
    hole: &NestedHole,
    edits: &mut Vec<Edit>,
    bindings: &[Binding],
    accesses: &BTreeMap<usize, Access>,
    plan: &SitePlan,
    snippet: &str,
) -> Result<String, ExecError> {
    let inside = |e: &Edit, r: &Range<usize>| {
        if e.range.is_empty() {
            r.start < e.range.start && e.range.start < r.end
        } else {
            r.start <= e.range.start && e.range.end <= r.end
        }
    };
    let (mine, rest): (Vec<Edit>, Vec<Edit>) = edits.drain(..).partition(|e| inside(e, &hole.range));
    *edits = rest;
    let task = match &hole.task {
        Some(range) => {
            let shifted = mine
                .into_iter()
                .filter(|e| {
                    inside(e, range)
                        || (e.range.is_empty() && (e.range.start == range.start || e.range.start == range.end))
                })
                .map(|e| Edit { range: e.range.start - range.start..e.range.end - range.start, ..e })
                .collect();
            apply(&snippet[range.clone()], shifted).0
        }
        None => "\"\"".to_owned(),
    };
    let mut entries = Vec::with_capacity(hole.table.len());
    let mut forgets = String::new();
    for (k, entry) in hole.table.iter().enumerate() {
        if entry.mode == HostMode::Absent {
            entries.push("::core::ptr::null_mut::<()>()".to_owned());
            continue;
        }
        let (place, mutable) = match &entry.place {
            Place::Local { name, mutable } => (name.clone(), *mutable),
            Place::Outer(i) => {
                let b = bindings.get(*i).ok_or_else(|| ExecError::Internal {
                    detail: "a nested hole's table names a binding the outer hole lacks".into(),
                })?;
                let access = *accesses.get(i).ok_or_else(|| ExecError::Internal {
                    detail: format!("`{}` is not declared for the nested hole", b.name),
                })?;
                let place = match access {
                    Access::Shared | Access::Mutable => format!("(*{})", reference_name(*i)),
                    Access::Copy | Access::Owned if b.is_self => reference_name(*i),
                    Access::Copy | Access::Owned => b.name.clone(),
                };
                (place, declared_mut(b, access, plan.modes[*i]))
            }
        };
        if matches!(entry.mode, HostMode::Movable | HostMode::Mutable) && mutable {
            entries.push(format!("::core::ptr::addr_of_mut!({place}) as *mut ()"));
        } else {
            entries.push(format!("::core::ptr::addr_of!({place}) as *mut ()"));
        }
        if entry.mode == HostMode::Movable && matches!(entry.place, Place::Local { .. }) {
            forgets.push_str(&format!("if __lacuna_nested_moved[{k}] != 0 {{ ::core::mem::forget({place}); }} "));
        }
    }
    // The call keeps the hole's line count, so lines after it map back unchanged.
    let newlines = snippet[hole.range.clone()].matches('\n').count().saturating_sub(task.matches('\n').count());
    forgets.push_str(&"\n".repeat(newlines));
    let generic_self = hole.type_params.iter().any(|p| p == "Self");
    let ty = hole
        .ty
        .as_deref()
        .map(|t| format!("::<{}>", erase_lifetimes(&if generic_self { without_self(t) } else { t.to_owned() })))
        .unwrap_or_default();
    let types: Vec<String> = hole
        .type_params
        .iter()
        .map(|p| format!("::core::any::type_name::<{}>()", if p == "Self" { SELF_ALIAS } else { p }))
        .collect();
    Ok(format!(
        "{{ let __lacuna_nested_task = ::lacuna::__private::task_text(&({task})); \
         let mut __lacuna_nested_moved = [0u8; {}]; \
         let __lacuna_nested_value = ::lacuna::__private::enter{ty}({}, &[{}], &mut __lacuna_nested_moved, &[{}], \
         &__lacuna_nested_task); {forgets}__lacuna_nested_value }}",
        hole.table.len(),
        hole.site,
        entries.join(", "),
        types.join(", "),
    ))
}

/// How a binding is made available unless rustc says the snippet moves it.
fn default_access(b: &Binding) -> Access {
    if b.mutable {
        Access::Mutable
    } else if b.copy || b.mut_ref {
        Access::Copy
    } else {
        Access::Shared
    }
}

/// Whether two types are the same but for number types (`Vec<(&str, i32)>` and `Vec<(&str, u32)>`).
fn numbers_only_differ(a: &str, b: &str) -> bool {
    const NUMBERS: &[&str] =
        &["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64"];
    let tokens = |t: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        for c in t.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    };
    let (a, b) = (tokens(a), tokens(b));
    a != b
        && a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| x == y || NUMBERS.contains(&x.as_str()) && NUMBERS.contains(&y.as_str()))
}

/// What a trait's `Self` is called inside an entry.
const SELF_ALIAS: &str = "__LacunaSelf";

/// `ty` with the word `Self` as [`SELF_ALIAS`].
fn without_self(ty: &str) -> String {
    let mut out = String::with_capacity(ty.len());
    let mut rest = ty;
    while let Some(at) = rest.find("Self") {
        let before_ok = !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let after_ok = !rest[at + 4..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if before_ok && after_ok { SELF_ALIAS } else { "Self" });
        rest = &rest[at + 4..];
    }
    out.push_str(rest);
    out
}

/// `std::any::type_name` output as a type the snippet library can name: the host crate's paths start at `crate`,
/// `alloc`'s at the library's own `extern crate alloc`.
fn type_name_as_source(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(start) = rest.find(|c: char| c.is_alphabetic() || c == '_') {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let len = from.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(from.len());
        let ident = &from[..len];
        let continues_path = out.ends_with("::");
        match ident {
            "lacuna_host" if !continues_path => out.push_str("crate"),
            "alloc" if !continues_path => out.push_str("__lacuna_alloc"),
            _ => out.push_str(ident),
        }
        rest = &from[len..];
    }
    out.push_str(rest);
    // `type T = &str;` needs a lifetime: the snippet was checked for every `T`, so naming one changes nothing.
    let mut with_lifetimes = String::with_capacity(out.len() + 8);
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        with_lifetimes.push(c);
        if c == '&' && chars.peek() != Some(&'\'') {
            with_lifetimes.push_str("'static ");
        }
    }
    with_lifetimes
}

/// Named lifetimes (`'a`) are the enclosing function's; inside the entry they are inferred (`'_`).
fn erase_lifetimes(ty: &str) -> String {
    let mut out = String::with_capacity(ty.len());
    let mut chars = ty.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            let rest = &ty[i + 1..];
            let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let name = &rest[..len];
            if name == "static" || name.is_empty() {
                out.push('\'');
                continue;
            }
            out.push_str("'_");
            for _ in 0..name.chars().count() {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[derive(Debug, Clone)]
struct Edit {
    range: Range<usize>,
    text: String,
    /// Order among edits at the same offset: closing insertions, then opening ones, then replacements.
    rank: u8,
}

impl Edit {
    fn replace(range: Range<usize>, text: String) -> Edit {
        Edit { range, text, rank: 2 }
    }
    fn insert(at: usize, text: String) -> Edit {
        Edit { range: at..at, text, rank: 1 }
    }
    fn insert_after(at: usize, text: String) -> Edit {
        Edit { range: at..at, text, rank: 0 }
    }
}

/// Column mapping from the edited snippet back to the original, per line.
#[derive(Debug, Clone, Default)]
struct OffsetMap {
    lines: u32,
    /// Per line (0-based): each edit as (original byte column, original length, new length), in order.
    edits: Vec<Vec<(usize, usize, usize)>>,
    original_lines: Vec<String>,
    /// Every edit as (original byte offset, original length, new length), in order.
    spans: Vec<(usize, usize, usize)>,
    original_len: usize,
}

impl OffsetMap {
    /// The edited byte offset of an original offset outside every replaced range (before any insertion there).
    fn edited_offset(&self, original: usize) -> usize {
        let delta: isize = self
            .spans
            .iter()
            .filter(|(start, _, _)| *start < original)
            .map(|&(_, old, new)| new as isize - old as isize)
            .sum();
        (original as isize + delta) as usize
    }

    /// 1-based char column in the original snippet line for a 1-based byte column of the edited line (rustc's
    /// panic locations count chars; snippets are mostly ASCII, and an approximate column is harmless).
    fn original_column(&self, line: u32, column: u32) -> u32 {
        let index = (line - 1) as usize;
        let Some(original) = self.original_lines.get(index) else { return column };
        let edited = column.saturating_sub(1) as usize;
        let mut delta: isize = 0;
        let mut original_byte = None;
        for &(start, old_len, new_len) in &self.edits[index] {
            let edited_start = (start as isize + delta) as usize;
            if edited < edited_start {
                break;
            }
            if edited < edited_start + new_len {
                original_byte = Some(start);
                break;
            }
            delta += new_len as isize - old_len as isize;
        }
        let original_byte =
            original_byte.unwrap_or_else(|| (edited as isize - delta).max(0) as usize).min(original.len());
        let chars = original.get(..original_byte).map_or(original_byte, |s| s.chars().count());
        chars as u32 + 1
    }
}

/// Applies non-overlapping edits (none changes the line count). Returns the edited text and its column map.
fn apply(snippet: &str, mut edits: Vec<Edit>) -> (String, OffsetMap) {
    edits.sort_by_key(|e| (e.range.start, e.rank));
    let mut out = String::with_capacity(snippet.len() + 64 * edits.len());
    let line_starts: Vec<usize> = std::iter::once(0).chain(snippet.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let original_lines: Vec<String> = snippet.split('\n').map(str::to_owned).collect();
    let mut per_line = vec![Vec::new(); original_lines.len()];
    let mut spans = Vec::with_capacity(edits.len());
    let mut at = 0;
    for edit in edits {
        if edit.range.start < at {
            continue; // overlapping edits cannot happen for token-level uses; skip defensively
        }
        out.push_str(&snippet[at..edit.range.start]);
        let line = line_starts.partition_point(|&s| s <= edit.range.start) - 1;
        per_line[line].push((edit.range.start - line_starts[line], edit.range.len(), edit.text.len()));
        spans.push((edit.range.start, edit.range.len(), edit.text.len()));
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&snippet[at..]);
    let lines = original_lines.len() as u32;
    (out, OffsetMap { lines, edits: per_line, original_lines, spans, original_len: snippet.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_become_paths_the_library_can_name() {
        assert_eq!(
            type_name_as_source("alloc::vec::Vec<lacuna_host::Point>"),
            "__lacuna_alloc::vec::Vec<crate::Point>"
        );
        assert_eq!(type_name_as_source("&str"), "&'static str");
        assert_eq!(type_name_as_source("&mut [&u8]"), "&'static mut [&'static u8]");
        assert_eq!(type_name_as_source("core::option::Option<i32>"), "core::option::Option<i32>");
        assert_eq!(type_name_as_source("my::alloc::X"), "my::alloc::X");
    }

    #[test]
    fn only_number_types_may_differ_for_a_retyped_binding() {
        assert!(numbers_only_differ("i32", "usize"));
        assert!(numbers_only_differ("Vec<(&str, i32)>", "Vec<(&str, u32)>"));
        assert!(numbers_only_differ("[f64; 3]", "[f32; 3]"));
        assert!(!numbers_only_differ("i32", "i32"));
        assert!(!numbers_only_differ("Vec<i32>", "VecDeque<i32>"));
        assert!(!numbers_only_differ("&'a str", "&str"));
        assert!(!numbers_only_differ("[i32; 3]", "[i32; 4]"));
    }

    #[test]
    fn lifetimes_are_erased_but_static_stays() {
        assert_eq!(erase_lifetimes("&'a [&'b str]"), "&'_ [&'_ str]");
        assert_eq!(erase_lifetimes("&'static str"), "&'static str");
        assert_eq!(erase_lifetimes("Foo<'a, u8>"), "Foo<'_, u8>");
    }

    fn binding(name: &str, decl: usize, mutable: bool, copy: bool) -> Binding {
        Binding {
            name: name.into(),
            decl,
            ty: Some("T".into()),
            ty_display: "T".into(),
            mutable,
            copy,
            mut_ref: false,
            is_self: false,
            const_opaque: false,
            const_value: None,
            callable: None,
        }
    }

    #[test]
    fn nested_tables_pass_snippet_locals_and_cap_outer_bindings() {
        // The outer hole sees `log` (mut, handed over writable), `words` (shared) and `gone` (moved by the host).
        let outer = SitePlan {
            site: 1,
            scope: Some(lacuna_ir::HoleScope {
                bindings: vec![
                    binding("log", 10, true, false),
                    binding("words", 20, false, false),
                    binding("gone", 30, false, false),
                ],
                ..Default::default()
            }),
            modes: vec![HostMode::Mutable, HostMode::Shared, HostMode::Absent],
            in_async: false,
            in_unsafe: false,
        };
        // The nested hole (the outer snippet spans 100..200) sees those and the snippet's `n` and `v`.
        let inner = [
            binding("log", 10, true, false),
            binding("words", 20, false, false),
            binding("gone", 30, false, false),
            binding("n", 120, false, true),
            binding("v", 150, true, false),
        ];
        let modes = [HostMode::Movable, HostMode::Movable, HostMode::Movable, HostMode::Shared, HostMode::Movable];
        let table = nested_table(&outer, &inner, &modes, 100..200);
        let local = |name: &str, mutable| Place::Local { name: name.into(), mutable };
        assert_eq!(
            table,
            vec![
                // Held by `&mut` in the outer entry: writable, never movable.
                TableEntry { place: Place::Outer(0), mode: HostMode::Mutable },
                TableEntry { place: Place::Outer(1), mode: HostMode::Shared },
                TableEntry { place: Place::Outer(2), mode: HostMode::Absent },
                TableEntry { place: local("n", false), mode: HostMode::Shared },
                TableEntry { place: local("v", true), mode: HostMode::Movable },
            ]
        );
    }

    #[test]
    fn edited_offsets_follow_the_edits_before_them() {
        let snippet = "let y = x + 1;\n{ x }";
        let (_, map) = apply(snippet, vec![Edit::replace(8..9, "(*b)".into()), Edit::replace(17..18, "(*b)".into())]);
        assert_eq!(map.edited_offset(0), 0);
        assert_eq!(map.edited_offset(16), 19);
        assert_eq!(map.edited_offset(snippet.len()), snippet.len() + 6);
    }

    #[test]
    fn edits_apply_in_order_and_columns_map_back() {
        let snippet = "let y = x + 1;\nv.push(y);\nv.len()";
        let edits = vec![
            Edit::replace(8..9, "(*__lacuna_b0)".into()),
            Edit::replace(15..16, "(*__lacuna_b1)".into()),
            Edit::replace(26..27, "(*__lacuna_b1)".into()),
        ];
        let (text, map) = apply(snippet, edits);
        assert_eq!(text, "let y = (*__lacuna_b0) + 1;\n(*__lacuna_b1).push(y);\n(*__lacuna_b1).len()");
        // `+` is at edited column 24 on line 1, original column 11.
        assert_eq!(map.original_column(1, 24), 11);
        assert_eq!(map.original_column(1, 1), 1);
        assert_eq!(map.original_column(2, 16), 3);
    }
}
