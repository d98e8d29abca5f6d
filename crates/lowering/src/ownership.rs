//! The subset's own move and borrow check, so that a snippet with vectors and strings can be accepted without
//! asking rustc. It answers "rustc's borrow checker would accept this" conservatively: `Err` says why rustc must
//! decide, never that the snippet is wrong.
//!
//! What it models, over the typed view (where every local is a scalar, an `Option`/tuple of scalars, a `Vec<S>`,
//! a `String` or a `&str`):
//! - **Moves.** A `Vec`/`String` local read by value (`let w = v;`, `for x in v`, `s + "!"`, a call argument, the
//!   hole's value) is moved; any later use on some path is E0382. Paths join by union, `break` and `continue`
//!   carry their state to where they jump; a loop body is walked twice, the second time from its head's state
//!   after one iteration (moves and re-initialisations are gen/kill facts, so that is the fixpoint). Moving inside
//!   a closure, or out of a hole binding, is left to rustc.
//! - **Loans.** References are never stored: a local whose type holds one makes the builder set
//!   [`TypedSnippet::references`], which sends the snippet to rustc before this check. So a loan lives only
//!   while the expression that takes it is evaluated: text read in place (`&s`, `s.as_str()`, `s.trim()`), an
//!   element reference (`v.first()`, `v.iter().max()`), a loop or iterator over a sequence, and the variables an
//!   iterator's closures capture. Each construct's later parts must not change or move what its earlier parts
//!   still borrow: a loop body must not touch the sequence it iterates or what the iterator's closures read
//!   (E0502, E0506, E0505), a `match`'s arms not what its scrutinee borrows, `s.push_str(&s)` is E0502.
//! - **Mutability.** Only `mut` locals are changed in place (E0596).
//!
//! Over-approximations (each only sends more snippets to rustc): a `*` the typed view drops is not seen, so
//! `*v.first().unwrap()` still counts as a loan of `v` within its expression; a `match` on a `Vec` local moves it.

use std::collections::BTreeSet;

use lacuna_ir::Receiver;
use lacuna_ir::{
    Arm, Child, FmtPiece, FmtTrait, Formats, IterChain, IterSource, LocalRef, MapMethod, Method, OptionMethod,
    ParseThen, Pieces, Place, Scalar, ScalarMethod, Seq, SeqKind, SeqMethod, Sink, Stage, TBlock, TExpr, TKind, TPat,
    TStmt, TextMethod, Ty, TypedSnippet,
};

type Owners = BTreeSet<LocalRef>;

/// The in-place methods of slices a `Vec` reaches through `DerefMut` (no two-phase borrow of the receiver).
/// Methods of `[T]` (reached through `Vec`'s `DerefMut`) that change it.
fn slice_mutator(m: SeqMethod) -> bool {
    matches!(m, SeqMethod::Sort | SeqMethod::SortUnstable | SeqMethod::Reverse | SeqMethod::Swap | SeqMethod::Fill)
}

/// Whether rustc's move and borrow checks (and the trait bounds of formatting) would accept `snippet`, as far as
/// the subset can tell. `Err` says why rustc must decide.
pub(crate) fn check(snippet: &TypedSnippet) -> Result<(), String> {
    if snippet.ty == Ty::Str || snippet.fns.iter().any(|f| f.ret == Ty::Str) {
        return Err("a function or the snippet returns borrowed text".into());
    }
    if snippet.fns.iter().any(|f| matches!(f.ret, Ty::Slice(_))) {
        return Err("a function returns a slice".into());
    }
    // Nor a `String` field moved out of a host struct (a partial move).
    if let Some(e) = first_expr(snippet, &|e| matches!(e.kind, TKind::RefField { .. }) && e.ty == Ty::String) {
        return Err(at("a field moved out of a host struct (rustc's move check decides)", e));
    }
    // Nor an `Option` that owns its payload (moved out by patterns and `unwrap`s).
    if let Some(e) = first_expr(snippet, &|e| crate::subset::owned_option(&e.ty)) {
        return Err(at("an `Option` owning its payload (rustc's move check decides)", e));
    }
    // Nor a `Result` the snippet makes or returns from its functions holding what it owns (moved in, and out by
    // the patterns that take it apart).
    let made_result = |e: &TExpr| {
        matches!(e.ty, Ty::Result(..)) && e.ty.owns() && matches!(e.kind, TKind::ResultOf { .. } | TKind::Call { .. })
    };
    if let Some(e) = first_expr(snippet, &made_result) {
        return Err(at("a `Result` the snippet makes owning its payload (rustc's move check decides)", e));
    }
    // Nor a view of a map (its keys point into it; `into_iter` moves it), nor a map formatted (its listing is
    // read after every argument is evaluated).
    let formats_map = |e: &TExpr| match &e.kind {
        TKind::Format(pieces) | TKind::Print { pieces, .. } => {
            pieces.iter().any(|p| matches!(p, FmtPiece::Arg { value, .. } if matches!(value.ty, Ty::Map { .. })))
        }
        _ => false,
    };
    if let Some(e) = first_expr(snippet, &|e| matches!(e.kind, TKind::MapEntries { .. }) || formats_map(e)) {
        return Err(at("a view of a map (rustc's borrow check decides)", e));
    }
    let mut walk = Walk { snippet, moved: Owners::new(), frames: Vec::new(), closures: 0 };
    walk.block(&snippet.body)?;
    for f in &snippet.fns {
        walk.moved.clear();
        walk.block(&f.body)?;
    }
    Ok(())
}

/// The first expression of the snippet (its body's, then its functions') for which `pred` holds.
fn first_expr<'a>(snippet: &'a TypedSnippet, pred: &dyn Fn(&TExpr) -> bool) -> Option<&'a TExpr> {
    fn in_child<'a>(c: Child<'a>, pred: &dyn Fn(&TExpr) -> bool, found: &mut Option<&'a TExpr>) {
        if found.is_some() {
            return;
        }
        match c {
            Child::Expr(e) if pred(e) => *found = Some(e),
            Child::Expr(e) => e.each_child(&mut |c| in_child(c, pred, found)),
            Child::Block(b) => b.each_child(&mut |c| in_child(c, pred, found)),
        }
    }
    let mut found = None;
    in_child(Child::Block(&snippet.body), pred, &mut found);
    for f in &snippet.fns {
        in_child(Child::Block(&f.body), pred, &mut found);
    }
    found
}

/// A value that owns a buffer: reading it by value moves it.
fn owns(ty: &Ty) -> bool {
    ty.owns()
}

/// Whose buffer a sequence is (a field's: the local the path starts from).
fn owner(seq: &Seq, snippet: &TypedSnippet) -> LocalRef {
    match seq.kind {
        SeqKind::Local | SeqKind::SliceLocal => LocalRef::Snippet(seq.binding),
        SeqKind::Field => snippet.seq_places.get(seq.binding).map_or(LocalRef::Binding(usize::MAX), |p| p.base),
        SeqKind::Vec | SeqKind::RefVec | SeqKind::Slice | SeqKind::Array(_) => LocalRef::Binding(seq.binding),
    }
}

/// Whose value an assignment to `place` changes (a host field's: its binding's).
fn place_owner(place: &Place, snippet: &TypedSnippet) -> LocalRef {
    match place {
        Place::Local(r) => *r,
        Place::Deref(b) | Place::WholeBinding(b) => LocalRef::Binding(*b),
        Place::HostField(i) => LocalRef::Binding(snippet.fields.get(*i).map_or(usize::MAX, |f| f.binding)),
        // What the loop variable points to (the loop over the binding's sequence lends it out element by element).
        Place::ElemField(i) => LocalRef::Snippet(snippet.elem_fields.get(*i).map_or(usize::MAX, |f| f.local)),
        Place::Elem { local, .. } => LocalRef::Snippet(*local),
    }
}

fn at(what: &str, e: &TExpr) -> String {
    crate::Unsupported::at(what, &e.range).to_string()
}

/// The evaluation order's walk, with the locals that may be moved at this point.
struct Walk<'a> {
    snippet: &'a TypedSnippet,
    moved: Owners,
    /// The loops and labelled blocks around this point, innermost last.
    frames: Vec<Frame>,
    /// How many closures the walk is inside.
    closures: usize,
}

/// A loop or labelled block: what may be moved where `break` and `continue` jump.
struct Frame {
    label: Option<String>,
    is_loop: bool,
    breaks: Owners,
    continues: Owners,
}

impl Walk<'_> {
    fn name(&self, o: LocalRef) -> String {
        match o {
            LocalRef::Snippet(id) => self.snippet.locals.get(id).map_or("a local".into(), |l| format!("`{}`", l.name)),
            LocalRef::Binding(i) => format!("hole binding {i}"),
        }
    }

    fn moved_check(&self, o: LocalRef, e: &TExpr) -> Result<(), String> {
        if self.moved.contains(&o) {
            return Err(at(&format!("{} used where it may have been moved", self.name(o)), e));
        }
        Ok(())
    }

    fn moves(&mut self, id: usize) {
        self.moved.insert(LocalRef::Snippet(id));
    }

    fn init(&mut self, id: usize) {
        self.moved.remove(&LocalRef::Snippet(id));
    }

    fn init_pat(&mut self, pat: &TPat) {
        match pat {
            TPat::Bind(l) => self.init(*l),
            TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().for_each(|p| self.init_pat(p)),
            TPat::Some(p) | TPat::Ok(p) | TPat::Err(p) => self.init_pat(p),
            TPat::Variant { fields, .. } => fields.iter().for_each(|f| self.init_pat(&f.pat)),
            _ => {}
        }
    }

    /// `e` must not change or move what `live` borrows.
    fn no_conflict(&self, e: &TExpr, live: &Owners) -> Result<(), String> {
        let mut touched = Owners::new();
        writes(e, true, self.snippet, &mut touched);
        self.no_overlap(&touched, live, e)
    }

    fn no_conflict_block(&self, b: &TBlock, live: &Owners, e: &TExpr) -> Result<(), String> {
        let mut touched = Owners::new();
        block_writes(b, self.snippet, &mut touched);
        self.no_overlap(&touched, live, e)
    }

    fn no_overlap(&self, touched: &Owners, live: &Owners, e: &TExpr) -> Result<(), String> {
        match touched.intersection(live).next() {
            Some(o) => Err(at(&format!("{} changed or moved while it is borrowed", self.name(*o)), e)),
            None => Ok(()),
        }
    }

    /// Operands evaluated in order while the loans of the earlier ones (and `live`) last.
    fn in_order<'e>(
        &mut self,
        operands: impl IntoIterator<Item = (&'e TExpr, bool)>,
        mut live: Owners,
    ) -> Result<Owners, String> {
        for (e, by_value) in operands {
            self.no_conflict(e, &live)?;
            live.extend(self.expr(e, by_value)?);
        }
        Ok(live)
    }

    /// Operands evaluated in order while `held` (a method's receiver) stays borrowed: none may change or move it
    /// (E0499, E0502). Returns the operands' own loans.
    fn while_held<'e>(
        &mut self,
        operands: impl IntoIterator<Item = (&'e TExpr, bool)>,
        held: &Owners,
    ) -> Result<Owners, String> {
        let mut live = Owners::new();
        for (e, by_value) in operands {
            self.no_conflict(e, &(held | &live))?;
            live.extend(self.expr(e, by_value)?);
        }
        Ok(live)
    }

    /// Runs `body` as a loop's: from the state before it, then from its head's state after one iteration (the
    /// fixpoint, moves being gen/kill facts). Afterwards: what `break`s carry, and for a loop that may end at its
    /// head (`while`, `for`, a closure), the head's state.
    fn repeated(
        &mut self,
        label: Option<&str>,
        ends_at_head: bool,
        mut body: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        let before = self.moved.clone();
        self.frames.push(Frame {
            label: label.map(str::to_owned),
            is_loop: true,
            breaks: Owners::new(),
            continues: Owners::new(),
        });
        let mut head = before.clone();
        let mut result = Ok(());
        for _ in 0..2 {
            self.moved = head.clone();
            result = body(self);
            if result.is_err() {
                break;
            }
            let frame = self.frames.last().expect("pushed above");
            head = &(&before | &self.moved) | &frame.continues;
        }
        let frame = self.frames.pop().expect("pushed above");
        result?;
        self.moved = if ends_at_head { &head | &frame.breaks } else { frame.breaks };
        Ok(())
    }

    /// Where `break` or `continue` with `label` jumps: the innermost loop, or the loop or block of that label.
    fn jump(&mut self, label: &Option<String>, is_break: bool) {
        let target = self.frames.iter_mut().rev().find(|f| match label {
            Some(l) => f.label.as_deref() == Some(l.as_str()),
            None => f.is_loop,
        });
        // A jump the frames do not show (impossible in code rust-analyzer accepted) changes nothing here; the
        // state it carries is a subset of what later code sees anyway.
        if let Some(frame) = target {
            let into = if is_break { &mut frame.breaks } else { &mut frame.continues };
            into.extend(self.moved.iter().copied());
        }
    }

    /// Alternatives from one state; afterwards, what any of them moved.
    fn branches(
        &mut self,
        count: usize,
        mut arm: impl FnMut(&mut Self, usize) -> Result<(), String>,
    ) -> Result<(), String> {
        let start = self.moved.clone();
        let mut after = Owners::new();
        for i in 0..count {
            self.moved = start.clone();
            arm(self, i)?;
            after.extend(self.moved.iter().copied());
        }
        self.moved = after;
        Ok(())
    }

    fn block(&mut self, b: &TBlock) -> Result<Owners, String> {
        let Some(label) = &b.label else { return self.plain_block(b) };
        // A labelled block: left at its end or by `break 'label`.
        self.frames.push(Frame {
            label: Some(label.clone()),
            is_loop: false,
            breaks: Owners::new(),
            continues: Owners::new(),
        });
        let result = self.plain_block(b);
        let frame = self.frames.pop().expect("pushed above");
        let loans = result?;
        self.moved.extend(frame.breaks);
        Ok(loans)
    }

    fn plain_block(&mut self, b: &TBlock) -> Result<Owners, String> {
        // Temporaries (and their loans) end with each statement.
        for stmt in &b.stmts {
            match stmt {
                TStmt::Let { local, init } => {
                    if let Some(init) = init {
                        self.expr(init, true)?;
                    }
                    self.init(*local);
                }
                TStmt::LetPat { pat, init, otherwise } => {
                    let loans = self.expr(init, true)?;
                    if let Some(o) = otherwise {
                        self.no_conflict_block(o, &loans, init)?;
                        let start = self.moved.clone();
                        self.block(o)?;
                        // `else` diverges; what it moved does not reach what follows, but keeping it is safe.
                        self.moved.extend(start);
                    }
                    self.init_pat(pat);
                }
                TStmt::Expr(e) => {
                    self.expr(e, true)?;
                }
            }
        }
        let Some(tail) = &b.tail else { return Ok(Owners::new()) };
        let loans = self.expr(tail, true)?;
        // The block's locals end with it: its value may not borrow them (E0597).
        let mut declared = Vec::new();
        for stmt in &b.stmts {
            match stmt {
                TStmt::Let { local, .. } => declared.push(*local),
                TStmt::LetPat { pat, .. } => crate::subset::bound_locals(pat, &mut declared),
                TStmt::Expr(_) => {}
            }
        }
        // (Only buffers can be lent to a value here: a reference to a scalar local sets `references`.)
        let lends = |l: &usize| self.snippet.locals.get(*l).is_some_and(|l| owns(&l.ty) && !l.array_literal);
        if let Some(l) = declared.into_iter().filter(lends).find(|l| loans.contains(&LocalRef::Snippet(*l))) {
            return Err(at(&format!("{} borrowed by its block's value", self.name(LocalRef::Snippet(l))), tail));
        }
        Ok(loans)
    }

    fn seq_use(&self, seq: &Seq, e: &TExpr) -> Result<(), String> {
        self.moved_check(owner(seq, self.snippet), e)
    }

    /// Changing `seq` in place needs a `mut` local (a hole binding's mode is the runner's check).
    /// A closure a method that changes `seq` calls while it holds the sequence mutably: it may not read it
    /// (E0502).
    fn closure_of_change(&mut self, seq: &Seq, closure: &lacuna_ir::Closure, e: &TExpr) -> Result<(), String> {
        if mentions(&closure.body, self.snippet).contains(&owner(seq, self.snippet)) {
            return Err(at("a closure that reads the sequence its method changes", e));
        }
        self.closures += 1;
        let walked = self.expr(&closure.body, true);
        self.closures -= 1;
        walked.map(|_| ())
    }

    fn seq_change(&self, seq: &Seq, e: &TExpr) -> Result<(), String> {
        self.seq_use(seq, e)?;
        if seq.kind == SeqKind::Field {
            return Err(at("a vector changed through a struct's field", e));
        }
        if seq.kind == SeqKind::Local && !self.snippet.locals.get(seq.binding).is_some_and(|l| l.mutable) {
            return Err(at("a vector or string changed through a binding that is not `mut`", e));
        }
        Ok(())
    }

    /// Walks `e`, read by value (moved, if it owns a buffer) or by reference. Returns what its value borrows.
    fn expr(&mut self, e: &TExpr, by_value: bool) -> Result<Owners, String> {
        let none = Owners::new;
        Ok(match &e.kind {
            TKind::Local(LocalRef::Snippet(id)) => {
                self.moved_check(LocalRef::Snippet(*id), e)?;
                if owns(&e.ty) && by_value {
                    if self.closures > 0 {
                        return Err(at("a value moved inside a closure", e));
                    }
                    self.moves(*id);
                    none()
                } else if owns(&e.ty) {
                    Owners::from([LocalRef::Snippet(*id)])
                } else {
                    none()
                }
            }
            TKind::Local(LocalRef::Binding(_)) if owns(&e.ty) && by_value => {
                return Err(at("a hole binding read as a value", e))
            }
            // A host struct binding read in place (its fields, formatted, compared, cloned).
            TKind::Local(LocalRef::Binding(b)) if owns(&e.ty) => Owners::from([LocalRef::Binding(*b)]),
            TKind::StructClone(x) => {
                self.expr(x, false)?;
                none()
            }
            TKind::StructEq { left, right, .. } | TKind::StructOrd { left, right, .. } => {
                self.in_order([(&**left, false), (&**right, false)], none())?;
                none()
            }
            TKind::StructLit { fields, base, .. } => {
                self.in_order(fields.iter().map(|(_, v)| (v, true)).chain(base.iter().map(|b| (&**b, true))), none())?;
                none()
            }
            TKind::MapNew | TKind::UnitVariant { .. } => none(),
            // (Declined before the walk.)
            TKind::MapEntries { map, .. } => {
                self.moved_check(LocalRef::Snippet(*map), e)?;
                none()
            }
            TKind::MapMethod { map, name, args, .. } => {
                self.moved_check(LocalRef::Snippet(*map), e)?;
                let moves_key = *name == MapMethod::Insert;
                let held = Owners::from([LocalRef::Snippet(*map)]);
                let loans = self.while_held(args.iter().enumerate().map(|(i, a)| (a, moves_key || i > 0)), &held)?;
                if name.mutates() {
                    self.no_overlap(&held, &loans, e)?;
                }
                none()
            }
            // The key and the `String` pushed are moved into the map, which is held from `entry` on.
            TKind::MapPush { map, key, value } => {
                self.moved_check(LocalRef::Snippet(*map), e)?;
                // `entry(..).or_default()` lends the map's vector out mutably before the value is evaluated: the
                // value may not read the map at all (E0502).
                if mentions(value, self.snippet).contains(&LocalRef::Snippet(*map)) {
                    return Err(at("a value pushed into a map's entry that reads the map", value));
                }
                let held = Owners::from([LocalRef::Snippet(*map)]);
                let loans = self.while_held([(&**key, true), (&**value, true)], &held)?;
                self.no_overlap(&held, &loans, e)?;
                none()
            }
            TKind::MapUpdate { map, key, default, value, .. } => {
                self.in_order([(&**value, true)], none())?;
                self.moved_check(LocalRef::Snippet(*map), e)?;
                let held = Owners::from([LocalRef::Snippet(*map)]);
                // `or_insert(default)` is evaluated while `entry` holds the map mutably (E0502).
                if default.as_deref().is_some_and(|d| mentions(d, self.snippet).contains(&LocalRef::Snippet(*map))) {
                    return Err(at("an entry's default that reads the map", e));
                }
                let mut operands = vec![(&**key, true)];
                if let Some(d) = default {
                    operands.push((&**d, true));
                }
                let loans = self.while_held(operands, &held)?;
                self.no_overlap(&held, &loans, e)?;
                none()
            }
            TKind::Lit(_)
            | TKind::Local(LocalRef::Binding(_))
            | TKind::Deref(_)
            | TKind::HostField(_)
            | TKind::None => none(),
            // A place lent to a host function for the call (rustc's borrow check judges every such snippet).
            TKind::AddrOf { place, .. } => {
                self.moved_check(place_owner(place, self.snippet), e)?;
                none()
            }
            TKind::TextOf(seq) | TKind::SliceOf { seq, .. } => {
                self.seq_use(seq, e)?;
                Owners::from([owner(seq, self.snippet)])
            }
            TKind::SubSlice { seq, start, end } => {
                let bounds = start.iter().chain(end.iter()).map(|x| (&**x, true));
                self.in_order(bounds, Owners::new())?;
                self.seq_use(seq, e)?;
                Owners::from([owner(seq, self.snippet)])
            }
            // A field read in place borrows what its struct is in.
            TKind::RefField { base, .. } | TKind::OptionField { base, .. } | TKind::OptionRef(base) => {
                self.expr(base, false)?
            }
            TKind::SeqLen(seq) | TKind::SeqSum(seq) | TKind::SeqClone(seq) => {
                self.seq_use(seq, e)?;
                none()
            }
            TKind::SeqIndex { seq, index } => {
                self.seq_use(seq, e)?;
                self.while_held([(&**index, true)], &Owners::from([owner(seq, self.snippet)]))?;
                // A string or struct element is read in place: its text or address borrows the sequence.
                if seq.elem.read_borrows() {
                    Owners::from([owner(seq, self.snippet)])
                } else {
                    none()
                }
            }
            TKind::SeqStore { seq, index, value, .. } => {
                self.seq_change(seq, e)?;
                let loans =
                    self.while_held([(&**index, true), (&**value, true)], &Owners::from([owner(seq, self.snippet)]))?;
                self.no_overlap(&Owners::from([owner(seq, self.snippet)]), &loans, e)?;
                none()
            }
            TKind::SeqMethod { seq, name, args, .. } => {
                let mutator = name.mutates();
                if mutator {
                    self.seq_change(seq, e)?;
                } else {
                    self.seq_use(seq, e)?;
                }
                // The receiver is borrowed first: a `Vec` method's `&mut self` is a two-phase borrow (the arguments
                // may read it), a slice method's goes through `DerefMut` first (they may not: E0502).
                if slice_mutator(*name) {
                    let mut read = Owners::new();
                    args.iter().for_each(|a| read.extend(mentions(a, self.snippet)));
                    if read.contains(&owner(seq, self.snippet)) {
                        return Err(at("a slice method's argument reads its receiver", e));
                    }
                }
                let loans =
                    self.while_held(args.iter().map(|a| (a, true)), &Owners::from([owner(seq, self.snippet)]))?;
                if mutator {
                    self.no_overlap(&Owners::from([owner(seq, self.snippet)]), &loans, e)?;
                }
                // `first`, `last`, `get` hand out references to elements.
                if mutator || matches!(name, SeqMethod::IsEmpty | SeqMethod::Contains | SeqMethod::Join) {
                    none()
                } else {
                    Owners::from([owner(seq, self.snippet)])
                }
            }
            TKind::SeqWithClosure { seq, closure, .. } => {
                self.seq_change(seq, e)?;
                self.closure_of_change(seq, closure, e)?;
                none()
            }
            TKind::SortBy { seq, keys, .. } => {
                self.seq_change(seq, e)?;
                for key in keys {
                    self.closure_of_change(seq, &key.key, e)?;
                }
                none()
            }
            TKind::StringPush { seq, value, .. } => {
                self.seq_change(seq, e)?;
                if value.ty != Ty::Str && value.ty != Ty::Scalar(Scalar::Char) {
                    return Err(at("text of this type appended", e));
                }
                let loans = self.while_held([(&**value, false)], &Owners::from([owner(seq, self.snippet)]))?;
                self.no_overlap(&Owners::from([owner(seq, self.snippet)]), &loans, e)?;
                none()
            }
            TKind::Concat { left, right, .. } => {
                if right.ty != Ty::Str {
                    return Err(at("text of this type appended", e));
                }
                self.in_order([(&**left, true), (&**right, false)], none())?;
                none()
            }
            TKind::TextMethod { name, receiver, args } => {
                // `into` of a `String` (also `String::from` of one) moves it.
                let moves = *name == TextMethod::Into && receiver.ty == Ty::String;
                let live = self.in_order([(&**receiver, moves)], none())?;
                let live = self.in_order(args.iter().map(|a| (a, false)), live)?;
                if e.ty == Ty::Str {
                    live
                } else {
                    none()
                }
            }
            TKind::Format(pieces) | TKind::Print { pieces, .. } => {
                let values: Vec<&TExpr> = pieces
                    .iter()
                    .filter_map(|p| match p {
                        FmtPiece::Arg { value, spec } => Some((value, spec)),
                        FmtPiece::Lit(_) => None,
                    })
                    .map(|(value, spec)| {
                        formattable(&value.ty, spec.trait_, &self.snippet.formats).then_some(value).ok_or(value)
                    })
                    .collect::<Result<_, _>>()
                    .map_err(|value| at("a value formatted by a trait its type may not implement", value))?;
                self.in_order(values.into_iter().map(|v| (v, false)), none())?;
                none()
            }
            TKind::TryConvert { value, then, .. } => {
                let loans = self.expr(value, true)?;
                if let ParseThen::UnwrapOr(v) = then {
                    self.in_order([(&**v, true)], loans)?;
                }
                none()
            }
            TKind::Parse { text, then, .. } => {
                let loans = self.expr(text, false)?;
                if let ParseThen::UnwrapOr(v) = then {
                    self.in_order([(&**v, true)], loans)?;
                }
                none()
            }
            TKind::VecLit(xs) => {
                self.in_order(xs.iter().map(|x| (x, true)), none())?;
                none()
            }
            TKind::VecRepeat { value, count } => {
                self.in_order([(&**value, true), (&**count, true)], none())?;
                none()
            }
            TKind::Unary(_, x) | TKind::Cast(x) => {
                self.expr(x, true)?;
                none()
            }
            TKind::Binary(_, l, r) => {
                if owns(&l.ty) || owns(&r.ty) {
                    return Err(at("an operator on a vector or string", e));
                }
                self.in_order([(&**l, true), (&**r, true)], none())?;
                none()
            }
            TKind::Assign { place, value, op } => {
                let loans = self.expr(value, true)?;
                let target = place_owner(place, self.snippet);
                self.no_overlap(&Owners::from([target]), &loans, e)?;
                match (place, op) {
                    (Place::Local(LocalRef::Snippet(id)), None) => self.init(*id),
                    (Place::Local(r), Some(_)) => self.moved_check(*r, e)?,
                    _ => {}
                }
                none()
            }
            TKind::MemReplace { .. } => {
                return Err(at("a value taken with `std::mem` (rustc's borrow check decides)", e))
            }
            TKind::Block(b) => self.block(b)?,
            TKind::If { cond, then, otherwise } => {
                self.expr(cond, true)?;
                let mut loans = Owners::new();
                self.branches(2, |w, i| {
                    let l = match (i, otherwise) {
                        (0, _) => w.block(then)?,
                        (_, Some(o)) => w.expr(o, true)?,
                        (_, None) => Owners::new(),
                    };
                    loans.extend(l);
                    Ok(())
                })?;
                loans
            }
            TKind::Match { scrutinee, arms } => {
                // A host struct or enum is matched in place, unless a pattern moves a field out of it.
                let scrutinee_loans = self.expr(scrutinee, !matched_in_place(scrutinee, arms))?;
                for arm in arms {
                    if let Some(g) = &arm.guard {
                        self.no_conflict(g, &scrutinee_loans)?;
                    }
                    self.no_conflict(&arm.body, &scrutinee_loans)?;
                }
                let mut loans = scrutinee_loans;
                self.branches(arms.len(), |w, i| {
                    let arm = &arms[i];
                    w.init_pat(&arm.pat);
                    if let Some(g) = &arm.guard {
                        w.expr(g, true)?;
                    }
                    loans.extend(w.expr(&arm.body, true)?);
                    Ok(())
                })?;
                loans
            }
            TKind::While { cond, body, label } => {
                self.repeated(label.as_deref(), true, |w| {
                    w.expr(cond, true)?;
                    w.block(body).map(drop)
                })?;
                none()
            }
            TKind::Loop { body, label } => {
                let mut loans = Owners::new();
                self.repeated(label.as_deref(), false, |w| {
                    loans.extend(w.block(body)?);
                    Ok(())
                })?;
                loans.extend(break_loans(body, self.snippet));
                loans
            }
            TKind::For { var, start, end, body, label, .. } => {
                self.in_order([(&**start, true), (&**end, true)], none())?;
                self.repeated(label.as_deref(), true, |w| {
                    w.init(*var);
                    w.block(body).map(drop)
                })?;
                none()
            }
            TKind::ForSeq { var, seq, body, label } => {
                self.seq_use(seq, e)?;
                self.no_conflict_block(body, &Owners::from([owner(seq, self.snippet)]), e)?;
                self.repeated(label.as_deref(), true, |w| {
                    w.init(*var);
                    w.block(body).map(drop)
                })?;
                none()
            }
            TKind::ForIter { pat, chain, body, label } => {
                let live = self.chain(chain, e)?;
                self.no_conflict_block(body, &live, e)?;
                self.repeated(label.as_deref(), true, |w| {
                    w.init_pat(pat);
                    w.block(body).map(drop)
                })?;
                none()
            }
            TKind::Consume { chain, sink } => {
                let live = self.chain(chain, e)?;
                let closures: Vec<&lacuna_ir::Closure> = match sink {
                    Sink::Any(c)
                    | Sink::All(c)
                    | Sink::Position(c)
                    | Sink::Find(c)
                    | Sink::MaxByKey(c)
                    | Sink::MinByKey(c) => vec![c],
                    Sink::MaxBy(keys) | Sink::MinBy(keys) => keys.iter().map(|k| &k.key).collect(),
                    Sink::Fold { init, closure } => {
                        self.in_order([(&**init, true)], live.clone())?;
                        vec![closure]
                    }
                    _ => Vec::new(),
                };
                let mut live = live;
                for c in closures {
                    self.no_conflict(&c.body, &live)?;
                    live.extend(mentions(&c.body, self.snippet));
                    self.closure(&c.params, &c.body)?;
                }
                // A collected `Vec<&S>` sets `TypedSnippet::references` in the builder: `collect` makes owned items.
                match sink {
                    Sink::Sum { .. }
                    | Sink::Product { .. }
                    | Sink::Count
                    | Sink::Any(_)
                    | Sink::All(_)
                    | Sink::Position(_)
                    | Sink::Collect { .. } => none(),
                    _ => live,
                }
            }
            TKind::Break { value, label } => {
                if let Some(v) = value {
                    self.expr(v, true)?;
                }
                self.jump(label, true);
                none()
            }
            TKind::Continue { label } => {
                self.jump(label, false);
                none()
            }
            TKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v, true)?;
                }
                none()
            }
            TKind::Call { args, .. } | TKind::HostCall { args, receiver: None | Some(Receiver::Binding(_)), .. } => {
                self.in_order(args.iter().map(|a| (a, true)), none())?;
                none()
            }
            // `&self` of a struct read in place: borrowed for the call, the arguments after it.
            TKind::HostCall { args, receiver: Some(Receiver::InPlace(this)), .. } => {
                self.in_order(std::iter::once((&**this, false)).chain(args.iter().map(|a| (a, true))), none())?;
                none()
            }
            TKind::Method { name, receiver, args } => {
                if owns(&receiver.ty) {
                    return Err(at("a method of a vector or string outside the check", e));
                }
                let loans =
                    self.in_order(std::iter::once((&**receiver, true)).chain(args.iter().map(|a| (a, true))), none())?;
                // Methods that make a new scalar or a copy end the receiver's loan.
                let copies = matches!(
                    name,
                    Method::Option(OptionMethod::IsSome | OptionMethod::IsNone)
                        | Method::Scalar(ScalarMethod::CountOnes)
                );
                if copies || matches!(e.ty, Ty::Scalar(Scalar::Bool | Scalar::Unit)) {
                    none()
                } else {
                    loans
                }
            }
            TKind::OptionClosure { receiver, param, body, .. } => {
                let mut loans = self.expr(receiver, true)?;
                self.no_conflict(body, &loans)?;
                let params: Vec<TPat> = param.iter().cloned().collect();
                loans.extend(self.closure(&params, body)?);
                loans
            }
            // A scalar operand, copied.
            TKind::Atomic { value, .. } => {
                if let Some(v) = value {
                    self.expr(v, true)?;
                }
                none()
            }
            // The error is formatted by reference; the run drops it.
            TKind::UnwrapFailed { payload, .. } => {
                self.expr(payload, false)?;
                none()
            }
            TKind::Panic { receiver, .. } => {
                if let Some(r) = receiver {
                    self.expr(r, true)?;
                }
                none()
            }
            // The message is made, then the panic: nothing after it runs.
            TKind::PanicFormatted(message) => {
                self.expr(message, true)?;
                none()
            }
            TKind::Some(x) | TKind::ResultOf { value: x, .. } | TKind::Field(x, _) => self.expr(x, true)?,
            TKind::Tuple(xs) => self.in_order(xs.iter().map(|x| (x, true)), none())?,
        })
    }

    /// A closure's body, run any number of times where it is called.
    fn closure(&mut self, params: &[TPat], body: &TExpr) -> Result<Owners, String> {
        self.closures += 1;
        let mut loans = Owners::new();
        let result = self.repeated(None, true, |w| {
            params.iter().for_each(|p| w.init_pat(p));
            loans.extend(w.expr(body, true)?);
            Ok(())
        });
        self.closures -= 1;
        result.map(|()| loans)
    }

    /// Builds an iterator chain: its source, then the adaptors' arguments in order. Returns what it borrows
    /// while it runs: the sequence it iterates, the text whose `chars` it yields, whatever its closures read.
    fn chain(&mut self, chain: &IterChain, e: &TExpr) -> Result<Owners, String> {
        let mut live = self.source(&chain.source, e)?;
        for (stage, _) in &chain.stages {
            match stage {
                Stage::Map(c) | Stage::Filter(c) | Stage::FilterMap(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => {
                    self.no_conflict(&c.body, &live)?;
                    live.extend(mentions(&c.body, self.snippet));
                    live.extend(self.closure(&c.params, &c.body)?);
                }
                Stage::Take(n) | Stage::Skip(n) => live = self.in_order([(&**n, true)], live)?,
                Stage::Zip(other) => {
                    let more = self.source(other, e)?;
                    live.extend(more);
                }
                // What the inner chains borrow, item by item, is rustc's to follow.
                Stage::FlatMap(_) => return Err(at("a `flat_map` (rustc's borrow check decides)", e)),
                Stage::Enumerate | Stage::Rev => {}
            }
        }
        Ok(live)
    }

    /// An iterator's source: what it borrows while it runs.
    fn source(&mut self, source: &IterSource, e: &TExpr) -> Result<Owners, String> {
        Ok(match source {
            IterSource::Range { start, end, .. } => {
                let ends = std::iter::once(&**start).chain(end.as_deref()).map(|x| (x, true));
                self.in_order(ends, Owners::new())?;
                Owners::new()
            }
            IterSource::Seq(seq) => {
                self.seq_use(seq, e)?;
                Owners::from([owner(seq, self.snippet)])
            }
            IterSource::Runs { seq, size, .. } => {
                self.in_order(std::iter::once((&**size, true)), Owners::new())?;
                self.seq_use(seq, e)?;
                Owners::from([owner(seq, self.snippet)])
            }
            IterSource::Chars(text) => self.expr(text, false)?,
            IterSource::Pieces { text, how } => {
                let pattern = match how {
                    Pieces::Split(pattern) => Some((&**pattern, false)),
                    Pieces::Whitespace | Pieces::Lines => None,
                };
                self.in_order(std::iter::once((&**text, false)).chain(pattern), Owners::new())?
            }
            IterSource::Chain { first, second, .. } => {
                let mut live = self.source(first, e)?;
                live.extend(self.source(second, e)?);
                live
            }
        })
    }
}

/// Whether std implements formatting trait `t` for a value of type `ty` (as the typed view reads it: a
/// reference to a scalar is the scalar, which implements the same traits).
fn formattable(ty: &Ty, t: FmtTrait, formats: &[Formats]) -> bool {
    let int = |s: &Scalar| s.is_int();
    match (ty, t) {
        // A host struct or enum (or a reference to one) that implements the trait, as the checker found.
        (Ty::Struct(id) | Ty::StructRef(id), FmtTrait::Debug) => formats.get(*id).is_some_and(|f| f.debug),
        (Ty::Struct(id) | Ty::StructRef(id), FmtTrait::Display) => formats.get(*id).is_some_and(|f| f.display),
        // Any other trait of a host type is rustc's check.
        (Ty::Struct(_) | Ty::StructRef(_), _) => false,
        (_, FmtTrait::Debug) => true,
        (Ty::Scalar(s), FmtTrait::Display) => !matches!(s, Scalar::Unit | Scalar::Never),
        (Ty::Str | Ty::String, FmtTrait::Display) => true,
        (Ty::Scalar(s), FmtTrait::LowerHex | FmtTrait::UpperHex | FmtTrait::Binary | FmtTrait::Octal) => int(s),
        (Ty::Scalar(s), FmtTrait::LowerExp | FmtTrait::UpperExp) => int(s) || s.is_float(),
        _ => false,
    }
}

/// The loans `break` values inside `b` may carry out of a `loop`: whatever they mention.
fn break_loans(b: &TBlock, snippet: &TypedSnippet) -> Owners {
    fn expr(e: &TExpr, out: &mut Owners, snippet: &TypedSnippet) {
        if let TKind::Break { value: Some(v), .. } = &e.kind {
            collect_mentions(v, out, snippet);
        }
        e.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, out, snippet),
            Child::Block(b) => block(b, out, snippet),
        });
    }
    fn block(b: &TBlock, out: &mut Owners, snippet: &TypedSnippet) {
        b.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, out, snippet),
            Child::Block(b) => block(b, out, snippet),
        });
    }
    let mut out = Owners::new();
    block(b, &mut out, snippet);
    out
}

/// Everything `e` reads or changes: locals, sequences, the hole bindings behind references and fields.
fn mentions(e: &TExpr, snippet: &TypedSnippet) -> Owners {
    let mut out = Owners::new();
    collect_mentions(e, &mut out, snippet);
    out
}

fn collect_mentions(e: &TExpr, out: &mut Owners, snippet: &TypedSnippet) {
    match &e.kind {
        TKind::Local(r) => {
            out.insert(*r);
        }
        TKind::Deref(b) => {
            out.insert(LocalRef::Binding(*b));
        }
        TKind::HostField(i) => {
            out.insert(place_owner(&Place::HostField(*i), snippet));
        }
        TKind::Assign { place, .. } | TKind::AddrOf { place, .. } | TKind::MemReplace { place, .. } => {
            out.insert(place_owner(place, snippet));
        }
        TKind::HostCall { receiver: Some(Receiver::Binding(r)), .. } => {
            out.insert(LocalRef::Binding(r.binding));
        }
        // The snippet's maps are named by index, not by a `Local` child.
        TKind::MapMethod { map, .. }
        | TKind::MapEntries { map, .. }
        | TKind::MapUpdate { map, .. }
        | TKind::MapPush { map, .. } => {
            out.insert(LocalRef::Snippet(*map));
        }
        _ => {}
    }
    if let Some(seq) = seq_of(e) {
        out.insert(owner(seq, snippet));
    }
    e.each_child(&mut |c| match c {
        Child::Expr(c) => collect_mentions(c, out, snippet),
        Child::Block(b) => block_mentions(b, out, snippet),
    });
}

fn block_mentions(b: &TBlock, out: &mut Owners, snippet: &TypedSnippet) {
    b.each_child(&mut |c| match c {
        Child::Expr(c) => collect_mentions(c, out, snippet),
        Child::Block(b) => block_mentions(b, out, snippet),
    });
}

/// The sequence an expression reads or changes in place, if any.
fn seq_of(e: &TExpr) -> Option<&Seq> {
    match &e.kind {
        TKind::TextOf(seq)
        | TKind::SliceOf { seq, .. }
        | TKind::SubSlice { seq, .. }
        | TKind::SeqLen(seq)
        | TKind::SeqSum(seq)
        | TKind::SeqClone(seq)
        | TKind::SeqIndex { seq, .. }
        | TKind::SeqStore { seq, .. }
        | TKind::SeqMethod { seq, .. }
        | TKind::SeqWithClosure { seq, .. }
        | TKind::SortBy { seq, .. }
        | TKind::StringPush { seq, .. }
        | TKind::ForSeq { seq, .. } => Some(seq),
        TKind::Consume { chain, .. } | TKind::ForIter { chain, .. } => match &chain.source {
            IterSource::Seq(seq) => Some(seq),
            _ => None,
        },
        _ => None,
    }
}

/// What `e` (read by value or by reference) may change or move: assigned places, sequences changed in place,
/// `Vec`/`String` locals read by value.
fn writes(e: &TExpr, by_value: bool, snippet: &TypedSnippet, out: &mut Owners) {
    match &e.kind {
        TKind::Local(LocalRef::Snippet(id)) if by_value && owns(&e.ty) => {
            out.insert(LocalRef::Snippet(*id));
        }
        TKind::Assign { place, .. } | TKind::AddrOf { place, mutable: true } | TKind::MemReplace { place, .. } => {
            out.insert(place_owner(place, snippet));
        }
        TKind::SeqStore { seq, .. }
        | TKind::StringPush { seq, .. }
        | TKind::SeqWithClosure { seq, .. }
        | TKind::SortBy { seq, .. } => {
            out.insert(owner(seq, snippet));
        }
        TKind::SeqMethod { seq, name, .. } if name.mutates() => {
            out.insert(owner(seq, snippet));
        }
        TKind::SliceOf { seq, mutable: true } => {
            out.insert(owner(seq, snippet));
        }
        TKind::HostCall { receiver: Some(Receiver::Binding(r)), .. } if r.mutable => {
            out.insert(LocalRef::Binding(r.binding));
        }
        TKind::MapMethod { map, name, .. } if name.mutates() => {
            out.insert(LocalRef::Snippet(*map));
        }
        TKind::MapUpdate { map, .. } | TKind::MapPush { map, .. } => {
            out.insert(LocalRef::Snippet(*map));
        }
        _ => {}
    }
    operands(e, &mut |c, by_value| match c {
        Child::Expr(c) => writes(c, by_value, snippet, out),
        Child::Block(b) => block_writes(b, snippet, out),
    });
}

/// `e`'s children with whether each is read by value (moved, if it owns a buffer) or by reference (text read in
/// place, the receiver of a reading method).
fn operands<'e>(e: &'e TExpr, f: &mut dyn FnMut(Child<'e>, bool)) {
    match &e.kind {
        TKind::TextMethod { name, receiver, args } => {
            f(Child::Expr(receiver), *name == TextMethod::Into && receiver.ty == Ty::String);
            args.iter().for_each(|a| f(Child::Expr(a), false));
        }
        TKind::Format(pieces) | TKind::Print { pieces, .. } => pieces.iter().for_each(|p| {
            if let FmtPiece::Arg { value, .. } = p {
                f(Child::Expr(value), false)
            }
        }),
        TKind::StringPush { value, .. }
        | TKind::RefField { base: value, .. }
        | TKind::OptionField { base: value, .. }
        | TKind::OptionRef(value)
        | TKind::StructClone(value) => f(Child::Expr(value), false),
        TKind::StructEq { left, right, .. } | TKind::StructOrd { left, right, .. } => {
            f(Child::Expr(left), false);
            f(Child::Expr(right), false);
        }
        // `&self` of a struct read in place: borrowed for the call.
        TKind::HostCall { receiver: Some(Receiver::InPlace(this)), args, .. } => {
            f(Child::Expr(this), false);
            args.iter().for_each(|a| f(Child::Expr(a), true));
        }
        TKind::MapMethod { name, args, .. } => {
            let moves_key = *name == MapMethod::Insert;
            args.iter().enumerate().for_each(|(i, a)| f(Child::Expr(a), moves_key || i > 0));
        }
        TKind::Match { scrutinee, arms } if matched_in_place(scrutinee, arms) => {
            e.each_child(&mut |c| match c {
                Child::Expr(c) if std::ptr::eq(c, &**scrutinee) => f(Child::Expr(c), false),
                c => f(c, true),
            });
        }
        TKind::Concat { left, right, .. } => {
            f(Child::Expr(left), true);
            f(Child::Expr(right), false);
        }
        TKind::Parse { text, then, .. } => {
            f(Child::Expr(text), false);
            if let ParseThen::UnwrapOr(v) = then {
                f(Child::Expr(v), true);
            }
        }
        TKind::Consume { chain, .. } | TKind::ForIter { chain, .. }
            if matches!(chain.source, IterSource::Chars(_) | IterSource::Pieces { .. }) =>
        {
            // The text (and a `split` pattern) are read by reference.
            let mut by_ref: Vec<&TExpr> = Vec::new();
            match &chain.source {
                IterSource::Chars(text) => by_ref.push(text),
                IterSource::Pieces { text, how } => {
                    by_ref.push(text);
                    if let Pieces::Split(pattern) = how {
                        by_ref.push(pattern);
                    }
                }
                _ => {}
            }
            e.each_child(&mut |c| match c {
                Child::Expr(c) if by_ref.iter().any(|r| std::ptr::eq(c, *r)) => f(Child::Expr(c), false),
                c => f(c, true),
            });
        }
        _ => e.each_child(&mut |c| f(c, true)),
    }
}

/// Where a host struct binding is read by value (moved), if anywhere. JIT code only reads such a binding in place:
/// moving it would need the host to forget its own (the rustc path's `moved` flags), so such a snippet is not the
/// JIT's at all, whatever rustc says.
pub fn struct_binding_moved(snippet: &TypedSnippet) -> Option<std::ops::Range<usize>> {
    fn expr(e: &TExpr, by_value: bool, out: &mut Option<std::ops::Range<usize>>) {
        if let (TKind::Local(LocalRef::Binding(_)), Ty::Struct(_), true) = (&e.kind, &e.ty, by_value) {
            out.get_or_insert(e.range.clone());
        }
        operands(e, &mut |c, by_value| match c {
            Child::Expr(c) => expr(c, by_value, out),
            Child::Block(b) => block(b, out),
        });
    }
    fn block(b: &TBlock, out: &mut Option<std::ops::Range<usize>>) {
        b.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, true, out),
            Child::Block(b) => block(b, out),
        });
    }
    let mut out = None;
    block(&snippet.body, &mut out);
    snippet.fns.iter().for_each(|f| block(&f.body, &mut out));
    out
}

/// The `Vec`/`String` locals read by value anywhere in the snippet (moved somewhere): the others own their
/// buffers until their scope ends, where the JIT frees them. The locals of bindings the snippet owns
/// ([`TypedSnippet::lifted`]) are among them: they go back to the host.
pub fn moved_locals(snippet: &TypedSnippet) -> BTreeSet<usize> {
    // A binding the snippet owns is handed back to the host, never dropped.
    let mut out: BTreeSet<usize> = snippet.lifted.iter().map(|l| l.local).collect();
    out.extend(move_sites(snippet).into_iter().filter_map(|e| match e.kind {
        TKind::Local(LocalRef::Snippet(id)) => Some(id),
        _ => None,
    }));
    out
}

/// The reads of the snippet's own locals that move them: each a [`TKind::Local`] of a type that owns memory, read
/// by value (`let w = v;`, `v.push(s)`, `break s`, a call argument, the hole's value). Code generation keeps a
/// drop flag for a local read here, cleared where it runs one of these, so the local is dropped where its scope
/// ends (or is left early) on the paths that did not move it.
pub fn move_sites(snippet: &TypedSnippet) -> Vec<&TExpr> {
    fn expr<'t>(e: &'t TExpr, by_value: bool, out: &mut Vec<&'t TExpr>) {
        if let TKind::Local(LocalRef::Snippet(_)) = &e.kind {
            if by_value && owns(&e.ty) {
                out.push(e);
            }
        }
        operands(e, &mut |c, by_value| match c {
            Child::Expr(c) => expr(c, by_value, out),
            Child::Block(b) => block(b, out),
        });
    }
    fn block<'t>(b: &'t TBlock, out: &mut Vec<&'t TExpr>) {
        b.each_child(&mut |c| match c {
            Child::Expr(c) => expr(c, true, out),
            Child::Block(b) => block(b, out),
        });
    }
    let mut out = Vec::new();
    block(&snippet.body, &mut out);
    snippet.fns.iter().for_each(|f| block(&f.body, &mut out));
    out
}

fn block_writes(b: &TBlock, snippet: &TypedSnippet, out: &mut Owners) {
    b.each_child(&mut |c| match c {
        Child::Expr(c) => writes(c, true, snippet, out),
        Child::Block(b) => block_writes(b, snippet, out),
    });
}

/// A `match` on a host struct or enum whose patterns move nothing out of it (each field they bind is copied or
/// borrowed): the value is read in place, not moved.
fn matched_in_place(scrutinee: &TExpr, arms: &[Arm]) -> bool {
    matches!(scrutinee.ty, Ty::Struct(_)) && arms.iter().all(|a| a.pat.field_copies().is_empty())
}
