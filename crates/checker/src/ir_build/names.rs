//! Names: the hole's bindings and the snippet's locals, and the references the IR reads as values.

use ra_ap_hir::{Local, PathResolution};
use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use crate::ir_build::{Builder, Result};
use lacuna_ir::{LocalRef, Scalar, TExpr, TKind, TLocal, Ty};
use std::ops::Range;

impl<'a, 'db> Builder<'a, 'db> {
    /// The hole binding `expr` names (not a snippet local), with its local.
    pub(super) fn hole_binding(&self, expr: &ast::Expr) -> Option<(usize, Local<'db>)> {
        let ast::Expr::PathExpr(p) = expr else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        if let Some(&aliased) = self.reborrows.get(&local) {
            return Some(aliased);
        }
        if self.local_ids.contains_key(&local) || self.copied_by_a_move_closure(local, p.syntax()) {
            return None;
        }
        let binding = self.binding_index(local)?;
        if self.retyped(binding, local, p.syntax()) {
            return None;
        }
        Some((binding, local))
    }

    /// The hole binding `local` is, if it is one: the binding declared where `local` is, under its name.
    pub(super) fn binding_index(&self, local: Local<'db>) -> Option<usize> {
        let name = local.name(self.db);
        let decl = usize::from(self.local_source(local)?.syntax().text_range().start());
        self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str())
    }

    /// Whether the snippet settles the binding's type differently from the host alone (an unsuffixed literal:
    /// the host's `let workers = 4;` holds an `i32` the snippet reads as `usize`). Such a binding is not read in
    /// place: the rustc path converts it.
    pub(super) fn retyped(&self, binding: usize, local: Local<'db>, node: &SyntaxNode) -> bool {
        let Some(module) = self.sema.scope(node).map(|s| crate::lifted::hole_module(self.db, s.module())) else {
            return true;
        };
        let here = ra_ap_hir::HirDisplay::display_source_code(&local.ty(self.db), self.db, module.into(), false).ok();
        match &self.bindings[binding].ty {
            Some(host) => here.as_ref() != Some(host),
            // A type that cannot be written (a closure) is not one a literal settles.
            None => false,
        }
    }

    pub(super) fn note_binding(&mut self, binding: usize, ty: Scalar) {
        if !self.used_bindings.iter().any(|(i, _)| *i == binding) {
            self.used_bindings.push((binding, ty));
        }
    }

    /// The hole binding `r: &S` or `r: &mut S` (`S` a scalar up to 64 bits) that `expr` names, with `S` and whether
    /// it is `&mut`.
    pub(super) fn scalar_reference(&mut self, expr: &ast::Expr) -> Option<(usize, Scalar, bool)> {
        let (binding, local) = self.hole_binding(expr)?;
        let (inner, mutability) = local.ty(self.db).as_reference()?;
        let elem = inner.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()))?;
        if matches!(elem, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never) {
            return None;
        }
        self.note_binding(binding, elem);
        Some((binding, elem, mutability == ra_ap_hir::Mutability::Mut))
    }

    /// `let h = hits;`, `let h: &mut u32 = hits;` or `let h = &mut *hits;` of a hole binding `hits` that is a
    /// `&mut` of a number (or of another such name for it), `h` a plain name: `h` is then the binding itself
    /// under another name, read and written where the binding points, and nothing runs for the `let`. Whether
    /// the binding is used while `h` is live, and whether the `let` moved it (no `&mut` written: the host's later
    /// use is E0382), is rustc's borrow check. True when the statement was read so.
    pub(super) fn reborrow_let(&mut self, stmt: &ast::LetStmt) -> bool {
        let (Some(ast::Pat::IdentPat(pat)), Some(init), None) = (stmt.pat(), stmt.initializer(), stmt.let_else())
        else {
            return false;
        };
        if pat.ref_token().is_some() || pat.mut_token().is_some() || pat.pat().is_some() {
            return false;
        }
        let Some(local) = self.sema.to_def(&pat) else { return false };
        // The name's own type is the binding's (`&mut u32`), not another a coercion made of it.
        let pointee = match local.ty(self.db).as_reference() {
            Some((inner, ra_ap_hir::Mutability::Mut)) => Self::word(&inner),
            _ => None,
        };
        let Some(pointee) = pointee else { return false };
        let named = match &init {
            ast::Expr::PathExpr(_) => Some(init.clone()),
            ast::Expr::RefExpr(r) if r.mut_token().is_some() && r.raw_token().is_none() => match r.expr() {
                Some(ast::Expr::PrefixExpr(d)) if d.op_kind() == Some(ast::UnaryOp::Deref) => d.expr(),
                _ => None,
            },
            _ => None,
        };
        let Some(named) = named.filter(|n| matches!(n, ast::Expr::PathExpr(_))) else { return false };
        let Some((binding, s, true)) = self.scalar_reference(&named) else { return false };
        if s != pointee {
            return false;
        }
        let Some(aliased) = self.hole_binding(&named) else { return false };
        debug_assert_eq!(aliased.0, binding);
        self.borrows("a `&mut` of a hole binding kept in a local", stmt.syntax());
        self.reborrows.insert(local, aliased);
        true
    }

    pub(super) fn local_ref(&mut self, local: Local<'db>, node: &SyntaxNode) -> Result<LocalRef> {
        if let Some(&(_, binding_local)) = self.reborrows.get(&local) {
            return self.local_ref(binding_local, node);
        }
        if let Some(id) = self.local_id(local, node)? {
            return Ok(LocalRef::Snippet(id));
        }
        let name = local.name(self.db);
        let source = local.primary_source(self.db);
        let decl = usize::from(source.syntax().text_range().start());
        let Some(index) = self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str()) else {
            return self.unsupported("a local the subset does not know", node);
        };
        let local_ty = local.ty(self.db);
        if self.retyped(index, local, node) {
            // A number the snippet reads as another number type: converted where it is read and written. Whether
            // the host's value and the snippet's uses fit together is rustc's to say (as on the rustc path).
            let held = self.bindings[index].ty.as_deref().and_then(Scalar::from_name).filter(|s| plain_number(*s));
            let seen = self.scalar(&local_ty, node).ok().filter(|s| plain_number(*s));
            let (Some(held), Some(seen)) = (held, seen) else {
                return self.unsupported("a host binding whose type the snippet settles", node);
            };
            self.rustc_decides("a host binding whose type the snippet settles", node);
            if !self.retyped.iter().any(|(i, _)| *i == index) {
                self.retyped.push((index, held));
            }
            self.note_binding(index, seen);
            return Ok(LocalRef::Binding(index));
        }
        // A host struct (or a shared reference to one) is read in place, through its address.
        let by_ref = match local_ty.as_reference() {
            Some((inner, ra_ap_hir::Mutability::Shared)) => Some(inner),
            _ => None,
        };
        if self.host_type(by_ref.as_ref().unwrap_or(&local_ty)).is_some() {
            self.note_binding(index, Scalar::Unit);
            return Ok(LocalRef::Binding(index));
        }
        let ty = self.scalar(&local_ty, node)?;
        self.note_binding(index, ty);
        Ok(LocalRef::Binding(index))
    }

    /// A `let` or parameter that holds a reference (read as its value): whether it outlives a write to what it
    /// points to is rustc's borrow check.
    pub(super) fn note_reference_local(&self, pat: &ast::IdentPat) {
        if self.sema.to_def(pat).is_some_and(|l| self.holds_reference(&l.ty(self.db))) {
            self.borrows("a local that holds a reference", pat.syntax());
        }
    }

    pub(super) fn declare_local(&mut self, pat: &ast::IdentPat) -> Result<usize> {
        if pat.ref_token().is_some() || pat.pat().is_some() {
            return self.unsupported("a `ref` or `@` binding", pat.syntax());
        }
        let Some(local) = self.sema.to_def(pat) else { return self.unsupported("an unresolved binding", pat.syntax()) };
        let ty = self.ty(&local.ty(self.db), pat.syntax())?;
        let name = pat.name().map(|n| n.text().to_string()).unwrap_or_default();
        Ok(self.push_local(local, name, ty, pat.mut_token().is_some()))
    }

    /// A snippet local for rust-analyzer's `local`.
    pub(super) fn push_local(&mut self, local: Local<'db>, name: String, ty: Ty, mutable: bool) -> usize {
        let id = self.locals.len();
        self.locals.push(TLocal { name, ty, mutable, fixed_type: false, array_literal: false });
        self.local_ids.insert(local, id);
        id
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A path: a local, a binding, a constant, a unit variant (the expression `expr`, of type `ty`).
    pub(super) fn path_expr(
        &mut self,
        expr: &ast::Expr,
        p: &ast::PathExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let Some(path) = p.path() else { return self.unsupported("a path", expr.syntax()) };
            if let Some(kind) = self.text_binding_path(expr, &ty) {
                return Ok(TExpr { kind, ty, range });
            }
            match self.sema.resolve_path(&path) {
                Some(PathResolution::Local(local)) => match self.binding_through_ref(local) {
                    Some(binding) => TKind::Deref(binding),
                    None => TKind::Local(self.local_ref(local, expr.syntax())?),
                },
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)))
                    if self.option_variant(v) == Some(false) =>
                {
                    TKind::None
                }
                // A unit variant of a host enum, as a value (what a hand-written `PartialEq` compares with).
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)))
                    if v.kind(self.db) == ra_ap_hir::StructKind::Unit && matches!(ty, Ty::Struct(_)) =>
                {
                    let (Ty::Struct(id), Some(index)) =
                        (&ty, v.parent_enum(self.db).variants(self.db).iter().position(|x| *x == v))
                    else {
                        return self.unsupported("a unit variant", expr.syntax());
                    };
                    TKind::UnitVariant { id: *id, index: index as u32 }
                }
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::Const(c))) => {
                    return self.const_value(c, ty, range, expr.syntax());
                }
                _ => return self.unsupported("a path that is not a local", expr.syntax()),
            }
        };
        Ok(TExpr { kind, ty, range })
    }
}

impl<'db> Builder<'_, 'db> {
    /// The value of constant `c` (of type `ty`) where `node` names it: a primitive's constant, or the constant's
    /// body computed there (pure arithmetic on literals).
    pub(super) fn const_value(
        &mut self,
        c: ra_ap_hir::Const,
        ty: Ty,
        range: Range<usize>,
        node: &ra_ap_syntax::SyntaxNode,
    ) -> Result<TExpr> {
        if let Some(kind) = self.primitive_const(c, &ty) {
            return Ok(TExpr { kind, ty, range });
        }
        match self.const_body(c)? {
            Some(body) => {
                let mut value = self.expr(&body)?;
                self.expanding_consts.pop();
                value.range = range;
                Ok(value)
            }
            None => self.unsupported("a constant", node),
        }
    }

    /// A constant a format string names (`{LIMIT}`), formatted as its value.
    pub(super) fn captured_const(&mut self, c: ra_ap_hir::Const, call: &ast::MacroCall) -> Result<TExpr> {
        let ty = self.ty(&c.ty(self.db), call.syntax())?;
        if !matches!(ty, Ty::Scalar(_)) {
            return self.unsupported("a constant of this type in a format string", call.syntax());
        }
        let range = self.range(call.syntax());
        self.const_value(c, ty, range, call.syntax())
    }
}

/// A number type the JIT converts with `as` (not a 128-bit one).
pub(super) fn plain_number(s: Scalar) -> bool {
    (s.is_int() || s.is_float()) && !matches!(s, Scalar::I128 | Scalar::U128)
}
