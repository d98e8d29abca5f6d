//! Expressions: the dispatch over rust-analyzer's expression kinds, each family delegated to its own file.

use ra_ap_hir::{AsAssocItem, PathResolution};
use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use super::*;

impl<'a, 'db> Builder<'a, 'db> {
    pub fn expr(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        let mark = self.hoisted.len();
        let built = self.expr_here(expr);
        let stmts = self.hoisted.split_off(mark);
        let e = built?;
        if stmts.is_empty() {
            return Ok(e);
        }
        let (ty, range) = (e.ty.clone(), e.range.clone());
        let block = TBlock { stmts, tail: Some(Box::new(e)), ty: Some(ty.clone()), label: None };
        Ok(TExpr { kind: TKind::Block(block), ty, range })
    }

    pub(super) fn expr_here(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        // `text[a..b]` is a `str` (no value of its own): read as the `&str` it is always borrowed as.
        if let ast::Expr::IndexExpr(index) = expr {
            if let Some(slice) = self.text_slice(index)? {
                return Ok(slice);
            }
        }
        let ty = self.expr_type(expr)?;
        let range = self.range(expr.syntax());
        // Sequence bindings read by loops and methods, before the general forms.
        match expr {
            ast::Expr::ForExpr(f) => {
                if let (Some((pat, seq)), Some(body)) = (self.sequence_loop(f), f.loop_body()) {
                    let var = self.declare_local(&pat)?;
                    let label = Self::label(f.label().and_then(|l| l.lifetime()));
                    let kind = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                    return Ok(TExpr { kind, ty, range });
                }
                // (A plain range is the `for` below.)
                let chain = match f.iterable() {
                    Some(iterable) if self.chain_parts(&iterable).is_some_and(|(_, calls)| !calls.is_empty()) => {
                        self.iter_chain(&iterable)?
                    }
                    _ => None,
                };
                if let (Some(chain), Some(pat), Some(body)) = (chain, f.pat(), f.loop_body()) {
                    let pat = self.pat(&pat)?;
                    let label = Self::label(f.label().and_then(|l| l.lifetime()));
                    let kind = TKind::ForIter { label, pat, chain, body: self.block(&body)? };
                    return Ok(TExpr { kind, ty, range });
                }
                // `for x in [a, b, c]`: the array in a hidden local, then a loop over its elements.
                if let (Some(iterable), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable(), f.pat(), f.loop_body())
                {
                    if let Some(seq) = self.array_temporary(&iterable)? {
                        let var = self.declare_local(&pat)?;
                        let label = Self::label(f.label().and_then(|l| l.lifetime()));
                        let kind = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                // `for x in VEC` over a vector the snippet owns (consumed): the vector in a hidden local, then a
                // loop over its elements.
                if let (Some(iterable), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable(), f.pat(), f.loop_body())
                {
                    if let Ok(Ty::Vec(elem)) = self.expr_type(&iterable) {
                        let init = self.expr(&iterable)?;
                        let hidden = self.locals.len();
                        let name = format!("<for at {}>", range.start);
                        self.locals.push(TLocal {
                            name,
                            ty: Ty::Vec(elem),
                            mutable: false,
                            fixed_type: true,
                            array_literal: false,
                        });
                        let seq = Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false };
                        let var = self.declare_local(&pat)?;
                        let label = Self::label(f.label().and_then(|l| l.lifetime()));
                        let each = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                        let unit = Ty::Scalar(Scalar::Unit);
                        let tail = Some(Box::new(TExpr { kind: each, ty: ty.clone(), range: range.clone() }));
                        let stmts = vec![TStmt::Let { local: hidden, init: Some(init) }];
                        let block = TBlock { stmts, tail, ty: Some(unit), label: None };
                        return Ok(TExpr { kind: TKind::Block(block), ty, range });
                    }
                }
            }
            ast::Expr::MethodCallExpr(m) => {
                if let Some(kind) = self.try_convert(m)? {
                    let TKind::TryConvert { at, .. } = &kind else { unreachable!("made above") };
                    let start =
                        if matches!(kind, TKind::TryConvert { then: ParseThen::Unwrap | ParseThen::Expect(_), .. }) {
                            *at
                        } else {
                            range.start
                        };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
                if let Some(kind) = self.parse_method(m)? {
                    // A panic of `unwrap` or `expect` is placed at the method's name.
                    let start = match &kind {
                        TKind::Parse { at, then: ParseThen::Unwrap | ParseThen::Expect(_), .. } => *at,
                        _ => range.start,
                    };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
                if let Some(kind) = self.struct_method(m, &ty)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.map_method(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.text_method(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.consume(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_with_closure(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_in_place(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(block) = self.temporary_sequence_method(m, &ty)? {
                    return Ok(TExpr { kind: TKind::Block(block), ty, range });
                }
                if let Some(kind) = self.sequence_copy(m, &ty) {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_method(m) {
                    // An overflow inside `sum` is placed, as rustc places it, at the method's name.
                    let start = match (&kind, m.name_ref()) {
                        (TKind::SeqSum(_), Some(name)) => {
                            usize::from(name.syntax().text_range().start()).saturating_sub(self.snippet_start)
                        }
                        _ => range.start,
                    };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
            }
            _ => {}
        }
        let kind = match expr {
            ast::Expr::Literal(lit) => TKind::Lit(match lit.kind() {
                ast::LiteralKind::IntNumber(n) => match n.value() {
                    Ok(v) => Lit::Int(v),
                    Err(_) => return self.unsupported("an integer literal out of range", expr.syntax()),
                },
                ast::LiteralKind::FloatNumber(f) => match f.value_string().parse::<f64>() {
                    Ok(v) if v.is_finite() => Lit::Float(v),
                    _ => return self.unsupported("a float literal out of range", expr.syntax()),
                },
                ast::LiteralKind::Bool(b) => Lit::Bool(b),
                ast::LiteralKind::Char(c) => match c.value() {
                    Ok(c) => Lit::Char(c),
                    Err(_) => return self.unsupported("a malformed char literal", expr.syntax()),
                },
                ast::LiteralKind::String(s) => match s.value() {
                    Ok(v) => Lit::Str(v.into_owned()),
                    Err(_) => return self.unsupported("a malformed string literal", expr.syntax()),
                },
                _ => return self.unsupported("a byte literal", expr.syntax()),
            }),
            ast::Expr::ParenExpr(p) => match p.expr() {
                Some(inner) => return self.expr(&inner),
                None => return self.unsupported("empty parentheses", expr.syntax()),
            },
            ast::Expr::RecordExpr(r) => self.struct_literal(r, &ty)?,
            ast::Expr::PathExpr(p) => {
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
                    Some(PathResolution::Def(ra_ap_hir::ModuleDef::Const(c))) => match self.primitive_const(c, &ty) {
                        Some(kind) => kind,
                        None => match self.const_body(c)? {
                            // The constant's value, computed where it is used (pure arithmetic on literals).
                            Some(body) => {
                                let mut value = self.expr(&body)?;
                                self.expanding_consts.pop();
                                value.range = range;
                                return Ok(value);
                            }
                            None => return self.unsupported("a constant", expr.syntax()),
                        },
                    },
                    _ => return self.unsupported("a path that is not a local", expr.syntax()),
                }
            }
            ast::Expr::RefExpr(r) if ty == Ty::Str => match self.text_ref(r, &ty)? {
                Some(kind) => kind,
                None => return self.unsupported("a reference", expr.syntax()),
            },
            // `&x` of a scalar: the typed view reads a shared reference as its value.
            ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() && ty.scalar().is_some() => {
                let Some(inner) = r.expr() else { return self.unsupported("a reference", expr.syntax()) };
                // A borrow of a place (not of a literal) is for rustc's borrow check to judge.
                if !matches!(inner, ast::Expr::Literal(_)) {
                    self.references.set(true);
                }
                let mut value = self.expr(&inner)?;
                value.range = range;
                return Ok(value);
            }
            ast::Expr::TupleExpr(t) => TKind::Tuple(t.fields().map(|f| self.expr(&f)).collect::<Result<_>>()?),
            ast::Expr::FieldExpr(f) if f.name_ref().is_some_and(|n| n.text().parse::<usize>().is_err()) => {
                match self.host_field(f) {
                    Some(i) => TKind::HostField(i),
                    None => match self.ref_field(f)? {
                        Some(kind) => kind,
                        None => return self.unsupported("a field of a struct", expr.syntax()),
                    },
                }
            }
            ast::Expr::FieldExpr(f) => {
                let index = f.name_ref().and_then(|n| n.text().parse::<usize>().ok());
                let (Some(base), Some(index)) = (f.expr(), index) else {
                    return self.unsupported("a field of a struct", expr.syntax());
                };
                let base = self.expr(&base)?;
                if !matches!(&base.ty, Ty::Tuple(parts) if index < parts.len()) {
                    return self.unsupported("a field of something other than a tuple", expr.syntax());
                }
                TKind::Field(Box::new(base), index)
            }
            ast::Expr::MatchExpr(m) => {
                let Some(scrutinee) = m.expr() else { return self.unsupported("`match`", expr.syntax()) };
                let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                let scrutinee = Box::new(scrutinee);
                let mut arms = Vec::new();
                for arm in m.match_arm_list().into_iter().flat_map(|l| l.arms()) {
                    let (Some(pat), Some(body)) = (arm.pat(), arm.expr()) else {
                        return self.unsupported("a `match` arm", arm.syntax());
                    };
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let guard = match arm.guard().and_then(|g| g.condition()) {
                        Some(ast::Expr::LetExpr(_)) => return self.unsupported("an `if let` guard", arm.syntax()),
                        Some(c) => Some(self.expr(&c)?),
                        None => None,
                    };
                    arms.push(Arm { pat, guard, body: self.expr(&body)? });
                }
                TKind::Match { scrutinee, arms }
            }
            ast::Expr::MacroExpr(mac) => {
                let Some(call) = mac.macro_call() else { return self.unsupported("a macro", expr.syntax()) };
                let name =
                    call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()).map(|n| n.text().to_string());
                let from_std = self.sema.resolve_macro_call(&call).is_some_and(|m| {
                    m.module(self.db)
                        .krate(self.db)
                        .display_name(self.db)
                        .is_some_and(|n| matches!(n.to_string().as_str(), "core" | "std"))
                });
                let tokens = call
                    .token_tree()
                    .map(|t| t.syntax().descendants_with_tokens().filter_map(|t| t.into_token()).collect::<Vec<_>>())
                    .unwrap_or_default();
                let from_alloc = self.sema.resolve_macro_call(&call).is_some_and(|m| {
                    m.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc")
                });
                if from_alloc && name.as_deref() == Some("vec") && matches!(ty, Ty::Vec(_)) {
                    return Ok(TExpr { kind: self.vec_macro(&call)?, ty, range });
                }
                let std_format = (from_alloc && name.as_deref() == Some("format"))
                    || (from_std && matches!(name.as_deref(), Some("print" | "println" | "eprint" | "eprintln")));
                if let (true, Some(name)) = (std_format, name.as_deref()) {
                    return Ok(TExpr { kind: self.format_macro(&call, name)?, ty, range });
                }
                // `matches!(e, pat)` is the `match` it expands to (its parts keep their place in the snippet).
                if from_std && name.as_deref() == Some("matches") {
                    let m = self
                        .sema
                        .expand_macro_call(&call)
                        .and_then(|x| x.value.descendants().find_map(ast::MatchExpr::cast));
                    let Some(m) = m else {
                        return self.unsupported("a `matches!` that does not expand", expr.syntax());
                    };
                    let mut built = self.expr(&ast::Expr::MatchExpr(m))?;
                    built.range = range;
                    return Ok(built);
                }
                let message = match name.as_deref() {
                    Some("panic") => Self::plain_message(tokens.into_iter()),
                    Some("unreachable")
                        if tokens.iter().all(|t| t.kind().is_trivia() || matches!(t.text(), "(" | ")")) =>
                    {
                        Some("internal error: entered unreachable code".to_owned())
                    }
                    _ => None,
                };
                match (from_std, message) {
                    (true, Some(message)) => TKind::Panic { receiver: None, message },
                    _ => return self.unsupported("a macro outside the subset", expr.syntax()),
                }
            }
            ast::Expr::PrefixExpr(p) => {
                let op = match p.op_kind() {
                    Some(ast::UnaryOp::Neg) => UnOp::Neg,
                    Some(ast::UnaryOp::Not) => UnOp::Not,
                    Some(ast::UnaryOp::Deref) => {
                        let Some(inner) = p.expr() else { return self.unsupported("a dereference", expr.syntax()) };
                        if let Some((binding, _, _)) = self.scalar_reference(&inner) {
                            return Ok(TExpr { kind: TKind::Deref(binding), ty, range });
                        }
                        // `*x` of a shared reference to a scalar, which the typed view reads as the value.
                        let shared = self.sema.type_of_expr(&inner).and_then(|t| self.shared_scalar_ref(&t.original));
                        if shared.is_some() {
                            let mut value = self.expr(&inner)?;
                            value.range = range;
                            return Ok(value);
                        }
                        return self.unsupported("a dereference", expr.syntax());
                    }
                    None => return self.unsupported("a prefix operator", expr.syntax()),
                };
                let Some(inner) = p.expr() else { return self.unsupported("an operand", expr.syntax()) };
                TKind::Unary(op, Box::new(self.expr(&inner)?))
            }
            ast::Expr::BinExpr(b) => {
                let (Some(lhs), Some(rhs), Some(op)) = (b.lhs(), b.rhs(), b.op_kind()) else {
                    return self.unsupported("an operator", expr.syntax());
                };
                let at = b
                    .op_token()
                    .map_or(range.start, |t| usize::from(t.text_range().start()).saturating_sub(self.snippet_start));
                match op {
                    ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated }) => {
                        if let Some(kind) =
                            self.text_comparison(if negated { TextMethod::Ne } else { TextMethod::Eq }, &lhs, &rhs)?
                        {
                            return Ok(TExpr { kind, ty, range });
                        }
                        if let Some(kind) = self.struct_comparison(b, negated)? {
                            return Ok(TExpr { kind, ty, range });
                        }
                    }
                    ast::BinaryOp::ArithOp(ast::ArithOp::Add) if ty == Ty::String => {
                        let left = Box::new(self.expr(&lhs)?);
                        let right = Box::new(self.text_operand(&rhs)?);
                        return Ok(TExpr { kind: TKind::Concat { left, right, at }, ty, range });
                    }
                    ast::BinaryOp::Assignment { op: Some(ast::ArithOp::Add) } => {
                        if let Some(seq) = self.text_seq(&lhs) {
                            let value = Box::new(self.text_operand(&rhs)?);
                            return Ok(TExpr { kind: TKind::StringPush { seq, value, at }, ty, range });
                        }
                    }
                    _ => {}
                }
                match op {
                    ast::BinaryOp::Assignment { op } => {
                        if let ast::Expr::IndexExpr(ix) = &lhs {
                            let (Some(base), Some(index)) = (ix.base(), ix.index()) else {
                                return self.unsupported("an index expression", expr.syntax());
                            };
                            let Some(seq) = self.sequence(&base) else {
                                return self
                                    .unsupported("assignment into something other than a sequence", expr.syntax());
                            };
                            let index = self.expr(&index)?;
                            if index.s() != Scalar::Usize {
                                return self.unsupported("an index that is not a `usize`", expr.syntax());
                            }
                            let value = Box::new(self.expr(&rhs)?);
                            // Index faults at the `[` for a `Vec` (`IndexMut::index_mut`), at the place for a slice.
                            let index_at = match (seq.kind, ix.l_brack_token()) {
                                (SeqKind::Slice, _) | (_, None) => self.range(lhs.syntax()).start,
                                (_, Some(b)) => usize::from(b.text_range().start()).saturating_sub(self.snippet_start),
                            };
                            let index = Box::new(index);
                            TKind::SeqStore { seq, index_at, index, op: op.map(arith), value }
                        } else if let ast::Expr::FieldExpr(f) = &lhs {
                            let Some(i) = self.host_field(f) else {
                                return self.unsupported("assignment to a field of a struct", expr.syntax());
                            };
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::HostField(i), op: op.map(arith), value }
                        } else if let Some((map, key, default)) = match &lhs {
                            ast::Expr::PrefixExpr(d) if d.op_kind() == Some(ast::UnaryOp::Deref) => {
                                d.expr().map(|inner| self.map_entry(&inner)).transpose()?.flatten()
                            }
                            _ => None,
                        } {
                            // Primitive operands: the value is evaluated before the place.
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::MapUpdate {
                                map,
                                key: Box::new(key),
                                default: default.map(Box::new),
                                op: op.map(arith),
                                value,
                            }
                        } else if let ast::Expr::PrefixExpr(deref) = &lhs {
                            let target = match deref.op_kind() {
                                Some(ast::UnaryOp::Deref) => deref.expr().and_then(|r| self.scalar_reference(&r)),
                                _ => None,
                            };
                            let Some((binding, _, true)) = target else {
                                return self
                                    .unsupported("assignment through something other than a `&mut`", expr.syntax());
                            };
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::Deref(binding), op: op.map(arith), value }
                        } else {
                            let ast::Expr::PathExpr(place) = &lhs else {
                                return self.unsupported("assignment to something other than a local", expr.syntax());
                            };
                            let Some(PathResolution::Local(local)) =
                                place.path().and_then(|p| self.sema.resolve_path(&p))
                            else {
                                return self.unsupported("assignment to something other than a local", expr.syntax());
                            };
                            let place = self.local_ref(local, lhs.syntax())?;
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::Local(place), op: op.map(arith), value }
                        }
                    }
                    other => {
                        let op = match other {
                            ast::BinaryOp::ArithOp(a) => arith(a),
                            ast::BinaryOp::LogicOp(ast::LogicOp::And) => BinOp::And,
                            ast::BinaryOp::LogicOp(ast::LogicOp::Or) => BinOp::Or,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: false }) => BinOp::Eq,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: true }) => BinOp::Ne,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Ord { ordering, strict }) => match (ordering, strict) {
                                (ast::Ordering::Less, true) => BinOp::Lt,
                                (ast::Ordering::Less, false) => BinOp::Le,
                                (ast::Ordering::Greater, true) => BinOp::Gt,
                                (ast::Ordering::Greater, false) => BinOp::Ge,
                            },
                            ast::BinaryOp::Assignment { .. } => unreachable!("handled above"),
                        };
                        let (l, r) = (self.expr(&lhs)?, self.expr(&rhs)?);
                        TKind::Binary(op, Box::new(l), Box::new(r))
                    }
                }
            }
            ast::Expr::CastExpr(c) => {
                let Some(inner) = c.expr() else { return self.unsupported("a cast", expr.syntax()) };
                TKind::Cast(Box::new(self.expr(&inner)?))
            }
            ast::Expr::BlockExpr(b) => TKind::Block(self.block(b)?),
            ast::Expr::IfExpr(i) => {
                let Some(cond) = i.condition() else { return self.unsupported("`if`", expr.syntax()) };
                let Some(then) = i.then_branch() else { return self.unsupported("`if`", expr.syntax()) };
                if let ast::Expr::LetExpr(l) = &cond {
                    // `if let P = e { A } else { B }` is `match e { P => A, _ => B }`.
                    let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                        return self.unsupported("`if let`", expr.syntax());
                    };
                    let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                    let scrutinee = Box::new(scrutinee);
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let then_ty = self.expr_type(&ast::Expr::BlockExpr(then.clone()))?;
                    let body =
                        TExpr { ty: then_ty, range: self.range(then.syntax()), kind: TKind::Block(self.block(&then)?) };
                    let otherwise = match i.else_branch() {
                        Some(ast::ElseBranch::Block(b)) => TExpr {
                            ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                            range: self.range(b.syntax()),
                            kind: TKind::Block(self.block(&b)?),
                        },
                        Some(ast::ElseBranch::IfExpr(e)) => self.expr(&ast::Expr::IfExpr(e))?,
                        None => {
                            TExpr { ty: Ty::Scalar(Scalar::Unit), range: range.clone(), kind: TKind::Lit(Lit::Unit) }
                        }
                    };
                    let arms =
                        vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: otherwise }];
                    return Ok(TExpr { kind: TKind::Match { scrutinee, arms }, ty, range });
                }
                if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                    return self.unsupported("a `let` chain", expr.syntax());
                }
                let otherwise = match i.else_branch() {
                    Some(ast::ElseBranch::Block(b)) => Some(Box::new(TExpr {
                        ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                        range: self.range(b.syntax()),
                        kind: TKind::Block(self.block(&b)?),
                    })),
                    Some(ast::ElseBranch::IfExpr(e)) => Some(Box::new(self.expr(&ast::Expr::IfExpr(e))?)),
                    None => None,
                };
                TKind::If { cond: Box::new(self.expr(&cond)?), then: self.block(&then)?, otherwise }
            }
            ast::Expr::WhileExpr(w) => {
                let Some(cond) = w.condition() else { return self.unsupported("`while`", expr.syntax()) };
                let Some(body) = w.loop_body() else { return self.unsupported("`while`", expr.syntax()) };
                let label = Self::label(w.label().and_then(|l| l.lifetime()));
                if let ast::Expr::LetExpr(l) = &cond {
                    // `while let P = e { body }` is `loop { match e { P => body, _ => break } }`.
                    let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                        return self.unsupported("`while let`", expr.syntax());
                    };
                    let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                    let scrutinee = Box::new(scrutinee);
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let unit = Ty::Scalar(Scalar::Unit);
                    let body = TExpr {
                        ty: unit.clone(),
                        range: self.range(body.syntax()),
                        kind: TKind::Block(self.block(&body)?),
                    };
                    let leave = TExpr {
                        ty: Ty::Scalar(Scalar::Never),
                        range: range.clone(),
                        kind: TKind::Break { label: label.clone(), value: None },
                    };
                    let arms = vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: leave }];
                    let step = TExpr { kind: TKind::Match { scrutinee, arms }, ty: unit.clone(), range: range.clone() };
                    let body = TBlock { stmts: vec![TStmt::Expr(step)], tail: None, ty: Some(unit), label: None };
                    return Ok(TExpr { kind: TKind::Loop { label, body }, ty, range });
                }
                if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                    return self.unsupported("a `let` chain", expr.syntax());
                }
                TKind::While { label, cond: Box::new(self.expr(&cond)?), body: self.block(&body)? }
            }
            ast::Expr::LoopExpr(l) => {
                let Some(body) = l.loop_body() else { return self.unsupported("`loop`", expr.syntax()) };
                let label = Self::label(l.label().and_then(|l| l.lifetime()));
                TKind::Loop { label, body: self.block(&body)? }
            }
            ast::Expr::ForExpr(f) => {
                let (
                    Some(pat @ (ast::Pat::IdentPat(_) | ast::Pat::WildcardPat(_))),
                    Some(ast::Expr::RangeExpr(range_expr)),
                    Some(body),
                ) = (f.pat(), f.iterable(), f.loop_body())
                else {
                    return self.unsupported("`for` over something other than an integer range", expr.syntax());
                };
                let (Some(start), Some(end)) = (range_expr.start(), range_expr.end()) else {
                    return self.unsupported("an open range", expr.syntax());
                };
                let inclusive = range_expr.op_kind() == Some(ast::RangeOp::Inclusive);
                let (start, end) = (self.expr(&start)?, self.expr(&end)?);
                if !start.s().is_int() {
                    return self.unsupported("`for` over a range of non-integers", expr.syntax());
                }
                let var = match &pat {
                    ast::Pat::IdentPat(pat) => self.declare_local(pat)?,
                    // `for _ in ..`: the counter in a local no name reaches.
                    _ => {
                        let name = format!("<for at {}>", range.start);
                        self.locals.push(TLocal {
                            name,
                            ty: start.ty.clone(),
                            mutable: false,
                            fixed_type: true,
                            array_literal: false,
                        });
                        self.locals.len() - 1
                    }
                };
                let label = Self::label(f.label().and_then(|l| l.lifetime()));
                TKind::For {
                    label,
                    var,
                    start: Box::new(start),
                    end: Box::new(end),
                    inclusive,
                    body: self.block(&body)?,
                }
            }
            ast::Expr::BreakExpr(b) => {
                let value = match b.expr() {
                    Some(v) => Some(Box::new(self.expr(&v)?)),
                    None => None,
                };
                TKind::Break { label: Self::label(b.lifetime()), value }
            }
            ast::Expr::ContinueExpr(c) => TKind::Continue { label: Self::label(c.lifetime()) },
            ast::Expr::ReturnExpr(r) => {
                let value = match r.expr() {
                    Some(v) => Some(Box::new(self.expr(&v)?)),
                    None => None,
                };
                TKind::Return(value)
            }
            ast::Expr::CallExpr(c) if self.map_new(c, &ty) => TKind::MapNew,
            ast::Expr::CallExpr(c) => {
                let Some(ast::Expr::PathExpr(callee)) = c.expr() else {
                    return self.unsupported("a call of something other than a function", expr.syntax());
                };
                let resolution = callee.path().and_then(|p| self.sema.resolve_path(&p));
                // A closure kept in a local: its body, with its parameters bound to the arguments.
                if let Some(PathResolution::Local(local)) = &resolution {
                    if let Some(closure) = self.closure_locals.get(local).cloned() {
                        let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                        if args.len() != closure.params.len() {
                            return self
                                .unsupported("a closure called with the wrong number of arguments", expr.syntax());
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
                    return self.unsupported("a variant of a type other than `Option`", expr.syntax());
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
                if let (Some(f), [], Ty::Vec(_)) = (resolved, args.as_slice(), &ty) {
                    // `Vec::new()`.
                    let in_alloc = f
                        .module(self.db)
                        .krate(self.db)
                        .display_name(self.db)
                        .is_some_and(|n| n.to_string() == "alloc");
                    if in_alloc && f.name(self.db).as_str() == "new" && f.as_assoc_item(self.db).is_some() {
                        return Ok(TExpr { kind: TKind::VecLit(Vec::new()), ty, range });
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
                        && f.module(self.db)
                            .krate(self.db)
                            .display_name(self.db)
                            .is_some_and(|n| n.to_string() == "core")
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
                                let kind = TKind::HostCall { name, symbol, receiver: Some(receiver), args };
                                return Ok(TExpr { kind, ty, range });
                            }
                        }
                    }
                    return self.unsupported("a call of a function not declared in the snippet", expr.syntax());
                };
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::Call { function, args }
            }
            ast::Expr::IndexExpr(ix) if ix.base().and_then(|b| self.map_local(&b)).is_some() => {
                let map = ix.base().and_then(|b| self.map_local(&b)).expect("checked above");
                let Some(key) = ix.index() else { return self.unsupported("an index expression", expr.syntax()) };
                let key = self.map_key(map, &key)?;
                // `Index::index` panics inside std; rustc places the panic at the `[`.
                let at = ix
                    .l_brack_token()
                    .map_or(range.start, |b| usize::from(b.text_range().start()).saturating_sub(self.snippet_start));
                TKind::MapMethod { map, name: MapMethod::Index, args: vec![key], at }
            }
            ast::Expr::IndexExpr(ix) => return self.seq_index(ix, ty),
            ast::Expr::MethodCallExpr(m) => {
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
                // A method of the host's own type, on a hole binding.
                if let (Some((adt, ty_name, mutable)), Some(receiver)) = (self.host_scalar_method(f), m.receiver()) {
                    if let Some(receiver) = self.self_arg(&receiver, adt, mutable) {
                        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
                        let args = self.host_args(&args, m.syntax())?;
                        let symbol = lacuna_ir::shim_symbol(Some(&ty_name), &name);
                        let kind = TKind::HostCall { name, symbol, receiver: Some(receiver), args };
                        // A panic inside is placed, as rustc's debug info places the call, at the method's name.
                        let start = m.name_ref().map_or(range.start, |n| {
                            usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start)
                        });
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
                    return self.unsupported("a method outside the subset", expr.syntax());
                };
                let Some(receiver) = m.receiver() else { return self.unsupported("a method", expr.syntax()) };
                let receiver = Box::new(self.expr(&receiver)?);
                let mut args = Vec::new();
                for a in m.arg_list().into_iter().flat_map(|l| l.args()) {
                    args.push(self.expr(&a)?);
                }
                TKind::Method { name: method, receiver, args }
            }
            _ => return self.unsupported("an expression outside the subset", expr.syntax()),
        };
        Ok(TExpr { kind, ty, range })
    }
}
