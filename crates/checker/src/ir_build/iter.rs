//! Closures and iterator chains: source, adaptors, consumer.

use ra_ap_syntax::ast::{self, HasArgList, RangeItem};
use ra_ap_syntax::AstNode;

use crate::ir_build::{only_reversed, Builder, Result};
use lacuna_ir::{
    Closure, Elem, FlatMap, IterChain, IterSource, Method, Pieces, Scalar, ScalarMethod, SeqKind, Sink, Stage, TExpr,
    TKind, TPat, Ty,
};
use ra_ap_hir::{ModuleDef, PathResolution};

/// A call that starts an iterator chain the JIT fuses from a receiver other than a range: its items are the
/// receiver's elements, chars or pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SourceCall {
    Iter,
    /// `iter_mut()` of a hole binding's sequence of host structs: its items are the elements' addresses, as
    /// `iter()`'s are; what is written through them is a place of its own ([`Builder::found_in_place`]).
    IterMut,
    Chars,
    SplitWhitespace,
    Lines,
    Split,
    /// `windows(n)` / `chunks(n)` of a sequence: its runs, as slices.
    Windows,
    Chunks,
}

impl SourceCall {
    /// The source `call` names (by name only: whether it resolves to std's method is checked where it is read).
    pub(super) fn of(call: &ast::MethodCallExpr) -> Option<SourceCall> {
        Some(match call.name_ref()?.text() {
            "iter" => SourceCall::Iter,
            "iter_mut" => SourceCall::IterMut,
            "chars" => SourceCall::Chars,
            "split_whitespace" => SourceCall::SplitWhitespace,
            "lines" => SourceCall::Lines,
            "split" => SourceCall::Split,
            "windows" => SourceCall::Windows,
            "chunks" => SourceCall::Chunks,
            _ => return None,
        })
    }

    /// A text's pieces (`split_whitespace`, `lines`, `split(..)`).
    pub(super) fn is_pieces(self) -> bool {
        matches!(self, SourceCall::SplitWhitespace | SourceCall::Lines | SourceCall::Split)
    }
}

/// `x.f.values()` or `x.f.keys()`, by its syntax: what [`Builder::map_view`] may read as a host map's values or
/// keys.
pub(super) fn values_call(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::MethodCallExpr(m)
        if m.name_ref().is_some_and(|n| n.text() == "values" || n.text() == "keys")
            && matches!(m.receiver(), Some(ast::Expr::FieldExpr(_)))
            && m.arg_list().is_some_and(|l| l.args().next().is_none()))
}

/// A value that holds no reference: scalars, and what owns its text (`String`, vectors of scalars or strings, and
/// tuples and `Option`s of those).
fn points_nowhere(ty: &Ty) -> bool {
    match ty {
        Ty::Scalar(_) | Ty::String | Ty::Vec(Elem::Scalar(_) | Elem::String) => true,
        Ty::Tuple(parts) => parts.iter().all(points_nowhere),
        Ty::Option(payload) => points_nowhere(payload),
        _ => false,
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A closure written in place with at most one parameter: its parameter pattern and body. (`return` inside it
    /// would leave the closure, not the snippet function: not in the subset.)
    pub(super) fn closure(&mut self, e: &ast::Expr) -> Result<(Option<TPat>, TExpr)> {
        let Closure { mut params, body } = self.closure_with(e, None)?;
        if params.len() > 1 {
            return self.unsupported("a closure with several parameters", e.syntax());
        }
        Ok((params.pop(), *body))
    }

    /// A closure written in place (with `n` parameters when given).
    pub(super) fn closure_with(&mut self, e: &ast::Expr, n: Option<usize>) -> Result<Closure> {
        let (params, body) = self.closure_parts(e, n)?;
        let body = match e {
            ast::Expr::ClosureExpr(c) if Self::tries_in(c) => self.try_closure_body(c, &body)?,
            _ => self.expr(&body)?,
        };
        Ok(Closure { params, body: Box::new(body) })
    }

    /// `flat_map`'s closure: one parameter, and the iterator chain its body builds.
    fn flat_map_closure(&mut self, e: &ast::Expr) -> Result<FlatMap> {
        let (params, body) = self.closure_parts(e, Some(1))?;
        let Some(inner) = self.iter_chain(&body)? else {
            return self.unsupported("a `flat_map` closure other than an iterator chain", body.syntax());
        };
        Ok(FlatMap { params, inner })
    }

    /// A closure written in place (with `n` parameters, if given): its parameters' patterns and its body.
    pub(super) fn closure_parts(&mut self, e: &ast::Expr, n: Option<usize>) -> Result<(Vec<TPat>, ast::Expr)> {
        let ast::Expr::ClosureExpr(c) = e else {
            return self.unsupported("a closure that is not written in place", e.syntax());
        };
        let params: Vec<ast::Param> = c.param_list().into_iter().flat_map(|l| l.params()).collect();
        if n.is_some_and(|n| n != params.len()) {
            return self.unsupported("a closure with an unexpected number of parameters", c.syntax());
        }
        let mut pats = Vec::new();
        for p in &params {
            match p.pat() {
                Some(pat) => pats.push(self.pat(&pat)?),
                None => return self.unsupported("a closure parameter", p.syntax()),
            }
        }
        let Some(body) = c.body() else { return self.unsupported("a closure without a body", c.syntax()) };
        Ok((pats, body))
    }

    /// `e` as an iterator chain's parts, when it is one the JIT fuses: its base (a range, or the receiver of
    /// the first `iter()`) and its method calls in order. Pure syntax and resolution; nothing is built.
    pub(super) fn chain_parts(&self, e: &ast::Expr) -> Option<(ast::Expr, Vec<ast::MethodCallExpr>)> {
        const ADAPTORS: &[&str] = &[
            "copied",
            "cloned",
            "into_iter",
            "map",
            "filter",
            "filter_map",
            "flat_map",
            "take_while",
            "skip_while",
            "enumerate",
            "rev",
            "take",
            "skip",
            "zip",
            "chain",
        ];
        let mut calls = Vec::new();
        let mut current = e.clone();
        loop {
            match current {
                ast::Expr::ParenExpr(p) => current = p.expr()?,
                // A view of the snippet's map (`m.iter()`, `m.keys()`): the chain's base.
                ref view if self.snippet_map_view(view).is_some() => break,
                // A view of a map binding (`m.iter()`, `m.keys()`): the chain's base.
                ref view if self.binding_map_items(view) => break,
                ast::Expr::MethodCallExpr(m)
                    if SourceCall::of(&m).is_some()
                        || m.name_ref().is_some_and(|n| ADAPTORS.iter().any(|a| n.text() == *a)) =>
                {
                    // (`Vec`'s `into_iter` is `alloc`'s.)
                    let from_core = self.sema.resolve_method_call(&m).is_some_and(|f| {
                        let krate = self.fn_crate(f);
                        krate.as_deref() == Some("core")
                            || (krate.as_deref() == Some("alloc")
                                && m.name_ref().is_some_and(|n| n.text() == "into_iter"))
                    });
                    if !from_core {
                        return None;
                    }
                    current = m.receiver()?;
                    calls.push(m);
                }
                _ => break,
            }
        }
        calls.reverse();
        let first = calls.first();
        let base = match current {
            ast::Expr::RangeExpr(_) => current,
            other if self.snippet_map_view(&other).is_some() => other,
            other if first.and_then(SourceCall::of).is_some() => other,
            // A host map's values (`Builder::map_view`), or a map binding's keys or values.
            other if values_call(&other) || self.binding_map_items(&other) => other,
            // An array's items by value: scalars, as `iter()` reads them; of an array literal or of one the
            // snippet names (`Builder::array_by_value`).
            other
                if first.and_then(|c| c.name_ref()).is_some_and(|n| n.text() == "into_iter")
                    && (matches!(other, ast::Expr::ArrayExpr(_))
                        || self.array_local(&other).is_some()
                        || self.copy_array_binding(&other)) =>
            {
                other
            }
            // A vector's items by value: a snippet local's (`Builder::consumed_vector`) or one a call makes
            // (`Builder::vec_temporary`); never a place of the host's, which this would move out of.
            other
                if first.and_then(|c| c.name_ref()).is_some_and(|n| n.text() == "into_iter")
                    && (self.consumed_vector_local(&other)
                        || (matches!(other, ast::Expr::CallExpr(_) | ast::Expr::MethodCallExpr(_))
                            && self
                                .sema
                                .type_of_expr(&other)
                                .is_some_and(|t| self.vec_elem(&t.original).is_some()))) =>
            {
                other
            }
            _ => return None,
        };
        Some((base, calls))
    }

    /// The iterator chain `e` builds (see [`Self::chain_parts`]).
    pub(super) fn iter_chain(&mut self, e: &ast::Expr) -> Result<Option<IterChain>> {
        let Some((base, calls)) = self.chain_parts(e) else { return Ok(None) };
        let range = self.range(e.syntax());
        let mut calls = calls.into_iter().peekable();
        // Items of a consumed vector that own text, not yet taken by value (see below).
        let mut owned_items = false;
        let source = match &base {
            ast::Expr::RangeExpr(r) => {
                let Some(start) = r.start() else { return self.unsupported("a range without a start", r.syntax()) };
                let start = Box::new(self.expr(&start)?);
                if !start.s().is_int() {
                    return self.unsupported("a range of non-integers", r.syntax());
                }
                let end = match r.end() {
                    Some(end) => Some(Box::new(self.expr(&end)?)),
                    None => None,
                };
                let inclusive = r.op_kind() == Some(ast::RangeOp::Inclusive);
                if calls.peek().is_some_and(|c| c.name_ref().is_some_and(|n| n.text() == "into_iter")) {
                    calls.next();
                }
                IterSource::Range { start, end, inclusive }
            }
            other if calls.peek().is_some_and(|c| self.text_pieces_call(c)) => {
                let call = calls.next().expect("peeked");
                let text = self.text_operand(other)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return self.unsupported("pieces of something other than text", other.syntax());
                }
                let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let how = match (SourceCall::of(&call), args.as_slice()) {
                    (Some(SourceCall::SplitWhitespace), []) => Pieces::Whitespace,
                    (Some(SourceCall::Lines), []) => Pieces::Lines,
                    (Some(SourceCall::Split), [pattern]) => {
                        let pattern = self.text_operand(pattern)?;
                        if !matches!(pattern.ty, Ty::Str | Ty::Scalar(Scalar::Char)) {
                            return self.unsupported("a `split` pattern other than a `char` or text", call.syntax());
                        }
                        Pieces::Split(Box::new(pattern))
                    }
                    _ => return self.unsupported("a text method outside the subset", call.syntax()),
                };
                IterSource::Pieces { text: Box::new(text), how }
            }
            other if calls.peek().and_then(SourceCall::of) == Some(SourceCall::Chars) => {
                calls.next();
                let text = self.text_operand(other)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return self.unsupported("`chars` of something other than text", other.syntax());
                }
                IterSource::Chars(Box::new(text))
            }
            other if self.snippet_map_view(other).is_some() => match self.map_entries_temporary(other)? {
                Some(seq) => IterSource::Seq(seq),
                None => return self.unsupported("this view of a map", other.syntax()),
            },
            other if self.binding_map_items(other) => match self.binding_map_items_temporary(other)? {
                Some(seq) => IterSource::Seq(seq),
                None => return self.unsupported("the keys or values of this map", other.syntax()),
            },
            other if values_call(other) => match self.map_values_temporary(other)? {
                Some(seq) => IterSource::Seq(seq),
                None => return self.unsupported("the values of this map", other.syntax()),
            },
            other
                if calls.peek().is_some_and(|c| c.name_ref().is_some_and(|n| n.text() == "into_iter"))
                    && (self.array_local(other).is_some() || self.copy_array_binding(other)) =>
            {
                let Some(seq) = self.array_by_value(other) else {
                    return self.unsupported("`into_iter` of this array", other.syntax());
                };
                calls.next();
                IterSource::Seq(seq)
            }
            other
                if calls.peek().is_some_and(|c| c.name_ref().is_some_and(|n| n.text() == "into_iter"))
                    && self.consumed_vector_local(other) =>
            {
                let Some(seq) = self.consumed_vector(other)? else {
                    return self.unsupported("`into_iter` of this vector", other.syntax());
                };
                calls.next();
                owned_items = seq.elem.owns_buffer();
                IterSource::Seq(seq)
            }
            other => {
                let seq = match self.sequence(other) {
                    Some(seq) => Some(seq),
                    None => match self.array_temporary(other)? {
                        Some(seq) => Some(seq),
                        None => self.vec_temporary(other)?,
                    },
                };
                let mutable = calls.peek().and_then(SourceCall::of) == Some(SourceCall::IterMut);
                if let (true, Some(seq)) = (mutable, seq) {
                    // Only a hole binding's own sequence of host structs, which the host hands over writable.
                    let binding_kind =
                        matches!(seq.kind, SeqKind::Vec | SeqKind::Array(_) | SeqKind::RefVec | SeqKind::Slice);
                    if !binding_kind || !matches!(seq.elem, Elem::Struct(_)) || !seq.writable {
                        return self.unsupported("`iter_mut()` of this sequence", other.syntax());
                    }
                    // The chain lends the binding's vector mutably: whether it may (a binding the host did not
                    // declare `mut`: E0596) and what else the snippet does meanwhile are rustc's to judge.
                    self.rustc_decides("`iter_mut()` of a hole binding's vector", other.syntax());
                }
                let Some(seq) = seq else {
                    let over = self
                        .sema
                        .type_of_expr(other)
                        .and_then(|t| self.shown(&t.original, other.syntax()))
                        .map(|t| format!(" (`{t}`)"))
                        .unwrap_or_default();
                    let what = format!("an iterator over something other than a sequence of scalars{over}");
                    return self.unsupported(&what, other.syntax());
                };
                let call = calls.next().expect("the chain's source call");
                match SourceCall::of(&call) {
                    // `v.windows(n)` / `v.chunks(n)`: slices of the sequence.
                    Some(runs @ (SourceCall::Windows | SourceCall::Chunks)) => {
                        let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
                        let [size] = args.as_slice() else {
                            return self.unsupported("`windows` or `chunks` of this form", call.syntax());
                        };
                        let size = Box::new(self.expr(size)?);
                        // std's panic for a size of zero is placed, as a `#[track_caller]` method's, at its name.
                        let at = call.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
                        IterSource::Runs { seq, size, chunks: runs == SourceCall::Chunks, at }
                    }
                    _ => IterSource::Seq(seq),
                }
            }
        };
        let mut chain = IterChain { source, stages: Vec::new(), range };
        while let Some(call) = calls.next() {
            let name = call.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
            let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
            let item = chain.item();
            let scalar_item = item.scalar().is_some();
            let element_wise =
                chain.stages.iter().all(|(s, _)| matches!(s, Stage::Map(_) | Stage::Filter(_) | Stage::FilterMap(_)));
            if let ("chain", [other]) = (name.as_str(), args.as_slice()) {
                let (first_rev, second, second_rev) = self.chain_operand(&chain, other, &call)?;
                let IterChain { source, range, .. } = chain;
                let source = IterSource::Chain { first: Box::new(source), first_rev, second, second_rev };
                chain = IterChain { source, stages: Vec::new(), range };
                continue;
            }
            // Owned items are read in place (their text as `&str`) while stages pass them on by reference; the
            // first `map` or `filter_map` takes them by value, its closure binding copies of their text.
            let takes_by_value = matches!((name.as_str(), args.as_slice()), ("map", [ast::Expr::ClosureExpr(_)]))
                || name == "filter_map";
            let passes_on = matches!(name.as_str(), "filter" | "take" | "skip" | "take_while" | "skip_while" | "rev");
            if owned_items && !takes_by_value && !passes_on {
                return self.unsupported("this adaptor of items taken by value", call.syntax());
            }
            let (stage, ty) = match (name.as_str(), args.as_slice()) {
                ("copied" | "cloned", []) if scalar_item => continue,
                // `copied()` of a `Vec<&str>`'s items (`&&str` to `&str`): the same text.
                ("copied", []) if chain.source_elem_kept() == Some(Elem::Str) => continue,
                // `cloned()` of a `Vec<String>`'s items (`&String` to `String`): a new `String` of each.
                ("cloned", []) if chain.source_elem_kept() == Some(Elem::String) => {
                    (Stage::Map(self.string_from_text_closure(call.syntax())), Ty::String)
                }
                ("zip", [other]) => {
                    let (other, reversed) = self.simple_iter(other)?;
                    let other_item = other.item();
                    if reversed || !item.in_place() || !other_item.in_place() {
                        return self.unsupported("a `zip` of these items", call.syntax());
                    }
                    (Stage::Zip(other), Ty::Tuple(vec![item, other_item]))
                }
                // `map(String::from)` (or `str::to_string`, `str::to_owned`) over text: a new `String` of each.
                ("map", [ast::Expr::PathExpr(p)]) if item == Ty::Str && self.text_to_string_fn(p) => {
                    (Stage::Map(self.string_from_text_closure(p.syntax())), Ty::String)
                }
                ("map", [c]) => {
                    let c = self.closure_with(c, Some(1))?;
                    let c = if owned_items { self.copying_closure(c, &item) } else { c };
                    let ty = c.body.ty.clone();
                    (Stage::Map(c), ty)
                }
                ("filter", [c]) => (Stage::Filter(self.closure_with(c, Some(1))?), item),
                ("flat_map", [c]) => {
                    let fm = self.flat_map_closure(c)?;
                    let ty = fm.inner.item();
                    (Stage::FlatMap(Box::new(fm)), ty)
                }
                ("take_while", [c]) => (Stage::TakeWhile(self.closure_with(c, Some(1))?), item),
                ("skip_while", [c]) => (Stage::SkipWhile(self.closure_with(c, Some(1))?), item),
                ("filter_map", [c]) => {
                    // `filter_map(|x| tool(x).ok()).map(|o| ..)` of a tool's host struct: one stage.
                    let fused = match owned_items {
                        false => self.ok_then_map(c, calls.peek())?,
                        true => None,
                    };
                    let c = match fused {
                        Some(fused) => {
                            calls.next();
                            fused
                        }
                        None => self.closure_with(c, Some(1))?,
                    };
                    let c = if owned_items { self.copying_closure(c, &item) } else { c };
                    // An `Option` of a scalar, of a value read in place (`Option<&str>`, `Option<&S>`), of a new
                    // `String` (`parse(l).err()`) or of a tuple of them (`Some((s.name.clone(), avg))`).
                    let held = |p: &Ty| p.in_place() || *p == Ty::String;
                    let payload = match &c.body.ty {
                        Ty::Option(p) if held(p) => (**p).clone(),
                        Ty::Option(p) if matches!(&**p, Ty::Tuple(parts) if parts.iter().all(held)) => (**p).clone(),
                        _ => return self.unsupported("a `filter_map` closure", call.syntax()),
                    };
                    (Stage::FilterMap(c), payload)
                }
                ("enumerate", []) if item.in_place() => {
                    (Stage::Enumerate, Ty::Tuple(vec![Ty::Scalar(Scalar::Usize), item]))
                }
                ("enumerate", []) => return self.unsupported("`enumerate` of tuples or owned values", call.syntax()),
                ("rev", []) => {
                    // (Of text's pieces, only `lines` runs backwards.)
                    let bounded = !matches!(&chain.source, IterSource::Range { end: None, .. })
                        && !matches!(&chain.source, IterSource::Chain { .. })
                        && !matches!(&chain.source, IterSource::Pieces { how, .. } if !matches!(how, Pieces::Lines));
                    if !(bounded && element_wise) {
                        return self.unsupported("`rev` after an adaptor that counts", call.syntax());
                    }
                    (Stage::Rev, item)
                }
                ("take", [n]) => (Stage::Take(Box::new(self.expr(n)?)), item),
                ("skip", [n]) => (Stage::Skip(Box::new(self.expr(n)?)), item),
                _ => return self.unsupported("an iterator adaptor outside the subset", call.syntax()),
            };
            if owned_items && takes_by_value {
                // What the closure gives owns what it holds, or is a scalar: nothing may point into the vector,
                // which is dropped once the expression consuming it ends.
                if !points_nowhere(&ty) {
                    return self.unsupported("a value pointing into items taken by value", call.syntax());
                }
                owned_items = false;
            }
            chain.stages.push((stage, ty));
        }
        if owned_items {
            // `v.into_iter().filter(..)` of a `Vec<String>` the snippet owns: the items that come out are `String`s
            // moved out of it, which are copies of their text here (the vector, all its strings, is dropped
            // once the expression consuming it ends). Nothing can tell a copy from the moved `String`.
            let text_items = chain.stages.last().is_none_or(|(_, ty)| *ty == Ty::Str);
            if chain.source_elem_kept() != Some(Elem::String) || !text_items {
                return self.unsupported("items taken by value without a `map` copying them", e.syntax());
            }
            chain.stages.push((Stage::Map(self.string_from_text_closure(e.syntax())), Ty::String));
        }
        Ok(Some(chain))
    }

    /// An iterator `zip` or `chain` takes: a range or a sequence's `iter()`, possibly reversed (`rev` its only
    /// adaptor).
    pub(super) fn simple_iter(&mut self, e: &ast::Expr) -> Result<(Box<IterSource>, bool)> {
        let Some(chain) = self.iter_chain(e)? else {
            return self.unsupported("an iterator argument other than a range or a sequence's `iter()`", e.syntax());
        };
        let Some(reversed) = only_reversed(&chain.stages) else {
            return self.unsupported("an iterator argument with adaptors", e.syntax());
        };
        if !matches!(chain.source, IterSource::Range { .. } | IterSource::Seq(_)) {
            return self.unsupported("an iterator argument other than a range or a sequence's `iter()`", e.syntax());
        }
        Ok((Box::new(chain.source), reversed))
    }

    /// `chain.chain(other)`: whether the chain so far runs reversed, `other`, and whether it does; both are ranges
    /// or sequences' `iter()` of the same item type.
    pub(super) fn chain_operand(
        &mut self,
        chain: &IterChain,
        other: &ast::Expr,
        call: &ast::MethodCallExpr,
    ) -> Result<(bool, Box<IterSource>, bool)> {
        let Some(first_rev) = only_reversed(&chain.stages) else {
            return self.unsupported("`chain` after adaptors", call.syntax());
        };
        if !matches!(chain.source, IterSource::Range { .. } | IterSource::Seq(_)) {
            return self.unsupported("`chain` of something other than a range or a sequence", call.syntax());
        }
        let (second, second_rev) = self.simple_iter(other)?;
        if second.item() != chain.source.item() {
            return self.unsupported("`chain` of two item types", call.syntax());
        }
        Ok((first_rev, second, second_rev))
    }

    /// `CHAIN.sink(..)`: an iterator chain consumed where it is built.
    pub(super) fn consume(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        const SINKS: &[&str] = &[
            "sum",
            "product",
            "count",
            "max",
            "min",
            "last",
            "next",
            "any",
            "all",
            "position",
            "find",
            "find_map",
            "max_by_key",
            "min_by_key",
            "max_by",
            "min_by",
            "fold",
            "collect",
        ];
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        if !SINKS.contains(&name.as_str()) || self.chain_parts(&receiver).is_none() {
            return Ok(None);
        }
        let in_iterator =
            self.sema.resolve_method_call(m).and_then(|f| self.core_trait_of(f)).as_deref() == Some("Iterator");
        if !in_iterator {
            return Ok(None);
        }
        // `m.into_iter().collect::<Vec<_>>()` of the snippet's map: its view is that vector already.
        if let ("collect", Some((map, view))) = (name.as_str(), self.snippet_map_view(&receiver)) {
            let ty = self.expr_type(&ast::Expr::MethodCallExpr(m.clone())).ok();
            if let Some(made) = self.map_view_expr(map, view, &receiver)? {
                if ty.as_ref() == Some(&made.ty) {
                    return Ok(Some(made.kind));
                }
            }
        }
        let Some(mut chain) = self.iter_chain(&receiver)? else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        let sink = match (name.as_str(), args.as_slice()) {
            ("sum", []) => Sink::Sum { at },
            ("product", []) => Sink::Product { at },
            ("count", []) => Sink::Count,
            ("max", []) => Sink::Max,
            ("min", []) => Sink::Min,
            ("last", []) => Sink::Last,
            ("next", []) => Sink::Next,
            // `find_map(f)` is `filter_map(f).next()`: the first `Some` the closure gives, nothing pulled after it.
            ("find_map", [c]) => {
                let c = self.closure_with(c, Some(1))?;
                let payload = match &c.body.ty {
                    Ty::Option(p) if p.in_place() || **p == Ty::String => (**p).clone(),
                    _ => return self.unsupported("a `find_map` closure", m.syntax()),
                };
                chain.stages.push((Stage::FilterMap(c), payload));
                Sink::Next
            }
            ("any", [c]) => Sink::Any(self.closure_with(c, Some(1))?),
            ("all", [c]) => Sink::All(self.closure_with(c, Some(1))?),
            ("position", [c]) => Sink::Position(self.closure_with(c, Some(1))?),
            ("find", [c]) => Sink::Find(self.closure_with(c, Some(1))?),
            ("max_by_key", [c]) => Sink::MaxByKey(self.closure_with(c, Some(1))?),
            ("min_by_key", [c]) => Sink::MinByKey(self.closure_with(c, Some(1))?),
            ("max_by", [c]) => Sink::MaxBy(self.comparison(c)?),
            ("min_by", [c]) => Sink::MinBy(self.comparison(c)?),
            ("fold", [init, c]) => {
                let init = Box::new(self.expr(init)?);
                let closure = match c {
                    // `fold(0.0, f64::max)`: std's `max`/`min` of numbers named as a function.
                    ast::Expr::PathExpr(p) => match self.min_max_fn(p, &init.ty, &chain.item()) {
                        Some(method) => self.min_max_closure(method, &init.ty, p.syntax()),
                        None => return self.unsupported("a `fold` function other than `max` or `min`", c.syntax()),
                    },
                    c => self.closure_with(c, Some(2))?,
                };
                Sink::Fold { init, closure }
            }
            // Into a `Vec` or a set of the items only (the lowering checks the types).
            ("collect", []) => match self.expr_type(&ast::Expr::MethodCallExpr(m.clone()))? {
                Ty::Vec(_) | Ty::String => {
                    // A `Vec<&S>` keeps references (read as the values): rustc's borrow check judges them.
                    let real = self.sema.type_of_expr(&ast::Expr::MethodCallExpr(m.clone()));
                    if real.is_none_or(|t| self.holds_reference(&t.original)) {
                        self.borrows("a collection of references", m.syntax());
                    }
                    Sink::Collect { at }
                }
                // Into a set, or a map of scalar values from `(key, value)` pairs.
                ty @ Ty::Map { value: lacuna_ir::MapValue::Scalar(_), .. } => {
                    // A `HashSet<&str>` (a `HashMap<&str, _>`) keeps references: rustc's borrow check judges them.
                    if matches!(&ty, Ty::Map { key, .. } if **key == Ty::Str) {
                        self.borrows("a collection of borrowed text", m.syntax());
                    }
                    Sink::Collect { at }
                }
                // `collect::<Result<Vec<_>, _>>()` of `Result` items: the `Ok` values of all, or the first `Err`.
                Ty::Result(ok, err)
                    if matches!(*ok, Ty::Vec(Elem::Scalar(_)))
                        && matches!((chain.item(), &*ok), (Ty::Result(item, item_err), Ty::Vec(Elem::Scalar(s)))
                            if *item == Ty::Scalar(*s) && item_err == err) =>
                {
                    Sink::Collect { at }
                }
                _ => return self.unsupported("a collection other than a `Vec` or a set", m.syntax()),
            },
            _ => return self.unsupported("an iterator method outside the subset", m.syntax()),
        };
        Ok(Some(TKind::Consume { chain, sink }))
    }

    /// `f64::max`, `u32::min`, `std::cmp::max` (std's, of numbers) named as a function of an accumulator and an
    /// item of the same scalar type `ty`: the method it is.
    fn min_max_fn(&self, p: &ast::PathExpr, acc: &Ty, item: &Ty) -> Option<ScalarMethod> {
        let Some(PathResolution::Def(ModuleDef::Function(f))) = p.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return None;
        };
        acc.scalar().filter(|s| (s.is_int() || s.is_float()) && acc == item)?;
        if self.fn_crate(f).as_deref() != Some("core") {
            return None;
        }
        match f.name(self.db).as_str() {
            "max" => Some(ScalarMethod::Max),
            "min" => Some(ScalarMethod::Min),
            _ => None,
        }
    }

    /// `|a, b| a.max(b)` (or `min`) over values of type `ty`: what naming the function means.
    fn min_max_closure(&mut self, method: ScalarMethod, ty: &Ty, at: &ra_ap_syntax::SyntaxNode) -> Closure {
        let range = self.range(at);
        let (a, read_a) = self.hidden(ty, "accumulator", &range);
        let (b, read_b) = self.hidden(ty, "item", &range);
        let kind = TKind::Method { name: Method::Scalar(method), receiver: Box::new(read_a), args: vec![read_b] };
        Closure { params: vec![TPat::Bind(a), TPat::Bind(b)], body: Box::new(TExpr { kind, ty: ty.clone(), range }) }
    }
}
