//! Maps and sets the snippet builds.

use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{BinOp, Elem, MapMethod, MapValue, MapView, Part, Scalar, TExpr, Ty};

impl Check<'_> {
    /// A view of the snippet's map or set as a new vector ([`TKind::MapEntries`]): its entries, keys or values,
    /// text keys read in place (copied, for `into_iter` of `String` keys).
    pub(super) fn map_entries(&mut self, e: &TExpr, map: usize, view: MapView) -> Result<(), Unsupported> {
        let Some((key, value, _)) = self.map_local(map) else {
            return unsupported("a view of something other than a map", &e.range);
        };
        let key = match key {
            Ty::String if view == MapView::IntoIter => Part::String,
            Ty::String | Ty::Str => Part::Str,
            Ty::Scalar(s) if !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never) => {
                Part::Scalar(*s)
            }
            _ => return unsupported("a view of a map with these keys", &e.range),
        };
        let Some(value) = value.scalar() else { return unsupported("a view of a map of vectors", &e.range) };
        let key_elem = match key {
            Part::Scalar(s) => Elem::Scalar(s),
            Part::String => Elem::String,
            Part::Str => Elem::Str,
        };
        let set = value == Scalar::Unit;
        let fits = match (view, &e.ty) {
            (MapView::Keys, Ty::Vec(elem)) => *elem == key_elem,
            (MapView::Iter | MapView::IntoIter, Ty::Vec(elem)) if set => *elem == key_elem,
            (MapView::Values, Ty::Vec(elem)) => !set && *elem == Elem::Scalar(value),
            (MapView::Iter | MapView::IntoIter, Ty::Vec(Elem::Tuple(t))) => t.parts() == [key, Part::Scalar(value)],
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            unsupported("this view of a map", &e.range)
        }
    }

    /// A method of the snippet's map or set ([`TKind::MapMethod`]).
    pub(super) fn map_method(
        &mut self,
        e: &TExpr,
        map: usize,
        name: MapMethod,
        args: &[TExpr],
    ) -> Result<(), Unsupported> {
        for a in args {
            self.expr(a)?;
        }
        let Some((key, value, mutable)) = self.map_local(map) else {
            return unsupported("a method of something other than a map", &e.range);
        };
        let Some(value) = value.scalar().map(Ty::Scalar) else {
            // A map of vectors: only its size is read.
            return match name {
                MapMethod::Len if e.ty == Ty::Scalar(Scalar::Usize) => Ok(()),
                MapMethod::IsEmpty if e.ty == Ty::Scalar(Scalar::Bool) => Ok(()),
                _ => unsupported(format!("the map method `{name}` of a map of vectors"), &e.range),
            };
        };
        let arg = |i: usize| args.get(i).map(|a| &a.ty);
        // A key read in place: text for a text-keyed map.
        let key_ref = |t: Option<&Ty>| match key {
            Ty::String | Ty::Str => t == Some(&Ty::Str),
            k => t == Some(k),
        };
        let set = value == Ty::Scalar(Scalar::Unit);
        let bool_ty = Ty::Scalar(Scalar::Bool);
        let fits = match name {
            MapMethod::Len => e.ty == Ty::Scalar(Scalar::Usize),
            MapMethod::IsEmpty => e.ty == bool_ty,
            // A set's: whether the key was there (`contains`, `remove`) or was not (`insert`).
            MapMethod::Contains | MapMethod::Remove if set => args.len() == 1 && key_ref(arg(0)) && e.ty == bool_ty,
            MapMethod::Insert if set => args.len() == 1 && arg(0) == Some(key) && e.ty == bool_ty,
            _ if set => false,
            MapMethod::Get | MapMethod::Remove => key_ref(arg(0)) && e.ty == Ty::option(value.s()),
            MapMethod::ContainsKey => key_ref(arg(0)) && e.ty == Ty::Scalar(Scalar::Bool),
            MapMethod::Index => key_ref(arg(0)) && e.ty == value,
            MapMethod::Insert => {
                arg(0) == Some(key)
                    && arg(1) == Some(&value)
                    && (e.ty == Ty::option(value.s()) || e.ty == Ty::Scalar(Scalar::Unit))
            }
            MapMethod::Contains => false,
        };
        if name.mutates() && !mutable {
            return unsupported("a map changed through a binding that is not `mut`", &e.range);
        }
        if fits {
            Ok(())
        } else {
            unsupported(format!("the map method `{name}` here"), &e.range)
        }
    }

    /// `*m.entry(k).or_insert(d) op= v` ([`TKind::MapUpdate`]).
    pub(super) fn map_update(
        &mut self,
        e: &TExpr,
        map: usize,
        k: &TExpr,
        default: &Option<Box<TExpr>>,
        op: &Option<BinOp>,
        v: &TExpr,
    ) -> Result<(), Unsupported> {
        self.expr(v)?;
        self.expr(k)?;
        if let Some(d) = default {
            self.expr(d)?;
        }
        let Some((key, value, mutable)) = self.map_local(map) else {
            return unsupported("an entry of something other than a map", &e.range);
        };
        let Some(value) = value.scalar().map(Ty::Scalar) else {
            return unsupported("a change of an entry of a map of vectors", &e.range);
        };
        let op_fits = match op {
            None => true,
            Some(BinOp::Add | BinOp::Sub | BinOp::Mul) => value.s().is_int() || value.s().is_float(),
            Some(_) => false,
        };
        let fits = value != Ty::Scalar(Scalar::Unit)
            // (Text read in place when the key is already there: `*e` of `let e = m.entry(k)..`.)
            && (k.ty == *key || (k.ty == Ty::Str && *key == Ty::String && default.is_none()))
            && default.as_ref().is_none_or(|d| d.ty == value)
            && v.ty == value
            && op_fits
            && e.ty == Ty::Scalar(Scalar::Unit)
            && mutable;
        if fits {
            Ok(())
        } else {
            unsupported("this change of a map entry", &e.range)
        }
    }

    /// `m.entry(k).or_default().push(s)` of a map of vectors of strings ([`TKind::MapPush`]): the key as the map
    /// keeps it (a `String` moved in, or a scalar), a `String` pushed.
    pub(super) fn map_push(&mut self, e: &TExpr, map: usize, k: &TExpr, v: &TExpr) -> Result<(), Unsupported> {
        self.expr(k)?;
        self.expr(v)?;
        let Some((key, value, mutable)) = self.map_local(map) else {
            return unsupported("an entry of something other than a map", &e.range);
        };
        let fits = *value == MapValue::Strings
            && k.ty == *key
            && matches!(key, Ty::String | Ty::Scalar(_))
            && v.ty == Ty::String
            && e.ty == Ty::Scalar(Scalar::Unit);
        if !mutable {
            return unsupported("a map changed through a binding that is not `mut`", &e.range);
        }
        if fits {
            Ok(())
        } else {
            unsupported("this push onto a map's vector", &e.range)
        }
    }
}
