//! Control flow: blocks, `if`, loops, `break`/`continue`, patterns and `match`.

use crate::codegen::arith::{is_zero, remainder_by_power_of_two};
use crate::codegen::scopes::Cleanup;
use crate::codegen::{clif, flat, tuple_fields, CodegenError, Gen, Vals, R};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, BlockArg, MemFlags, Type, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{Arm, BinOp, Lit, LocalRef, Scalar, Seq, TBlock, TExpr, TKind, TPat, TStmt, Ty, VariantField};

pub(super) struct LoopCtx {
    pub(super) label: Option<String>,
    /// Where `continue` goes.
    pub(super) next: cranelift_codegen::ir::Block,
    pub(super) exit: cranelift_codegen::ir::Block,
    /// The exit block's parameter types, for `break value` out of `loop` or a labelled block.
    pub(super) value: Vec<Type>,
    /// A labelled block: only a `break` naming it leaves it.
    pub(super) is_block: bool,
    /// The scopes a `break` to it leaves ([`Gen::leave_scopes`]): those from this depth on.
    pub(super) break_leaves: usize,
    /// The scopes a `continue` to it leaves.
    pub(super) continue_leaves: usize,
}

/// A loop condition made only of literals, locals, hole bindings and their scalar fields, and operators on them:
/// code that can be generated twice ([`Gen::while_loop`]) with nothing but its instructions repeated.
fn plain_condition(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Lit(_) | TKind::Local(_) | TKind::Deref(_) | TKind::HostField(_) => true,
        TKind::Unary(_, x) | TKind::Cast(x) => plain_condition(x),
        TKind::Binary(_, l, r) => plain_condition(l) && plain_condition(r),
        _ => false,
    }
}

/// `(x, true)` for a condition `x % 2 == 0` on a local `x` (it is even where the condition holds), `(x, false)`
/// for `!= 0` (even where it does not).
pub(super) fn parity_test(cond: &TExpr) -> Option<(LocalRef, bool)> {
    let TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r) = &cond.kind else { return None };
    let (x, 1) = remainder_by_power_of_two(l)? else { return None };
    let TKind::Local(x) = x.kind else { return None };
    is_zero(r).then_some((x, *op == BinOp::Eq))
}

impl Gen<'_, '_> {
    /// `x == 0` (`true`) or `x != 0` (`false`), either way round, of an integer local that cannot change: one the
    /// snippet declares without `mut` (a function's parameter, a `let`).
    fn zero_test(&self, cond: &TExpr) -> Option<(LocalRef, bool)> {
        let TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r) = &cond.kind else { return None };
        let x = match (&l.kind, &r.kind) {
            (TKind::Local(x), _) if is_zero(r) => *x,
            (_, TKind::Local(x)) if is_zero(l) => *x,
            _ => return None,
        };
        let LocalRef::Snippet(id) = x else { return None };
        let local = self.snippet.locals.get(id)?;
        (!local.mutable && local.ty.scalar().is_some_and(|s| s.is_int())).then_some((x, *op == BinOp::Eq))
    }

    /// Whether `e` is a local an `if` around it found not zero ([`Gen::nonzero`]).
    pub(super) fn known_nonzero(&self, e: &TExpr) -> bool {
        matches!(e.kind, TKind::Local(x) if self.nonzero.contains(&x))
    }
}

/// The arms of an `if` (their tail expressions) when computing both and selecting one is cheaper than branching:
/// each a few integer operations on locals and literals, with no effect but the arithmetic faults that
/// [`Gen::fault_if_with`] guards, and nothing that traps in the machine (a division only by a literal other than
/// zero and -1).
pub(super) fn arms_without_branches<'e>(
    then: &'e TBlock,
    otherwise: Option<&'e TExpr>,
) -> Option<(&'e TExpr, &'e TExpr)> {
    fn tail(b: &TBlock) -> Option<&TExpr> {
        (b.stmts.is_empty() && b.label.is_none()).then_some(b.tail.as_deref()?)
    }
    fn cheap(e: &TExpr, budget: &mut u32) -> bool {
        let int = |e: &TExpr| {
            e.ty.scalar()
                .is_some_and(|s| s.int_bits().is_some_and(|b| b <= 64) || matches!(s, Scalar::Bool | Scalar::Char))
        };
        if *budget == 0 || !int(e) {
            return false;
        }
        *budget -= 1;
        match &e.kind {
            TKind::Lit(_) | TKind::Local(_) => true,
            TKind::Unary(_, x) | TKind::Cast(x) => cheap(x, budget),
            TKind::Block(b) => tail(b).is_some_and(|x| cheap(x, budget)),
            TKind::Binary(BinOp::And | BinOp::Or, ..) => false,
            TKind::Binary(BinOp::Div | BinOp::Rem, l, r) => {
                matches!(r.kind, TKind::Lit(Lit::Int(k)) if k >= 1) && cheap(l, budget) && cheap(r, budget)
            }
            TKind::Binary(_, l, r) => cheap(l, budget) && cheap(r, budget),
            _ => false,
        }
    }
    let then = tail(then)?;
    let otherwise = match &otherwise?.kind {
        TKind::Block(b) => tail(b)?,
        _ => return None,
    };
    let mut budget = 8;
    (cheap(then, &mut budget) && cheap(otherwise, &mut budget)).then_some((then, otherwise))
}

impl<'a, 'b> Gen<'a, 'b> {
    pub(super) fn block(&mut self, block: &TBlock) -> R<Vals> {
        if block.label.is_none() {
            return self.block_inner(block);
        }
        // A labelled block: `break 'label value` jumps to its exit with the value.
        let exit = self.b.create_block();
        let ts = block.ty.as_ref().map(flat).unwrap_or_default();
        for &t in &ts {
            self.b.append_block_param(exit, t);
        }
        let depth = self.scopes.len();
        let ctx = LoopCtx {
            label: block.label.clone(),
            next: exit,
            exit,
            value: ts.clone(),
            is_block: true,
            break_leaves: depth,
            continue_leaves: depth,
        };
        self.loops.push(ctx);
        let v = self.block_inner(block);
        self.loops.pop();
        let v = v?;
        self.jump_with(exit, &ts, v);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(self.b.block_params(exit).to_vec())
    }

    pub(super) fn block_inner(&mut self, block: &TBlock) -> R<Vals> {
        self.open_scope();
        let value = self.block_statements(block);
        // On an error the scope is abandoned with the function being generated.
        let value = value?;
        // The block's own locals that still own their values are dropped here, last declared first.
        self.close_scope()?;
        Ok(value)
    }

    fn block_statements(&mut self, block: &TBlock) -> R<Vals> {
        for stmt in &block.stmts {
            match stmt {
                TStmt::Let { local, init } => {
                    let v = match init {
                        Some(init) => self.expr(init)?,
                        // `let x;`: rustc proved every use comes after an assignment.
                        None => Vec::new(),
                    };
                    self.declare(*local, v);
                    self.on_scope_end(Cleanup::Local(*local));
                }
                TStmt::LetPat { pat, init, otherwise } => {
                    let v = self.expr(init)?;
                    if let Some(otherwise) = otherwise {
                        let matched = self.test_pat(pat, &init.ty, &v);
                        let bind = self.b.create_block();
                        let other = self.b.create_block();
                        self.b.ins().brif(matched, bind, &[], other, &[]);
                        self.b.switch_to_block(other);
                        self.b.seal_block(other);
                        // The `else` block diverges.
                        self.block(otherwise)?;
                        self.b.ins().jump(bind, &[]);
                        self.b.switch_to_block(bind);
                        self.b.seal_block(bind);
                    }
                    self.bind_pat(pat, &init.ty, &v)?;
                    // What the pattern took (`let Ok(x) = call() else { .. }`: the payload `x` took).
                    self.record_pattern_drops(pat);
                }
                TStmt::Expr(e) => {
                    self.expr(e)?;
                }
            }
        }
        match &block.tail {
            Some(t) => self.expr(t),
            None => Ok(Vec::new()),
        }
    }

    /// Whether `values` (of type `ty`) match `pat`: a `bool` value.
    pub(super) fn test_pat(&mut self, pat: &TPat, ty: &Ty, values: &[Value]) -> Value {
        match (pat, ty) {
            (TPat::Wild | TPat::Bind(_), _) => self.b.ins().iconst(types::I8, 1),
            (TPat::Variant { adt, index, fields }, Ty::Struct(_) | Ty::StructRef(_)) => {
                let Some(&p) = values.first() else { return self.b.ins().iconst(types::I8, 0) };
                let Some(variant) = self.enum_call(*adt, false, &[p]) else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                let is = self.b.ins().icmp_imm(IntCC::Equal, variant, i64::from(*index));
                let refutable: Vec<&VariantField> =
                    fields.iter().filter(|f| !matches!(f.pat, TPat::Wild | TPat::Bind(_))).collect();
                if refutable.is_empty() {
                    return is;
                }
                // The fields are read (and tested) only in the variant they belong to.
                self.when(is, |g| {
                    let mut all = g.b.ins().iconst(types::I8, 1);
                    for f in refutable {
                        let number = g.b.ins().iconst(types::I32, i64::from(f.number));
                        let (Some(address), Some(t)) =
                            (g.enum_call(*adt, true, &[p, number]), f.ty.scalar().and_then(clif))
                        else {
                            continue;
                        };
                        let v = g.b.ins().load(t, MemFlags::trusted(), address, 0);
                        let ok = g.test_pat(&f.pat, &f.ty, &[v]);
                        all = g.b.ins().band(all, ok);
                    }
                    all
                })
            }
            (TPat::Lit { lit, negative }, Ty::Scalar(s)) => {
                let (Some(&v), Some(k)) = (values.first(), self.lit(lit, *s, *negative)) else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                self.b.ins().icmp(IntCC::Equal, v, k)
            }
            (TPat::Range { lo, hi, inclusive }, Ty::Scalar(s)) => {
                let Some(&v) = values.first() else { return self.b.ins().iconst(types::I8, 0) };
                let signed = s.is_signed();
                let mut ok = self.b.ins().iconst(types::I8, 1);
                if let Some((lit, negative)) = lo {
                    if let Some(k) = self.lit(lit, *s, *negative) {
                        let cc =
                            if signed { IntCC::SignedGreaterThanOrEqual } else { IntCC::UnsignedGreaterThanOrEqual };
                        let c = self.b.ins().icmp(cc, v, k);
                        ok = self.b.ins().band(ok, c);
                    }
                }
                if let Some((lit, negative)) = hi {
                    if let Some(k) = self.lit(lit, *s, *negative) {
                        let cc = match (signed, inclusive) {
                            (true, true) => IntCC::SignedLessThanOrEqual,
                            (true, false) => IntCC::SignedLessThan,
                            (false, true) => IntCC::UnsignedLessThanOrEqual,
                            (false, false) => IntCC::UnsignedLessThan,
                        };
                        let c = self.b.ins().icmp(cc, v, k);
                        ok = self.b.ins().band(ok, c);
                    }
                }
                ok
            }
            (TPat::Or(alternatives), ty) => {
                let mut any = self.b.ins().iconst(types::I8, 0);
                for alternative in alternatives {
                    let m = self.test_pat(alternative, ty, values);
                    any = self.b.ins().bor(any, m);
                }
                any
            }
            (TPat::Some(inner), Ty::Option(payload)) => {
                let Some((&tag, payload_values)) = values.split_first() else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                self.test_when(tag, inner, payload, payload_values)
            }
            (TPat::Ok(inner) | TPat::Err(inner), Ty::Result(ok, err)) => {
                let Some((tag, okv, errv)) = super::result::split(ok, values) else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                let (okv, errv) = (okv.to_vec(), errv.to_vec());
                if matches!(pat, TPat::Ok(_)) {
                    self.test_when(tag, inner, ok, &okv)
                } else {
                    let is_err = self.b.ins().bxor_imm(tag, 1);
                    self.test_when(is_err, inner, err, &errv)
                }
            }
            (TPat::None, Ty::Option(_)) => match values.first() {
                Some(&tag) => self.b.ins().bxor_imm(tag, 1),
                None => self.b.ins().iconst(types::I8, 0),
            },
            (TPat::Tuple(elems), Ty::Tuple(parts)) => {
                let mut all = self.b.ins().iconst(types::I8, 1);
                for ((elem, part), vs) in elems.iter().zip(parts).zip(tuple_fields(parts, values)) {
                    let m = self.test_pat(elem, part, vs);
                    all = self.b.ins().band(all, m);
                }
                all
            }
            // The lowering admits no other combination.
            _ => self.b.ins().iconst(types::I8, 0),
        }
    }

    /// `cond && test`, `test` (a `bool` value) computed only where `cond` holds.
    pub(super) fn when(&mut self, cond: Value, test: impl FnOnce(&mut Self) -> Value) -> Value {
        let check = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I8);
        self.b.ins().brif(cond, check, &[], done, &[cond.into()]);
        self.b.switch_to_block(check);
        self.b.seal_block(check);
        let matched = test(self);
        self.b.ins().jump(done, &[matched.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        self.b.block_params(done)[0]
    }

    /// Binds the names of `pat` (which matched) to the parts of `values`.
    pub(super) fn bind_pat(&mut self, pat: &TPat, ty: &Ty, values: &[Value]) -> R<()> {
        match (pat, ty) {
            (TPat::Bind(local), _) => self.declare(*local, values.to_vec()),
            (TPat::Variant { adt, fields, .. }, Ty::Struct(_) | Ty::StructRef(_)) => {
                let Some(&p) = values.first() else { return Ok(()) };
                for f in fields {
                    let TPat::Bind(local) = f.pat else { continue };
                    let number = self.b.ins().iconst(types::I32, i64::from(f.number));
                    let Some(address) = self.enum_call(*adt, true, &[p, number]) else { continue };
                    let v = match &f.ty {
                        Ty::Str => self.text_at(address)?,
                        // Moved out by value: a copy of the text the binding owns (the field itself is dropped
                        // with the rest of the value).
                        Ty::String => {
                            let [data, len] = self.text_at(address)?[..] else { continue };
                            self.owned_copy(data, len, types::I8, f.at)?
                        }
                        ty => {
                            let Some(t) = ty.scalar().and_then(clif) else { continue };
                            vec![self.b.ins().load(t, MemFlags::trusted(), address, 0)]
                        }
                    };
                    self.declare(local, v);
                }
            }
            (TPat::Some(inner), Ty::Option(payload)) => {
                if let Some((_, payload_values)) = values.split_first() {
                    self.bind_pat(inner, payload, payload_values)?;
                }
            }
            (TPat::Ok(inner), Ty::Result(ok, _)) => {
                if let Some((_, okv, _)) = super::result::split(ok, values) {
                    self.bind_pat(inner, ok, okv)?;
                }
            }
            (TPat::Err(inner), Ty::Result(ok, err)) => {
                if let Some((_, _, errv)) = super::result::split(ok, values) {
                    self.bind_pat(inner, err, errv)?;
                }
            }
            (TPat::Tuple(elems), Ty::Tuple(parts)) => {
                for ((elem, part), vs) in elems.iter().zip(parts).zip(tuple_fields(parts, values)) {
                    self.bind_pat(elem, part, vs)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Where a `match` arm ends (or is left early): what `pat` moved into its bindings and they did not move on —
    /// the `String` fields copied out of a host enum's variant, the `String` of an `Option<String>` (`Some(name)`),
    /// an `Ok`/`Err` payload bound by name — and what it took from a scrutinee that is not a local (of type `ty`,
    /// its parts `values`) and bound to no name.
    pub(super) fn end_arm(&mut self, pat: &TPat, ty: &Ty, scrutinee_local: bool, values: &[Value]) -> R<()> {
        pat.field_copies().into_iter().try_for_each(|local| self.drop_local(local))?;
        if let TPat::Some(inner) = pat {
            if let TPat::Bind(local) = &**inner {
                self.drop_local(*local)?;
            }
        }
        if let Ty::Result(ok, err) = ty {
            self.end_result_arm(pat, ok, err, values, scrutinee_local)?;
        }
        self.end_owned_option_arm(pat, ty, scrutinee_local, values);
        Ok(())
    }

    /// Where an arm of a `match` on an `Option<String>` that is not a local ends: the text no pattern took is
    /// dropped with the scrutinee (a local's is the local's, dropped where its scope ends).
    fn end_owned_option_arm(&mut self, pat: &TPat, ty: &Ty, scrutinee_local: bool, values: &[Value]) {
        let taken = matches!(pat, TPat::Some(inner) if matches!(**inner, TPat::Bind(_)));
        if taken || scrutinee_local || !self.has_heap {
            return;
        }
        if let (Ty::Option(payload), [_, rest @ ..]) = (ty, values) {
            if lacuna_lowering::owned_option(ty) {
                self.drop_payload(payload, rest);
            }
        }
    }

    /// The body of a `while` or `loop` whose header (`next`) is the current loop head: then back to the header,
    /// and on at the exit.
    pub(super) fn loop_body(&mut self, ctx: LoopCtx, body: &TBlock) -> R<()> {
        let (header, exit) = (ctx.next, ctx.exit);
        self.loops.push(ctx);
        self.block(body)?;
        self.loops.pop();
        self.b.ins().jump(header, &[]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// The body of a loop that tests at its bottom: `continue` goes to `latch`, and so does the body's end; then
    /// `latch` is the current block, for the test.
    fn body_to_latch(
        &mut self,
        label: &Option<String>,
        latch: cranelift_codegen::ir::Block,
        exit: cranelift_codegen::ir::Block,
        body: &TBlock,
        var_scope: bool,
    ) -> R<()> {
        let depth = self.scopes.len();
        self.loops.push(LoopCtx {
            label: label.clone(),
            next: latch,
            exit,
            value: Vec::new(),
            is_block: false,
            break_leaves: depth.saturating_sub(usize::from(var_scope)),
            continue_leaves: depth,
        });
        self.block(body)?;
        self.loops.pop();
        self.b.ins().jump(latch, &[]);
        self.b.switch_to_block(latch);
        self.b.seal_block(latch);
        Ok(())
    }

    /// A loop's context, entered where code is being generated now.
    pub(super) fn loop_ctx(
        &self,
        label: &Option<String>,
        next: cranelift_codegen::ir::Block,
        exit: cranelift_codegen::ir::Block,
        value: Vec<Type>,
    ) -> LoopCtx {
        let depth = self.scopes.len();
        LoopCtx {
            label: label.clone(),
            next,
            exit,
            value,
            is_block: false,
            break_leaves: depth,
            continue_leaves: depth,
        }
    }

    pub(super) fn find_loop(&self, label: &Option<String>) -> R<usize> {
        match label {
            None => self.loops.iter().rposition(|c| !c.is_block),
            Some(l) => self.loops.iter().rposition(|c| c.label.as_ref() == Some(l)),
        }
        .ok_or_else(|| CodegenError("`break` or `continue` without its loop".into()))
    }

    pub(super) fn jump_with(&mut self, target: cranelift_codegen::ir::Block, ts: &[Type], values: Vals) {
        let values = self.fill(values, ts);
        let args: Vec<BlockArg> = values.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(target, &args);
    }

    /// A block where branches meet with values of types `ts`.
    pub(super) fn merge_block(&mut self, ts: &[Type]) -> cranelift_codegen::ir::Block {
        let merge = self.b.create_block();
        for &t in ts {
            self.b.append_block_param(merge, t);
        }
        merge
    }

    /// Continues at `merge` (every branch into it emitted): its values.
    pub(super) fn enter_merge(&mut self, merge: cranelift_codegen::ir::Block) -> Vals {
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        self.b.block_params(merge).to_vec()
    }

    /// `for var in start..end` over integers ([`TKind::For`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_range(
        &mut self,
        e: &TExpr,
        label: &Option<String>,
        var: usize,
        start: &TExpr,
        end: &TExpr,
        inclusive: bool,
        body: &TBlock,
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            let ty = self.snippet.locals[var].ty.s();
            let t = clif(ty).ok_or_else(|| CodegenError("`for` variable".into()))?;
            let s = self.one(start)?;
            let end_v = self.one(end)?;
            let counter = self.b.declare_var(t);
            self.b.def_var(counter, s);
            let header = self.b.create_block();
            let body_block = self.b.create_block();
            let latch = self.b.create_block();
            let exit = self.b.create_block();
            self.b.ins().jump(header, &[]);
            self.b.switch_to_block(header);
            let i = self.b.use_var(counter);
            let (lt, le) = if ty.is_signed() {
                (IntCC::SignedLessThan, IntCC::SignedLessThanOrEqual)
            } else {
                (IntCC::UnsignedLessThan, IntCC::UnsignedLessThanOrEqual)
            };
            let go = self.b.ins().icmp(if inclusive { le } else { lt }, i, end_v);
            self.b.ins().brif(go, body_block, &[], exit, &[]);
            self.b.switch_to_block(body_block);
            self.b.seal_block(body_block);
            self.tick(at);
            let loop_var = self.b.declare_var(t);
            let i = self.b.use_var(counter);
            self.b.def_var(loop_var, i);
            self.vars.insert(var, vec![loop_var]);
            self.body_to_latch(label, latch, exit, body, false)?;
            let i = self.b.use_var(counter);
            if inclusive {
                // `..=end` stops after `end` without computing `end + 1` (which may not exist).
                let last = self.b.ins().icmp(IntCC::Equal, i, end_v);
                let step = self.b.create_block();
                self.b.ins().brif(last, exit, &[], step, &[]);
                self.b.switch_to_block(step);
                self.b.seal_block(step);
            }
            let i = self.b.use_var(counter);
            let next = self.b.ins().iadd_imm(i, 1);
            self.b.def_var(counter, next);
            self.b.ins().jump(header, &[]);
            self.b.seal_block(header);
            self.b.switch_to_block(exit);
            self.b.seal_block(exit);
            None
        };
        Ok(value.into_iter().collect())
    }

    /// `for x in v.iter()` over a sequence binding ([`TKind::ForSeq`]).
    pub(super) fn for_seq(
        &mut self,
        e: &TExpr,
        label: &Option<String>,
        var: usize,
        seq: &Seq,
        body: &TBlock,
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            // A slice iterator: the buffer and length as the loop starts (the body cannot change them).
            let (data, len) = self.seq_parts(seq)?;
            let counter = self.b.declare_var(types::I64);
            let zero = self.b.ins().iconst(types::I64, 0);
            self.b.def_var(counter, zero);
            let header = self.b.create_block();
            let body_block = self.b.create_block();
            let latch = self.b.create_block();
            let exit = self.b.create_block();
            self.b.ins().jump(header, &[]);
            self.b.switch_to_block(header);
            let k = self.b.use_var(counter);
            let go = self.b.ins().icmp(IntCC::UnsignedLessThan, k, len);
            self.b.ins().brif(go, body_block, &[], exit, &[]);
            self.b.switch_to_block(body_block);
            self.b.seal_block(body_block);
            self.tick(at);
            let k = self.b.use_var(counter);
            let mut element = self.element_at(seq.elem, data, k)?;
            // A `String` taken by value from a vector the loop consumes: a copy the variable owns for the pass
            // (the lowering admits no other variable whose type differs from the element read in place).
            let var_ty = self.snippet.locals[var].ty.clone();
            let by_value = var_ty == Ty::String && seq.elem.read_ty() == Ty::Str;
            if let (true, &[text, len]) = (by_value, &element[..]) {
                element = self.owned_copy(text, len, types::I8, at)?;
            }
            let ts = flat(&var_ty);
            let loop_vars: Vec<Variable> = ts.iter().zip(element).map(|(&t, v)| self.var(t, v)).collect();
            self.vars.insert(var, loop_vars);
            // The pass's copy, unless the body moved it on: dropped where the pass ends (a `continue` goes there
            // too), or on a `break` out of the loop.
            self.set_flag(var, by_value);
            self.open_scope();
            if by_value {
                self.on_scope_end(Cleanup::Local(var));
            }
            self.body_to_latch(label, latch, exit, body, true)?;
            self.scopes.pop();
            if by_value {
                self.drop_local(var)?;
            }
            let k = self.b.use_var(counter);
            let next = self.b.ins().iadd_imm(k, 1);
            self.b.def_var(counter, next);
            self.b.ins().jump(header, &[]);
            self.b.seal_block(header);
            self.b.switch_to_block(exit);
            self.b.seal_block(exit);
            None
        };
        Ok(value.into_iter().collect())
    }

    /// `if` (branch-free when both arms are a few pure integer operations) ([`TKind::If`]).
    pub(super) fn if_else(
        &mut self,
        e: &TExpr,
        cond: &TExpr,
        then: &TBlock,
        otherwise: &Option<Box<TExpr>>,
    ) -> R<Vals> {
        let c = self.one(cond)?;
        if let Some((then, otherwise)) = arms_without_branches(then, otherwise.as_deref()) {
            // Both arms computed, the taken one selected: no branch to mispredict on data-dependent
            // conditions (what LLVM does with `cmov`); each arm's faults guarded by whether it is taken.
            let taken = self.b.ins().icmp_imm(IntCC::NotEqual, c, 0);
            let not_taken = self.b.ins().bxor_imm(taken, 1);
            let (even_then, even_else) = match parity_test(cond) {
                Some((local, true)) => (Some(local), None),
                Some((local, false)) => (None, Some(local)),
                None => (None, None),
            };
            (self.guard, self.even) = (Some(taken), even_then);
            let tv = self.one(then);
            (self.guard, self.even) = (Some(not_taken), even_else);
            let ev = self.one(otherwise);
            (self.guard, self.even) = (None, None);
            return Ok(vec![self.b.ins().select(taken, tv?, ev?)]);
        }
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        let ts = flat(&e.ty);
        let merge = self.merge_block(&ts);
        self.b.ins().brif(c, then_block, &[], else_block, &[]);
        self.b.switch_to_block(then_block);
        self.b.seal_block(then_block);
        // A local the condition tests against zero is known not to be in the arm where it is not.
        let tested = self.zero_test(cond);
        let known = self.nonzero.len();
        if let Some((x, false)) = tested {
            self.nonzero.push(x);
        }
        let tv = self.block(then);
        self.nonzero.truncate(known);
        self.jump_with(merge, &ts, tv?);
        self.b.switch_to_block(else_block);
        self.b.seal_block(else_block);
        if let Some((x, true)) = tested {
            self.nonzero.push(x);
        }
        let ev = match otherwise {
            Some(o) => self.expr(o),
            None => Ok(Vec::new()),
        };
        self.nonzero.truncate(known);
        let ev = ev?;
        self.jump_with(merge, &ts, ev);
        Ok(self.enter_merge(merge))
    }

    /// `match`, and what `if let` and `while let` mean ([`TKind::Match`]).
    pub(super) fn match_expr(&mut self, e: &TExpr, scrutinee: &TExpr, arms: &[Arm]) -> R<Vals> {
        let at = e.range.start;
        let values = self.expr(scrutinee)?;
        let ts = flat(&e.ty);
        let merge = self.merge_block(&ts);
        for arm in arms {
            let matched = self.test_pat(&arm.pat, &scrutinee.ty, &values);
            let bind = self.b.create_block();
            let next = self.b.create_block();
            self.b.ins().brif(matched, bind, &[], next, &[]);
            self.b.switch_to_block(bind);
            self.b.seal_block(bind);
            self.bind_pat(&arm.pat, &scrutinee.ty, &values)?;
            if let Some(guard) = &arm.guard {
                let holds = self.one(guard)?;
                let body = self.b.create_block();
                self.b.ins().brif(holds, body, &[], next, &[]);
                self.b.switch_to_block(body);
                self.b.seal_block(body);
            }
            self.open_scope();
            self.on_scope_end(Cleanup::Arm {
                pat: arm.pat.clone(),
                scrutinee_ty: scrutinee.ty.clone(),
                scrutinee_local: matches!(scrutinee.kind, TKind::Local(_)),
                values: values.clone(),
            });
            let v = self.expr(&arm.body)?;
            self.close_scope()?;
            self.jump_with(merge, &ts, v);
            self.b.switch_to_block(next);
            self.b.seal_block(next);
        }
        // No arm matched: impossible for a `match` rustc (or a final catch-all arm) made exhaustive.
        self.panic_with("internal error: entered unreachable code", at);
        self.jump_with(merge, &ts, Vec::new());
        Ok(self.enter_merge(merge))
    }

    /// A call of a function declared in the snippet ([`TKind::Call`]).
    pub(super) fn call(&mut self, function: usize, args: &[TExpr]) -> R<Vals> {
        let mut values = vec![self.ctx];
        for a in args {
            values.extend(self.expr(a)?);
        }
        self.store_fuel();
        let call = self.b.ins().call(self.funcs[function], &values);
        let results = self.b.inst_results(call).to_vec();
        self.load_fuel();
        let failed = self.b.ins().icmp_imm(IntCC::NotEqual, results[0], 0);
        let fail_block = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(failed, fail_block, &[], cont, &[]);
        self.b.switch_to_block(fail_block);
        self.b.seal_block(fail_block);
        self.return_fault();
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        Ok(results[1..].to_vec())
    }

    /// `&&` and `||`: the right operand only when the left does not decide.
    pub(super) fn short_circuit(&mut self, e: &TExpr, l: &TExpr, r: &TExpr) -> R<Vals> {
        let value: Option<Value> = {
            let is_and = matches!(e.kind, TKind::Binary(BinOp::And, ..));
            let lv = self.one(l)?;
            let rhs_block = self.b.create_block();
            let merge = self.b.create_block();
            self.b.append_block_param(merge, types::I8);
            if is_and {
                self.b.ins().brif(lv, rhs_block, &[], merge, &[BlockArg::Value(lv)]);
            } else {
                self.b.ins().brif(lv, merge, &[BlockArg::Value(lv)], rhs_block, &[]);
            }
            self.b.switch_to_block(rhs_block);
            self.b.seal_block(rhs_block);
            let rv = self.one(r)?;
            self.b.ins().jump(merge, &[BlockArg::Value(rv)]);
            self.b.switch_to_block(merge);
            self.b.seal_block(merge);
            Some(self.b.block_params(merge)[0])
        };
        Ok(value.into_iter().collect())
    }

    /// `while cond { body }` ([`TKind::While`]). A condition of plain operations on values at hand
    /// ([`plain_condition`]) is generated twice, before the loop and after the body, so an iteration takes one
    /// branch back rather than a jump to a test at the top and a branch into the body; any other condition is
    /// tested at the top.
    pub(super) fn while_loop(&mut self, e: &TExpr, label: &Option<String>, cond: &TExpr, body: &TBlock) -> R<Vals> {
        let at = e.range.start;
        let body_block = self.b.create_block();
        let exit = self.b.create_block();
        if !plain_condition(cond) {
            let header = self.b.create_block();
            self.b.ins().jump(header, &[]);
            self.b.switch_to_block(header);
            let c = self.one(cond)?;
            self.b.ins().brif(c, body_block, &[], exit, &[]);
            self.b.switch_to_block(body_block);
            self.b.seal_block(body_block);
            self.tick(at);
            let ctx = self.loop_ctx(label, header, exit, Vec::new());
            self.loop_body(ctx, body)?;
            return Ok(Vec::new());
        }
        let latch = self.b.create_block();
        let c = self.one(cond)?;
        self.b.ins().brif(c, body_block, &[], exit, &[]);
        self.b.switch_to_block(body_block);
        self.tick(at);
        self.body_to_latch(label, latch, exit, body, false)?;
        let c = self.one(cond)?;
        self.b.ins().brif(c, body_block, &[], exit, &[]);
        self.b.seal_block(body_block);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(Vec::new())
    }

    /// `loop { body }` ([`TKind::Loop`]).
    pub(super) fn loop_expr(&mut self, e: &TExpr, label: &Option<String>, body: &TBlock) -> R<Vals> {
        let at = e.range.start;
        let header = self.b.create_block();
        let ts = flat(&e.ty);
        let exit = self.b.create_block();
        for &t in &ts {
            self.b.append_block_param(exit, t);
        }
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        self.tick(at);
        let ctx = self.loop_ctx(label, header, exit, ts);
        self.loop_body(ctx, body)?;
        Ok(self.b.block_params(exit).to_vec())
    }
}
