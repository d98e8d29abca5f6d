//! The snippet's own traits and impls: an impl's methods are snippet functions ([`lacuna_ir::TFn`]) whose first
//! parameter is `self`, called where rust-analyzer resolves a method call or a path to them; a trait is only
//! name resolution.

use ra_ap_hir::Function;
use ra_ap_syntax::ast::{self, HasArgList, HasGenericParams};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{TExpr, TKind, Ty};
use std::ops::Range;

impl<'a, 'db> Builder<'a, 'db> {
    /// The methods of an impl the snippet declares, for a type the typed view holds (`impl Shout for String`,
    /// `impl Label for Product`). Generic impls, and impls with items other than methods, are outside the subset.
    pub(super) fn impl_fns(&mut self, imp: &ast::Impl) -> Result<Vec<ast::Fn>> {
        if Self::has_type_params(imp.generic_param_list())
            || imp.where_clause().is_some()
            || imp.unsafe_token().is_some()
        {
            return self.unsupported("a generic or unsafe impl", imp.syntax());
        }
        if imp.excl_token().is_some() || imp.default_token().is_some() {
            return self.unsupported("a negative or default impl", imp.syntax());
        }
        let mut fns = Vec::new();
        for item in imp.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
            match item {
                ast::AssocItem::Fn(f) => fns.push(f),
                other => return self.unsupported("an impl item other than a method", other.syntax()),
            }
        }
        Ok(fns)
    }

    /// A trait the snippet declares: only its name and methods' signatures matter (impls' methods are what
    /// calls resolve to). A generic trait, or one with associated types or constants, is outside the subset.
    pub(super) fn snippet_trait(&mut self, t: &ast::Trait) -> Result<()> {
        if Self::has_type_params(t.generic_param_list()) || t.where_clause().is_some() || t.unsafe_token().is_some() {
            return self.unsupported("a generic or unsafe trait", t.syntax());
        }
        for item in t.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
            if !matches!(item, ast::AssocItem::Fn(_)) {
                return self.unsupported("a trait item other than a method", item.syntax());
            }
        }
        Ok(())
    }

    fn has_type_params(list: Option<ast::GenericParamList>) -> bool {
        list.is_some_and(|l| l.generic_params().any(|p| !matches!(p, ast::GenericParam::LifetimeParam(_))))
    }

    /// `self` of a method being defined: its first parameter. `&mut self` is outside the subset (what a method
    /// writes through it would be a place of the caller's).
    pub(super) fn self_param_local(&mut self, param: &ast::SelfParam) -> Result<usize> {
        if param.amp_token().is_some() && param.mut_token().is_some() {
            return self.unsupported("a `&mut self` method", param.syntax());
        }
        let Some(local) = self.sema.to_def(param) else {
            return self.unsupported("an unresolved `self`", param.syntax());
        };
        let ty = self.ty(&local.ty(self.db), param.syntax())?;
        if self.holds_reference(&local.ty(self.db)) {
            self.borrows("a local that holds a reference", param.syntax());
        }
        let mutable = param.amp_token().is_none() && param.mut_token().is_some();
        let id = self.push_local(local, "self".to_owned(), ty, mutable);
        self.locals[id].fixed_type = true;
        Ok(id)
    }

    /// `x.method(..)` of a method of the snippet's own impl: a call of its function with the receiver, borrowed
    /// or moved as the method's `self` takes it, first.
    pub(super) fn snippet_method_call(
        &mut self,
        m: &ast::MethodCallExpr,
        f: Function,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let Some(&function) = self.fn_ids.get(&f) else { return Ok(None) };
        let (Some(receiver), Some(param)) = (m.receiver(), f.self_param(self.db)) else { return Ok(None) };
        let self_ty = self.ty(&param.ty(self.db), m.syntax())?;
        let receiver = self.self_value(&receiver, &self_ty)?;
        let mut args = vec![receiver];
        for a in m.arg_list().into_iter().flat_map(|l| l.args()) {
            args.push(self.expr(&a)?);
        }
        Ok(Some(TExpr { kind: TKind::Call { function, args }, ty: ty.clone(), range: range.clone() }))
    }

    /// The receiver of a snippet method as its `self` of type `self_ty` takes it: text or a host struct read in
    /// place for `&self` (auto-referenced: `tags[0].shout()`), a scalar copied, any other value moved.
    fn self_value(&mut self, receiver: &ast::Expr, self_ty: &Ty) -> Result<TExpr> {
        match self_ty {
            Ty::Str => self.text_borrowed(receiver, "a receiver other than text", receiver.syntax()),
            &Ty::StructRef(id) => {
                let inner = match receiver {
                    ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() => r.expr(),
                    other => Some(other.clone()),
                };
                let place = match inner {
                    Some(inner) => self.struct_borrowed(&inner, id)?,
                    None => None,
                };
                let Some(value) = place else {
                    return self.unsupported("a receiver other than a struct read in place", receiver.syntax());
                };
                self.borrows("a borrow of a host struct", receiver.syntax());
                Ok(value)
            }
            _ => {
                let value = self.expr(receiver)?;
                if value.ty != *self_ty {
                    return self.unsupported("a receiver of another type than the method's `self`", receiver.syntax());
                }
                Ok(value)
            }
        }
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A call of a `macro_rules!` the snippet declares, in expression position: the expression it expands to.
    /// Its parts are placed as rustc places them: what an argument computes, at the argument; what the macro's
    /// own text computes, at the call ([`Builder::range`]).
    pub(super) fn snippet_macro(&mut self, call: &ast::MacroCall, range: &Range<usize>) -> Result<Option<TExpr>> {
        let Some(root) = self.snippet_macro_expansion(call) else { return Ok(None) };
        // An expression, or statements that are only one (a call in a block's tail position).
        let only_expr = |m: ast::MacroStmts| m.statements().next().is_none().then(|| m.expr()).flatten();
        let Some(expr) = ast::Expr::cast(root.clone()).or_else(|| ast::MacroStmts::cast(root).and_then(only_expr))
        else {
            return self.unsupported("a macro expanding to something other than an expression", call.syntax());
        };
        self.snippet_macro_calls.push(range.clone());
        let built = self.expr(&expr);
        self.snippet_macro_calls.pop();
        let mut built = built?;
        if built.range.is_empty() || built.range.start < range.start || built.range.end > range.end {
            built.range = range.clone();
        }
        Ok(Some(built))
    }

    /// What a call of a `macro_rules!` the snippet declares expands to; `None` for another macro's call.
    fn snippet_macro_expansion(&self, call: &ast::MacroCall) -> Option<ra_ap_syntax::SyntaxNode> {
        use ra_ap_hir::HasSource;
        let mac = self.sema.resolve_macro_call(call)?;
        let declared = mac.source(self.db)?.map(|v| v.either(|m| m.syntax().text_range(), |f| f.syntax().text_range()));
        if self.placement(declared) != crate::ir_build::Placement::Snippet {
            return None;
        }
        Some(self.sema.expand_macro_call(call)?.value)
    }

    /// A statement that calls a snippet macro expanding to statements (`bump!(n, 2);`): the expansion, and where the
    /// call is.
    pub(super) fn snippet_macro_stmts(&self, e: &ast::Expr) -> Option<(ast::MacroStmts, Range<usize>)> {
        let ast::Expr::MacroExpr(mac) = e else { return None };
        let expansion = ast::MacroStmts::cast(self.snippet_macro_expansion(&mac.macro_call()?)?)?;
        Some((expansion, self.range(e.syntax())))
    }
}
