//! Calls: functions and methods the host exports to JIT code, and functions the snippet declares.

use ra_ap_hir::{AsAssocItem, Function};
use ra_ap_syntax::ast::{self, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use ra_ap_hir::PathResolution;
use ra_ap_syntax::ast::HasArgList;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{
    CharMethod, Elem, LocalRef, Method, Place, Receiver, Scalar, ScalarMethod, SelfArg, TBlock, TExpr, TFn, TKind,
    TPat, TStmt, Ty,
};
use std::ops::Range;

/// Which types [`Builder::lent_binding`] lends.
type LendsFn<'a, 'db> = fn(&Builder<'a, 'db>, &ra_ap_hir::Type<'db>) -> bool;

impl<'a, 'db> Builder<'a, 'db> {
    /// For a method of a top-level inherent impl of a host type with a `&self`/`&mut self` receiver and scalar
    /// parameters and result: the type's name and whether the receiver is `&mut self`.
    pub(super) fn host_scalar_method(&self, f: Function) -> Option<(ra_ap_hir::Adt, String, bool)> {
        let ra_ap_hir::AssocItemContainer::Impl(imp) = f.as_assoc_item(self.db)?.container(self.db) else {
            return None;
        };
        let module = imp.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() {
            return None;
        }
        let adt = imp.self_ty(self.db).as_adt()?;
        // A method of the host's own top-level trait (`impl Shape for Rect`), when no other impl of the type has a
        // method of its name: the shim is named by the type and the method alone.
        if let Some(t) = imp.trait_(self.db) {
            let trait_module = t.module(self.db);
            if !trait_module.krate(self.db).origin(self.db).is_local() || !trait_module.is_crate_root(self.db) {
                return None;
            }
            let name = f.name(self.db);
            let same_name = ra_ap_hir::Impl::all_for_type(self.db, imp.self_ty(self.db))
                .into_iter()
                .flat_map(|i| i.items(self.db))
                .filter(|item| matches!(item, ra_ap_hir::AssocItem::Function(g) if g.name(self.db) == name))
                .count();
            if same_name != 1 {
                return None;
            }
        }
        // A top-level impl, or one in a block of a block type's ([`Builder::host_declared`]) the snippet does not
        // declare.
        let in_block = self.host_declared(adt) && !self.declared_in_snippet(imp);
        if !module.is_crate_root(self.db) && !in_block {
            return None;
        }
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

    /// A host function's result that borrows (`Option<&T>`): what from, and for how long, is rustc's borrow check.
    pub(super) fn note_borrowed_result(&self, f: Option<Function>, call: &SyntaxNode) {
        if f.is_some_and(|f| self.holds_reference(&f.ret_type(self.db))) {
            self.borrows("a host function's result that borrows", call);
        }
    }

    /// A host struct of type `adt` read in place as a `&self` method's receiver: an iterator's item, a `for`
    /// variable, a field (`o.total()`, `s.inner.total()`), a value the snippet holds.
    fn self_in_place(&mut self, expr: &ast::Expr, adt: ra_ap_hir::Adt) -> Result<Option<Box<TExpr>>> {
        let expr = match expr {
            ast::Expr::RefExpr(r) if r.raw_token().is_none() && r.mut_token().is_none() => match r.expr() {
                Some(inner) => inner,
                None => return Ok(None),
            },
            other => other.clone(),
        };
        let Some(id) = self.sema.type_of_expr(&expr).and_then(|t| {
            let ty = t.original;
            let inner = ty.as_reference().map_or(ty.clone(), |(inner, _)| inner);
            let inner = inner.as_reference().map_or(inner.clone(), |(innermost, _)| innermost);
            (inner.as_adt() == Some(adt)).then(|| self.host_type(&inner)).flatten()
        }) else {
            return Ok(None);
        };
        let Some(place) = self.struct_place(&expr)? else { return Ok(None) };
        Ok(matches!(place.ty, Ty::Struct(i) | Ty::StructRef(i) if i == id).then(|| Box::new(place)))
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
        if f.self_param(self.db).is_some() {
            return None;
        }
        if let Some(assoc) = f.as_assoc_item(self.db) {
            // An associated function of an inherent impl of a top-level host type (`Line::new(..)`), which the
            // instrumented host exports as it does a module's function.
            let ra_ap_hir::AssocItemContainer::Impl(imp) = assoc.container(self.db) else { return None };
            let adt = imp.self_ty(self.db).as_adt()?;
            let top_level = |m: ra_ap_hir::Module| m.is_crate_root(self.db);
            if imp.trait_(self.db).is_some() || !top_level(imp.module(self.db)) || !top_level(adt.module(self.db)) {
                return None;
            }
            self.scalar_signature(f)?;
            let (ty_name, name) = (adt.name(self.db).as_str().to_owned(), f.name(self.db).as_str().to_owned());
            let symbol = lacuna_ir::module_shim_symbol(&ty_name, &name);
            return Some((format!("{ty_name}::{name}"), symbol));
        }
        self.scalar_signature(f)?;
        let name = f.name(self.db).as_str().to_owned();
        // A function of a block around the hole (a helper declared in `main`), which the export moves to the
        // block's module: by its path there.
        if let Some((_, path)) = self.named.block_fns.iter().find(|(n, _)| *n == name) {
            use ra_ap_hir::HasSource;
            let declared = f.source(self.db).map(|s| s.map(|v| v.syntax().text_range()));
            if !declared.is_some_and(|d| self.placement(d) == super::Placement::Host) {
                return None;
            }
            let (block, _) = path.rsplit_once("::")?;
            return Some((name.clone(), lacuna_ir::module_shim_symbol(block, &name)));
        }
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

    /// A call of a hole binding that is a host closure JIT code can call ([`lacuna_ir::Binding::dyn_callable`]):
    /// through the shim the instrumented host exports for its type, the table's reference as its receiver.
    fn host_closure_call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        ty: &Ty,
        expr: &ast::Expr,
    ) -> Result<Option<TKind>> {
        let Some((binding, _)) = self.hole_binding(callee) else { return Ok(None) };
        let Some(dyn_type) = self.bindings.get(binding).and_then(|b| b.dyn_callable()) else { return Ok(None) };
        let Some(shim) = crate::outline::callable_fn(&dyn_type) else { return Ok(None) };
        // An `FnOnce` closure is moved by its call: that the snippet calls it at most once, and uses it in no
        // other way, is rustc's move check.
        if self.bindings[binding].callable.as_ref().is_some_and(|c| c.kind == lacuna_ir::FnKind::FnOnce) {
            self.rustc_decides("a call of a host `FnOnce` closure", expr.syntax());
        }
        // What the shim writes ([`crate::outline::callable_fn`]): a scalar, `String`, or an `Option` or
        // `Result` of those.
        let plain = |t: &Ty| matches!(t, Ty::Scalar(_) | Ty::String);
        let answer_ok = match ty {
            Ty::Option(p) => plain(p) && !matches!(**p, Ty::Scalar(Scalar::Unit)),
            Ty::Result(ok, err) => plain(ok) && plain(err),
            t => plain(t),
        };
        if !answer_ok {
            return Ok(None);
        }
        let args = self.host_args(args, expr.syntax())?;
        let owns_string = |t: &Ty| *t == Ty::String;
        if match ty {
            Ty::Option(p) => owns_string(p),
            Ty::Result(ok, err) => owns_string(ok) || owns_string(err),
            t => owns_string(t),
        } {
            self.owns_buffers.set(true);
        }
        // What a closure local captured needs no check here: the entry lends the closure before the table's other
        // entries, so rustc's check of the instrumented host leaves each binding it captured shared (an `Fn`'s) or
        // absent (an `FnMut`'s), and the JIT path refuses a snippet that changes or names such a binding before
        // acceptance is asked (`read-the-budget-between-buys` in `stateful-tools.cases`).
        self.note_binding(binding, Scalar::Unit);
        let receiver = Some(Receiver::Binding(lacuna_ir::SelfArg { binding, through_ref: false, mutable: false }));
        let name = self.bindings[binding].name.clone();
        Ok(Some(TKind::HostCall { name, symbol: shim.symbol(), receiver, args }))
    }

    /// The arguments of a call of a host function or method: scalars, text passed as `&str`, scalar places lent
    /// as `&S` / `&mut S` ([`Self::lent_place`]), or host structs' addresses.
    pub(super) fn host_args(&mut self, args: &[ast::Expr], node: &SyntaxNode) -> Result<Vec<TExpr>> {
        let args = args
            .iter()
            .map(|a| match self.lent_place(a)? {
                Some(address) => Ok(address),
                None => self.expr(a),
            })
            .collect::<Result<Vec<_>>>()?;
        let passed = |a: &TExpr| {
            a.ty.scalar().is_some()
                || matches!(a.ty, Ty::Str | Ty::StructRef(_))
                || matches!(a.kind, TKind::SliceOf { .. })
        };
        if !args.iter().all(passed) {
            return self.unsupported("an argument of this type to a host function", node);
        }
        // A host struct lent to the function (`add(cart, ..)`, `describe(&o)`): whether the loan is allowed (a
        // `mut` place for `&mut`, nothing else using the struct meanwhile) is rustc's check.
        if args.iter().any(|a| matches!(a.ty, Ty::StructRef(_))) {
            self.rustc_decides("a host struct lent to a host function", node);
        }
        Ok(args)
    }

    /// A host function's argument of type `&S` or `&mut S` for a scalar `S` (a shim passes the address): `&x` /
    /// `&mut x` of a snippet local or of a hole binding holding the scalar, or `r` / `&*r` / `&mut *r` of a hole
    /// binding `r` that is such a reference. `None` for an argument of another type. Whether the loan is allowed
    /// (a `mut` place, nothing else reading it meanwhile: `bump(&mut n, n)` is E0503) is rustc's check.
    fn lent_place(&mut self, a: &ast::Expr) -> Result<Option<TExpr>> {
        let Some(info) = self.sema.type_of_expr(a) else { return Ok(None) };
        let Some((inner, m)) = info.adjusted().as_reference() else { return Ok(None) };
        let mutable = m == ra_ap_hir::Mutability::Mut;
        let range = self.range(a.syntax());
        if self.lent_vector_type(&inner) {
            let Some(place) = self.lent_binding(a, mutable, |this, t| this.lent_vector_type(t)) else {
                return self.unsupported("a vector lent to a host function other than a binding's", a.syntax());
            };
            self.rustc_decides("a place lent to a host function", a.syntax());
            let kind = TKind::AddrOf { place, mutable };
            return Ok(Some(TExpr { kind, ty: Ty::Scalar(Scalar::Usize), range }));
        }
        if let Some(elem) = inner.as_slice().and_then(|e| Self::word(&e)) {
            return self.lent_slice(a, elem, mutable).map(Some);
        }
        if self.host_type(&inner).is_some() {
            // A host struct: a binding's (lent as the vectors above are), or for `&S` any struct the snippet reads
            // in place (a loop variable, an element found: [`Self::host_args`] takes its address). A `&mut` loan
            // of anything but a binding is not the subset's: what the function writes must land in a binding the
            // host hands over writable.
            let place = match self.lent_binding(a, mutable, |this, t| this.host_type(t).is_some()) {
                Some(place) => Some(place),
                // A `&mut` loop variable or a found element: the struct it points to, in its binding's sequence.
                None if mutable => {
                    self.elem_local(a).map(|(local, root, by_value)| Place::Elem { local, root, by_value })
                }
                None => None,
            };
            let Some(place) = place else {
                if mutable {
                    return self.unsupported("a host struct lent as `&mut` other than a binding's", a.syntax());
                }
                return Ok(None);
            };
            self.rustc_decides("a host struct lent to a host function", a.syntax());
            let kind = TKind::AddrOf { place, mutable };
            return Ok(Some(TExpr { kind, ty: Ty::Scalar(Scalar::Usize), range }));
        }
        let Some(s) = Self::word(&inner) else { return Ok(None) };
        // `r` or `&*r` / `&mut *r` of a hole binding that is a reference to the scalar: where it points.
        let through = |this: &mut Self, e: &ast::Expr| {
            this.scalar_reference(e).filter(|&(_, elem, is_mut)| elem == s && (is_mut || !mutable))
        };
        let place = match a {
            ast::Expr::PathExpr(_) => through(self, a).map(|(b, ..)| Place::Deref(b)),
            ast::Expr::RefExpr(r) if r.raw_token().is_none() && (r.mut_token().is_some() == mutable) => {
                match r.expr() {
                    Some(ast::Expr::PrefixExpr(p)) if p.op_kind() == Some(ast::UnaryOp::Deref) => {
                        p.expr().and_then(|e| through(self, &e)).map(|(b, ..)| Place::Deref(b))
                    }
                    Some(inner @ ast::Expr::PathExpr(_)) => self.lent_local(&inner, s),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(place) = place else {
            return self
                .unsupported("a reference lent to a host function other than to a local or a binding", a.syntax());
        };
        self.rustc_decides("a place lent to a host function", a.syntax());
        let kind = TKind::AddrOf { place, mutable };
        Ok(Some(TExpr { kind, ty: Ty::Scalar(Scalar::Usize), range }))
    }

    /// A host function's argument of type `&[S]` or `&mut [S]` for a scalar `S`: `&v` / `&mut v`, `&*v` /
    /// `&mut *v` or `v` of a sequence the snippet names (a hole binding's vector, array or slice, or its own
    /// vector), as its pointer and length ([`TKind::SliceOf`]). Whether the loan is allowed is rustc's check.
    fn lent_slice(&mut self, a: &ast::Expr, elem: Scalar, mutable: bool) -> Result<TExpr> {
        let named = match a {
            ast::Expr::RefExpr(r) if r.raw_token().is_none() && r.mut_token().is_some() == mutable => match r.expr() {
                Some(ast::Expr::PrefixExpr(p)) if p.op_kind() == Some(ast::UnaryOp::Deref) => p.expr(),
                inner => inner,
            },
            ast::Expr::PathExpr(_) => Some(a.clone()),
            _ => None,
        };
        let seq = named.filter(|n| matches!(n, ast::Expr::PathExpr(_))).and_then(|n| self.sequence(&n));
        let Some(seq) = seq.filter(|s| s.elem == Elem::Scalar(elem) && (s.writable || !mutable)) else {
            return self
                .unsupported("a slice lent to a host function other than a sequence the snippet names", a.syntax());
        };
        self.rustc_decides("a slice lent to a host function", a.syntax());
        let ty = Ty::Tuple(vec![Ty::Scalar(Scalar::Usize); 2]);
        Ok(TExpr { kind: TKind::SliceOf { seq, mutable }, ty, range: self.range(a.syntax()) })
    }

    /// `Vec<T>` of a scalar or `String`: what a host function may take by reference (`&mut Vec<String>`).
    fn lent_vector_type(&self, ty: &ra_ap_hir::Type<'db>) -> bool {
        self.vec_elem(ty).is_some_and(|e| Self::word(&e).is_some() || self.is_string(&e))
    }

    /// The place of a hole binding's value of a type `lends` takes (a vector, a host struct) lent to a host
    /// function: `&mut v` / `&v` of a binding holding it (its slot in the host's frame), or `v` / `&mut *v` of a
    /// binding that is a reference to it (where it points).
    fn lent_binding(&mut self, a: &ast::Expr, mutable: bool, lends: LendsFn<'a, 'db>) -> Option<Place> {
        let (binding, place) = match a {
            ast::Expr::RefExpr(r) if r.raw_token().is_none() && r.mut_token().is_some() == mutable => match r.expr()? {
                // `&mut *v` / `&*v`: a reborrow of where a reference binding points.
                ast::Expr::PrefixExpr(p) if p.op_kind() == Some(ast::UnaryOp::Deref) => {
                    return self.lent_binding(&p.expr()?, mutable, lends);
                }
                lent => {
                    let (binding, local) = self.hole_binding(&lent)?;
                    let ty = local.ty(self.db);
                    (ty.as_reference().is_none() && lends(self, &ty)).then_some(())?;
                    (binding, Place::Local(LocalRef::Binding(binding)))
                }
            },
            ast::Expr::PathExpr(_) => {
                let (binding, local) = self.hole_binding(a)?;
                let (inner, m) = local.ty(self.db).as_reference()?;
                let fits = lends(self, &inner) && (m == ra_ap_hir::Mutability::Mut || !mutable);
                fits.then_some(())?;
                (binding, Place::Deref(binding))
            }
            _ => return None,
        };
        self.note_binding(binding, Scalar::Unit);
        Some(place)
    }

    /// The place of `e`, a snippet local or a hole binding holding a scalar of type `s` (not one whose type the
    /// snippet settles: the host's slot holds another type then).
    fn lent_local(&mut self, e: &ast::Expr, s: Scalar) -> Option<Place> {
        let ast::Expr::PathExpr(p) = e else { return None };
        let Some(ra_ap_hir::PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        if let Some(id) = self.local_id(local, e.syntax()).ok()? {
            return (self.locals[id].ty == Ty::Scalar(s)).then_some(Place::Local(LocalRef::Snippet(id)));
        }
        let (binding, local) = self.hole_binding(e)?;
        if Self::builtin(&local.ty(self.db)) != Some(s) {
            return None;
        }
        self.note_binding(binding, s);
        Some(Place::Local(LocalRef::Binding(binding)))
    }

    /// `f`'s parameters (other than `self`) are scalars passed by value, `&str`, references to scalars, to vectors
    /// of scalars or `String`s and to host structs or enums, and its result is a scalar,
    /// `()`, `String`, `Option` of a scalar, `Vec` of a scalar, `Option<&T>` or `Vec<&T>` of a host struct or
    /// enum, or `Option<T>` of one by value (no 128-bit integers anywhere).
    pub(super) fn scalar_signature(&self, f: Function) -> Option<()> {
        let scalar = |ty: &ra_ap_hir::Type<'db>| {
            let scalar = ty.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()));
            matches!(scalar, Some(s) if !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))
        };
        // (`&S` and `&mut S` of a scalar: the address of a place the snippet lends, [`Self::lent_place`].)
        let param = |ty: &ra_ap_hir::Type<'db>| {
            scalar(ty)
                || ty.as_reference().is_some_and(|(inner, m)| m == ra_ap_hir::Mutability::Shared && inner.is_str())
                || ty.as_reference().is_some_and(|(inner, _)| scalar(&inner))
                // `&Vec<T>` / `&mut Vec<T>` of a scalar or `String`: the address of a binding's vector.
                || ty.as_reference().is_some_and(|(inner, _)| self.lent_vector_type(&inner))
                // `&[T]` / `&mut [T]` of a scalar: a sequence's pointer and length.
                || ty.as_reference().is_some_and(|(inner, _)| inner.as_slice().is_some_and(|e| Self::word(&e).is_some()))
                // `&S` / `&mut S` of a host struct or enum: its address.
                || ty.as_reference().is_some_and(|(inner, _)| self.host_type(&inner).is_some())
        };
        let ret = f.ret_type(self.db);
        let option_of = |ok: &dyn Fn(&ra_ap_hir::Type<'db>) -> bool| {
            ret.as_adt().is_some_and(|adt| self.is_core_adt(adt, "Option"))
                && ret.type_arguments().next().is_some_and(|t| ok(&t))
        };
        // `Option<&T>` of a host struct or enum: a reference the JIT reads in place.
        let host_ref = |t: &ra_ap_hir::Type<'db>| matches!(t.as_reference(), Some((inner, ra_ap_hir::Mutability::Shared)) if self.host_type(&inner).is_some());
        // `Vec<&T>` of a host struct or enum, or `Vec<S>` of a scalar.
        let vec_of_refs = self.vec_elem(&ret).is_some_and(|t| host_ref(&t) || scalar(&t));
        // `Result<T, E>` of payloads the typed view holds ([`Builder::result_payload`]).
        let result_ok = ret.as_adt().is_some_and(|adt| self.is_core_adt(adt, "Result")) && {
            let mut args = ret.type_arguments();
            matches!((args.next(), args.next()), (Some(ok), Some(err))
                if self.result_payload(&ok).is_some() && self.result_payload(&err).is_some())
        };
        let ret_ok = ret.is_unit()
            || result_ok
            || scalar(&ret)
            || self.is_string(&ret)
            || option_of(&scalar)
            || option_of(&host_ref)
            || option_of(&|t| self.is_string(t))
            // `Option<S>` of a host struct or enum by value: moved into a box the `Option` owns.
            || option_of(&|t| matches!(self.owned_struct(t), Some(Ty::Struct(_))))
            || vec_of_refs
            || matches!(self.result_payload(&ret), Some(Ty::Struct(_)));
        let params_ok = f.params_without_self(self.db).iter().all(|p| param(p.ty()));
        (params_ok && ret_ok).then_some(())
    }

    /// `Vec::with_capacity(n)`, `String::with_capacity(n)`: `n` evaluated, then `empty`. The capacity is a hint
    /// the JIT does not reserve (the buffer grows as pushes need it, which nothing in the subset can tell apart),
    /// so it must be one std reserves without fault: the length of something that exists (`v.len()`), not any
    /// number (`usize::MAX` panics with "capacity overflow"; a huge one runs out of memory).
    pub(super) fn with_capacity(&mut self, capacity: &ast::Expr, empty: TExpr) -> Result<TExpr> {
        let a_length = matches!(capacity, ast::Expr::MethodCallExpr(m)
            if m.name_ref().is_some_and(|n| n.text() == "len") && m.arg_list().is_some_and(|l| l.args().next().is_none()));
        if !a_length {
            return self.unsupported("a capacity other than a length", capacity.syntax());
        }
        let capacity = self.expr(capacity)?;
        let (ty, range) = (empty.ty.clone(), empty.range.clone());
        let block = TBlock {
            stmts: vec![TStmt::Expr(capacity)],
            tail: Some(Box::new(empty)),
            ty: Some(ty.clone()),
            label: None,
        };
        Ok(TExpr { kind: TKind::Block(block), ty, range })
    }

    pub(super) fn declare_fn(&mut self, f: &ast::Fn) -> Result<()> {
        let Some(def) = self.sema.to_def(f) else { return self.unsupported("an unresolved function", f.syntax()) };
        // (A macro's function is declared with the block around its call, and again with the expansion's.)
        if self.fn_ids.contains_key(&def) {
            return Ok(());
        }
        // Lifetime parameters only constrain borrows, which rustc checks (`references`); types and consts would need
        // an instance per use.
        let generic = f
            .generic_param_list()
            .is_some_and(|l| l.generic_params().any(|p| !matches!(p, ast::GenericParam::LifetimeParam(_))));
        if f.generic_param_list().is_some() {
            self.borrows("a function with lifetime parameters", f.syntax());
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
        // A method of the snippet's impl: `self` is its first parameter.
        if let Some(self_param) = f.param_list().and_then(|l| l.self_param()) {
            params.push(self.self_param_local(&self_param)?);
        }
        for param in f.param_list().into_iter().flat_map(|l| l.params()) {
            let Some(ast::Pat::IdentPat(pat)) = param.pat() else {
                return self.unsupported("a parameter pattern other than a name", param.syntax());
            };
            let local = self.declare_local(&pat)?;
            self.locals[local].fixed_type = true;
            params.push(local);
            self.note_reference_local(&pat);
        }
        // A returned reference: whether its lifetime works out is rustc's check.
        if self.holds_reference(&def.ret_type(self.db)) {
            self.borrows("a function that returns a reference", f.syntax());
        }
        let ret = self.ty(&def.ret_type(self.db), f.syntax())?;
        let Some(body) = f.body() else { return self.unsupported("a function without a body", f.syntax()) };
        let body = self.block(&body)?;
        let name = f.name().map(|n| n.text().to_string()).unwrap_or_default();
        self.fns[id] = Some(TFn { name, params, ret, body });
        Ok(())
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A call: a snippet function, a host function, a constructor, a conversion.
    pub(super) fn call_expr(
        &mut self,
        expr: &ast::Expr,
        c: &ast::CallExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let Some(ast::Expr::PathExpr(callee)) = c.expr() else {
                return self.unsupported("a call of something other than a function", expr.syntax());
            };
            let resolution = callee.path().and_then(|p| self.sema.resolve_path(&p));
            // A closure kept in a local: its body, with its parameters bound to the arguments.
            if let Some(PathResolution::Local(local)) = &resolution {
                if let Some(closure) = self.closure_locals.get(local).cloned() {
                    let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                    if args.len() != closure.params.len() {
                        return self.unsupported("a closure called with the wrong number of arguments", expr.syntax());
                    }
                    let mut stmts = Vec::new();
                    for (pat, arg) in closure.params.into_iter().zip(&args) {
                        let init = self.expr(arg)?;
                        stmts.push(match pat {
                            TPat::Bind(local) => TStmt::Let { local, init: Some(init) },
                            pat => TStmt::LetPat { pat, init, otherwise: None },
                        });
                    }
                    let block_ty = Some(closure.body.ty.clone());
                    let block = TBlock { stmts, tail: Some(closure.body), ty: block_ty, label: None };
                    return Ok(TExpr { kind: TKind::Block(block), ty, range });
                }
            }
            if let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = resolution {
                let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                if let (Some(true), [value]) = (self.option_variant(v), args.as_slice()) {
                    return Ok(TExpr { kind: TKind::Some(Box::new(self.expr(value)?)), ty, range });
                }
                if let (Some(ok), [value], Ty::Result(..)) = (self.result_variant(v), args.as_slice(), &ty) {
                    return self.result_of(ok, value, ty, range);
                }
                return self.unsupported("a variant of a type other than `Option` or `Result`", expr.syntax());
            }
            let resolved = match resolution {
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) => Some(f),
                _ => None,
            };
            let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
            if let Some(f) = resolved {
                if let Some(kind) = self.string_constructor(f, &args, &ty)? {
                    return Ok(TExpr { kind, ty, range });
                }
            }
            if let (Some(f), Ty::Vec(_)) = (resolved, &ty) {
                // `Vec::new()`, `Vec::with_capacity(n)`.
                let in_alloc =
                    f.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc");
                let constructor = in_alloc && f.as_assoc_item(self.db).is_some();
                match (f.name(self.db).as_str(), args.as_slice()) {
                    ("new", []) if constructor => return Ok(TExpr { kind: TKind::VecLit(Vec::new()), ty, range }),
                    ("with_capacity", [capacity]) if constructor => {
                        let empty = TExpr { kind: TKind::VecLit(Vec::new()), ty: ty.clone(), range: range.clone() };
                        return self.with_capacity(capacity, empty);
                    }
                    _ => {}
                }
            }
            if let (Some(f), [value]) = (resolved, args.as_slice()) {
                // `i64::from(x)`.
                if let Some(cast) = self.conversion(f, value, ty.clone(), range.clone())? {
                    return Ok(cast);
                }
            }
            if let (Some(f), [a, b]) = (resolved, args.as_slice()) {
                // `std::cmp::max(a, b)` / `min`: what `a.max(b)` is.
                let name = f.name(self.db).as_str().to_owned();
                let in_cmp = f.module(self.db).name(self.db).is_some_and(|m| m.as_str() == "cmp")
                    && f.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
                    && f.as_assoc_item(self.db).is_none();
                let method = match name.as_str() {
                    "max" => Some(ScalarMethod::Max),
                    "min" => Some(ScalarMethod::Min),
                    _ => None,
                };
                if let (true, Some(method)) = (in_cmp, method) {
                    let receiver = Box::new(self.expr(a)?);
                    let args = vec![self.expr(b)?];
                    let kind = TKind::Method { name: Method::Scalar(method), receiver, args };
                    return Ok(TExpr { kind, ty, range });
                }
            }
            let Some(function) = resolved.and_then(|f| self.fn_ids.get(&f).copied()) else {
                if let Some((name, symbol)) = resolved.and_then(|f| self.host_scalar_fn(f)) {
                    let args = self.host_args(&args, expr.syntax())?;
                    self.note_borrowed_result(resolved, expr.syntax());
                    let kind = TKind::HostCall { name, symbol, receiver: None, args };
                    return Ok(TExpr { kind, ty, range });
                }
                // `Type::method(&mut value, ..)`.
                if let Some((adt, ty_name, mutable)) = resolved.and_then(|f| self.host_scalar_method(f)) {
                    if let Some((first, rest)) = args.split_first() {
                        if let Some(receiver) = self.self_arg(first, adt, mutable) {
                            let name = resolved.map(|f| f.name(self.db).as_str().to_owned()).unwrap_or_default();
                            let args = self.host_args(rest, expr.syntax())?;
                            let symbol = lacuna_ir::shim_symbol(Some(&ty_name), &name);
                            self.note_borrowed_result(resolved, expr.syntax());
                            let receiver = Some(Receiver::Binding(receiver));
                            let kind = TKind::HostCall { name, symbol, receiver, args };
                            return Ok(TExpr { kind, ty, range });
                        }
                    }
                }
                // `notify(&line)` of a host closure the hole sees (`&dyn Fn(&str) -> String`, a closure).
                if let Some(call) = self.host_closure_call(&ast::Expr::PathExpr(callee.clone()), &args, &ty, expr)? {
                    return Ok(TExpr { kind: call, ty, range });
                }
                if let Some(kind) = self.mem_replace(c, &args)? {
                    return Ok(TExpr { kind, ty, range });
                }
                let called = format!("a call of a function not declared in the snippet (`{}`)", callee.syntax().text());
                return self.unsupported(&called, expr.syntax());
            };
            let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
            TKind::Call { function, args }
        };
        Ok(TExpr { kind, ty, range })
    }

    /// A method call the families before did not take.
    pub(super) fn method_call(
        &mut self,
        expr: &ast::Expr,
        m: &ast::MethodCallExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        // `x.f.len()` of a host map field.
        if m.name_ref().is_some_and(|n| n.text() == "len") {
            if let Some(len) = self.map_view(expr)? {
                return Ok(len);
            }
        }
        // `m.len()`, `m.get(k)`, .. of a map binding (its `keys()` and `values()` are iterator sources).
        if let Some(view) = self.binding_map_view(expr, false)? {
            return Ok(view);
        }
        // `write!(s, ..).unwrap()` of a `String`.
        if let Some(push) = self.write_to_string(m)? {
            return Ok(TExpr { kind: push, ty, range });
        }
        let kind = {
            let Some(f) = self.sema.resolve_method_call(m) else {
                return self.unsupported("a method", expr.syntax());
            };
            let name = f.name(self.db).as_str().to_owned();
            let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
            if let (true, Some(receiver)) = (no_args, m.receiver()) {
                // `x.into()`.
                if let Some(cast) = self.conversion(f, &receiver, ty.clone(), range.clone())? {
                    return Ok(cast);
                }
            }
            if let Some(e) = self.option_method(m, f, &ty, &range)? {
                return Ok(e);
            }
            // A method of the snippet's own impl.
            if let Some(call) = self.snippet_method_call(m, f, &ty, &range)? {
                return Ok(call);
            }
            // `x.is::<T>()`, `x.downcast_ref::<T>()` of a host `Box<dyn Any>`.
            if let Some(call) = self.any_view_call(m, f, &ty, &range)? {
                return Ok(call);
            }
            // `s.area()` of a host trait's method on a `Box<dyn Trait>`.
            if let Some(call) = self.trait_object_call(m, f, &ty, &range)? {
                return Ok(call);
            }
            // A method of the host's own type, on a hole binding or (`&self`) on a struct read in place.
            if let (Some((adt, ty_name, mutable)), Some(receiver)) = (self.host_scalar_method(f), m.receiver()) {
                let receiver = match self.self_arg(&receiver, adt, mutable) {
                    Some(receiver) => Some(Receiver::Binding(receiver)),
                    None if !mutable => self.self_in_place(&receiver, adt)?.map(Receiver::InPlace),
                    None => None,
                };
                if let Some(receiver) = receiver {
                    let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
                    let args = self.host_args(&args, m.syntax())?;
                    let symbol = lacuna_ir::shim_symbol(Some(&ty_name), &name);
                    self.note_borrowed_result(Some(f), m.syntax());
                    let kind = TKind::HostCall { name, symbol, receiver: Some(receiver), args };
                    // A panic inside is placed, as rustc's debug info places the call, at the method's name.
                    let start = m.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
            }
            // Inherent methods of the primitive types (not the host's), and `Ord::max`/`min` (integers have no
            // inherent ones).
            let inherent_primitive = match f.as_assoc_item(self.db).map(|a| a.container(self.db)) {
                Some(ra_ap_hir::AssocItemContainer::Impl(imp)) => {
                    imp.trait_(self.db).is_none() && imp.self_ty(self.db).as_builtin().is_some()
                }
                _ => false,
            };
            let ord = (name == "max" || name == "min") && self.core_trait_of(f).as_deref() == Some("Ord");
            let known = ScalarMethod::from_name(&name)
                .map(Method::Scalar)
                .or_else(|| CharMethod::from_name(&name).map(Method::Char));
            let Some(method) = known.filter(|_| inherent_primitive || ord) else {
                return self.unsupported(&format!("a method outside the subset (`{name}`)"), expr.syntax());
            };
            let Some(receiver) = m.receiver() else { return self.unsupported("a method", expr.syntax()) };
            let receiver = Box::new(self.expr(&receiver)?);
            let mut args = Vec::new();
            for a in m.arg_list().into_iter().flat_map(|l| l.args()) {
                args.push(self.expr(&a)?);
            }
            TKind::Method { name: method, receiver, args }
        };
        Ok(TExpr { kind, ty, range })
    }
}
