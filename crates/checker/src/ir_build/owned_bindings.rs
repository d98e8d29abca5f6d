//! Owned bindings: a hole binding the snippet moves becomes a snippet local for the
//! whole run ([`lacuna_ir::Lifted`]), as the rustc path makes it one (`Access::Owned`); one it gives a whole new
//! value, or takes the value of with `std::mem`, is written in the host's place.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, SyntaxKind};

use ra_ap_hir::{AsAssocItem, PathResolution};

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Elem, Lifted, LocalRef, Place, Scalar, TKind, TLocal, Ty};

impl<'a, 'db> Builder<'a, 'db> {
    /// Makes each hole binding that the snippet in `block` moves a snippet local (before anything of
    /// the snippet is read, so that every use of it reads the local). A binding of another type is left as it is:
    /// the construct that moves it says why the snippet is not for the JIT.
    pub(crate) fn lift_owned_bindings(&mut self, block: &ast::BlockExpr) {
        for path in block.syntax().descendants().filter_map(ast::PathExpr::cast) {
            let expr = ast::Expr::PathExpr(path.clone());
            // The cheap tests first: the syntax, then whether the path names a hole binding, and only then which
            // method a receiver is passed to (this walk sees every path of every snippet).
            let use_ = moved_here(&expr);
            if use_ == Use::Kept {
                continue;
            }
            // (None once lifted: the binding is a snippet local then.)
            let Some((binding, local)) = self.hole_binding(&expr) else { continue };
            if let Use::Receiver(m) = use_ {
                let takes_self = self
                    .sema
                    .resolve_method_call(&m)
                    .and_then(|f| f.self_param(self.db))
                    .is_some_and(|s| s.access(self.db) == ra_ap_hir::Access::Owned);
                if !takes_self {
                    continue;
                }
            }
            let Some(ty) = self.owned_buffer_type(&local.ty(self.db)) else { continue };
            let id = self.locals.len();
            self.locals.push(TLocal {
                name: local.name(self.db).as_str().to_owned(),
                ty,
                mutable: true,
                fixed_type: true,
                array_literal: false,
            });
            self.local_ids.insert(local, id);
            self.lifted.push(Lifted { binding, local: id });
            self.note_binding(binding, Scalar::Unit);
            // That the snippet leaves a value there, which the host reads after the hole, is rustc's move check.
            self.rustc_decides("a host binding the snippet moves", path.syntax());
        }
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// The hole binding `lhs` names when it holds a `String`, a vector or a host struct or enum by value (where no
    /// host type has a `Drop` impl of its own) the snippet gives a whole new value in
    /// the host's place ([`lacuna_ir::Place::WholeBinding`]; one the snippet moves is a local of its own instead).
    pub(super) fn whole_binding(&mut self, lhs: &ast::Expr) -> Option<usize> {
        let (binding, local) = self.hole_binding(lhs)?;
        let ty = local.ty(self.db);
        // (Or a host struct or enum by value, its old value dropped in the host's place and the new one moved in.)
        if self.owned_buffer_type(&ty).is_none() && !matches!(self.owned_struct(&ty), Some(Ty::Struct(_))) {
            return None;
        }
        self.note_binding(binding, Scalar::Unit);
        // What the new value may borrow, and what borrows the old one, is rustc's borrow check.
        self.rustc_decides("a host binding given a new value", lhs.syntax());
        Some(binding)
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `ty` as an owned binding's type, when it is one: a `String`, or a `Vec` of scalars, `String`s or `&str`s
    /// (buffers the run can take over and hand back, whose elements own nothing but text, so that dropping them is
    /// not observable). Read without the side effects of [`Self::ty`], since most bindings it looks at are not
    /// owned ones; an owned one's are set here.
    fn owned_buffer_type(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        if self.is_string(ty) {
            self.owns_buffers.set(true);
            return Some(Ty::String);
        }
        let elem = self.vec_elem(ty)?;
        let elem = if self.is_string(&elem) {
            Elem::String
        } else if elem.as_reference().is_some_and(|(inner, m)| inner.is_str() && m == ra_ap_hir::Mutability::Shared) {
            // What the `&str`s point to is rustc's borrow check.
            self.borrows_in_type("a collection of references");
            Elem::Str
        } else {
            Elem::Scalar(Self::word(&elem)?)
        };
        self.owns_buffers.set(true);
        Some(Ty::Vec(elem))
    }
}

/// How a path is used where it stands, as far as its syntax tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Use {
    /// Moved: the right side of `=`, a `let`'s initializer, a part of a tuple or an array, an argument, the
    /// iterable of a `for`.
    Moved,
    /// The receiver of this method call: moved if the method takes `self` by value (`into_iter`).
    Receiver(ast::MethodCallExpr),
    /// Read, assigned or lent.
    Kept,
}

/// Whether `expr` (a path) is moved where it stands. These are the uses for which the rustc path takes the binding
/// over (rustc reports a move out of the reference it otherwise reads the binding through, E0507); a binding only
/// assigned or lent (`x = ..`, `mem::take(&mut x)`) it writes in place, and so leaves a fault's state there.
fn moved_here(expr: &ast::Expr) -> Use {
    let Some(parent) = expr.syntax().parent() else { return Use::Kept };
    let moved = match parent.kind() {
        SyntaxKind::BIN_EXPR => ast::BinExpr::cast(parent).is_some_and(|e| {
            matches!(e.op_kind(), Some(ast::BinaryOp::Assignment { op: None })) && e.rhs().as_ref() == Some(expr)
        }),
        SyntaxKind::LET_STMT => ast::LetStmt::cast(parent).and_then(|l| l.initializer()).as_ref() == Some(expr),
        SyntaxKind::TUPLE_EXPR | SyntaxKind::ARRAY_EXPR | SyntaxKind::ARG_LIST => true,
        SyntaxKind::FOR_EXPR => ast::ForExpr::cast(parent).and_then(|f| f.iterable()).as_ref() == Some(expr),
        SyntaxKind::METHOD_CALL_EXPR => {
            return match ast::MethodCallExpr::cast(parent) {
                Some(m) if m.receiver().as_ref() == Some(expr) => Use::Receiver(m),
                _ => Use::Kept,
            }
        }
        _ => false,
    };
    if moved {
        Use::Moved
    } else {
        Use::Kept
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `std::mem::take(&mut x)` or `std::mem::replace(&mut x, value)` of a `String` or a vector `x`: a snippet
    /// local or a hole binding ([`TKind::MemReplace`]). `None` for any other call.
    pub(super) fn mem_replace(&mut self, call: &ast::CallExpr, args: &[ast::Expr]) -> Result<Option<TKind>> {
        let Some(which) = self.std_mem_call(call) else { return Ok(None) };
        let (target, value) = match (which, args) {
            (MemFn::Take, [target]) => (target, None),
            (MemFn::Replace, [target, value]) => (target, Some(value)),
            _ => return Ok(None),
        };
        let ast::Expr::RefExpr(r) = target else { return Ok(None) };
        let Some(inner) = r.expr().filter(|_| r.mut_token().is_some()) else { return Ok(None) };
        let ast::Expr::PathExpr(p) = &inner else { return Ok(None) };
        let Some(PathResolution::Local(local)) = p.path().and_then(|p| self.sema.resolve_path(&p)) else {
            return Ok(None);
        };
        let place = match self.local_ids.get(&local) {
            Some(&id) if self.locals[id].ty.replaceable_in_place() => Place::Local(LocalRef::Snippet(id)),
            Some(_) => return Ok(None),
            None => {
                let Some((binding, local)) = self.hole_binding(&inner) else { return Ok(None) };
                if self.owned_buffer_type(&local.ty(self.db)).is_none() {
                    return Ok(None);
                }
                self.note_binding(binding, Scalar::Unit);
                Place::WholeBinding(binding)
            }
        };
        // Whether the place may be taken from here (no loan of it outlives the call) is rustc's borrow check.
        self.rustc_decides("a value taken with `std::mem`", call.syntax());
        let value = value.map(|v| self.expr(v)).transpose()?.map(Box::new);
        Ok(Some(TKind::MemReplace { place, value }))
    }

    /// What `std::mem` function a call is, of those that move a value out of a place.
    fn std_mem_call(&self, call: &ast::CallExpr) -> Option<MemFn> {
        let ast::Expr::PathExpr(p) = call.expr()? else { return None };
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) = self.sema.resolve_path(&p.path()?) else {
            return None;
        };
        let in_mem = f.module(self.db).name(self.db).is_some_and(|m| m.as_str() == "mem");
        if self.fn_crate(f).as_deref() != Some("core") || !in_mem || f.as_assoc_item(self.db).is_some() {
            return None;
        }
        match f.name(self.db).as_str() {
            "take" => Some(MemFn::Take),
            "replace" => Some(MemFn::Replace),
            _ => None,
        }
    }
}

/// The `std::mem` functions [`Builder::mem_replace`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MemFn {
    Take,
    Replace,
}
