//! Expressions: the dispatch over rust-analyzer's expression kinds, each family delegated to its own file.

use ra_ap_syntax::ast;
use ra_ap_syntax::ast::HasLoopBody;
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Arm, Lit, MapMethod, ParseThen, Scalar, Seq, SeqKind, TBlock, TExpr, TKind, TLocal, TStmt, Ty, UnOp};

impl<'a, 'db> Builder<'a, 'db> {
    pub fn expr(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        let mark = self.hoisted.len();
        let moves = self.move_copies.len();
        let built = self.expr_here(expr);
        let mut stmts = self.hoisted.split_off(mark);
        let e = match built {
            Ok(e) => e,
            Err(e) => {
                self.move_copies.truncate(moves);
                return Err(e);
            }
        };
        // What `move` closures inside copy is copied before the expression, where they are made.
        let copies = self.place_move_copies(moves, expr.syntax())?;
        stmts.splice(0..0, copies);
        if stmts.is_empty() {
            return Ok(e);
        }
        let (ty, range) = (e.ty.clone(), e.range.clone());
        let block = TBlock { stmts, tail: Some(Box::new(e)), ty: Some(ty.clone()), label: None };
        Ok(TExpr { kind: TKind::Block(block), ty, range })
    }

    /// `for pat in ..` over `seq` (each element in turn bound to `pat`'s name).
    fn for_seq(&mut self, f: &ast::ForExpr, pat: &ast::IdentPat, seq: Seq, body: &ast::BlockExpr) -> Result<TKind> {
        self.for_seq_pat(f, &ast::Pat::IdentPat(pat.clone()), seq, body)
    }

    /// A `for` over a sequence's elements read in place: a name binds each; another pattern (`(name, score)`
    /// over tuples) takes apart a hidden local that does, at the top of the body.
    fn for_seq_pat(&mut self, f: &ast::ForExpr, pat: &ast::Pat, seq: Seq, body: &ast::BlockExpr) -> Result<TKind> {
        let label = Self::label(f.label().and_then(|l| l.lifetime()));
        if let ast::Pat::IdentPat(p) = pat {
            let var = self.declare_local(p)?;
            return Ok(TKind::ForSeq { label, var, seq, body: self.block(body)? });
        }
        let range = self.range(pat.syntax());
        let (var, element) = self.hidden(&seq.elem.read_ty(), "element", &range);
        let pat = self.pat(pat)?;
        let mut body = self.block(body)?;
        body.stmts.insert(0, TStmt::LetPat { pat, init: element, otherwise: None });
        Ok(TKind::ForSeq { label, var, seq, body })
    }

    pub(super) fn expr_here(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        // `text[a..b]` is a `str` (no value of its own): read as the `&str` it is always borrowed as.
        if let ast::Expr::IndexExpr(index) = expr {
            if let Some(slice) = self.text_slice(index)? {
                return Ok(slice);
            }
        }
        // An `Option` field of a host struct, borrowed (`&r.field`: read in place) or of a scalar (copied).
        if let ast::Expr::RefExpr(r) = expr {
            if let (None, None, Some(inner)) = (r.mut_token(), r.raw_token(), r.expr()) {
                if let Some(mut value) = self.option_field(&inner, false)? {
                    value.range = self.range(expr.syntax());
                    return Ok(value);
                }
            }
        }
        if let Some(value) = self.option_field(expr, true)? {
            return Ok(value);
        }
        // `&o` of a local `Option` that owns its payload (`match &best { Some(b) => .. }`): read in place.
        if let ast::Expr::RefExpr(r) = expr {
            if let (None, None, Some(inner @ ast::Expr::PathExpr(_))) = (r.mut_token(), r.raw_token(), r.expr()) {
                if let Some(value) = self.option_ref(&inner, self.range(expr.syntax()))? {
                    return Ok(value);
                }
            }
        }
        // `&v` where a slice is expected (`mean(&temps)`): the sequence lent as a slice.
        if let ast::Expr::RefExpr(r) = expr {
            if let Some(slice) = self.slice_value(expr, r)? {
                return Ok(slice);
            }
        }
        // A hole binding `r: &mut S` of a number (or a name for it, `Builder::reborrow_let`) read as a value — a
        // method's receiver, an operand, a shared reborrow's initializer: the number it points to. (Where the
        // reference itself is wanted, a host function's `&mut S` parameter, `Builder::lent_place` takes it first;
        // a type that holds one is no type of the subset's.)
        if let ast::Expr::PathExpr(_) = expr {
            if let Some((binding, s, true)) = self.scalar_reference(expr) {
                return Ok(TExpr { kind: TKind::Deref(binding), ty: Ty::Scalar(s), range: self.range(expr.syntax()) });
            }
        }
        let ty = self.expr_type(expr)?;
        let range = self.range(expr.syntax());
        // Sequence bindings read by loops and methods, before the general forms.
        match expr {
            ast::Expr::ForExpr(f) => {
                if let (Some((local, seq)), Some(body)) = (self.mut_scalar_loop(f), f.loop_body()) {
                    return self.mut_scalar_for(f, local, seq, body, ty, range);
                }
                if let (Some((pat, seq, root)), Some(body)) = (self.mut_struct_loop(f), f.loop_body()) {
                    // The loop lends the binding's vector mutably: whether the binding may be changed (a `&`
                    // binding, one the host did not declare `mut`: E0596) and whether the host holds a loan of an
                    // element across the hole are rustc's to judge. (A `for` that only reads is the subset's.)
                    self.rustc_decides("a `for` that changes the elements of a hole binding's vector", f.syntax());
                    let var = self.declare_local(&pat)?;
                    self.mut_elems.insert(var, root);
                    let label = Self::label(f.label().and_then(|l| l.lifetime()));
                    let kind = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                    return Ok(TExpr { kind, ty, range });
                }
                // `for (k, v) in &m` / `m.iter()`, `for k in m.keys()`, `for (k, v) in m` over the snippet's own
                // map: its entries, keys or values in a hidden local before the loop.
                if let (Some(iterable), Some(pat), Some(body)) = (f.iterable(), f.pat(), f.loop_body()) {
                    let view = match &iterable {
                        ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() => {
                            r.expr().and_then(|m| Some((self.map_local(&m)?, lacuna_ir::MapView::Iter)))
                        }
                        other => self
                            .map_local(other)
                            .map(|m| (m, lacuna_ir::MapView::IntoIter))
                            .or_else(|| self.snippet_map_view(other)),
                    };
                    if let Some((map, view)) = view {
                        if let Some(seq) = self.map_view_seq(map, view, &iterable)? {
                            let kind = self.for_seq_pat(f, &pat, seq, &body)?;
                            return Ok(TExpr { kind, ty, range });
                        }
                    }
                }
                // `for k in m.keys()`, `for (k, v) in &m` over a map binding's keys, values or entries: in a hidden
                // local before the loop.
                if let (Some(iterable), Some(pat), Some(body)) = (f.iterable(), f.pat(), f.loop_body()) {
                    if let Some(seq) = self.binding_map_items_temporary(&iterable)? {
                        let kind = self.for_seq_pat(f, &pat, seq, &body)?;
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                // `for b in x.f.values()` over a host map's values: in a hidden local before the loop.
                if let (Some(iterable), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable().filter(super::iter::values_call), f.pat(), f.loop_body())
                {
                    if let Some(seq) = self.map_values_temporary(&iterable)? {
                        let kind = self.for_seq(f, &pat, seq, &body)?;
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                // `for p in host.orders_of(c)` (or `&..`, `...iter()`) over a vector a call makes: in a hidden
                // local before the loop, its items read in place (they are copied out or point into the host).
                if let (Some(made), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable().and_then(|i| self.made_vector(&i)), f.pat(), f.loop_body())
                {
                    if pat.ref_token().is_none() && pat.mut_token().is_none() && pat.at_token().is_none() {
                        if let Some(seq) = self.vec_temporary(&made)? {
                            let kind = self.for_seq(f, &pat, seq, &body)?;
                            return Ok(TExpr { kind, ty, range });
                        }
                    }
                }
                // `for x in a` over an array the snippet names: the elements of a copy (`Builder::array_by_value`).
                if let (Some(iterable), Some(pat), Some(body)) = (f.iterable(), f.pat(), f.loop_body()) {
                    if let Some(seq) = self.array_by_value(&iterable) {
                        let kind = self.for_seq_pat(f, &pat, seq, &body)?;
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                if let (Some((pat, seq)), Some(body)) = (self.sequence_loop(f), f.loop_body()) {
                    let kind = self.for_seq_pat(f, &pat, seq, &body)?;
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
                // `for x in [a, b, c]`, `for (name, n) in [("a", 1), ..]`: the array in a hidden local, then a loop
                // over its elements.
                if let (Some(iterable), Some(pat), Some(body)) = (f.iterable(), f.pat(), f.loop_body()) {
                    if let Some(seq) = self.array_temporary(&iterable)? {
                        let kind = self.for_seq_pat(f, &pat, seq, &body)?;
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                // `for x in VEC` over a vector the snippet owns (consumed): the vector in a hidden local, then a
                // loop over its elements. A pattern other than a name (`(sku, n)` over tuples) takes apart a hidden
                // local bound to each element read in place, its names of `String` parts bound to copies
                // (`Builder::copy_owned_parts`).
                if let (Some(iterable), Some(pat), Some(body)) = (f.iterable(), f.pat(), f.loop_body()) {
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
                        let label = Self::label(f.label().and_then(|l| l.lifetime()));
                        let each = match &pat {
                            ast::Pat::IdentPat(pat) => {
                                let var = self.declare_local(pat)?;
                                TKind::ForSeq { label, var, seq, body: self.block(&body)? }
                            }
                            other => {
                                let at = self.range(other.syntax());
                                let (var, element) = self.hidden(&elem.read_ty(), "element", &at);
                                let pat = self.pat(other)?;
                                let mut copies = Vec::new();
                                let pat = self.copy_owned_parts(pat, &elem.read_ty(), &at, &mut copies);
                                let mut body = self.block(&body)?;
                                let take_apart = TStmt::LetPat { pat, init: element, otherwise: None };
                                body.stmts.splice(0..0, std::iter::once(take_apart).chain(copies));
                                TKind::ForSeq { label, var, seq, body }
                            }
                        };
                        let unit = Ty::Scalar(Scalar::Unit);
                        let tail = Some(Box::new(TExpr { kind: each, ty: ty.clone(), range: range.clone() }));
                        let stmts = vec![TStmt::Let { local: hidden, init: Some(init) }];
                        let block = TBlock { stmts, tail, ty: Some(unit), label: None };
                        return Ok(TExpr { kind: TKind::Block(block), ty, range });
                    }
                }
            }
            ast::Expr::MethodCallExpr(m) => {
                if let Some(e) = self.result_method(m, &ty, &range)? {
                    return Ok(e);
                }
                if let Some(e) = self.option_ok_or_else(m, &ty, &range)? {
                    return Ok(e);
                }
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
                if let Some(kind) = self.atomic_method(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.map_push(m)? {
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
                if let Some(extended) = self.extend_by_value(m)? {
                    return Ok(extended);
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
                        (TKind::SeqSum(_), Some(name)) => self.range(name.syntax()).start,
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
                // `b'a'`: a `u8`.
                ast::LiteralKind::Byte(b) => match b.value() {
                    Ok(v) => Lit::Int(v.into()),
                    Err(_) => return self.unsupported("a malformed byte literal", expr.syntax()),
                },
                _ => return self.unsupported("a byte string literal", expr.syntax()),
            }),
            ast::Expr::ParenExpr(p) => match p.expr() {
                // rustc gives the inner expression the span of the parentheses: a fault in it (`(a - b)`
                // overflowing) is placed at the `(`. One placed at a part of its own (an index's `[`, a method's
                // name) stays there.
                Some(inner) => {
                    let inner_range = self.range(inner.syntax());
                    let mut e = self.expr(&inner)?;
                    if e.range == inner_range {
                        e.range = range;
                    }
                    return Ok(e);
                }
                None => return self.unsupported("empty parentheses", expr.syntax()),
            },
            ast::Expr::RecordExpr(r) => self.struct_literal(r, &ty)?,
            ast::Expr::PathExpr(p) => return self.path_expr(expr, p, ty, range),
            ast::Expr::RefExpr(r) if ty == Ty::Str => match self.text_ref(r, &ty)? {
                Some(kind) => kind,
                None => return self.unsupported("a reference", expr.syntax()),
            },
            // `&x` of a scalar: the typed view reads a shared reference as its value.
            ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() && ty.scalar().is_some() => {
                let Some(inner) = r.expr() else { return self.unsupported("a reference", expr.syntax()) };
                // A borrow of a place (not of a literal) is for rustc's borrow check to judge.
                if !matches!(inner, ast::Expr::Literal(_)) {
                    self.borrows("a borrow of a place", expr.syntax());
                }
                let mut value = self.expr(&inner)?;
                value.range = range;
                return Ok(value);
            }
            // `&x` of a host struct (`&v[i]`, `&s.inner`, `&local`): its address, read in place.
            ast::Expr::RefExpr(r)
                if r.mut_token().is_none() && r.raw_token().is_none() && matches!(ty, Ty::StructRef(_)) =>
            {
                let Some(inner) = r.expr() else { return self.unsupported("a reference", expr.syntax()) };
                let Ty::StructRef(id) = ty else { unreachable!("matched above") };
                let Some(mut value) = self.struct_borrowed(&inner, id)? else {
                    return self.unsupported("a reference to this struct", expr.syntax());
                };
                // Whether the borrow is allowed (and outlives its uses) is rustc's borrow check.
                self.borrows("a borrow of a host struct", expr.syntax());
                value.range = range;
                return Ok(value);
            }
            // `()` is the unit value.
            ast::Expr::TupleExpr(t) if t.fields().next().is_none() => TKind::Lit(Lit::Unit),
            ast::Expr::TupleExpr(t) => TKind::Tuple(t.fields().map(|f| self.expr(&f)).collect::<Result<_>>()?),
            // A named field, or a tuple struct's by position (`e.0` of `struct LoanError(pub String)`).
            ast::Expr::FieldExpr(f)
                if f.name_ref().is_some_and(|n| n.text().parse::<usize>().is_err())
                    || matches!(self.sema.resolve_field(f), Some(either::Either::Left(_))) =>
            {
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
                // `x.0` of `for x in v.iter_mut()` over tuples: the element at the loop's index.
                let base = match self.elem_ref(&base) {
                    Some((seq, at)) if matches!(seq.elem, lacuna_ir::Elem::Tuple(_)) => {
                        let base_range = self.range(base.syntax());
                        let index = Box::new(self.index_local(at, base_range.clone()));
                        TExpr { kind: TKind::SeqIndex { seq, index }, ty: seq.elem.read_ty(), range: base_range }
                    }
                    _ => self.expr(&base)?,
                };
                let part = match &base.ty {
                    Ty::Tuple(parts) if index < parts.len() => parts[index].clone(),
                    _ => return self.unsupported("a field of something other than a tuple", expr.syntax()),
                };
                // A `String` part of a tuple read in place (an element of a sequence of tuples) is its text.
                if part == Ty::Str && ty == Ty::String {
                    return Ok(TExpr { kind: TKind::Field(Box::new(base), index), ty: part, range });
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
            ast::Expr::MacroExpr(mac) => return self.macro_expr(expr, mac, ty, range),
            ast::Expr::PrefixExpr(p) => {
                let op = match p.op_kind() {
                    Some(ast::UnaryOp::Neg) => UnOp::Neg,
                    Some(ast::UnaryOp::Not) => UnOp::Not,
                    Some(ast::UnaryOp::Deref) => {
                        let Some(inner) = p.expr() else { return self.unsupported("a dereference", expr.syntax()) };
                        if let Some((binding, _, _)) = self.scalar_reference(&inner) {
                            return Ok(TExpr { kind: TKind::Deref(binding), ty, range });
                        }
                        if let Some((seq, index)) = self.elem_ref(&inner) {
                            let index = Box::new(self.index_local(index, range.clone()));
                            return Ok(TExpr { kind: TKind::SeqIndex { seq, index }, ty, range });
                        }
                        // `*e` of `let e = m.entry(k).or_insert(d)`: the map's value at the key.
                        if let Some((map, key)) = self.map_slot(&inner, &range) {
                            let at = range.start;
                            let kind = TKind::MapMethod { map, name: lacuna_ir::MapMethod::Index, args: vec![key], at };
                            return Ok(TExpr { kind, ty, range });
                        }
                        // `*x` of a shared reference to a scalar, which the typed view reads as the value.
                        let shared = self.sema.type_of_expr(&inner).and_then(|t| self.shared_scalar_ref(&t.original));
                        if shared.is_some() {
                            let mut value = self.expr(&inner)?;
                            value.range = range;
                            return Ok(value);
                        }
                        // `*w` of a `&&str` (or `&&S` of a host struct): the typed view reads both as the text (the
                        // address) in place, so the dereference reads the same value.
                        if matches!(ty, Ty::Str | Ty::StructRef(_)) {
                            let mut value = self.expr(&inner)?;
                            if value.ty == ty {
                                value.range = range;
                                return Ok(value);
                            }
                        }
                        return self.unsupported("a dereference", expr.syntax());
                    }
                    None => return self.unsupported("a prefix operator", expr.syntax()),
                };
                let Some(inner) = p.expr() else { return self.unsupported("an operand", expr.syntax()) };
                TKind::Unary(op, Box::new(self.expr(&inner)?))
            }
            ast::Expr::BinExpr(b) => return self.bin_expr(expr, b, ty, range),
            ast::Expr::CastExpr(c) => {
                let Some(inner) = c.expr() else { return self.unsupported("a cast", expr.syntax()) };
                TKind::Cast(Box::new(self.expr(&inner)?))
            }
            ast::Expr::BlockExpr(b) => TKind::Block(self.block(b)?),
            ast::Expr::IfExpr(i) => return self.if_expr(expr, i, ty, range),
            ast::Expr::WhileExpr(w) => return self.while_expr(expr, w, ty, range),
            ast::Expr::LoopExpr(l) => {
                let Some(body) = l.loop_body() else { return self.unsupported("`loop`", expr.syntax()) };
                let label = Self::label(l.label().and_then(|l| l.lifetime()));
                TKind::Loop { label, body: self.block(&body)? }
            }
            ast::Expr::ForExpr(f) => return self.for_expr(expr, f, ty, range),
            ast::Expr::BreakExpr(b) => {
                let value = match b.expr() {
                    Some(v) => Some(Box::new(self.expr(&v)?)),
                    None => None,
                };
                TKind::Break { label: Self::label(b.lifetime()), value }
            }
            ast::Expr::ContinueExpr(c) => TKind::Continue { label: Self::label(c.lifetime()) },
            ast::Expr::ReturnExpr(r) => self.return_expr(r)?,
            ast::Expr::CallExpr(c) if self.map_new(c, &ty) => TKind::MapNew,
            ast::Expr::CallExpr(c) => return self.call_expr(expr, c, ty, range),
            ast::Expr::IndexExpr(ix) if ix.base().and_then(|b| self.map_local(&b)).is_some() => {
                let map = ix.base().and_then(|b| self.map_local(&b)).expect("checked above");
                let Some(key) = ix.index() else { return self.unsupported("an index expression", expr.syntax()) };
                let key = self.map_key(map, &key)?;
                // `Index::index` panics inside std; rustc places the panic at the `[`.
                let at = ix.l_brack_token().map_or(range.start, |b| self.token_at(&b));
                TKind::MapMethod { map, name: MapMethod::Index, args: vec![key], at }
            }
            ast::Expr::IndexExpr(ix) => {
                if let Some(value) = self.binding_map_index(ix, &ty)? {
                    return Ok(value);
                }
                return self.seq_index(ix, ty);
            }
            ast::Expr::MethodCallExpr(m) => return self.method_call(expr, m, ty, range),
            ast::Expr::TryExpr(t) => return self.try_expr(t, ty, range),
            _ => return self.unsupported("an expression outside the subset", expr.syntax()),
        };
        Ok(TExpr { kind, ty, range })
    }
}
