//! Methods of `Option`s and tuples kept as their parts, and `Option` methods with closures written in place.

use crate::abi::Fault;
use crate::codegen::{clif, flat, CodegenError, Gen, Vals, R};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, Value};
use lacuna_ir::{CheckedMethod, Method, OptionClosureMethod, OptionMethod, TExpr, TPat, Ty};

impl<'a, 'b> Gen<'a, 'b> {
    /// Methods of `Option`s of scalars, and the `Option`-valued methods of scalars.
    pub(super) fn aggregate_method(
        &mut self,
        name: Method,
        receiver: &TExpr,
        args: &[TExpr],
        ty: &Ty,
        at: usize,
    ) -> R<Vals> {
        let rv = self.expr(receiver)?;
        let mut avs = Vec::new();
        for a in args {
            avs.push(self.expr(a)?);
        }
        let arg = |i: usize, part: usize| -> R<Value> {
            avs.get(i).and_then(|a| a.get(part)).copied().ok_or_else(|| CodegenError(format!("`{name}`'s argument")))
        };
        if let Ty::Option(payload_ty) = &receiver.ty {
            let (Some((&tag, payload_values)), Some(&payload)) = (rv.split_first(), rv.get(1)) else {
                return Err(CodegenError("an `Option` without parts".into()));
            };
            let Method::Option(method) = name else {
                return Err(CodegenError(format!("the method `{name}` of an `Option`")));
            };
            use OptionMethod::*;
            return Ok(match method {
                Unwrap => {
                    let none = self.b.ins().icmp_imm(IntCC::Equal, tag, 0);
                    self.fault_if(none, Fault::UnwrapNone, at);
                    payload_values.to_vec()
                }
                UnwrapOr => {
                    let mut chosen = Vec::new();
                    for (part, &v) in payload_values.iter().enumerate() {
                        chosen.push(self.b.ins().select(tag, v, arg(0, part)?));
                    }
                    chosen
                }
                // An empty `String`: a dangling pointer (its alignment, 1), no capacity, no length.
                UnwrapOrDefault if **payload_ty == Ty::String => {
                    let mut chosen = Vec::new();
                    for (&v, empty) in payload_values.iter().zip([1, 0, 0]) {
                        let empty = self.int_const(types::I64, empty);
                        chosen.push(self.b.ins().select(tag, v, empty));
                    }
                    chosen
                }
                UnwrapOrDefault => {
                    let t = clif(payload_ty.s()).ok_or_else(|| CodegenError("an `Option` of nothing".into()))?;
                    let zero = self.zero(t);
                    vec![self.b.ins().select(tag, payload, zero)]
                }
                IsSome => vec![tag],
                IsNone => vec![self.b.ins().bxor_imm(tag, 1)],
                Or => {
                    let (other_tag, other) = (arg(0, 0)?, arg(0, 1)?);
                    vec![self.b.ins().select(tag, tag, other_tag), self.b.ins().select(tag, payload, other)]
                }
                Xor => {
                    // Some when exactly one is: that one.
                    let (other_tag, other) = (arg(0, 0)?, arg(0, 1)?);
                    let one = self.b.ins().bxor(tag, other_tag);
                    vec![one, self.b.ins().select(tag, payload, other)]
                }
            });
        }
        let s = receiver.s();
        let x = rv.first().copied().ok_or_else(|| CodegenError("a receiver".into()))?;
        let t = clif(s).ok_or_else(|| CodegenError("a receiver type".into()))?;
        let Method::Checked(method) = name else {
            return Err(CodegenError(format!("the method `{name}` giving `{}`", ty.name())));
        };
        use CheckedMethod::*;
        Ok(match method {
            CheckedAdd | CheckedSub | CheckedMul => {
                let y = arg(0, 0)?;
                let (v, over) = match (method, s.is_signed()) {
                    (CheckedAdd, true) => self.b.ins().sadd_overflow(x, y),
                    (CheckedAdd, false) => self.b.ins().uadd_overflow(x, y),
                    (CheckedSub, true) => self.b.ins().ssub_overflow(x, y),
                    (CheckedSub, false) => self.b.ins().usub_overflow(x, y),
                    (_, true) => self.b.ins().smul_overflow(x, y),
                    (_, false) => self.b.ins().umul_overflow(x, y),
                };
                let ok = self.b.ins().bxor_imm(over, 1);
                vec![ok, v]
            }
            CheckedDiv | CheckedRem => {
                // None for a zero divisor and for MIN / -1; the division itself runs on a safe divisor.
                let y = arg(0, 0)?;
                let zero = self.b.ins().icmp_imm(IntCC::Equal, y, 0);
                let mut bad = zero;
                if s.is_signed() {
                    let bits = s.int_bits().unwrap_or(64);
                    let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                    let is_min = self.b.ins().icmp_imm(IntCC::Equal, x, min);
                    let minus_one = self.b.ins().icmp_imm(IntCC::Equal, y, -1);
                    let both = self.b.ins().band(is_min, minus_one);
                    bad = self.b.ins().bor(zero, both);
                }
                let one = self.b.ins().iconst(t, 1);
                let safe = self.b.ins().select(bad, one, y);
                let v = match (method, s.is_signed()) {
                    (CheckedDiv, true) => self.b.ins().sdiv(x, safe),
                    (CheckedDiv, false) => self.b.ins().udiv(x, safe),
                    (_, true) => self.b.ins().srem(x, safe),
                    (_, false) => self.b.ins().urem(x, safe),
                };
                let ok = self.b.ins().bxor_imm(bad, 1);
                vec![ok, v]
            }
            ToDigit => {
                // core's `char::to_digit` for a radix the lowering proved to be a literal in 2..=36.
                let radix = arg(0, 0)?;
                let zero_char = self.b.ins().iadd_imm(x, -('0' as i64));
                let is_dec = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, zero_char, 10);
                let lower = self.b.ins().bor_imm(x, 0x20);
                let from_a = self.b.ins().iadd_imm(lower, -('a' as i64));
                // saturating_add(10): values near u32::MAX stay invalid either way.
                let from_a_ten = self.b.ins().iadd_imm(from_a, 10);
                let wrapped = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThan, from_a, (u32::MAX - 10) as i64);
                let max = self.b.ins().iconst(types::I32, u32::MAX as i64);
                let letter_digit = self.b.ins().select(wrapped, max, from_a_ten);
                let big_radix = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThan, radix, 10);
                let not_dec = self.b.ins().bxor_imm(is_dec, 1);
                let use_letter = self.b.ins().band(big_radix, not_dec);
                let digit = self.b.ins().select(use_letter, letter_digit, zero_char);
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, digit, radix);
                vec![ok, digit]
            }
        })
    }

    /// `Option` methods taking a closure written in place: the closure's body runs here, at most once.
    pub(super) fn option_closure(
        &mut self,
        method: OptionClosureMethod,
        receiver: &TExpr,
        param: Option<&TPat>,
        body: &TExpr,
        ty: &Ty,
    ) -> R<Vals> {
        let rv = self.expr(receiver)?;
        let Ty::Option(payload_ty) = &receiver.ty else {
            return Err(CodegenError("a closure method of something other than an `Option`".into()));
        };
        let Some((&tag, payload)) = rv.split_first() else {
            return Err(CodegenError("an `Option` without parts".into()));
        };
        let ts = flat(ty);
        let merge = self.merge_block(&ts);
        let some_block = self.b.create_block();
        let none_block = self.b.create_block();
        self.b.ins().brif(tag, some_block, &[], none_block, &[]);
        // The closure's parameter, bound to the payload (or nothing, for `unwrap_or_else`).
        let run_body = |g: &mut Self| -> R<Vals> {
            if let Some(p) = param {
                g.bind_pat(p, payload_ty, payload)?;
            }
            g.expr(body)
        };
        self.b.switch_to_block(some_block);
        self.b.seal_block(some_block);
        use OptionClosureMethod::*;
        let when_some: Vals = match method {
            Map => {
                let v = run_body(self)?;
                let one = self.b.ins().iconst(types::I8, 1);
                std::iter::once(one).chain(v).collect()
            }
            AndThen | IsSomeAnd | IsNoneOr => run_body(self)?,
            Filter => {
                let keep = run_body(self)?;
                let keep = keep.first().copied().ok_or_else(|| CodegenError("a filter's result".into()))?;
                std::iter::once(keep).chain(payload.iter().copied()).collect()
            }
            UnwrapOrElse => payload.to_vec(),
        };
        self.jump_with(merge, &ts, when_some);
        self.b.switch_to_block(none_block);
        self.b.seal_block(none_block);
        let when_none: Vals = match method {
            UnwrapOrElse => self.expr(body)?,
            IsNoneOr => vec![self.b.ins().iconst(types::I8, 1)],
            IsSomeAnd => vec![self.b.ins().iconst(types::I8, 0)],
            // `None` (its payload is filled with zeros).
            Map | AndThen | Filter => vec![self.b.ins().iconst(types::I8, 0)],
        };
        let when_none = if when_none.len() == 1 && ts.len() >= 2 {
            let zeros: Vals = ts[1..].iter().map(|&t| self.zero(t)).collect();
            std::iter::once(when_none[0]).chain(zeros).collect()
        } else {
            when_none
        };
        self.jump_with(merge, &ts, when_none);
        Ok(self.enter_merge(merge))
    }
}
