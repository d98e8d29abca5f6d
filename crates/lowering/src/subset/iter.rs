//! Iterator chains and what consumes them.

use crate::scan::may_fault;
use crate::subset::seq::numeric_or_text_key;
use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{Elem, IterChain, MapValue, Part, Scalar, Sink, Stage, TExpr, TupleElem, Ty};

impl Check<'_> {
    /// An iterator chain and what consumes it ([`TKind::Consume`]).
    pub(super) fn consume(&mut self, e: &TExpr, chain: &IterChain, sink: &Sink) -> Result<(), Unsupported> {
        if let (Sink::Collect { .. }, Ty::Vec(Elem::Tuple(t))) = (sink, &e.ty) {
            self.collect_tuple = Some(*t);
        }
        // Into a map: `(key, value)` pairs, written as a tuple of the key as the map keeps it and the value.
        let map_pair = map_pair(&e.ty);
        if let (Sink::Collect { .. }, Some(pair)) = (sink, &map_pair) {
            self.collect_tuple = TupleElem::new(pair);
        }
        if let (Sink::Collect { .. }, Ty::Result(..)) = (sink, &e.ty) {
            if !matches!(chain.stages.last(), Some((Stage::Map(_), Ty::Result(..)))) {
                return unsupported("`Result`s collected from something other than a `map` making them", &e.range);
            }
            self.collect_results = true;
        }
        let item = self.chain(chain)?;
        self.collect_tuple = None;
        self.collect_results = false;
        let s = item.scalar();
        let ordered = |s: Option<Scalar>| s.is_some_and(|s| s.is_int() || s == Scalar::Char || s == Scalar::Bool);
        // `Option<item>` of an item the sink keeps: a scalar, or text or a host struct read in place.
        let option_of_item = item.copied_in_place() && e.ty == Ty::Option(Box::new(item.clone()));
        let ok = match sink {
            // Integer sums and products only (a float sum's start value differs between toolchains).
            Sink::Sum { .. } | Sink::Product { .. } => s.is_some_and(|s| s.is_int() || s.is_float()) && e.ty == item,
            Sink::Count => e.ty == Ty::Scalar(Scalar::Usize),
            Sink::Max | Sink::Min => ordered(s) && e.ty == Ty::option(s.unwrap_or(Scalar::Never)),
            // `find_map(|x| x.email.clone())`: the first new `String` a last `filter_map` gives, where nothing before
            // it makes a value that owns memory (none is left to drop unseen).
            Sink::Next if item == Ty::String => {
                let n = chain.stages.len();
                let borrowed = |t: &Ty| t.in_place() || t.scalar().is_some();
                matches!(chain.stages.last(), Some((Stage::FilterMap(_), Ty::String)))
                    && chain.stages[..n - 1].iter().all(|(_, t)| borrowed(t))
                    && borrowed(&chain.source.item())
                    && e.ty == Ty::Option(Box::new(Ty::String))
            }
            Sink::Last | Sink::Next => option_of_item,
            Sink::Any(c) | Sink::All(c) => {
                self.closure(c, std::slice::from_ref(&item), &Ty::Scalar(Scalar::Bool), &e.range)?;
                e.ty == Ty::Scalar(Scalar::Bool)
            }
            Sink::Position(c) => {
                self.closure(c, std::slice::from_ref(&item), &Ty::Scalar(Scalar::Bool), &e.range)?;
                e.ty == Ty::option(Scalar::Usize)
            }
            Sink::Find(c) => {
                self.closure(c, std::slice::from_ref(&item), &Ty::Scalar(Scalar::Bool), &e.range)?;
                option_of_item
            }
            Sink::MaxByKey(c) | Sink::MinByKey(c) => {
                self.closure(c, std::slice::from_ref(&item), &c.body.ty, &e.range)?;
                ordered(c.body.ty.scalar()) && option_of_item
            }
            Sink::MaxBy(keys) | Sink::MinBy(keys) => {
                for key in keys {
                    self.closure(&key.key, std::slice::from_ref(&item), &key.key.body.ty, &e.range)?;
                    // Keys that cannot fault are computed once per item; a single key that may is computed where
                    // std's comparison computes it (the JIT's `max_by_each_comparison`). Several such keys would
                    // need the comparison's own laziness (`then_with`).
                    if keys.len() > 1 && may_fault(&key.key.body) {
                        return unsupported("a `max_by` or `min_by` key that may fault", &key.key.body.range);
                    }
                    // Numeric keys only (the fold compares words; text keys are `sort_by`'s helper's).
                    let ok = key.key.body.ty != Ty::Str && numeric_or_text_key(&key.order, &key.key.body.ty);
                    if !ok {
                        return unsupported(
                            format!("a `max_by` or `min_by` key of type `{}`", key.key.body.ty.name()),
                            &e.range,
                        );
                    }
                }
                option_of_item
            }
            Sink::Fold { init, closure } => {
                self.expr(init)?;
                self.closure(closure, &[e.ty.clone(), item.clone()], &e.ty, &e.range)?;
                init.ty == e.ty
                    // A map (its address) is moved into the closure and out again: what the closure does not
                    // hand back is dropped there, as any map local's is.
                    && (matches!(e.ty, Ty::Scalar(_) | Ty::Option(_) | Ty::Map { .. })
                        || matches!(&e.ty, Ty::Tuple(ps) if ps.iter().all(|p| p.scalar().is_some())))
                    && !matches!(e.ty, Ty::Scalar(Scalar::Unit | Scalar::Never))
            }
            Sink::Collect { .. } => {
                (s.is_some_and(|s| !matches!(s, Scalar::Unit | Scalar::Never))
                    && e.ty == Ty::Vec(Elem::Scalar(s.unwrap_or(Scalar::Never))))
                    || (s == Some(Scalar::Char) && e.ty == Ty::String)
                    || (item == Ty::String && e.ty == Ty::Vec(Elem::String))
                    // Borrowed text (`split(..).collect()`): rustc's borrow check judges the references.
                    || (item == Ty::Str && e.ty == Ty::Vec(Elem::Str))
                    // Tuples, written part by part where rustc lays them out (read in place, or built by `map`).
                    || matches!(&e.ty, Ty::Vec(Elem::Tuple(t)) if Some(&item) == Elem::Tuple(*t).owned_ty().as_ref())
                    // References to host structs: rustc judges them too.
                    || matches!((&item, &e.ty), (Ty::StructRef(a), Ty::Vec(Elem::StructRef(b))) if a == b)
                    // Into a set of scalars or text (borrowed text: rustc judges the references).
                    || (e.ty.is_set() && matches!(&e.ty, Ty::Map { key, .. } if **key == item))
                    // Into a map, from pairs of a key and a scalar value.
                    || map_pair.is_some_and(|pair| item == Ty::Tuple(pair.iter().map(|p| p.owned_ty()).collect()))
                    // Into a `Result` of a vector of scalars, from `Result`s of those with the same error.
                    || matches!((&item, &e.ty), (Ty::Result(item_ok, item_err), Ty::Result(ok, err))
                        if item_err == err
                            && matches!((&**item_ok, &**ok), (Ty::Scalar(s), Ty::Vec(Elem::Scalar(t)))
                                if s == t && !matches!(s, Scalar::Unit | Scalar::Never)))
            }
        };
        if ok {
            Ok(())
        } else {
            unsupported("this use of an iterator", &e.range)
        }
    }
}

/// The parts of the `(key, value)` items a map of scalar values (not a set) is collected from: the key as the map
/// keeps it (an owned `String`, a `&str`, a scalar), then the value.
fn map_pair(ty: &Ty) -> Option<[Part; 2]> {
    let Ty::Map { key, value: MapValue::Scalar(value), .. } = ty else { return None };
    if ty.is_set() || matches!(value, Scalar::Unit | Scalar::Never | Scalar::I128 | Scalar::U128) {
        return None;
    }
    let key = match &**key {
        Ty::String => Part::String,
        Ty::Str => Part::Str,
        Ty::Scalar(s) => Part::Scalar(*s),
        _ => return None,
    };
    Some([key, Part::Scalar(*value)])
}
