//! The host as a Rust `dylib` that snippet libraries link to, so a snippet acts on the host's own statics,
//! thread-locals and types (one copy of each in the process), and the *mirror*: the crate a snippet library is,
//! minus its entry. Pure syntax.
//!
//! - The host is made nameable from another crate: every module-level item, every struct field and every
//!   inherent method becomes `pub` (nothing is renamed or moved, so host code resolves as before).
//! - Items declared in the blocks around a hole (types, traits, statics, consts, `thread_local!`s) cannot be named
//!   from outside their function, so they are moved to a generated module of the function's module,
//!   `__lacuna_block_N`, nested as the blocks are, and the block imports them back by name (`use
//!   self::__lacuna_block_N::{..}`). Functions, `use`s and macros stay where they are.
//! - The mirror has the host's module tree with every item re-exported from the host (`pub use
//!   ::lacuna_host::path::Item`), its `use`s and macros as written, and no `impl`s (the host's apply). A hole's
//!   entry goes at the end of its module in the mirror, and declares, block by block, what the blocks around the
//!   hole declare: their `use`s, the import of their moved items, copies of their functions and macros.
//!
//! Edits keep the host's line count: moved items leave their newlines behind, and a generated module inside an
//! inline `mod` is written on one line.

use std::collections::BTreeMap;
use std::ops::Range;

use ra_ap_syntax::ast::{self, HasAttrs, HasModuleItem, HasName, HasVisibility};
use ra_ap_syntax::{AstNode, Edition, NodeOrToken, SourceFile, SyntaxKind, SyntaxNode, TextRange, TextSize};

/// The crate name every host library is built under.
pub const HOST_CRATE: &str = "lacuna_host";

/// One replacement in the host's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEdit {
    pub range: Range<usize>,
    pub text: String,
}

/// How the host is exported, and the mirror snippet libraries are made from.
#[derive(Debug, Clone)]
pub struct Export {
    /// Sorted, non-overlapping, none inside a hole.
    pub edits: Vec<HostEdit>,
    /// The mirror crate's text (without the prelude's injection).
    pub mirror: String,
    /// Per hole, in the order given.
    pub sites: Vec<SiteExport>,
    /// The structs, enums and statics moved out of the blocks around holes, in source order.
    pub block_items: Vec<BlockItem>,
}

/// A struct, enum, static or function declared in a block around a hole, which the export moves to that block's
/// module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockItem {
    pub name: String,
    /// Its path from the exported host's crate root (`__lacuna_block_0::Reading`, `shop::__lacuna_block_2::Item`).
    pub path: String,
    /// Its declaration's range in the host.
    pub range: Range<usize>,
}

/// Where a hole's entry goes in the mirror, and what the blocks around the hole declare.
#[derive(Debug, Clone)]
pub struct SiteExport {
    /// Offset in [`Export::mirror`]: the end of the hole's module.
    pub mirror_at: usize,
    /// The blocks around the hole, outermost first.
    pub blocks: Vec<BlockScope>,
}

/// What one block around a hole declares, as the entry repeats it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockScope {
    /// Host ranges of the items the entry copies (`use`s, functions, macros), in source order.
    pub copied: Vec<Range<usize>>,
    /// The import of the block's moved items (the host's block says the same).
    pub import: Option<String>,
}

/// Items of a block that are moved out of it: what identity or state belongs to them.
fn movable(item: &ast::Item) -> bool {
    match item {
        ast::Item::Struct(_)
        | ast::Item::Enum(_)
        | ast::Item::Union(_)
        | ast::Item::Trait(_)
        | ast::Item::TypeAlias(_)
        | ast::Item::Static(_) => true,
        ast::Item::Const(c) => c.name().is_some(),
        ast::Item::MacroCall(m) => macro_name(m).as_deref() == Some("thread_local"),
        _ => false,
    }
}

/// The functions declared in blocks (`fn mean(..)` inside `main`) that can move to a module of their own with the
/// block's types, so that the crate root can name them (the instrumented host exports shims for JIT code to call
/// them): no attributes, and nothing in them that only the block can name — a `macro_rules!` macro of the host's
/// (whose scope is textual), or a block function that cannot move (by any name it mentions).
fn movable_fns(file: &SourceFile) -> Vec<TextRange> {
    let macros: Vec<String> = file
        .syntax()
        .descendants()
        .filter_map(ast::MacroRules::cast)
        .filter_map(|m| Some(m.name()?.text().to_string()))
        .collect();
    let block_fns: Vec<ast::Fn> = file
        .syntax()
        .descendants()
        .filter_map(ast::Fn::cast)
        .filter(|f| f.syntax().parent().is_some_and(|p| p.kind() == SyntaxKind::STMT_LIST))
        .collect();
    let mentions = |f: &ast::Fn| -> Vec<String> {
        f.syntax().descendants().filter_map(ast::NameRef::cast).map(|n| n.text().to_string()).collect()
    };
    let uses_macro = |f: &ast::Fn| {
        f.syntax()
            .descendants()
            .filter_map(ast::MacroCall::cast)
            .any(|m| macro_name(&m).is_some_and(|n| macros.contains(&n)))
    };
    let mut fixed: Vec<bool> = block_fns.iter().map(|f| f.attrs().next().is_some() || uses_macro(f)).collect();
    loop {
        let stuck: Vec<String> = block_fns
            .iter()
            .zip(&fixed)
            .filter(|(_, fixed)| **fixed)
            .filter_map(|(f, _)| Some(f.name()?.text().to_string()))
            .collect();
        let mut changed = false;
        for (f, fixed) in block_fns.iter().zip(fixed.iter_mut()) {
            if !*fixed && mentions(f).iter().any(|n| stuck.contains(n)) {
                *fixed = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    block_fns.iter().zip(&fixed).filter(|(_, fixed)| !**fixed).map(|(f, _)| f.syntax().text_range()).collect()
}

/// Items of a block the entry copies: what the block's names resolve through (its functions call the moved items
/// by the same names).
fn copied(item: &ast::Item) -> bool {
    matches!(item, ast::Item::Use(_) | ast::Item::Fn(_) | ast::Item::MacroRules(_))
        || matches!(item, ast::Item::MacroCall(m) if macro_name(m).as_deref() != Some("thread_local"))
}

fn macro_name(m: &ast::MacroCall) -> Option<String> {
    Some(m.path()?.segment()?.name_ref()?.text().to_string())
}

/// The names a `thread_local!` declares (the identifier after each `static`).
fn thread_local_names(m: &ast::MacroCall) -> Vec<(String, Option<TextSize>)> {
    let Some(tt) = m.token_tree() else { return Vec::new() };
    let tokens: Vec<_> = tt
        .syntax()
        .descendants_with_tokens()
        .filter_map(NodeOrToken::into_token)
        .filter(|t| !t.kind().is_trivia())
        .collect();
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind() == SyntaxKind::STATIC_KW {
            let public = i > 0 && tokens[i - 1].text() == "pub"
                || i > 3 && tokens[i - 1].text() == ")" && tokens[i - 4].text() == "pub";
            if let Some(name) = tokens.get(i + 1).filter(|n| n.kind() == SyntaxKind::IDENT) {
                out.push((name.text().to_owned(), (!public).then(|| t.text_range().start())));
            }
        }
    }
    out
}

/// The name an item is known by in its module (none for `impl`s, `use`s and the like).
fn item_name(item: &ast::Item) -> Option<String> {
    let name = match item {
        ast::Item::Fn(x) => x.name(),
        ast::Item::Struct(x) => x.name(),
        ast::Item::Enum(x) => x.name(),
        ast::Item::Union(x) => x.name(),
        ast::Item::Trait(x) => x.name(),
        ast::Item::TypeAlias(x) => x.name(),
        ast::Item::Const(x) => x.name(),
        ast::Item::Static(x) => x.name(),
        ast::Item::Module(x) => x.name(),
        _ => None,
    }?;
    Some(name.text().to_string())
}

/// `pub` for an item or field: inserted before its first token after attributes and comments, or replacing a
/// narrower visibility.
fn make_pub(node: &SyntaxNode, visibility: Option<ast::Visibility>) -> Option<HostEdit> {
    if let Some(v) = visibility {
        let range = range_of(v.syntax().text_range());
        return (v.syntax().text() != "pub").then(|| HostEdit { range, text: "pub".into() });
    }
    let first = node
        .children_with_tokens()
        .find(|e| !matches!(e.kind(), SyntaxKind::ATTR | SyntaxKind::COMMENT | SyntaxKind::WHITESPACE))?;
    let at = usize::from(first.text_range().start());
    Some(HostEdit { range: at..at, text: "pub ".into() })
}

fn range_of(r: TextRange) -> Range<usize> {
    usize::from(r.start())..usize::from(r.end())
}

fn visibility_of(item: &ast::Item) -> Option<Option<ast::Visibility>> {
    Some(match item {
        ast::Item::Fn(x) => x.visibility(),
        ast::Item::Struct(x) => x.visibility(),
        ast::Item::Enum(x) => x.visibility(),
        ast::Item::Union(x) => x.visibility(),
        ast::Item::Trait(x) => x.visibility(),
        ast::Item::TypeAlias(x) => x.visibility(),
        ast::Item::Const(x) => x.visibility(),
        ast::Item::Static(x) => x.visibility(),
        ast::Item::Module(x) => x.visibility(),
        _ => return None,
    })
}

/// The `pub` edits of an item as a module's item (or a moved block item).
fn item_pub_edits(item: &ast::Item, out: &mut Vec<HostEdit>) {
    if let Some(visibility) = visibility_of(item) {
        if item_name(item).is_some_and(|n| n != "_") {
            out.extend(make_pub(item.syntax(), visibility));
        }
    }
    if let ast::Item::MacroCall(m) = item {
        if macro_name(m).as_deref() == Some("thread_local") {
            for (_, at) in thread_local_names(m) {
                if let Some(at) = at {
                    let at = usize::from(at);
                    out.push(HostEdit { range: at..at, text: "pub ".into() });
                }
            }
        }
    }
}

/// One block around some hole, with items to move.
struct MovedBlock {
    id: usize,
    /// The enclosing moved block's id (its module is this one's parent), if any.
    parent: Option<usize>,
    /// The module path (inline `mod`s) the block's function is in.
    module: Vec<String>,
    items: Vec<ast::Item>,
    uses: Vec<ast::Use>,
    names: Vec<String>,
}

/// Exports `text` (a host that parses) whose holes are at `holes`.
pub(crate) fn export(text: &str, file: &SourceFile, holes: &[Range<usize>]) -> Export {
    let HoleBlocks { blocks, chains } = hole_blocks(file, holes);
    let fns = movable_fns(file);
    let moved = moved_blocks(&blocks, &chains, holes, &fns);
    let mut edits = pub_edits(file);
    move_items(text, file, &moved, &mut edits);
    // Nothing inside a hole is edited: the instrumenter replaces the hole whole.
    edits.retain(|e| !holes.iter().any(|h| e.range.start < h.end && h.start < e.range.end.max(e.range.start + 1)));
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    edits.dedup();

    // The mirror, and where each hole's entry goes in it.
    let mut mirror = String::new();
    let mut mirror_ends: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let top_blocks: Vec<(Vec<String>, usize)> =
        moved.values().filter(|b| b.parent.is_none()).map(|b| (b.module.clone(), b.id)).collect();
    mirror_module(text, file.items(), &mut Vec::new(), &top_blocks, &mut mirror, &mut mirror_ends);
    let sites = chains
        .iter()
        .map(|(module, chain)| SiteExport {
            mirror_at: mirror_ends.get(module).copied().unwrap_or(mirror.len()),
            blocks: chain
                .iter()
                .map(|&id| block_scope(&blocks[id], moved.get(&id), moved.get(&id).map(|b| import_of(b, &moved))))
                .collect(),
        })
        .collect();
    let block_items = moved
        .values()
        .flat_map(|b| b.items.iter().map(move |item| (b, item)))
        .filter(|(_, item)| {
            matches!(item, ast::Item::Struct(_) | ast::Item::Enum(_) | ast::Item::Static(_) | ast::Item::Fn(_))
        })
        .filter_map(|(b, item)| {
            let name = item_name(item)?;
            let path = b.module.iter().cloned().chain(block_path(b, &moved)).chain([name.clone()]).collect::<Vec<_>>();
            Some(BlockItem { name, path: path.join("::"), range: range_of(item.syntax().text_range()) })
        })
        .collect();
    Export { edits, mirror, sites, block_items }
}

/// Every block around every hole (each once), and per hole the module it is in and its blocks' ids, outermost
/// first.
struct HoleBlocks {
    blocks: Vec<ast::BlockExpr>,
    chains: Vec<(Vec<String>, Vec<usize>)>,
}

fn hole_blocks(file: &SourceFile, holes: &[Range<usize>]) -> HoleBlocks {
    let mut blocks: Vec<ast::BlockExpr> = Vec::new();
    let mut chains: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for hole in holes {
        let range = TextRange::new(TextSize::from(hole.start as u32), TextSize::from(hole.end as u32));
        let start = match file.syntax().covering_element(range) {
            NodeOrToken::Node(n) => n,
            NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| file.syntax().clone()),
        };
        let mut chain = Vec::new();
        let mut module = Vec::new();
        for node in start.ancestors() {
            if let Some(block) = ast::BlockExpr::cast(node.clone()) {
                let id = match blocks.iter().position(|b| b.syntax() == block.syntax()) {
                    Some(id) => id,
                    None => {
                        blocks.push(block);
                        blocks.len() - 1
                    }
                };
                chain.push(id);
            } else if let Some(m) = ast::Module::cast(node) {
                module.extend(m.name().map(|n| n.text().to_string()));
            }
        }
        chain.reverse();
        module.reverse();
        chains.push((module, chain));
    }
    HoleBlocks { blocks, chains }
}

/// The blocks' items to move (outside every hole), each block's module nested in the enclosing moved block's.
fn moved_blocks(
    blocks: &[ast::BlockExpr],
    chains: &[(Vec<String>, Vec<usize>)],
    holes: &[Range<usize>],
    fns: &[TextRange],
) -> BTreeMap<usize, MovedBlock> {
    let movable = |item: &ast::Item| match item {
        ast::Item::Fn(f) => fns.contains(&f.syntax().text_range()),
        other => movable(other),
    };
    let in_hole = |r: &Range<usize>| holes.iter().any(|h| h.start < r.end && r.start < h.end);
    let mut moved: BTreeMap<usize, MovedBlock> = BTreeMap::new();
    for (module, chain) in chains {
        let mut parent = None;
        for &id in chain {
            if let Some(m) = moved.get(&id) {
                parent = Some(m.id);
                continue;
            }
            let Some(list) = blocks[id].stmt_list() else { continue };
            let items: Vec<ast::Item> = list
                .statements()
                .filter_map(|s| match s {
                    ast::Stmt::Item(item) => Some(item),
                    _ => None,
                })
                .collect();
            let to_move: Vec<ast::Item> =
                items.iter().filter(|i| movable(i) && !in_hole(&range_of(i.syntax().text_range()))).cloned().collect();
            if to_move.is_empty() {
                continue;
            }
            let uses = items
                .iter()
                .filter_map(|i| match i {
                    ast::Item::Use(u) => Some(u.clone()),
                    _ => None,
                })
                .collect();
            let mut names = Vec::new();
            for item in &to_move {
                match item {
                    ast::Item::MacroCall(m) => names.extend(thread_local_names(m).into_iter().map(|(n, _)| n)),
                    _ => names.extend(item_name(item)),
                }
            }
            names.dedup();
            moved.insert(id, MovedBlock { id, parent, module: module.clone(), items: to_move, uses, names });
            parent = Some(id);
        }
    }
    moved
}

/// `pub` everywhere another crate must reach: module items, struct fields, inherent methods.
fn pub_edits(file: &SourceFile) -> Vec<HostEdit> {
    let mut edits: Vec<HostEdit> = Vec::new();
    module_pub_edits(file.items(), &mut edits);
    for node in file.syntax().descendants() {
        if let Some(s) = ast::Struct::cast(node.clone()) {
            field_pub_edits(s.field_list(), &mut edits);
        } else if let Some(u) = ast::Union::cast(node.clone()) {
            if let Some(fields) = u.record_field_list() {
                field_pub_edits(Some(ast::FieldList::RecordFieldList(fields)), &mut edits);
            }
        } else if let Some(i) = ast::Impl::cast(node) {
            if i.trait_().is_none() {
                for assoc in i.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
                    let visibility = match &assoc {
                        ast::AssocItem::Fn(f) => f.visibility(),
                        ast::AssocItem::Const(c) => c.visibility(),
                        ast::AssocItem::TypeAlias(t) => t.visibility(),
                        ast::AssocItem::MacroCall(_) => continue,
                    };
                    edits.extend(make_pub(assoc.syntax(), visibility));
                }
            }
        }
    }
    edits
}

/// Moved items: their text (with the edits inside it, and `pub`) goes to their block's module, nested in its
/// parent's, at the end of their function's module; the block keeps their newlines and imports them.
fn move_items(text: &str, file: &SourceFile, moved: &BTreeMap<usize, MovedBlock>, edits: &mut Vec<HostEdit>) {
    let mut module_text: BTreeMap<usize, String> = BTreeMap::new();
    let mut removals: Vec<HostEdit> = Vec::new();
    for block in moved.values() {
        let mut body = String::from("#![allow(unused_imports)] use super::*; ");
        for u in &block.uses {
            body.push_str(&u.syntax().text().to_string());
            body.push(' ');
        }
        for (k, item) in block.items.iter().enumerate() {
            let range = range_of(item.syntax().text_range());
            let mut own: Vec<HostEdit> = Vec::new();
            item_pub_edits(item, &mut own);
            let (inside, rest): (Vec<HostEdit>, Vec<HostEdit>) =
                edits.drain(..).partition(|e| range.start <= e.range.start && e.range.end <= range.end);
            *edits = rest;
            own.extend(inside);
            body.push_str(&apply(&text[range.clone()], range.start, own));
            body.push('\n');
            let newlines = "\n".repeat(text[range.clone()].matches('\n').count());
            let replacement = if k == 0 { format!("{}{newlines}", import_of(block, moved)) } else { newlines };
            removals.push(HostEdit { range, text: replacement });
        }
        module_text.insert(block.id, body);
    }
    // Nest each block's module in its parent's, innermost first.
    let mut rendered: BTreeMap<usize, String> = BTreeMap::new();
    let ids: Vec<usize> = moved.keys().copied().collect();
    for &id in ids.iter().rev() {
        let mut body = module_text.remove(&id).unwrap_or_default();
        let children: Vec<usize> = moved.values().filter(|b| b.parent == Some(id)).map(|b| b.id).collect();
        for child in children {
            body.push_str(&rendered.remove(&child).unwrap_or_default());
        }
        rendered.insert(id, format!("\npub mod __lacuna_block_{id} {{ {body}}}\n"));
    }
    // Top-level block modules go at the end of their function's module.
    let module_ends = module_ends(file, text.len());
    for block in moved.values().filter(|b| b.parent.is_none()) {
        let Some(&(at, inline)) = module_ends.get(&block.module) else { continue };
        let module = rendered.remove(&block.id).unwrap_or_default();
        let module = if inline { one_line(&module) } else { module };
        edits.push(HostEdit { range: at..at, text: module });
    }
    edits.extend(removals);
}

/// `use self::__lacuna_block_1::__lacuna_block_4::{A, B};` for a moved block.
fn import_of(block: &MovedBlock, moved: &BTreeMap<usize, MovedBlock>) -> String {
    let path = block_path(block, moved);
    format!("#[allow(unused_imports)] use self::{}::{{{}}};", path.join("::"), block.names.join(", "))
}

/// The modules a moved block's items are in, from its function's module: `__lacuna_block_1`, `__lacuna_block_4`.
fn block_path(block: &MovedBlock, moved: &BTreeMap<usize, MovedBlock>) -> Vec<String> {
    let mut path = vec![format!("__lacuna_block_{}", block.id)];
    let mut parent = block.parent;
    while let Some(p) = parent {
        path.push(format!("__lacuna_block_{p}"));
        parent = moved.get(&p).and_then(|b| b.parent);
    }
    path.reverse();
    path
}

fn block_scope(block: &ast::BlockExpr, moved: Option<&MovedBlock>, import: Option<String>) -> BlockScope {
    // A moved function is reached through the import, as the block's types are.
    let is_moved = |item: &ast::Item| moved.is_some_and(|m| m.items.iter().any(|i| i == item));
    let copied = block
        .stmt_list()
        .into_iter()
        .flat_map(|l| l.statements())
        .filter_map(|s| match s {
            ast::Stmt::Item(item) if copied(&item) && !is_moved(&item) => Some(range_of(item.syntax().text_range())),
            _ => None,
        })
        .collect();
    BlockScope { copied, import }
}

fn module_pub_edits(items: impl Iterator<Item = ast::Item>, out: &mut Vec<HostEdit>) {
    for item in items {
        item_pub_edits(&item, out);
        if let ast::Item::Module(m) = &item {
            if let Some(list) = m.item_list() {
                module_pub_edits(list.items(), out);
            }
        }
    }
}

fn field_pub_edits(fields: Option<ast::FieldList>, out: &mut Vec<HostEdit>) {
    match fields {
        Some(ast::FieldList::RecordFieldList(list)) => {
            for f in list.fields() {
                out.extend(make_pub(f.syntax(), f.visibility()));
            }
        }
        Some(ast::FieldList::TupleFieldList(list)) => {
            for f in list.fields() {
                out.extend(make_pub(f.syntax(), f.visibility()));
            }
        }
        None => {}
    }
}

/// Where each module's items end (the file's end for the crate root, else before the inline module's `}`), and
/// whether it is inline.
fn module_ends(file: &SourceFile, len: usize) -> BTreeMap<Vec<String>, (usize, bool)> {
    fn walk(
        items: impl Iterator<Item = ast::Item>,
        path: &mut Vec<String>,
        out: &mut BTreeMap<Vec<String>, (usize, bool)>,
    ) {
        for item in items {
            if let ast::Item::Module(m) = item {
                let (Some(name), Some(list)) = (m.name(), m.item_list()) else { continue };
                path.push(name.text().to_string());
                if let Some(close) = list.r_curly_token() {
                    out.insert(path.clone(), (usize::from(close.text_range().start()), true));
                }
                walk(list.items(), path, out);
                path.pop();
            }
        }
    }
    let mut out = BTreeMap::new();
    out.insert(Vec::new(), (len, false));
    walk(file.items(), &mut Vec::new(), &mut out);
    out
}

/// The outer attributes of an item that decide whether it exists (`#[cfg(..)]`).
fn cfg_attrs(item: &ast::Item) -> String {
    item.attrs()
        .filter(|a| a.path().is_some_and(|p| p.syntax().text() == "cfg"))
        .map(|a| format!("{} ", a.syntax().text()))
        .collect()
}

fn mirror_module(
    text: &str,
    items: impl Iterator<Item = ast::Item>,
    path: &mut Vec<String>,
    top_blocks: &[(Vec<String>, usize)],
    out: &mut String,
    ends: &mut BTreeMap<Vec<String>, usize>,
) {
    let prefix: String =
        std::iter::once(format!("::{HOST_CRATE}")).chain(path.iter().cloned()).collect::<Vec<_>>().join("::");
    let mut seen = std::collections::BTreeSet::new();
    for item in items {
        let cfg = cfg_attrs(&item);
        let source = || text[range_of(item.syntax().text_range())].to_owned();
        match &item {
            ast::Item::Module(m) => {
                let (Some(name), Some(list)) = (m.name(), m.item_list()) else { continue };
                out.push_str(&format!("{cfg}pub mod {} {{\n", name.text()));
                path.push(name.text().to_string());
                mirror_module(text, list.items(), path, top_blocks, out, ends);
                path.pop();
                out.push_str("}\n");
            }
            ast::Item::Use(_) | ast::Item::ExternCrate(_) | ast::Item::MacroRules(_) => {
                out.push_str(&source());
                out.push('\n');
            }
            ast::Item::MacroCall(m) if macro_name(m).as_deref() == Some("thread_local") => {
                for (name, _) in thread_local_names(m) {
                    if seen.insert((cfg.clone(), name.clone())) {
                        out.push_str(&format!("{cfg}pub use {prefix}::{name};\n"));
                    }
                }
            }
            ast::Item::MacroCall(_) => {
                out.push_str(&source());
                out.push('\n');
            }
            ast::Item::Impl(_) | ast::Item::ExternBlock(_) => {}
            _ => {
                if let Some(name) = item_name(&item).filter(|n| n != "_") {
                    if seen.insert((cfg.clone(), name.clone())) {
                        out.push_str(&format!("{cfg}pub use {prefix}::{name};\n"));
                    }
                }
            }
        }
    }
    for (module, id) in top_blocks {
        if module == path {
            out.push_str(&format!("pub use {prefix}::__lacuna_block_{id};\n"));
        }
    }
    ends.insert(path.clone(), out.len());
}

/// `text` (starting at host offset `base`) with `edits` (host offsets inside it) applied.
fn apply(text: &str, base: usize, mut edits: Vec<HostEdit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len() + 8 * edits.len());
    let mut at = 0;
    for e in edits {
        let (start, end) = (e.range.start - base, e.range.end - base);
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&e.text);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Rust text on one line: line breaks between tokens become spaces and `//` comments go (a string literal keeps
/// its own).
fn one_line(text: &str) -> String {
    let file = SourceFile::parse(text, Edition::Edition2021).tree();
    let mut out = String::with_capacity(text.len());
    for t in file.syntax().descendants_with_tokens().filter_map(NodeOrToken::into_token) {
        match t.kind() {
            SyntaxKind::WHITESPACE if t.text().contains('\n') => out.push(' '),
            SyntaxKind::COMMENT if t.text().starts_with("//") => out.push(' '),
            SyntaxKind::COMMENT if t.text().contains('\n') => out.push(' '),
            _ => out.push_str(t.text()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> SourceFile {
        SourceFile::parse(text, Edition::Edition2021).tree()
    }

    fn host_after(text: &str, export: &Export) -> String {
        apply(text, 0, export.edits.clone())
    }

    #[test]
    fn module_items_fields_and_methods_become_public() {
        let text = "struct P { x: i32, pub(crate) y: i32 }\nstruct T(u8);\nenum E { A(i32) }\n\
                    impl P { fn new() -> P { P { x: 0, y: 0 } } }\nimpl Clone for P { fn clone(&self) -> P { P::new() } }\n\
                    mod m { fn f() {} }\nuse std::fmt;\nfn main() {}\n";
        let e = export(text, &parsed(text), &[]);
        expect_test::expect![[r#"
            pub struct P { pub x: i32, pub y: i32 }
            pub struct T(pub u8);
            pub enum E { A(i32) }
            impl P { pub fn new() -> P { P { x: 0, y: 0 } } }
            impl Clone for P { fn clone(&self) -> P { P::new() } }
            pub mod m { pub fn f() {} }
            use std::fmt;
            pub fn main() {}
        "#]]
        .assert_eq(&host_after(text, &e));
        expect_test::expect![[r#"
            pub use ::lacuna_host::P;
            pub use ::lacuna_host::T;
            pub use ::lacuna_host::E;
            pub mod m {
            pub use ::lacuna_host::m::f;
            }
            use std::fmt;
            pub use ::lacuna_host::main;
        "#]]
        .assert_eq(&e.mirror);
    }

    #[test]
    fn block_items_around_a_hole_move_to_a_module_and_keep_lines() {
        let text = "fn main() {\n    static HITS: u32 = 0;\n    #[derive(Debug)]\n    struct C {\n        x: i32,\n    }\n    \
                    fn helper() -> C { C { x: 1 } }\n    macro_rules! two { () => { 2 } }\n    \
                    fn by_macro() -> i32 { two!() }\n    fn through() -> i32 { by_macro() }\n    \
                    let v = agent!(\"go\");\n}\n";
        let hole = text.find("agent!").unwrap()..text.find(");").unwrap() + 1;
        let e = export(text, &parsed(text), &[hole]);
        let host = host_after(text, &e);
        let lines: Vec<&str> = host.lines().map(str::trim_end).collect();
        assert_eq!(lines[1], "    #[allow(unused_imports)] use self::__lacuna_block_0::{HITS, C, helper};");
        // A function moves with the block's types; one that uses the block's macro (or such a function) stays.
        assert_eq!(lines[6], "");
        assert_eq!(lines[8], "    fn by_macro() -> i32 { two!() }");
        assert_eq!(lines[9], "    fn through() -> i32 { by_macro() }");
        assert_eq!(lines[10], "    let v = agent!(\"go\");");
        assert!(host.contains("pub mod __lacuna_block_0 { #![allow(unused_imports)] use super::*; pub static HITS"));
        assert!(
            host.contains("    pub struct C {\n        pub x: i32,\n    }\npub fn helper() -> C { C { x: 1 } }\n}"),
            "{host}"
        );
        assert_eq!(lines[11], "}", "the host's lines stay where they were");
        assert_eq!(e.sites[0].blocks.len(), 1);
        let block = &e.sites[0].blocks[0];
        assert_eq!(
            block.import.as_deref(),
            Some("#[allow(unused_imports)] use self::__lacuna_block_0::{HITS, C, helper};")
        );
        // The entry copies the macro and the functions that stay.
        assert_eq!(block.copied.len(), 3);
        assert!(e.mirror.ends_with("pub use ::lacuna_host::__lacuna_block_0;\n"));
        assert_eq!(e.sites[0].mirror_at, e.mirror.len());
    }

    #[test]
    fn modules_inside_inline_modules_are_one_line() {
        let text = "mod shop {\n    pub fn run() {\n        // a comment\n        struct Item {\n            n: u8, // count\n        }\n        \
                    let x = agent!(\"go\");\n    }\n}\nfn main() {}\n";
        let hole = text.find("agent!").unwrap()..text.find(");").unwrap() + 1;
        let e = export(text, &parsed(text), &[hole]);
        let host = host_after(text, &e);
        assert_eq!(host.matches('\n').count(), text.matches('\n').count(), "{host}");
        assert!(host.contains("pub mod __lacuna_block_0 {"), "{host}");
        assert!(e.mirror.contains("pub use ::lacuna_host::shop::__lacuna_block_0;"), "{}", e.mirror);
    }
}
