//! The checker's own budget against expansion bombs: before rust-analyzer analyses a snippet (which expands all
//! of its macros and then type-checks what they made, in single queries nothing can stop), the snippet's own
//! macro calls are expanded one by one, counted and measured. A snippet whose macros make more than
//! [`MAX_EXPANSIONS`] calls or [`MAX_EXPANDED_BYTES`] of code is not analysed: safe mode rejects it as
//! unverifiable, and without safe mode rustc decides alone. A 16-level doubling `macro_rules!` is 65,536 calls:
//! rustc takes seconds on it, rust-analyzer's analysis more than ten minutes.

use ra_ap_hir::Semantics;
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, TextRange};

use crate::policy::classified::{macro_called, names_macro};
use crate::policy::resolve::written_in_snippet;

/// Calls of the snippet's own macros one snippet may make (the same cap as safe mode's walk of them).
pub(crate) const MAX_EXPANSIONS: usize = 256;

/// Code the snippet's own macros may make, in bytes.
pub(crate) const MAX_EXPANDED_BYTES: usize = 1 << 20;

/// Why the snippet at `snippet` in `root`'s file expands too far, if it does.
pub(crate) fn too_far(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    root: &SyntaxNode,
    snippet: TextRange,
) -> Option<String> {
    let file = sema.hir_file_for(root);
    let mut queue = calls_in(sema, root, Some(snippet));
    let (mut calls, mut bytes) = (0usize, 0usize);
    while let Some(call) = queue.pop() {
        let Some(mac) = sema.resolve_macro_call(&call) else { continue };
        if !written_in_snippet(db, file, snippet, mac) {
            continue;
        }
        calls += 1;
        if calls > MAX_EXPANSIONS {
            return Some(format!("the snippet's macros make more than {MAX_EXPANSIONS} macro calls"));
        }
        let Some(expansion) = sema.expand_macro_call(&call) else { continue };
        bytes += usize::from(expansion.value.text_range().len());
        if bytes > MAX_EXPANDED_BYTES {
            return Some(format!("the snippet's macros make more than {} KiB of code", MAX_EXPANDED_BYTES >> 10));
        }
        queue.extend(calls_in(sema, &expansion.value, None));
    }
    None
}

/// The macro calls in `node` (within `range`), and those written in other macros' arguments.
fn calls_in(sema: &Semantics<'_, RootDatabase>, node: &SyntaxNode, range: Option<TextRange>) -> Vec<ast::MacroCall> {
    let inside = |r: TextRange| range.is_none_or(|range| range.contains_range(r));
    let mut out = Vec::new();
    for element in node.descendants_with_tokens() {
        if !inside(element.text_range()) {
            continue;
        }
        match element {
            ra_ap_syntax::NodeOrToken::Node(n) => out.extend(ast::MacroCall::cast(n)),
            ra_ap_syntax::NodeOrToken::Token(t) => {
                let in_tree = t.parent().is_some_and(|p| p.kind() == SyntaxKind::TOKEN_TREE);
                if !(in_tree && t.kind() == SyntaxKind::IDENT && names_macro(&t)) {
                    continue;
                }
                for descended in sema.descend_into_macros(t.clone()) {
                    if descended != t {
                        out.extend(descended.parent().and_then(ast::NameRef::cast).and_then(|n| macro_called(&n)));
                    }
                }
            }
        }
    }
    out
}
