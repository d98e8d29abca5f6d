//! Maps and sets the snippet builds, and their methods.

use ra_ap_hir::PathResolution;
use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{
    Elem, Lit, LocalRef, MapMethod, MapValue, MapView, Part, Scalar, Seq, TExpr, TKind, TLocal, TStmt, TextMethod,
    TupleElem, Ty, UnOp,
};

impl<'a, 'db> Builder<'a, 'db> {
    /// The snippet local of map type that `e` names.
    pub(super) fn map_local(&self, e: &ast::Expr) -> Option<usize> {
        let ast::Expr::PathExpr(p) = e else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        let &id = self.local_ids.get(&local)?;
        matches!(self.locals.get(id)?.ty, Ty::Map { .. }).then_some(id)
    }

    /// `m.iter()`, `m.into_iter()`, `m.keys()` or `m.values()` (std's) of the snippet's map local `m`: the local and
    /// the view.
    pub(super) fn snippet_map_view(&self, e: &ast::Expr) -> Option<(usize, MapView)> {
        let ast::Expr::MethodCallExpr(m) = e else { return None };
        let view = MapView::from_name(m.name_ref()?.text())?;
        if m.arg_list().is_none_or(|l| l.args().next().is_some()) {
            return None;
        }
        let map = self.map_local(&m.receiver()?)?;
        let f = self.sema.resolve_method_call(m)?;
        matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc")).then_some((map, view))
    }

    /// The items of a view of the snippet's map ([`Self::snippet_map_view`]) in a hidden local the expression
    /// being built is put after ([`TKind::MapEntries`]): a sequence the snippet owns. Its text keys point into
    /// the map, which nothing can change while they are read: rustc's borrow check judges that.
    pub(super) fn map_entries_temporary(&mut self, e: &ast::Expr) -> Result<Option<Seq>> {
        let Some((map, view)) = self.snippet_map_view(e) else { return Ok(None) };
        self.map_view_seq(map, view, e)
    }

    /// The items of `view` of the snippet's map local `map` (written as `e`), as [`Self::map_entries_temporary`].
    pub(super) fn map_view_seq(&mut self, map: usize, view: MapView, e: &ast::Expr) -> Result<Option<Seq>> {
        let Some(made) = self.map_view_expr(map, view, e)? else { return Ok(None) };
        Ok(self.hoist_vector(&format!("{view}"), made))
    }

    /// `view` of the snippet's map local `map` (written as `e`): a new vector ([`TKind::MapEntries`]).
    pub(super) fn map_view_expr(&mut self, map: usize, view: MapView, e: &ast::Expr) -> Result<Option<TExpr>> {
        let Ty::Map { key, value, .. } = self.locals[map].ty.clone() else { return Ok(None) };
        let Some(value) = value.scalar() else {
            return self.unsupported("a view of a map of vectors", e.syntax());
        };
        let key = match *key {
            Ty::String if view == MapView::IntoIter => Part::String,
            Ty::String | Ty::Str => Part::Str,
            Ty::Scalar(s) => Part::Scalar(s),
            _ => return self.unsupported("a view of a map with these keys", e.syntax()),
        };
        let set = value == Scalar::Unit;
        let elem_of = |part: Part| match part {
            Part::Scalar(s) => Elem::Scalar(s),
            Part::String => Elem::String,
            Part::Str => Elem::Str,
        };
        let elem = match view {
            MapView::Keys => elem_of(key),
            MapView::Iter | MapView::IntoIter if set => elem_of(key),
            MapView::Values if set => return self.unsupported("the values of a set", e.syntax()),
            MapView::Values => Elem::Scalar(value),
            MapView::Iter | MapView::IntoIter => {
                let Some(t) = TupleElem::new(&[key, Part::Scalar(value)]) else {
                    return self.unsupported("entries of this map", e.syntax());
                };
                let mut tuples = self.tuples.borrow_mut();
                if !tuples.contains(&t) {
                    tuples.push(t);
                }
                Elem::Tuple(t)
            }
        };
        self.owns_buffers.set(true);
        // Keys read in place point into the map; `into_iter` moves it: rustc judges both.
        self.borrows("a map read in place", e.syntax());
        let range = self.range(e.syntax());
        Ok(Some(TExpr { kind: TKind::MapEntries { map, view }, ty: Ty::Vec(elem), range }))
    }

    /// A key argument of a map method: text read in place (or a `String` moved in, for `insert` and `entry`), or a
    /// scalar (a `&k` read as its value).
    pub(super) fn map_key(&mut self, map: usize, e: &ast::Expr) -> Result<TExpr> {
        match &self.locals[map].ty {
            Ty::Map { key, .. } if matches!(**key, Ty::String | Ty::Str) => self.text_operand(e),
            _ => self.expr(e),
        }
    }

    /// `HashMap::new()` / `BTreeMap::new()` (std's).
    pub(super) fn map_new(&self, c: &ast::CallExpr, ty: &Ty) -> bool {
        let no_args = c.arg_list().is_some_and(|l| l.args().next().is_none());
        let Some(ast::Expr::PathExpr(callee)) = c.expr() else { return false };
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
            callee.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        no_args
            && matches!(ty, Ty::Map { .. })
            && f.name(self.db).as_str() == "new"
            && matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc"))
    }

    /// A method of the snippet's map local: `insert`, `get`, `contains_key`, `remove`, `len`, `is_empty` (std's);
    /// of a set local: `insert`, `contains`, `remove`, `len`, `is_empty`.
    pub(super) fn map_method(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(map) = m.receiver().and_then(|r| self.map_local(&r)) else { return Ok(None) };
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(f) = self.sema.resolve_method_call(m) else { return Ok(None) };
        if !matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc")) {
            return Ok(None);
        }
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let set = self.locals[map].ty.is_set();
        let Some(name) = MapMethod::from_name(&name).filter(|m| *m != MapMethod::Index) else {
            return self.unsupported("a map method outside the subset", m.syntax());
        };
        let args = match (name, args.as_slice()) {
            (MapMethod::Len | MapMethod::IsEmpty, []) => Vec::new(),
            (MapMethod::Get | MapMethod::ContainsKey | MapMethod::Remove, [k]) if !set => vec![self.map_key(map, k)?],
            (MapMethod::Insert, [k, v]) if !set => vec![self.map_key(map, k)?, self.expr(v)?],
            (MapMethod::Contains | MapMethod::Remove | MapMethod::Insert, [k]) if set => vec![self.map_key(map, k)?],
            _ => return self.unsupported("a map method outside the subset", m.syntax()),
        };
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        Ok(Some(TKind::MapMethod { map, name, args, at }))
    }

    /// `let e = m.entry(key).or_insert(default);` (or `.or_default()`) on the snippet's map local, `e` a plain
    /// name only ever dereferenced afterwards: the key (and the default, as `or_insert` evaluates it whether or
    /// not the key is there) in hidden locals, the default inserted when the key is absent; then `*e` is
    /// `m[key]` and `*e = v` / `*e op= v` the map's value at the key changed in place ([`Self::map_slot`]). The
    /// same as Rust's only while nothing else touches the map until `e`'s last use: rustc's borrow check
    /// judges every such snippet.
    pub(super) fn map_slot_let(&mut self, stmt: &ast::LetStmt) -> Result<Option<Vec<TStmt>>> {
        let (Some(ast::Pat::IdentPat(pat)), Some(init), None, None) =
            (stmt.pat(), stmt.initializer(), stmt.ty(), stmt.let_else())
        else {
            return Ok(None);
        };
        if pat.ref_token().is_some() || pat.pat().is_some() {
            return Ok(None);
        }
        let Some(local) = self.sema.to_def(&pat) else { return Ok(None) };
        let Some((map, key, default)) = self.map_entry(&init)? else { return Ok(None) };
        let Ty::Map { value, .. } = self.locals[map].ty.clone() else { return Ok(None) };
        let Some(value) = value.scalar().filter(|v| *v != Scalar::Unit) else { return Ok(None) };
        self.borrows("a map entry held in a local", stmt.syntax());
        let range = self.range(stmt.syntax());
        let name = pat.name().map(|n| n.text().to_string()).unwrap_or_default();
        let hidden = |b: &mut Self, what: &str, ty: Ty| {
            b.locals.push(TLocal {
                name: format!("<{what} of {name}>"),
                ty,
                mutable: false,
                fixed_type: true,
                array_literal: false,
            });
            b.locals.len() - 1
        };
        let key_local = hidden(self, "key", key.ty.clone());
        let value_ty = Ty::Scalar(value);
        let default = default.unwrap_or_else(|| TExpr {
            kind: TKind::Lit(match value {
                Scalar::Bool => Lit::Bool(false),
                Scalar::Char => Lit::Char('\0'),
                s if s.is_float() => Lit::Float(0.0),
                _ => Lit::Int(0),
            }),
            ty: value_ty.clone(),
            range: range.clone(),
        });
        let default_local = hidden(self, "default", value_ty.clone());
        let mut stmts = vec![
            TStmt::Let { local: key_local, init: Some(key) },
            TStmt::Let { local: default_local, init: Some(default) },
        ];
        let key_ref = self.slot_key(key_local, &range);
        let owned_key = match &self.locals[key_local].ty {
            Ty::String => TExpr {
                kind: TKind::TextMethod {
                    name: TextMethod::Clone,
                    receiver: Box::new(key_ref.clone()),
                    args: Vec::new(),
                },
                ty: Ty::String,
                range: range.clone(),
            },
            _ => key_ref.clone(),
        };
        let bool_ty = Ty::Scalar(Scalar::Bool);
        let unit = Ty::Scalar(Scalar::Unit);
        let at = range.start;
        let present = TExpr {
            kind: TKind::MapMethod { map, name: MapMethod::ContainsKey, args: vec![key_ref], at },
            ty: bool_ty.clone(),
            range: range.clone(),
        };
        let absent = TExpr { kind: TKind::Unary(UnOp::Not, Box::new(present)), ty: bool_ty, range: range.clone() };
        let default_value =
            TExpr { kind: TKind::Local(LocalRef::Snippet(default_local)), ty: value_ty, range: range.clone() };
        let insert = TExpr {
            kind: TKind::MapMethod { map, name: MapMethod::Insert, args: vec![owned_key, default_value], at },
            ty: unit.clone(),
            range: range.clone(),
        };
        let then =
            lacuna_ir::TBlock { stmts: vec![TStmt::Expr(insert)], tail: None, ty: Some(unit.clone()), label: None };
        stmts.push(TStmt::Expr(TExpr {
            kind: TKind::If { cond: Box::new(absent), then, otherwise: None },
            ty: unit,
            range,
        }));
        self.slot_locals.insert(local, (map, key_local));
        Ok(Some(stmts))
    }

    /// The key of a `let e = m.entry(k)..` slot ([`Self::map_slot_let`]), read where its hidden local keeps it.
    fn slot_key(&self, key_local: usize, range: &std::ops::Range<usize>) -> TExpr {
        let ty = self.locals[key_local].ty.clone();
        let local = TExpr { kind: TKind::Local(LocalRef::Snippet(key_local)), ty: ty.clone(), range: range.clone() };
        match ty {
            Ty::String => TExpr {
                kind: TKind::TextMethod { name: TextMethod::AsStr, receiver: Box::new(local), args: Vec::new() },
                ty: Ty::Str,
                range: range.clone(),
            },
            _ => local,
        }
    }

    /// `e` of `*e`, a `let e = m.entry(k)..` slot ([`Self::map_slot_let`]): its map and its key, read.
    pub(super) fn map_slot(&self, e: &ast::Expr, range: &std::ops::Range<usize>) -> Option<(usize, TExpr)> {
        let ast::Expr::PathExpr(p) = e else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        let &(map, key_local) = self.slot_locals.get(&local)?;
        Some((map, self.slot_key(key_local, range)))
    }

    /// `*m.entry(key).or_insert(default)` / `.or_default()` on the snippet's map local: (map, key, default).
    pub(super) fn map_entry(&mut self, e: &ast::Expr) -> Result<Option<(usize, TExpr, Option<TExpr>)>> {
        let ast::Expr::MethodCallExpr(or) = e else { return Ok(None) };
        let Some(ast::Expr::MethodCallExpr(entry)) = or.receiver() else { return Ok(None) };
        if entry.name_ref().is_none_or(|n| n.text() != "entry") {
            return Ok(None);
        }
        let Some(map) = entry.receiver().and_then(|r| self.map_local(&r)) else { return Ok(None) };
        let key: Vec<ast::Expr> = entry.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let default: Vec<ast::Expr> = or.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let [key] = key.as_slice() else { return Ok(None) };
        let default = match (or.name_ref().map(|n| n.text().to_string()).as_deref(), default.as_slice()) {
            (Some("or_insert"), [d]) => Some(self.expr(d)?),
            (Some("or_default"), []) => None,
            _ => return Ok(None),
        };
        let key = self.map_key(map, key)?;
        Ok(Some((map, key, default)))
    }

    /// `m.entry(key).or_default().push(value)` (or `.or_insert_with(Vec::new)`, `.or_insert(Vec::new())`,
    /// `.or_insert(vec![])`) of the snippet's map local of vectors of strings ([`TKind::MapPush`]).
    pub(super) fn map_push(&mut self, push: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        if push.name_ref().is_none_or(|n| n.text() != "push") {
            return Ok(None);
        }
        let Some(ast::Expr::MethodCallExpr(or)) = push.receiver() else { return Ok(None) };
        let Some(ast::Expr::MethodCallExpr(entry)) = or.receiver() else { return Ok(None) };
        if entry.name_ref().is_none_or(|n| n.text() != "entry") {
            return Ok(None);
        }
        let Some(map) = entry.receiver().and_then(|r| self.map_local(&r)) else { return Ok(None) };
        if !matches!(self.locals[map].ty, Ty::Map { value: MapValue::Strings, .. }) {
            return Ok(None);
        }
        // Each of the four is std's (a trait in scope could add methods of these names).
        let std_method = |b: &Self, m: &ast::MethodCallExpr| {
            b.sema.resolve_method_call(m).is_some_and(|f| matches!(b.fn_crate(f).as_deref(), Some("std" | "alloc")))
        };
        if !(std_method(self, push) && std_method(self, &or) && std_method(self, &entry)) {
            return Ok(None);
        }
        let args =
            |m: &ast::MethodCallExpr| -> Vec<ast::Expr> { m.arg_list().into_iter().flat_map(|l| l.args()).collect() };
        let (key, default, value) = (args(&entry), args(&or), args(push));
        let ([key], [value]) = (key.as_slice(), value.as_slice()) else { return Ok(None) };
        // The default is an empty vector, made without effects.
        let empty = match (or.name_ref().map(|n| n.text().to_string()).as_deref(), default.as_slice()) {
            (Some("or_default"), []) => true,
            (Some("or_insert_with"), [ast::Expr::PathExpr(p)]) => self.vec_new_fn(p),
            (Some("or_insert"), [d]) => matches!(self.expr(d)?.kind, TKind::VecLit(ref v) if v.is_empty()),
            _ => false,
        };
        if !empty {
            return self.unsupported("a default other than an empty vector", or.syntax());
        }
        let key = self.map_key(map, key)?;
        let value = self.expr(value)?;
        Ok(Some(TKind::MapPush { map, key: Box::new(key), value: Box::new(value) }))
    }

    /// `Vec::new` named as a function (std's).
    fn vec_new_fn(&self, p: &ast::PathExpr) -> bool {
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
            p.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        self.fn_crate(f).as_deref() == Some("alloc") && f.name(self.db).as_str() == "new"
    }
}
