//! `Result`s host functions return ([`Ty::Result`]): read from the shim's out slot, matched, their payloads dropped
//! where the arm that took them ends, and `unwrap` of an `Err` panicking through the host's shim.

use crate::abi::{Fault, RUN_OFFSET};
use crate::codegen::{flat, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, StackSlot, StackSlotData, StackSlotKind, Value};
use lacuna_ir::{Elem, Lit, Scalar, TExpr, TKind, TPat, Ty};

/// Where the shim writes a `Result` (`instrument::shim`): the tag (1 for `Ok`) at 0, the payload at 8.
const PAYLOAD: i32 = 8;

/// A `Result`'s values split as [`Ty::parts`] lays them out: the tag, `Ok`'s parts, `Err`'s parts.
pub(super) fn split<'v>(ok: &Ty, values: &'v [Value]) -> Option<(Value, &'v [Value], &'v [Value])> {
    let (&tag, rest) = values.split_first()?;
    let n = flat(ok).len().min(rest.len());
    Some((tag, &rest[..n], &rest[n..]))
}

impl<'a, 'b> Gen<'a, 'b> {
    /// `collect::<Result<Vec<_>, E>>()` of `Result` items ([`Ty::Result`] of a scalar): each `Ok` value pushed
    /// onto a new vector until the first `Err`, which ends the iteration (nothing after it is pulled); then the
    /// vector so far is dropped and the error is the value. `Ok(vector)` otherwise.
    pub(super) fn collect_results(
        &mut self,
        chain: &lacuna_ir::IterChain,
        ty: &Ty,
        at: usize,
        op_at: usize,
    ) -> R<Vals> {
        let Ty::Result(ok, err) = ty else { return Err(CodegenError("`collect` into this type".into())) };
        let &Ty::Vec(elem) = &**ok else { return Err(CodegenError("`collect` into this `Result`".into())) };
        let home = self.vec_new(elem, 0, op_at)?;
        let zero = self.int_const(types::I8, 0);
        let failed = self.var(types::I8, zero);
        let error: Vec<_> = flat(err)
            .into_iter()
            .map(|t| {
                let z = self.zero(t);
                self.var(t, z)
            })
            .collect();
        let item_ok = Ty::Scalar(elem.read_ty().s());
        self.drive(chain, at, &mut |g, item, _, exit| {
            let (tag, value, error_parts) =
                split(&item_ok, &item).ok_or_else(|| CodegenError("a `Result` item".into()))?;
            let good = g.b.create_block();
            let bad = g.b.create_block();
            g.b.set_cold_block(bad);
            g.b.ins().brif(tag, good, &[], bad, &[]);
            g.b.switch_to_block(bad);
            g.b.seal_block(bad);
            for (var, &v) in error.iter().zip(error_parts) {
                g.b.def_var(*var, v);
            }
            let one = g.int_const(types::I8, 1);
            g.b.def_var(failed, one);
            g.b.ins().jump(exit, &[]);
            g.b.switch_to_block(good);
            g.b.seal_block(good);
            g.vec_push(home, elem, true, value, op_at)
        })?;
        let crate::codegen::seq::VecHome::Vars(vars) = home else {
            return Err(CodegenError("a vector".into()));
        };
        // On an error, the values collected so far are dropped, and the `Ok`
        // parts are zeros (the variant not held).
        let failed = self.b.use_var(failed);
        let drop = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(failed, drop, &[], done, &[]);
        self.b.switch_to_block(drop);
        self.b.seal_block(drop);
        let ptr = self.b.use_var(vars[0]);
        self.drop_buffer(Some(elem), ptr, vars[2])?;
        let zero = self.int_const(types::I64, 0);
        for var in vars {
            self.b.def_var(var, zero);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        let mut out = vec![self.b.ins().bxor_imm(failed, 1)];
        out.extend(vars.iter().map(|v| self.b.use_var(*v)));
        out.extend(error.iter().map(|v| self.b.use_var(*v)));
        Ok(out)
    }

    /// Bytes a payload of type `ty` takes in the shim's out slot.
    pub(super) fn payload_size(&self, ty: &Ty) -> R<u32> {
        Ok(match ty {
            Ty::Scalar(Scalar::Unit) => 0,
            Ty::Scalar(_) | Ty::StructRef(_) => 8,
            Ty::String | Ty::Vec(Elem::Scalar(_)) => 24,
            Ty::Struct(id) => self.shims_of(*id)?.size as u32,
            other => return Err(CodegenError(format!("a `Result` holding `{}`", other.name()))),
        })
    }

    /// The `Result` a host function's shim wrote to `slot`: the tag, then each variant's parts, those of the
    /// variant not held zero. An owned payload becomes the run's: a `String`'s buffer is adopted, a host struct
    /// is moved into a new box.
    pub(super) fn result_from_slot(&mut self, ok: &Ty, err: &Ty, slot: StackSlot, at: usize) -> R<Vals> {
        let tag = self.b.ins().stack_load(types::I8, slot, 0);
        let is_err = self.b.ins().icmp_imm(IntCC::Equal, tag, 0);
        let is_ok = self.b.ins().icmp_imm(IntCC::NotEqual, tag, 0);
        let mut values = vec![tag];
        values.extend(self.payload_from_slot(ok, slot, is_ok, at)?);
        values.extend(self.payload_from_slot(err, slot, is_err, at)?);
        Ok(values)
    }

    pub(super) fn payload_from_slot(&mut self, ty: &Ty, slot: StackSlot, held: Value, at: usize) -> R<Vals> {
        let load_or_zero = |g: &mut Self, t: types::Type, offset: i32| {
            let v = g.b.ins().stack_load(t, slot, offset);
            let zero = g.zero(t);
            g.b.ins().select(held, v, zero)
        };
        Ok(match ty {
            Ty::Struct(id) => {
                let shims = self.shims_of(*id)?;
                let ptr = self.b.func.dfg.value_type(self.ctx);
                let moved = self.b.create_block();
                let merge = self.merge_block(&[ptr]);
                let zero = self.zero(ptr);
                self.b.ins().brif(held, moved, &[], merge, &[zero.into()]);
                self.b.switch_to_block(moved);
                self.b.seal_block(moved);
                let boxed = self.struct_alloc(shims, at);
                // The struct's bytes move into the box (a move is a copy the source forgets: the shim wrote them
                // with `ptr::write`, so nothing else drops them).
                let mut offset = 0u32;
                for (width, t) in [(8u32, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)] {
                    while shims.size as u32 - offset >= width {
                        let v = self.b.ins().stack_load(t, slot, PAYLOAD + offset as i32);
                        self.b.ins().store(MemFlags::new(), v, boxed, offset as i32);
                        offset += width;
                    }
                }
                self.struct_ready(shims, boxed);
                self.b.ins().jump(merge, &[boxed.into()]);
                self.enter_merge(merge)
            }
            Ty::String | Ty::Vec(Elem::Scalar(_)) => {
                let parts: Vals = (0..3).map(|i| load_or_zero(self, types::I64, PAYLOAD + i * 8)).collect();
                let adopt = self.helper(Helper::VecAdopt);
                // The buffer's bytes and alignment: a `String`'s are bytes, a vector's its elements'.
                let (size, align) = match ty {
                    Ty::Vec(elem) => self.elem_layout(*elem)?,
                    _ => (1, 1),
                };
                let bytes = self.b.ins().imul_imm(parts[1], i64::from(size));
                let align = self.int_const(types::I64, i64::from(align));
                // A capacity of zero (the variant not held, or an empty one) adopts nothing.
                self.b.ins().call(adopt, &[self.ctx, parts[0], bytes, align]);
                parts
            }
            other => flat(other).into_iter().map(|t| load_or_zero(self, t, PAYLOAD)).collect(),
        })
    }

    /// Frees (or drops, through the host's shim) an owned payload that no pattern took: a `String`'s buffer or a
    /// host struct's box. Zeros (the variant not held) free nothing.
    pub(super) fn drop_payload(&mut self, ty: &Ty, values: &[Value]) {
        let (Some(helper), Some(&ptr)) = (payload_drop(ty), values.first()) else { return };
        let f = self.helper(helper);
        self.b.ins().call(f, &[self.ctx, ptr]);
    }

    /// Where an arm of a `match` on a `Result` ends: the payload its pattern bound to a name is dropped with that
    /// name (unless moved), and one it did not bind is dropped with the scrutinee — unless the scrutinee is a
    /// local (`local`), which keeps what no pattern moved out of it (it is never dropped: a `match` moves it).
    pub(super) fn end_result_arm(&mut self, pat: &TPat, ok: &Ty, err: &Ty, values: &[Value], local: bool) -> R<()> {
        let Some((_, okv, errv)) = split(ok, values) else { return Ok(()) };
        let (okv, errv) = (okv.to_vec(), errv.to_vec());
        let end = |g: &mut Self, inner: Option<&TPat>, ty: &Ty, vs: &[Value]| -> R<()> {
            match inner {
                Some(TPat::Bind(binding)) => g.drop_local(*binding),
                _ if local => Ok(()),
                _ => {
                    g.drop_payload(ty, vs);
                    Ok(())
                }
            }
        };
        match pat {
            TPat::Ok(inner) => end(self, Some(inner), ok, &okv),
            TPat::Err(inner) => end(self, Some(inner), err, &errv),
            _ => {
                end(self, None, ok, &okv)?;
                end(self, None, err, &errv)
            }
        }
    }

    /// `cond && pat matches`, the pattern tested only where `cond` holds (a payload of the variant not held is
    /// zeros, which a host enum's variant shim must not read).
    pub(super) fn test_when(&mut self, cond: Value, pat: &TPat, ty: &Ty, values: &[Value]) -> Value {
        if matches!(pat, TPat::Wild | TPat::Bind(_)) {
            return cond;
        }
        self.when(cond, |g| g.test_pat(pat, ty, values))
    }

    /// `unwrap()`/`expect(..)` of an `Err`, `unwrap_err()`/`expect_err(..)` of an `Ok` ([`TKind::UnwrapFailed`]):
    /// the host's shim panics with std's message.
    pub(super) fn unwrap_failed(
        &mut self,
        e: &TExpr,
        symbol: &str,
        message: &str,
        payload: &TExpr,
        at: usize,
    ) -> R<Vals> {
        let values = self.expr(payload)?;
        let ptr = self.b.func.dfg.value_type(self.ctx);
        // The payload as the shim reads it: a host struct at its address, a `String` as [pointer, capacity,
        // length], a scalar as itself.
        let address = match (&payload.ty, values.as_slice()) {
            (Ty::Struct(_) | Ty::StructRef(_), [p]) => *p,
            _ => {
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 3));
                let mut offset = 0;
                for &v in &values {
                    self.b.ins().stack_store(v, slot, offset);
                    offset += 8;
                }
                self.b.ins().stack_addr(ptr, slot, 0)
            }
        };
        let text = TExpr { kind: TKind::Lit(Lit::Str(message.to_owned())), ty: Ty::Str, range: e.range.clone() };
        let (data, len) = self.text_parts(&text)?;
        let run = self.b.ins().load(ptr, MemFlags::trusted(), self.ctx, RUN_OFFSET);
        let callee = *self.host_fns.get(symbol).ok_or_else(|| CodegenError(format!("host shim `{symbol}`")))?;
        self.store_fuel();
        let call = self.b.ins().call(callee, &[run, address, data, len]);
        let status = self.b.inst_results(call)[0];
        self.load_fuel();
        let panicked = self.b.ins().icmp_imm(IntCC::NotEqual, status, 0);
        self.fault_if(panicked, Fault::HostPanic, at);
        self.after_host_call(at);
        // The shim always panics.
        self.panic_with("internal error: entered unreachable code", at);
        Ok(Vec::new())
    }
}

/// The helper that drops an owned payload of type `ty`, given its first part (a `String`'s or scalar vector's
/// buffer, a host struct's box): `None` for a payload that owns nothing.
pub(super) fn payload_drop(ty: &Ty) -> Option<Helper> {
    match ty {
        Ty::String | Ty::Vec(Elem::Scalar(_)) => Some(Helper::VecFree),
        Ty::Struct(_) => Some(Helper::StructDrop),
        _ => None,
    }
}
