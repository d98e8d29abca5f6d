//! Sequences: the hole's vectors and slices, vectors the snippet builds, their methods and loops over them.

use ra_ap_hir::{AsAssocItem, PathResolution};
use ra_ap_syntax::ast::{self, HasArgList, HasName, RangeItem};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{
    Closure, Elem, ElemField, LocalRef, Scalar, Seq, SeqClosureMethod, SeqKind, SeqMethod, SeqPlace, TBlock, TExpr,
    TKind, TLocal, TPat, TStmt, TextMethod, Ty,
};

impl<'a, 'db> Builder<'a, 'db> {
    /// A hole binding that is a sequence of scalars (`Vec<S>`, `&Vec<S>`, `&mut Vec<S>`, `&[S]`, `&mut [S]`,
    /// with `S` at most 64 bits), as `expr` names it.
    pub(super) fn sequence(&mut self, expr: &ast::Expr) -> Option<Seq> {
        if let Some(seq) = self.owned_sequence(expr) {
            return Some(seq);
        }
        if let ast::Expr::FieldExpr(f) = expr {
            return self.field_sequence(f);
        }
        let (binding, local) = self.hole_binding(expr)?;
        self.binding_sequence(binding, local)
    }

    /// The hole's binding `binding` (of local `local`) as a sequence, when it is one (see [`Self::sequence`]).
    pub(super) fn binding_sequence(&mut self, binding: usize, local: ra_ap_hir::Local<'db>) -> Option<Seq> {
        let ty = local.ty(self.db);
        let vec_elem = |ty: &ra_ap_hir::Type<'db>| self.vec_elem(ty);
        let (kind, elem, writable) = match ty.as_reference() {
            Some((inner, m)) if inner.is_slice() => {
                (SeqKind::Slice, inner.as_slice()?, m == ra_ap_hir::Mutability::Mut)
            }
            Some((inner, m)) => (SeqKind::RefVec, vec_elem(&inner)?, m == ra_ap_hir::Mutability::Mut),
            None => match ty.as_array(self.db) {
                Some((elem, len)) => (SeqKind::Array(len as u64), elem, local.is_mut(self.db)),
                None => (SeqKind::Vec, vec_elem(&ty)?, local.is_mut(self.db)),
            },
        };
        let elem = self.elem(&elem)?;
        if elem.owns_buffer() {
            self.owns_buffers.set(true);
        }
        self.note_binding(binding, elem.scalar().unwrap_or(Scalar::Unit));
        Some(Seq { binding, kind, elem, writable })
    }

    /// `base.a.b.v` of a `Vec` field `v` of host structs held inline, from a local that holds the first struct or
    /// a shared reference to it (`store.orders`, `o.items` for an iterator's item `o`): read in place.
    fn field_sequence(&mut self, f: &ast::FieldExpr) -> Option<Seq> {
        let mut path = Vec::new();
        let mut at = ast::Expr::FieldExpr(f.clone());
        let mut outermost = true;
        while let ast::Expr::FieldExpr(field_expr) = at {
            let Some(either::Either::Left(field)) = self.sema.resolve_field(&field_expr) else { return None };
            let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return None };
            let field_ty = field.ty(self.db);
            // Every step but the last goes into a struct held inline.
            let inline_struct =
                matches!(field_ty.as_adt(), Some(ra_ap_hir::Adt::Struct(_))) && self.host_type(&field_ty).is_some();
            if !outermost && !inline_struct {
                return None;
            }
            outermost = false;
            path.push(lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), field.name(self.db).as_str()));
            at = field_expr.expr()?;
        }
        path.reverse();
        let ast::Expr::PathExpr(_) = &at else { return None };
        let elem_ty = self.vec_elem(&self.sema.type_of_expr(&ast::Expr::FieldExpr(f.clone()))?.original)?;
        let elem = self.elem(&elem_ty)?;
        // Writable where the hole's binding holds the struct in a `mut` binding or points to it by `&mut` (the
        // lowering marks the binding written).
        let (local, base_ty, writable) = match self.binding_behind_ref(&at, None) {
            // A hole binding `&S` or `&mut S` (a hole in a `&mut self` method): where it points.
            Some((binding, id)) => {
                let mut_ref = self.bindings.get(binding).is_some_and(|b| b.mut_ref);
                (LocalRef::Binding(binding), Ty::StructRef(id), mut_ref)
            }
            None => {
                let base = self.expr(&at).ok()?;
                let (TKind::Local(local), Ty::Struct(_) | Ty::StructRef(_)) = (&base.kind, &base.ty) else {
                    return None;
                };
                let writable = match (local, &base.ty) {
                    (LocalRef::Binding(b), Ty::Struct(_)) => self.bindings.get(*b).is_some_and(|b| b.mutable),
                    (LocalRef::Snippet(l), Ty::StructRef(_)) => self.mut_elems.contains_key(l),
                    _ => false,
                };
                (*local, base.ty, writable)
            }
        };
        let root = match local {
            LocalRef::Snippet(l) => self.mut_elems.get(&l).copied(),
            LocalRef::Binding(_) => None,
        };
        if elem.owns_buffer() {
            self.owns_buffers.set(true);
        }
        // A loan of the field is a loan of its base local: the subset's own borrow check (`lowering::ownership`)
        // judges moves of the base and changes to it while the sequence is read, as for a binding's sequence. A
        // reference into it kept in a local is still rustc's to judge (`note_reference_local`).
        let place = SeqPlace { base: local, base_ty, path, root };
        let index = match self.seq_places.iter().position(|p| *p == place) {
            Some(i) => i,
            None => {
                self.seq_places.push(place);
                self.seq_places.len() - 1
            }
        };
        Some(Seq { binding: index, kind: SeqKind::Field, elem, writable })
    }

    /// `x.f.values()` or `x.f.len()` of a `HashMap` or `BTreeMap` field `f` of a plain host struct whose values are
    /// host structs or enums: a call of the method the instrumented host adds for it (`outline::map_views`), on
    /// `x` read in place — the values as a `Vec<&V>` in the map's own order, or the length.
    pub(super) fn map_view(&mut self, expr: &ast::Expr) -> Result<Option<TExpr>> {
        let ast::Expr::MethodCallExpr(m) = expr else { return Ok(None) };
        let Some(view) =
            m.name_ref().map(|n| n.text().to_string()).filter(|n| matches!(n.as_str(), "values" | "keys" | "len"))
        else {
            return Ok(None);
        };
        let (Some(ast::Expr::FieldExpr(field_expr)), true) =
            (m.receiver(), m.arg_list().is_some_and(|l| l.args().next().is_none()))
        else {
            return Ok(None);
        };
        let own = self.sema.resolve_method_call(m).is_some_and(|f| {
            matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc")) && self.core_trait_of(f).is_none()
        });
        let Some(either::Either::Left(field)) = self.sema.resolve_field(&field_expr) else { return Ok(None) };
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return Ok(None) };
        let map_ty = field.ty(self.db);
        let is_map = self.std_collection(&map_ty).is_some_and(|c| !c.is_set());
        let (Some(key), Some(value)) = (map_ty.type_arguments().next(), map_ty.type_arguments().nth(1)) else {
            return Ok(None);
        };
        // Keys of a scalar type (the view copies them out) or `String` keys (their text, read in place), or values
        // of a plain host type.
        let text_keys = self.is_string(&key);
        let key = self.part(&key).filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never));
        let value_id = self.host_type(&value);
        let viewed = match view.as_str() {
            "keys" => key.is_some() || text_keys,
            _ => value_id.is_some(),
        };
        if !(own && is_map && viewed) {
            return Ok(None);
        }
        let Some(base) = field_expr.expr() else { return Ok(None) };
        let Some(place) = self.struct_place(&base)? else { return Ok(None) };
        let (Ty::Struct(_) | Ty::StructRef(_)) = place.ty else { return Ok(None) };
        let ty_name = st.name(self.db).as_str().to_owned();
        let field_name = field.name(self.db).as_str().to_owned();
        let ty = match (view.as_str(), key, value_id) {
            ("values", _, Some(value_id)) => {
                // The values borrow the map: rustc's borrow check judges the snippet.
                self.borrows("a map field's values", expr.syntax());
                self.owns_buffers.set(true);
                Ty::Vec(Elem::StructRef(value_id))
            }
            ("keys", Some(key), _) => {
                // Copied out, but `keys()` borrows the map while the snippet iterates: rustc judges that too.
                self.borrows("a map field's keys", expr.syntax());
                self.owns_buffers.set(true);
                Ty::Vec(Elem::Scalar(key))
            }
            ("keys", None, _) if text_keys => {
                // The text points into the map's keys: rustc's borrow check judges how long they are read.
                self.borrows("a map field's keys", expr.syntax());
                self.owns_buffers.set(true);
                Ty::Vec(Elem::Str)
            }
            _ => Ty::Scalar(Scalar::Usize),
        };
        let kind = TKind::HostCall {
            name: view.clone(),
            symbol: crate::outline::map_view_symbol(&ty_name, &view, &field_name),
            receiver: Some(lacuna_ir::Receiver::InPlace(Box::new(place))),
            args: Vec::new(),
        };
        Ok(Some(TExpr { kind, ty, range: self.range(m.syntax()) }))
    }

    /// `x.f.values()` or `x.f.keys()` ([`Self::map_view`]) in a hidden local the expression being built is put
    /// after: a sequence
    /// the snippet owns (its buffer freed where rustc drops the temporary).
    pub(super) fn map_values_temporary(&mut self, expr: &ast::Expr) -> Result<Option<Seq>> {
        let Some(call) = self.map_view(expr)? else { return Ok(None) };
        let what = match &call.kind {
            TKind::HostCall { name, .. } => name.clone(),
            _ => "values".to_owned(),
        };
        Ok(self.hoist_vector(&what, call))
    }

    /// `made`, a vector, in a hidden local (named `<what at ..>`) the expression being built is put after
    /// ([`Self::hoisted`]): the sequence it is from then on.
    pub(super) fn hoist_vector(&mut self, what: &str, made: TExpr) -> Option<Seq> {
        let Ty::Vec(elem) = made.ty else { return None };
        let hidden = self.locals.len();
        let name = format!("<{what} at {}>", made.range.start);
        self.locals.push(TLocal { name, ty: Ty::Vec(elem), mutable: false, fixed_type: true, array_literal: false });
        self.hoisted.push(TStmt::Let { local: hidden, init: Some(made) });
        Some(Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false })
    }

    /// A vector the expression makes (a host function's `Vec<&T>`, `v.clone()` of scalars) read where it is made
    /// (`host.orders_of(c).iter()`): in a hidden local the expression being built is put after, as
    /// [`Self::map_values_temporary`]. Only elements that are copied out or point outside the vector (scalars;
    /// `&str`, `&S` a host function returns): the hidden local lives to the end of that expression, which can be
    /// earlier than rustc drops the temporary (a `match` scrutinee's lives through the arms, where an item read in
    /// place from a `Vec<String>` would point into freed text) or later (a host struct's own `Drop` would run out
    /// of order).
    pub(super) fn vec_temporary(&mut self, expr: &ast::Expr) -> Result<Option<Seq>> {
        if matches!(expr, ast::Expr::PathExpr(_)) {
            return Ok(None);
        }
        let Some(ty) = self.sema.type_of_expr(expr).map(|t| t.original) else { return Ok(None) };
        if self.vec_elem(&ty).is_none() {
            return Ok(None);
        }
        let made = self.expr(expr)?;
        // References only from a host function, whose results point into the host's memory: one the snippet's own
        // expression made could point into a temporary of that expression (`format!(..).split(',')`), freed
        // when the hidden local's initializer ends.
        let from_host = matches!(made.kind, TKind::HostCall { .. });
        match made.ty {
            Ty::Vec(Elem::Scalar(_)) => {}
            Ty::Vec(Elem::Str | Elem::StructRef(_)) if from_host => {}
            _ => return Ok(None),
        }
        Ok(self.hoist_vector("vector", made))
    }

    /// `v` a snippet local holding a vector of anything but host structs: what `v.into_iter()` consumes as
    /// [`Self::consumed_vector`]. Elements that own text (`String`, tuples with `String` parts) are read in place
    /// like the others; what takes one by value binds copies of its text ([`Self::copy_owned_parts`]).
    pub(super) fn consumed_vector_local(&self, e: &ast::Expr) -> bool {
        let ast::Expr::PathExpr(p) = e else { return false };
        let Some(PathResolution::Local(local)) = p.path().and_then(|p| self.sema.resolve_path(&p)) else {
            return false;
        };
        let elem = self.vec_elem(&local.ty(self.db)).and_then(|t| self.elem(&t));
        self.local_ids.contains_key(&local) && elem.is_some_and(|e| !matches!(e, Elem::Struct(_)))
    }

    /// `pat` binding an element of a consumed vector by value, where the element is read in place (`item`: its
    /// text as `&str`): each name the pattern binds to an owned `String` binds a hidden `&str` of the part instead,
    /// and `stmts` gets `let name = <that text>.to_string();`, a copy the name owns. The vector keeps the original
    /// until it is dropped (after the loop, or at the end of the expression consuming it); nothing observes that
    /// the name owns a copy rather than the element's own buffer.
    pub(super) fn copy_owned_parts(
        &mut self,
        pat: TPat,
        item: &Ty,
        range: &std::ops::Range<usize>,
        stmts: &mut Vec<TStmt>,
    ) -> TPat {
        match (pat, item) {
            (TPat::Bind(local), Ty::Str) if self.locals[local].ty == Ty::String => {
                let (text, read) = self.hidden(&Ty::Str, "text", range);
                let kind = TKind::TextMethod { name: TextMethod::ToString, receiver: Box::new(read), args: Vec::new() };
                let copy = TExpr { kind, ty: Ty::String, range: range.clone() };
                stmts.push(TStmt::Let { local, init: Some(copy) });
                TPat::Bind(text)
            }
            (TPat::Tuple(parts), Ty::Tuple(items)) if parts.len() == items.len() => {
                let parts = parts.into_iter().zip(items).map(|(p, t)| self.copy_owned_parts(p, t, range, stmts));
                TPat::Tuple(parts.collect())
            }
            (pat, _) => pat,
        }
    }

    /// A closure taking items of a consumed vector by value ([`Self::copy_owned_parts`] of its one parameter): the
    /// copies made at the top of its body.
    pub(super) fn copying_closure(&mut self, c: Closure, item: &Ty) -> Closure {
        let Closure { mut params, body } = c;
        let mut stmts = Vec::new();
        if let [param] = params.as_mut_slice() {
            let range = body.range.clone();
            *param = self.copy_owned_parts(std::mem::replace(param, TPat::Wild), item, &range, &mut stmts);
        }
        if stmts.is_empty() {
            return Closure { params, body };
        }
        let (ty, range) = (body.ty.clone(), body.range.clone());
        let block = TBlock { stmts, tail: Some(body), ty: Some(ty.clone()), label: None };
        Closure { params, body: Box::new(TExpr { kind: TKind::Block(block), ty, range }) }
    }

    /// `v.into_iter()` of a snippet local ([`Self::consumed_vector_local`]): the vector moved into a hidden local
    /// (a use of `v` after it is the ownership check's, or rustc's, error), its items read as `iter()` reads them
    /// — each is a copy of the element, and what a reference element points to outlives the vector.
    pub(super) fn consumed_vector(&mut self, e: &ast::Expr) -> Result<Option<Seq>> {
        let made = self.expr(e)?;
        Ok(self.hoist_vector("vector", made))
    }

    /// The call a `for` loop's iterable `e` iterates the result of (`f(..)`, `&f(..)`, `f(..).iter()`): what
    /// [`Self::vec_temporary`] may hold in a hidden local for the loop.
    pub(super) fn made_vector(&self, e: &ast::Expr) -> Option<ast::Expr> {
        let inner = match e {
            ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() => r.expr()?,
            // std's `iter` (the slice's), not one a trait in scope adds.
            ast::Expr::MethodCallExpr(m)
                if m.name_ref().is_some_and(|n| n.text() == "iter")
                    && m.arg_list().is_some_and(|l| l.args().next().is_none())
                    && self
                        .sema
                        .resolve_method_call(m)
                        .is_some_and(|f| self.fn_crate(f).as_deref() == Some("core")) =>
            {
                m.receiver()?
            }
            other => other.clone(),
        };
        matches!(inner, ast::Expr::CallExpr(_) | ast::Expr::MethodCallExpr(_)).then_some(inner)
    }

    /// `vec![a, b, ..]`, `vec![x; n]` and `vec![]`, read from the macro's expansion (its elements keep their
    /// place in the snippet).
    pub(super) fn vec_macro(&mut self, call: &ast::MacroCall) -> Result<TKind> {
        let Some(expansion) = self.sema.expand_macro_call(call) else {
            return self.unsupported("a `vec!` that does not expand", call.syntax());
        };
        let tokens: Vec<_> = call
            .token_tree()
            .map(|t| t.syntax().children_with_tokens().filter_map(|t| t.into_token()).collect())
            .unwrap_or_default();
        // Empty: only the delimiters (a `{ .. }` element is a group, not tokens, at this level).
        let groups = call.token_tree().is_some_and(|t| t.syntax().children().next().is_some());
        let empty = !groups
            && tokens.iter().all(|t| t.kind().is_trivia() || matches!(t.text(), "(" | ")" | "[" | "]" | "{" | "}"));
        if empty {
            return Ok(TKind::VecLit(Vec::new()));
        }
        if tokens.iter().any(|t| t.kind() == ra_ap_syntax::SyntaxKind::SEMICOLON) {
            // `vec![value; count]` is `from_elem(value, count)`.
            let from_elem = expansion.value.descendants().filter_map(ast::CallExpr::cast).find(|c| {
                matches!(c.expr(), Some(ast::Expr::PathExpr(p)) if p.path().and_then(|p| p.segment()).is_some_and(|s| s.to_string() == "from_elem"))
            });
            let args: Vec<ast::Expr> =
                from_elem.into_iter().flat_map(|c| c.arg_list()).flat_map(|l| l.args()).collect();
            let [value, count] = args.as_slice() else {
                return self.unsupported("`vec![value; count]`", call.syntax());
            };
            let value = Box::new(self.expr(value)?);
            let count = Box::new(self.expr(count)?);
            return Ok(TKind::VecRepeat { value, count });
        }
        let Some(array) = expansion.value.descendants().find_map(ast::ArrayExpr::cast) else {
            return self.unsupported("a `vec!` of this form", call.syntax());
        };
        let elems = array.exprs().map(|e| self.expr(&e)).collect::<Result<Vec<_>>>()?;
        Ok(TKind::VecLit(elems))
    }

    /// `v[i]` of a sequence, as a value of type `ty` (the element's, or for an element read in place, the reference
    /// the typed view reads it through).
    pub(super) fn seq_index(&mut self, ix: &ast::IndexExpr, ty: Ty) -> Result<TExpr> {
        let range = self.range(ix.syntax());
        let (Some(base), Some(index)) = (ix.base(), ix.index()) else {
            return self.unsupported("an index expression", ix.syntax());
        };
        let Some(seq) = self.sequence(&base) else {
            return self.unsupported("indexing something other than a sequence of scalars", ix.syntax());
        };
        let index = self.expr(&index)?;
        if index.s() != Scalar::Usize {
            return self.unsupported("an index that is not a `usize`", ix.syntax());
        }
        let builtin = self.builtin_index(&seq, ix.syntax());
        let kind = TKind::SeqIndex { seq, index: Box::new(index) };
        // A `Vec`'s indexing is a call of `Index::index`, whose faults rustc places at the `[`.
        match ix.l_brack_token() {
            Some(bracket) if !builtin => {
                let at = Self::offset_in(range.start, ix.syntax(), &bracket);
                Ok(TExpr { kind, ty, range: at..range.end })
            }
            _ => Ok(TExpr { kind, ty, range }),
        }
    }

    /// The element pattern and the sequence of `for &x in &v`, `for &x in v.iter()` or
    /// `for x in v.iter().copied()`, and of `for x in r` for a binding `r` that is a shared reference to one.
    pub(super) fn sequence_loop(&mut self, f: &ast::ForExpr) -> Option<(ast::Pat, Seq)> {
        let no_args = |m: &ast::MethodCallExpr| m.arg_list().is_some_and(|l| l.args().next().is_none());
        let shared_ref = |e: &ast::Expr| {
            let ty = self.sema.type_of_expr(e)?.original;
            matches!(ty.as_reference(), Some((_, ra_ap_hir::Mutability::Shared))).then(|| e.clone())
        };
        let iter_receiver = |e: &ast::Expr| match e {
            ast::Expr::MethodCallExpr(m) if no_args(m) && m.name_ref().is_some_and(|n| n.text() == "iter") => {
                m.receiver()
            }
            // `for x in r` over `r: &[T]` or `r: &Vec<T>` iterates `r.iter()`.
            ast::Expr::PathExpr(_) => shared_ref(e),
            _ => None,
        };
        let shared_base = |iterable: &ast::Expr| match iterable {
            ast::Expr::RefExpr(e) if e.mut_token().is_none() && e.raw_token().is_none() => e.expr(),
            other => iter_receiver(other),
        };
        let (pat, base) = match (f.pat()?, f.iterable()?) {
            // `for &x in &v` / `for &x in v.iter()` (`for &(a, b) in ..` over tuples of copies).
            (ast::Pat::RefPat(r), iterable) if r.mut_token().is_none() => (r.pat()?, shared_base(&iterable)?),
            // `for x in v.iter().copied()`.
            (pat @ ast::Pat::IdentPat(_), ast::Expr::MethodCallExpr(m))
                if no_args(&m) && m.name_ref().is_some_and(|n| n.text() == "copied") =>
            {
                (pat, iter_receiver(&m.receiver()?)?)
            }
            // `for x in &v` / `for x in v.iter()`: `x` is a shared reference, read as the element; `for (a, b)
            // in &v` over tuples binds references to its parts, read the same way.
            (pat @ (ast::Pat::IdentPat(_) | ast::Pat::TuplePat(_)), iterable) => (pat, shared_base(&iterable)?),
            _ => return None,
        };
        match &pat {
            ast::Pat::IdentPat(p) if p.ref_token().is_some() || p.mut_token().is_some() || p.at_token().is_some() => {
                return None
            }
            ast::Pat::IdentPat(_) | ast::Pat::TuplePat(_) => {}
            _ => return None,
        }
        Some((pat, self.sequence(&base)?))
    }

    /// `for s in &mut b.v` or `for s in b.v.iter_mut()` over a `Vec` of host structs in a field of the hole's
    /// binding `b` (held by value, or through a `&mut`), or over the binding's own vector (`for o in
    /// orders.iter_mut()`): the loop's name, the sequence, and the binding with whether it holds the struct (or
    /// the vector) by value (its fields are written through `s`: [`Place::ElemField`]).
    ///
    /// [`Place::ElemField`]: lacuna_ir::Place::ElemField
    pub(super) fn mut_struct_loop(&mut self, f: &ast::ForExpr) -> Option<(ast::IdentPat, Seq, (usize, bool))> {
        let (pat, base) = self.mut_loop_parts(f)?;
        let ast::Expr::FieldExpr(field) = &base else {
            // The hole binding's own vector, array or slice of host structs (`for o in orders.iter_mut()`, `for o
            // in &mut orders`): held by value (the host hands it over writable) or through a `&mut`.
            let seq = self.sequence(&base)?;
            let by_value = match seq.kind {
                SeqKind::Vec | SeqKind::Array(_) => true,
                SeqKind::RefVec | SeqKind::Slice => false,
                SeqKind::Local | SeqKind::SliceLocal | SeqKind::Field => return None,
            };
            if !matches!(seq.elem, Elem::Struct(_)) || !seq.writable {
                return None;
            }
            let root = seq.binding;
            return Some((pat, seq, (root, by_value)));
        };
        let seq = self.field_sequence(field)?;
        if !matches!(seq.elem, Elem::Struct(_)) {
            return None;
        }
        let place = self.seq_places.get(seq.binding)?;
        let LocalRef::Binding(root) = place.base else { return None };
        Some((pat, seq, (root, matches!(place.base_ty, Ty::Struct(_)))))
    }

    /// `for x in v.iter_mut()` / `for x in &mut v` with `x` a plain name: `x` and `v`.
    fn mut_loop_parts(&self, f: &ast::ForExpr) -> Option<(ast::IdentPat, ast::Expr)> {
        let Some(ast::Pat::IdentPat(pat)) = f.pat() else { return None };
        if pat.ref_token().is_some() || pat.mut_token().is_some() || pat.at_token().is_some() {
            return None;
        }
        let base = match f.iterable()? {
            ast::Expr::RefExpr(r) if r.mut_token().is_some() && r.raw_token().is_none() => r.expr()?,
            ast::Expr::MethodCallExpr(m)
                if m.name_ref().is_some_and(|n| n.text() == "iter_mut")
                    && m.arg_list().is_some_and(|l| l.args().next().is_none())
                    && self.std_inherent_method(&m) =>
            {
                m.receiver()?
            }
            _ => return None,
        };
        // `&mut *v`: the reborrow of a name is the name's sequence (`*v` of a `&mut Vec<T>`, or of a `Vec<T>`
        // as the slice it derefs to: the same elements either way).
        let base = match base {
            ast::Expr::PrefixExpr(p) if p.op_kind() == Some(ast::UnaryOp::Deref) => match p.expr()? {
                name @ ast::Expr::PathExpr(_) => name,
                _ => return None,
            },
            other => other,
        };
        Some((pat, base))
    }

    /// `for x in v.iter_mut()` or `for x in &mut v` over a sequence of scalars the snippet may change (its own
    /// vector, a `&mut` binding's), `x` a plain name: the loop variable and the sequence. The loop counts an index
    /// and `*x` is the element there ([`Builder::elem_ref`]); any other use of `x` is outside the subset.
    pub(super) fn mut_scalar_loop(&mut self, f: &ast::ForExpr) -> Option<(ra_ap_hir::Local<'db>, Seq)> {
        let (pat, base) = self.mut_loop_parts(f)?;
        let seq = self.sequence(&base)?;
        // Scalars (`*x`), or tuples (`x.0`, `x.1 += 1`: a part of the element there).
        if !matches!(seq.elem, Elem::Scalar(_) | Elem::Tuple(_)) || !seq.writable {
            return None;
        }
        Some((self.sema.to_def(&pat)?, seq))
    }

    /// `for x in v.iter_mut() { .. }` ([`Builder::mut_scalar_loop`]) as a loop over the indices of `v`, its
    /// length read once: the body cannot change it (`v` is borrowed for the whole loop).
    pub(super) fn mut_scalar_for(
        &mut self,
        f: &ast::ForExpr,
        local: ra_ap_hir::Local<'db>,
        seq: Seq,
        body: ast::BlockExpr,
        ty: Ty,
        range: std::ops::Range<usize>,
    ) -> Result<TExpr> {
        let index = self.locals.len();
        self.locals.push(TLocal {
            name: format!("<index of the loop at {}>", range.start),
            ty: Ty::Scalar(Scalar::Usize),
            mutable: false,
            fixed_type: true,
            array_literal: false,
        });
        self.elem_refs.insert(local, (seq, index));
        // The loop borrows `v` mutably for its whole body: whether the body uses `v` otherwise is rustc's borrow
        // check to judge, not the subset's.
        self.borrows("a `for` over `iter_mut()` of scalars", f.syntax());
        let usize_ty = Ty::Scalar(Scalar::Usize);
        let start = TExpr { kind: TKind::Lit(lacuna_ir::Lit::Int(0)), ty: usize_ty.clone(), range: range.clone() };
        let end = TExpr { kind: TKind::SeqLen(seq), ty: usize_ty, range: range.clone() };
        let label = Self::label(ast::HasLoopBody::label(f).and_then(|l| l.lifetime()));
        let body = self.block(&body)?;
        let kind = TKind::For { label, var: index, start: Box::new(start), end: Box::new(end), inclusive: false, body };
        Ok(TExpr { kind, ty, range })
    }

    /// `x.n` of a loop variable `x` of [`Builder::mut_scalar_loop`] over tuples, or `v[i].n` of a sequence of tuples:
    /// the sequence, the index and the part. Nothing else is read of the element.
    pub(super) fn tuple_part_place(&mut self, f: &ast::FieldExpr) -> Result<Option<(Seq, TExpr, usize, usize)>> {
        let Some(part) = f.name_ref().and_then(|n| n.text().parse::<usize>().ok()) else { return Ok(None) };
        let Some(base) = f.expr() else { return Ok(None) };
        let range = self.range(f.syntax());
        if let Some((seq, index)) = self.elem_ref(&base) {
            let Elem::Tuple(_) = seq.elem else { return Ok(None) };
            // Always in bounds: nothing but `x` reaches `v` while the loop runs.
            return Ok(Some((seq, self.index_local(index, range.clone()), range.start, part)));
        }
        let ast::Expr::IndexExpr(ix) = &base else { return Ok(None) };
        let (Some(seq_expr), Some(index)) = (ix.base(), ix.index()) else { return Ok(None) };
        let Some(seq) = self.sequence(&seq_expr) else { return Ok(None) };
        let Elem::Tuple(_) = seq.elem else { return Ok(None) };
        let index = self.expr(&index)?;
        if index.s() != Scalar::Usize {
            return self.unsupported("an index that is not a `usize`", ix.syntax());
        }
        // Index faults at the `[` for a `Vec` (`IndexMut::index_mut`), at the place for a slice or an array.
        let index_at = match (self.builtin_index(&seq, ix.syntax()), ix.l_brack_token()) {
            (true, _) | (_, None) => range.start,
            (false, Some(b)) => self.token_at(&b),
        };
        Ok(Some((seq, index, index_at, part)))
    }

    /// `x` of `*x`, a loop variable of [`Builder::mut_scalar_loop`]: its sequence and index local.
    pub(super) fn elem_ref(&self, e: &ast::Expr) -> Option<(Seq, usize)> {
        let ast::Expr::PathExpr(p) = e else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        self.elem_refs.get(&local).cloned()
    }

    /// The hidden index local `index`, read.
    pub(super) fn index_local(&self, index: usize, range: std::ops::Range<usize>) -> TExpr {
        TExpr { kind: TKind::Local(LocalRef::Snippet(index)), ty: Ty::Scalar(Scalar::Usize), range }
    }

    /// `s.field` of a scalar field of a host struct reached through a `&mut` loop variable `s`
    /// ([`Builder::mut_struct_loop`]): its entry in `elem_fields`.
    pub(super) fn elem_field(&mut self, f: &ast::FieldExpr) -> Option<usize> {
        let (id, root, by_value) = self.elem_local(&f.expr()?)?;
        let Some(either::Either::Left(field)) = self.sema.resolve_field(f) else { return None };
        let field_ty = field.ty(self.db);
        let scalar = Self::builtin(&field_ty)
            .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never));
        // A host struct or enum by value (`o.status`), written whole — where no host type has a `Drop` impl of its
        // own, so dropping the old value runs no host code that could panic or print.
        let held = match scalar {
            Some(_) => None,
            None => match self.owned_struct(&field_ty)? {
                Ty::Struct(id) => Some(id),
                _ => return None,
            },
        };
        let ty = scalar.unwrap_or(Scalar::Unit);
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return None };
        let symbol = lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), field.name(self.db).as_str());
        let entry = ElemField { local: id, ty, symbol, root, by_value, held };
        Some(match self.elem_fields.iter().position(|e| *e == entry) {
            Some(i) => i,
            None => {
                self.elem_fields.push(entry);
                self.elem_fields.len() - 1
            }
        })
    }

    /// `s`, a `&mut` loop variable over a hole binding's sequence of host structs ([`Builder::mut_struct_loop`]) or
    /// an element of one found through `iter_mut()` ([`Builder::found_in_place`]): the snippet local, the binding,
    /// and whether the binding holds the sequence by value.
    pub(super) fn elem_local(&mut self, s: &ast::Expr) -> Option<(usize, usize, bool)> {
        let ast::Expr::PathExpr(base) = s else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&base.path()?) else { return None };
        let id = *self.local_ids.get(&local)?;
        let (root, by_value) = match self.mut_elems.get(&id) {
            Some(&root) => root,
            None => self.found_in_place(local)?,
        };
        Some((id, root, by_value))
    }

    /// `o` bound by `Some(o)` — in `if let`, `while let`, `let .. else` or a `match` arm, directly or through a
    /// local that is not `mut` — on one element of a
    /// hole binding's sequence of host structs reached through `iter_mut()` (`v.iter_mut().find(..)`, `..max_by_key(..)`,
    /// with only adaptors that pass elements on unchanged between): the binding, and whether it holds the sequence
    /// by value, as for a `&mut` loop variable over it ([`Builder::mut_struct_loop`]). Its fields are written in
    /// place ([`Place::ElemField`]).
    ///
    /// [`Place::ElemField`]: lacuna_ir::Place::ElemField
    fn found_in_place(&mut self, local: ra_ap_hir::Local<'db>) -> Option<(usize, bool)> {
        let pat = self.plain_ident_of(local)?;
        let some = ast::TupleStructPat::cast(pat.syntax().parent()?)?;
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = self.sema.resolve_path(&some.path()?)
        else {
            return None;
        };
        if self.option_variant(v) != Some(true) || some.fields().count() != 1 {
            return None;
        }
        let holder = some.syntax().parent()?;
        let scrutinee = if let Some(l) = ast::LetExpr::cast(holder.clone()) {
            l.expr()?
        } else if let Some(l) = ast::LetStmt::cast(holder.clone()) {
            l.initializer()?
        } else {
            let arm = ast::MatchArm::cast(holder)?;
            arm.syntax().ancestors().find_map(ast::MatchExpr::cast)?.expr()?
        };
        // (`let found = v.iter_mut().find(..); match found { .. }`: through a local that is not `mut`.)
        let scrutinee = match scrutinee {
            ast::Expr::PathExpr(p) => {
                let Some(PathResolution::Local(held)) = self.sema.resolve_path(&p.path()?) else { return None };
                let pat = self.plain_ident_of(held)?;
                let init = ast::LetStmt::cast(pat.syntax().parent()?)?;
                if init.let_else().is_some() {
                    return None;
                }
                init.initializer()?
            }
            other => other,
        };
        let ast::Expr::MethodCallExpr(sink) = scrutinee else { return None };
        const ONE_ELEMENT: &[&str] = &["find", "max_by_key", "min_by_key", "max_by", "min_by", "last", "next"];
        const PASS_ON: &[&str] = &["filter", "rev", "skip", "take", "skip_while", "take_while"];
        if !sink.name_ref().is_some_and(|n| ONE_ELEMENT.contains(&n.text())) {
            return None;
        }
        let mut at = sink.receiver()?;
        let base = loop {
            let ast::Expr::MethodCallExpr(call) = at else { return None };
            let name = call.name_ref()?.text().to_string();
            if name == "iter_mut" && call.arg_list().is_some_and(|l| l.args().next().is_none()) {
                break call.receiver()?;
            }
            if !PASS_ON.contains(&name.as_str()) {
                return None;
            }
            at = call.receiver()?;
        };
        let seq = self.sequence(&base)?;
        let by_value = match seq.kind {
            SeqKind::Vec | SeqKind::Array(_) => true,
            SeqKind::RefVec | SeqKind::Slice => false,
            SeqKind::Local | SeqKind::SliceLocal | SeqKind::Field => return None,
        };
        (matches!(seq.elem, Elem::Struct(_)) && seq.writable).then_some((seq.binding, by_value))
    }

    /// `retain` and the sorts by a key (see [`TKind::SeqWithClosure`]), and the sorts by a comparison (see
    /// [`Builder::sort_by`]).
    pub(super) fn sequence_with_closure(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(method) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let own = self.std_inherent_method(m);
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let ([arg], true) = (args.as_slice(), own) else { return Ok(None) };
        let unstable = match method.as_str() {
            "sort_by" => Some(false),
            "sort_unstable_by" => Some(true),
            _ => None,
        };
        let name = SeqClosureMethod::from_name(&method);
        if name.is_none() && unstable.is_none() {
            return Ok(None);
        }
        let Some(seq) = self.sequence(&receiver) else { return Ok(None) };
        if let Some(unstable) = unstable {
            let keys = self.comparison(arg)?;
            return Ok(Some(TKind::SortBy { seq, unstable, keys }));
        }
        let Some(name) = name else { return Ok(None) };
        // `sort_by_key(|x| Reverse(key))`: the sort by `key`, larger keys first (std's sort is stable either way).
        if name.sorts() {
            if let Some((params, key)) = self.reversed_key(arg)? {
                let body = Box::new(self.expr(&key)?);
                let closure = lacuna_ir::Closure { params, body };
                return Ok(Some(TKind::SeqWithClosure { seq, name, closure, descending: true }));
            }
        }
        let closure = self.closure_with(arg, Some(1))?;
        Ok(Some(TKind::SeqWithClosure { seq, name, closure, descending: false }))
    }

    /// A key closure whose body is `Reverse(key)` (std's `cmp::Reverse`, however the path names it): its
    /// parameters and `key`.
    fn reversed_key(&mut self, arg: &ast::Expr) -> Result<Option<(Vec<lacuna_ir::TPat>, ast::Expr)>> {
        let ast::Expr::ClosureExpr(c) = arg else { return Ok(None) };
        let Some(ast::Expr::CallExpr(call)) = c.body() else { return Ok(None) };
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else { return Ok(None) };
        let resolved = callee.path().and_then(|p| self.sema.resolve_path(&p));
        let Some(ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Adt(adt))) = resolved else {
            return Ok(None);
        };
        if !self.is_core_adt(adt, "Reverse") {
            return Ok(None);
        }
        let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let [key] = args.as_slice() else { return Ok(None) };
        if Self::tries_in(c) {
            return Ok(None);
        }
        let (params, _) = self.closure_parts(arg, Some(1))?;
        Ok(Some((params, key.clone())))
    }

    /// A reading method of a vector the snippet makes in the same expression (`s.split(c).collect::<Vec<_>>()
    /// .join("-")`): `{ let hidden = VEC; hidden.method(..) }`, the temporary dropped right after, as at the end
    /// of Rust's statement.
    pub(super) fn temporary_sequence_method(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Result<Option<TBlock>> {
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        // `len`, or a method that reads the vector.
        let method = SeqMethod::from_name(&name);
        let reading = method.is_some_and(|m| !m.mutates());
        // (A path or a field is a place, not a temporary.)
        let place = matches!(receiver, ast::Expr::PathExpr(_) | ast::Expr::FieldExpr(_));
        if !(reading || name == "len") || place || !self.std_inherent_method(m) {
            return Ok(None);
        }
        let at_name = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        // An array literal: its hidden local is declared before the whole expression (`Self::expr`).
        let (seq, stmts) = match self.array_temporary(&receiver)? {
            Some(seq) => (seq, Vec::new()),
            None => {
                let Ok(Ty::Vec(elem)) = self.expr_type(&receiver) else { return Ok(None) };
                let init = self.expr(&receiver)?;
                let hidden = self.locals.len();
                self.locals.push(TLocal {
                    name: format!("<temporary at {}>", at_name),
                    ty: Ty::Vec(elem),
                    mutable: false,
                    fixed_type: true,
                    array_literal: false,
                });
                let seq = Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false };
                (seq, vec![TStmt::Let { local: hidden, init: Some(init) }])
            }
        };
        let kind = match method {
            Some(name) => {
                let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::SeqMethod { seq, name, args, at: at_name }
            }
            None => TKind::SeqLen(seq),
        };
        let range = self.range(m.syntax());
        let tail = Some(Box::new(TExpr { kind, ty: ty.clone(), range }));
        Ok(Some(TBlock { stmts, tail, ty: Some(ty.clone()), label: None }))
    }

    /// `v.extend(w)` of a sequence `v` and a vector `w` of the same owned elements given by value (std's
    /// `Extend<T>` for a vector): `w` in a hidden local, then each of its elements moved onto `v`'s end in order,
    /// `for x in w { v.push(x) }`, `w`'s buffer freed where the loop ends. `w` is evaluated before anything is
    /// pushed, as in Rust (where `v` is only reserved for the call meanwhile).
    pub(super) fn extend_by_value(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TExpr>> {
        if m.name_ref().is_none_or(|n| n.text() != "extend") {
            return Ok(None);
        }
        let extend =
            self.sema.resolve_method_call(m).is_some_and(|f| self.core_trait_of(f).as_deref() == Some("Extend"));
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let (true, Some(receiver), [batch]) = (extend, m.receiver(), args.as_slice()) else { return Ok(None) };
        let Some(seq) = self.sequence(&receiver) else { return Ok(None) };
        let Some(item) = seq.elem.owned_ty() else { return Ok(None) };
        if self.expr_type(batch).ok() != Some(Ty::Vec(seq.elem)) {
            return Ok(None);
        }
        let range = self.range(m.syntax());
        let at = m.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
        let init = self.expr(batch)?;
        let (batch_local, _) = self.hidden(&Ty::Vec(seq.elem), "extend", &range);
        let (element, value) = self.hidden(&item, "element", &range);
        let unit = Ty::Scalar(Scalar::Unit);
        let push = TKind::SeqMethod { seq, name: SeqMethod::Push, args: vec![value], at };
        let body = TBlock {
            stmts: vec![TStmt::Expr(TExpr { kind: push, ty: unit.clone(), range: range.clone() })],
            tail: None,
            ty: Some(unit.clone()),
            label: None,
        };
        let batch_seq = Seq { binding: batch_local, kind: SeqKind::Local, elem: seq.elem, writable: false };
        let each = TKind::ForSeq { label: None, var: element, seq: batch_seq, body };
        let block = TBlock {
            stmts: vec![TStmt::Let { local: batch_local, init: Some(init) }],
            tail: Some(Box::new(TExpr { kind: each, ty: unit.clone(), range: range.clone() })),
            ty: Some(unit.clone()),
            label: None,
        };
        Ok(Some(TExpr { kind: TKind::Block(block), ty: unit, range }))
    }

    /// Methods of a sequence binding that allocate nothing (see [`TKind::SeqMethod`]).
    pub(super) fn sequence_in_place(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(name) = m.name_ref().and_then(|n| SeqMethod::from_name(n.text())) else {
            return Ok(None);
        };
        let own = self.std_inherent_method(m);
        let Some(receiver) = m.receiver() else { return Ok(None) };
        if !own {
            return Ok(None);
        }
        let Some(seq) = self.sequence(&receiver) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        // Text pushed into a vector of `&str`s must outlive it: rustc's borrow check.
        if name == SeqMethod::Push && seq.elem == Elem::Str {
            self.borrows("text pushed into a vector of `&str`", m.syntax());
        }
        // `v.sort()` of tuples: by each part in turn, as the tuples' derived `Ord` compares them.
        if let (SeqMethod::Sort | SeqMethod::SortUnstable, Elem::Tuple(t), true) = (name, seq.elem, args.is_empty()) {
            let range = self.range(m.syntax());
            let item = Elem::Tuple(t).read_ty();
            let keys = (0..t.parts().len())
                .map(|i| {
                    let (param, element) = self.hidden(&item, "element", &range);
                    let part = t.parts()[i].read_ty();
                    let body = TExpr { kind: TKind::Field(Box::new(element), i), ty: part, range: range.clone() };
                    let key = lacuna_ir::Closure { params: vec![lacuna_ir::TPat::Bind(param)], body: Box::new(body) };
                    lacuna_ir::SortKey { key, descending: false, order: lacuna_ir::KeyOrder::Ord }
                })
                .collect();
            return Ok(Some(TKind::SortBy { seq, unstable: name == SeqMethod::SortUnstable, keys }));
        }
        Ok(Some(TKind::SeqMethod { seq, name, args, at }))
    }

    /// `v.clone()` of a vector or `s.to_vec()` of a sequence of scalars: a new vector the snippet owns.
    pub(super) fn sequence_copy(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Option<TKind> {
        let name = m.name_ref()?.text().to_string();
        let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
        if !no_args || !matches!(name.as_str(), "clone" | "to_vec") {
            return None;
        }
        let f = self.sema.resolve_method_call(m)?;
        let krate = self.fn_crate(f);
        let std_copy = match name.as_str() {
            "clone" => self.core_trait_of(f).as_deref() == Some("Clone"),
            _ => krate.as_deref() == Some("alloc"),
        };
        let seq = self.sequence(&m.receiver()?)?;
        (std_copy && *ty == Ty::Vec(seq.elem)).then_some(TKind::SeqClone(seq))
    }

    /// `v.len()` or `v.iter().sum()` on a sequence binding.
    pub(super) fn sequence_method(&mut self, m: &ast::MethodCallExpr) -> Option<TKind> {
        let name = m.name_ref()?.text().to_string();
        let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
        if !no_args {
            return None;
        }
        match name.as_str() {
            "len" => Some(TKind::SeqLen(self.sequence(&m.receiver()?)?)),
            "sum" => {
                let ast::Expr::MethodCallExpr(iter) = m.receiver()? else { return None };
                let iter_no_args = iter.arg_list().is_some_and(|l| l.args().next().is_none());
                if iter.name_ref()?.text() != "iter" || !iter_no_args {
                    return None;
                }
                // `Iterator::sum` itself (not a host trait's `sum`), to the element type.
                let f = self.sema.resolve_method_call(m)?;
                let from_iterator = match f.as_assoc_item(self.db).map(|a| a.container(self.db)) {
                    Some(ra_ap_hir::AssocItemContainer::Trait(t)) => t.name(self.db).as_str() == "Iterator",
                    _ => false,
                };
                let seq = self.sequence(&iter.receiver()?)?;
                let result = self.sema.type_of_expr(&ast::Expr::MethodCallExpr(m.clone()))?.original;
                let result = result.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()));
                let elem = seq.elem.scalar().filter(|s| s.is_int());
                (from_iterator && elem.is_some() && result == elem).then_some(TKind::SeqSum(seq))
            }
            _ => None,
        }
    }

    /// A snippet local holding a `Vec<S>` the snippet owns, as `expr` names it.
    pub(super) fn owned_sequence(&self, expr: &ast::Expr) -> Option<Seq> {
        let ast::Expr::PathExpr(p) = expr else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        let &id = self.local_ids.get(&local)?;
        let l = self.locals.get(id)?;
        match l.ty {
            Ty::Vec(elem) => Some(Seq { binding: id, kind: SeqKind::Local, elem, writable: l.mutable }),
            // A slice the snippet holds: read in place, never written.
            Ty::Slice(elem) => Some(Seq { binding: id, kind: SeqKind::SliceLocal, elem, writable: false }),
            _ => None,
        }
    }

    /// An array literal of scalars (`[a, b, c]`, `[x; n]`) read where it is written, by a loop, an iterator or a
    /// reading method: the elements in a vector in a hidden local, declared before the expression that reads it
    /// ([`Self::hoisted`]). The typed view has no arrays; the literal is never named, so nothing can tell.
    pub(super) fn array_temporary(&mut self, e: &ast::Expr) -> Result<Option<Seq>> {
        let Some((elem, init)) = self.array_elements(e)? else { return Ok(None) };
        let hidden = self.locals.len();
        let name = format!("<array at {}>", init.range.start);
        self.locals.push(TLocal { name, ty: Ty::Vec(elem), mutable: false, fixed_type: true, array_literal: true });
        self.hoisted.push(TStmt::Let { local: hidden, init: Some(init) });
        Ok(Some(Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false }))
    }

    /// An array literal whose elements are `Copy` values the typed view holds (scalars; text that outlives the
    /// array; tuples of literals and scalars): its element and the vector that holds its elements. An array of
    /// them is `Copy` itself, so a vector read in place, or copied where Rust copies the array, behaves as it.
    pub(super) fn array_elements(&mut self, e: &ast::Expr) -> Result<Option<(Elem, TExpr)>> {
        let ast::Expr::ArrayExpr(array) = e else { return Ok(None) };
        let Some((elem, _)) = self.sema.type_of_expr(e).and_then(|t| t.original.as_array(self.db)) else {
            return Ok(None);
        };
        // Scalars, or text when every element is a string literal (`'static`: nothing it points to can go away) or
        // the text of a name (`s`, `&s`, `s.as_str()`: a local or binding, which outlives the array — rustc's
        // borrow check judges that); never a temporary's, which the array could outlive.
        let named_text = |x: &ast::Expr| {
            let named = |x: &Option<ast::Expr>| matches!(x, Some(ast::Expr::PathExpr(_)));
            match x {
                ast::Expr::PathExpr(_) => true,
                ast::Expr::RefExpr(r) => r.mut_token().is_none() && r.raw_token().is_none() && named(&r.expr()),
                ast::Expr::MethodCallExpr(m) => {
                    m.name_ref().is_some_and(|n| n.text() == "as_str")
                        && m.arg_list().is_some_and(|l| l.args().next().is_none())
                        && named(&m.receiver())
                }
                _ => false,
            }
        };
        let (literals, names) = match array.kind() {
            ast::ArrayExprKind::ElementList(elems) => {
                let elems: Vec<ast::Expr> = elems.collect();
                let literal = |x: &ast::Expr| matches!(x, ast::Expr::Literal(l) if matches!(l.kind(), ast::LiteralKind::String(_)));
                (elems.iter().all(literal), elems.iter().all(|x| literal(x) || named_text(x)))
            }
            ast::ArrayExprKind::Repeat { .. } => (false, false),
        };
        // Tuples whose text parts are string literals and whose other parts are scalars (`[("tea", 2), ..]`):
        // nothing they point to can go away either.
        let literal_rows = match array.kind() {
            ast::ArrayExprKind::ElementList(elems) => elems.into_iter().all(|x| match x {
                ast::Expr::TupleExpr(t) => t.fields().all(|f| {
                    matches!(f, ast::Expr::Literal(_))
                        || self.sema.type_of_expr(&f).is_some_and(|t| Self::builtin(&t.original).is_some())
                }),
                _ => false,
            }),
            ast::ArrayExprKind::Repeat { .. } => false,
        };
        let elem = match self.elem(&elem) {
            Some(elem @ Elem::Scalar(_)) => elem,
            Some(elem @ Elem::Tuple(t)) if literal_rows && !t.parts().contains(&lacuna_ir::Part::String) => elem,
            Some(Elem::Str) if literals => Elem::Str,
            Some(Elem::Str) if names => {
                self.borrows("an array of borrowed text", e.syntax());
                Elem::Str
            }
            _ => return Ok(None),
        };
        let kind = match array.kind() {
            ast::ArrayExprKind::Repeat { initializer: Some(value), repeat: Some(count) } => {
                let value = Box::new(self.expr(&value)?);
                let count = Box::new(self.expr(&count)?);
                TKind::VecRepeat { value, count }
            }
            ast::ArrayExprKind::ElementList(elems) => {
                TKind::VecLit(elems.map(|x| self.expr(&x)).collect::<Result<Vec<_>>>()?)
            }
            ast::ArrayExprKind::Repeat { .. } => return self.unsupported("an array of this form", e.syntax()),
        };
        let range = self.range(e.syntax());
        Ok(Some((elem, TExpr { kind, ty: Ty::Vec(elem), range })))
    }

    /// `let [mut] name = [..];` of an array [`Self::array_elements`] holds: a local holding its elements as a
    /// vector, marked [`TLocal::array_literal`]. It is only ever reached as a sequence ([`Self::owned_sequence`]):
    /// read in place, indexed, changed in place when `mut`, looped over and iterated by value as copies
    /// ([`Self::array_by_value`]), and as a format argument (borrowed). An expression whose type is the array
    /// itself (`let b = a;`, `f(a)`, `a.map(..)`) is not a type the typed view holds, so nothing moves the vector.
    pub(super) fn named_array(&mut self, pat: &ast::IdentPat, init: &ast::Expr) -> Result<Option<TStmt>> {
        if pat.ref_token().is_some() || pat.pat().is_some() {
            return Ok(None);
        }
        let Some(local) = self.sema.to_def(pat) else { return Ok(None) };
        if local.ty(self.db).as_array(self.db).is_none() {
            return Ok(None);
        }
        let Some((elem, init)) = self.array_elements(init)? else { return Ok(None) };
        let id = self.locals.len();
        self.locals.push(TLocal {
            name: pat.name().map(|n| n.text().to_string()).unwrap_or_default(),
            ty: Ty::Vec(elem),
            mutable: pat.mut_token().is_some(),
            fixed_type: true,
            array_literal: true,
        });
        self.local_ids.insert(local, id);
        Ok(Some(TStmt::Let { local: id, init: Some(init) }))
    }

    /// The array local `e` names ([`Self::named_array`]) or a hole binding's array of `Copy` elements
    /// ([`Self::copy_array_binding`]), read by value (`for x in a`, `a.into_iter()`): an array is copied then, so
    /// the loop or iterator reads a copy. One that never changes is read in place (nothing
    /// can tell the two apart); a `mut` one is copied into a hidden vector first, so that changes the body makes
    /// to it are not seen by the loop.
    pub(super) fn array_by_value(&mut self, e: &ast::Expr) -> Option<Seq> {
        let (seq, mutable) = match self.array_local(e) {
            Some(seq) => (seq, self.locals[seq.binding].mutable),
            // A hole binding's array of `Copy` elements: the same, its own `mut` deciding.
            None if self.copy_array_binding(e) => {
                let seq = self.sequence(e)?;
                (seq, seq.writable)
            }
            None => return None,
        };
        if !mutable {
            return Some(Seq { writable: false, ..seq });
        }
        let range = self.range(e.syntax());
        let copy = TExpr { kind: TKind::SeqClone(seq), ty: Ty::Vec(seq.elem), range };
        self.hoist_vector("array copy", copy)
    }

    /// Whether indexing `seq` is the language's own, not a call of `Index::index`: a slice's, or an array's (the
    /// snippet's or a hole binding's). Its faults are placed at the whole place. An array's index rustc may
    /// evaluate before the snippet runs (`unconditional_panic` rejects `a[3]` of a `[T; 3]`), so then rustc decides.
    pub(super) fn builtin_index(&self, seq: &Seq, node: &ra_ap_syntax::SyntaxNode) -> bool {
        let array = self.is_named_array(seq) || matches!(seq.kind, SeqKind::Array(_));
        if array {
            self.rustc_decides(
                "an index into an array (rustc may find it out of bounds before the snippet runs)",
                node,
            );
        }
        array || matches!(seq.kind, SeqKind::Slice | SeqKind::SliceLocal)
    }

    /// `e` names a hole binding that is an array of `Copy` elements the typed view reads in place (numbers,
    /// `&str`, tuples of those): read by value, it is copied.
    pub(super) fn copy_array_binding(&self, e: &ast::Expr) -> bool {
        let Some((_, local)) = self.hole_binding(e) else { return false };
        let Some((elem, _)) = local.ty(self.db).as_array(self.db) else { return false };
        match self.elem(&elem) {
            Some(Elem::Scalar(_) | Elem::Str) => true,
            Some(Elem::Tuple(t)) => !t.parts().contains(&lacuna_ir::Part::String),
            _ => false,
        }
    }

    /// The sequence of the array local `e` names ([`Self::named_array`]).
    pub(super) fn array_local(&self, e: &ast::Expr) -> Option<Seq> {
        self.owned_sequence(e).filter(|seq| self.is_named_array(seq))
    }

    /// `seq` is an array the snippet names ([`Self::named_array`]), not a hidden array temporary.
    fn is_named_array(&self, seq: &Seq) -> bool {
        seq.kind == SeqKind::Local
            && self.locals.get(seq.binding).is_some_and(|l| l.array_literal && !l.name.starts_with('<'))
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `&v` of a sequence the snippet names, coerced to a slice (`&Vec<T>` or `&[T; N]` where a `&[T]` is
    /// expected), or `&v[a..b]` (`a..`, `..b`, `..`) of one: the slice value ([`TKind::SliceOf`],
    /// [`TKind::SubSlice`], [`Ty::Slice`]). What it borrows, and for how long, is rustc's borrow check.
    pub(super) fn slice_value(&mut self, expr: &ast::Expr, r: &ast::RefExpr) -> Result<Option<TExpr>> {
        if r.mut_token().is_some() || r.raw_token().is_some() {
            return Ok(None);
        }
        let Some(adjusted) = self.sema.type_of_expr(expr).map(|t| t.adjusted()) else { return Ok(None) };
        let Some((target, ra_ap_hir::Mutability::Shared)) = adjusted.as_reference() else { return Ok(None) };
        if target.as_slice().is_none() {
            return Ok(None);
        }
        let range = self.range(expr.syntax());
        match r.expr() {
            Some(inner @ ast::Expr::PathExpr(_)) => {
                let Some(seq) = self.sequence(&inner) else { return Ok(None) };
                self.rustc_decides("a slice lent", expr.syntax());
                let kind = TKind::SliceOf { seq, mutable: false };
                Ok(Some(TExpr { kind, ty: Ty::Slice(seq.elem), range }))
            }
            Some(ast::Expr::IndexExpr(ix)) => {
                let (Some(base @ ast::Expr::PathExpr(_)), Some(ast::Expr::RangeExpr(bounds))) = (ix.base(), ix.index())
                else {
                    return Ok(None);
                };
                if bounds.op_kind() != Some(ast::RangeOp::Exclusive) {
                    return Ok(None);
                }
                let Some(seq) = self.sequence(&base) else { return Ok(None) };
                self.rustc_decides("a slice lent", expr.syntax());
                let start = bounds.start().map(|s| self.expr(&s)).transpose()?.map(Box::new);
                let end = bounds.end().map(|e| self.expr(&e)).transpose()?.map(Box::new);
                // A range that does not fit faults, as the `Index` call does, at the `[`.
                let at = ix.l_brack_token().map_or(range.start, |b| Self::offset_in(range.start, expr.syntax(), &b));
                let kind = TKind::SubSlice { seq, start, end };
                Ok(Some(TExpr { kind, ty: Ty::Slice(seq.elem), range: at..range.end }))
            }
            _ => Ok(None),
        }
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// Where `token` is in the snippet, for a node of it that starts at `node_start`: as many bytes on from there
    /// as it is in the node (a format argument's node is in `format_args!`'s expansion, the snippet's text mapped
    /// to it, so the token's own position cannot be mapped).
    fn offset_in(node_start: usize, node: &ra_ap_syntax::SyntaxNode, token: &ra_ap_syntax::SyntaxToken) -> usize {
        node_start + usize::from(token.text_range().start() - node.text_range().start())
    }
}
