//! Host structs: literals, fields read through references, host calls.

use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{LocalRef, Receiver, Scalar, TExpr, TKind, Ty};

impl Check<'_> {
    /// A host struct literal ([`TKind::StructLit`]).
    pub(super) fn struct_literal(
        &mut self,
        e: &TExpr,
        id: usize,
        fields: &[(String, TExpr)],
        base: &Option<Box<TExpr>>,
    ) -> Result<(), Unsupported> {
        if let Some(b) = base {
            self.expr(b)?;
            // The base's box is reused: a new struct of this type, not a local's (partial moves).
            if b.ty != Ty::Struct(id) || matches!(b.kind, TKind::Local(_)) {
                return unsupported("this `..base`", &b.range);
            }
        }
        for (_, value) in fields {
            self.expr(value)?;
            // Over a base, only scalars replace fields (a replaced `String` would need dropping).
            let fits = match &value.ty {
                Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never),
                ty => *ty == Ty::String && base.is_none(),
            };
            if !fits {
                return unsupported(format!("a field of type `{}` in a literal", value.ty.name()), &value.range);
            }
        }
        if e.ty == Ty::Struct(id) {
            Ok(())
        } else {
            unsupported("this struct literal", &e.range)
        }
    }

    /// A field of a host struct read through a reference ([`TKind::RefField`]).
    pub(super) fn ref_field(&mut self, e: &TExpr, base: &TExpr) -> Result<(), Unsupported> {
        self.expr(base)?;
        // A scalar field's value, or a `String` or host struct field read in place; or a `String` field moved out
        // of a host struct the snippet holds by value (`Err(e) => e.0`): a copy the expression owns, the struct
        // dropped whole where it would be (no host type with a `Drop` of its own gets here: E0509).
        let owned_local = matches!((&base.ty, &base.kind), (Ty::Struct(_), TKind::Local(LocalRef::Snippet(_))));
        let ok = matches!(base.ty, Ty::StructRef(_) | Ty::Struct(_))
            && match &e.ty {
                Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never),
                Ty::String => owned_local,
                ty => matches!(ty, Ty::Str | Ty::StructRef(_)),
            };
        if ok {
            Ok(())
        } else {
            unsupported(format!("a field of type `{}` read through a reference", e.ty.name()), &e.range)
        }
    }

    /// An `Option` field of a host struct read in place ([`TKind::OptionField`]).
    pub(super) fn option_field(&mut self, e: &TExpr, base: &TExpr) -> Result<(), Unsupported> {
        self.expr(base)?;
        let payload_ok = |p: &Ty| match p {
            Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never | Scalar::I128 | Scalar::U128),
            p => matches!(p, Ty::Str | Ty::StructRef(_)),
        };
        if matches!(base.ty, Ty::StructRef(_) | Ty::Struct(_)) && matches!(&e.ty, Ty::Option(p) if payload_ok(p)) {
            Ok(())
        } else {
            unsupported(format!("an `Option` field read as `{}`", e.ty.name()), &e.range)
        }
    }

    /// `&o` of a snippet local holding an `Option` that owns a `String` or a host struct ([`TKind::OptionRef`]):
    /// its payload read in place, the local kept whole.
    pub(super) fn option_ref(&mut self, e: &TExpr, o: &TExpr) -> Result<(), Unsupported> {
        // The local is read, not moved (it may be an `Option` that owns its payload).
        self.owned_option_here = true;
        self.expr(o)?;
        let viewed = match &o.ty {
            Ty::Option(p) if **p == Ty::String => Some(Ty::Str),
            Ty::Option(p) => match **p {
                Ty::Struct(id) => Some(Ty::StructRef(id)),
                _ => None,
            },
            _ => None,
        };
        let local = matches!(o.kind, TKind::Local(LocalRef::Snippet(_)));
        match viewed.map(|v| Ty::Option(Box::new(v))) {
            Some(t) if local && e.ty == t => Ok(()),
            _ => unsupported(format!("a `{}` read in place as `{}`", o.ty.name(), e.ty.name()), &e.range),
        }
    }

    /// A call of a host function or method through its shim ([`TKind::HostCall`]).
    pub(super) fn host_call(
        &mut self,
        e: &TExpr,
        args: &[TExpr],
        receiver: &Option<Receiver>,
    ) -> Result<(), Unsupported> {
        let receiver = match receiver {
            Some(Receiver::Binding(r)) => Some(r),
            Some(Receiver::InPlace(this)) => {
                self.expr(this)?;
                if !matches!(this.ty, Ty::Struct(_) | Ty::StructRef(_)) {
                    return unsupported("a receiver that is not a host struct", &this.range);
                }
                None
            }
            None => None,
        };
        for a in args {
            self.lent_here = true;
            self.expr(a)?;
        }
        match receiver {
            // `&mut self` on the binding's own value: the host must hand it over writable.
            Some(r) if r.mutable && !r.through_ref => {
                if !self.bindings.get(r.binding).is_some_and(|b| b.mutable) {
                    return unsupported("a `&mut self` method on a binding that is not `mut`", &e.range);
                }
                if !self.written.contains(&r.binding) {
                    self.written.push(r.binding);
                }
            }
            Some(r) if r.mutable && !self.bindings.get(r.binding).is_some_and(|b| b.mut_ref) => {
                return unsupported("a `&mut self` method through a shared reference", &e.range);
            }
            _ => {}
        }
        Ok(())
    }
}
