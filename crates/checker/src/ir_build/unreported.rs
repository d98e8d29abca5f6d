//! Errors rustc reports that rust-analyzer does not, found in the snippet's syntax before it is built: each one
//! leaves the verdict to rustc ([`Builder::rustc_decides`]), so that the subset never accepts on its own a snippet
//! rustc would reject. rustc's error index (`testdata/check/error-index.cases`) holds an example of each.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode};

use crate::ir_build::Builder;

impl<'a, 'db> Builder<'a, 'db> {
    /// Notes the first construct in `snippet` whose errors only rustc reports.
    pub(crate) fn unreported_errors(&self, snippet: &SyntaxNode) {
        for node in snippet.descendants() {
            if let Some(what) = self.unreported(&node) {
                self.rustc_decides(what, &node);
                return;
            }
        }
        // Doc comments document nothing inside a block (E0585), or only what encloses them (E0753).
        let doc = snippet.descendants_with_tokens().filter_map(|t| t.into_token()).find(|t| {
            t.kind() == SyntaxKind::COMMENT && ["///", "//!", "/**", "/*!"].iter().any(|p| t.text().starts_with(p))
        });
        if let Some(doc) = doc.and_then(|t| t.parent()) {
            self.rustc_decides("a doc comment", &doc);
        }
    }

    fn unreported(&self, node: &SyntaxNode) -> Option<&'static str> {
        // Attributes: their names, arguments and places are rustc's to check (E0534 .. E0805, E0710, E0734).
        if ast::Attr::can_cast(node.kind()) {
            return Some("an attribute");
        }
        // `0...9` (E0783).
        if let Some(range) = ast::RangePat::cast(node.clone()) {
            if range.syntax().children_with_tokens().any(|t| t.kind() == SyntaxKind::DOT3) {
                return Some("a `...` range pattern");
            }
        }
        // A name bound twice in one parameter list (E0415) or one pattern (E0416).
        if let Some(params) = ast::ParamList::cast(node.clone()) {
            let mut names = Vec::new();
            params.params().filter_map(|p| p.pat()).for_each(|p| self.bound_names(&p, &mut names));
            if repeats(&mut names) {
                return Some("a name bound twice in one parameter list");
            }
        }
        // (A whole pattern: not one inside another, nor a parameter's, which its list's check covers.)
        let whole = |p: &SyntaxNode| !ast::Pat::can_cast(p.kind()) && !ast::Param::can_cast(p.kind());
        if let Some(pat) = ast::Pat::cast(node.clone()).filter(|_| node.parent().is_none_or(|p| whole(&p))) {
            let mut names = Vec::new();
            self.bound_names(&pat, &mut names);
            if repeats(&mut names) {
                return Some("a name bound twice in one pattern");
            }
        }
        // An unlabelled `break` or `continue` whose nearest target is a labelled block (E0695).
        if matches!(node.kind(), SyntaxKind::BREAK_EXPR | SyntaxKind::CONTINUE_EXPR) {
            let labelled = match ast::Expr::cast(node.clone()) {
                Some(ast::Expr::BreakExpr(b)) => b.lifetime().is_some(),
                Some(ast::Expr::ContinueExpr(c)) => c.lifetime().is_some(),
                _ => true,
            };
            let target = node.ancestors().skip(1).find(|a| {
                matches!(
                    a.kind(),
                    SyntaxKind::LOOP_EXPR | SyntaxKind::WHILE_EXPR | SyntaxKind::FOR_EXPR | SyntaxKind::CLOSURE_EXPR
                ) || ast::Fn::can_cast(a.kind())
                    || ast::BlockExpr::cast(a.clone()).is_some_and(|b| b.label().is_some())
            });
            if !labelled && target.is_some_and(|t| ast::BlockExpr::can_cast(t.kind())) {
                return Some("an unlabelled `break` or `continue` inside a labelled block");
            }
        }
        // `if` without `else` whose block has a value (E0317).
        if let Some(if_expr) = ast::IfExpr::cast(node.clone()) {
            if if_expr.else_branch().is_none() {
                let tail = if_expr.then_branch().and_then(|b| b.tail_expr());
                let valued = tail.and_then(|t| self.sema.type_of_expr(&t)).is_some_and(|t| {
                    let t = t.original;
                    !t.is_unit() && !t.is_never() && !t.is_unknown()
                });
                if valued {
                    return Some("an `if` without `else` whose block has a value");
                }
            }
        }
        // An assignment inside a `match` guard (E0510 when it writes the scrutinee).
        if let Some(guard) = ast::MatchGuard::cast(node.clone()) {
            let assigns = guard
                .syntax()
                .descendants()
                .filter_map(ast::BinExpr::cast)
                .any(|b| matches!(b.op_kind(), Some(ast::BinaryOp::Assignment { .. })));
            if assigns {
                return Some("an assignment inside a `match` guard");
            }
        }
        None
    }

    /// The names `pat` binds, an or-pattern's from its first alternative (each alternative binds the same names);
    /// not names that are constants, unit structs or variants.
    fn bound_names(&self, pat: &ast::Pat, out: &mut Vec<String>) {
        match pat {
            ast::Pat::OrPat(or) => {
                if let Some(first) = or.pats().next() {
                    self.bound_names(&first, out);
                }
            }
            ast::Pat::IdentPat(p) => {
                if self.sema.resolve_bind_pat_to_const(p).is_none() {
                    if let Some(name) = p.name() {
                        out.push(name.text().to_string());
                    }
                }
                if let Some(inner) = p.pat() {
                    self.bound_names(&inner, out);
                }
            }
            // The patterns directly inside (a record field's one level down: `S { a: x }`, `S { x }`).
            other => {
                let inside = other.syntax().descendants().skip(1).filter_map(ast::Pat::cast).filter(|p| {
                    p.syntax().ancestors().skip(1).find(|a| ast::Pat::can_cast(a.kind())).as_ref()
                        == Some(other.syntax())
                });
                inside.for_each(|p| self.bound_names(&p, out));
            }
        }
    }
}

/// Whether a name occurs twice among `names`.
fn repeats(names: &mut [String]) -> bool {
    names.sort();
    names.windows(2).any(|w| w[0] == w[1])
}
