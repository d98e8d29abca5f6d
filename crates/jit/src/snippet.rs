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

use lacuna_checker::{Binding, FuelPoint, SnippetUses, UseKind};

use crate::instrument::{HostMode, Instrumented, SitePlan};
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
    /// For mapping columns: per edited snippet line, (edited column, original column) boundaries.
    map: OffsetMap,
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

/// Names of things the entry declares, chosen so no snippet refers to them by accident.
fn reference_name(binding: usize) -> String {
    format!("__lacuna_b{binding}")
}

/// Builds the library source for `snippet` at `plan`'s hole. `overrides` replaces the default access per binding
/// index (the runner passes `Owned` for bindings rustc said the snippet moves).
pub fn generate(
    instrumented: &Instrumented,
    plan: &SitePlan,
    hole_type: &str,
    snippet: &str,
    uses: &SnippetUses,
    overrides: &BTreeMap<usize, Access>,
    type_args: &[String],
) -> Result<SnippetSource, ExecError> {
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
    let bindings = &scope.bindings;

    // Which bindings the snippet uses, and how each is made available.
    let mut accesses = BTreeMap::new();
    for u in &uses.uses {
        let b = &bindings[u.binding];
        let access = match overrides.get(&u.binding) {
            Some(a) => *a,
            None => default_access(b),
        };
        accesses.insert(u.binding, access);
    }
    // A hole in a generic function runs per instantiation: its type parameters become aliases of the types
    // this call was made with.
    let mut lines = String::new();
    for (param, arg) in scope.type_params.iter().zip(type_args) {
        lines.push_str(&format!("        type {param} = {};\n", type_name_as_source(arg)));
    }
    for (&i, &access) in &accesses {
        let b = &bindings[i];
        let mode = plan.modes[i];
        let unavailable = || {
            ExecError::unsupported(format!(
                "`{}` is borrowed or moved by the host at this hole, so it cannot be handed to the snippet",
                b.name
            ))
        };
        if mode == HostMode::Absent {
            return Err(unavailable());
        }
        let ty = b.ty.as_deref().map(erase_lifetimes).ok_or_else(|| {
            ExecError::unsupported(format!("the type of `{}` ({}) cannot be written as Rust", b.name, b.ty_display))
        })?;
        let ptr = format!("(*__lacuna_table.add({i}))");
        let local = if b.is_self { reference_name(i) } else { b.name.clone() };
        let line = match access {
            Access::Copy => format!("let {local}: {ty} = unsafe {{ ::core::ptr::read({ptr} as *const {ty}) }};"),
            Access::Owned if mode == HostMode::Movable => format!(
                "let mut {local}: {ty} = unsafe {{ ::core::ptr::read({ptr} as *const {ty}) }}; \
                 unsafe {{ *__lacuna_moved.add({i}) = 1 }};"
            ),
            Access::Owned => {
                return Err(ExecError::unsupported(format!(
                    "the snippet moves `{}`, which the host still uses after the hole",
                    b.name
                )))
            }
            Access::Mutable if matches!(mode, HostMode::Mutable | HostMode::Movable) && b.mutable => {
                format!("let {}: &mut {ty} = unsafe {{ &mut *({ptr} as *mut {ty}) }};", reference_name(i))
            }
            Access::Mutable | Access::Shared => {
                format!("let {}: &{ty} = unsafe {{ &*({ptr} as *const {ty}) }};", reference_name(i))
            }
        };
        lines.push_str("        ");
        lines.push_str(&line);
        lines.push('\n');
    }

    // The snippet, with uses rewritten and fuel checks inserted.
    let mut edits: Vec<Edit> = Vec::new();
    let mut captures: BTreeMap<(usize, bool), Vec<usize>> = BTreeMap::new();
    for u in &uses.uses {
        let b = &bindings[u.binding];
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
    if let Some(self_type) = &scope.self_type {
        for range in &uses.self_types {
            edits.push(Edit::replace(range.clone(), self_type.clone()));
        }
    }
    const TICK: &str = "::lacuna::__private::tick();";
    for point in &uses.fuel_points {
        match point {
            FuelPoint::After(at) => edits.push(Edit::insert(*at, format!(" {TICK}"))),
            FuelPoint::Wrap(range) => {
                edits.push(Edit::insert(range.start, format!("{{ {TICK} ")));
                edits.push(Edit::insert_after(range.end, " }".into()));
            }
        }
    }
    let (edited, map) = apply(snippet, edits);

    let ty = erase_lifetimes(hole_type);
    let head = format!(
        "\n#[no_mangle]\n#[allow(warnings)]\npub extern \"C\" fn __lacuna_snippet(__lacuna_table: *const *mut (), \
         __lacuna_moved: *mut u8, __lacuna_out: *mut (), __lacuna_run: *mut ::lacuna::__private::RawRun) -> u32 {{\n    \
         let __lacuna_body = move || {{\n{lines}        let __lacuna_value: {ty} = {{\n"
    );
    let tail = format!(
        "\n        }};\n        unsafe {{ ::core::ptr::write(__lacuna_out as *mut {ty}, __lacuna_value) }};\n    }};\n    \
         unsafe {{ ::lacuna::__private::run_snippet(__lacuna_run, __lacuna_body) }}\n}}\n"
    );
    let at = instrumented.offset(item_position);
    let mut text = String::with_capacity(instrumented.text.len() + head.len() + edited.len() + tail.len() + 256);
    text.push_str(&instrumented.text[..at]);
    text.push_str(&head);
    let first_line = text.matches('\n').count() as u32 + 1;
    text.push_str(&edited);
    text.push_str(&tail);
    text.push_str(&instrumented.text[at..]);
    text.push_str(
        "\nextern crate alloc as __lacuna_alloc;\n#[global_allocator]\nstatic __LACUNA_ALLOCATOR: ::lacuna::__private::BudgetAllocator = \
         ::lacuna::__private::BudgetAllocator;\n",
    );
    Ok(SnippetSource { text, first_line, map })
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
    out
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
}

impl OffsetMap {
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

/// Applies non-overlapping edits (none adds a newline). Returns the edited text and its column map.
fn apply(snippet: &str, mut edits: Vec<Edit>) -> (String, OffsetMap) {
    edits.sort_by_key(|e| (e.range.start, e.rank));
    let mut out = String::with_capacity(snippet.len() + 64 * edits.len());
    let line_starts: Vec<usize> = std::iter::once(0).chain(snippet.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let original_lines: Vec<String> = snippet.split('\n').map(str::to_owned).collect();
    let mut per_line = vec![Vec::new(); original_lines.len()];
    let mut at = 0;
    for edit in edits {
        if edit.range.start < at {
            continue; // overlapping edits cannot happen for token-level uses; skip defensively
        }
        out.push_str(&snippet[at..edit.range.start]);
        let line = line_starts.partition_point(|&s| s <= edit.range.start) - 1;
        per_line[line].push((edit.range.start - line_starts[line], edit.range.len(), edit.text.len()));
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&snippet[at..]);
    let lines = original_lines.len() as u32;
    (out, OffsetMap { lines, edits: per_line, original_lines })
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
        assert_eq!(type_name_as_source("&str"), "&str");
        assert_eq!(type_name_as_source("core::option::Option<i32>"), "core::option::Option<i32>");
        assert_eq!(type_name_as_source("my::alloc::X"), "my::alloc::X");
    }

    #[test]
    fn lifetimes_are_erased_but_static_stays() {
        assert_eq!(erase_lifetimes("&'a [&'b str]"), "&'_ [&'_ str]");
        assert_eq!(erase_lifetimes("&'static str"), "&'static str");
        assert_eq!(erase_lifetimes("Foo<'a, u8>"), "Foo<'_, u8>");
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
