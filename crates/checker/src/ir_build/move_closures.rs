//! `move` closures: each takes its own copy of a `Copy` value it captures, where it is made.
//!
//! The typed view reads a closure where it runs, over the captured places themselves (a closure kept in a local
//! is inlined where it is called). A `move` closure differs from that in two ways:
//! - It copies a number (or a shared reference) it captures where it is made: it changes its own copy, and
//!   changes to the original after it is made are not seen through it. Here, such a capture is read as a hidden
//!   local of the snippet's ([`MoveCopy`]), initialized with the original where the closure is made: just before
//!   the nearest expression being built that holds the whole closure (or the statement, for `let f = move ..`).
//!   That is the closure's own place only if nothing in that expression, outside the closure, names the
//!   original or could change it: checked when the copy is placed ([`Builder::place_move_copies`]), and, for
//!   aliases that could change it from anywhere, over the whole snippet ([`Builder::moved_copy`]).
//! - It takes a value that is not `Copy` (a `String`, a `&mut`) away from its owner. Read in place, that is the
//!   same value, as no one else may use it afterwards; whether no one does is rustc's move check, so a snippet
//!   with a `move` closure is always decided by rustc.
//!
//! A `move` closure inside a macro's arguments, or capturing part of a value, is outside the subset.

use std::ops::Range;

use ra_ap_hir::Local;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, TextRange};

use crate::ir_build::{Builder, Result};
use lacuna_ir::{LocalRef, TExpr, TKind, TLocal, TStmt, Ty};

/// A `Copy` value a `move` closure captures, read in its body as a hidden local that is made where the closure
/// is made. Pending until a statement is placed for it ([`Builder::place_move_copies`]).
pub(super) struct MoveCopy<'db> {
    /// The closure, in the host file's offsets.
    closure: TextRange,
    /// What it captures.
    local: Local<'db>,
    /// The captured value's name, as the snippet writes it.
    name: String,
    /// The hidden local holding the closure's copy.
    copy: usize,
    /// `let copy = original;`.
    stmt: TStmt,
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A snippet with a `move` closure is decided by rustc: whether what such a closure takes away is used again
    /// is its move check.
    pub(crate) fn note_move_closures(&self, block: &ast::BlockExpr) {
        let moving = block.syntax().descendants().filter_map(ast::ClosureExpr::cast).find(|c| c.move_token().is_some());
        if let Some(c) = moving {
            self.rustc_decides("a `move` closure", c.syntax());
        }
    }

    /// The snippet local that `local`, named at `node`, is read as there: its own, or the copy a `move` closure
    /// around `node` took of it.
    pub(super) fn local_id(&mut self, local: Local<'db>, node: &SyntaxNode) -> Result<Option<usize>> {
        if let Some(copy) = self.moved_copy(local, node)? {
            return Ok(Some(copy));
        }
        Ok(self.local_ids.get(&local).copied())
    }

    /// Whether a `move` closure around `node` reads `local` as its own copy (or might: what is not in the subset
    /// is then said where the copy is asked for, [`Self::local_id`]): not a hole binding read in place there.
    pub(super) fn copied_by_a_move_closure(&self, local: Local<'db>, node: &SyntaxNode) -> bool {
        match self.moving_closure_around(local, node) {
            Ok(Some(_)) => local.ty(self.db).is_copy(self.db),
            Ok(None) => false,
            Err(_) => true,
        }
    }

    /// The hidden local a `move` closure around `node` reads `local` as, when `local` is `Copy` and declared outside
    /// that closure (the innermost such closure's; its copy is made from what `local` is where the closure is
    /// made, itself perhaps an outer closure's copy).
    fn moved_copy(&mut self, local: Local<'db>, node: &SyntaxNode) -> Result<Option<usize>> {
        let Some(closure) = self.moving_closure_around(local, node)? else { return Ok(None) };
        let range = closure.syntax().text_range();
        if let Some(pending) = self.move_copies.iter().find(|m| m.closure == range && m.local == local) {
            return Ok(Some(pending.copy));
        }
        let local_ty = local.ty(self.db);
        if !local_ty.is_copy(self.db) {
            return Ok(None);
        }
        // A reference to a number is read as the number where it is named; the copy would not be the reference.
        let ty = self.ty(&local_ty, node)?;
        let copyable = match &ty {
            Ty::Scalar(_) => local_ty.as_reference().is_none(),
            Ty::Str | Ty::StructRef(_) | Ty::Slice(_) => true,
            _ => false,
        };
        if !copyable {
            return self.unsupported("a `move` closure copying a value of this type", closure.syntax());
        }
        let name = local.name(self.db).as_str().to_owned();
        if self.changed_through_an_alias(closure.syntax(), &name) {
            return self
                .unsupported("a `move` closure copying a value the snippet also lends mutably", closure.syntax());
        }
        // What the closure copies is read where the closure is made: outside it.
        let outside = closure.syntax().parent().unwrap_or_else(|| closure.syntax().clone());
        let original = match self.local_id(local, &outside)? {
            Some(id) => TKind::Local(LocalRef::Snippet(id)),
            // A hole binding holding text is read in place, as text.
            None if ty == Ty::Str => match self.binding_index(local).and_then(|b| self.text_binding(b, local)) {
                Some(seq) => TKind::TextOf(seq),
                None => return self.unsupported("a `move` closure copying text it cannot read", closure.syntax()),
            },
            None => TKind::Local(self.local_ref(local, &outside)?),
        };
        let at = self.range(closure.syntax());
        let mutable = local.is_mut(self.db);
        let copy = self.locals.len();
        self.locals.push(TLocal {
            name: name.clone(),
            ty: ty.clone(),
            mutable,
            fixed_type: true,
            array_literal: false,
        });
        let init = TExpr { kind: original, ty, range: at };
        let stmt = TStmt::Let { local: copy, init: Some(init) };
        self.move_copies.push(MoveCopy { closure: range, local, name, copy, stmt });
        Ok(Some(copy))
    }

    /// The innermost `move` closure around `node` that captures `local` (declared outside it), if any.
    fn moving_closure_around(&self, local: Local<'db>, node: &SyntaxNode) -> Result<Option<ast::ClosureExpr>> {
        let Some(declared) = self.local_source(local).map(|s| self.sema.original_range(s.syntax())) else {
            return Ok(None);
        };
        for closure in self.sema.ancestors_with_macros(node.clone()).filter_map(ast::ClosureExpr::cast) {
            // A closure that declares `local` (a parameter, or a `let` in its body) holds no copy of it, and
            // neither does any closure around that one.
            let at = self.sema.original_range(closure.syntax());
            if at.file_id == declared.file_id && at.range.contains_range(declared.range) {
                return Ok(None);
            }
            if closure.move_token().is_none() {
                continue;
            }
            if self.sema.hir_file_for(closure.syntax()).is_macro() {
                return self.unsupported("a `move` closure inside a macro's arguments", closure.syntax());
            }
            return Ok(Some(closure));
        }
        Ok(None)
    }

    /// Whether the snippet writes `&mut name` anywhere (also in a macro's arguments), or keeps a closure in a local
    /// that names it: something that could change `name`'s value without naming it where a copy is placed.
    fn changed_through_an_alias(&self, inside: &SyntaxNode, name: &str) -> bool {
        let Some(block) = self.snippet_syntax(inside) else { return true };
        let tokens: Vec<_> =
            block.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia()).collect();
        let lent = tokens
            .windows(3)
            .any(|w| w[0].kind() == SyntaxKind::AMP && w[1].kind() == SyntaxKind::MUT_KW && w[2].text() == name);
        let kept = block.descendants().filter_map(ast::LetStmt::cast).any(|l| {
            matches!(l.initializer(), Some(ast::Expr::ClosureExpr(c)) if c.move_token().is_none()
                && c.syntax().descendants_with_tokens().any(|t| t.as_token().is_some_and(|t| t.text() == name)))
        });
        lent || kept
    }

    /// Places the copies that `move` closures inside `over` (an expression or a statement being built) took since
    /// `mark`: their statements, to go just before `over`. A copy made there is the closure's own only if nothing
    /// in `over` outside the closure names the original (a write to it, or a read the copy would move ahead of).
    pub(super) fn place_move_copies(&mut self, mark: usize, over: &SyntaxNode) -> Result<Vec<TStmt>> {
        let over_range = over.text_range();
        let mut placed = Vec::new();
        let mut i = mark;
        while i < self.move_copies.len() {
            let m = &self.move_copies[i];
            let inside = !self.sema.hir_file_for(over).is_macro()
                && over_range.contains_range(m.closure)
                && over_range != m.closure;
            if !inside {
                i += 1;
                continue;
            }
            let named_outside = over.descendants_with_tokens().filter_map(|e| e.into_token()).any(|t| {
                t.kind() == SyntaxKind::IDENT && t.text() == m.name && !m.closure.contains_range(t.text_range())
            });
            if named_outside {
                let range = self.offsets_of(m.closure);
                return Err(lacuna_ir::Unsupported {
                    construct: "a `move` closure copying a value its expression also names".into(),
                    range,
                });
            }
            placed.push(self.move_copies.remove(i).stmt);
        }
        Ok(placed)
    }

    /// A copy no expression or statement placed: the snippet is not built (its closure would read a copy never made).
    pub(crate) fn unplaced_move_copies(&self) -> Result<()> {
        match self.move_copies.first() {
            Some(m) => Err(lacuna_ir::Unsupported {
                construct: "a `move` closure whose copies have no place".into(),
                range: self.offsets_of(m.closure),
            }),
            None => Ok(()),
        }
    }

    /// The snippet's block, from a node of the host file's tree inside it.
    fn snippet_syntax(&self, inside: &SyntaxNode) -> Option<SyntaxNode> {
        inside.ancestors().find(|n| ast::BlockExpr::can_cast(n.kind()) && n.text_range() == self.snippet_block.1)
    }

    /// Host-file offsets as snippet offsets.
    fn offsets_of(&self, range: TextRange) -> Range<usize> {
        let start = usize::from(range.start()).saturating_sub(self.snippet_start);
        start..start + usize::from(range.len())
    }
}
