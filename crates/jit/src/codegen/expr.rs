//! Expressions: the dispatch over the IR's expression kinds, each family delegated to its own file.

use crate::abi::Fault;
use crate::codegen::arith::{is_zero, power_of_two, remainder_by_power_of_two, scaled_plus_constant};
use crate::codegen::{clif, flat, tuple_fields, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, StackSlotData, StackSlotKind, Value};
use lacuna_ir::{BinOp, Elem, Lit, LocalRef, Place, Scalar, SeqClosureMethod, SeqKind, TExpr, TKind, Ty, UnOp};

impl<'a, 'b> Gen<'a, 'b> {
    pub(super) fn expr(&mut self, e: &TExpr) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = match &e.kind {
            TKind::Lit(Lit::Str(text)) => return Ok(self.str_literal(text)),
            TKind::Lit(lit) => self.lit(lit, e.s(), false),
            TKind::Local(l) => {
                self.note_read(e);
                return Ok(self.read(*l, &e.ty));
            }
            TKind::Deref(binding) => self.read_place(Place::Deref(*binding), e.s()),
            TKind::AddrOf { .. } => return Err(CodegenError("a place lent other than to a host function".into())),
            TKind::HostField(field) => self.read_place(Place::HostField(*field), e.s()),
            TKind::Unary(UnOp::Neg, inner) if matches!(inner.kind, TKind::Lit(Lit::Int(_))) => {
                // `-128i8` is a literal, not a negation that overflows.
                let TKind::Lit(lit) = &inner.kind else { unreachable!() };
                self.lit(lit, e.s(), true)
            }
            TKind::Unary(op, inner) => {
                let v = self.one(inner)?;
                Some(match op {
                    UnOp::Neg if e.s().is_float() => self.b.ins().fneg(v),
                    UnOp::Neg => {
                        let bits = e.s().int_bits().unwrap_or(64);
                        let t = clif(e.s()).unwrap_or(types::I64);
                        let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                        let min = self.b.ins().iconst(t, min);
                        let is_min = self.b.ins().icmp(IntCC::Equal, v, min);
                        self.fault_if(is_min, Fault::Neg, at);
                        self.b.ins().ineg(v)
                    }
                    UnOp::Not if e.s() == Scalar::Bool => self.b.ins().bxor_imm(v, 1),
                    UnOp::Not => self.b.ins().bnot(v),
                })
            }
            TKind::Binary(BinOp::And, l, r) | TKind::Binary(BinOp::Or, l, r) => return self.short_circuit(e, l, r),
            TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r)
                if remainder_by_power_of_two(l).is_some() && is_zero(r) =>
            {
                // `x % 2^k == 0` whatever x's sign: the low k bits are zero (no sign adjustment, as rustc -O).
                let (x, k) = remainder_by_power_of_two(l).unwrap_or((l, 0));
                let xv = self.one(x)?;
                let low = self.b.ins().band_imm(xv, ((1u128 << k) - 1) as i64);
                let cc = if *op == BinOp::Eq { IntCC::Equal } else { IntCC::NotEqual };
                Some(self.b.ins().icmp_imm(cc, low, 0))
            }
            TKind::Binary(op @ (BinOp::Div | BinOp::Rem), l, r) if power_of_two(r).is_some() && l.s().is_int() => {
                // Division by a literal power of two cannot fault: shifts and masks, as rustc -O emits.
                let k = power_of_two(r).unwrap_or(0);
                let lv = self.opt(l)?;
                if *op == BinOp::Div && k == 1 && matches!(l.kind, TKind::Local(x) if Some(x) == self.even) {
                    // An even number halves exactly: no rounding toward zero to correct.
                    return Ok(lv.map(|lv| self.b.ins().sshr_imm(lv, 1)).into_iter().collect());
                }
                lv.map(|lv| self.div_by_power_of_two(*op, l.s(), lv, k))
            }
            TKind::Binary(BinOp::Add | BinOp::Sub, ..) if scaled_plus_constant(e).is_some() => {
                // `3 * x + 1`: one `lea`, one range test.
                let Some((x, c, d, mul_at)) = scaled_plus_constant(e) else { unreachable!() };
                match self.opt(x)? {
                    Some(xv) => Some(self.scaled_plus(xv, (c, d), e.s(), (mul_at, at))?),
                    None => None,
                }
            }
            TKind::Binary(op @ (BinOp::Div | BinOp::Rem), l, r)
                if l.s().is_int() && self.guard.is_none() && self.known_nonzero(r) =>
            {
                // A divisor the branch around tested against zero: no test again.
                let lv = self.opt(l)?;
                let rv = self.opt(r)?;
                let (signed, bits) = (l.s().is_signed(), l.s().int_bits().unwrap_or(64));
                match (lv, rv) {
                    (Some(lv), Some(rv)) => Some(self.divide(*op, signed, bits, (lv, rv), at, true)),
                    _ => None,
                }
            }
            TKind::Binary(op, l, r) => {
                let lv = self.opt(l)?;
                let rv = self.opt(r)?;
                match (lv, rv) {
                    (Some(lv), Some(rv)) => Some(self.binary(*op, l.s(), r.s(), lv, rv, at)),
                    _ => None,
                }
            }
            TKind::Cast(inner) => {
                let v = self.opt(inner)?;
                v.map(|v| self.cast(v, inner.s(), e.s()))
            }
            TKind::Assign { place: Place::Local(local), op: None, value } if value.ty.scalar().is_none() => {
                let values = self.expr(value)?;
                // The old value is dropped (after the new one is made: it may read the old).
                if let LocalRef::Snippet(id) = local {
                    self.drop_local(*id)?;
                }
                self.write(*local, values);
                None
            }
            TKind::Assign { place, op, value } => return self.assign(e, place, op, value),
            TKind::MemReplace { place, value } => return self.mem_replace(place, value.as_deref(), &e.ty),
            TKind::Block(b) => return self.block(b),
            TKind::If { cond, then, otherwise } => return self.if_else(e, cond, then, otherwise),
            TKind::While { label, cond, body } => return self.while_loop(e, label, cond, body),
            TKind::Loop { label, body } => return self.loop_expr(e, label, body),
            TKind::For { label, var, start, end, inclusive, body } => {
                return self.for_range(e, label, *var, start, end, *inclusive, body)
            }
            TKind::ForSeq { label, var, seq, body } => return self.for_seq(e, label, *var, seq, body),
            TKind::Break { label, value } => {
                let v = match value {
                    Some(v) => self.expr(v)?,
                    None => Vec::new(),
                };
                let target = self.find_loop(label)?;
                let (exit, ts) = (self.loops[target].exit, self.loops[target].value.clone());
                self.leave_scopes(self.loops[target].break_leaves)?;
                self.jump_with(exit, &ts, v);
                self.dead_block();
                None
            }
            TKind::Continue { label } => {
                let target = self.find_loop(label)?;
                let next = self.loops[target].next;
                self.leave_scopes(self.loops[target].continue_leaves)?;
                self.b.ins().jump(next, &[]);
                self.dead_block();
                None
            }
            TKind::Return(value) => {
                let v = match value {
                    Some(v) => self.expr(v)?,
                    None => Vec::new(),
                };
                let ret = self.in_fn.clone().ok_or_else(|| CodegenError("`return` outside a function".into()))?;
                // Every scope of the function is left.
                self.leave_scopes(0)?;
                self.return_ok(v, &ret);
                self.dead_block();
                None
            }
            TKind::Call { args, .. } if self.is_tail_call(e) => {
                self.tail_call(args)?;
                None
            }
            TKind::Call { function, args } => return self.call(*function, args),
            TKind::SeqLen(seq) => Some(self.seq_parts(seq)?.1),
            TKind::SeqIndex { seq, index } => {
                let i = self.one(index)?;
                let address = self.seq_element(seq, i, at)?;
                return self.elem_read(seq.elem, address);
            }
            TKind::SeqSum(seq) => Some(self.seq_sum(seq, at)?),
            TKind::RefField { base, symbol, stored } => {
                let base = self.one(base)?;
                let offset = *self.statics.get(symbol).ok_or_else(|| CodegenError(format!("no `{symbol}`")))?;
                let address = self.b.ins().iadd_imm(base, i64::from(offset));
                return match (&e.ty, stored) {
                    // A `String` field's text, read in place.
                    (Ty::Str, Elem::String) => self.text_at(address),
                    // A `String` moved out of a struct the snippet holds: a copy of its text (the struct is dropped
                    // whole where its scope ends).
                    (Ty::String, Elem::String) => {
                        let text = self.text_at(address)?;
                        self.owned_copy(text[0], text[1], types::I8, at)
                    }
                    // A host struct field of a host struct type, read where it is.
                    (Ty::StructRef(_), Elem::Struct(_)) => Ok(vec![address]),
                    // A `&str` (its pointer and length), a reference to a host struct (the address it holds), a
                    // scalar.
                    (Ty::Str, Elem::Str) | (Ty::StructRef(_), Elem::StructRef(_)) => self.elem_read(*stored, address),
                    (ty, Elem::Scalar(s)) if ty.scalar() == Some(*s) => {
                        let t = clif(*s).ok_or_else(|| CodegenError("a field's type".into()))?;
                        Ok(vec![self.b.ins().load(t, MemFlags::trusted(), address, 0)])
                    }
                    _ => Err(CodegenError("a field of this type".into())),
                };
            }
            TKind::OptionField { base, symbol } => {
                let Ty::Option(payload) = &e.ty else { return Err(CodegenError("an `Option` field's type".into())) };
                let base = self.one(base)?;
                return self.option_field(base, symbol, payload);
            }
            // `&o` of an `Option` that owns its payload: the tag, then the text's pointer and length (not its
            // capacity), or the struct's address; the local keeps all of it.
            TKind::OptionRef(o) => {
                let parts = self.expr(o)?;
                return match (&o.ty, parts.as_slice()) {
                    (Ty::Option(p), &[tag, ptr, _, len]) if **p == Ty::String => Ok(vec![tag, ptr, len]),
                    (Ty::Option(p), &[tag, address]) if matches!(**p, Ty::Struct(_)) => Ok(vec![tag, address]),
                    _ => Err(CodegenError("an `Option` read in place".into())),
                };
            }
            TKind::SeqMethod { seq, name, args, at: name_at } => return self.seq_method(seq, *name, args, *name_at),
            TKind::SeqWithClosure { seq, name, closure, descending } => {
                if *name == SeqClosureMethod::Retain {
                    self.retain(seq, closure, at)?;
                } else if *descending {
                    // `sort_by_key(|x| Reverse(k))`: stable, larger keys first.
                    let key =
                        lacuna_ir::SortKey { key: closure.clone(), descending: true, order: lacuna_ir::KeyOrder::Ord };
                    self.sort_by_keys(seq, std::slice::from_ref(&key), at)?;
                } else {
                    self.sort_by_key(seq, closure, at)?;
                }
                None
            }
            TKind::SortBy { seq, keys, .. } => {
                self.sort_by_keys(seq, keys, at)?;
                None
            }
            TKind::SeqStore { seq, index_at, index, part, op, value } => {
                return self.seq_store(e, seq, (*index_at, index, *part), op, value)
            }
            TKind::HostCall { name, symbol, receiver, args } => return self.host_call(e, name, symbol, receiver, args),
            TKind::Atomic { symbol, method, value, scalar } => {
                return self.atomic(symbol, *method, value.as_deref(), *scalar)
            }
            TKind::UnwrapFailed { symbol, message, payload, at } => {
                return self.unwrap_failed(e, symbol, message, payload, *at)
            }
            TKind::Method { name, receiver, args } if receiver.ty.scalar().is_none() || e.ty.scalar().is_none() => {
                return self.aggregate_method(*name, receiver, args, &e.ty, at);
            }
            TKind::Method { name, receiver, args } => {
                let rv = self.one(receiver)?;
                let mut avs = Vec::new();
                for a in args {
                    avs.push(self.one(a)?);
                }
                Some(self.method(*name, receiver.s(), rv, &avs, at)?)
            }
            TKind::StructClone(x) => {
                let (Ty::Struct(id) | Ty::StructRef(id)) = x.ty else {
                    return Err(CodegenError("a `clone` of something other than a host struct".into()));
                };
                let source = self.one(x)?;
                Some(self.struct_clone(id, source, at)?)
            }
            TKind::StructLit { id, fields, base } => return self.struct_lit(e, *id, fields, base),
            TKind::UnitVariant { id, index } => Some(self.unit_variant(*id, *index, at)?),
            TKind::MapNew => {
                let f = self.helper(Helper::MapNew);
                let call = self.b.ins().call(f, &[self.ctx]);
                Some(self.b.inst_results(call)[0])
            }
            TKind::MapEntries { map, view } => return self.map_entries(e, *map, *view),
            TKind::MapMethod { map, name, args, at: method_at } => {
                return self.map_method(*map, *name, args, &e.ty, *method_at)
            }
            TKind::MapUpdate { map, key, default, op, value } => {
                return self.map_update(e, *map, key, default, op, value)
            }
            TKind::MapPush { map, key, value } => return self.map_push(*map, key, value, e.range.start),
            TKind::StructOrd { left, right, op } => {
                let (Ty::Struct(id) | Ty::StructRef(id)) = left.ty else {
                    return Err(CodegenError("a comparison of something other than host structs".into()));
                };
                let a = self.one(left)?;
                let b = self.one(right)?;
                let op = match op {
                    BinOp::Lt => 0,
                    BinOp::Le => 1,
                    BinOp::Gt => 2,
                    BinOp::Ge => 3,
                    _ => return Err(CodegenError("an ordering of host values by this operator".into())),
                };
                Some(self.struct_ordered(id, a, b, op, at)?)
            }
            TKind::StructEq { left, right, negated } => {
                let (Ty::Struct(id) | Ty::StructRef(id)) = left.ty else {
                    return Err(CodegenError("a comparison of something other than host structs".into()));
                };
                let a = self.one(left)?;
                let b = self.one(right)?;
                let equal = self.struct_eq(id, a, b, at)?;
                Some(if *negated { self.b.ins().bxor_imm(equal, 1) } else { equal })
            }
            TKind::Some(inner) => {
                let v = self.expr(inner)?;
                let tag = self.b.ins().iconst(types::I8, 1);
                return Ok(std::iter::once(tag).chain(v).collect());
            }
            TKind::ResultOf { ok, value } => {
                let Ty::Result(ok_ty, err_ty) = &e.ty else {
                    return Err(CodegenError("a `Result` of another type".into()));
                };
                // The tag, then `Ok`'s parts and `Err`'s, the variant not held all zeros.
                let payload = self.expr(value)?;
                let zeros = |this: &mut Self, t: &Ty| -> Vals { flat(t).iter().map(|&p| this.zero(p)).collect() };
                let (ok_parts, err_parts) =
                    if *ok { (payload, zeros(self, err_ty)) } else { (zeros(self, ok_ty), payload) };
                let tag = self.b.ins().iconst(types::I8, i64::from(*ok));
                return Ok(std::iter::once(tag).chain(ok_parts).chain(err_parts).collect());
            }
            TKind::None => {
                let tag = self.b.ins().iconst(types::I8, 0);
                let payload: Vals = flat(&e.ty).iter().skip(1).map(|&t| self.zero(t)).collect();
                return Ok(std::iter::once(tag).chain(payload).collect());
            }
            TKind::Tuple(elems) => {
                let mut values = Vec::new();
                for x in elems {
                    values.extend(self.expr(x)?);
                }
                return Ok(values);
            }
            TKind::TextOf(seq) | TKind::SliceOf { seq, .. } => {
                let (data, len) = self.seq_parts(seq)?;
                return Ok(vec![data, len]);
            }
            TKind::SubSlice { seq, start, end } => return self.sub_slice(seq, start.as_deref(), end.as_deref(), at),
            TKind::TextMethod { name, receiver, args } => return self.text_method(e, *name, receiver, args),
            TKind::StringPush { seq, value, at: push_at } => {
                let home = self.vec_home(seq)?;
                let slot = self.text_slot(&home, seq.kind == SeqKind::Local)?;
                self.append_text(slot, value, *push_at)?;
                self.text_unslot(slot, &home)?;
                return Ok(Vec::new());
            }
            TKind::Concat { left, right, at: op_at } => {
                let mut values = self.expr(left)?;
                values.push(self.int_const(types::I64, 1));
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 3));
                for (i, v) in values.iter().enumerate() {
                    self.b.ins().stack_store(*v, slot, (i * 8) as i32);
                }
                let address = self.b.ins().stack_addr(types::I64, slot, 0);
                self.append_text(address, right, *op_at)?;
                return Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect());
            }
            TKind::Format(pieces) => {
                let (slot, _) = self.format_into(pieces, at)?;
                return Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect());
            }
            TKind::Print { pieces, stderr } => {
                let (_, address) = self.format_into(pieces, at)?;
                let to = self.int_const(types::I32, i64::from(*stderr));
                let f = self.helper(Helper::Print);
                self.b.ins().call(f, &[self.ctx, address, to]);
                return Ok(Vec::new());
            }
            TKind::TryConvert { value, target, then, at: name_at } => {
                return self.try_convert(value, *target, then, *name_at)
            }
            TKind::Parse { text, target, then, at: name_at } => return self.parse(text, *target, then, *name_at),
            TKind::SeqClone(seq) => {
                let (data, len) = self.seq_parts(seq)?;
                if seq.elem == Elem::String {
                    // The elements' bytes copied, then each string given a copy of its own text.
                    let copy = self.owned_copy_of(data, len, (24, 8), at)?;
                    let (copy_data, copy_len) = (copy[0], copy[2]);
                    let [ptr_at, cap_at, len_at] = self.vec_offsets()?;
                    let offsets = i64::from(ptr_at) | (i64::from(cap_at) << 16) | (i64::from(len_at) << 32);
                    let stride = self.int_const(types::I64, 24);
                    let offsets = self.int_const(types::I64, offsets);
                    let f = self.helper(Helper::StringsClone);
                    let call = self.b.ins().call(f, &[self.ctx, copy_data, copy_len, stride, offsets]);
                    let ok = self.b.inst_results(call)[0];
                    let failed = self.b.ins().icmp_imm(IntCC::Equal, ok, 0);
                    self.helper_fault_if(failed, at);
                    return Ok(copy);
                }
                let elem = seq.elem.scalar().ok_or_else(|| CodegenError("a copy of strings".into()))?;
                let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
                // A copy's capacity is its length (as `to_vec` allocates).
                return self.owned_copy(data, len, t, at);
            }
            TKind::VecRepeat { value, count } => return self.vec_repeat(e, value, count),
            TKind::VecLit(elems) => return self.vec_lit(e, elems),
            TKind::Field(base, index) => {
                let values = self.expr(base)?;
                let Ty::Tuple(parts) = &base.ty else { return Err(CodegenError("a field of a non-tuple".into())) };
                let field = tuple_fields(parts, &values).nth(*index);
                return field.map(<[Value]>::to_vec).ok_or_else(|| CodegenError("a tuple field".into()));
            }
            TKind::Match { scrutinee, arms } => return self.match_expr(e, scrutinee, arms),
            TKind::OptionClosure { method, receiver, param, body } => {
                return self.option_closure(*method, receiver, param.as_ref(), body, &e.ty);
            }
            TKind::Consume { chain, sink } => return self.consume(chain, sink, &e.ty, at),
            TKind::ForIter { label, pat, chain, body } => {
                let item_ty = chain.item();
                // The loop's `next()` is placed at its iterator expression (a fault of a source, as rustc's).
                self.drive(chain, chain.range.start, &mut |g, item, next, exit| {
                    g.bind_pat(pat, &item_ty, &item)?;
                    let ctx = g.loop_ctx(label, next, exit, Vec::new());
                    g.loops.push(ctx);
                    let r = g.block(body);
                    g.loops.pop();
                    r.map(|_| ())
                })?;
                None
            }
            TKind::Panic { receiver, message } => return self.panic_expr(e, receiver, message),
            TKind::PanicFormatted(message) => return self.panic_formatted(e, message),
        };
        Ok(value.into_iter().collect())
    }

    /// A scalar or `()` expression's value (none for `()` and `!`).
    pub(super) fn opt(&mut self, e: &TExpr) -> R<Option<Value>> {
        Ok(self.expr(e)?.first().copied())
    }

    /// A scalar expression's value.
    pub(super) fn one(&mut self, e: &TExpr) -> R<Value> {
        let values = self.expr(e)?;
        match values[..] {
            [v] => Ok(v),
            _ => Err(CodegenError(format!("a scalar where the snippet has `{}`", e.ty.name()))),
        }
    }
}
