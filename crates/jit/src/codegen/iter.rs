//! Iterator chains: a source, its adaptors and its consumer fused into one loop.

use crate::abi::Fault;
use crate::abi::PiecesMode;
use crate::codegen::seq::VecHome;
use crate::codegen::{clif, flat, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, StackSlotData, StackSlotKind, Type, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{BinOp, Closure, Elem, IterChain, IterSource, Pieces, Scalar, Sink, Stage, Ty};

/// An iterator source's state in a [`Gen::drive`] loop.
#[derive(Clone)]
pub(super) enum Src {
    Range {
        t: Type,
        signed: bool,
        counter: Variable,
        end: Option<Value>,
        inclusive: bool,
        done: Variable,
        start: Value,
    },
    /// The buffer and length as the loop starts (nothing in the loop can change the binding).
    Seq { elem: Elem, data: Value, index: Variable, len: Value },
    /// `windows(size)` or `chunks(size)` of a sequence: slices of `size` elements from `index` on.
    Runs { elem_size: i64, data: Value, len: Value, size: Value, index: Variable, chunks: bool },
    /// Text, decoded by a helper from a (front, back) byte position pair in a stack slot.
    Chars { data: Value, state: Value },
    /// Pieces of text, cut by a helper ([`crate::rt::text::helper_next_piece`]) keeping its state in a stack slot.
    Pieces { data: Value, state: Value, how: Value, pat: Value, pat_len: Value },
    /// `first.chain(second)`: `first` until it is exhausted (`in_second`), then `second`; items of type `ty`.
    Chain { first: Box<Src>, first_rev: bool, second: Box<Src>, second_rev: bool, in_second: Variable, ty: Ty },
}

impl<'a, 'b> Gen<'a, 'b> {
    /// Runs an iterator chain as one loop: `each` gets every item the chain yields, and the blocks to jump to for
    /// the next item and out of the loop (it may end the current block with either, or fall through). Adaptor
    /// arguments are evaluated first, in order, as Rust builds the adaptors before iterating.
    pub(super) fn drive(
        &mut self,
        chain: &IterChain,
        at: usize,
        each: &mut dyn FnMut(&mut Self, Vals, cranelift_codegen::ir::Block, cranelift_codegen::ir::Block) -> R<()>,
    ) -> R<()> {
        // `flat_map`: a loop over the chain up to it, and inside, for each of its items, a loop over the inner
        // chain and the (element-wise) stages after it; ending early leaves both.
        if let Some(k) = chain.stages.iter().position(|(s, _)| matches!(s, Stage::FlatMap(_))) {
            let Stage::FlatMap(fm) = &chain.stages[k].0 else { unreachable!("found above") };
            let outer = IterChain {
                source: chain.source.clone(),
                stages: chain.stages[..k].to_vec(),
                range: chain.range.clone(),
            };
            let mut inner = fm.inner.clone();
            inner.stages.extend(chain.stages[k + 1..].iter().cloned());
            let outer_item = outer.item();
            let [param] = &fm.params[..] else { return Err(CodegenError("a `flat_map` closure's parameters".into())) };
            return self.drive(&outer, at, &mut |g, item, _, exit| {
                g.bind_pat(param, &outer_item, &item)?;
                g.drive(&inner, at, &mut |g, item, next, _| each(g, item, next, exit))
            });
        }
        let reversed = chain.stages.iter().any(|(s, _)| matches!(s, Stage::Rev));
        let src = self.open_source(&chain.source, reversed)?;
        // Adaptor state: counters and limits, and the sources `zip` pairs with.
        let mut state: Vec<Option<(Variable, Option<Value>)>> = Vec::new();
        let mut zipped: Vec<Src> = Vec::new();
        for (stage, _) in &chain.stages {
            state.push(match stage {
                Stage::Take(n) | Stage::Skip(n) => {
                    let n = self.one(n)?;
                    let zero = self.int_const(types::I64, 0);
                    Some((self.var(types::I64, zero), Some(n)))
                }
                Stage::Enumerate => {
                    let zero = self.int_const(types::I64, 0);
                    Some((self.var(types::I64, zero), None))
                }
                Stage::SkipWhile(_) => {
                    let one = self.int_const(types::I8, 1);
                    Some((self.var(types::I8, one), None))
                }
                _ => None,
            });
            if let Stage::Zip(other) = stage {
                zipped.push(self.open_source(other, false)?);
            }
        }
        let mut zipped = zipped.into_iter();
        let header = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        self.tick(at);
        // An exhausted `take` yields nothing more, without pulling from what is before it.
        for ((stage, _), st) in chain.stages.iter().zip(&state) {
            if let (Stage::Take(_), Some((taken, Some(n)))) = (stage, st) {
                let taken = self.b.use_var(*taken);
                let room = self.b.ins().icmp(IntCC::UnsignedLessThan, taken, *n);
                self.continue_if(room, exit);
            }
        }
        // The source's next item.
        let mut item = self.next_item(&src, reversed, exit, at)?;
        // The adaptors, in order.
        let mut item_ty = chain.source.item();
        for ((stage, ty), st) in chain.stages.iter().zip(&state) {
            match stage {
                Stage::Map(c) => {
                    self.bind_params(c, &[(&item_ty, &item)])?;
                    item = self.expr(&c.body)?;
                }
                Stage::Filter(c) => {
                    self.bind_params(c, &[(&item_ty, &item)])?;
                    let keep = self.one(&c.body)?;
                    self.continue_if(keep, header);
                }
                Stage::FilterMap(c) => {
                    self.bind_params(c, &[(&item_ty, &item)])?;
                    let v = self.expr(&c.body)?;
                    let Some((&tag, payload)) = v.split_first().filter(|(_, p)| !p.is_empty()) else {
                        return Err(CodegenError("a `filter_map` closure's `Option`".into()));
                    };
                    self.continue_if(tag, header);
                    item = payload.to_vec();
                }
                Stage::TakeWhile(c) => {
                    self.bind_params(c, &[(&item_ty, &item)])?;
                    let keep = self.one(&c.body)?;
                    self.continue_if(keep, exit);
                }
                Stage::SkipWhile(c) => {
                    let Some((skipping, _)) = st else { return Err(CodegenError("`skip_while` state".into())) };
                    let skipping_v = self.b.use_var(*skipping);
                    let test = self.b.create_block();
                    let go = self.b.create_block();
                    self.b.ins().brif(skipping_v, test, &[], go, &[]);
                    self.b.switch_to_block(test);
                    self.b.seal_block(test);
                    self.bind_params(c, &[(&item_ty, &item)])?;
                    let skip = self.one(&c.body)?;
                    let stop = self.b.create_block();
                    self.b.ins().brif(skip, header, &[], stop, &[]);
                    self.b.switch_to_block(stop);
                    self.b.seal_block(stop);
                    let zero = self.int_const(types::I8, 0);
                    self.b.def_var(*skipping, zero);
                    self.b.ins().jump(go, &[]);
                    self.b.switch_to_block(go);
                    self.b.seal_block(go);
                }
                Stage::Enumerate => {
                    let Some((count, _)) = st else { return Err(CodegenError("`enumerate` state".into())) };
                    let i = self.b.use_var(*count);
                    let next = self.b.ins().iadd_imm(i, 1);
                    self.b.def_var(*count, next);
                    item.insert(0, i);
                }
                Stage::Rev => {}
                Stage::FlatMap(_) => return Err(CodegenError("a `flat_map` inside a fused loop".into())),
                Stage::Zip(_) => {
                    let other = zipped.next().ok_or_else(|| CodegenError("`zip` state".into()))?;
                    let paired = self.next_item(&other, false, exit, at)?;
                    item.extend(paired);
                }
                Stage::Take(_) => {
                    let Some((taken, _)) = st else { return Err(CodegenError("`take` state".into())) };
                    let t = self.b.use_var(*taken);
                    let next = self.b.ins().iadd_imm(t, 1);
                    self.b.def_var(*taken, next);
                }
                Stage::Skip(_) => {
                    let Some((skipped, Some(n))) = st else { return Err(CodegenError("`skip` state".into())) };
                    let k = self.b.use_var(*skipped);
                    let dropping = self.b.ins().icmp(IntCC::UnsignedLessThan, k, *n);
                    let drop_block = self.b.create_block();
                    let go = self.b.create_block();
                    self.b.ins().brif(dropping, drop_block, &[], go, &[]);
                    self.b.switch_to_block(drop_block);
                    self.b.seal_block(drop_block);
                    let next = self.b.ins().iadd_imm(k, 1);
                    self.b.def_var(*skipped, next);
                    self.b.ins().jump(header, &[]);
                    self.b.switch_to_block(go);
                    self.b.seal_block(go);
                }
            }
            item_ty = ty.clone();
        }
        each(self, item, header, exit)?;
        self.b.ins().jump(header, &[]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// Opens an iterator source (evaluating what it reads) for [`Self::next_item`]; `reversed` runs it backwards.
    pub(super) fn open_source(&mut self, source: &IterSource, reversed: bool) -> R<Src> {
        Ok(match source {
            IterSource::Range { start, end, inclusive } => {
                let s = start.s();
                let t = clif(s).ok_or_else(|| CodegenError("a range's type".into()))?;
                let start_v = self.one(start)?;
                let end_v = match end {
                    Some(e) => Some(self.one(e)?),
                    None => None,
                };
                let first = match (reversed, end_v) {
                    (true, Some(end_v)) => end_v,
                    _ => start_v,
                };
                let counter = self.var(t, first);
                let zero = self.int_const(types::I8, 0);
                let done = self.var(types::I8, zero);
                Src::Range {
                    t,
                    signed: s.is_signed(),
                    counter,
                    end: end_v,
                    inclusive: *inclusive,
                    done,
                    start: start_v,
                }
            }
            IterSource::Seq(seq) => {
                let (data, len) = self.seq_parts(seq)?;
                let first = if reversed { len } else { self.int_const(types::I64, 0) };
                let index = self.var(types::I64, first);
                Src::Seq { elem: seq.elem, data, index, len }
            }
            IterSource::Runs { seq, size, chunks, at } => {
                if reversed {
                    return Err(CodegenError("`windows` or `chunks` backwards".into()));
                }
                let size = self.one(size)?;
                let (data, len) = self.seq_parts(seq)?;
                // std panics on a size of zero as the adaptor is made.
                let zero_size = self.b.ins().icmp_imm(IntCC::Equal, size, 0);
                let message = if *chunks { "chunk size must be non-zero" } else { "window size must be non-zero" };
                let index = self.message(message);
                let index = self.int_const(types::I64, index as i64);
                self.fault_if_with(zero_size, Fault::Panic, *at, &[index]);
                let zero = self.int_const(types::I64, 0);
                let elem_size = i64::from(self.elem_layout(seq.elem)?.0);
                Src::Runs { elem_size, data, len, size, index: self.var(types::I64, zero), chunks: *chunks }
            }
            IterSource::Chars(text) => {
                let (data, len) = self.text_parts(text)?;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                let zero = self.int_const(types::I64, 0);
                self.b.ins().stack_store(zero, slot, 0);
                self.b.ins().stack_store(len, slot, 8);
                Src::Chars { data, state: self.b.ins().stack_addr(types::I64, slot, 0) }
            }
            IterSource::Pieces { text, how } => {
                let (data, len) = self.text_parts(text)?;
                let (how, pat, pat_len) = match how {
                    Pieces::Whitespace => (PiecesMode::Whitespace, None, None),
                    Pieces::Lines if reversed => (PiecesMode::LinesBack, None, None),
                    Pieces::Lines => (PiecesMode::Lines, None, None),
                    Pieces::Split(pattern) if pattern.ty == Ty::Str => {
                        let (p, n) = self.text_parts(pattern)?;
                        (PiecesMode::SplitStr, Some(p), Some(n))
                    }
                    Pieces::Split(pattern) => {
                        let c = self.one(pattern)?;
                        let c = self.b.ins().uextend(types::I64, c);
                        (PiecesMode::SplitChar, None, Some(c))
                    }
                };
                let zero = self.int_const(types::I64, 0);
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 48, 3));
                for (i, v) in [zero, len, zero, zero].into_iter().enumerate() {
                    self.b.ins().stack_store(v, slot, (i * 8) as i32);
                }
                let how = self.int_const(types::I32, i64::from(how.code()));
                let state = self.b.ins().stack_addr(types::I64, slot, 0);
                Src::Pieces { data, state, how, pat: pat.unwrap_or(zero), pat_len: pat_len.unwrap_or(zero) }
            }
            IterSource::Chain { first, first_rev, second, second_rev } => {
                let first_src = self.open_source(first, *first_rev)?;
                let second_src = self.open_source(second, *second_rev)?;
                let zero = self.int_const(types::I8, 0);
                Src::Chain {
                    first: Box::new(first_src),
                    first_rev: *first_rev,
                    second: Box::new(second_src),
                    second_rev: *second_rev,
                    in_second: self.var(types::I8, zero),
                    ty: source.item(),
                }
            }
        })
    }

    /// The next item of an opened source, or a jump to `exit` when it has none.
    pub(super) fn next_item(
        &mut self,
        src: &Src,
        reversed: bool,
        exit: cranelift_codegen::ir::Block,
        at: usize,
    ) -> R<Vals> {
        Ok(match src.clone() {
            Src::Range { t, signed, counter, end, inclusive, done, start } => {
                let cc = |s: IntCC, u: IntCC| if signed { s } else { u };
                let i = self.b.use_var(counter);
                match end {
                    None => {
                        // `a..`: the next value must exist (a debug build panics on the overflow).
                        let one = self.int_const(t, 1);
                        let (next, over) = if signed {
                            self.b.ins().sadd_overflow(i, one)
                        } else {
                            self.b.ins().uadd_overflow(i, one)
                        };
                        self.fault_if(over, Fault::Add, at);
                        self.b.def_var(counter, next);
                        vec![i]
                    }
                    Some(end) if !inclusive && !reversed => {
                        let more = self.b.ins().icmp(cc(IntCC::SignedLessThan, IntCC::UnsignedLessThan), i, end);
                        self.continue_if(more, exit);
                        let next = self.b.ins().iadd_imm(i, 1);
                        self.b.def_var(counter, next);
                        vec![i]
                    }
                    Some(_) if !inclusive => {
                        // `(a..b).rev()`: from `b - 1` down to `a`.
                        let more =
                            self.b.ins().icmp(cc(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan), i, start);
                        self.continue_if(more, exit);
                        let value = self.b.ins().iadd_imm(i, -1);
                        self.b.def_var(counter, value);
                        vec![value]
                    }
                    Some(end) => {
                        // `a..=b`, forwards or backwards: stops at the far end without stepping past it (the
                        // value there may not exist).
                        let (bound, within) = if reversed {
                            (start, cc(IntCC::SignedGreaterThanOrEqual, IntCC::UnsignedGreaterThanOrEqual))
                        } else {
                            (end, cc(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual))
                        };
                        let within = self.b.ins().icmp(within, i, bound);
                        let finished = self.b.use_var(done);
                        let not_done = self.b.ins().bxor_imm(finished, 1);
                        let more = self.b.ins().band(within, not_done);
                        self.continue_if(more, exit);
                        let last = self.b.ins().icmp(IntCC::Equal, i, bound);
                        let one = self.int_const(t, 1);
                        let zero = self.int_const(t, 0);
                        let step = self.b.ins().select(last, zero, one);
                        let next = if reversed { self.b.ins().isub(i, step) } else { self.b.ins().iadd(i, step) };
                        self.b.def_var(counter, next);
                        self.b.def_var(done, last);
                        vec![i]
                    }
                }
            }
            Src::Seq { elem, data, index, len } => {
                let k = self.b.use_var(index);
                let (more, position) = if reversed {
                    let more = self.b.ins().icmp_imm(IntCC::NotEqual, k, 0);
                    (more, None)
                } else {
                    (self.b.ins().icmp(IntCC::UnsignedLessThan, k, len), Some(k))
                };
                self.continue_if(more, exit);
                let position = match position {
                    Some(k) => {
                        let next = self.b.ins().iadd_imm(k, 1);
                        self.b.def_var(index, next);
                        k
                    }
                    None => {
                        let previous = self.b.ins().iadd_imm(k, -1);
                        self.b.def_var(index, previous);
                        previous
                    }
                };
                self.element_at(elem, data, position)?
            }
            Src::Runs { elem_size, data, len, size, index, chunks } => {
                if reversed {
                    return Err(CodegenError("`windows` or `chunks` backwards".into()));
                }
                let k = self.b.use_var(index);
                let left = self.b.ins().isub(len, k);
                let (more, run) = if chunks {
                    // The rest of the sequence, at most `size` of it.
                    let more = self.b.ins().icmp(IntCC::UnsignedLessThan, k, len);
                    (more, self.b.ins().umin(left, size))
                } else {
                    // `k <= len` holds throughout (`k` steps by one from zero while a window fits).
                    (self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, left, size), size)
                };
                self.continue_if(more, exit);
                let offset = self.b.ins().imul_imm(k, elem_size);
                let start = self.b.ins().iadd(data, offset);
                let next = if chunks { self.b.ins().iadd(k, run) } else { self.b.ins().iadd_imm(k, 1) };
                self.b.def_var(index, next);
                vec![start, run]
            }
            Src::Chars { data, state } => {
                let from_back = self.int_const(types::I32, i64::from(reversed));
                let f = self.helper(Helper::NextChar);
                let call = self.b.ins().call(f, &[data, state, from_back]);
                let c = self.b.inst_results(call)[0];
                // `char::MAX + 1`: the text is exhausted.
                let more = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c, 0x11_0000);
                self.continue_if(more, exit);
                vec![c]
            }
            Src::Pieces { data, state, how, pat, pat_len } => {
                let f = self.helper(Helper::NextPiece);
                let call = self.b.ins().call(f, &[data, state, how, pat, pat_len]);
                let more = self.b.inst_results(call)[0];
                self.continue_if(more, exit);
                let start = self.b.ins().load(types::I64, MemFlags::trusted(), state, 32);
                let len = self.b.ins().load(types::I64, MemFlags::trusted(), state, 40);
                vec![self.b.ins().iadd(data, start), len]
            }
            Src::Chain { first, first_rev, second, second_rev, in_second, ty } => {
                let ts = flat(&ty);
                let merge = self.merge_block(&ts);
                let (first_block, first_done, second_block) =
                    (self.b.create_block(), self.b.create_block(), self.b.create_block());
                let on_second = self.b.use_var(in_second);
                self.b.ins().brif(on_second, second_block, &[], first_block, &[]);
                self.b.switch_to_block(first_block);
                self.b.seal_block(first_block);
                let item = self.next_item(&first, first_rev, first_done, at)?;
                self.jump_with(merge, &ts, item);
                self.b.switch_to_block(first_done);
                self.b.seal_block(first_done);
                let one = self.int_const(types::I8, 1);
                self.b.def_var(in_second, one);
                self.b.ins().jump(second_block, &[]);
                self.b.switch_to_block(second_block);
                self.b.seal_block(second_block);
                let item = self.next_item(&second, second_rev, exit, at)?;
                self.jump_with(merge, &ts, item);
                self.enter_merge(merge)
            }
        })
    }

    /// Continues in a fresh block when `cond` holds; otherwise jumps to `otherwise`.
    pub(super) fn continue_if(&mut self, cond: Value, otherwise: cranelift_codegen::ir::Block) {
        let go = self.b.create_block();
        self.b.ins().brif(cond, go, &[], otherwise, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
    }

    /// Binds a closure's parameters to values.
    pub(super) fn bind_params(&mut self, c: &Closure, args: &[(&Ty, &Vals)]) -> R<()> {
        for (pat, (ty, values)) in c.params.iter().zip(args) {
            self.bind_pat(pat, ty, values)?;
        }
        Ok(())
    }

    /// An iterator chain consumed by `sink`: the sink's value.
    pub(super) fn consume(&mut self, chain: &IterChain, sink: &Sink, ty: &Ty, at: usize) -> R<Vals> {
        let item_ty = chain.item();
        let item_parts = flat(&item_ty);
        let zeros = |g: &mut Self, ts: &[Type]| -> Vec<Variable> {
            ts.iter()
                .map(|&t| {
                    let z = g.zero(t);
                    g.var(t, z)
                })
                .collect()
        };
        let set = |g: &mut Self, vars: &[Variable], values: &[Value]| {
            for (var, v) in vars.iter().zip(values) {
                g.b.def_var(*var, *v);
            }
        };
        let get = |g: &mut Self, vars: &[Variable]| -> Vals { vars.iter().map(|v| g.b.use_var(*v)).collect() };
        match sink {
            Sink::Sum { at: op_at } | Sink::Product { at: op_at } => {
                let s = ty.s();
                let t = clif(s).ok_or_else(|| CodegenError("a sum's type".into()))?;
                let is_sum = matches!(sink, Sink::Sum { .. });
                // std's float sum starts at -0.0 (so an empty sum is -0.0, and -0.0 + -0.0 stays -0.0).
                let first = match (t, is_sum) {
                    (types::F64, true) => self.b.ins().f64const(-0.0),
                    (types::F64, false) => self.b.ins().f64const(1.0),
                    (types::F32, true) => self.b.ins().f32const(-0.0),
                    (types::F32, false) => self.b.ins().f32const(1.0),
                    _ => self.int_const(t, if is_sum { 0 } else { 1 }),
                };
                let acc = self.var(t, first);
                let op = if is_sum { BinOp::Add } else { BinOp::Mul };
                self.drive(chain, at, &mut |g, item, _, _| {
                    let x = item.first().copied().ok_or_else(|| CodegenError("an item".into()))?;
                    let a = g.b.use_var(acc);
                    let v = g.binary(op, s, s, a, x, *op_at);
                    g.b.def_var(acc, v);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(acc)])
            }
            Sink::Count => {
                let zero = self.int_const(types::I64, 0);
                let n = self.var(types::I64, zero);
                self.drive(chain, at, &mut |g, _, _, _| {
                    let k = g.b.use_var(n);
                    let next = g.b.ins().iadd_imm(k, 1);
                    g.b.def_var(n, next);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(n)])
            }
            Sink::Max | Sink::Min | Sink::Last | Sink::MaxByKey(_) | Sink::MinByKey(_) => {
                let s = item_ty.s();
                let zero = self.int_const(types::I8, 0);
                let have = self.var(types::I8, zero);
                let best = zeros(self, &item_parts);
                let key_ty = match sink {
                    Sink::MaxByKey(c) | Sink::MinByKey(c) => c.body.s(),
                    // (`last` compares nothing: its key is a placeholder.)
                    Sink::Last => Scalar::Bool,
                    _ => s,
                };
                let key_t = clif(key_ty).ok_or_else(|| CodegenError("a key's type".into()))?;
                let best_key = zeros(self, &[key_t]);
                self.drive(chain, at, &mut |g, item, _, _| {
                    let key = match sink {
                        Sink::MaxByKey(c) | Sink::MinByKey(c) => {
                            g.bind_params(c, &[(&item_ty, &item)])?;
                            g.one(&c.body)?
                        }
                        Sink::Last => g.int_const(types::I8, 0),
                        _ => item.first().copied().ok_or_else(|| CodegenError("an item".into()))?,
                    };
                    let had = g.b.use_var(have);
                    let current = g.b.use_var(best_key[0]);
                    // `max` keeps the last of equal maxima, `min` the first of equal minima.
                    let better = match sink {
                        Sink::Max | Sink::MaxByKey(_) => g.binary(BinOp::Ge, key_ty, key_ty, key, current, at),
                        Sink::Min | Sink::MinByKey(_) => g.binary(BinOp::Lt, key_ty, key_ty, key, current, at),
                        _ => g.int_const(types::I8, 1),
                    };
                    let first = g.b.ins().bxor_imm(had, 1);
                    let take = g.b.ins().bor(first, better);
                    for (var, &v) in best.iter().zip(&item) {
                        let old = g.b.use_var(*var);
                        let new = g.b.ins().select(take, v, old);
                        g.b.def_var(*var, new);
                    }
                    let new_key = g.b.ins().select(take, key, current);
                    g.b.def_var(best_key[0], new_key);
                    let one = g.int_const(types::I8, 1);
                    g.b.def_var(have, one);
                    Ok(())
                })?;
                let mut out = vec![self.b.use_var(have)];
                out.extend(get(self, &best));
                Ok(out)
            }
            Sink::MaxBy(keys) => self.max_by(chain, keys, false, at),
            Sink::MinBy(keys) => self.max_by(chain, keys, true, at),
            Sink::Any(c) | Sink::All(c) => {
                let is_any = matches!(sink, Sink::Any(_));
                let init = self.int_const(types::I8, if is_any { 0 } else { 1 });
                let result = self.var(types::I8, init);
                self.drive(chain, at, &mut |g, item, _, exit| {
                    g.bind_params(c, &[(&item_ty, &item)])?;
                    let holds = g.one(&c.body)?;
                    let decided = if is_any { holds } else { g.b.ins().bxor_imm(holds, 1) };
                    let decide = g.b.create_block();
                    let go = g.b.create_block();
                    g.b.ins().brif(decided, decide, &[], go, &[]);
                    g.b.switch_to_block(decide);
                    g.b.seal_block(decide);
                    let v = g.int_const(types::I8, if is_any { 1 } else { 0 });
                    g.b.def_var(result, v);
                    g.b.ins().jump(exit, &[]);
                    g.b.switch_to_block(go);
                    g.b.seal_block(go);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(result)])
            }
            Sink::Position(_) | Sink::Find(_) | Sink::Next => {
                let is_position = matches!(sink, Sink::Position(_));
                let test = match sink {
                    Sink::Position(c) | Sink::Find(c) => Some(c),
                    _ => None,
                };
                let zero = self.int_const(types::I8, 0);
                let found = self.var(types::I8, zero);
                let zero64 = self.int_const(types::I64, 0);
                let index = self.var(types::I64, zero64);
                let value = zeros(self, if is_position { &[types::I64] } else { &item_parts });
                self.drive(chain, at, &mut |g, item, _, exit| {
                    let holds = match test {
                        Some(c) => {
                            g.bind_params(c, &[(&item_ty, &item)])?;
                            g.one(&c.body)?
                        }
                        // `next()`: the first item is the one.
                        None => g.int_const(types::I8, 1),
                    };
                    let hit = g.b.create_block();
                    let go = g.b.create_block();
                    g.b.ins().brif(holds, hit, &[], go, &[]);
                    g.b.switch_to_block(hit);
                    g.b.seal_block(hit);
                    let one = g.int_const(types::I8, 1);
                    g.b.def_var(found, one);
                    let i = g.b.use_var(index);
                    if is_position {
                        set(g, &value, &[i]);
                    } else {
                        set(g, &value, &item);
                    }
                    g.b.ins().jump(exit, &[]);
                    g.b.switch_to_block(go);
                    g.b.seal_block(go);
                    let i = g.b.use_var(index);
                    let next = g.b.ins().iadd_imm(i, 1);
                    g.b.def_var(index, next);
                    Ok(())
                })?;
                let mut out = vec![self.b.use_var(found)];
                out.extend(get(self, &value));
                Ok(out)
            }
            Sink::Fold { init, closure } => {
                let first = self.expr(init)?;
                let ts = flat(ty);
                let acc = zeros(self, &ts);
                let first = self.fill(first, &ts);
                set(self, &acc, &first);
                self.drive(chain, at, &mut |g, item, _, _| {
                    let current = get(g, &acc);
                    g.bind_params(closure, &[(ty, &current), (&item_ty, &item)])?;
                    let next = g.expr(&closure.body)?;
                    let next = g.fill(next, &ts);
                    set(g, &acc, &next);
                    Ok(())
                })?;
                Ok(get(self, &acc))
            }
            Sink::Collect { at: op_at } if *ty == Ty::String => {
                let (slot, address) = self.new_text_slot();
                let f = self.helper(Helper::PushChar);
                self.drive(chain, at, &mut |g, item, _, _| {
                    let c = item.first().copied().ok_or_else(|| CodegenError("an item".into()))?;
                    let call = g.b.ins().call(f, &[g.ctx, address, c]);
                    let status = g.b.inst_results(call)[0];
                    g.helper_fault_if(status, *op_at);
                    Ok(())
                })?;
                Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect())
            }
            // Into a set of the items, or a map from `(key, value)` items (a later value for a key replaces an
            // earlier one, as `insert` does).
            Sink::Collect { .. } if matches!(ty, Ty::Map { .. }) => {
                let Ty::Map { key, value, .. } = ty else {
                    return Err(CodegenError("`collect` into this type".into()));
                };
                let value = value.scalar().filter(|_| !ty.is_set());
                let f = self.helper(Helper::MapNew);
                let call = self.b.ins().call(f, &[self.ctx]);
                let m = self.b.inst_results(call)[0];
                let key = (**key).clone();
                self.drive(chain, at, &mut |g, item, _, _| {
                    let zero = g.int_const(types::I64, 0);
                    // A map's item is the key's parts, then the value's.
                    let (key_parts, v) = match value {
                        Some(vs) => {
                            let (&v, k) = item.split_last().ok_or_else(|| CodegenError("a map item".into()))?;
                            (k.to_vec(), Some(g.word_of(v, vs)))
                        }
                        None => (item.clone(), None),
                    };
                    let (parts, owned) = match (&key, key_parts.as_slice()) {
                        (Ty::Str, &[data, len]) => ((data, len, zero), None),
                        (Ty::String, &[data, _, len]) => ((data, len, zero), Some(data)),
                        (Ty::Scalar(s), &[v]) => ((zero, zero, g.word_of(v, *s)), None),
                        _ => return Err(CodegenError("a set item".into())),
                    };
                    g.map_change(m, parts, v, false, at);
                    // A `String` item's bytes were copied into the set.
                    g.free_moved_key(owned);
                    Ok(())
                })?;
                Ok(vec![m])
            }
            Sink::Collect { at: op_at } if matches!(ty, Ty::Result(..)) => self.collect_results(chain, ty, at, *op_at),
            Sink::Collect { at: op_at } => {
                let &Ty::Vec(elem) = ty else { return Err(CodegenError("`collect` into this type".into())) };
                let home = self.vec_new(elem, 0, *op_at)?;
                self.drive(chain, at, &mut |g, item, _, _| g.vec_push(home, elem, true, &item, *op_at))?;
                let VecHome::Vars(vars) = home else { return Err(CodegenError("a vector".into())) };
                Ok(get(self, &vars))
            }
        }
    }

    /// What a `Result` made in place (`parse`, `try_from`) turns into, given whether it is `Ok` and the value it
    /// holds then: `unwrap`/`expect` panic at `at` with std's message for the error (`errors`, chosen by
    /// `status` - error `i` is status `i + 1` - when there are several), the others select.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn consume_result(
        &mut self,
        then: &lacuna_ir::ParseThen,
        ok: Value,
        value: Value,
        t: Type,
        errors: &[String],
        status: Option<Value>,
        at: usize,
    ) -> R<Vals> {
        use lacuna_ir::ParseThen;
        Ok(match then {
            ParseThen::Unwrap | ParseThen::Expect(_) => {
                let mut index = self.int_const(types::I64, 0);
                for (i, error) in errors.iter().enumerate() {
                    let message = match then {
                        ParseThen::Expect(m) => format!("{m}: {error}"),
                        _ => format!("called `Result::unwrap()` on an `Err` value: {error}"),
                    };
                    let k = self.message(&message);
                    let k = self.int_const(types::I64, k as i64);
                    index = match status {
                        Some(status) => {
                            let this = self.b.ins().icmp_imm(IntCC::Equal, status, i as i64 + 1);
                            self.b.ins().select(this, k, index)
                        }
                        None => k,
                    };
                }
                let failed = self.b.ins().bxor_imm(ok, 1);
                self.fault_if_with(failed, Fault::Panic, at, &[index]);
                vec![value]
            }
            ParseThen::UnwrapOrDefault => {
                let zero = self.zero(t);
                vec![self.b.ins().select(ok, value, zero)]
            }
            ParseThen::UnwrapOr(default) => {
                let d = self.one(default)?;
                vec![self.b.ins().select(ok, value, d)]
            }
            ParseThen::Ok => vec![ok, value],
            ParseThen::IsOk => vec![ok],
            ParseThen::IsErr => vec![self.b.ins().bxor_imm(ok, 1)],
        })
    }
}
