//! Hole bindings that are std maps of numbers and text (`scores: HashMap<String, u32>`), read through the views
//! the instrumented host exports for their type ([`crate::MapBindingView`]): `keys()` and `values()` as vectors
//! the run owns (hoisted before the expression that reads them), `len`, `is_empty`, `contains_key` and `get`
//! as calls.

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use crate::{MapBindingView, MapPart};
use lacuna_ir::{Elem, Receiver, Scalar, SelfArg, Seq, TExpr, TKind, Ty};

/// What a view call names before it is built: the binding, its map type, the view.
struct ViewCall {
    binding: usize,
    through_ref: bool,
    map_type: String,
    key: MapPart,
    value: MapPart,
    view: MapBindingView,
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `e` is `m.<view>(..)` of std's method on a hole binding `m` that is a map of numbers and text.
    fn view_call(&self, e: &ast::Expr) -> Option<(ViewCall, ast::MethodCallExpr)> {
        let ast::Expr::MethodCallExpr(m) = e else { return None };
        let view = MapBindingView::from_name(m.name_ref()?.text())?;
        let f = self.sema.resolve_method_call(m)?;
        if !matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc")) || self.core_trait_of(f).is_some() {
            return None;
        }
        Some((self.viewed_binding(&m.receiver()?, view)?, m.clone()))
    }

    /// The hole binding `map` names, when it is one of std's maps (or a reference to one) of numbers and text,
    /// with `view` of it.
    fn viewed_binding(&self, map: &ast::Expr, view: MapBindingView) -> Option<ViewCall> {
        let (binding, local) = self.hole_binding(map)?;
        let ty = local.ty(self.db);
        let through_ref = ty.as_reference().is_some();
        let held = ty.as_reference().map_or(ty.clone(), |(inner, _)| inner);
        // std's own (the binding's type as written names it, but a host type may share the name).
        if self.std_collection(&held).is_none_or(|c| c.is_set()) {
            return None;
        }
        let map_type = crate::viewed_map(self.bindings.get(binding)?.ty.as_deref()?)?.to_owned();
        let (key, value) = crate::map_parts(&map_type)?;
        Some(ViewCall { binding, through_ref, map_type, key, value, view })
    }

    /// `m.keys()` / `m.values()` / `m.iter()` of a map binding ([`Self::view_call`]), by its syntax and
    /// resolution.
    pub(super) fn binding_map_items(&self, e: &ast::Expr) -> bool {
        self.view_call(e).is_some_and(|(c, _)| c.view.gives_items())
    }

    /// A view of a map binding read through its shim, one that gives the map's items or not as `items` says:
    /// the call, typed as the shim writes its result.
    pub(super) fn binding_map_view(&mut self, e: &ast::Expr, items: bool) -> Result<Option<TExpr>> {
        let Some((call, m)) = self.view_call(e).filter(|(c, _)| c.view.gives_items() == items) else {
            return Ok(None);
        };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let Some(made) = self.view_host_call(call, &args, e)? else { return Ok(None) };
        // A call's type is the typed view's too (`get` gives `Option<&u32>`, read as `Option<u32>`); `keys()` and
        // `values()` are iterators the typed view does not hold, which only their readers take as vectors.
        if !matches!(made.ty, Ty::Vec(_)) && self.expr_type(e).ok().as_ref() != Some(&made.ty) {
            return Ok(None);
        }
        Ok(Some(made))
    }

    /// `m[k]` of a map binding whose values are numbers or `&str`: the value `get` gives, or std's panic at the
    /// `[`, where rustc places it.
    pub(super) fn binding_map_index(&mut self, ix: &ast::IndexExpr, ty: &Ty) -> Result<Option<TExpr>> {
        let (Some(base), Some(key)) = (ix.base(), ix.index()) else { return Ok(None) };
        let Some(call) = self.viewed_binding(&base, MapBindingView::Get) else { return Ok(None) };
        let e = ast::Expr::IndexExpr(ix.clone());
        let Some(get) = self.view_host_call(call, &[key], &e)? else { return Ok(None) };
        if get.ty != Ty::Option(Box::new(ty.clone())) {
            return Ok(None);
        }
        let range = self.range(e.syntax());
        let at = ix.l_brack_token().map_or(range.start, |b| self.token_at(&b));
        let message = "no entry found for key".to_owned();
        let kind = TKind::Panic { receiver: Some(Box::new(get)), message };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: at..range.end }))
    }

    /// The call of `call`'s view with `args` (written as `e`), typed as its shim writes the result.
    fn view_host_call(&mut self, call: ViewCall, args: &[ast::Expr], e: &ast::Expr) -> Result<Option<TExpr>> {
        let range = self.range(e.syntax());
        let part_elem = |p: &MapPart| match p {
            MapPart::Scalar(s) => Scalar::from_name(s).map(Elem::Scalar),
            MapPart::Text => Some(Elem::Str),
        };
        let ty = match call.view {
            MapBindingView::Keys => part_elem(&call.key).map(Ty::Vec),
            MapBindingView::Values => part_elem(&call.value).map(Ty::Vec),
            MapBindingView::Iter => crate::map_iter_tuple(&call.map_type).map(|t| {
                let mut tuples = self.tuples.borrow_mut();
                if !tuples.contains(&t) {
                    tuples.push(t);
                }
                Ty::Vec(Elem::Tuple(t))
            }),
            MapBindingView::Len => Some(Ty::Scalar(Scalar::Usize)),
            MapBindingView::IsEmpty | MapBindingView::ContainsKey => Some(Ty::Scalar(Scalar::Bool)),
            MapBindingView::Get => part_elem(&call.value).map(|e| Ty::Option(Box::new(e.read_ty()))),
        };
        let Some(ty) = ty else { return Ok(None) };
        let args = match (call.view, args) {
            (MapBindingView::ContainsKey | MapBindingView::Get, [k]) => {
                let key = match call.key {
                    MapPart::Text => self.text_operand(k)?,
                    MapPart::Scalar(_) => self.expr(k)?,
                };
                let fits = match &call.key {
                    MapPart::Text => key.ty == Ty::Str,
                    MapPart::Scalar(s) => key.ty.scalar().is_some_and(|k| Some(k) == Scalar::from_name(s)),
                };
                if !fits {
                    return self.unsupported("a key of this type to a host map", k.syntax());
                }
                vec![key]
            }
            (MapBindingView::ContainsKey | MapBindingView::Get, _) => return Ok(None),
            (_, []) => Vec::new(),
            _ => return Ok(None),
        };
        // What the view gives points into the map, or is read while the snippet may hold other borrows of it:
        // rustc's borrow check judges every snippet reading one.
        self.rustc_decides("a host map read through a view", e.syntax());
        if matches!(ty, Ty::Vec(_)) {
            self.owns_buffers.set(true);
        }
        self.note_binding(call.binding, Scalar::Unit);
        let this = SelfArg { binding: call.binding, through_ref: call.through_ref, mutable: false };
        let kind = TKind::HostCall {
            name: call.view.name().to_owned(),
            symbol: lacuna_ir::map_binding_view_symbol(&call.map_type, call.view.name()),
            receiver: Some(Receiver::Binding(this)),
            args,
        };
        Ok(Some(TExpr { kind, ty, range }))
    }

    /// `m.keys()` / `m.values()` / `m.iter()` of a map binding (or `&m`, its entries, as a `for` loop reads it) in
    /// a hidden local the expression being built is put after: a sequence the snippet owns.
    pub(super) fn binding_map_items_temporary(&mut self, e: &ast::Expr) -> Result<Option<Seq>> {
        let call = match e {
            ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() => {
                let Some(call) = r.expr().and_then(|m| self.viewed_binding(&m, MapBindingView::Iter)) else {
                    return Ok(None);
                };
                self.view_host_call(call, &[], e)?
            }
            _ => self.binding_map_view(e, true)?,
        };
        let Some(call) = call else { return Ok(None) };
        let what = match &call.kind {
            TKind::HostCall { name, .. } => name.clone(),
            _ => "items".to_owned(),
        };
        Ok(self.hoist_vector(&what, call))
    }
}
