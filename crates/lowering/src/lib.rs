//! Lowering: from the checker's typed view of an accepted snippet ([`lacuna_ir`]) to the program the
//! JIT compiles, or [`Unsupported`] with the construct and where it is.
//!
//! Pure: no IO, no global state, no panics on any input. The JIT compiles exactly what passes here:
//! - scalar types up to 64 bits (no `i128`/`u128`), `bool`, `char`, `()`;
//! - operators with their operand types (arithmetic on integers and floats, bit operations and shifts on
//!   integers, comparisons, `&&`/`||`, `!` on `bool` and integers, `-` on signed integers and floats);
//! - casts between numeric types, `bool`/`char` to integers, `u8` to `char`;
//! - the methods in [`lacuna_ir`]'s list with the argument types Rust gives them;
//! - its own ownership rules for what it admits: every value is `Copy`, so the rules are that only `mut`
//!   locals (and `let mut` bindings of the hole) are assigned, and `break` with a value only targets `loop`.

use lacuna_ir::Binding;
use lacuna_ir::{
    Arm, BinOp, CheckedMethod, Child, Closure, Elem, IterChain, IterSource, Lit, LocalRef, MapMethod, Method,
    OptionClosureMethod, OptionMethod, ParseThen, Pieces, Place, Scalar, ScalarMethod, SeqClosureMethod, SeqKind,
    SeqMethod, Sink, Stage, TBlock, TExpr, TKind, TPat, TStmt, TextMethod, Ty, TypedSnippet, UnOp,
};

mod ownership;

pub use ownership::moved_locals;

/// Why a snippet does not go to the JIT.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{construct} (at snippet bytes {}..{})", range.start, range.end)]
pub struct Unsupported {
    pub construct: String,
    pub range: std::ops::Range<usize>,
}

/// A snippet ready for the JIT: the typed tree, checked, and the facts codegen needs about bindings.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    pub snippet: TypedSnippet,
    /// Bindings the snippet assigns (their host place must be writable).
    pub written_bindings: Vec<usize>,
}

/// Checks `snippet` against the subset. `bindings` are the hole's (to know which are `mut`).
pub fn lower(snippet: TypedSnippet, bindings: &[Binding]) -> Result<Lowered, Unsupported> {
    let mut checker = Check {
        snippet: &snippet,
        bindings,
        written: Vec::new(),
        loops: Vec::new(),
        in_fn: None,
        deferred: Vec::new(),
    };
    checker.ty(&snippet.ty, 0..0)?;
    // The hole's value is written in rustc's layout: a scalar, or an `Option` of one (through the host's
    // conversion); a tuple's layout is rustc's choice.
    if matches!(snippet.ty, Ty::Tuple(_)) {
        return unsupported("a tuple as the hole's value", &(0..0));
    }
    // An `Option` is handed over through the host's writer for a scalar payload; a reference in one would point
    // into memory the snippet does not hand over.
    if matches!(&snippet.ty, Ty::Option(payload) if payload.scalar().is_none()) {
        return unsupported("an `Option` of a reference as the hole's value", &(0..0));
    }
    // A `&str` would point into memory the snippet does not hand over.
    if snippet.ty == Ty::Vec(Elem::Str) {
        return unsupported("a vector of `&str` as the hole's value", &(0..0));
    }
    if snippet.ty == Ty::Str {
        return unsupported("a `&str` as the hole's value", &(0..0));
    }
    if matches!(snippet.ty, Ty::StructRef(_)) {
        return unsupported("a reference as the hole's value", &(0..0));
    }
    if matches!(&snippet.ty, Ty::Map { key, .. } if **key == Ty::Str) {
        return unsupported("a map with borrowed keys as the hole's value", &(0..0));
    }
    if let Some(range) = ownership::struct_binding_moved(&snippet) {
        return unsupported("a host struct binding moved", &range);
    }
    for &(_, ty) in &snippet.bindings {
        checker.scalar(ty, 0..0)?;
    }
    for f in &snippet.fns {
        checker.in_fn = Some(f.ret.clone());
        checker.ty(&f.ret, 0..0)?;
        // Owned values cross calls as their parts: an argument moves into the callee (whose parameter is never
        // dropped before the run ends), a result moves out of it (a moved local is not dropped either). Borrowed
        // text returned is rustc's to judge (`ownership::check`).
        checker.block(&f.body)?;
    }
    checker.in_fn = None;
    checker.block(&snippet.body)?;
    let written_bindings = checker.written;
    Ok(Lowered { snippet, written_bindings })
}

struct Check<'a> {
    snippet: &'a TypedSnippet,
    bindings: &'a [Binding],
    written: Vec<usize>,
    /// Enclosing loops and labelled blocks, innermost last.
    loops: Vec<(Option<String>, Target)>,
    /// Inside a snippet function: its return type.
    in_fn: Option<Ty>,
    /// Locals declared without a value (`let x;`): assigned once on each path, which rustc checks.
    deferred: Vec<usize>,
}

/// What `break` and `continue` may leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// `while` or `for`: `break` without a value.
    Loop,
    /// `loop`: `break` with a value.
    ValueLoop,
    /// A labelled block: only a labelled `break`, with a value; never `continue`.
    Block,
}

fn unsupported<T>(construct: impl Into<String>, range: &std::ops::Range<usize>) -> Result<T, Unsupported> {
    Err(Unsupported { construct: construct.into(), range: range.clone() })
}

impl Check<'_> {
    fn scalar(&self, ty: Scalar, range: std::ops::Range<usize>) -> Result<(), Unsupported> {
        match ty {
            Scalar::I128 | Scalar::U128 => unsupported("128-bit integers", &range),
            _ => Ok(()),
        }
    }

    fn ty(&self, ty: &Ty, range: std::ops::Range<usize>) -> Result<(), Unsupported> {
        for part in ty.parts() {
            self.scalar(part, range.clone())?;
        }
        match ty {
            Ty::Option(_) | Ty::Tuple(_) if ty.parts().iter().any(|p| matches!(p, Scalar::Unit | Scalar::Never)) => {
                unsupported(format!("the type `{}`", ty.name()), &range)
            }
            // Host structs are only reached in place, never held or built by the snippet.
            Ty::Vec(Elem::Struct(_)) => unsupported("a vector of host structs", &range),
            _ => Ok(()),
        }
    }

    /// Whether a method of a sequence of scalars `elem` fits its arguments and result (`ty`).
    fn scalar_seq_method(name: SeqMethod, args: &[TExpr], elem_s: Scalar, kind: SeqKind, ty: &Ty) -> bool {
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
            (SeqMethod::Dedup, 0) => kind != SeqKind::Slice && !elem_s.is_float(),
            (SeqMethod::Push, 1) => kind != SeqKind::Slice && arg(0) == Some(&elem) && *ty == Ty::Scalar(Scalar::Unit),
            (SeqMethod::Pop, 0) => kind != SeqKind::Slice && *ty == Ty::option(elem_s),
            _ => false,
        }
    }

    /// `pat` fits a value of type `ty` (its names are snippet locals of the part's type).
    fn pat(&self, pat: &TPat, ty: &Ty, range: &std::ops::Range<usize>) -> Result<(), Unsupported> {
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
            (TPat::Variant { adt, fields, .. }, Ty::Struct(a) | Ty::StructRef(a)) if adt == a => {
                for (_, s, sub) in fields {
                    self.pat(sub, &Ty::Scalar(*s), range)?;
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
    fn closure_body(&mut self, body: &TExpr) -> Result<(), Unsupported> {
        let loops = std::mem::take(&mut self.loops);
        let r = self.expr(body);
        self.loops = loops;
        r
    }

    fn block(&mut self, block: &TBlock) -> Result<(), Unsupported> {
        if block.label.is_some() {
            self.loops.push((block.label.clone(), Target::Block));
        }
        let r = self.block_inner(block);
        if block.label.is_some() {
            self.loops.pop();
        }
        r
    }

    fn block_inner(&mut self, block: &TBlock) -> Result<(), Unsupported> {
        for stmt in &block.stmts {
            match stmt {
                TStmt::Let { local, init: Some(init) } => {
                    self.ty(&self.snippet.locals[*local].ty, init.range.clone())?;
                    self.expr(init)?;
                }
                TStmt::Let { local, init: None } => {
                    self.ty(&self.snippet.locals[*local].ty, 0..0)?;
                    self.deferred.push(*local);
                }
                TStmt::LetPat { pat, init, otherwise } => {
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
            self.expr(tail)?;
        }
        Ok(())
    }

    /// Runs `f` inside a loop of kind `target`.
    fn in_loop(
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
    fn target(&self, label: &Option<String>) -> Option<Target> {
        match label {
            None => self.loops.iter().rev().find(|(_, t)| *t != Target::Block).map(|(_, t)| *t),
            Some(l) => self.loops.iter().rev().find(|(name, _)| name.as_ref() == Some(l)).map(|(_, t)| *t),
        }
    }

    fn local_ty(&self, local: LocalRef) -> Option<Ty> {
        match local {
            LocalRef::Snippet(id) => self.snippet.locals.get(id).map(|l| l.ty.clone()),
            LocalRef::Binding(i) => self.binding_ty(i).map(Ty::Scalar),
        }
    }

    /// The key type, value type and `mut`-ness of the snippet's map local `map`.
    fn map_local(&self, map: usize) -> Option<(&Ty, &Scalar, bool)> {
        match self.snippet.locals.get(map)? {
            lacuna_ir::TLocal { ty: Ty::Map { key, value, .. }, mutable, .. } => Some((key, value, *mutable)),
            _ => None,
        }
    }

    fn binding_ty(&self, binding: usize) -> Option<Scalar> {
        self.snippet.bindings.iter().find(|(b, _)| *b == binding).map(|(_, t)| *t)
    }

    fn expr(&mut self, e: &TExpr) -> Result<(), Unsupported> {
        self.ty(&e.ty, e.range.clone())?;
        match &e.kind {
            TKind::Lit(_) => Ok(()),
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
            TKind::StructLit { id, fields, base } => {
                if let Some(b) = base {
                    self.expr(b)?;
                    // The base's box is reused: a new struct of this type, not a local's (partial moves).
                    if b.ty != Ty::Struct(*id) || matches!(b.kind, TKind::Local(_)) {
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
                        return unsupported(
                            format!("a field of type `{}` in a literal", value.ty.name()),
                            &value.range,
                        );
                    }
                }
                if e.ty == Ty::Struct(*id) {
                    Ok(())
                } else {
                    unsupported("this struct literal", &e.range)
                }
            }
            TKind::MapNew => match e.ty {
                Ty::Map { .. } => Ok(()),
                _ => unsupported("a map of this type", &e.range),
            },
            TKind::MapMethod { map, name, args, .. } => {
                for a in args {
                    self.expr(a)?;
                }
                let Some((key, value, mutable)) = self.map_local(*map) else {
                    return unsupported("a method of something other than a map", &e.range);
                };
                let value = Ty::Scalar(*value);
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
                    MapMethod::Contains | MapMethod::Remove if set => {
                        args.len() == 1 && key_ref(arg(0)) && e.ty == bool_ty
                    }
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
            TKind::MapUpdate { map, key: k, default, op, value: v } => {
                self.expr(v)?;
                self.expr(k)?;
                if let Some(d) = default {
                    self.expr(d)?;
                }
                let Some((key, value, mutable)) = self.map_local(*map) else {
                    return unsupported("an entry of something other than a map", &e.range);
                };
                let value = Ty::Scalar(*value);
                let op_fits = match op {
                    None => true,
                    Some(BinOp::Add | BinOp::Sub | BinOp::Mul) => value.s().is_int() || value.s().is_float(),
                    Some(_) => false,
                };
                let fits = value != Ty::Scalar(Scalar::Unit)
                    && k.ty == *key
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
            TKind::StructEq { left, right, .. } => {
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
            TKind::RefField { base, .. } => {
                self.expr(base)?;
                // A scalar field's value, or a `String` field's text read in place (never moved out).
                let ok = matches!(base.ty, Ty::StructRef(_) | Ty::Struct(_))
                    && match &e.ty {
                        Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never),
                        ty => *ty == Ty::Str,
                    };
                if ok {
                    Ok(())
                } else {
                    unsupported(format!("a field of type `{}` read through a reference", e.ty.name()), &e.range)
                }
            }
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
            TKind::Assign { place, op, value } => {
                self.expr(value)?;
                let place_ty = match place {
                    Place::Local(LocalRef::Snippet(id))
                        if !(self.snippet.locals[*id].mutable || op.is_none() && self.deferred.contains(id)) =>
                    {
                        return unsupported("assignment to a local that is not `mut`", &e.range)
                    }
                    Place::Local(LocalRef::Binding(i)) => {
                        if !self.bindings.get(*i).is_some_and(|b| b.mutable) {
                            return unsupported("assignment to a binding that is not `mut`", &e.range);
                        }
                        if !self.written.contains(i) {
                            self.written.push(*i);
                        }
                        self.binding_ty(*i)
                    }
                    Place::Local(local) => self.local_ty(*local).map(|t| t.s()),
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
                    // Through a `&mut`: only what it points to is written.
                    Place::Deref(i) => {
                        if !self.bindings.get(*i).is_some_and(|b| b.mut_ref) {
                            return unsupported("assignment through a reference that is not `&mut`", &e.range);
                        }
                        self.binding_ty(*i)
                    }
                };
                let place_ty =
                    place_ty.ok_or(Unsupported { construct: "an unknown place".into(), range: e.range.clone() })?;
                match op {
                    Some(op) => self.binary(*op, place_ty, value.s(), &e.range),
                    None => Ok(()),
                }
            }
            TKind::Block(b) => self.block(b),
            TKind::If { cond, then, otherwise } => {
                self.expr(cond)?;
                self.block(then)?;
                match otherwise {
                    Some(o) => self.expr(o),
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
                // Each element is read in place: a scalar's value, a string's text (not moved out).
                if self.snippet.locals.get(*var).map(|l| &l.ty) != Some(&seq.elem.read_ty()) {
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
                    Some(v) => self.expr(v),
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
                    Some(v) => self.expr(v),
                    None => Ok(()),
                }
            }
            TKind::Call { function, args } => {
                let Some(f) = self.snippet.fns.get(*function) else {
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
            TKind::HostCall { args, receiver, .. } => {
                for a in args {
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
            TKind::SeqLen(_) | TKind::SeqSum(_) => Ok(()),
            TKind::SeqMethod { seq, name, args, .. } => {
                for a in args {
                    self.expr(a)?;
                }
                let arg = |i: usize| args.get(i).map(|a| &a.ty);
                let ok = match seq.elem {
                    // Of a sequence of strings: its emptiness, and pushing onto one the snippet owns (the pushed
                    // `String` moves into it, so its buffer stays the snippet's).
                    Elem::String | Elem::Str | Elem::Struct(_) => match (name, args.len()) {
                        (SeqMethod::IsEmpty, 0) => e.ty == Ty::Scalar(Scalar::Bool),
                        (SeqMethod::Join, 1) if matches!(seq.elem, Elem::String | Elem::Str) => {
                            arg(0) == Some(&Ty::Str) && e.ty == Ty::String
                        }
                        // Strings order by their bytes; equal ones are indistinguishable, so stability is moot.
                        (SeqMethod::Sort | SeqMethod::SortUnstable, 0) => seq.elem == Elem::String,
                        (SeqMethod::Reverse, 0) => true,
                        (SeqMethod::First | SeqMethod::Last, 0) => e.ty == Ty::Option(Box::new(seq.elem.read_ty())),
                        (SeqMethod::Get, 1) => {
                            arg(0) == Some(&Ty::Scalar(Scalar::Usize))
                                && e.ty == Ty::Option(Box::new(seq.elem.read_ty()))
                        }
                        (SeqMethod::Push, 1) if seq.elem == Elem::String => {
                            seq.kind == SeqKind::Local
                                && arg(0) == Some(&Ty::String)
                                && e.ty == Ty::Scalar(Scalar::Unit)
                        }
                        _ => false,
                    },
                    Elem::Scalar(s) => Self::scalar_seq_method(*name, args, s, seq.kind, &e.ty),
                };
                if !ok {
                    return unsupported(format!("the sequence method `{name}`"), &e.range);
                }
                if name.mutates() {
                    if !seq.writable {
                        return unsupported("changing a sequence that is not writable", &e.range);
                    }
                    if seq.kind == SeqKind::Vec && !self.written.contains(&seq.binding) {
                        self.written.push(seq.binding);
                    }
                }
                Ok(())
            }
            TKind::SeqWithClosure { seq, name, closure, descending } => {
                let item = seq.elem.read_ty();
                let body = &closure.body;
                let retain = *name == SeqClosureMethod::Retain;
                let ret = if retain { Ty::Scalar(Scalar::Bool) } else { body.ty.clone() };
                self.closure(closure, std::slice::from_ref(&item), &ret, &e.range)?;
                if !seq.writable || seq.kind == SeqKind::Slice && retain {
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
                    // (Removed strings would have to be dropped.)
                    SeqClosureMethod::Retain => seq.elem.scalar().is_some() && !descending,
                    SeqClosureMethod::SortByKey
                    | SeqClosureMethod::SortUnstableByKey
                    | SeqClosureMethod::SortBy
                    | SeqClosureMethod::SortUnstableBy => {
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
                if seq.kind == SeqKind::Vec && !self.written.contains(&seq.binding) {
                    self.written.push(seq.binding);
                }
                Ok(())
            }
            TKind::SeqIndex { seq, index } => {
                self.expr(index)?;
                // An element of a sequence of strings is read in place (its text), never moved out.
                if e.ty == seq.elem.read_ty() && index.ty == Ty::Scalar(Scalar::Usize) {
                    Ok(())
                } else {
                    unsupported("an element read as this type", &e.range)
                }
            }
            TKind::SeqStore { seq, index, op, value, .. } => {
                self.expr(index)?;
                self.expr(value)?;
                let Elem::Scalar(elem) = seq.elem else {
                    return unsupported("assignment into a sequence of strings", &e.range);
                };
                if !seq.writable {
                    return unsupported("assignment into a sequence that is not writable", &e.range);
                }
                // A `Vec` binding itself is written (the host must hand it over writable); through a `&mut`
                // only what it points to is.
                if seq.kind == SeqKind::Vec && !self.written.contains(&seq.binding) {
                    self.written.push(seq.binding);
                }
                match op {
                    Some(op) => self.binary(*op, elem, value.s(), &e.range),
                    None => Ok(()),
                }
            }
            TKind::Method { name, receiver, args } => {
                self.expr(receiver)?;
                for a in args {
                    self.expr(a)?;
                }
                if let Ty::Option(payload) = &receiver.ty {
                    let arg = |i: usize| args.get(i).map(|a| &a.ty);
                    let scalar = payload.scalar().is_some();
                    let ok = match (*name, args.len()) {
                        (Method::Option(OptionMethod::Unwrap), 0) => e.ty == **payload,
                        (Method::Option(OptionMethod::UnwrapOrDefault), 0) => scalar && e.ty == **payload,
                        (Method::Option(OptionMethod::IsSome | OptionMethod::IsNone), 0) => e.s() == Scalar::Bool,
                        (Method::Option(OptionMethod::UnwrapOr), 1) => arg(0) == Some(&**payload),
                        (Method::Option(OptionMethod::Or | OptionMethod::Xor), 1) => {
                            scalar && arg(0) == Some(&receiver.ty)
                        }
                        _ => false,
                    };
                    return if ok {
                        Ok(())
                    } else {
                        unsupported(format!("the method `{name}` of an `Option`"), &e.range)
                    };
                }
                let t = receiver.s();
                let arg = |i: usize| args.get(i).map(|a| a.s());
                let ok = match (*name, args.len()) {
                    (Method::Checked(CheckedMethod::ToDigit), _) => {
                        // A literal radix in 2..=36: the radix assertion (whose message varies across toolchains)
                        // cannot fire.
                        let literal_radix = matches!(args.first().map(|a| &a.kind), Some(TKind::Lit(Lit::Int(2..=36))));
                        t == Scalar::Char
                            && arg(0) == Some(Scalar::U32)
                            && literal_radix
                            && e.ty == Ty::option(Scalar::U32)
                    }
                    (Method::Checked(_), _) => e.ty == Ty::option(t) && t.is_int() && arg(0) == Some(t),
                    (Method::Option(_), _) => false,
                    (Method::Char(m), 0) => {
                        t == Scalar::Char && e.ty == Ty::Scalar(if m.maps() { Scalar::Char } else { Scalar::Bool })
                    }
                    (Method::Char(_), _) => false,
                    (Method::Scalar(m), n) => {
                        use ScalarMethod::*;
                        match (m, n) {
                            (Abs | Signum, 0) => t.is_signed() || t.is_float(),
                            (IsPositive | IsNegative, 0) => t.is_signed(),
                            (CountOnes, 0) => t.is_int(),
                            (Sqrt | Floor | Ceil, 0) => t.is_float(),
                            (Pow, 1) => t.is_int() && arg(0) == Some(Scalar::U32),
                            (Min | Max, 1) => (t.is_int() || t.is_float()) && arg(0) == Some(t),
                            (WrappingAdd | WrappingSub | WrappingMul, 1) => t.is_int() && arg(0) == Some(t),
                            (SaturatingAdd | SaturatingSub | SaturatingMul | AbsDiff, 1) => {
                                t.is_int() && arg(0) == Some(t)
                            }
                            (WrappingNeg | LeadingZeros | TrailingZeros | CountZeros, 0) => t.is_int(),
                            (UnsignedAbs, 0) => t.is_signed() && t.is_int(),
                            (IsPowerOfTwo, 0) => t.is_int() && !t.is_signed(),
                            (Trunc, 0) => t.is_float(),
                            (Powi, 1) => t.is_float() && arg(0) == Some(Scalar::I32),
                            _ => false,
                        }
                    }
                };
                if ok {
                    Ok(())
                } else if matches!(name, Method::Checked(_)) {
                    unsupported(format!("the method `{name}`"), &e.range)
                } else {
                    unsupported(format!("the method `{name}` on `{t:?}`"), &e.range)
                }
            }
            TKind::Some(inner) => {
                self.expr(inner)?;
                match &e.ty {
                    Ty::Option(p) if p.scalar().is_some() && inner.ty == **p => Ok(()),
                    _ => unsupported("`Some` of this type", &e.range),
                }
            }
            TKind::None => match e.ty {
                Ty::Option(_) => Ok(()),
                _ => unsupported("`None` of this type", &e.range),
            },
            TKind::Tuple(elems) => {
                for x in elems {
                    self.expr(x)?;
                }
                let parts: Vec<Ty> = elems.iter().map(|x| x.ty.clone()).collect();
                // Tuples the snippet writes hold scalars only (borrows in them are `enumerate`'s items).
                match &e.ty {
                    Ty::Tuple(ps) if *ps == parts && ps.iter().all(|p| p.scalar().is_some()) => Ok(()),
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
            TKind::Match { scrutinee, arms } => {
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
                    self.expr(body)?;
                }
                Ok(())
            }
            TKind::OptionClosure { method, receiver, param, body } => {
                self.expr(receiver)?;
                let Ty::Option(payload) = &receiver.ty else {
                    return unsupported("a closure method of something other than an `Option`", &e.range);
                };
                let takes_payload = *method != OptionClosureMethod::UnwrapOrElse;
                match (param, takes_payload) {
                    (Some(p), true) => self.pat(p, payload, &e.range)?,
                    (None, false) => {}
                    _ => return unsupported("a closure with the wrong parameters", &e.range),
                }
                self.closure_body(body)?;
                let ok = match method {
                    OptionClosureMethod::Map => {
                        matches!((&e.ty, &body.ty), (Ty::Option(r), Ty::Scalar(_)) if **r == body.ty)
                    }
                    OptionClosureMethod::AndThen => body.ty == e.ty && matches!(e.ty, Ty::Option(_)),
                    OptionClosureMethod::Filter => body.ty == Ty::Scalar(Scalar::Bool) && e.ty == receiver.ty,
                    OptionClosureMethod::IsSomeAnd | OptionClosureMethod::IsNoneOr => {
                        body.ty == Ty::Scalar(Scalar::Bool) && e.s() == Scalar::Bool
                    }
                    OptionClosureMethod::UnwrapOrElse => {
                        payload.scalar().is_some() && body.ty == **payload && e.ty == body.ty
                    }
                };
                if ok {
                    Ok(())
                } else {
                    unsupported(format!("`{method}` with this closure"), &e.range)
                }
            }
            TKind::Panic { receiver, .. } => match receiver {
                Some(r) => {
                    self.expr(r)?;
                    match r.ty {
                        Ty::Option(ref p) if e.ty == **p => Ok(()),
                        _ => unsupported("`expect` on this type", &e.range),
                    }
                }
                None => Ok(()),
            },
            TKind::Consume { chain, sink } => {
                let item = self.chain(chain)?;
                let s = item.scalar();
                let ordered =
                    |s: Option<Scalar>| s.is_some_and(|s| s.is_int() || s == Scalar::Char || s == Scalar::Bool);
                // `Option<item>` of an item the sink keeps: a scalar, or text or a host struct read in place.
                let option_of_item = item.in_place() && e.ty == Ty::Option(Box::new(item.clone()));
                let ok = match sink {
                    // Integer sums and products only (a float sum's start value differs between toolchains).
                    Sink::Sum { .. } | Sink::Product { .. } => {
                        s.is_some_and(|s| s.is_int() || s.is_float()) && e.ty == item
                    }
                    Sink::Count => e.ty == Ty::Scalar(Scalar::Usize),
                    Sink::Max | Sink::Min => ordered(s) && e.ty == Ty::option(s.unwrap_or(Scalar::Never)),
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
                    Sink::Fold { init, closure } => {
                        self.expr(init)?;
                        self.closure(closure, &[e.ty.clone(), item.clone()], &e.ty, &e.range)?;
                        init.ty == e.ty
                            && (matches!(e.ty, Ty::Scalar(_) | Ty::Option(_))
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
                            // Into a set of scalars or text (borrowed text: rustc judges the references).
                            || (e.ty.is_set() && matches!(&e.ty, Ty::Map { key, .. } if **key == item))
                    }
                };
                if ok {
                    Ok(())
                } else {
                    unsupported("this use of an iterator", &e.range)
                }
            }
            TKind::ForIter { label, pat, chain, body } => {
                let item = self.chain(chain)?;
                self.pat(pat, &item, &e.range)?;
                self.in_loop(label, Target::Loop, |c| c.block(body))
            }
            TKind::TextOf(seq) => {
                if e.ty == Ty::Str && seq.elem == Elem::Scalar(Scalar::U8) {
                    Ok(())
                } else {
                    unsupported("text of this type", &e.range)
                }
            }
            TKind::TextMethod { name, receiver, args } => {
                self.expr(receiver)?;
                for a in args {
                    self.expr(a)?;
                }
                let text = |t: &Ty| matches!(t, Ty::Str | Ty::String);
                let ok = text(&receiver.ty)
                    && match (*name, args.as_slice()) {
                        (TextMethod::Len, []) => e.ty == Ty::Scalar(Scalar::Usize),
                        (TextMethod::IsEmpty, []) => e.ty == Ty::Scalar(Scalar::Bool),
                        (TextMethod::ToString | TextMethod::ToOwned | TextMethod::Clone | TextMethod::Into, []) => {
                            text(&e.ty)
                        }
                        (TextMethod::AsStr | TextMethod::Trim | TextMethod::TrimStart | TextMethod::TrimEnd, []) => {
                            e.ty == Ty::Str
                        }
                        (TextMethod::Slice, [a, b]) => {
                            a.ty == Ty::Scalar(Scalar::Usize) && b.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::Str
                        }
                        (TextMethod::SliceFrom | TextMethod::SliceTo, [a]) => {
                            a.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::Str
                        }
                        (TextMethod::SliceAll, []) => e.ty == Ty::Str,
                        // `trim_matches` of a `char` only (a text pattern cannot search from both ends: E0277).
                        (TextMethod::TrimMatches, [pattern]) => {
                            pattern.ty == Ty::Scalar(Scalar::Char) && e.ty == Ty::Str
                        }
                        (TextMethod::TrimStartMatches | TextMethod::TrimEndMatches, [pattern]) => {
                            matches!(pattern.ty, Ty::Scalar(Scalar::Char) | Ty::Str) && e.ty == Ty::Str
                        }
                        (TextMethod::ToUppercase | TextMethod::ToLowercase, []) => e.ty == Ty::String,
                        (TextMethod::Repeat, [n]) => n.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::String,
                        (TextMethod::Contains | TextMethod::StartsWith | TextMethod::EndsWith, [pattern]) => {
                            (text(&pattern.ty) || pattern.ty == Ty::Scalar(Scalar::Char))
                                && e.ty == Ty::Scalar(Scalar::Bool)
                        }
                        (TextMethod::Eq | TextMethod::Ne, [other]) => {
                            text(&other.ty) && e.ty == Ty::Scalar(Scalar::Bool)
                        }
                        _ => false,
                    };
                if ok {
                    Ok(())
                } else {
                    unsupported(format!("the text method `{name}`"), &e.range)
                }
            }
            TKind::StringPush { seq, value, .. } => {
                self.expr(value)?;
                if !seq.writable || seq.kind == SeqKind::Slice || seq.elem != Elem::Scalar(Scalar::U8) {
                    return unsupported("changing text that is not writable", &e.range);
                }
                if !matches!(value.ty, Ty::Str | Ty::String | Ty::Scalar(Scalar::Char)) {
                    return unsupported("appending something other than text", &e.range);
                }
                if seq.kind == SeqKind::Vec && !self.written.contains(&seq.binding) {
                    self.written.push(seq.binding);
                }
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
                // (Copying strings one by one is not in the subset yet.)
                if e.ty == Ty::Vec(seq.elem) && seq.elem.scalar().is_some() {
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
                    self.expr(x)?;
                }
                // Strings are moved into the vector.
                match e.ty {
                    Ty::Vec(elem)
                        if elems.iter().all(|x| Some(&x.ty) == elem.owned_ty().as_ref())
                            && !matches!(elem, Elem::Scalar(Scalar::Unit | Scalar::Never)) =>
                    {
                        Ok(())
                    }
                    _ => unsupported("a vector of this type", &e.range),
                }
            }
        }
    }

    /// An iterator's source: its items' type.
    fn source(&mut self, source: &IterSource, range: &std::ops::Range<usize>) -> Result<Ty, Unsupported> {
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
    fn chain(&mut self, chain: &IterChain) -> Result<Ty, Unsupported> {
        let range = &chain.range;
        let mut item = self.source(&chain.source, range)?;
        for (stage, ty) in &chain.stages {
            let bool_ty = Ty::Scalar(Scalar::Bool);
            let next = match stage {
                Stage::Map(c) => {
                    self.closure(c, &[item.clone()], &c.body.ty, range)?;
                    c.body.ty.clone()
                }
                Stage::Filter(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => {
                    self.closure(c, &[item.clone()], &bool_ty, range)?;
                    item.clone()
                }
                Stage::FilterMap(c) => match c.body.ty.option_scalar() {
                    Some(s) => {
                        self.closure(c, &[item.clone()], &c.body.ty, range)?;
                        Ty::Scalar(s)
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
            };
            // Items are scalars, pairs of them, text read in place (a string element) or new strings (which a
            // sink moves or the run's heap frees).
            let fits = match &next {
                Ty::Scalar(s) => !matches!(s, Scalar::Unit | Scalar::Never),
                Ty::Tuple(parts) => parts.len() == 2,
                Ty::Str | Ty::String | Ty::StructRef(_) => true,
                Ty::Option(_) | Ty::Vec(_) | Ty::Struct(_) | Ty::Map { .. } => false,
            };
            if &next != ty || !fits {
                return unsupported(format!("iterator items of type `{}`", next.name()), range);
            }
            item = next;
        }
        Ok(item)
    }

    /// A closure written in place, called with arguments of types `args`, returning `ret`.
    fn closure(
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

    fn binary(&self, op: BinOp, l: Scalar, r: Scalar, range: &std::ops::Range<usize>) -> Result<(), Unsupported> {
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
fn binds(pat: &TPat) -> bool {
    match pat {
        TPat::Bind(_) => true,
        TPat::Variant { fields, .. } => fields.iter().any(|(_, _, p)| binds(p)),
        TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().any(binds),
        TPat::Some(p) => binds(p),
        _ => false,
    }
}

/// The pattern matches every value of its type.
fn irrefutable(pat: &TPat) -> bool {
    match pat {
        TPat::Wild | TPat::Bind(_) => true,
        TPat::Tuple(ps) => ps.iter().all(irrefutable),
        TPat::Or(ps) => ps.iter().any(irrefutable),
        _ => false,
    }
}

/// What consumes a `Result<target, _>` made in place (`parse`, `try_from`) gives a value of type `ty`.
fn consumer_fits(then: &ParseThen, target: Scalar, ty: &Ty) -> bool {
    let value = Ty::Scalar(target);
    match then {
        ParseThen::Unwrap | ParseThen::Expect(_) | ParseThen::UnwrapOrDefault => *ty == value,
        ParseThen::UnwrapOr(v) => v.ty == value && *ty == value,
        ParseThen::Ok => *ty == Ty::option(target),
        ParseThen::IsOk | ParseThen::IsErr => *ty == Ty::Scalar(Scalar::Bool),
    }
}

/// The snippet locals a pattern binds.
fn bound_locals(pat: &TPat, out: &mut Vec<usize>) {
    match pat {
        TPat::Bind(l) => out.push(*l),
        TPat::Variant { fields, .. } => fields.iter().for_each(|(_, _, p)| bound_locals(p, out)),
        TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().for_each(|p| bound_locals(p, out)),
        TPat::Some(p) => bound_locals(p, out),
        _ => {}
    }
}

/// What [`accept_without_rustc`] needs to know about the host.
#[derive(Debug, Clone)]
pub struct HostFacts {
    /// The host raises lint levels somewhere (`deny`, `forbid`, `warn(..)` promoted by `-D`): a warning in the
    /// snippet could then be an error, so rustc must decide.
    pub raises_lints: bool,
    /// The hole's type, when rustc confirmed it at prepare time, is exactly the snippet's scalar type.
    pub hole_type_matches: bool,
    /// Per binding of the hole: rustc's compile-time evaluation cannot know its value
    /// ([`lacuna_ir::Binding::const_opaque`]).
    pub opaque_bindings: Vec<bool>,
    /// Per binding of the hole: the value rustc's compile-time evaluation knows, when the checker could tell
    /// ([`lacuna_ir::Binding::const_value`]).
    pub binding_values: Vec<Option<i128>>,
}

impl HostFacts {
    /// The facts for a hole of the host `text` whose type rustc confirmed as `glue_type`, with these bindings, for
    /// a snippet of type `ty`.
    pub fn new(text: &str, glue_type: Option<&str>, ty: &Ty, bindings: &[Binding]) -> HostFacts {
        HostFacts {
            // Conservative: any mention raises the doubt.
            raises_lints: text.contains("deny") || text.contains("forbid"),
            hole_type_matches: glue_type == Some(ty.name().as_str()),
            opaque_bindings: bindings.iter().map(|b| b.const_opaque).collect(),
            binding_values: bindings.iter().map(|b| b.const_value).collect(),
        }
    }
}

/// What rustc's compile-time evaluation might know: per snippet local, and per hole binding.
struct Known {
    locals: Vec<bool>,
    bindings: Vec<bool>,
}

/// Whether the subset's own checks are enough to accept `lowered` without asking rustc, given that
/// rust-analyzer found no error in it. `Err` says why rustc must decide.
///
/// rust-analyzer type-checks the subset (every expression scalar and known) and the lowering's rules cover what
/// rustc's borrow checker would say of it (only `Copy` values; assignments to `mut` places only; the host hands
/// over bindings it does not borrow). What remains are rustc's deny-by-default lints and errors rust-analyzer does
/// not report, modelled conservatively here:
/// - `overflowing_literals`: every literal must fit its type (a negated literal may reach the signed minimum);
/// - `arithmetic_overflow` and `unconditional_panic`: rustc's const propagation may know values — literals,
///   locals assigned from them, and the host's own locals (it sees the host function around the hole). An
///   overflow-checked operation whose operands could all be known that way is left to rustc, unless they are plain
///   literals whose result fits;
/// - E0689 (a method on an ambiguous numeric type): a method's receiver must have a type that does not come from
///   an unsuffixed literal (a binding, a cast, a suffixed literal, a call);
/// - E0428 (two functions of one name in one block).
pub fn accept_without_rustc(lowered: &Lowered, host: HostFacts) -> Result<(), String> {
    if host.raises_lints {
        return Err("the host raises lint levels".into());
    }
    if !host.hole_type_matches {
        return Err("the hole's type is not confirmed to be the snippet's".into());
    }
    let snippet = &lowered.snippet;
    if snippet.references {
        return Err("the snippet borrows (rustc's borrow check decides)".into());
    }
    if let Some(doubt) = &snippet.rustc_decides {
        return Err(format!("{} (at snippet bytes {}..{})", doubt.construct, doubt.range.start, doubt.range.end));
    }
    // Moves and borrows of vectors, strings and the places loops and iterators borrow.
    ownership::check(snippet)?;
    let mut names: Vec<&str> = snippet.fns.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err("two functions with one name".into());
    }
    // Which snippet locals rustc's const propagation could know: any assigned a value it could know.
    let bindings = host.opaque_bindings.iter().map(|opaque| !opaque).collect();
    let mut known = Known { locals: vec![false; snippet.locals.len()], bindings };
    loop {
        let before = known.locals.clone();
        let mut visit = |b: &TBlock| mark_known_locals(b, &mut known);
        visit(&snippet.body);
        for f in &snippet.fns {
            visit(&f.body);
        }
        if known.locals == before {
            break;
        }
    }
    // Parameters of snippet functions are unknown to an intraprocedural analysis, unless assigned known values.
    let multi = assigned_more_than_once(snippet);
    let mut values = Values { bindings: host.binding_values, locals: vec![None; snippet.locals.len()] };
    values.locals_of(&snippet.body, &multi);
    snippet.fns.iter().for_each(|f| values.locals_of(&f.body, &multi));
    let guard = Guard { snippet, known: std::cell::RefCell::new(known), multi, values };
    guard.block(&snippet.body)?;
    for f in &snippet.fns {
        guard.forget();
        guard.block(&f.body)?;
    }
    Ok(())
}

/// `e`'s type is not one rustc still infers from an unsuffixed literal (a method call on such a receiver is
/// E0689): it is not a number, or it comes from a typed place, a cast, a call, or an operand that has one.
fn type_determined(e: &TExpr, snippet: &TypedSnippet) -> bool {
    if !e.s().is_int() && !e.s().is_float() {
        return true;
    }
    match &e.kind {
        TKind::Local(LocalRef::Snippet(l)) => snippet.locals.get(*l).is_some_and(|l| l.fixed_type),
        TKind::Local(LocalRef::Binding(_))
        | TKind::Deref(_)
        | TKind::RefField { .. }
        | TKind::SeqIndex { .. }
        | TKind::SeqLen(_)
        | TKind::Cast(_)
        | TKind::Call { .. }
        | TKind::HostCall { .. }
        | TKind::Method { .. } => true,
        TKind::Unary(_, x) => type_determined(x, snippet),
        // A shift has its left operand's type; the other operators unify both sides.
        TKind::Binary(BinOp::Shl | BinOp::Shr, l, _) => type_determined(l, snippet),
        TKind::Binary(_, l, r) => type_determined(l, snippet) || type_determined(r, snippet),
        TKind::Block(b) => b.tail.as_ref().is_some_and(|t| type_determined(t, snippet)),
        _ => false,
    }
}

/// The snippet locals `e` assigns or declares with a value anywhere inside it.
fn assigned_within(e: &TExpr, out: &mut Vec<usize>) {
    fn block(b: &TBlock, out: &mut Vec<usize>) {
        for stmt in &b.stmts {
            if let TStmt::Let { local, init: Some(_) } = stmt {
                out.push(*local);
            }
        }
        b.each_child(&mut |c| match c {
            Child::Expr(c) => assigned_within(c, out),
            Child::Block(b) => block(b, out),
        });
    }
    if let TKind::Assign { place: Place::Local(LocalRef::Snippet(id)), .. } = &e.kind {
        out.push(*id);
    }
    e.each_child(&mut |c| match c {
        Child::Expr(c) => assigned_within(c, out),
        Child::Block(b) => block(b, out),
    });
}

/// Per snippet local: it is assigned in more than one place (a `let` with a value counts), so rustc's lint knows
/// its value only inside the basic block of an assignment (`ConstPropMode::OnlyInsideOwnBlock`).
fn assigned_more_than_once(snippet: &TypedSnippet) -> Vec<bool> {
    fn expr(e: &TExpr, counts: &mut Vec<u32>) {
        if let TKind::Assign { place: Place::Local(LocalRef::Snippet(id)), .. } = &e.kind {
            if let Some(c) = counts.get_mut(*id) {
                *c += 1;
            }
        }
        e.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, counts),
            Child::Block(b) => block(b, counts),
        });
    }
    fn block(b: &TBlock, counts: &mut Vec<u32>) {
        for stmt in &b.stmts {
            if let TStmt::Let { local, init: Some(_) } = stmt {
                if let Some(c) = counts.get_mut(*local) {
                    *c += 1;
                }
            }
        }
        b.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, counts),
            Child::Block(b) => block(b, counts),
        });
    }
    let mut counts = vec![0u32; snippet.locals.len()];
    block(&snippet.body, &mut counts);
    snippet.fns.iter().for_each(|f| block(&f.body, &mut counts));
    counts.into_iter().map(|c| c > 1).collect()
}

/// Whether evaluating `e` may fault (conservatively: only what plainly cannot — reads, comparisons, logic, casts,
/// float arithmetic, integer division by a literal other than 0 and -1 — is fault-free).
fn may_fault(e: &TExpr) -> bool {
    let here = match &e.kind {
        TKind::Lit(_)
        | TKind::Local(_)
        | TKind::RefField { .. }
        | TKind::Field(..)
        | TKind::Cast(_)
        | TKind::TextOf(_) => false,
        TKind::Unary(UnOp::Not, _) => false,
        TKind::Unary(UnOp::Neg, x) => !x.s().is_float(),
        TKind::Binary(op, l, r) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::Shr => !l.s().is_float(),
            BinOp::Div | BinOp::Rem => {
                let safe_divisor = matches!(r.kind, TKind::Lit(Lit::Int(n)) if n >= 1);
                !l.s().is_float() && !safe_divisor
            }
            _ => false,
        },
        TKind::TextMethod { name, .. } => {
            use TextMethod::*;
            !matches!(name, Len | IsEmpty | Contains | StartsWith | EndsWith | Eq | Ne)
        }
        TKind::Block(b) => !b.stmts.is_empty() || b.label.is_some(),
        TKind::If { .. } => false,
        _ => true,
    };
    here || children_any(e, may_fault)
}

/// Whether a closure of the iterator chain `e` assigns a variable or calls a `&mut self` method.
fn closures_write(e: &TExpr) -> bool {
    fn writes(e: &TExpr) -> bool {
        let here = match &e.kind {
            TKind::Assign { .. } | TKind::SeqStore { .. } | TKind::StringPush { .. } | TKind::SeqWithClosure { .. } => {
                true
            }
            TKind::HostCall { receiver: Some(r), .. } => r.mutable,
            TKind::SeqMethod { name, .. } => name.mutates(),
            _ => false,
        };
        here || children_any(e, writes)
    }
    let (chain, sink) = match &e.kind {
        TKind::Consume { chain, sink } => (chain, Some(sink)),
        TKind::ForIter { chain, .. } => (chain, None),
        _ => return false,
    };
    let stage_closures = chain.stages.iter().filter_map(|(stage, _)| match stage {
        Stage::Map(c) | Stage::Filter(c) | Stage::FilterMap(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => Some(c),
        _ => None,
    });
    let sink_closure = sink.and_then(|s| match s {
        Sink::Any(c)
        | Sink::All(c)
        | Sink::Position(c)
        | Sink::Find(c)
        | Sink::MaxByKey(c)
        | Sink::MinByKey(c)
        | Sink::Fold { closure: c, .. } => Some(c),
        _ => None,
    });
    stage_closures.chain(sink_closure).any(|c| writes(&c.body))
}

/// Whether `f` holds for an expression inside `e` (not `e` itself).
fn children_any(e: &TExpr, f: fn(&TExpr) -> bool) -> bool {
    let mut found = false;
    e.each_child(&mut |c| {
        found |= match c {
            Child::Expr(c) => f(c),
            Child::Block(b) => block_any(b, f),
        }
    });
    found
}

/// Whether `f` holds for an expression inside `b`.
fn block_any(b: &TBlock, f: fn(&TExpr) -> bool) -> bool {
    let mut found = false;
    b.each_child(&mut |c| {
        found |= match c {
            Child::Expr(c) => f(c),
            Child::Block(b) => block_any(b, f),
        }
    });
    found
}

/// Could rustc's const propagation know this value? Over-approximates: literals, host bindings, known locals,
/// and operations on such values.
fn possibly_known(e: &TExpr, known: &Known) -> bool {
    match &e.kind {
        TKind::Lit(_) => true,
        TKind::Local(LocalRef::Binding(i)) => known.bindings.get(*i).copied().unwrap_or(true),
        TKind::Local(LocalRef::Snippet(id)) => known.locals.get(*id).copied().unwrap_or(true),
        // A field of a host binding: known when the binding could be.
        TKind::HostField(_) => known.bindings.iter().any(|k| *k),
        TKind::Unary(_, inner) | TKind::Cast(inner) => possibly_known(inner, known),
        TKind::Binary(_, l, r) => possibly_known(l, known) && possibly_known(r, known),
        TKind::Method { receiver, args, .. } => {
            possibly_known(receiver, known) && args.iter().all(|a| possibly_known(a, known))
        }
        // A `break` may carry a known value out of a labelled block or a `loop` (rustc's lint follows the jump).
        TKind::Block(b) if b.label.is_some() => true,
        TKind::Loop { .. } => true,
        TKind::Block(b) => b.tail.as_ref().is_some_and(|t| possibly_known(t, known)),
        TKind::If { then, otherwise, .. } => {
            then.tail.as_ref().is_some_and(|t| possibly_known(t, known))
                || otherwise.as_ref().is_some_and(|o| possibly_known(o, known))
        }
        // Aggregates are built and taken apart in MIR, where rustc's lint follows them.
        TKind::Some(x) | TKind::Field(x, _) => possibly_known(x, known),
        TKind::None => true,
        TKind::Tuple(xs) => xs.iter().all(|x| possibly_known(x, known)),
        TKind::Match { arms, .. } => arms.iter().any(|a| possibly_known(&a.body, known)),
        TKind::OptionClosure { receiver, body, .. } => possibly_known(receiver, known) || possibly_known(body, known),
        // `while`/`for` (values `()`), calls of snippet functions (the lint is intraprocedural), reads through
        // references (which rustc decides anyway): not evaluated by rustc's lint. Assignments are `()`.
        _ => false,
    }
}

fn mark_known_locals(block: &TBlock, known: &mut Known) {
    fn expr(e: &TExpr, known: &mut Known) {
        match &e.kind {
            TKind::Assign { place: Place::Local(LocalRef::Snippet(id)), value, .. } => {
                if possibly_known(value, known) {
                    known.locals[*id] = true;
                }
                expr(value, known);
            }
            TKind::Match { scrutinee, arms } => {
                // Names a pattern binds are known when what is matched could be.
                if possibly_known(scrutinee, known) {
                    let mut locals = Vec::new();
                    arms.iter().for_each(|a| bound_locals(&a.pat, &mut locals));
                    locals.into_iter().for_each(|l| known.locals[l] = true);
                }
                e.each_child(&mut |c| match c {
                    Child::Expr(c) => expr(c, known),
                    Child::Block(b) => mark_known_locals(b, known),
                })
            }
            TKind::OptionClosure { receiver, param: Some(p), .. } => {
                if possibly_known(receiver, known) {
                    let mut locals = Vec::new();
                    bound_locals(p, &mut locals);
                    locals.into_iter().for_each(|l| known.locals[l] = true);
                }
                e.each_child(&mut |c| match c {
                    Child::Expr(c) => expr(c, known),
                    Child::Block(b) => mark_known_locals(b, known),
                })
            }
            TKind::For { var, start, end, body, .. } => {
                // The loop variable starts at `start`: known to rustc when `start` is.
                if possibly_known(start, known) {
                    known.locals[*var] = true;
                }
                expr(start, known);
                expr(end, known);
                mark_known_locals(body, known);
            }
            _ => e.each_child(&mut |c| match c {
                Child::Expr(c) => expr(c, known),
                Child::Block(b) => mark_known_locals(b, known),
            }),
        }
    }
    for stmt in &block.stmts {
        match stmt {
            TStmt::Let { local, init: Some(init) } => {
                if possibly_known(init, known) {
                    known.locals[*local] = true;
                }
                expr(init, known);
            }
            TStmt::Let { init: None, .. } => {}
            TStmt::LetPat { pat, init, otherwise } => {
                if possibly_known(init, known) {
                    let mut locals = Vec::new();
                    bound_locals(pat, &mut locals);
                    locals.into_iter().for_each(|l| known.locals[l] = true);
                }
                expr(init, known);
                if let Some(b) = otherwise {
                    mark_known_locals(b, known);
                }
            }
            TStmt::Expr(e) => expr(e, known),
        }
    }
    if let Some(t) = &block.tail {
        expr(t, known);
    }
}

/// Walks the snippet in evaluation order with what rustc's lint could know at each point: locals assigned once
/// as the fixpoint found; locals assigned more than once only after a known assignment and before the next
/// place where MIR surely starts a new basic block (a loop's head or body, an `if`'s or `match`'s arms and what
/// follows them, a closure's or function's body). Where unsure it keeps them known (the conservative side).
struct Guard<'a> {
    snippet: &'a TypedSnippet,
    known: std::cell::RefCell<Known>,
    multi: Vec<bool>,
    /// Values rustc's lint knows exactly.
    values: Values,
}

/// The value of a plain integer literal (possibly negated), as rustc's lint would see it.
fn literal_value(e: &TExpr) -> Option<i128> {
    match &e.kind {
        TKind::Lit(Lit::Int(v)) => i128::try_from(*v).ok(),
        TKind::Unary(UnOp::Neg, inner) => literal_value(inner).map(|v| -v),
        _ => None,
    }
}

/// What is known exactly of variables: per hole binding ([`HostFacts::binding_values`]) and per snippet local
/// (declared once with a value that folds, and never assigned again).
#[derive(Default)]
struct Values {
    bindings: Vec<Option<i128>>,
    locals: Vec<Option<i128>>,
}

impl Values {
    /// Adds the snippet locals of `b` (and blocks inside it) declared once with a folding value, in order.
    fn locals_of(&mut self, b: &TBlock, multi: &[bool]) {
        fn expr(e: &TExpr, values: &mut Values, multi: &[bool]) {
            e.each_child(&mut |c| match c {
                Child::Expr(c) => expr(c, values, multi),
                Child::Block(b) => values.locals_of(b, multi),
            });
        }
        for stmt in &b.stmts {
            match stmt {
                TStmt::Let { local, init: Some(init) } => {
                    expr(init, self, multi);
                    if !multi.get(*local).copied().unwrap_or(true) {
                        let v = folded(init, self);
                        if let Some(slot) = self.locals.get_mut(*local) {
                            *slot = v;
                        }
                    }
                }
                TStmt::Let { init: None, .. } => {}
                TStmt::LetPat { init, otherwise, .. } => {
                    expr(init, self, multi);
                    if let Some(o) = otherwise {
                        self.locals_of(o, multi);
                    }
                }
                TStmt::Expr(e) => expr(e, self, multi),
            }
        }
        if let Some(t) = &b.tail {
            expr(t, self, multi);
        }
    }
}

/// The value rustc's constant evaluation gives an integer expression made of literals, operators and casts, when
/// it gives one without a panic (`None`: not such an expression, or it would overflow, divide by zero or shift
/// too far — which rustc reports). Exact: only used where the result must match rustc's.
fn folded(e: &TExpr, values: &Values) -> Option<i128> {
    let ty = e.s();
    let (min, max) = range_of(ty)?;
    let bits = ty.int_bits()?;
    let fits = |v: i128| (v >= min && v <= max).then_some(v);
    // Two's-complement wrap into `ty` (for casts and shifts, which do not check the value).
    let wrap = |v: i128| {
        let m = v & ((1i128 << bits) - 1);
        if ty.is_signed() && m > max {
            m - (1i128 << bits)
        } else {
            m
        }
    };
    match &e.kind {
        TKind::Lit(Lit::Int(v)) => fits(i128::try_from(*v).ok()?),
        // A hole binding or snippet local rustc's constant propagation knows exactly.
        TKind::Local(LocalRef::Binding(i)) => fits(values.bindings.get(*i).copied().flatten()?),
        TKind::Local(LocalRef::Snippet(id)) => fits(values.locals.get(*id).copied().flatten()?),
        TKind::Unary(UnOp::Neg, x) => fits(folded(x, values)?.checked_neg()?),
        TKind::Unary(UnOp::Not, x) => Some(wrap(!folded(x, values)?)),
        TKind::Cast(x) if x.s().is_int() => Some(wrap(folded(x, values)?)),
        TKind::Binary(op, l, r) => {
            let a = folded(l, values)?;
            let b = folded(r, values)?;
            match op {
                BinOp::Add => fits(a.checked_add(b)?),
                BinOp::Sub => fits(a.checked_sub(b)?),
                BinOp::Mul => fits(a.checked_mul(b)?),
                BinOp::Div if b != 0 => fits(a.checked_div(b)?),
                BinOp::Rem if b != 0 => fits(a.checked_rem(b)?).filter(|_| !(a == min && b == -1)),
                BinOp::Shl if (0..i128::from(bits)).contains(&b) => Some(wrap(a << b)),
                BinOp::Shr if (0..i128::from(bits)).contains(&b) => Some(a >> b),
                BinOp::BitAnd => Some(a & b),
                BinOp::BitOr => Some(a | b),
                BinOp::BitXor => Some(a ^ b),
                _ => None,
            }
        }
        _ => None,
    }
}

fn range_of(ty: Scalar) -> Option<(i128, i128)> {
    let bits = ty.int_bits()?;
    if bits >= 128 {
        return None;
    }
    Some(if ty.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) })
}

impl Guard<'_> {
    /// A new basic block: locals assigned more than once are no longer known.
    fn forget(&self) {
        let mut known = self.known.borrow_mut();
        for (local, multi) in self.multi.iter().enumerate() {
            if *multi {
                known.locals[local] = false;
            }
        }
    }

    /// After `local` is assigned a value that is (or is not) possibly known.
    fn assigned(&self, local: usize, value_known: bool) {
        if self.multi.get(local).copied().unwrap_or(false) {
            self.known.borrow_mut().locals[local] = value_known;
        }
    }

    /// The children of `e`, in evaluation order, forgetting at the basic-block boundaries MIR surely has.
    fn children(&self, e: &TExpr) -> Result<(), String> {
        let literal_condition = |c: &TExpr| matches!(c.kind, TKind::Lit(_));
        match &e.kind {
            TKind::If { cond, then, otherwise } => {
                self.expr(cond)?;
                let split = !literal_condition(cond);
                if split {
                    self.forget();
                }
                self.block(then)?;
                if split {
                    self.forget();
                }
                if let Some(o) = otherwise {
                    self.expr(o)?;
                }
                if split {
                    self.forget();
                }
                Ok(())
            }
            TKind::While { cond, body, .. } => {
                self.forget();
                self.expr(cond)?;
                if !literal_condition(cond) {
                    self.forget();
                }
                self.block(body)?;
                self.forget();
                Ok(())
            }
            TKind::Loop { body, .. } => {
                self.forget();
                self.block(body)?;
                self.forget();
                Ok(())
            }
            TKind::Match { scrutinee, arms } => {
                self.expr(scrutinee)?;
                for arm in arms {
                    self.forget();
                    if let Some(g) = &arm.guard {
                        self.expr(g)?;
                    }
                    self.expr(&arm.body)?;
                }
                self.forget();
                Ok(())
            }
            TKind::For { start, end, body, .. } => {
                self.expr(start)?;
                self.expr(end)?;
                self.forget();
                self.block(body)?;
                self.forget();
                Ok(())
            }
            TKind::ForSeq { body, .. } => {
                self.forget();
                self.block(body)?;
                self.forget();
                Ok(())
            }
            // Closures (their own MIR bodies) and the loops iterators run.
            TKind::ForIter { .. } | TKind::Consume { .. } | TKind::OptionClosure { .. } => {
                let mut result = Ok(());
                e.each_child(&mut |c| {
                    if result.is_ok() {
                        self.forget();
                        result = match c {
                            Child::Expr(c) => self.expr(c),
                            Child::Block(b) => self.block(b),
                        };
                    }
                });
                self.forget();
                result
            }
            _ => {
                let mut result = Ok(());
                e.each_child(&mut |c| {
                    if result.is_ok() {
                        result = match c {
                            Child::Expr(c) => self.expr(c),
                            Child::Block(b) => self.block(b),
                        };
                    }
                });
                result
            }
        }
    }

    /// An overflow-checked integer operation: could rustc's lint evaluate it and find a panic?
    fn operation(
        &self,
        op: BinOp,
        ty: Scalar,
        l_known: bool,
        l_literal: Option<i128>,
        r: &TExpr,
    ) -> Result<(), &'static str> {
        let r_known = self.known(r);
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul if l_known && r_known => {
                let fits = l_literal.zip(folded(r, &self.values)).and_then(|(a, b)| {
                    let v = match op {
                        BinOp::Add => a.checked_add(b),
                        BinOp::Sub => a.checked_sub(b),
                        _ => a.checked_mul(b),
                    }?;
                    let (min, max) = range_of(ty)?;
                    (v >= min && v <= max).then_some(())
                });
                fits.ok_or("arithmetic rustc might evaluate at compile time")
            }
            BinOp::Div | BinOp::Rem => match folded(r, &self.values) {
                // A known divisor other than 0 and -1 cannot panic.
                Some(d) if d != 0 && d != -1 => Ok(()),
                // -1 panics only for a known minimum dividend.
                Some(-1) if !l_known => Ok(()),
                _ if !r_known => Ok(()),
                _ => Err("a division rustc might evaluate at compile time"),
            },
            BinOp::Shl | BinOp::Shr => {
                let bits = range_of(ty).map_or(0, |_| i128::from(ty.int_bits().unwrap_or(0)));
                match folded(r, &self.values) {
                    Some(n) if bits > 0 && (0..bits).contains(&n) => Ok(()),
                    _ if !r_known => Ok(()),
                    _ => Err("a shift rustc might evaluate at compile time"),
                }
            }
            _ => Ok(()),
        }
    }

    fn block(&self, b: &TBlock) -> Result<(), String> {
        for stmt in &b.stmts {
            match stmt {
                TStmt::Let { local, init: Some(init) } => {
                    self.expr(init)?;
                    self.assigned(*local, self.known(init));
                }
                // Whether every path assigns it before a use, and only once, is rustc's check.
                TStmt::Let { init: None, .. } => return Err("a `let` without a value".into()),
                TStmt::LetPat { pat, init, otherwise } => {
                    if otherwise.is_none() && !irrefutable(pat) {
                        return Err("a refutable pattern in `let`".into());
                    }
                    self.expr(init)?;
                    if let Some(b) = otherwise {
                        self.block(b)?;
                    }
                }
                TStmt::Expr(e) => self.expr(e)?,
            }
        }
        match &b.tail {
            Some(t) => self.expr(t),
            None => Ok(()),
        }
    }

    /// Could rustc's lint know `e`'s value where it is evaluated? Locals assigned inside `e` itself (in a block
    /// operand) count as known: the state here is from before `e`.
    fn known(&self, e: &TExpr) -> bool {
        let state = self.known.borrow();
        let mut inside = Vec::new();
        assigned_within(e, &mut inside);
        if inside.is_empty() {
            return possibly_known(e, &state);
        }
        let mut state = Known { locals: state.locals.clone(), bindings: state.bindings.clone() };
        for local in inside {
            if let Some(k) = state.locals.get_mut(local) {
                *k = true;
            }
        }
        possibly_known(e, &state)
    }

    fn expr(&self, e: &TExpr) -> Result<(), String> {
        let at = |what: &str| Err(format!("{what} (at snippet bytes {}..{})", e.range.start, e.range.end));
        match &e.kind {
            // Behind a reference, what the sequence's elements are borrowed by is not in the binding's mode (the
            // host may hold a borrow of an element across the hole): rustc's borrow check decides. (Indexing a
            // slice is also built into MIR, where rustc might know its length.)
            TKind::Consume { chain: IterChain { source: IterSource::Seq(seq), .. }, .. }
            | TKind::ForIter { chain: IterChain { source: IterSource::Seq(seq), .. }, .. }
                if !matches!(seq.kind, SeqKind::Vec | SeqKind::Local) =>
            {
                return at("a sequence behind a reference")
            }
            // Two sequences borrowed by one iterator (`zip`, `chain`): the ownership check follows one.
            TKind::Consume { chain, .. } | TKind::ForIter { chain, .. } if reads_two_sequences(chain) => {
                return at("an iterator over two sequences")
            }
            // An iterator holds its closures while it runs: one that changes a captured variable conflicts with any
            // other use of it meanwhile (E0499, E0502, E0503), which is rustc's borrow check.
            TKind::Consume { .. } | TKind::ForIter { .. } if closures_write(e) => {
                return at("an iterator closure that changes a captured variable")
            }
            TKind::SeqLen(seq)
            | TKind::SeqSum(seq)
            | TKind::SeqMethod { seq, .. }
            | TKind::SeqWithClosure { seq, .. }
            | TKind::SeqIndex { seq, .. }
            | TKind::SeqStore { seq, .. }
            | TKind::StringPush { seq, .. }
            | TKind::ForSeq { seq, .. }
                if !matches!(seq.kind, SeqKind::Vec | SeqKind::Local) =>
            {
                return at("a sequence behind a reference")
            }
            // Whether the host holds a borrow of what the reference points to is not in the binding's mode.
            TKind::Deref(_) | TKind::Assign { place: Place::Deref(_), .. } => return at("a place behind a reference"),
            TKind::HostField(i) | TKind::Assign { place: Place::HostField(i), .. }
                if self.snippet.fields.get(*i).is_none_or(|f| f.through_ref) =>
            {
                return at("a place behind a reference")
            }
            TKind::HostCall { receiver: Some(r), .. } if r.through_ref => return at("a receiver behind a reference"),
            // Exhaustiveness is rustc's to judge, unless a last catch-all arm settles it.
            TKind::Match { arms, .. } if !arms.last().is_some_and(|a| a.guard.is_none() && irrefutable(&a.pat)) => {
                return at("a `match` whose arms rustc must find exhaustive")
            }
            TKind::Lit(Lit::Int(v)) => {
                let Some((_, max)) = range_of(e.s()) else {
                    return if e.s().is_float() { Ok(()) } else { at("an integer literal of an unusual type") };
                };
                if i128::try_from(*v).map_or(true, |v| v > max) {
                    return at("a literal that may not fit its type");
                }
            }
            TKind::Unary(UnOp::Neg, inner) if matches!(inner.kind, TKind::Lit(Lit::Int(_))) => {
                let (Some((min, _)), Some(v)) = (range_of(e.s()), literal_value(e)) else {
                    return if e.s().is_float() { Ok(()) } else { at("a negative literal of an unusual type") };
                };
                if v < min {
                    return at("a negative literal that may not fit its type");
                }
                return Ok(());
            }
            TKind::Lit(Lit::Float(f)) if e.s() == Scalar::F32 && (*f as f32).is_infinite() => {
                return at("a float literal out of range");
            }
            TKind::Unary(UnOp::Neg, inner) if inner.s().is_int() && self.known(inner) => {
                return at("a negation rustc might evaluate");
            }
            TKind::Binary(..) | TKind::Assign { op: Some(_), .. } => {
                // The operation, its left operand's type and whether rustc could know it, and the right operand.
                let (op, ty, l_known, l_literal, r) = match &e.kind {
                    TKind::Binary(op, l, r) => (*op, l.s(), self.known(l), folded(l, &self.values), &**r),
                    TKind::Assign { op: Some(op), place, value } => {
                        let state = self.known.borrow();
                        let known = match place {
                            Place::Local(LocalRef::Binding(i)) => state.bindings.get(*i).copied().unwrap_or(true),
                            Place::Local(LocalRef::Snippet(id)) => state.locals.get(*id).copied().unwrap_or(true),
                            Place::Deref(_) | Place::HostField(_) => true,
                        };
                        drop(state);
                        // The place's type: the value's, except for shifts (whose amount may differ).
                        let ty = if matches!(op, BinOp::Shl | BinOp::Shr) { Scalar::I128 } else { value.s() };
                        (*op, ty, known, None, &**value)
                    }
                    _ => unreachable!("matched above"),
                };
                if ty.is_int() || ty == Scalar::I128 {
                    self.operation(op, ty, l_known, l_literal, r).or_else(&at)?;
                }
            }
            TKind::Method { receiver, .. } if !type_determined(receiver, self.snippet) => {
                return at("a method on a value whose type may come from an unsuffixed literal");
            }
            _ => {}
        }
        self.children(e)?;
        // After an assignment: what rustc could know of the local now.
        if let TKind::Assign { place: Place::Local(LocalRef::Snippet(id)), op, value } = &e.kind {
            let value_known = self.known(value);
            let now = match op {
                None => value_known,
                Some(_) => value_known && self.known.borrow().locals.get(*id).copied().unwrap_or(true),
            };
            self.assigned(*id, now);
        }
        Ok(())
    }
}

/// Whether an iterator reads two sequences (through `zip` or `chain`).
fn reads_two_sequences(chain: &IterChain) -> bool {
    fn sequences(source: &IterSource) -> usize {
        match source {
            IterSource::Seq(_) => 1,
            IterSource::Chain { first, second, .. } => sequences(first) + sequences(second),
            _ => 0,
        }
    }
    let zipped = chain.stages.iter().map(|(stage, _)| match stage {
        Stage::Zip(other) => sequences(other),
        _ => 0,
    });
    sequences(&chain.source) + zipped.sum::<usize>() > 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use lacuna_ir::{TFn, TLocal};

    fn lit(v: u128, ty: Scalar) -> TExpr {
        TExpr { kind: TKind::Lit(Lit::Int(v)), ty: ty.into(), range: 0..1 }
    }

    fn snippet(stmts: Vec<TStmt>, tail: TExpr, locals: Vec<TLocal>) -> TypedSnippet {
        let ty = tail.ty.clone();
        TypedSnippet {
            body: TBlock { stmts, tail: Some(Box::new(tail)), ty: Some(ty.clone()), label: None },
            ty,
            locals,
            fns: Vec::new(),
            bindings: Vec::new(),
            references: false,
            owns_buffers: false,
            rustc_decides: None,
            fields: Vec::new(),
            structs: Vec::new(),
        }
    }

    fn local(name: &str, ty: Scalar, mutable: bool) -> TLocal {
        TLocal { name: name.into(), ty: ty.into(), mutable, fixed_type: false, array_literal: false }
    }

    #[test]
    fn assigning_an_immutable_local_is_outside_the_subset() {
        let assign = TExpr {
            kind: TKind::Assign {
                place: Place::Local(LocalRef::Snippet(0)),
                op: None,
                value: Box::new(lit(2, Scalar::I32)),
            },
            ty: Scalar::Unit.into(),
            range: 4..9,
        };
        let s = snippet(
            vec![TStmt::Let { local: 0, init: Some(lit(1, Scalar::I32)) }, TStmt::Expr(assign)],
            TExpr { kind: TKind::Local(LocalRef::Snippet(0)), ty: Scalar::I32.into(), range: 10..11 },
            vec![local("x", Scalar::I32, false)],
        );
        let e = lower(s.clone(), &[]).unwrap_err();
        assert_eq!(e.range, 4..9);
        let mut ok = s;
        ok.locals[0].mutable = true;
        assert!(lower(ok, &[]).is_ok());
    }

    #[test]
    fn wide_integers_and_mistyped_methods_are_outside_the_subset() {
        assert!(lower(snippet(vec![], lit(1, Scalar::I128), vec![]), &[]).is_err());
        let pow = TExpr {
            kind: TKind::Method {
                name: Method::Scalar(ScalarMethod::Pow),
                receiver: Box::new(lit(2, Scalar::I64)),
                args: vec![lit(3, Scalar::I64)],
            },
            ty: Scalar::I64.into(),
            range: 0..5,
        };
        assert!(lower(snippet(vec![], pow, vec![]), &[]).is_err(), "pow takes a u32");
        let pow = TExpr {
            kind: TKind::Method {
                name: Method::Scalar(ScalarMethod::Pow),
                receiver: Box::new(lit(2, Scalar::I64)),
                args: vec![lit(3, Scalar::U32)],
            },
            ty: Scalar::I64.into(),
            range: 0..5,
        };
        assert!(lower(snippet(vec![], pow, vec![]), &[]).is_ok());
    }

    #[test]
    fn break_with_a_value_only_leaves_loop_and_return_only_leaves_functions() {
        let brk = TExpr {
            kind: TKind::Break { label: None, value: Some(Box::new(lit(1, Scalar::I32))) },
            ty: Scalar::Never.into(),
            range: 2..9,
        };
        let body = TBlock { stmts: vec![TStmt::Expr(brk)], tail: None, ty: Some(Scalar::Unit.into()), label: None };
        let cond = TExpr { kind: TKind::Lit(Lit::Bool(true)), ty: Scalar::Bool.into(), range: 0..1 };
        let while_loop = TExpr {
            kind: TKind::While { label: None, cond: Box::new(cond), body: body.clone() },
            ty: Scalar::Unit.into(),
            range: 0..10,
        };
        assert!(lower(snippet(vec![], while_loop, vec![]), &[]).is_err());
        let plain_loop = TExpr { kind: TKind::Loop { label: None, body }, ty: Scalar::I32.into(), range: 0..10 };
        assert!(lower(snippet(vec![], plain_loop, vec![]), &[]).is_ok());
        let ret =
            TExpr { kind: TKind::Return(Some(Box::new(lit(1, Scalar::I32)))), ty: Scalar::Never.into(), range: 0..8 };
        assert!(lower(snippet(vec![], ret.clone(), vec![]), &[]).is_err());
        let mut in_fn = snippet(vec![], lit(0, Scalar::I32), vec![]);
        in_fn.fns.push(TFn {
            name: "f".into(),
            params: vec![],
            ret: Scalar::I32.into(),
            body: TBlock { stmts: vec![TStmt::Expr(ret)], tail: None, ty: Some(Scalar::Never.into()), label: None },
        });
        assert!(lower(in_fn, &[]).is_ok());
    }
    #[test]
    fn folding_gives_rustcs_constant_values_and_nothing_where_rustc_reports_a_panic() {
        let bin = |op, l: TExpr, r: TExpr| {
            let ty = l.ty.clone();
            TExpr { kind: TKind::Binary(op, Box::new(l), Box::new(r)), ty, range: 0..1 }
        };
        let cast = |x: TExpr, to: Scalar| TExpr { kind: TKind::Cast(Box::new(x)), ty: to.into(), range: 0..1 };
        let neg = |x: TExpr| {
            let ty = x.ty.clone();
            TExpr { kind: TKind::Unary(UnOp::Neg, Box::new(x)), ty, range: 0..1 }
        };
        let u8_ = Scalar::U8;
        let i32_ = Scalar::I32;
        assert_eq!(folded(&bin(BinOp::Add, lit(200, u8_), lit(100, u8_)), &Values::default()), None);
        assert_eq!(folded(&bin(BinOp::Add, lit(200, u8_), lit(55, u8_)), &Values::default()), Some(255));
        let step = bin(BinOp::Add, bin(BinOp::Div, lit(40, i32_), lit(8, i32_)), lit(1, i32_));
        assert_eq!(folded(&step, &Values::default()), Some(6));
        assert_eq!(folded(&cast(lit(300, i32_), u8_), &Values::default()), Some(44));
        assert_eq!(folded(&cast(neg(lit(1, i32_)), u8_), &Values::default()), Some(255));
        assert_eq!(
            folded(&bin(BinOp::Div, neg(lit(128, Scalar::I8)), neg(lit(1, Scalar::I8))), &Values::default()),
            None
        );
        assert_eq!(folded(&bin(BinOp::Rem, lit(7, i32_), lit(0, i32_)), &Values::default()), None);
        assert_eq!(
            folded(&bin(BinOp::Shl, lit(1, i32_), lit(31, i32_)), &Values::default()),
            Some(i128::from(i32::MIN))
        );
        assert_eq!(folded(&bin(BinOp::Shl, lit(1, u8_), lit(8, u8_)), &Values::default()), None);
        assert_eq!(folded(&bin(BinOp::Shr, neg(lit(8, i32_)), lit(1, i32_)), &Values::default()), Some(-4));
    }

    #[test]
    fn vectors_the_snippet_owns_are_in_the_subset_and_their_moves_are_checked() {
        let vec_ty = Ty::Vec(Elem::Scalar(Scalar::I64));
        let lit_vec = TExpr { kind: TKind::VecLit(vec![lit(1, Scalar::I64)]), ty: vec_ty.clone(), range: 0..9 };
        let facts = || HostFacts {
            raises_lints: false,
            hole_type_matches: true,
            opaque_bindings: vec![],
            binding_values: vec![],
        };
        let mut s = snippet(vec![], lit_vec.clone(), vec![]);
        s.owns_buffers = true;
        let lowered = lower(s, &[]).expect("a vector of scalars is in the subset");
        assert_eq!(accept_without_rustc(&lowered, facts()), Ok(()));
        // `let v = vec![1]; let w = v; v`: a use after a move is rustc's E0382.
        let read_v = TExpr { kind: TKind::Local(LocalRef::Snippet(0)), ty: vec_ty.clone(), range: 20..21 };
        let stmts =
            vec![TStmt::Let { local: 0, init: Some(lit_vec) }, TStmt::Let { local: 1, init: Some(read_v.clone()) }];
        let locals = vec![
            TLocal { name: "v".into(), ty: vec_ty.clone(), mutable: false, fixed_type: false, array_literal: false },
            TLocal { name: "w".into(), ty: vec_ty.clone(), mutable: false, fixed_type: false, array_literal: false },
        ];
        let mut s = snippet(stmts, read_v, locals);
        s.owns_buffers = true;
        let lowered = lower(s, &[]).expect("moves are in the subset");
        let why = accept_without_rustc(&lowered, facts()).unwrap_err();
        assert!(why.contains("`v` used where it may have been moved"), "{why}");
        // Elements of another type than the vector's are not.
        let mixed = TExpr { kind: TKind::VecLit(vec![lit(1, Scalar::I32)]), ty: vec_ty, range: 0..9 };
        assert!(lower(snippet(vec![], mixed, vec![]), &[]).is_err());
    }
}
