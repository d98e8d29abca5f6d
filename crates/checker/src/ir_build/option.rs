//! `Option`s, `parse` and `try_from` results, conversions between scalars, panics with fixed messages.

use ra_ap_hir::{Function, PathResolution};
use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::{AstNode, AstToken};

use crate::ir_build::{text_from_a_literal, Builder, Result};
use lacuna_ir::{
    Arm, BinOp, CheckedMethod, Closure, Lit, LocalRef, Method, OptionClosureMethod, OptionMethod, Scalar, TBlock,
    TExpr, TKind, TPat, TStmt, TextMethod, Ty,
};
use std::ops::Range;

impl<'a, 'db> Builder<'a, 'db> {
    /// The text of a single string literal with no formatting (`panic!("..")`, `expect("..")`).
    pub(super) fn plain_message(tokens: impl Iterator<Item = ra_ap_syntax::SyntaxToken>) -> Option<String> {
        let strings: Vec<_> = tokens
            .filter(|t| !t.kind().is_trivia() && !matches!(t.text(), "(" | ")" | "[" | "]" | "{" | "}"))
            .collect();
        let [token] = strings.as_slice() else { return None };
        let s = ast::String::cast(token.clone())?;
        let value = s.value().ok()?.to_string();
        (!value.contains('{') && !value.contains('}')).then_some(value)
    }

    /// `o.map(|x| body).unwrap_or_default()` (or `unwrap`, `expect("..")`, `unwrap_or(<text from a literal>)`),
    /// `o.cloned().unwrap()` of a host struct reference and `r.field.clone().unwrap_or_default()` of an
    /// `Option<String>` field, whose intermediate `Option` of a `String`, a vector or a
    /// struct the typed view cannot hold: read as `match o { Some(x) => body, None => default }`. Each default
    /// neither faults nor moves anything, so evaluating it only when `o` is `None` (where Rust evaluates the
    /// argument eagerly) changes nothing observable.
    pub(super) fn option_of_owned_unwrapped(
        &mut self,
        receiver: &ast::Expr,
        name: &str,
        args: &[ast::Expr],
        ty: &Ty,
        range: &Range<usize>,
        at_name: usize,
    ) -> Result<Option<TExpr>> {
        if !matches!(ty, Ty::String | Ty::Vec(_) | Ty::Struct(_)) {
            return Ok(None);
        }
        let ast::Expr::MethodCallExpr(inner) = receiver else { return Ok(None) };
        let Some(option) = inner.receiver() else { return Ok(None) };
        let Ok(option_ty @ Ty::Option(_)) = self.expr_type(&option) else { return Ok(None) };
        let core_method = self.sema.resolve_method_call(inner).is_some_and(|f| {
            f.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
        });
        let inner_args: Vec<ast::Expr> = inner.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let inner_name = inner.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
        if !core_method {
            return Ok(None);
        }
        // The default first: its form decides whether this applies before anything of `o` is built.
        let never = Ty::Scalar(Scalar::Never);
        let panic = |message: String| TExpr {
            kind: TKind::Panic { receiver: None, message },
            ty: never.clone(),
            range: at_name..range.end,
        };
        let default = match (name, args) {
            ("unwrap_or_default", []) => {
                let kind = match ty {
                    Ty::String => TKind::Format(Vec::new()),
                    Ty::Vec(_) => TKind::VecLit(Vec::new()),
                    _ => return Ok(None),
                };
                TExpr { kind, ty: ty.clone(), range: range.clone() }
            }
            ("unwrap", []) => panic("called `Option::unwrap()` on a `None` value".to_owned()),
            ("expect", [ast::Expr::Literal(lit)]) => {
                let tokens = lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                let Some(message) = Self::plain_message(tokens) else { return Ok(None) };
                panic(message)
            }
            ("unwrap_or", [d]) => {
                let d = self.expr(d)?;
                if !text_from_a_literal(&d) {
                    return Ok(None);
                }
                d
            }
            // Evaluated only when `o` is `None` in Rust too.
            ("unwrap_or_else", [ast::Expr::ClosureExpr(c)])
                if c.param_list().is_some_and(|l| l.params().next().is_none()) =>
            {
                let (_, body) = self.closure(&ast::Expr::ClosureExpr(c.clone()))?;
                body
            }
            _ => return Ok(None),
        };
        let (scrutinee, pat, body) = match (inner_name.as_str(), inner_args.as_slice(), &option_ty) {
            ("map", [closure], _) => {
                let scrutinee = self.expr(&option)?;
                let (param, body) = self.closure(closure)?;
                (scrutinee, param.unwrap_or(TPat::Wild), body)
            }
            // `r.field.clone()` of an `Option<String>` field: its text read in place, copied where it is `Some`.
            ("clone", [], _) if *ty == Ty::String => {
                let Some(scrutinee) = self.option_field(&option, false)? else { return Ok(None) };
                if scrutinee.ty != Ty::Option(Box::new(Ty::Str)) {
                    return Ok(None);
                }
                let Closure { mut params, body } = self.string_from_text_closure(inner.syntax());
                (scrutinee, params.pop().unwrap_or(TPat::Wild), *body)
            }
            ("cloned", [], Ty::Option(payload)) => {
                let Ty::StructRef(id) = **payload else { return Ok(None) };
                let scrutinee = self.expr(&option)?;
                let (hidden, local) = self.hidden(&Ty::StructRef(id), "cloned", range);
                let body =
                    TExpr { kind: TKind::StructClone(Box::new(local)), ty: Ty::Struct(id), range: range.clone() };
                (scrutinee, TPat::Bind(hidden), body)
            }
            _ => return Ok(None),
        };
        if body.ty != *ty {
            return Ok(None);
        }
        let arms = vec![
            Arm { pat: TPat::Some(Box::new(pat)), guard: None, body },
            // `_` rather than `None`: a last arm that catches all needs no exhaustiveness verdict from rustc.
            Arm { pat: TPat::Wild, guard: None, body: default },
        ];
        let kind = TKind::Match { scrutinee: Box::new(scrutinee), arms };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }))
    }

    /// `o` a snippet local holding an `Option` that owns a `String` or a host struct, borrowed (`&o`,
    /// `o.as_ref()`): the `Option` of its payload read in place ([`TKind::OptionRef`]). `None` for anything else.
    pub(super) fn option_ref(&mut self, o: &ast::Expr, range: Range<usize>) -> Result<Option<TExpr>> {
        // Only the name of one of the snippet's locals: anything else is not built here at all.
        let ast::Expr::PathExpr(p) = o else { return Ok(None) };
        let Some(PathResolution::Local(l)) = p.path().and_then(|p| self.sema.resolve_path(&p)) else {
            return Ok(None);
        };
        if !self.local_ids.contains_key(&l) {
            return Ok(None);
        }
        let Ok(Ty::Option(payload)) = self.expr_type(o) else { return Ok(None) };
        let viewed = match *payload {
            Ty::String => Ty::Str,
            Ty::Struct(id) => Ty::StructRef(id),
            _ => return Ok(None),
        };
        let local = self.expr(o)?;
        if !matches!(local.kind, TKind::Local(LocalRef::Snippet(_))) {
            return Ok(None);
        }
        // What the view borrows, and for how long, is rustc's borrow check.
        self.borrows("a borrow of an `Option` local", o.syntax());
        let ty = Ty::Option(Box::new(viewed));
        Ok(Some(TExpr { kind: TKind::OptionRef(Box::new(local)), ty, range }))
    }

    /// `o.map_or(default, |x| body)` and `o.map_or_else(|| default, |x| body)` of an `Option` the typed view
    /// holds: `match o { Some(x) => body, _ => default }`. `map_or`'s default is evaluated before the match in
    /// Rust, so only one that neither faults nor has effects (a literal, text from a literal, a local of a scalar
    /// or of text read in place) may be evaluated
    /// only when `o` is `None`.
    fn option_map_or(
        &mut self,
        receiver: &ast::Expr,
        name: &str,
        args: &[ast::Expr],
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let ([default, closure], "map_or" | "map_or_else") = (args, name) else { return Ok(None) };
        let Ok(Ty::Option(_)) = self.expr_type(receiver) else { return Ok(None) };
        let scrutinee = self.expr(receiver)?;
        let default = if name == "map_or" {
            let d = self.expr(default)?;
            // (Or a local holding a scalar or text read in place: reading it has no effect and moves nothing.)
            let copied_local = matches!(d.kind, TKind::Local(_)) && (d.ty.scalar().is_some() || d.ty == Ty::Str);
            if !(matches!(d.kind, TKind::Lit(_)) || text_from_a_literal(&d) || copied_local) {
                return self.unsupported("a `map_or` default other than a literal", default.syntax());
            }
            d
        } else {
            let (param, body) = self.closure(default)?;
            if param.is_some() {
                return self.unsupported("a `map_or_else` default that takes a parameter", default.syntax());
            }
            body
        };
        let (param, body) = self.closure(closure)?;
        let arms = vec![
            Arm { pat: TPat::Some(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body },
            Arm { pat: TPat::Wild, guard: None, body: default },
        ];
        let kind = TKind::Match { scrutinee: Box::new(scrutinee), arms };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }))
    }

    /// Methods of `Option<S>` and the `Option`-valued methods of scalars.
    pub(super) fn option_method(
        &mut self,
        m: &ast::MethodCallExpr,
        f: Function,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let name = f.name(self.db).as_str().to_owned();
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        // Placed, as rustc places a `#[track_caller]` method's panic, at the method's name.
        let at_name = m.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
        let in_core = |this: &Self| {
            this.sema.resolve_method_call(m).is_some_and(|f| {
                f.module(this.db).krate(this.db).display_name(this.db).is_some_and(|n| n.to_string() == "core")
            })
        };
        if !in_core(self) {
            return Ok(None);
        }
        if let Some(e) = self.option_map_or(&receiver, &name, &args, ty, range)? {
            return Ok(Some(e));
        }
        // `b.then(|| body)` of a `bool`: `if b { Some(body) } else { None }` (the closure runs only when `b`).
        if let ("then", [closure]) = (name.as_str(), args.as_slice()) {
            if self.expr_type(&receiver).ok() == Some(Ty::Scalar(Scalar::Bool)) {
                let cond = Box::new(self.expr(&receiver)?);
                let (param, body) = self.closure(closure)?;
                if param.is_some() {
                    return self.unsupported("a `then` closure that takes a parameter", closure.syntax());
                }
                let some = TExpr { kind: TKind::Some(Box::new(body)), ty: ty.clone(), range: range.clone() };
                let none = TExpr { kind: TKind::None, ty: ty.clone(), range: range.clone() };
                let then = TBlock { stmts: Vec::new(), tail: Some(Box::new(some)), ty: Some(ty.clone()), label: None };
                let kind = TKind::If { cond, then, otherwise: Some(Box::new(none)) };
                return Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }));
            }
        }
        // (Before the receiver's type: an `Option` of an owned value has none in the typed view.)
        if let Some(e) = self.option_of_owned_unwrapped(&receiver, &name, &args, ty, range, at_name)? {
            return Ok(Some(e));
        }
        // `o.as_ref()` of a local `Option` that owns its payload: read in place.
        if let ("as_ref", []) = (name.as_str(), args.as_slice()) {
            if let Some(value) = self.option_ref(&receiver, range.clone())? {
                if value.ty == *ty {
                    return Ok(Some(value));
                }
            }
        }
        // `r.field.is_some()`, `r.field.as_deref()` of an `Option` field of a host struct: borrowed, so read in place.
        if let ("is_some" | "is_none" | "as_ref" | "as_deref", []) = (name.as_str(), args.as_slice()) {
            if let Some(value) = self.option_field(&receiver, false)? {
                return Ok(Some(match name.as_str() {
                    "is_some" | "is_none" => {
                        let Some(method) = OptionMethod::from_name(&name) else { return Ok(None) };
                        let kind =
                            TKind::Method { name: Method::Option(method), receiver: Box::new(value), args: vec![] };
                        TExpr { kind, ty: ty.clone(), range: range.clone() }
                    }
                    // `Option<&String>` and `Option<&str>` of a `String` are both its text read in place.
                    _ if value.ty == *ty => TExpr { range: range.clone(), ..value },
                    _ => return Ok(None),
                }));
            }
        }
        // `r.field.clone()` of an `Option<String>` field: its text read in place, copied into a new `String` (as
        // `map(String::from)` would).
        if let ("clone", [], Ty::Option(payload)) = (name.as_str(), args.as_slice(), ty) {
            if **payload == Ty::String {
                if let Some(value) = self.option_field(&receiver, false)? {
                    if value.ty == Ty::Option(Box::new(Ty::Str)) {
                        let Closure { mut params, body } = self.string_from_text_closure(m.syntax());
                        let kind = TKind::OptionClosure {
                            method: OptionClosureMethod::Map,
                            receiver: Box::new(value),
                            param: params.pop(),
                            body,
                        };
                        return Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }));
                    }
                }
            }
        }
        let Ok(receiver_ty) = self.expr_type(&receiver) else { return Ok(None) };
        let option_method = OptionMethod::from_name(&name).filter(|m| m.arity() == args.len());
        let checked = CheckedMethod::from_name(&name).filter(|m| *m != CheckedMethod::ToDigit);
        let kind = match (&receiver_ty, name.as_str(), args.as_slice()) {
            (Ty::Option(_), _, _) if option_method.is_some() => {
                let Some(method) = option_method else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                let start = if method == OptionMethod::Unwrap { at_name } else { range.start };
                return Ok(Some(TExpr {
                    kind: TKind::Method { name: Method::Option(method), receiver, args },
                    ty: ty.clone(),
                    range: start..range.end,
                }));
            }
            // `Option<&S>` of a host type whose `Clone` is derived (so `copied` and `cloned` make the same value):
            // `match o { Some(r) => Some(r.clone()), _ => None }`, the new `Option` owning the clone.
            (Ty::Option(p), "copied" | "cloned", []) if matches!(**p, Ty::StructRef(_)) => {
                let Ty::StructRef(id) = **p else { return Ok(None) };
                if *ty != Ty::Option(Box::new(Ty::Struct(id))) {
                    return Ok(None);
                }
                let payload = self.sema.type_of_expr(&receiver).and_then(|t| t.original.type_arguments().next());
                let derived = payload
                    .and_then(|t| t.as_reference().map(|(pointee, _)| pointee))
                    .and_then(|t| t.as_adt())
                    .and_then(|adt| self.adt_node(adt))
                    .is_some_and(|node| self.derives(&node, "Clone"));
                if !derived {
                    return self.unsupported("a copy of a host type whose `Clone` is its own", m.syntax());
                }
                let scrutinee = self.expr(&receiver)?;
                let (hidden, read) = self.hidden(&Ty::StructRef(id), "cloned", range);
                let clone =
                    TExpr { kind: TKind::StructClone(Box::new(read)), ty: Ty::Struct(id), range: range.clone() };
                let some = TExpr { kind: TKind::Some(Box::new(clone)), ty: ty.clone(), range: range.clone() };
                let none = TExpr { kind: TKind::None, ty: ty.clone(), range: range.clone() };
                let arms = vec![
                    Arm { pat: TPat::Some(Box::new(TPat::Bind(hidden))), guard: None, body: some },
                    Arm { pat: TPat::Wild, guard: None, body: none },
                ];
                TKind::Match { scrutinee: Box::new(scrutinee), arms }
            }
            // `Option<&S>` of a scalar is read as `Option<S>`.
            (Ty::Option(_), "copied" | "cloned", []) if receiver_ty == *ty => {
                let mut value = self.expr(&receiver)?;
                value.range = range.clone();
                return Ok(Some(value));
            }
            (Ty::Option(_), "expect", [message]) => {
                let ast::Expr::Literal(lit) = message else { return Ok(None) };
                let Some(message) =
                    Self::plain_message(lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token()))
                else {
                    return Ok(None);
                };
                let receiver = Some(Box::new(self.expr(&receiver)?));
                TKind::Panic { receiver, message }
            }
            // `o.map(|x| body)` of an `Option` that owns its payload (a `String`, a host struct): what `map` is,
            // `match o { Some(x) => Some(body), _ => None }`, so the payload moved into `x` is dropped where the
            // arm ends unless the body moves it on, as the closure's parameter is.
            (Ty::Option(payload), "map", [closure]) if payload.owns() => {
                let scrutinee = self.expr(&receiver)?;
                let (param, body) = self.closure(closure)?;
                let some = TExpr { kind: TKind::Some(Box::new(body)), ty: ty.clone(), range: range.clone() };
                let none = TExpr { kind: TKind::None, ty: ty.clone(), range: range.clone() };
                let arms = vec![
                    Arm { pat: TPat::Some(Box::new(param.unwrap_or(TPat::Wild))), guard: None, body: some },
                    // `_` rather than `None`: a last arm that catches all needs no exhaustiveness verdict.
                    Arm { pat: TPat::Wild, guard: None, body: none },
                ];
                TKind::Match { scrutinee: Box::new(scrutinee), arms }
            }
            (Ty::Option(_), _, [closure]) if OptionClosureMethod::from_name(&name).is_some() => {
                let Some(method) = OptionClosureMethod::from_name(&name) else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let (param, body) = self.closure(closure)?;
                TKind::OptionClosure { method, receiver, param, body: Box::new(body) }
            }
            (Ty::Scalar(s), _, [_]) if s.is_int() && checked.is_some() => {
                let Some(method) = checked else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::Method { name: Method::Checked(method), receiver, args }
            }
            (Ty::Scalar(Scalar::Char), "to_digit", [_]) => {
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                // `to_digit` panics (at its name) on a radix above 36.
                return Ok(Some(TExpr {
                    kind: TKind::Method { name: Method::Checked(CheckedMethod::ToDigit), receiver, args },
                    ty: ty.clone(),
                    range: at_name..range.end,
                }));
            }
            _ => return Ok(None),
        };
        let start = if matches!(kind, TKind::Panic { .. }) { at_name } else { range.start };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: start..range.end }))
    }

    /// `T::try_from(x)` or `x.try_into()` between integer types (up to 64 bits), followed by what consumes the
    /// `Result` ([`TKind::TryConvert`]), as `m` (the consumer) names it.
    pub(super) fn try_convert(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let (source, conversion) = match m.receiver() {
            Some(ast::Expr::MethodCallExpr(call)) if call.name_ref().is_some_and(|n| n.text() == "try_into") => {
                let Some(f) = self.sema.resolve_method_call(&call) else { return Ok(None) };
                if call.arg_list().is_some_and(|l| l.args().next().is_some()) {
                    return Ok(None);
                }
                (call.receiver(), (f, ast::Expr::MethodCallExpr(call.clone()), "TryInto"))
            }
            Some(ast::Expr::CallExpr(call)) => {
                let Some(ast::Expr::PathExpr(p)) = call.expr() else { return Ok(None) };
                let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
                    p.path().and_then(|p| self.sema.resolve_path(&p))
                else {
                    return Ok(None);
                };
                let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let [value] = args.as_slice() else { return Ok(None) };
                (Some(value.clone()), (f, ast::Expr::CallExpr(call.clone()), "TryFrom"))
            }
            _ => return Ok(None),
        };
        let (f, call, trait_name) = conversion;
        let Some(source) = source else { return Ok(None) };
        if self.core_trait_of(f).as_deref() != Some(trait_name) {
            return Ok(None);
        }
        let consumer_in_core =
            self.sema.resolve_method_call(m).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"));
        if !consumer_in_core {
            return Ok(None);
        }
        // `Result<T, E>`: the target is `T`; the source's type is the value's.
        let Some(result) = self.sema.type_of_expr(&call) else { return Ok(None) };
        let Some(target) = result.original.type_arguments().next().and_then(|t| Self::builtin(&t)) else {
            return Ok(None);
        };
        let value = self.expr(&source)?;
        let narrow_int = |s: Scalar| s.int_bits().is_some_and(|b| b <= 64);
        if !narrow_int(target) || !value.ty.scalar().is_some_and(narrow_int) {
            return Ok(None);
        }
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        let then = self.result_consumer(m, &name, &args, trait_name)?;
        Ok(Some(TKind::TryConvert { value: Box::new(value), target, then, at }))
    }

    /// A conversion between scalars that is a `From`/`Into` impl of `core` (all are lossless, so each means what
    /// the `as` cast between the same types means; the lowering admits only the casts the JIT implements).
    pub(super) fn conversion(
        &mut self,
        f: Function,
        value: &ast::Expr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<Option<TExpr>> {
        let name = f.name(self.db);
        let is_conversion = match self.core_trait_of(f).as_deref() {
            Some("From") => name.as_str() == "from",
            Some("Into") => name.as_str() == "into",
            _ => false,
        };
        if !is_conversion {
            return Ok(None);
        }
        let inner = self.expr(value)?;
        Ok(Some(TExpr { kind: TKind::Cast(Box::new(inner)), ty, range }))
    }

    /// `a == b` / `a != b` of two `Option`s of one type whose payload is a scalar or text read in place
    /// (`p.doctor.as_deref() == Some("lee")`): both evaluated in order into hidden locals, then equal when both are
    /// `None` or both `Some` of equal payloads, as the derived `PartialEq` compares them.
    pub(super) fn option_comparison(&mut self, b: &ast::BinExpr, negated: bool) -> Result<Option<TKind>> {
        let (Some(lhs), Some(rhs)) = (b.lhs(), b.rhs()) else { return Ok(None) };
        let (Some(lt), Some(rt)) = (self.sema.type_of_expr(&lhs), self.sema.type_of_expr(&rhs)) else {
            return Ok(None);
        };
        // One type on both sides: then `Option<T>: PartialEq` is `T: PartialEq`, which scalars and `&str` are.
        if lt.original != rt.original {
            return Ok(None);
        }
        let Ok(ty @ Ty::Option(_)) = self.expr_type(&lhs) else { return Ok(None) };
        let Ty::Option(payload) = &ty else { return Ok(None) };
        let payload = (**payload).clone();
        if !(payload.scalar().is_some_and(|s| !matches!(s, Scalar::Unit | Scalar::Never)) || payload == Ty::Str) {
            return Ok(None);
        }
        let range = self.range(b.syntax());
        let left = self.expr(&lhs)?;
        let right = self.expr(&rhs)?;
        let bool_ty = Ty::Scalar(Scalar::Bool);
        let lit = |v: bool| TExpr { kind: TKind::Lit(Lit::Bool(v)), ty: bool_ty.clone(), range: range.clone() };
        let (l, read_l) = self.hidden(&ty, "left", &range);
        let (r, read_r) = self.hidden(&ty, "right", &range);
        let (x, read_x) = self.hidden(&payload, "left payload", &range);
        let (y, read_y) = self.hidden(&payload, "right payload", &range);
        let equal = match payload {
            Ty::Str => TKind::TextMethod { name: TextMethod::Eq, receiver: Box::new(read_x), args: vec![read_y] },
            _ => TKind::Binary(BinOp::Eq, Box::new(read_x), Box::new(read_y)),
        };
        let equal = TExpr { kind: equal, ty: bool_ty.clone(), range: range.clone() };
        let arm = |pat: TPat, body: TExpr| Arm { pat, guard: None, body };
        let both_some = TKind::Match {
            scrutinee: Box::new(read_r.clone()),
            arms: vec![arm(TPat::Some(Box::new(TPat::Bind(y))), equal), arm(TPat::Wild, lit(false))],
        };
        let both_none = TKind::Match {
            scrutinee: Box::new(read_r),
            arms: vec![arm(TPat::None, lit(true)), arm(TPat::Wild, lit(false))],
        };
        let both = |kind: TKind| TExpr { kind, ty: bool_ty.clone(), range: range.clone() };
        let mut compared = both(TKind::Match {
            scrutinee: Box::new(read_l),
            arms: vec![arm(TPat::Some(Box::new(TPat::Bind(x))), both(both_some)), arm(TPat::Wild, both(both_none))],
        });
        if negated {
            compared = both(TKind::Unary(lacuna_ir::UnOp::Not, Box::new(compared)));
        }
        let stmts = vec![TStmt::Let { local: l, init: Some(left) }, TStmt::Let { local: r, init: Some(right) }];
        Ok(Some(TKind::Block(TBlock { stmts, tail: Some(Box::new(compared)), ty: Some(bool_ty), label: None })))
    }
}
