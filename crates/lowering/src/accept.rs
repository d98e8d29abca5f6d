//! Accepting without rustc: a lowered snippet rust-analyzer found clean is accepted on its own when none of
//! rustc's deny-by-default lints could fire on it (overflowing literals; arithmetic overflow and unconditional
//! panics on values rustc's constant evaluation could know; ambiguous numeric receivers).

use lacuna_ir::Binding;
use lacuna_ir::Receiver;
use lacuna_ir::{
    BinOp, Child, Lit, LocalRef, Place, Scalar, Seq, SeqKind, TBlock, TExpr, TKind, TPat, TStmt, Ty, TypedSnippet, UnOp,
};

use crate::scan::{closures_write, reads_two_sequences};
use crate::subset::{bound_locals, irrefutable};
use crate::Lowered;

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
    /// The facts for a hole of a host that does or does not raise lint levels, whose type rustc confirmed as
    /// `glue_type`, with these bindings, for a snippet of type `ty`.
    pub fn new(raises_lints: bool, glue_type: Option<&str>, ty: &Ty, bindings: &[Binding]) -> HostFacts {
        HostFacts {
            raises_lints,
            hole_type_matches: glue_type == Some(ty.name().as_str()),
            opaque_bindings: bindings.iter().map(|b| b.const_opaque).collect(),
            binding_values: bindings.iter().map(|b| b.const_value).collect(),
        }
    }
}

/// What rustc's compile-time evaluation might know: per snippet local, and per hole binding.
pub(crate) struct Known {
    pub(crate) locals: Vec<bool>,
    pub(crate) bindings: Vec<bool>,
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
    // Where the text it hands over points is rustc's borrow check.
    if snippet.ty.holds_text() {
        return Err("a borrow rustc's borrow check judges: text in the hole's value".into());
    }
    if let Some(borrow) = &snippet.references {
        let at = match &borrow.range {
            r if r.is_empty() => String::new(),
            r => format!(" (at snippet bytes {}..{})", r.start, r.end),
        };
        return Err(format!("a borrow rustc's borrow check judges: {}{at}", borrow.construct));
    }
    if let Some(doubt) = &snippet.rustc_decides {
        return Err(crate::Unsupported::at(&doubt.construct, &doubt.range).to_string());
    }
    // Moves and borrows of vectors, strings and the places loops and iterators borrow.
    crate::ownership::check(snippet)?;
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
pub(crate) fn type_determined(e: &TExpr, snippet: &TypedSnippet) -> bool {
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
        | TKind::Atomic { .. }
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
pub(crate) fn assigned_within(e: &TExpr, out: &mut Vec<usize>) {
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
pub(crate) fn assigned_more_than_once(snippet: &TypedSnippet) -> Vec<bool> {
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

/// Could rustc's const propagation know this value? Over-approximates: literals, host bindings, known locals,
/// and operations on such values.
pub(crate) fn possibly_known(e: &TExpr, known: &Known) -> bool {
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
        TKind::Some(x) | TKind::ResultOf { value: x, .. } | TKind::Field(x, _) => possibly_known(x, known),
        TKind::None => true,
        TKind::Tuple(xs) => xs.iter().all(|x| possibly_known(x, known)),
        TKind::Match { arms, .. } => arms.iter().any(|a| possibly_known(&a.body, known)),
        TKind::OptionClosure { receiver, body, .. } => possibly_known(receiver, known) || possibly_known(body, known),
        // `while`/`for` (values `()`), calls of snippet functions (the lint is intraprocedural), reads through
        // references (which rustc decides anyway): not evaluated by rustc's lint. Assignments are `()`.
        _ => false,
    }
}

pub(crate) fn mark_known_locals(block: &TBlock, known: &mut Known) {
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
pub(crate) struct Guard<'a> {
    pub(crate) snippet: &'a TypedSnippet,
    pub(crate) known: std::cell::RefCell<Known>,
    pub(crate) multi: Vec<bool>,
    /// Values rustc's lint knows exactly.
    pub(crate) values: Values,
}

/// The value of a plain integer literal (possibly negated), as rustc's lint would see it.
pub(crate) fn literal_value(e: &TExpr) -> Option<i128> {
    match &e.kind {
        TKind::Lit(Lit::Int(v)) => i128::try_from(*v).ok(),
        TKind::Unary(UnOp::Neg, inner) => literal_value(inner).map(|v| -v),
        _ => None,
    }
}

/// What is known exactly of variables: per hole binding ([`HostFacts::binding_values`]) and per snippet local
/// (declared once with a value that folds, and never assigned again).
#[derive(Default)]
pub(crate) struct Values {
    pub(crate) bindings: Vec<Option<i128>>,
    pub(crate) locals: Vec<Option<i128>>,
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
pub(crate) fn folded(e: &TExpr, values: &Values) -> Option<i128> {
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

pub(crate) fn range_of(ty: Scalar) -> Option<(i128, i128)> {
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

    /// Whether what `seq`'s elements are borrowed by is known here: a hole binding's own vector (its mode says how
    /// the host holds it), a vector the snippet owns, or a field of a struct a snippet local holds or points to.
    /// Such a local is the snippet's own value, or an element of a sequence this same rule admitted (a loop
    /// variable, an iterator's item): a reference to anything else in a local is rustc's to judge
    /// ([`TypedSnippet::references`]), and the subset's ownership check follows loans of the local.
    fn held_here(&self, seq: &Seq) -> bool {
        match seq.kind {
            SeqKind::Vec | SeqKind::Local => true,
            SeqKind::Field => {
                self.snippet.seq_places.get(seq.binding).is_some_and(|p| matches!(p.base, LocalRef::Snippet(_)))
            }
            SeqKind::RefVec | SeqKind::Slice | SeqKind::SliceLocal => false,
            // An array binding is held as a `Vec` binding is.
            SeqKind::Array(_) => true,
        }
    }

    fn expr(&self, e: &TExpr) -> Result<(), String> {
        let at = |what: &str| Err(crate::Unsupported::at(what, &e.range).to_string());
        match &e.kind {
            // Reading a sequence (an iterator's or a loop's shared loan, its length, a method that does not change
            // it) behind a reference or in a hole binding's field is allowed: the host holds no mutable loan of
            // anything a binding the snippet reads reaches (the binding would conflict with its own `addr_of!`
            // in the instrumented host and be absent, and the JIT path refuses absent bindings before asking
            // this), and the host's shared loans only conflict with changes. The snippet's own loans of it are
            // the ownership check's. Changing it, and indexing, are below.
            // Two sequences borrowed by one iterator (`zip`, `chain`): the ownership check follows one.
            TKind::Consume { chain, .. } | TKind::ForIter { chain, .. } if reads_two_sequences(chain) => {
                return at("an iterator over two sequences")
            }
            // An iterator holds its closures while it runs: one that changes a captured variable conflicts with any
            // other use of it meanwhile (E0499, E0502, E0503), which is rustc's borrow check.
            TKind::Consume { .. } | TKind::ForIter { .. } if closures_write(e) => {
                return at("an iterator closure that changes a captured variable")
            }
            // Behind a reference, what the sequence's elements are borrowed by is not in the binding's mode (the
            // host may hold a shared borrow of an element across the hole), so changing it is for rustc's borrow
            // check. (Indexing a slice is also built into MIR, where rustc might know its length.) A `for` over a
            // binding's field that reads its elements is a shared loan as an iterator's is; one that changes them
            // (`iter_mut()`, `&mut b.v`) is left to rustc by the builder (`rustc_decides`), and every change through
            // the loop variable is refused below in any case.
            TKind::SeqMethod { seq, name, .. } if name.mutates() && !self.held_here(seq) => {
                return at("a sequence behind a reference changed")
            }
            TKind::SeqWithClosure { seq, .. }
            | TKind::SortBy { seq, .. }
            | TKind::SeqIndex { seq, .. }
            | TKind::SeqStore { seq, .. }
            | TKind::StringPush { seq, .. }
                if !self.held_here(seq) =>
            {
                return at("a sequence behind a reference indexed or changed")
            }
            // Whether the host holds a borrow of what the reference points to is not in the binding's mode.
            TKind::Deref(_) | TKind::Assign { place: Place::Deref(_) | Place::ElemField(_), .. } => {
                return at("a place behind a reference")
            }
            TKind::HostField(i) | TKind::Assign { place: Place::HostField(i), .. }
                if self.snippet.fields.get(*i).is_none_or(|f| f.through_ref) =>
            {
                return at("a place behind a reference")
            }
            TKind::HostCall { receiver: Some(Receiver::Binding(r)), .. } if r.through_ref => {
                return at("a receiver behind a reference")
            }
            // Whether what the struct is read through is still valid is rustc's borrow check.
            TKind::HostCall { receiver: Some(Receiver::InPlace(_)), .. } => return at("a receiver read in place"),
            // Exhaustiveness is rustc's to judge, unless the arms plainly cover every value (`exhaustive`).
            TKind::Match { arms, .. } if !exhaustive(arms) => {
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
                            Place::Deref(_)
                            | Place::HostField(_)
                            | Place::ElemField(_)
                            | Place::Elem { .. }
                            | Place::WholeBinding(_) => true,
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

/// Whether a `match`'s unguarded arms plainly cover every value: one matches anything, or between them they
/// match both `Ok(..)` and `Err(..)`, both `Some(..)` and `None`, or both `true` and `false`, each with a
/// payload pattern that matches anything (`Ok(n)`, `Err(_)`, `Some((a, b))`). Anything finer (a host enum's
/// variants listed one by one, literals, ranges) is rustc's to judge.
fn exhaustive(arms: &[lacuna_ir::Arm]) -> bool {
    #[derive(PartialEq)]
    enum Covers {
        All,
        Ok,
        Err,
        Some,
        None,
        Bool(bool),
    }
    fn alternatives<'p>(pat: &'p TPat, out: &mut Vec<&'p TPat>) {
        match pat {
            TPat::Or(ps) => ps.iter().for_each(|p| alternatives(p, out)),
            p => out.push(p),
        }
    }
    let mut covered = Vec::new();
    for arm in arms.iter().filter(|a| a.guard.is_none()) {
        let mut alts = Vec::new();
        alternatives(&arm.pat, &mut alts);
        covered.extend(alts.into_iter().filter_map(|p| match p {
            p if irrefutable(p) => Some(Covers::All),
            TPat::Ok(inner) if irrefutable(inner) => Some(Covers::Ok),
            TPat::Err(inner) if irrefutable(inner) => Some(Covers::Err),
            TPat::Some(inner) if irrefutable(inner) => Some(Covers::Some),
            TPat::None => Some(Covers::None),
            TPat::Lit { lit: Lit::Bool(b), .. } => Some(Covers::Bool(*b)),
            _ => None,
        }));
    }
    let has = |c: Covers| covered.contains(&c);
    has(Covers::All)
        || (has(Covers::Ok) && has(Covers::Err))
        || (has(Covers::Some) && has(Covers::None))
        || (has(Covers::Bool(true)) && has(Covers::Bool(false)))
}
