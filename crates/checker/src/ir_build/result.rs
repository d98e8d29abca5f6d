//! `Result`s ([`Ty::Result`]) host functions and the snippet's own functions return: the methods a snippet consumes
//! one with, read as the `match` each means (`match` and `if let` on one are the general forms, with `Ok`/`Err`
//! patterns); `Ok(v)` and `Err(e)` the snippet makes; and `?` inside the snippet's functions, the `match` that
//! returns the error.

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use crate::ir_build::{text_from_a_literal, Builder, Result};
use lacuna_ir::{Arm, Lit, LocalRef, Scalar, TBlock, TExpr, TKind, TLocal, TPat, Ty};
use std::ops::Range;

/// How a consuming method ends a `Result` (after an optional `map(|x| ..)` of its `Ok` value).
enum Then {
    /// `unwrap()` / `expect(message)`: the `Ok` value, or a panic with std's message and the error.
    Unwrap(String),
    /// `unwrap_err()` / `expect_err(message)`: the error, or a panic with std's message and the `Ok` value.
    UnwrapErr(String),
    IsOk(bool),
    /// `unwrap_or(default)`, `unwrap_or_default()`: the default is read only for an `Err`.
    Or(ast::Expr),
    OrDefault,
    /// `unwrap_or_else(|e| ..)`.
    OrElse(ast::Expr),
    /// `ok()` (true) / `err()`: an `Option` of the payload.
    Option(bool),
    /// `map_err(|e| ..)`: the same `Ok`, or `Err` of the closure's value.
    MapErr(ast::Expr),
    /// `and_then(|x| ..)`: the closure's `Result`, or the same `Err`.
    Chain(ast::Expr),
    /// `map(|x| ..)` as a value of its own: `Ok` of the closure's value, or the same `Err`.
    Map(ast::Expr),
    /// `ok().map(|x| ..)` (true) / `err().map(|e| ..)`: `Some` of the closure's value over the payload kept, or
    /// `None`.
    OptionMap(bool, ast::Expr),
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `m`'s receiver, name and arguments, when `m` calls a method of `core` (`Result`'s, `Option`'s).
    fn core_method(&self, m: &ast::MethodCallExpr) -> Option<(ast::Expr, ast::NameRef, Vec<ast::Expr>)> {
        let (receiver, name) = (m.receiver()?, m.name_ref()?);
        let f = self.sema.resolve_method_call(m)?;
        (self.fn_crate(f).as_deref() == Some("core")).then_some(())?;
        let args = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        Some((receiver, name, args))
    }

    /// `r.unwrap()`, `r.expect("..")`, `r.is_ok()`, `r.is_err()`, `r.unwrap_or(d)`, `r.unwrap_or_default()`,
    /// `r.unwrap_or_else(|e| ..)`, `r.ok()`, `r.err()`, the first three `or` forms after `r.map(|x| ..)`,
    /// `r.map_err(..)`, `r.and_then(..)` and `r.map(..)` of a `Result`: a `match` on it. (`unwrap` and `expect`
    /// only of a host function's, whose shim panics with the error.)
    pub(super) fn result_method(
        &mut self,
        m: &ast::MethodCallExpr,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let Some((receiver, name, args)) = self.core_method(m) else { return Ok(None) };
        let text = name.text().to_string();
        let then = match (text.as_str(), args.as_slice()) {
            ("unwrap", []) => Then::Unwrap("called `Result::unwrap()` on an `Err` value".to_owned()),
            ("expect", [ast::Expr::Literal(lit)]) => {
                let tokens = lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                let Some(message) = Self::plain_message(tokens) else { return Ok(None) };
                Then::Unwrap(message)
            }
            ("unwrap_err", []) => Then::UnwrapErr("called `Result::unwrap_err()` on an `Ok` value".to_owned()),
            ("expect_err", [ast::Expr::Literal(lit)]) => {
                let tokens = lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                let Some(message) = Self::plain_message(tokens) else { return Ok(None) };
                Then::UnwrapErr(message)
            }
            ("is_ok", []) => Then::IsOk(true),
            ("is_err", []) => Then::IsOk(false),
            ("unwrap_or", [d]) => Then::Or(d.clone()),
            ("unwrap_or_default", []) => Then::OrDefault,
            ("unwrap_or_else", [c]) => Then::OrElse(c.clone()),
            ("ok", []) => Then::Option(true),
            ("err", []) => Then::Option(false),
            ("map_err", [c]) => Then::MapErr(c.clone()),
            ("and_then", [c]) => Then::Chain(c.clone()),
            ("map", [c]) => Then::Map(c.clone()),
            _ => return Ok(None),
        };
        // `r.ok().map(|x| body)` (`r.err()..`): the `Option` between the two owns what `r` held (a host struct, or
        // anything else), given to the closure. `r.map(|x| body).ok()` is the same: the closure runs exactly when
        // there is a payload kept, and what is not kept is dropped before anything else runs.
        let (receiver, then) = match (then, &receiver) {
            (Then::Map(closure), ast::Expr::MethodCallExpr(inner)) => match self.core_method(inner) {
                Some((r, kept, kept_args)) if kept_args.is_empty() && matches!(kept.text(), "ok" | "err") => {
                    (r, Then::OptionMap(kept.text() == "ok", closure))
                }
                _ => (receiver, Then::Map(closure)),
            },
            (then, _) => (receiver, then),
        };
        // `r.map(|x| body)` before an `or` form: `Ok(x)` gives `body`.
        let (source, map) = match &receiver {
            ast::Expr::MethodCallExpr(inner)
                if matches!(then, Then::Or(_) | Then::OrDefault | Then::OrElse(_))
                    && inner.name_ref().is_some_and(|n| n.text() == "map")
                    && self
                        .sema
                        .resolve_method_call(inner)
                        .is_some_and(|f| self.fn_crate(f).as_deref() == Some("core")) =>
            {
                let inner_args: Vec<ast::Expr> = inner.arg_list().into_iter().flat_map(|l| l.args()).collect();
                match (inner.receiver(), inner_args.as_slice()) {
                    (Some(r), [closure]) => (r, Some(closure.clone())),
                    _ => return Ok(None),
                }
            }
            other => (other.clone(), None),
        };
        let Ok(result_ty @ Ty::Result(..)) = self.expr_type(&source) else { return Ok(None) };
        let Ty::Result(ok, err) = &result_ty else { unreachable!("matched above") };
        let (ok, err) = ((**ok).clone(), (**err).clone());
        let scrutinee = self.expr(&source)?;
        // The host's call that makes it, whose panic shim an `unwrap` needs; any other `Result` takes the other
        // methods.
        let symbol = match &scrutinee.kind {
            TKind::HostCall { symbol, .. } => Some(symbol.clone()),
            _ if !matches!(then, Then::Unwrap(_) | Then::UnwrapErr(_)) => None,
            _ => return self.unsupported("a `Result` not made by a host function's call", source.syntax()),
        };
        // Placed, as std's `#[track_caller]` panics are, at the method's name.
        let at_name = self.range(name.syntax()).start;
        let lit = |kind: Lit, ty: Ty| TExpr { kind: TKind::Lit(kind), ty, range: range.clone() };
        // The `Ok` arm: its value, or the mapped body over it.
        let ok_arm = |this: &mut Self| -> Result<Arm> {
            if let Some(closure) = &map {
                let (param, body) = this.closure(closure)?;
                return Ok(Arm { pat: TPat::Ok(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body });
            }
            let (local, value) = this.hidden(&ok, "ok", range);
            Ok(Arm { pat: TPat::Ok(Box::new(TPat::Bind(local))), guard: None, body: value })
        };
        let and_then = matches!(then, Then::Chain(_));
        let arms = match then {
            Then::Unwrap(message) => {
                let ok_arm = ok_arm(self)?;
                let (local, value) = self.hidden(&err, "err", range);
                let never = Ty::Scalar(Scalar::Never);
                let Some(symbol) = symbol else { return self.unsupported("an `unwrap` of this `Result`", m.syntax()) };
                let kind = TKind::UnwrapFailed {
                    symbol: lacuna_ir::unwrap_failed_symbol(&symbol),
                    message,
                    payload: Box::new(value),
                    at: at_name,
                };
                let fail = TExpr { kind, ty: never, range: at_name..range.end };
                vec![ok_arm, Arm { pat: TPat::Err(Box::new(TPat::Bind(local))), guard: None, body: fail }]
            }
            Then::UnwrapErr(message) => {
                // The host exports the shim only for an `Ok` value that is surely `Debug`.
                if map.is_some() || !matches!(ok, Ty::Scalar(_) | Ty::String) {
                    return self.unsupported("an `unwrap_err` of this `Result`", m.syntax());
                }
                let (err_local, err_value) = self.hidden(&err, "err", range);
                let (ok_local, ok_value) = self.hidden(&ok, "ok", range);
                let Some(symbol) = symbol else {
                    return self.unsupported("an `unwrap_err` of this `Result`", m.syntax());
                };
                let kind = TKind::UnwrapFailed {
                    symbol: lacuna_ir::unwrap_err_failed_symbol(&symbol),
                    message,
                    payload: Box::new(ok_value),
                    at: at_name,
                };
                let fail = TExpr { kind, ty: Ty::Scalar(Scalar::Never), range: at_name..range.end };
                vec![
                    Arm { pat: TPat::Ok(Box::new(TPat::Bind(ok_local))), guard: None, body: fail },
                    Arm { pat: TPat::Err(Box::new(TPat::Bind(err_local))), guard: None, body: err_value },
                ]
            }
            Then::IsOk(ok) => {
                let bool_ty = Ty::Scalar(Scalar::Bool);
                vec![
                    Arm { pat: TPat::Ok(Box::new(TPat::Wild)), guard: None, body: lit(Lit::Bool(ok), bool_ty.clone()) },
                    Arm { pat: TPat::Wild, guard: None, body: lit(Lit::Bool(!ok), bool_ty) },
                ]
            }
            Then::Or(d) => {
                let ok_arm = ok_arm(self)?;
                let default = self.expr(&d)?;
                // Rust evaluates the default first; reading it only for an `Err` is the same when reading it
                // neither faults nor has an effect.
                let pure = matches!(default.kind, TKind::Lit(_) | TKind::Local(_))
                    || matches!(&default.kind, TKind::Unary(_, x) if matches!(x.kind, TKind::Lit(_)))
                    || text_from_a_literal(&default);
                if !pure {
                    return self.unsupported("an `unwrap_or` default other than a literal or a local", d.syntax());
                }
                vec![ok_arm, Arm { pat: TPat::Wild, guard: None, body: default }]
            }
            Then::OrDefault => {
                let ok_arm = ok_arm(self)?;
                let default = match ty {
                    Ty::Scalar(s) if s.is_int() => lit(Lit::Int(0), ty.clone()),
                    Ty::Scalar(s) if s.is_float() => lit(Lit::Float(0.0), ty.clone()),
                    Ty::Scalar(Scalar::Bool) => lit(Lit::Bool(false), ty.clone()),
                    Ty::Scalar(Scalar::Char) => lit(Lit::Char('\0'), ty.clone()),
                    Ty::Scalar(Scalar::Unit) => lit(Lit::Unit, ty.clone()),
                    Ty::String => TExpr { kind: TKind::Format(Vec::new()), ty: Ty::String, range: range.clone() },
                    Ty::Vec(_) => TExpr { kind: TKind::VecLit(Vec::new()), ty: ty.clone(), range: range.clone() },
                    _ => return self.unsupported("`unwrap_or_default` of this type", m.syntax()),
                };
                vec![ok_arm, Arm { pat: TPat::Wild, guard: None, body: default }]
            }
            Then::OrElse(closure) => {
                let ok_arm = ok_arm(self)?;
                let (param, body) = self.closure(&closure)?;
                vec![ok_arm, Arm { pat: TPat::Err(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body }]
            }
            Then::Option(of_ok) => {
                let (payload, pat): (Ty, fn(Box<TPat>) -> TPat) =
                    if of_ok { (ok.clone(), TPat::Ok) } else { (err.clone(), TPat::Err) };
                if *ty != Ty::Option(Box::new(payload.clone())) {
                    return self.unsupported("an `Option` of this payload", m.syntax());
                }
                let (local, value) = self.hidden(&payload, if of_ok { "ok" } else { "err" }, range);
                let some = TExpr { kind: TKind::Some(Box::new(value)), ty: ty.clone(), range: range.clone() };
                let none = TExpr { kind: TKind::None, ty: ty.clone(), range: range.clone() };
                vec![
                    Arm { pat: pat(Box::new(TPat::Bind(local))), guard: None, body: some },
                    Arm { pat: TPat::Wild, guard: None, body: none },
                ]
            }
            Then::OptionMap(of_ok, closure) => {
                let (param, body) = self.closure(&closure)?;
                if *ty != Ty::Option(Box::new(body.ty.clone())) {
                    return self.unsupported("a `map` closure of this type", closure.syntax());
                }
                let param = Box::new(param.unwrap_or(TPat::Wild));
                let kept = if of_ok { TPat::Ok(param) } else { TPat::Err(param) };
                let some = TExpr { kind: TKind::Some(Box::new(body)), ty: ty.clone(), range: range.clone() };
                let none = TExpr { kind: TKind::None, ty: ty.clone(), range: range.clone() };
                vec![Arm { pat: kept, guard: None, body: some }, Arm { pat: TPat::Wild, guard: None, body: none }]
            }
            Then::MapErr(closure) => {
                let Ty::Result(_, new_err) = ty else {
                    return self.unsupported("a `map_err` of this type", m.syntax());
                };
                let (param, body) = self.closure(&closure)?;
                if body.ty != **new_err {
                    return self.unsupported("a `map_err` closure of this type", closure.syntax());
                }
                let (local, value) = self.hidden(&ok, "ok", range);
                let same = result_value(true, value, ty, range);
                let mapped = result_value(false, body, ty, range);
                vec![
                    Arm { pat: TPat::Ok(Box::new(TPat::Bind(local))), guard: None, body: same },
                    Arm { pat: TPat::Err(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body: mapped },
                ]
            }
            Then::Chain(closure) | Then::Map(closure) => {
                let Ty::Result(new_ok, new_err) = ty else {
                    return self.unsupported("a `Result` method of this type", m.syntax());
                };
                let (param, body) = self.closure(&closure)?;
                let fits = if and_then { body.ty == *ty } else { body.ty == **new_ok };
                if !fits || **new_err != err {
                    return self.unsupported("a closure of this type", closure.syntax());
                }
                let body = if and_then { body } else { result_value(true, body, ty, range) };
                let (local, value) = self.hidden(&err, "err", range);
                let same = result_value(false, value, ty, range);
                vec![
                    Arm { pat: TPat::Ok(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body },
                    Arm { pat: TPat::Err(Box::new(TPat::Bind(local))), guard: None, body: same },
                ]
            }
        };
        let kind = TKind::Match { scrutinee: Box::new(scrutinee), arms };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }))
    }

    /// `o.ok_or_else(|| e)` of an `Option`: `match o { Some(v) => Ok(v), None => Err(e) }`, the error made only
    /// for a `None`, as std makes it.
    pub(super) fn option_ok_or_else(
        &mut self,
        m: &ast::MethodCallExpr,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let Some((receiver, name, args)) = self.core_method(m) else { return Ok(None) };
        let ("ok_or_else", [closure]) = (name.text(), args.as_slice()) else { return Ok(None) };
        let Ty::Result(ok, err) = ty else { return Ok(None) };
        if !matches!(self.expr_type(&receiver), Ok(Ty::Option(p)) if p == *ok) {
            return Ok(None);
        }
        let scrutinee = self.expr(&receiver)?;
        let (param, body) = self.closure(closure)?;
        if param.is_some() || body.ty != **err {
            return self.unsupported("an `ok_or_else` closure of this type", closure.syntax());
        }
        let (local, value) = self.hidden(ok, "some", range);
        let arms = vec![
            Arm {
                pat: TPat::Some(Box::new(TPat::Bind(local))),
                guard: None,
                body: result_value(true, value, ty, range),
            },
            Arm { pat: TPat::None, guard: None, body: result_value(false, body, ty, range) },
        ];
        Ok(Some(TExpr {
            kind: TKind::Match { scrutinee: Box::new(scrutinee), arms },
            ty: ty.clone(),
            range: range.clone(),
        }))
    }

    /// `Ok(value)` / `Err(value)` of `ty`, a `Result` the typed view holds, its payload of the variant's type.
    pub(super) fn result_of(&mut self, ok: bool, value: &ast::Expr, ty: Ty, range: Range<usize>) -> Result<TExpr> {
        let Ty::Result(ok_ty, err_ty) = &ty else { return self.unsupported("a `Result` of this type", value.syntax()) };
        let payload = self.expr(value)?;
        if payload.ty != if ok { &**ok_ty } else { &**err_ty }.clone() {
            return self.unsupported("a `Result` payload of this type", value.syntax());
        }
        Ok(result_value(ok, payload, &ty, &range))
    }

    /// `r?` inside a function the snippet declares that returns a `Result` with the same error type: `match r
    /// { Ok(v) => v, Err(e) => return Err(e) }` (`From::from` of a type into itself is the value); `o?` of an
    /// `Option` in one that returns an `Option`. Inside a closure written in place, the same with the closure's
    /// type, leaving the closure's body (a labelled block, [`Builder::try_closure_body`]) instead of the function.
    /// Elsewhere — the snippet's own body, or where the error types differ and a conversion would run — it is not
    /// the subset's, nor where a value the `?` would leave behind undropped was made before it.
    pub(super) fn try_expr(&mut self, t: &ast::TryExpr, ty: Ty, range: Range<usize>) -> Result<TExpr> {
        let Some(operand) = t.expr() else { return self.unsupported("`?`", t.syntax()) };
        let outside = |b: &Self| b.unsupported("`?` outside a function or closure of the snippet", t.syntax());
        let (fn_ret, leaves) = match Self::try_owner(t.syntax()) {
            Some(TryOwner::Closure(c)) => {
                if !self.try_closures.contains(&c) {
                    return outside(self);
                }
                let Some(body) = c.body() else { return outside(self) };
                self.owned_before_try(t.syntax(), body.syntax())?;
                (self.expr_type(&body)?, Some(Self::closure_label(&c)))
            }
            Some(TryOwner::Fn(f)) => {
                let Some(def) = self.sema.to_def(&f).filter(|def| self.fn_ids.contains_key(def)) else {
                    return outside(self);
                };
                let Some(body) = f.body() else { return outside(self) };
                self.owned_before_try(t.syntax(), body.syntax())?;
                (self.ty(&def.ret_type(self.db), f.syntax())?, None)
            }
            None => return outside(self),
        };
        // What the `?` leaves with: the function's `return`, or the closure body's `break`.
        let leave = |value: TExpr| {
            let value = Some(Box::new(value));
            match &leaves {
                Some(label) => TKind::Break { label: Some(label.clone()), value },
                None => TKind::Return(value),
            }
        };
        let scrutinee = self.expr(&operand)?;
        let never = Ty::Scalar(Scalar::Never);
        // `o?` of an `Option` in a function returning one: `match o { Some(v) => v, None => return None }`.
        if let (Ty::Option(payload), Ty::Option(_)) = (&scrutinee.ty, &fn_ret) {
            if **payload != ty {
                return self.unsupported("`?` of this `Option`", t.syntax());
            }
            let (local, value) = self.hidden(&ty, "some", &range);
            let none = TExpr { kind: TKind::None, ty: fn_ret, range: range.clone() };
            let leave = TExpr { kind: leave(none), ty: never, range: range.clone() };
            let arms = vec![
                Arm { pat: TPat::Some(Box::new(TPat::Bind(local))), guard: None, body: value },
                Arm { pat: TPat::None, guard: None, body: leave },
            ];
            return Ok(TExpr { kind: TKind::Match { scrutinee: Box::new(scrutinee), arms }, ty, range });
        }
        let (Ty::Result(ok, err), Ty::Result(_, fn_err)) = (&scrutinee.ty, &fn_ret) else {
            return self.unsupported("`?` on something other than a `Result` or `Option`", t.syntax());
        };
        if err != fn_err || **ok != ty {
            return self.unsupported("`?` that converts the error", t.syntax());
        }
        let (ok, err) = ((**ok).clone(), (**err).clone());
        let (ok_local, ok_value) = self.hidden(&ok, "ok", &range);
        let (err_local, err_value) = self.hidden(&err, "err", &range);
        let returned = result_value(false, err_value, &fn_ret, &range);
        let leave = TExpr { kind: leave(returned), ty: never, range: range.clone() };
        let arms = vec![
            Arm { pat: TPat::Ok(Box::new(TPat::Bind(ok_local))), guard: None, body: ok_value },
            Arm { pat: TPat::Err(Box::new(TPat::Bind(err_local))), guard: None, body: leave },
        ];
        Ok(TExpr { kind: TKind::Match { scrutinee: Box::new(scrutinee), arms }, ty, range })
    }

    /// The function or closure a `?` at `node` leaves: the nearest one around it.
    fn try_owner(node: &ra_ap_syntax::SyntaxNode) -> Option<TryOwner> {
        node.ancestors().find_map(|n| match ast::ClosureExpr::cast(n.clone()) {
            Some(c) => Some(Some(TryOwner::Closure(c))),
            None => ast::Fn::cast(n).map(|f| Some(TryOwner::Fn(f))),
        })?
    }

    /// `filter_map(|x| tool(x).ok())` followed by `map(|o| f(o))` (`fm` the first closure, `next` the call after
    /// it), where the `Result` holds a host struct or enum by value, which no `Option` of the subset's owns: one
    /// `filter_map` whose closure matches the `Result`, `Ok(o) => Some(f(o))` and `Err(_) => None` (`err()`: the
    /// other way round). Item by item it does what the two closures do: the tool is called, a failure is dropped
    /// where `ok()` drops it, and the order found is moved into `f`, what `f` leaves of it dropped where its arm
    /// ends as where its closure ends. `None` where the chain is not of this form.
    pub(super) fn ok_then_map(
        &mut self,
        fm: &ast::Expr,
        next: Option<&ast::MethodCallExpr>,
    ) -> Result<Option<lacuna_ir::Closure>> {
        let ast::Expr::ClosureExpr(c) = fm else { return Ok(None) };
        let Some(ast::Expr::MethodCallExpr(ok_call)) = c.body() else { return Ok(None) };
        let Some((result, name, args)) = self.core_method(&ok_call) else { return Ok(None) };
        let keeps_ok = match (name.text().to_string().as_str(), args.as_slice()) {
            ("ok", []) => true,
            ("err", []) => false,
            _ => return Ok(None),
        };
        let Some(result_ty) = self.sema.type_of_expr(&result).map(|t| t.original) else { return Ok(None) };
        if !result_ty.as_adt().is_some_and(|a| self.is_core_adt(a, "Result")) {
            return Ok(None);
        }
        let mut payloads = result_ty.type_arguments();
        let (Some(ok_ty), Some(err_ty)) = (payloads.next(), payloads.next()) else { return Ok(None) };
        let kept = if keeps_ok { &ok_ty } else { &err_ty };
        if self.host_type(kept).is_none() {
            return Ok(None);
        }
        let Some(next) = next.filter(|n| n.name_ref().is_some_and(|n| n.text() == "map")) else { return Ok(None) };
        let map_args: Vec<ast::Expr> = next.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let [map_closure @ ast::Expr::ClosureExpr(mc)] = map_args.as_slice() else { return Ok(None) };
        if Self::tries_in(c) || Self::tries_in(mc) {
            return Ok(None);
        }
        // Two closures borrow what each captures for as long as the chain lives; the one closure here borrows
        // both at once only item by item. What rustc's borrow check says of the two is its own to say.
        let what = format!("`{}()` inside `filter_map` read with the `map` after it", name.text());
        self.rustc_decides(&what, ok_call.syntax());
        let (params, _) = self.closure_parts(fm, Some(1))?;
        let (scrutinee, parsed) = self.scrutinee(&result)?;
        if parsed {
            // A `parse` result is read as an `Option` (`Builder::scrutinee`), which `Ok`/`Err` patterns do not fit.
            return self.unsupported("`parse` of a host type inside `filter_map`", result.syntax());
        }
        let (map_params, map_body) = self.closure_parts(map_closure, Some(1))?;
        let Some(bound) = map_params.into_iter().next() else {
            return self.unsupported("a `map` closure", next.syntax());
        };
        let body = self.expr(&map_body)?;
        let ty = Ty::Option(Box::new(body.ty.clone()));
        let (body_range, ok_range) = (body.range.clone(), self.range(ok_call.syntax()));
        let some = TExpr { kind: TKind::Some(Box::new(body)), ty: ty.clone(), range: body_range };
        let none = TExpr { kind: TKind::None, ty: ty.clone(), range: ok_range.clone() };
        let (taken, other) = if keeps_ok {
            (TPat::Ok(Box::new(bound)), TPat::Err(Box::new(TPat::Wild)))
        } else {
            (TPat::Err(Box::new(bound)), TPat::Ok(Box::new(TPat::Wild)))
        };
        let arms = vec![Arm { pat: taken, guard: None, body: some }, Arm { pat: other, guard: None, body: none }];
        let matched = TExpr { kind: TKind::Match { scrutinee: Box::new(scrutinee), arms }, ty, range: ok_range };
        Ok(Some(lacuna_ir::Closure { params, body: Box::new(matched) }))
    }

    /// Whether a `?` or a `return` in `c` leaves `c` (and not a closure or function inside it).
    pub(super) fn tries_in(c: &ast::ClosureExpr) -> bool {
        c.syntax()
            .descendants()
            .filter(|n| ast::TryExpr::can_cast(n.kind()) || ast::ReturnExpr::can_cast(n.kind()))
            .any(|n| matches!(Self::try_owner(&n), Some(TryOwner::Closure(owner)) if owner == *c))
    }

    /// `return value` (at `r`): out of the snippet's function around it, or out of the closure around it, as
    /// the `break` out of its body that a `?` there is ([`Builder::try_expr`]).
    pub(super) fn return_expr(&mut self, r: &ast::ReturnExpr) -> Result<TKind> {
        let value = match r.expr() {
            Some(v) => Some(Box::new(self.expr(&v)?)),
            None => None,
        };
        match Self::try_owner(r.syntax()) {
            Some(TryOwner::Closure(c)) => {
                if !self.try_closures.contains(&c) {
                    return self.unsupported("`return` inside a closure", r.syntax());
                }
                let Some(body) = c.body() else { return self.unsupported("`return` inside a closure", r.syntax()) };
                self.owned_before_try(r.syntax(), body.syntax())?;
                Ok(TKind::Break { label: Some(Self::closure_label(&c)), value })
            }
            _ => Ok(TKind::Return(value)),
        }
    }

    /// The label of the block a closure's body is when a `?` leaves it: not one Rust could spell, so never one the
    /// snippet wrote.
    fn closure_label(c: &ast::ClosureExpr) -> String {
        format!("'<closure at {}>", u32::from(c.syntax().text_range().start()))
    }

    /// The body of a closure a `?` leaves: a block labelled [`Builder::closure_label`], which each `?` in it breaks
    /// out of with the closure's `None` or `Err`.
    pub(super) fn try_closure_body(&mut self, c: &ast::ClosureExpr, body: &ast::Expr) -> Result<TExpr> {
        self.try_closures.push(c.clone());
        let built = self.expr(body);
        self.try_closures.pop();
        let built = built?;
        let ty = built.ty.clone();
        let range = built.range.clone();
        let block = TBlock {
            stmts: Vec::new(),
            tail: Some(Box::new(built)),
            ty: Some(ty.clone()),
            label: Some(Self::closure_label(c)),
        };
        Ok(TExpr { kind: TKind::Block(block), ty, range })
    }

    /// A `?` or a closure's `return` (at `t`, inside `body`) must not leave a value made before it undropped (`Some((s.name.clone(),
    /// avg?))`: rustc's program drops the `String` on the way out; the JIT's drops only locals). Any operand
    /// evaluated before the `?`'s own, in every expression around it up to `body`, of a type that is not `Copy` —
    /// but for the receiver of a method call that is a place (`out.push(x?)` borrows `out`) — is such a value; of
    /// a `let` condition (`if let Some(_) = f()`), its scrutinee. Earlier statements of a block around it are not
    /// operands: their locals are dropped as the block is left.
    fn owned_before_try(&self, t: &ra_ap_syntax::SyntaxNode, body: &ra_ap_syntax::SyntaxNode) -> Result<()> {
        let start = t.text_range().start();
        for parent in t.ancestors().skip(1).take_while(|p| p != body) {
            for sibling in parent.children().filter_map(ast::Expr::cast) {
                if sibling.syntax().text_range().end() > start {
                    continue;
                }
                let place_receiver = matches!(ast::MethodCallExpr::cast(parent.clone()).and_then(|m| m.receiver()),
                    Some(r) if r == sibling)
                    && matches!(sibling, ast::Expr::PathExpr(_) | ast::Expr::FieldExpr(_));
                let value = match &sibling {
                    ast::Expr::LetExpr(l) => l.expr(),
                    other => Some(other.clone()),
                };
                let copy = value.and_then(|v| self.sema.type_of_expr(&v)).is_some_and(|i| i.original.is_copy(self.db));
                if !copy && !place_receiver {
                    return self.unsupported("a `?` that would leave a value made before it undropped", t);
                }
            }
        }
        Ok(())
    }

    /// A hidden local of type `ty` (a payload a method's `match` binds), and an expression reading it.
    pub(super) fn hidden(&mut self, ty: &Ty, what: &str, range: &Range<usize>) -> (usize, TExpr) {
        let local = self.locals.len();
        self.locals.push(TLocal {
            name: format!("<{what} at {}>", range.start),
            ty: ty.clone(),
            mutable: false,
            fixed_type: true,
            array_literal: false,
        });
        (local, TExpr { kind: TKind::Local(LocalRef::Snippet(local)), ty: ty.clone(), range: range.clone() })
    }
}

/// `Ok(value)` (`ok`) or `Err(value)` as a value of `ty`, a `Result` whose payload of that variant is `value`'s type.
fn result_value(ok: bool, value: TExpr, ty: &Ty, range: &Range<usize>) -> TExpr {
    TExpr { kind: TKind::ResultOf { ok, value: Box::new(value) }, ty: ty.clone(), range: range.clone() }
}

/// What a `?` leaves ([`Builder::try_owner`]).
enum TryOwner {
    Closure(ast::ClosureExpr),
    Fn(ast::Fn),
}
