//! Sequences: methods, `retain` and sorts, stores.

use crate::scan::may_fault;
use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{
    BinOp, Closure, Elem, KeyOrder, LocalRef, Scalar, Seq, SeqClosureMethod, SeqKind, SeqMethod, SortKey, TExpr, TKind,
    TPat, Ty,
};

impl Check<'_> {
    /// A method of a sequence ([`TKind::SeqMethod`]).
    pub(super) fn seq_method(
        &mut self,
        e: &TExpr,
        seq: &Seq,
        name: SeqMethod,
        args: &[TExpr],
    ) -> Result<(), Unsupported> {
        for a in args {
            // A tuple pushed onto a sequence of tuples is written straight into it: its parts (owned `String`s
            // among them) move there, and the tuple is never a value of its own.
            if let (SeqMethod::Push, Elem::Tuple(t)) = (name, seq.elem) {
                self.owned_tuple = Some(t);
            }
            self.expr(a)?;
            self.owned_tuple = None;
        }
        let arg = |i: usize| args.get(i).map(|a| &a.ty);
        let ok = match seq.elem {
            Elem::Tuple(t) => match (name, args.len()) {
                (SeqMethod::IsEmpty, 0) => e.ty == Ty::Scalar(Scalar::Bool),
                // The elements cut off are dropped where they are (their `String`s freed): tuples of scalars and
                // `String`s.
                (SeqMethod::Truncate, 1) => {
                    seq.kind.grows() && Elem::Tuple(t).drops_in_place() && arg(0) == Some(&Ty::Scalar(Scalar::Usize))
                }
                (SeqMethod::Reverse, 0) => true,
                (SeqMethod::Push, 1) => {
                    seq.kind == SeqKind::Local
                        && matches!(&args[0].kind, TKind::Tuple(parts) if parts.len() == t.parts().len())
                        && e.ty == Ty::Scalar(Scalar::Unit)
                }
                _ => false,
            },
            // Of a sequence of strings: its emptiness, and pushing a `String` (which moves into it).
            Elem::String | Elem::Str | Elem::Struct(_) | Elem::StructRef(_) => match (name, args.len()) {
                (SeqMethod::IsEmpty, 0) => e.ty == Ty::Scalar(Scalar::Bool),
                (SeqMethod::Join, 1) if matches!(seq.elem, Elem::String | Elem::Str) => {
                    arg(0) == Some(&Ty::Str) && e.ty == Ty::String
                }
                // Strings order by their bytes; equal ones are indistinguishable, so stability is moot.
                (SeqMethod::Sort | SeqMethod::SortUnstable, 0) => matches!(seq.elem, Elem::String | Elem::Str),
                // Of the snippet's own strings (whose removed buffers it frees), or of `&str`s.
                (SeqMethod::Dedup, 0) => {
                    (seq.elem == Elem::String && seq.kind == SeqKind::Local)
                        || (seq.elem == Elem::Str && seq.kind.grows())
                }
                (SeqMethod::Contains, 1) if matches!(seq.elem, Elem::String | Elem::Str) => {
                    arg(0) == Some(&Ty::Str) && e.ty == Ty::Scalar(Scalar::Bool)
                }
                (SeqMethod::Reverse, 0) => true,
                (SeqMethod::First | SeqMethod::Last, 0) => e.ty == Ty::Option(Box::new(seq.elem.read_ty())),
                (SeqMethod::Get, 1) => {
                    arg(0) == Some(&Ty::Scalar(Scalar::Usize)) && e.ty == Ty::Option(Box::new(seq.elem.read_ty()))
                }
                // The elements cut off are dropped where they are (a `String`'s buffer freed, a host struct
                // through its `Drop`).
                (SeqMethod::Truncate, 1) => arg(0) == Some(&Ty::Scalar(Scalar::Usize)) && seq.kind.grows(),
                // A new `String` moved into the snippet's own vector or the host's (a binding's, a field's: the
                // buffer is the host's from then on).
                (SeqMethod::Push, 1) if seq.elem == Elem::String => {
                    seq.kind.grows() && arg(0) == Some(&Ty::String) && e.ty == Ty::Scalar(Scalar::Unit)
                }
                // A host struct the run holds in a box (a clone, a literal, a host function's), moved onto the
                // host's vector of them.
                (SeqMethod::Push, 1) if matches!(seq.elem, Elem::Struct(_)) => {
                    seq.kind.grows()
                        && seq.kind != SeqKind::Local
                        && matches!((seq.elem, arg(0)), (Elem::Struct(a), Some(Ty::Struct(b))) if a == *b)
                        && e.ty == Ty::Scalar(Scalar::Unit)
                }
                // Text into the snippet's own `Vec<&str>` (how long it lives is rustc's borrow check).
                (SeqMethod::Push, 1) if seq.elem == Elem::Str => {
                    seq.kind == SeqKind::Local && arg(0) == Some(&Ty::Str) && e.ty == Ty::Scalar(Scalar::Unit)
                }
                _ => false,
            },
            Elem::Scalar(s) => Self::scalar_seq_method(name, args, s, seq.kind, &e.ty),
        };
        if !ok {
            return unsupported(format!("the sequence method `{name}`"), &e.range);
        }
        if name.mutates() {
            if !seq.writable {
                return unsupported("changing a sequence that is not writable", &e.range);
            }
            self.seq_written(seq, &e.range)?;
        }
        Ok(())
    }

    /// `retain` and the sorts by a key ([`TKind::SeqWithClosure`]).
    pub(super) fn seq_with_closure(
        &mut self,
        e: &TExpr,
        seq: &Seq,
        name: SeqClosureMethod,
        closure: &Closure,
        descending: bool,
    ) -> Result<(), Unsupported> {
        let item = seq.elem.read_ty();
        let body = &closure.body;
        let retain = name == SeqClosureMethod::Retain;
        let ret = if retain { Ty::Scalar(Scalar::Bool) } else { body.ty.clone() };
        self.closure(closure, std::slice::from_ref(&item), &ret, &e.range)?;
        if !seq.writable || !seq.kind.grows() && retain {
            return unsupported(format!("`{name}` of a sequence that is not writable"), &e.range);
        }
        // The closure's calls run in an order and number of std's choosing (`retain`: each element once,
        // in order; a sort: as its algorithm compares), and a fault leaves the sequence as std's code left
        // it: so a closure that may fault runs only where nothing depends on either, `retain` on the
        // snippet's own vector.
        let faults_unseen = retain && seq.kind == SeqKind::Local;
        if !faults_unseen && may_fault(body) {
            return unsupported(format!("a `{name}` closure that may fault"), &body.range);
        }
        let ok = match name {
            // Scalars, and elements that own memory, which the JIT drops where they are removed.
            SeqClosureMethod::Retain => (seq.elem.scalar().is_some() || seq.elem.drops_in_place()) && !descending,
            SeqClosureMethod::SortByKey | SeqClosureMethod::SortUnstableByKey => {
                let key_ordered = body.ty.scalar().is_some_and(|k| {
                    k.int_bits().is_some_and(|bits| bits <= 64) || matches!(k, Scalar::Char | Scalar::Bool)
                });
                // An unstable sort orders equal keys as its algorithm happens to: only equal elements
                // may have equal keys (the key is the element itself).
                let identity = matches!(
                    (&closure.params[..], &body.kind),
                    ([TPat::Bind(p)], TKind::Local(LocalRef::Snippet(l))) if p == l
                );
                let stable_enough = !name.unstable() || (identity && seq.elem.scalar().is_some());
                key_ordered && stable_enough
            }
        };
        if !ok {
            return unsupported(format!("this `{name}`"), &e.range);
        }
        self.seq_written(seq, &e.range)?;
        Ok(())
    }

    /// `seq` is changed: a `Vec` binding itself is written (the host must hand it over writable; through a `&mut`
    /// only what it points to is), and so is a binding holding the struct whose field a [`SeqKind::Field`] is.
    pub(super) fn seq_written(&mut self, seq: &Seq, range: &std::ops::Range<usize>) -> Result<(), Unsupported> {
        let written = match seq.kind {
            // An array binding's elements are the binding itself.
            SeqKind::Vec | SeqKind::Array(_) => seq.binding,
            SeqKind::Field => {
                let place = self.snippet.seq_places.get(seq.binding);
                let mutable = |b: usize| self.bindings.get(b).is_some_and(|b| b.mutable);
                let mut_ref = |b: usize| self.bindings.get(b).is_some_and(|b| b.mut_ref);
                match place.map(|p| (p.base, &p.base_ty, p.root)) {
                    Some((LocalRef::Binding(b), Ty::Struct(_), None)) if mutable(b) => b,
                    Some((LocalRef::Binding(b), Ty::StructRef(_), None)) if mut_ref(b) => return Ok(()),
                    // Through a `&mut` loop variable over the binding's structs.
                    Some((LocalRef::Snippet(_), Ty::StructRef(_), Some((b, true)))) if mutable(b) => b,
                    Some((LocalRef::Snippet(_), Ty::StructRef(_), Some((b, false)))) if mut_ref(b) => return Ok(()),
                    _ => return unsupported("changing a vector in a struct that is not writable", range),
                }
            }
            SeqKind::Local | SeqKind::RefVec | SeqKind::Slice | SeqKind::SliceLocal => return Ok(()),
        };
        if !self.written.contains(&written) {
            self.written.push(written);
        }
        Ok(())
    }

    /// A sort by a comparison of keys ([`TKind::SortBy`]).
    pub(super) fn sort_by(
        &mut self,
        e: &TExpr,
        seq: &Seq,
        unstable: bool,
        keys: &[SortKey],
    ) -> Result<(), Unsupported> {
        let item = seq.elem.read_ty();
        if !seq.writable {
            return unsupported("`sort_by` of a sequence that is not writable", &e.range);
        }
        // Equal keys of different elements end up in the order std's unstable sort happens to leave them: only a
        // sort of scalars by themselves (equal keys, equal elements) may be unstable.
        let identity = |k: &SortKey| {
            matches!(
                (&k.key.params[..], &k.key.body.kind, &k.order),
                ([TPat::Bind(p)], TKind::Local(LocalRef::Snippet(l)), KeyOrder::Ord) if p == l
            )
        };
        if unstable && !(seq.elem.scalar().is_some() && keys.len() == 1 && identity(&keys[0])) {
            return unsupported("`sort_unstable_by` of keys other than the elements", &e.range);
        }
        for key in keys {
            self.closure(&key.key, std::slice::from_ref(&item), &key.key.body.ty, &e.range)?;
            // The keys are computed once per element, not once per comparison as std's sort does: only a key
            // that cannot fault may be.
            if may_fault(&key.key.body) {
                return unsupported("a `sort_by` key that may fault", &key.key.body.range);
            }
            // A NaN's panic comes before the sort moves anything, where std's leaves the elements part sorted:
            // only the snippet's own vector (dropped by the fault) may see one.
            let partial = matches!(key.order, KeyOrder::Partial { .. });
            let ok = numeric_or_text_key(&key.order, &key.key.body.ty) && (!partial || seq.kind == SeqKind::Local);
            if !ok {
                return unsupported(format!("a `sort_by` key of type `{}`", key.key.body.ty.name()), &e.range);
            }
        }
        self.seq_written(seq, &e.range)?;
        Ok(())
    }

    /// `v[i] = x` or `v[i] op= x`, or `v[i].n op= x` of a scalar part of a tuple ([`TKind::SeqStore`]).
    pub(super) fn seq_store(
        &mut self,
        e: &TExpr,
        seq: &Seq,
        (index, part): (&TExpr, Option<usize>),
        op: &Option<BinOp>,
        value: &TExpr,
    ) -> Result<(), Unsupported> {
        self.expr(index)?;
        self.expr(value)?;
        let elem = match (seq.elem, part) {
            (Elem::Scalar(s), None) => s,
            (Elem::Tuple(t), Some(p)) => match t.parts().get(p) {
                Some(lacuna_ir::Part::Scalar(s)) => *s,
                _ => return unsupported("assignment into a tuple part that is not a scalar", &e.range),
            },
            _ => return unsupported("assignment into a sequence of strings", &e.range),
        };
        if part.is_some() && op.is_none() && value.ty != Ty::Scalar(elem) {
            return unsupported("assignment of a value of another type", &e.range);
        }
        if !seq.writable {
            return unsupported("assignment into a sequence that is not writable", &e.range);
        }
        // A `Vec` binding itself is written (the host must hand it over writable); through a `&mut`
        // only what it points to is.
        self.seq_written(seq, &e.range)?;
        match op {
            Some(op) => self.binary(*op, elem, value.s(), &e.range),
            None => Ok(()),
        }
    }
}

/// A key a comparison compares as the JIT can ([`SortKey`]): an integer of at most 64 bits, a `char` or a `bool`,
/// or text, by `Ord`; a float by `total_cmp` or `partial_cmp`.
pub(super) fn numeric_or_text_key(order: &KeyOrder, ty: &Ty) -> bool {
    match (order, ty) {
        (KeyOrder::Ord, Ty::Scalar(s)) => {
            s.int_bits().is_some_and(|bits| bits <= 64) || matches!(s, Scalar::Char | Scalar::Bool)
        }
        (KeyOrder::Ord, Ty::Str) => true,
        (KeyOrder::Total | KeyOrder::Partial { .. }, Ty::Scalar(s)) => s.is_float(),
        _ => false,
    }
}
