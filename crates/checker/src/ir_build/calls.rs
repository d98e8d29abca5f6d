//! Calls: functions and methods the host exports to JIT code, and functions the snippet declares.

use ra_ap_hir::{AsAssocItem, Function};
use ra_ap_syntax::ast::{self, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::*;

impl<'a, 'db> Builder<'a, 'db> {
    /// For a method of a top-level inherent impl of a host type with a `&self`/`&mut self` receiver and scalar
    /// parameters and result: the type's name and whether the receiver is `&mut self`.
    pub(super) fn host_scalar_method(&self, f: Function) -> Option<(ra_ap_hir::Adt, String, bool)> {
        let ra_ap_hir::AssocItemContainer::Impl(imp) = f.as_assoc_item(self.db)?.container(self.db) else {
            return None;
        };
        let module = imp.module(self.db);
        if imp.trait_(self.db).is_some()
            || !module.is_crate_root(self.db)
            || !module.krate(self.db).origin(self.db).is_local()
        {
            return None;
        }
        let adt = imp.self_ty(self.db).as_adt()?;
        let mutable = match f.self_param(self.db)?.access(self.db) {
            ra_ap_hir::Access::Shared => false,
            ra_ap_hir::Access::Exclusive => true,
            ra_ap_hir::Access::Owned => return None,
        };
        self.scalar_signature(f)?;
        Some((adt, adt.name(self.db).as_str().to_owned(), mutable))
    }

    /// The hole binding a host method's receiver expression names: the value itself, `&value`, `&mut value`, or a
    /// binding holding a reference to it.
    pub(super) fn self_arg(&mut self, expr: &ast::Expr, adt: ra_ap_hir::Adt, mutable: bool) -> Option<SelfArg> {
        let (expr, explicit_ref) = match expr {
            ast::Expr::RefExpr(r) if r.raw_token().is_none() => (r.expr()?, true),
            other => (other.clone(), false),
        };
        let (binding, local) = self.hole_binding(&expr)?;
        let ty = local.ty(self.db);
        let through_ref = match ty.as_reference() {
            Some((inner, _)) if !explicit_ref && inner.as_adt() == Some(adt) => true,
            None if ty.as_adt() == Some(adt) => false,
            _ => return None,
        };
        self.note_binding(binding, Scalar::Unit);
        Some(SelfArg { binding, through_ref, mutable })
    }

    /// `f`'s name when it is a function at the top level of the host (not std's, not a method) whose parameters
    /// and result are scalars passed by value (`()` allowed as the result; no 128-bit integers). Whether the host
    /// exports a shim for it (no generics, no attributes, ...) is settled when the call is compiled.
    /// A function of the host the JIT calls through a shim: declared at the top level or in a top-level `mod`,
    /// with the signature [`Builder::scalar_signature`] admits. Its name as the host's code calls it (`lookup`,
    /// `tools::lookup`) and its shim's symbol.
    pub(super) fn host_scalar_fn(&self, f: Function) -> Option<(String, String)> {
        let module = f.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() {
            return None;
        }
        if f.as_assoc_item(self.db).is_some() || f.self_param(self.db).is_some() {
            return None;
        }
        self.scalar_signature(f)?;
        let name = f.name(self.db).as_str().to_owned();
        if module.is_crate_root(self.db) {
            let symbol = lacuna_ir::shim_symbol(None, &name);
            return Some((name, symbol));
        }
        // The instrumented host exports shims for `pub` functions of top-level modules only.
        let parent = module.parent(self.db)?;
        if !parent.is_crate_root(self.db)
            || !matches!(ra_ap_hir::HasVisibility::visibility(&f, self.db), ra_ap_hir::Visibility::Public)
        {
            return None;
        }
        let module_name = module.name(self.db)?.as_str().to_owned();
        let symbol = lacuna_ir::module_shim_symbol(&module_name, &name);
        Some((format!("{module_name}::{name}"), symbol))
    }

    /// The arguments of a call of a host function or method: scalars, or text passed as `&str`.
    pub(super) fn host_args(&mut self, args: &[ast::Expr], node: &SyntaxNode) -> Result<Vec<TExpr>> {
        let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
        if args.iter().any(|a| a.ty.scalar().is_none() && a.ty != Ty::Str) {
            return self.unsupported("an argument of this type to a host function", node);
        }
        Ok(args)
    }

    /// `f`'s parameters (other than `self`) are scalars passed by value or `&str`, and its result is a scalar,
    /// `()`, `String` or `Option` of a scalar (no 128-bit integers anywhere).
    pub(super) fn scalar_signature(&self, f: Function) -> Option<()> {
        let scalar = |ty: &ra_ap_hir::Type<'db>| {
            let scalar = ty.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()));
            matches!(scalar, Some(s) if !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))
        };
        let param = |ty: &ra_ap_hir::Type<'db>| {
            scalar(ty)
                || ty.as_reference().is_some_and(|(inner, m)| m == ra_ap_hir::Mutability::Shared && inner.is_str())
        };
        let ret = f.ret_type(self.db);
        let option_of_scalar = ret.as_adt().is_some_and(|adt| self.is_core_adt(adt, "Option"))
            && ret.type_arguments().next().is_some_and(|t| scalar(&t));
        let ret_ok = ret.is_unit() || scalar(&ret) || self.is_string(&ret) || option_of_scalar;
        let params_ok = f.params_without_self(self.db).iter().all(|p| param(p.ty()));
        (params_ok && ret_ok).then_some(())
    }

    pub(super) fn declare_fn(&mut self, f: &ast::Fn) -> Result<()> {
        let Some(def) = self.sema.to_def(f) else { return self.unsupported("an unresolved function", f.syntax()) };
        // Lifetime parameters only constrain borrows, which rustc checks (`references`); types and consts would need
        // an instance per use.
        let generic = f
            .generic_param_list()
            .is_some_and(|l| l.generic_params().any(|p| !matches!(p, ast::GenericParam::LifetimeParam(_))));
        if f.generic_param_list().is_some() {
            self.references.set(true);
        }
        if generic || f.where_clause().is_some() || f.async_token().is_some() || f.const_token().is_some() {
            return self.unsupported("a generic, async or const function", f.syntax());
        }
        self.fn_ids.insert(def, self.fns.len());
        self.fns.push(None);
        Ok(())
    }

    pub(super) fn define_fn(&mut self, f: &ast::Fn) -> Result<()> {
        let def = self.sema.to_def(f).expect("declared before");
        let id = self.fn_ids[&def];
        let mut params = Vec::new();
        for param in f.param_list().into_iter().flat_map(|l| l.params()) {
            let Some(ast::Pat::IdentPat(pat)) = param.pat() else {
                return self.unsupported("a parameter pattern other than a name", param.syntax());
            };
            let local = self.declare_local(&pat)?;
            self.locals[local].fixed_type = true;
            params.push(local);
            self.note_reference_local(&pat);
        }
        if f.param_list().and_then(|l| l.self_param()).is_some() {
            return self.unsupported("a method", f.syntax());
        }
        // A returned reference: whether its lifetime works out is rustc's check.
        if self.holds_reference(&def.ret_type(self.db)) {
            self.references.set(true);
        }
        let ret = self.ty(&def.ret_type(self.db), f.syntax())?;
        let Some(body) = f.body() else { return self.unsupported("a function without a body", f.syntax()) };
        let body = self.block(&body)?;
        let name = f.name().map(|n| n.text().to_string()).unwrap_or_default();
        self.fns[id] = Some(TFn { name, params, ret, body });
        Ok(())
    }
}
