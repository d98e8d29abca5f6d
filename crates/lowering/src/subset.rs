//! The subset's own rules: what codegen implements, at the types it implements them for. [`Check`] walks the
//! snippet once and says where it leaves the subset.

mod control;
mod iter;
mod map;
mod methods;
mod seq;
mod structs;
mod text;

use lacuna_ir::Binding;
use lacuna_ir::{
    AtomicMethod, BinOp, Closure, Elem, IterChain, IterSource, Lit, LocalRef, ParseThen, Pieces, Scalar, SeqKind,
    SeqMethod, Stage, TBlock, TExpr, TKind, TPat, TStmt, Ty, TypedSnippet, UnOp,
};

use crate::Unsupported;

pub(crate) struct Check<'a> {
    pub(crate) snippet: &'a TypedSnippet,
    pub(crate) bindings: &'a [Binding],
    pub(crate) written: Vec<usize>,
    /// Enclosing loops and labelled blocks, innermost last.
    pub(crate) loops: Vec<(Option<String>, Target)>,
    /// Inside a snippet function: its return type.
    pub(crate) in_fn: Option<Ty>,
    /// Locals declared without a value (`let x;`): assigned once on each path, which rustc checks.
    pub(crate) deferred: Vec<usize>,
    /// The expression checked next is a `match`'s scrutinee, where a host call's `Result` may be.
    pub(crate) result_scrutinee: bool,
    /// The expression checked next is where an `Option` that owns its payload ([`owned_option`]) may be: a
    /// `let`'s value, a `match`'s scrutinee, a `{:?}` argument, or the receiver of a method that reads or unwraps it.
    pub(crate) owned_option_here: bool,
    /// The tail of the block checked next is where an `Option` that owns its payload may be (the block's value
    /// is).
    pub(crate) owned_tail: bool,
    /// The expression checked next is a `let`'s value, where a host call's `Result` may be kept in a local.
    pub(crate) let_value_here: bool,
    /// The expression checked next is where a `Result` the snippet makes may be: a function's answer (its
    /// body's value, a `return`'s), or an arm, branch or block tail whose value is one of those or a `Result`
    /// kept in a local or matched.
    pub(crate) result_made_here: bool,
    /// The tail of the block checked next is where a `Result` the snippet makes may be.
    pub(crate) result_tail: bool,
    /// The expression checked next is a host call's argument, where a scalar place may be lent
    /// ([`TKind::AddrOf`]).
    pub(crate) lent_here: bool,
    /// The expression checked next is written straight into a sequence of these tuples (`push`'s argument, the
    /// body of the `map` a `collect` gathers), where a tuple of owned parts may be.
    pub(crate) owned_tuple: Option<lacuna_ir::TupleElem>,
    /// The chain checked next is collected into a sequence of these tuples.
    pub(crate) collect_tuple: Option<lacuna_ir::TupleElem>,
    /// Inside the closure of a `filter_map` whose payloads, these tuples owning their text, are written straight
    /// into the sequence a `collect` makes: where an `Option` of one may be made (`Some((name.clone(), x))`).
    pub(crate) option_tuple: Option<lacuna_ir::TupleElem>,
    /// The chain checked next is collected into a `Result` of a vector: its last stage, a `map`, makes each item's
    /// `Result` (a host call's), which the sink takes apart.
    pub(crate) collect_results: bool,
}

/// What `break` and `continue` may leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `while` or `for`: `break` without a value.
    Loop,
    /// `loop`: `break` with a value.
    ValueLoop,
    /// A labelled block: only a labelled `break`, with a value; never `continue`.
    Block,
}

/// Text read in place from a name: a `&str` local, or the text of a string binding or of a `String` local the
/// snippet names (`s.as_str()`, `&s`) — never a hidden local holding a temporary.
fn named_text(x: &TExpr, locals: &[lacuna_ir::TLocal]) -> bool {
    let named = |local: usize| locals.get(local).is_some_and(|l| !l.name.starts_with('<'));
    let name = |x: &TExpr| matches!(x.kind, TKind::Local(LocalRef::Snippet(l)) if named(l));
    x.ty == Ty::Str
        && match &x.kind {
            TKind::Local(LocalRef::Snippet(l)) => named(*l),
            TKind::TextOf(seq) => seq.kind != SeqKind::Local || named(seq.binding),
            TKind::TextMethod { name: lacuna_ir::TextMethod::AsStr, receiver, args } => {
                args.is_empty() && name(receiver)
            }
            _ => false,
        }
}

/// An `Option` that owns its payload (an `Option<String>`, an `Option<S>` of a host struct): moved when read by
/// value, dropped where its scope ends.
pub fn owned_option(ty: &Ty) -> bool {
    matches!(ty, Ty::Option(p) if p.owns())
}

pub(crate) fn unsupported<T>(construct: impl Into<String>, range: &std::ops::Range<usize>) -> Result<T, Unsupported> {
    Err(Unsupported { construct: construct.into(), range: range.clone() })
}

impl Check<'_> {
    pub(crate) fn scalar(&self, ty: Scalar, range: std::ops::Range<usize>) -> Result<(), Unsupported> {
        match ty {
            Scalar::I128 | Scalar::U128 => unsupported("128-bit integers", &range),
            _ => Ok(()),
        }
    }

    pub(crate) fn ty(&self, ty: &Ty, range: std::ops::Range<usize>) -> Result<(), Unsupported> {
        for part in ty.parts() {
            self.scalar(part, range.clone())?;
        }
        match ty {
            Ty::Option(_) | Ty::Tuple(_) if ty.parts().iter().any(|p| matches!(p, Scalar::Unit | Scalar::Never)) => {
                unsupported(format!("the type `{}`", ty.name()), &range)
            }
            // Host structs are only reached in place, never held or built by the snippet.
            Ty::Vec(Elem::Struct(_)) => unsupported("a vector of host structs", &range),
            // A tuple holding a `String` is only written straight into a sequence (`push`), never held.
            Ty::Tuple(parts) if parts.iter().any(Ty::owns) => unsupported(format!("a `{}` held", ty.name()), &range),
            Ty::Option(p)
                if matches!(&**p, Ty::Tuple(parts) if parts.iter().any(Ty::owns)) && !self.option_tuple_payload(p) =>
            {
                unsupported(format!("an `{}` held", ty.name()), &range)
            }
            Ty::Result(ok, err) => {
                let payload = |t: &Ty| {
                    matches!(t, Ty::Scalar(s) if *s != Scalar::Never)
                        || matches!(t, Ty::String | Ty::Struct(_) | Ty::StructRef(_) | Ty::Vec(Elem::Scalar(_)))
                };
                if payload(ok) && payload(err) {
                    Ok(())
                } else {
                    unsupported(format!("the type `{}`", ty.name()), &range)
                }
            }
            _ => Ok(()),
        }
    }

    /// Whether a method of a sequence of scalars `elem` fits its arguments and result (`ty`).
    pub(crate) fn scalar_seq_method(name: SeqMethod, args: &[TExpr], elem_s: Scalar, kind: SeqKind, ty: &Ty) -> bool {
        let elem = Ty::Scalar(elem_s);
        let arg = |i: usize| args.get(i).map(|a| &a.ty);
        let ordered = elem_s.is_int() || matches!(elem_s, Scalar::Char | Scalar::Bool);
        let usize_ty = Ty::Scalar(Scalar::Usize);
        match (name, args.len()) {
            (SeqMethod::IsEmpty, 0) => *ty == Ty::Scalar(Scalar::Bool),
            (SeqMethod::Contains, 1) => arg(0) == Some(&elem) && *ty == Ty::Scalar(Scalar::Bool),
            (SeqMethod::First | SeqMethod::Last, 0) => *ty == Ty::option(elem_s),
            (SeqMethod::Get, 1) => arg(0) == Some(&usize_ty) && *ty == Ty::option(elem_s),
            (SeqMethod::Sort | SeqMethod::SortUnstable, 0) => ordered,
            (SeqMethod::Reverse, 0) => true,
            (SeqMethod::Swap, 2) => arg(0) == Some(&usize_ty) && arg(1) == Some(&usize_ty),
            (SeqMethod::Fill, 1) => arg(0) == Some(&elem),
            // `dedup`, `push` and `pop` change the length: a `Vec`'s only.
            (SeqMethod::Dedup, 0) => kind.grows() && !elem_s.is_float(),
            (SeqMethod::Push, 1) => kind.grows() && arg(0) == Some(&elem) && *ty == Ty::Scalar(Scalar::Unit),
            (SeqMethod::Pop, 0) => kind.grows() && *ty == Ty::option(elem_s),
            (SeqMethod::Truncate, 1) => kind.grows() && arg(0) == Some(&usize_ty),
            _ => false,
        }
    }

    /// `pat` fits a value of type `ty` (its names are snippet locals of the part's type).
    pub(crate) fn pat(&self, pat: &TPat, ty: &Ty, range: &std::ops::Range<usize>) -> Result<(), Unsupported> {
        let ok = match (pat, ty) {
            (TPat::Wild, _) => true,
            (TPat::Bind(local), ty) => self.snippet.locals.get(*local).is_some_and(|l| &l.ty == ty),
            (TPat::Lit { lit, .. }, Ty::Scalar(s)) => {
                matches!(
                    (lit, s),
                    (Lit::Int(_), s) if s.is_int()
                ) || matches!((lit, s), (Lit::Char(_), Scalar::Char) | (Lit::Bool(_), Scalar::Bool))
            }
            (TPat::Range { lo, hi, .. }, Ty::Scalar(s)) => {
                (s.is_int() || *s == Scalar::Char)
                    && [lo, hi].iter().all(|end| match end {
                        Some((Lit::Int(_), _)) => s.is_int(),
                        Some((Lit::Char(_), false)) => *s == Scalar::Char,
                        Some(_) => false,
                        None => true,
                    })
            }
            (TPat::Or(alternatives), ty) => {
                for alternative in alternatives {
                    self.pat(alternative, ty, range)?;
                }
                // Names bound in alternatives would need one local each: not in the subset.
                !alternatives.iter().any(binds)
            }
            (TPat::Some(inner), Ty::Option(payload)) => return self.pat(inner, payload, range),
            (TPat::None, Ty::Option(_)) => true,
            (TPat::Ok(inner), Ty::Result(ok, _)) => return self.pat(inner, ok, range),
            (TPat::Err(inner), Ty::Result(_, err)) => return self.pat(inner, err, range),
            (TPat::Variant { adt, fields, .. }, Ty::Struct(a) | Ty::StructRef(a)) if adt == a => {
                for f in fields {
                    // Moving a field out (a `String` bound by value) needs a value the snippet owns; out of a
                    // reference it is rustc's E0507.
                    if f.ty == Ty::String && matches!(ty, Ty::StructRef(_)) {
                        return unsupported("a `String` field moved out of a reference", range);
                    }
                    if !matches!(f.ty, Ty::Scalar(_) | Ty::Str | Ty::String) {
                        return unsupported(format!("a `{}` field in a pattern", f.ty.name()), range);
                    }
                    self.pat(&f.pat, &f.ty, range)?;
                }
                true
            }
            (TPat::Tuple(elems), Ty::Tuple(parts)) if elems.len() == parts.len() => {
                for (elem, part) in elems.iter().zip(parts) {
                    self.pat(elem, part, range)?;
                }
                true
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            unsupported(format!("this pattern on `{}`", ty.name()), range)
        }
    }

    /// A closure body written in place: `break`/`continue` cannot leave it (rustc rejects such code; the subset
    /// does not model it).
    pub(crate) fn closure_body(&mut self, body: &TExpr) -> Result<(), Unsupported> {
        let loops = std::mem::take(&mut self.loops);
        let r = self.expr(body);
        self.loops = loops;
        r
    }

    pub(crate) fn block(&mut self, block: &TBlock) -> Result<(), Unsupported> {
        if block.label.is_some() {
            self.loops.push((block.label.clone(), Target::Block));
        }
        let r = self.block_inner(block);
        if block.label.is_some() {
            self.loops.pop();
        }
        r
    }

    pub(crate) fn block_inner(&mut self, block: &TBlock) -> Result<(), Unsupported> {
        let owned_tail = std::mem::take(&mut self.owned_tail);
        let result_tail = std::mem::take(&mut self.result_tail);
        for stmt in &block.stmts {
            match stmt {
                TStmt::Let { local, init: Some(init) } => {
                    let ty = &self.snippet.locals[*local].ty;
                    // An `Option` of a tuple owning its text is a `filter_map` closure's value, never a local's.
                    if matches!(ty, Ty::Option(p) if matches!(&**p, Ty::Tuple(parts) if parts.iter().any(Ty::owns))) {
                        return unsupported(format!("an `{}` held", ty.name()), &init.range);
                    }
                    self.ty(ty, init.range.clone())?;
                    self.owned_option_here = true;
                    self.let_value_here = true;
                    self.expr(init)?;
                }
                TStmt::Let { local, init: None } => {
                    self.ty(&self.snippet.locals[*local].ty, 0..0)?;
                    self.deferred.push(*local);
                }
                TStmt::LetPat { pat, init, otherwise } => {
                    self.owned_option_here = true;
                    self.result_scrutinee = true;
                    self.expr(init)?;
                    self.pat(pat, &init.ty, &init.range)?;
                    if let Some(b) = otherwise {
                        self.block(b)?;
                    }
                }
                TStmt::Expr(e) => self.expr(e)?,
            }
        }
        if let Some(tail) = &block.tail {
            self.owned_option_here = owned_tail;
            self.result_made_here = result_tail;
            self.expr(tail)?;
        }
        Ok(())
    }

    /// Runs `f` inside a loop of kind `target`.
    pub(crate) fn in_loop(
        &mut self,
        label: &Option<String>,
        target: Target,
        f: impl FnOnce(&mut Self) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        self.loops.push((label.clone(), target));
        let r = f(self);
        self.loops.pop();
        r
    }

    /// The loop or block a `break`/`continue` with this label leaves (an unlabelled one leaves the innermost loop).
    pub(crate) fn target(&self, label: &Option<String>) -> Option<Target> {
        match label {
            None => self.loops.iter().rev().find(|(_, t)| *t != Target::Block).map(|(_, t)| *t),
            Some(l) => self.loops.iter().rev().find(|(name, _)| name.as_ref() == Some(l)).map(|(_, t)| *t),
        }
    }

    pub(crate) fn local_ty(&self, local: LocalRef) -> Option<Ty> {
        match local {
            LocalRef::Snippet(id) => self.snippet.locals.get(id).map(|l| l.ty.clone()),
            LocalRef::Binding(i) => self.binding_ty(i).map(Ty::Scalar),
        }
    }

    /// The key type, value type and `mut`-ness of the snippet's map local `map`.
    pub(crate) fn map_local(&self, map: usize) -> Option<(&Ty, &lacuna_ir::MapValue, bool)> {
        match self.snippet.locals.get(map)? {
            lacuna_ir::TLocal { ty: Ty::Map { key, value, .. }, mutable, .. } => Some((key, value, *mutable)),
            _ => None,
        }
    }

    pub(crate) fn binding_ty(&self, binding: usize) -> Option<Scalar> {
        self.snippet.bindings.iter().find(|(b, _)| *b == binding).map(|(_, t)| *t)
    }

    pub(crate) fn expr(&mut self, e: &TExpr) -> Result<(), Unsupported> {
        if let (Some(t), TKind::Tuple(parts)) = (self.owned_tuple.take(), &e.kind) {
            return self.owned_tuple_parts(t, parts, e);
        }
        self.ty(&e.ty, e.range.clone())?;
        // A `Result` is a host call's, matched (or destructured by `let .. else`) where it is made, or kept in a
        // local that is then matched (the local's payloads are its own until a pattern moves them out).
        let result_here = std::mem::take(&mut self.result_scrutinee);
        let let_value_here = std::mem::take(&mut self.let_value_here);
        let lent_here = std::mem::take(&mut self.lent_here);
        let made_here = std::mem::take(&mut self.result_made_here);
        let result_ok = match &e.kind {
            // (`collect::<Result<Vec<_>, _>>()` makes one as a call does.)
            TKind::HostCall { .. }
            | TKind::Call { .. }
            | TKind::Consume { sink: lacuna_ir::Sink::Collect { .. }, .. } => {
                result_here || let_value_here || made_here
            }
            TKind::Local(LocalRef::Snippet(_)) => result_here || made_here,
            // What the snippet makes, and the forms whose arms, branches or tails make it (checked there).
            TKind::ResultOf { .. } | TKind::Match { .. } | TKind::If { .. } | TKind::Block(_) => {
                result_here || let_value_here || made_here
            }
            _ => false,
        };
        // Each arm, branch and tail of a `Result`-valued form is where one may be made.
        let makes_result = matches!(e.ty, Ty::Result(..));
        if makes_result && !result_ok {
            return unsupported("a `Result` held other than by a `match` on the call that makes it", &e.range);
        }
        // An `Option` owning a `String` is made by a local, a host call, `Some`, `None`, `map` of an `Option` read
        // in place, or the arms of a `match`, `if` or block whose value it is; and used only where the flag says
        // (a `let`, a `match`, formatting, the methods that read it, a `filter_map` closure): nothing else moves or
        // copies one.
        let owned_option_here = std::mem::take(&mut self.owned_option_here);
        if owned_option(&e.ty) {
            // An `Option` of a tuple owning its text is only ever a `filter_map` closure's value: made, never held.
            let tuple = matches!(&e.ty, Ty::Option(p) if matches!(&**p, Ty::Tuple(_)));
            let made = match &e.kind {
                TKind::Some(_) | TKind::None => true,
                TKind::Local(_) | TKind::HostCall { .. } => !tuple,
                // Each arm's or branch's value is one, checked where it is.
                TKind::Match { .. } | TKind::If { .. } | TKind::Block(_) => true,
                TKind::OptionClosure { method: lacuna_ir::OptionClosureMethod::Map, receiver, .. } => {
                    !owned_option(&receiver.ty)
                }
                // `find_map(|x| x.email.clone())`: which chains may give one is the sink's rule (`iter.rs`).
                TKind::Consume { sink: lacuna_ir::Sink::Next, .. } => true,
                _ => false,
            };
            if !owned_option_here || !made {
                return unsupported(format!("an `{}` used this way", e.ty.name()), &e.range);
            }
        }
        match &e.kind {
            TKind::Lit(_) => Ok(()),
            TKind::AddrOf { place, mutable } if lent_here => self.lent(e, place, *mutable),
            TKind::AddrOf { .. } => unsupported("a place lent other than to a host function", &e.range),
            TKind::Local(local) => match self.local_ty(*local) {
                Some(_) => Ok(()),
                None => unsupported("an unknown local", &e.range),
            },
            TKind::StructClone(x) => {
                self.expr(x)?;
                match (&x.ty, &e.ty) {
                    (Ty::Struct(a) | Ty::StructRef(a), Ty::Struct(b)) if a == b => Ok(()),
                    _ => unsupported("this `clone`", &e.range),
                }
            }
            TKind::StructLit { id, fields, base } => self.struct_literal(e, *id, fields, base),
            TKind::UnitVariant { id, .. } => match e.ty {
                Ty::Struct(s) if s == *id => Ok(()),
                _ => unsupported("a unit variant of this type", &e.range),
            },
            TKind::MapNew => match e.ty {
                Ty::Map { .. } => Ok(()),
                _ => unsupported("a map of this type", &e.range),
            },
            TKind::MapEntries { map, view } => self.map_entries(e, *map, *view),
            TKind::MapMethod { map, name, args, .. } => self.map_method(e, *map, *name, args),
            TKind::MapUpdate { map, key: k, default, op, value: v } => self.map_update(e, *map, k, default, op, v),
            TKind::MapPush { map, key: k, value: v } => self.map_push(e, *map, k, v),
            TKind::StructEq { left, right, .. } | TKind::StructOrd { left, right, .. } => {
                self.expr(left)?;
                self.expr(right)?;
                match (&left.ty, &right.ty) {
                    (Ty::Struct(a) | Ty::StructRef(a), Ty::Struct(b) | Ty::StructRef(b))
                        if a == b && e.ty == Ty::Scalar(Scalar::Bool) =>
                    {
                        Ok(())
                    }
                    _ => unsupported("this comparison", &e.range),
                }
            }
            TKind::Deref(binding) => match self.binding_ty(*binding) {
                Some(_) => Ok(()),
                None => unsupported("an unknown binding", &e.range),
            },
            TKind::HostField(i) => match self.snippet.fields.get(*i) {
                Some(f) if e.ty == Ty::Scalar(f.ty) && self.binding_ty(f.binding).is_some() => Ok(()),
                _ => unsupported("an unknown field", &e.range),
            },
            TKind::RefField { base, .. } => self.ref_field(e, base),
            TKind::OptionField { base, .. } => self.option_field(e, base),
            TKind::OptionRef(o) => self.option_ref(e, o),
            TKind::Unary(op, inner) => {
                self.expr(inner)?;
                let ok = match op {
                    UnOp::Neg => inner.s().is_signed() || inner.s().is_float(),
                    UnOp::Not => inner.s().is_int() || inner.s() == Scalar::Bool,
                };
                if ok {
                    Ok(())
                } else {
                    unsupported("this unary operator on this type", &e.range)
                }
            }
            TKind::Binary(op, l, r) => {
                self.expr(l)?;
                self.expr(r)?;
                // Named as written: an operand that is not a scalar has no scalar view to name.
                if l.ty.scalar().is_none() || r.ty.scalar().is_none() {
                    return unsupported(format!("`{op:?}` on `{}` and `{}`", l.ty.name(), r.ty.name()), &e.range);
                }
                self.binary(*op, l.s(), r.s(), &e.range)
            }
            TKind::Cast(inner) => {
                self.expr(inner)?;
                let (from, to) = (inner.s(), e.s());
                let numeric = |t: Scalar| t.is_int() || t.is_float();
                let ok = (numeric(from) && numeric(to))
                    || (matches!(from, Scalar::Bool | Scalar::Char) && to.is_int())
                    || (from == Scalar::U8 && to == Scalar::Char)
                    || from == to;
                if ok {
                    Ok(())
                } else {
                    unsupported("this cast", &e.range)
                }
            }
            TKind::Assign { place, op, value } => self.assign(e, place, op, value),
            TKind::MemReplace { place, value } => self.mem_replace(e, place, value.as_deref()),
            TKind::Block(b) => {
                self.owned_tail = owned_option(&e.ty);
                self.result_tail = makes_result;
                self.block(b)
            }
            TKind::If { cond, then, otherwise } => {
                self.expr(cond)?;
                // An `Option<String>` or a `Result` is each branch's value.
                self.owned_tail = owned_option(&e.ty);
                self.result_tail = makes_result;
                self.block(then)?;
                match otherwise {
                    Some(o) => {
                        self.owned_option_here = owned_option(&e.ty);
                        self.result_made_here = makes_result;
                        self.expr(o)
                    }
                    None => Ok(()),
                }
            }
            TKind::While { label, cond, body } => {
                self.expr(cond)?;
                self.in_loop(label, Target::Loop, |c| c.block(body))
            }
            TKind::Loop { label, body } => self.in_loop(label, Target::ValueLoop, |c| c.block(body)),
            TKind::For { label, start, end, body, .. } => {
                self.expr(start)?;
                self.expr(end)?;
                self.in_loop(label, Target::Loop, |c| c.block(body))
            }
            TKind::ForSeq { label, body, var, seq } => {
                // Each element is read in place (a scalar's value, a string's text), or — over a vector the
                // snippet owns and the loop consumes — a `String` element taken by value, as a copy the
                // variable owns for one pass (the vector, elements and all, is dropped after the loop).
                let var_ty = self.snippet.locals.get(*var).map(|l| &l.ty);
                let by_value = seq.kind == SeqKind::Local && seq.elem == Elem::String && var_ty == Some(&Ty::String);
                if var_ty != Some(&seq.elem.read_ty()) && !by_value {
                    return unsupported("a `for` over elements taken by value", &e.range);
                }
                self.in_loop(label, Target::Loop, |c| c.block(body))
            }
            TKind::Break { label, value } => {
                let Some(target) = self.target(label) else {
                    return unsupported("`break` outside a loop", &e.range);
                };
                if value.is_some() && target == Target::Loop {
                    return unsupported("`break` with a value out of a `while` or `for`", &e.range);
                }
                match value {
                    Some(v) => {
                        // Out of a labelled block (a closure's body a `?` leaves): the block's value, which may be
                        // an `Option` owning its payload or a `Result` wherever the block's may.
                        if target == Target::Block {
                            self.owned_option_here = owned_option(&v.ty);
                            self.result_made_here = matches!(v.ty, Ty::Result(..));
                        }
                        self.expr(v)
                    }
                    None => Ok(()),
                }
            }
            TKind::Continue { label } => match self.target(label) {
                Some(Target::Loop | Target::ValueLoop) => Ok(()),
                _ => unsupported("`continue` outside a loop", &e.range),
            },
            TKind::Return(value) => {
                if self.in_fn.is_none() {
                    return unsupported("`return` from the snippet", &e.range);
                }
                match value {
                    Some(v) => {
                        self.result_made_here = matches!(self.in_fn, Some(Ty::Result(..)));
                        self.expr(v)
                    }
                    None => Ok(()),
                }
            }
            TKind::Call { function, args } => self.call(e, *function, args),
            TKind::HostCall { args, receiver, .. } => self.host_call(e, args, receiver),
            TKind::SeqLen(_) | TKind::SeqSum(_) => Ok(()),
            TKind::SeqMethod { seq, name, args, .. } => self.seq_method(e, seq, *name, args),
            TKind::SeqWithClosure { seq, name, closure, descending } => {
                self.seq_with_closure(e, seq, *name, closure, *descending)
            }
            TKind::SortBy { seq, unstable, keys } => self.sort_by(e, seq, *unstable, keys),
            TKind::SeqIndex { seq, index } => {
                self.expr(index)?;
                // An element of a sequence of strings is read in place (its text), never moved out.
                if e.ty == seq.elem.read_ty() && index.ty == Ty::Scalar(Scalar::Usize) {
                    Ok(())
                } else {
                    unsupported("an element read as this type", &e.range)
                }
            }
            TKind::SeqStore { seq, index, part, op, value, .. } => self.seq_store(e, seq, (index, *part), op, value),
            TKind::Method { name, receiver, args } => self.method(e, *name, receiver, args),
            TKind::Some(inner) => {
                if let Some(t) =
                    self.option_tuple.filter(|_| matches!(&e.ty, Ty::Option(p) if self.option_tuple_payload(p)))
                {
                    self.owned_tuple = Some(t);
                }
                self.expr(inner)?;
                match &e.ty {
                    // A scalar, or a value read in place (text, a host struct's address): copying it owns nothing.
                    Ty::Option(p) if p.in_place() && inner.ty == **p => Ok(()),
                    // A `String`, moved in.
                    Ty::Option(p) if **p == Ty::String && inner.ty == Ty::String => Ok(()),
                    // A host struct the snippet owns (its box), moved in.
                    Ty::Option(p) if matches!(**p, Ty::Struct(_)) && inner.ty == **p => Ok(()),
                    // A tuple owning its text, in a `filter_map` closure whose payloads are written straight into a
                    // sequence of them (checked as the tuple is, above).
                    Ty::Option(p) if self.option_tuple_payload(p) && inner.ty == **p => Ok(()),
                    _ => unsupported("`Some` of this type", &e.range),
                }
            }
            TKind::None => match e.ty {
                Ty::Option(_) => Ok(()),
                _ => unsupported("`None` of this type", &e.range),
            },
            TKind::ResultOf { ok, value } => {
                self.expr(value)?;
                match &e.ty {
                    Ty::Result(o, r) if **(if *ok { o } else { r }) == value.ty => Ok(()),
                    _ => unsupported("a `Result` of this type", &e.range),
                }
            }
            TKind::Tuple(elems) => {
                for x in elems {
                    self.expr(x)?;
                }
                let parts: Vec<Ty> = elems.iter().map(|x| x.ty.clone()).collect();
                // Tuples the snippet writes hold scalars (borrows in them are `enumerate`'s items), or `Option`s of
                // values read in place (`(v.first(), v.last())`).
                let fits = |p: &Ty| p.scalar().is_some() || matches!(p, Ty::Option(q) if q.in_place());
                match &e.ty {
                    Ty::Tuple(ps) if *ps == parts && ps.iter().all(fits) => Ok(()),
                    _ => unsupported("a tuple of this type", &e.range),
                }
            }
            TKind::Field(base, index) => {
                self.expr(base)?;
                match &base.ty {
                    Ty::Tuple(ps) if ps.get(*index) == Some(&e.ty) => Ok(()),
                    _ => unsupported("a field of this type", &e.range),
                }
            }
            TKind::Match { scrutinee, arms } => self.match_expr(e, scrutinee, arms),
            // A scalar operand of the static's type; the old value (or `()`) as the answer.
            TKind::Atomic { method, value, scalar, .. } => {
                let operand_ok = match (method, value) {
                    (AtomicMethod::Load, None) => true,
                    (AtomicMethod::Load, Some(_)) | (_, None) => false,
                    (_, Some(v)) => {
                        self.expr(v)?;
                        v.ty == Ty::Scalar(*scalar)
                    }
                };
                let answer = if *method == AtomicMethod::Store { Scalar::Unit } else { *scalar };
                if operand_ok && e.ty == Ty::Scalar(answer) {
                    Ok(())
                } else {
                    unsupported("an atomic operation of this type", &e.range)
                }
            }
            TKind::UnwrapFailed { payload, .. } => {
                self.expr(payload)?;
                let readable = matches!(payload.ty, Ty::Scalar(_) | Ty::String | Ty::Struct(_) | Ty::StructRef(_));
                if readable && matches!(payload.kind, TKind::Local(_)) && e.ty == Ty::Scalar(Scalar::Never) {
                    Ok(())
                } else {
                    unsupported("this `unwrap` of a `Result`", &e.range)
                }
            }
            TKind::OptionClosure { method, receiver, param, body } => {
                self.option_closure(e, *method, receiver, param, body)
            }
            TKind::PanicFormatted(message) => match message.kind {
                TKind::Format(_) => self.expr(message),
                _ => unsupported("a panic's message that is not formatted text", &e.range),
            },
            TKind::Panic { receiver, .. } => match receiver {
                Some(r) => {
                    self.owned_option_here = true;
                    self.expr(r)?;
                    match r.ty {
                        Ty::Option(ref p) if e.ty == **p => Ok(()),
                        _ => unsupported("`expect` on this type", &e.range),
                    }
                }
                None => Ok(()),
            },
            TKind::Consume { chain, sink } => self.consume(e, chain, sink),
            TKind::ForIter { label, pat, chain, body } => {
                let item = self.chain(chain)?;
                self.pat(pat, &item, &e.range)?;
                self.in_loop(label, Target::Loop, |c| c.block(body))
            }
            // A slice lent to a host function: of scalars; lent `&mut`, a sequence the snippet may change.
            // A slice value the snippet holds (a helper's argument, a local): read only.
            TKind::SliceOf { mutable: false, .. } if matches!(e.ty, Ty::Slice(_)) => Ok(()),
            TKind::SubSlice { start, end, .. } => {
                for bound in start.iter().chain(end.iter()) {
                    self.expr(bound)?;
                    if bound.ty != Ty::Scalar(Scalar::Usize) {
                        return unsupported("a slice bound that is not a `usize`", &bound.range);
                    }
                }
                Ok(())
            }
            TKind::SliceOf { seq, mutable } => {
                if !lent_here {
                    return unsupported("a slice lent other than to a host function", &e.range);
                }
                if seq.elem.scalar().is_none() {
                    return unsupported("a slice of this type lent", &e.range);
                }
                if *mutable {
                    if !seq.writable {
                        return unsupported("a sequence that is not writable lent as `&mut`", &e.range);
                    }
                    self.seq_written(seq, &e.range)?;
                }
                Ok(())
            }
            TKind::TextOf(seq) => {
                if e.ty == Ty::Str && seq.elem == Elem::Scalar(Scalar::U8) {
                    Ok(())
                } else {
                    unsupported("text of this type", &e.range)
                }
            }
            TKind::TextMethod { name, receiver, args } => self.text_method(e, *name, receiver, args),
            TKind::StringPush { seq, value, .. } => {
                self.expr(value)?;
                if !seq.writable || !seq.kind.grows() || seq.elem != Elem::Scalar(Scalar::U8) {
                    return unsupported("changing text that is not writable", &e.range);
                }
                if !matches!(value.ty, Ty::Str | Ty::String | Ty::Scalar(Scalar::Char)) {
                    return unsupported("appending something other than text", &e.range);
                }
                self.seq_written(seq, &e.range)?;
                Ok(())
            }
            TKind::Concat { left, right, .. } => {
                self.expr(left)?;
                self.expr(right)?;
                if left.ty == Ty::String && matches!(right.ty, Ty::Str | Ty::String) && e.ty == Ty::String {
                    Ok(())
                } else {
                    unsupported("`+` of these types", &e.range)
                }
            }
            TKind::Format(pieces) | TKind::Print { pieces, .. } => {
                let want = if matches!(e.kind, TKind::Format(_)) { Ty::String } else { Ty::Scalar(Scalar::Unit) };
                if e.ty != want {
                    return unsupported("a formatting macro of this type", &e.range);
                }
                for p in pieces {
                    let lacuna_ir::FmtPiece::Arg { value, spec } = p else { continue };
                    // Formatting borrows the value.
                    self.owned_option_here = true;
                    self.result_made_here = true;
                    self.expr(value)?;
                    use lacuna_ir::FmtTrait;
                    let ok = match (&value.ty, spec.trait_) {
                        (Ty::Scalar(s), FmtTrait::Display | FmtTrait::Debug) => {
                            !matches!(s, Scalar::Unit | Scalar::Never | Scalar::I128 | Scalar::U128)
                        }
                        (
                            Ty::Scalar(s),
                            FmtTrait::LowerHex | FmtTrait::UpperHex | FmtTrait::Binary | FmtTrait::Octal,
                        ) => s.is_int(),
                        (Ty::Scalar(s), FmtTrait::LowerExp | FmtTrait::UpperExp) => s.is_int() || s.is_float(),
                        (Ty::Str | Ty::String, FmtTrait::Display | FmtTrait::Debug) => true,
                        // `{:?}` of an `Option` of a scalar or text: the spec is the payload's (`{:>8?}`,
                        // `{:#?}`), as the payload's own `{:?}` takes it.
                        (Ty::Option(p), FmtTrait::Debug) => match &**p {
                            Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never | Scalar::I128 | Scalar::U128),
                            // A host struct the `Option` owns or borrows formats itself (the host's shim), plain
                            // `{:?}` only.
                            Ty::Struct(_) | Ty::StructRef(_) => {
                                *spec == lacuna_ir::FmtSpec { trait_: FmtTrait::Debug, ..Default::default() }
                            }
                            p => matches!(p, Ty::Str | Ty::String),
                        },
                        // `{:?}` of a `Result` of scalars, `()` or text: the spec is the payload's, but no `#`.
                        (Ty::Result(ok, err), FmtTrait::Debug) => {
                            let payload = |p: &Ty| match p {
                                Ty::Scalar(s) => !matches!(s, Scalar::Never | Scalar::I128 | Scalar::U128),
                                p => matches!(p, Ty::Str | Ty::String),
                            };
                            !spec.alternate && payload(ok) && payload(err)
                        }
                        // `{:?}` of a vector of scalars or text, with no width, precision or `#`.
                        (Ty::Vec(elem) | Ty::Slice(elem), FmtTrait::Debug) => {
                            let plain = *spec == lacuna_ir::FmtSpec { trait_: FmtTrait::Debug, ..Default::default() };
                            let element = match elem {
                                Elem::Scalar(s) => {
                                    !matches!(s, Scalar::Unit | Scalar::Never | Scalar::I128 | Scalar::U128)
                                }
                                // Tuples of those: `[("a", 1), ("b", 2)]`, each part as its own `{:?}`.
                                Elem::Str | Elem::String | Elem::Tuple(_) => true,
                                _ => false,
                            };
                            plain && element
                        }
                        // `{:?}` of the snippet's map or set: `{k: v, ..}` / `{k, ..}` in key order (a `BTreeMap`'s;
                        // one a `HashMap` may have), with no width, precision or `#`.
                        (Ty::Map { key, value, .. }, FmtTrait::Debug) => {
                            *spec == lacuna_ir::FmtSpec { trait_: FmtTrait::Debug, ..Default::default() }
                                && matches!(**key, Ty::Str | Ty::String | Ty::Scalar(_))
                                && value.scalar().is_some()
                        }
                        // A host struct formats itself (the host's shim); only `{}`, `{:?}` and `{:#?}`.
                        (Ty::Struct(_) | Ty::StructRef(_), FmtTrait::Display | FmtTrait::Debug) => {
                            let plain = lacuna_ir::FmtSpec {
                                alternate: spec.alternate,
                                trait_: spec.trait_,
                                ..Default::default()
                            };
                            *spec == plain
                        }
                        _ => false,
                    };
                    if !ok {
                        return unsupported(format!("formatting a `{}` this way", value.ty.name()), &value.range);
                    }
                }
                Ok(())
            }
            TKind::TryConvert { value, target, then, .. } => {
                self.expr(value)?;
                if let ParseThen::UnwrapOr(v) = then {
                    self.expr(v)?;
                }
                let int = |s: Scalar| s.int_bits().is_some_and(|b| b <= 64);
                let ok = value.ty.scalar().is_some_and(int) && int(*target) && consumer_fits(then, *target, &e.ty);
                if ok {
                    Ok(())
                } else {
                    unsupported("this use of `try_from`", &e.range)
                }
            }
            TKind::Parse { text, target, then, .. } => {
                self.expr(text)?;
                if let ParseThen::UnwrapOr(v) = then {
                    self.expr(v)?;
                }
                let ok = matches!(text.ty, Ty::Str | Ty::String)
                    && !matches!(target, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never)
                    && consumer_fits(then, *target, &e.ty);
                if ok {
                    Ok(())
                } else {
                    unsupported("this use of `parse`", &e.range)
                }
            }
            TKind::SeqClone(seq) => {
                // Scalars copied bytewise; strings each given a copy of their text.
                if e.ty == Ty::Vec(seq.elem) && (seq.elem.scalar().is_some() || seq.elem == Elem::String) {
                    Ok(())
                } else {
                    unsupported("a copy of a sequence to this type", &e.range)
                }
            }
            TKind::VecRepeat { value, count } => {
                self.expr(value)?;
                self.expr(count)?;
                match (&e.ty, &value.ty) {
                    (Ty::Vec(Elem::Scalar(s)), Ty::Scalar(v)) if s == v && count.ty == Ty::Scalar(Scalar::Usize) => {
                        Ok(())
                    }
                    _ => unsupported("a vector of this type", &e.range),
                }
            }
            TKind::VecLit(elems) => {
                for x in elems {
                    // `[("tea", 2), ..]`: each tuple written straight into the vector.
                    if let Ty::Vec(Elem::Tuple(t)) = e.ty {
                        self.owned_tuple = Some(t);
                    }
                    self.expr(x)?;
                    self.owned_tuple = None;
                }
                // Strings are moved into the vector; text only from string literals (`'static`: nothing a
                // borrow check would have to follow).
                let literal = |x: &TExpr| matches!(x.kind, TKind::Lit(lacuna_ir::Lit::Str(_)));
                match e.ty {
                    Ty::Vec(elem)
                        if elems.iter().all(|x| Some(&x.ty) == elem.owned_ty().as_ref())
                            && !matches!(elem, Elem::Scalar(Scalar::Unit | Scalar::Never)) =>
                    {
                        Ok(())
                    }
                    Ty::Vec(Elem::Str) if elems.iter().all(literal) => Ok(()),
                    // Or the text of a name (`[s.as_str(), "x"]`): a local or binding outliving the vector, which
                    // rustc's borrow check judges (the typed view says the snippet borrows).
                    Ty::Vec(Elem::Str)
                        if self.snippet.references.is_some()
                            && elems.iter().all(|x| literal(x) || named_text(x, &self.snippet.locals)) =>
                    {
                        Ok(())
                    }
                    _ => unsupported("a vector of this type", &e.range),
                }
            }
        }
    }

    /// An iterator's source: its items' type.
    pub(crate) fn source(&mut self, source: &IterSource, range: &std::ops::Range<usize>) -> Result<Ty, Unsupported> {
        Ok(match source {
            IterSource::Range { start, end, .. } => {
                self.expr(start)?;
                if let Some(end) = end {
                    self.expr(end)?;
                    if end.ty != start.ty {
                        return unsupported("a range with ends of two types", range);
                    }
                }
                if !start.s().is_int() {
                    return unsupported("a range of non-integers", range);
                }
                start.ty.clone()
            }
            IterSource::Seq(seq) => seq.elem.read_ty(),
            IterSource::Runs { seq, size, .. } => {
                self.expr(size)?;
                if size.ty != Ty::Scalar(Scalar::Usize) {
                    return unsupported("a run size that is not a `usize`", range);
                }
                Ty::Slice(seq.elem)
            }
            IterSource::Chars(text) => {
                self.expr(text)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return unsupported("`chars` of something other than text", range);
                }
                Ty::Scalar(Scalar::Char)
            }
            IterSource::Pieces { text, how } => {
                self.expr(text)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return unsupported("pieces of something other than text", range);
                }
                if let Pieces::Split(pattern) = how {
                    self.expr(pattern)?;
                    if !matches!(pattern.ty, Ty::Str | Ty::Scalar(Scalar::Char)) {
                        return unsupported("a `split` pattern of this type", range);
                    }
                }
                Ty::Str
            }
            IterSource::Chain { first, second, .. } => {
                let (a, b) = (self.source(first, range)?, self.source(second, range)?);
                let simple = |s: &IterSource| matches!(s, IterSource::Range { .. } | IterSource::Seq(_));
                if a != b || !simple(first) || !simple(second) {
                    return unsupported("a `chain` of these iterators", range);
                }
                a
            }
        })
    }

    /// An iterator chain: its items' type.
    pub(crate) fn chain(&mut self, chain: &IterChain) -> Result<Ty, Unsupported> {
        let range = &chain.range;
        let mut item = self.source(&chain.source, range)?;
        let collect_tuple = self.collect_tuple.take();
        // The last stage makes the `Result`s a `collect` into a `Result` takes apart.
        let mut result_items = false;
        for (i, (stage, ty)) in chain.stages.iter().enumerate() {
            let bool_ty = Ty::Scalar(Scalar::Bool);
            let next = match stage {
                Stage::Map(c) => {
                    if i + 1 == chain.stages.len() {
                        self.owned_tuple = collect_tuple;
                        result_items = std::mem::take(&mut self.collect_results);
                        self.result_made_here = result_items;
                    }
                    self.closure(c, &[item.clone()], &c.body.ty, range)?;
                    self.owned_tuple = None;
                    c.body.ty.clone()
                }
                Stage::Filter(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => {
                    self.closure(c, &[item.clone()], &bool_ty, range)?;
                    item.clone()
                }
                // An `Option` of a value read in place, or of a new `String` (`parse(l).err()`), the item then.
                Stage::FilterMap(c) => match &c.body.ty {
                    Ty::Option(p) if p.in_place() || **p == Ty::String => {
                        self.owned_option_here = true;
                        self.closure(c, &[item.clone()], &c.body.ty, range)?;
                        (**p).clone()
                    }
                    // An `Option` of a tuple owning its text (`Some((s.name.clone(), avg))`), the last stage of a
                    // chain collected into a sequence of such tuples: each payload is written straight there.
                    Ty::Option(p)
                        if i + 1 == chain.stages.len()
                            && collect_tuple.is_some_and(|t| Elem::Tuple(t).owned_ty().as_ref() == Some(&**p)) =>
                    {
                        self.option_tuple = collect_tuple;
                        self.owned_option_here = true;
                        let checked = self.closure(c, &[item.clone()], &c.body.ty, range);
                        self.option_tuple = None;
                        checked?;
                        (**p).clone()
                    }
                    _ => return unsupported("a `filter_map` closure that does not return an `Option`", range),
                },
                Stage::Enumerate if item.in_place() => Ty::Tuple(vec![Ty::Scalar(Scalar::Usize), item.clone()]),
                Stage::Enumerate => return unsupported("`enumerate` of an aggregate", range),
                Stage::Rev => item.clone(),
                Stage::Zip(other) => {
                    let other_item = self.source(other, range)?;
                    let simple = matches!(**other, IterSource::Range { .. } | IterSource::Seq(_));
                    if !simple || !item.in_place() || !other_item.in_place() {
                        return unsupported("a `zip` of these iterators", range);
                    }
                    Ty::Tuple(vec![item.clone(), other_item])
                }
                Stage::Take(n) | Stage::Skip(n) => {
                    self.expr(n)?;
                    if n.ty != Ty::Scalar(Scalar::Usize) {
                        return unsupported("a count that is not a `usize`", range);
                    }
                    item.clone()
                }
                // The JIT runs the inner chain, then the element-wise stages after it, as a loop inside the
                // outer one: a stage that counts or reverses would not see one sequence of items.
                Stage::FlatMap(fm) => {
                    let after = &chain.stages[i + 1..];
                    let element_wise = |s: &Stage| matches!(s, Stage::Map(_) | Stage::Filter(_) | Stage::FilterMap(_));
                    let reversed = chain.stages[..i].iter().any(|(s, _)| matches!(s, Stage::Rev));
                    if reversed || !after.iter().all(|(s, _)| element_wise(s)) {
                        return unsupported("a stage after `flat_map` that counts or reverses", range);
                    }
                    if fm.params.len() != 1 {
                        return unsupported("a `flat_map` closure with the wrong parameters", range);
                    }
                    self.pat(&fm.params[0], &item, range)?;
                    let loops = std::mem::take(&mut self.loops);
                    let inner = self.chain(&fm.inner);
                    self.loops = loops;
                    inner?
                }
            };
            // Items are scalars, tuples of them, text read in place (a string element) or new strings (which a
            // sink moves or the run's heap frees).
            let fits = match &next {
                Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never),
                Ty::Tuple(parts) => (2..=lacuna_ir::TupleElem::MAX).contains(&parts.len()),
                Ty::Str | Ty::Slice(_) | Ty::String | Ty::StructRef(_) => true,
                Ty::Result(..) => result_items,
                Ty::Option(_) | Ty::Vec(_) | Ty::Struct(_) | Ty::Map { .. } => false,
            };
            if &next != ty || !fits {
                return unsupported(format!("iterator items of type `{}`", next.name()), range);
            }
            item = next;
        }
        Ok(item)
    }

    /// Whether `payload` is the tuple a `filter_map` closure's `Some` writes straight into a sequence of them
    /// ([`Check::option_tuple`]).
    fn option_tuple_payload(&self, payload: &Ty) -> bool {
        self.option_tuple.is_some_and(|t| Elem::Tuple(t).owned_ty().as_ref() == Some(payload))
    }

    /// A tuple written straight into a sequence of tuples `t`: its parts, owned (`String`s move there).
    fn owned_tuple_parts(&mut self, t: lacuna_ir::TupleElem, parts: &[TExpr], e: &TExpr) -> Result<(), Unsupported> {
        if parts.len() != t.parts().len() || Some(&e.ty) != Elem::Tuple(t).owned_ty().as_ref() {
            return unsupported(format!("a tuple written into a `Vec<{}>`", t.name()), &e.range);
        }
        for (p, part) in parts.iter().zip(t.parts()) {
            self.expr(p)?;
            if p.ty != part.owned_ty() {
                return unsupported("a tuple part of this type", &p.range);
            }
        }
        Ok(())
    }

    /// A closure written in place, called with arguments of types `args`, returning `ret`.
    pub(crate) fn closure(
        &mut self,
        c: &Closure,
        args: &[Ty],
        ret: &Ty,
        range: &std::ops::Range<usize>,
    ) -> Result<(), Unsupported> {
        if c.params.len() != args.len() {
            return unsupported("a closure with the wrong number of parameters", range);
        }
        for (p, ty) in c.params.iter().zip(args) {
            self.pat(p, ty, range)?;
        }
        self.closure_body(&c.body)?;
        if &c.body.ty != ret && c.body.ty != Ty::Scalar(Scalar::Never) {
            return unsupported("a closure of an unexpected type", range);
        }
        Ok(())
    }

    pub(crate) fn binary(
        &self,
        op: BinOp,
        l: Scalar,
        r: Scalar,
        range: &std::ops::Range<usize>,
    ) -> Result<(), Unsupported> {
        use BinOp::*;
        let ok = match op {
            Add | Sub | Mul | Div | Rem => l == r && (l.is_int() || l.is_float()),
            BitAnd | BitOr | BitXor => l == r && (l.is_int() || l == Scalar::Bool),
            Shl | Shr => l.is_int() && r.is_int(),
            Eq | Ne | Lt | Le | Gt | Ge => l == r && l != Scalar::Unit && l != Scalar::Never,
            And | Or => l == Scalar::Bool && r == Scalar::Bool,
        };
        if ok {
            Ok(())
        } else {
            unsupported(format!("`{op:?}` on `{l:?}` and `{r:?}`"), range)
        }
    }
}

/// The pattern binds a name somewhere.
pub(crate) fn binds(pat: &TPat) -> bool {
    match pat {
        TPat::Bind(_) => true,
        TPat::Variant { fields, .. } => fields.iter().any(|f| binds(&f.pat)),
        TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().any(binds),
        TPat::Some(p) | TPat::Ok(p) | TPat::Err(p) => binds(p),
        _ => false,
    }
}

/// The pattern matches every value of its type.
pub(crate) fn irrefutable(pat: &TPat) -> bool {
    match pat {
        TPat::Wild | TPat::Bind(_) => true,
        TPat::Tuple(ps) => ps.iter().all(irrefutable),
        TPat::Or(ps) => ps.iter().any(irrefutable),
        _ => false,
    }
}

/// What consumes a `Result<target, _>` made in place (`parse`, `try_from`) gives a value of type `ty`.
pub(crate) fn consumer_fits(then: &ParseThen, target: Scalar, ty: &Ty) -> bool {
    let value = Ty::Scalar(target);
    match then {
        ParseThen::Unwrap | ParseThen::Expect(_) | ParseThen::UnwrapOrDefault => *ty == value,
        ParseThen::UnwrapOr(v) => v.ty == value && *ty == value,
        ParseThen::Ok => *ty == Ty::option(target),
        ParseThen::IsOk | ParseThen::IsErr => *ty == Ty::Scalar(Scalar::Bool),
    }
}

/// The snippet locals a pattern binds.
pub(crate) fn bound_locals(pat: &TPat, out: &mut Vec<usize>) {
    match pat {
        TPat::Bind(l) => out.push(*l),
        TPat::Variant { fields, .. } => fields.iter().for_each(|f| bound_locals(&f.pat, out)),
        TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().for_each(|p| bound_locals(p, out)),
        TPat::Some(p) | TPat::Ok(p) | TPat::Err(p) => bound_locals(p, out),
        _ => {}
    }
}
