//! Assignments, `match`, calls of snippet functions.

use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{Arm, BinOp, LocalRef, Place, Scalar, TExpr, TKind, Ty};

impl Check<'_> {
    /// A scalar place lent to a host function ([`TKind::AddrOf`]): a snippet local of a scalar type, a hole
    /// binding holding one, or where a hole binding `&S` / `&mut S` points; lent `&mut` only where it may be
    /// written, as an assignment.
    ///
    /// [`TKind::AddrOf`]: lacuna_ir::TKind::AddrOf
    pub(super) fn lent(&mut self, e: &TExpr, place: &Place, mutable: bool) -> Result<(), Unsupported> {
        match place {
            Place::Local(LocalRef::Snippet(id)) => {
                let Some(local) = self.snippet.locals.get(*id) else {
                    return unsupported("an unknown local", &e.range);
                };
                if local.ty.scalar().is_none() {
                    return unsupported("a local of this type lent", &e.range);
                }
                if mutable && !local.mutable {
                    return unsupported("a local that is not `mut` lent as `&mut`", &e.range);
                }
            }
            Place::Local(LocalRef::Binding(i)) => {
                if self.binding_ty(*i).is_none() {
                    return unsupported("an unknown binding", &e.range);
                }
                if mutable {
                    self.write_binding(*i, "a binding that is not `mut` lent as `&mut`", e)?;
                }
            }
            Place::Deref(i) => {
                if self.binding_ty(*i).is_none() {
                    return unsupported("an unknown binding", &e.range);
                }
                if mutable && !self.bindings.get(*i).is_some_and(|b| b.mut_ref) {
                    return unsupported("a place behind a shared reference lent as `&mut`", &e.range);
                }
            }
            Place::HostField(_) | Place::ElemField(_) => return unsupported("a field lent", &e.range),
            Place::WholeBinding(_) => return unsupported("a whole binding lent", &e.range),
            // The struct a `&mut` loop variable points to: as a field written through it.
            Place::Elem { local, root, by_value } => {
                if !matches!(self.snippet.locals.get(*local).map(|l| &l.ty), Some(Ty::StructRef(_))) {
                    return unsupported("an element lent through something other than a struct's address", &e.range);
                }
                self.write_through_elem(*root, *by_value, mutable, e)?;
            }
        }
        Ok(())
    }

    /// A struct in hole binding `root`'s sequence changed through a `&mut` loop variable (`mutable`): the binding
    /// is written (held by value: the host hands it over writable), or what it points to (a `&mut` binding).
    fn write_through_elem(&mut self, root: usize, by_value: bool, mutable: bool, e: &TExpr) -> Result<(), Unsupported> {
        if !mutable {
            return Ok(());
        }
        if by_value {
            if !self.bindings.get(root).is_some_and(|b| b.mutable) {
                return unsupported("assignment to a field of a binding that is not `mut`", &e.range);
            }
            if !self.written.contains(&root) {
                self.written.push(root);
            }
        } else if !self.bindings.get(root).is_some_and(|b| b.mut_ref) {
            return unsupported("assignment through a reference that is not `&mut`", &e.range);
        }
        Ok(())
    }

    /// The snippet writes hole binding `i` itself (the host must hand it over writable): only a `mut` one.
    fn write_binding(&mut self, i: usize, refused: &str, e: &TExpr) -> Result<(), Unsupported> {
        if !self.bindings.get(i).is_some_and(|b| b.mutable) {
            return unsupported(refused, &e.range);
        }
        if !self.written.contains(&i) {
            self.written.push(i);
        }
        Ok(())
    }

    /// An assignment ([`TKind::Assign`]): only `mut` places, at their own types.
    pub(super) fn assign(
        &mut self,
        e: &TExpr,
        place: &Place,
        op: &Option<BinOp>,
        value: &TExpr,
    ) -> Result<(), Unsupported> {
        // An `Option` owning its payload may be assigned to a snippet local of its type (the old one dropped
        // after the new one is made, as a `String` is).
        self.owned_option_here = op.is_none()
            && matches!(place, Place::Local(LocalRef::Snippet(id))
                if self.snippet.locals.get(*id).is_some_and(|l| l.ty == value.ty));
        self.expr(value)?;
        // A whole `String` or vector of the host's: the old value dropped in its place, the new one moved in.
        if let Place::WholeBinding(i) = place {
            // A host struct or enum: a value the run just made, moved into the host's place (the checker gives
            // `WholeBinding` only for a binding of the value's type).
            let held = matches!(value.ty, Ty::Struct(_)) && made_by_the_run(value);
            if op.is_some() || !(value.ty.replaceable_in_place() || held) {
                return unsupported(format!("assignment of a `{}` to a binding", value.ty.name()), &e.range);
            }
            return self.write_binding(*i, "assignment to a binding that is not `mut`", e);
        }
        // A host struct or enum field written through a `&mut` element (`o.status = Status::Shipped`): a value the
        // run just made (a variant, a literal, a clone, a host call's) moved in whole, the old one dropped there.
        if let Place::ElemField(i) = place {
            if let Some(id) = self.snippet.elem_fields.get(*i).and_then(|f| f.held) {
                if op.is_some() || value.ty != Ty::Struct(id) || !made_by_the_run(value) {
                    return unsupported(format!("assignment of a `{}` to this field", value.ty.name()), &e.range);
                }
            }
        }
        // Other places of the host's (a binding, where one points, a field) are written one scalar word: a struct
        // assigned there would need the old value dropped and the new one moved in whole.
        let held_field = matches!(place, Place::ElemField(i)
            if self.snippet.elem_fields.get(*i).is_some_and(|f| f.held.is_some()));
        if !matches!(place, Place::Local(LocalRef::Snippet(_))) && value.ty.scalar().is_none() && !held_field {
            return unsupported(format!("assignment of a `{}` to a place of the host's", value.ty.name()), &e.range);
        }
        let place_ty = match place {
            Place::Local(LocalRef::Snippet(id))
                if !(self.snippet.locals[*id].mutable || op.is_none() && self.deferred.contains(id)) =>
            {
                return unsupported("assignment to a local that is not `mut`", &e.range)
            }
            Place::Local(LocalRef::Binding(i)) => {
                self.write_binding(*i, "assignment to a binding that is not `mut`", e)?;
                self.binding_ty(*i)
            }
            Place::Local(local) => self.local_ty(*local).map(|t| t.s()),
            Place::Elem { .. } => return unsupported("assignment to a whole struct", &e.range),
            Place::WholeBinding(_) => unreachable!("returned above"),
            Place::HostField(i) => {
                let Some(f) = self.snippet.fields.get(*i) else {
                    return unsupported("an unknown field", &e.range);
                };
                if f.through_ref && !f.mutable_ref {
                    return unsupported("assignment through a reference that is not `&mut`", &e.range);
                }
                if !f.through_ref {
                    if !self.bindings.get(f.binding).is_some_and(|b| b.mutable) {
                        return unsupported("assignment to a field of a binding that is not `mut`", &e.range);
                    }
                    if !self.written.contains(&f.binding) {
                        self.written.push(f.binding);
                    }
                }
                Some(f.ty)
            }
            // A field of a struct in the binding's sequence, through a `&mut` loop variable: the binding is written
            // (by value: the host hands it over writable), or what it points to (a `&mut` binding).
            Place::ElemField(i) => {
                let Some(f) = self.snippet.elem_fields.get(*i) else {
                    return unsupported("an unknown field", &e.range);
                };
                if !matches!(self.snippet.locals.get(f.local).map(|l| &l.ty), Some(Ty::StructRef(_))) {
                    return unsupported("a field written through something other than a struct's address", &e.range);
                }
                let (root, by_value, ty) = (f.root, f.by_value, f.ty);
                self.write_through_elem(root, by_value, true, e)?;
                Some(ty)
            }
            // Through a `&mut`: only what it points to is written.
            Place::Deref(i) => {
                if !self.bindings.get(*i).is_some_and(|b| b.mut_ref) {
                    return unsupported("assignment through a reference that is not `&mut`", &e.range);
                }
                self.binding_ty(*i)
            }
        };
        let place_ty = place_ty.ok_or(Unsupported { construct: "an unknown place".into(), range: e.range.clone() })?;
        match op {
            Some(op) => self.binary(*op, place_ty, value.s(), &e.range),
            None => Ok(()),
        }
    }

    /// `std::mem::take` or `replace` ([`lacuna_ir::TKind::MemReplace`]) of a `mut` local or binding holding a
    /// `String` or a vector whose elements own nothing but text, with a value of its type.
    pub(super) fn mem_replace(&mut self, e: &TExpr, place: &Place, value: Option<&TExpr>) -> Result<(), Unsupported> {
        if let Some(v) = value {
            self.expr(v)?;
            if v.ty != e.ty {
                return unsupported("a value of another type given to `std::mem::replace`", &v.range);
            }
        }
        if !e.ty.replaceable_in_place() {
            return unsupported(format!("a `{}` taken with `std::mem`", e.ty.name()), &e.range);
        }
        match place {
            Place::Local(LocalRef::Snippet(id)) => match self.snippet.locals.get(*id) {
                Some(local) if local.mutable && local.ty == e.ty => Ok(()),
                _ => unsupported("a value taken with `std::mem` from a local that is not `mut`", &e.range),
            },
            Place::WholeBinding(i) => {
                self.write_binding(*i, "a value taken with `std::mem` from a binding that is not `mut`", e)
            }
            _ => unsupported("a value taken with `std::mem` from this place", &e.range),
        }
    }

    /// A `match` ([`TKind::Match`]): patterns that fit, `bool` guards.
    pub(super) fn match_expr(&mut self, e: &TExpr, scrutinee: &TExpr, arms: &[Arm]) -> Result<(), Unsupported> {
        self.result_scrutinee = true;
        self.owned_option_here = true;
        self.expr(scrutinee)?;
        if arms.is_empty() {
            return unsupported("a `match` without arms", &e.range);
        }
        for Arm { pat, guard, body } in arms {
            self.pat(pat, &scrutinee.ty, &body.range)?;
            if let Some(g) = guard {
                self.expr(g)?;
                if g.ty != Ty::Scalar(Scalar::Bool) {
                    return unsupported("a guard that is not a `bool`", &g.range);
                }
            }
            // An arm's value is the `match`'s (an `Option<String>` or a `Result` where the `match` may be one).
            self.owned_option_here = crate::subset::owned_option(&e.ty);
            self.result_made_here = matches!(e.ty, Ty::Result(..));
            self.expr(body)?;
        }
        Ok(())
    }

    /// A call of a snippet function ([`TKind::Call`]).
    pub(super) fn call(&mut self, e: &TExpr, function: usize, args: &[TExpr]) -> Result<(), Unsupported> {
        let Some(f) = self.snippet.fns.get(function) else {
            return unsupported("an unknown function", &e.range);
        };
        if f.params.len() != args.len() {
            return unsupported("a call with the wrong number of arguments", &e.range);
        }
        for a in args {
            self.expr(a)?;
        }
        Ok(())
    }
}

/// A host struct or enum value the run has just made (a variant, a literal, a clone, a host call's answer), which it
/// can move whole into a place of the host's: nothing else holds it.
fn made_by_the_run(value: &TExpr) -> bool {
    matches!(
        value.kind,
        TKind::UnitVariant { .. } | TKind::StructLit { .. } | TKind::StructClone(_) | TKind::HostCall { .. }
    )
}
