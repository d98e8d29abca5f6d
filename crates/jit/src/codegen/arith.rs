//! Scalars: literals, debug-build arithmetic with rustc's overflow and division faults, casts, scalar methods.

use crate::abi::Fault;
use crate::codegen::{clif, CodegenError, Gen, Vals, R};
use crate::helper::{FloatOp, Helper};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, InstructionData, MemFlags, Opcode, Type, Value};
use lacuna_ir::{BinOp, Lit, Method, ParseThen, Scalar, ScalarMethod, TExpr, TKind};

/// `k` when `e` is an integer literal `2^k` that fits its type.
/// `x % 2^k` on integers up to 64 bits: `(x, k)`.
pub(super) fn remainder_by_power_of_two(e: &TExpr) -> Option<(&TExpr, u32)> {
    match &e.kind {
        TKind::Binary(BinOp::Rem, x, r) if x.s().is_int() && x.s().int_bits()? <= 64 => {
            Some((x.as_ref(), power_of_two(r)?))
        }
        _ => None,
    }
}

pub(super) fn is_zero(e: &TExpr) -> bool {
    matches!(e.kind, TKind::Lit(Lit::Int(0)))
}

pub(super) fn power_of_two(e: &TExpr) -> Option<u32> {
    match e.kind {
        TKind::Lit(Lit::Int(v)) if v.is_power_of_two() && e.s().is_int() => {
            let k = v.trailing_zeros();
            // For signed types 2^(bits-1) does not fit; leave such cases to the general path.
            let limit = e.s().int_bits()? - u32::from(e.s().is_signed());
            (k < limit).then_some(k)
        }
        _ => None,
    }
}

/// `c * x + d`, `x * c + d`, `d + c * x` or `c * x - d` on integers up to 64 bits, `c` (at least 2) and `d` literals:
/// `(x, c, d, the multiplication's position)`, `d` negated for `-`.
pub(super) fn scaled_plus_constant(e: &TExpr) -> Option<(&TExpr, i128, i128, usize)> {
    let TKind::Binary(op @ (BinOp::Add | BinOp::Sub), l, r) = &e.kind else { return None };
    if !e.s().is_int() || e.s().int_bits()? > 64 {
        return None;
    }
    let int = |e: &TExpr| match e.kind {
        TKind::Lit(Lit::Int(v)) => i128::try_from(v).ok(),
        _ => None,
    };
    let (m, d) = match (op, int(l), int(r)) {
        (_, None, Some(d)) => (l, d),
        (BinOp::Add, Some(d), None) => (r, d),
        _ => return None,
    };
    let TKind::Binary(BinOp::Mul, a, b) = &m.kind else { return None };
    let (x, c) = match (int(a), int(b)) {
        (Some(c), None) => (b, c),
        (None, Some(c)) => (a, c),
        _ => return None,
    };
    let d = if *op == BinOp::Sub { -d } else { d };
    (c >= 2 && scaled_ranges(c, d, e.s()).is_some()).then_some((x.as_ref(), c, d, m.range.start))
}

/// For `c * x + d` with `c` at least 2 on `ty`: the values of `ty`, the range of `x` whose product fits, and the
/// range where the sum fits too; `None` when no `x` does.
#[allow(clippy::type_complexity)]
fn scaled_ranges(c: i128, d: i128, ty: Scalar) -> Option<((i128, i128), (i128, i128), (i128, i128))> {
    let (min, max) = int_range(ty.is_signed(), ty.int_bits()?);
    let ceil = |n: i128| n.div_euclid(c) + i128::from(n.rem_euclid(c) != 0);
    let product = (ceil(min), max.div_euclid(c));
    let both = (product.0.max(ceil(min - d)), product.1.min((max - d).div_euclid(c)));
    (both.0 <= both.1).then_some(((min, max), product, both))
}

/// The values of an integer type of `bits` bits.
fn int_range(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

impl<'a, 'b> Gen<'a, 'b> {
    pub(super) fn lit(&mut self, lit: &Lit, ty: Scalar, negate: bool) -> Option<Value> {
        let t = clif(ty)?;
        Some(match lit {
            Lit::Int(v) if ty.is_float() => {
                let f = if negate { -(*v as f64) } else { *v as f64 };
                if ty == Scalar::F32 {
                    self.b.ins().f32const(f as f32)
                } else {
                    self.b.ins().f64const(f)
                }
            }
            Lit::Int(v) => {
                let v = if negate { (*v as i128).wrapping_neg() } else { *v as i128 };
                self.b.ins().iconst(t, v as i64)
            }
            Lit::Float(f) => {
                let f = if negate { -f } else { *f };
                if ty == Scalar::F32 {
                    self.b.ins().f32const(f as f32)
                } else {
                    self.b.ins().f64const(f)
                }
            }
            Lit::Bool(b) => self.b.ins().iconst(types::I8, *b as i64),
            Lit::Char(c) => self.b.ins().iconst(types::I32, *c as u32 as i64),
            Lit::Unit | Lit::Str(_) => return None,
        })
    }

    /// The value of `x` when it is an integer constant here, sign-extended from its type's width.
    pub(super) fn constant(&self, x: Value) -> Option<i64> {
        let inst = self.b.func.dfg.value_def(x).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => {
                Some(imm.sign_extend_from_width(self.b.func.dfg.value_type(x).bits()).bits())
            }
            _ => None,
        }
    }

    /// `x * c` for a constant `c` and whether it overflowed: the product wrapping (`imul` by an immediate) and the
    /// overflow as a range check of `x` (`MIN / c ..= MAX / c`, one unsigned compare), neither through the
    /// one-operand multiply that `smul_overflow` needs.
    pub(super) fn mul_by_constant(&mut self, x: Value, c: i64, signed: bool, bits: u32) -> (Value, Value) {
        let v = self.times_constant(x, c);
        let (min, max) = int_range(signed, bits);
        let c = if signed { i128::from(c) } else { i128::from(c as u64) & max };
        // The range of `x` whose product fits (Rust's `/` truncates, which rounds each bound inwards).
        let (lo, hi) = match c {
            0 | 1 => (min, max),
            -1 => (min + 1, max),
            c if c > 0 => (min / c, max / c),
            c => (max / c, min / c),
        };
        let over = self.outside(x, (lo, hi), (min, max));
        (v, over)
    }

    /// `x * c`, wrapping: `x * 3`, `* 5`, `* 9` as one `lea`; powers of two become shifts in Cranelift itself.
    fn times_constant(&mut self, x: Value, c: i64) -> Value {
        match c {
            3 | 5 | 9 => {
                let shifted = self.b.ins().ishl_imm(x, (c - 1).trailing_zeros() as i64);
                self.b.ins().iadd(x, shifted)
            }
            _ => self.b.ins().imul_imm(x, c),
        }
    }

    /// Whether `x` of a type whose values are `all` lies outside `lo..=hi`: one unsigned compare, or a constant
    /// false when the range is all of them.
    fn outside(&mut self, x: Value, (lo, hi): (i128, i128), all: (i128, i128)) -> Value {
        if (lo, hi) == all {
            return self.b.ins().iconst(types::I8, 0);
        }
        let t = self.b.func.dfg.value_type(x);
        let shifted = self.b.ins().iadd_imm(x, (-lo) as i64);
        let span = self.int_const(t, (hi - lo) as i64);
        self.b.ins().icmp(IntCC::UnsignedGreaterThan, shifted, span)
    }

    /// `c * x + d` ([`scaled_plus_constant`], `x` of type `ty`): the result as one `lea` where the constants allow,
    /// and both overflow checks as one range test of `x` (the range where neither the product nor the sum
    /// overflows); which of the two faults it was is told apart on the cold path.
    pub(super) fn scaled_plus(&mut self, x: Value, (c, d): (i128, i128), ty: Scalar, at: (usize, usize)) -> R<Value> {
        let Some(((min, max), product, both)) = scaled_ranges(c, d, ty) else {
            return Err(CodegenError(format!("`{c} * x + {d}` on `{}`, which no `x` fits", ty.name())));
        };
        let scaled = self.times_constant(x, c as i64);
        let v = self.b.ins().iadd_imm(scaled, d as i64);
        let over = self.outside(x, both, (min, max));
        let add = if d >= 0 { Fault::Add } else { Fault::Sub };
        self.fault_if_either(over, |g| g.outside(x, product, (min, max)), (Fault::Mul, at.0), (add, at.1));
        Ok(v)
    }

    /// `l + r` or `l - r` and whether it overflowed, as a comparison where one decides it: a branch on a compare
    /// fuses into `cmp; jcc`, while one on an `*_overflow` flag goes through `seto; test; jnz`.
    pub(super) fn add_or_sub(&mut self, add: bool, signed: bool, l: Value, r: Value) -> (Value, Value) {
        let v = if add { self.b.ins().iadd(l, r) } else { self.b.ins().isub(l, r) };
        if !signed {
            // Unsigned: a sum wrapped iff it is below an operand; a difference iff `l < r`.
            let over = if add {
                self.b.ins().icmp(IntCC::UnsignedLessThan, v, l)
            } else {
                self.b.ins().icmp(IntCC::UnsignedLessThan, l, r)
            };
            return (v, over);
        }
        // Signed with a constant operand `c`: `l + c` wrapped iff it moved against `c`'s sign.
        let (x, c) = match (self.constant(l), self.constant(r)) {
            (_, Some(c)) => (l, c),
            (Some(c), None) if add => (r, c),
            _ => {
                let (v, over) = if add { self.b.ins().sadd_overflow(l, r) } else { self.b.ins().ssub_overflow(l, r) };
                return (v, over);
            }
        };
        let over = match (c.signum(), add) {
            (0, _) => self.b.ins().iconst(types::I8, 0),
            (1, true) | (-1, false) => self.b.ins().icmp(IntCC::SignedLessThan, v, x),
            _ => self.b.ins().icmp(IntCC::SignedGreaterThan, v, x),
        };
        (v, over)
    }
    /// `l / r` or `l % r` of integers, with rustc's checks: by zero (unless `nonzero`: the divisor is known not to
    /// be, [`Gen::nonzero`]) and, when signed, of the type's minimum by -1.
    pub(super) fn divide(
        &mut self,
        op: BinOp,
        signed: bool,
        bits: u32,
        (l, r): (Value, Value),
        at: usize,
        nonzero: bool,
    ) -> Value {
        if !nonzero {
            let zero = self.b.ins().icmp_imm(IntCC::Equal, r, 0);
            self.fault_if(zero, if op == BinOp::Div { Fault::DivByZero } else { Fault::RemByZero }, at);
        }
        if signed {
            let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
            let is_min = self.b.ins().icmp_imm(IntCC::Equal, l, min);
            let minus_one = self.b.ins().icmp_imm(IntCC::Equal, r, -1);
            let both = self.b.ins().band(is_min, minus_one);
            self.fault_if(both, if op == BinOp::Div { Fault::DivOverflow } else { Fault::RemOverflow }, at);
        }
        match (op, signed) {
            (BinOp::Div, true) => self.b.ins().sdiv(l, r),
            (BinOp::Div, false) => self.b.ins().udiv(l, r),
            (_, true) => self.b.ins().srem(l, r),
            (_, false) => self.b.ins().urem(l, r),
        }
    }

    pub(super) fn binary(&mut self, op: BinOp, lt: Scalar, rt: Scalar, l: Value, r: Value, at: usize) -> Value {
        use BinOp::*;
        if lt.is_float() {
            let f32 = lt == Scalar::F32;
            return match op {
                Add => self.b.ins().fadd(l, r),
                Sub => self.b.ins().fsub(l, r),
                Mul => self.b.ins().fmul(l, r),
                Div => self.b.ins().fdiv(l, r),
                Rem => self.call_helper(Helper::float(FloatOp::Rem, f32), &[l, r]),
                Eq => self.b.ins().fcmp(FloatCC::Equal, l, r),
                Ne => self.b.ins().fcmp(FloatCC::NotEqual, l, r),
                Lt => self.b.ins().fcmp(FloatCC::LessThan, l, r),
                Le => self.b.ins().fcmp(FloatCC::LessThanOrEqual, l, r),
                Gt => self.b.ins().fcmp(FloatCC::GreaterThan, l, r),
                Ge => self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, l, r),
                _ => l,
            };
        }
        let signed = lt.is_signed();
        let bits = lt.int_bits().unwrap_or(8);
        let t = clif(lt).unwrap_or(types::I8);
        match op {
            // (Not Rust on `bool`s; kept total, unchecked.)
            Add | Sub | Mul if lt == Scalar::Bool => match op {
                Add => self.b.ins().iadd(l, r),
                Sub => self.b.ins().isub(l, r),
                _ => self.b.ins().imul(l, r),
            },
            Add | Sub => {
                let (v, over) = self.add_or_sub(op == Add, signed, l, r);
                self.fault_if(over, if op == Add { Fault::Add } else { Fault::Sub }, at);
                v
            }
            Mul => {
                let constant_operand = match (self.constant(l), self.constant(r)) {
                    _ if bits > 64 => None,
                    (_, Some(c)) => Some((l, c)),
                    (Some(c), None) => Some((r, c)),
                    (None, None) => None,
                };
                let (v, over) = match (constant_operand, signed) {
                    (Some((x, c)), _) => self.mul_by_constant(x, c, signed, bits),
                    (None, true) => self.b.ins().smul_overflow(l, r),
                    (None, false) => self.b.ins().umul_overflow(l, r),
                };
                self.fault_if(over, Fault::Mul, at);
                v
            }
            Div | Rem => self.divide(op, signed, bits, (l, r), at, false),
            BitAnd => self.b.ins().band(l, r),
            BitOr => self.b.ins().bor(l, r),
            BitXor => self.b.ins().bxor(l, r),
            Shl | Shr => {
                // Rust checks the amount as unsigned against the width (a negative amount is huge).
                let too_far = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThanOrEqual, r, bits as i64);
                self.fault_if(too_far, if op == Shl { Fault::Shl } else { Fault::Shr }, at);
                let amount = self.resize(r, clif(rt).unwrap_or(types::I64), t, false);
                match (op, signed) {
                    (Shl, _) => self.b.ins().ishl(l, amount),
                    (_, true) => self.b.ins().sshr(l, amount),
                    (_, false) => self.b.ins().ushr(l, amount),
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let cc = match (op, signed) {
                    (Eq, _) => IntCC::Equal,
                    (Ne, _) => IntCC::NotEqual,
                    (Lt, true) => IntCC::SignedLessThan,
                    (Lt, false) => IntCC::UnsignedLessThan,
                    (Le, true) => IntCC::SignedLessThanOrEqual,
                    (Le, false) => IntCC::UnsignedLessThanOrEqual,
                    (Gt, true) => IntCC::SignedGreaterThan,
                    (Gt, false) => IntCC::UnsignedGreaterThan,
                    (_, true) => IntCC::SignedGreaterThanOrEqual,
                    (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(cc, l, r)
            }
            And | Or => l,
        }
    }

    /// `x / 2^k` or `x % 2^k` with Rust's semantics (truncation toward zero; the remainder has the dividend's sign).
    pub(super) fn div_by_power_of_two(&mut self, op: BinOp, ty: Scalar, x: Value, k: u32) -> Value {
        let t = clif(ty).unwrap_or(types::I64);
        let bits = ty.int_bits().unwrap_or(64) as i64;
        if k == 0 {
            return if op == BinOp::Div { x } else { self.b.ins().iconst(t, 0) };
        }
        if !ty.is_signed() {
            return if op == BinOp::Div {
                self.b.ins().ushr_imm(x, k as i64)
            } else {
                self.b.ins().band_imm(x, ((1u128 << k) - 1) as i64)
            };
        }
        // Bias negative dividends by 2^k - 1 so the arithmetic shift rounds toward zero.
        let sign = self.b.ins().sshr_imm(x, bits - 1);
        let bias = self.b.ins().ushr_imm(sign, bits - k as i64);
        let biased = self.b.ins().iadd(x, bias);
        let quotient = self.b.ins().sshr_imm(biased, k as i64);
        if op == BinOp::Div {
            quotient
        } else {
            let back = self.b.ins().ishl_imm(quotient, k as i64);
            self.b.ins().isub(x, back)
        }
    }

    /// An integer value from one width to another (sign- or zero-extending).
    pub(super) fn resize(&mut self, v: Value, from: Type, to: Type, signed: bool) -> Value {
        if from == to {
            v
        } else if from.bits() > to.bits() {
            self.b.ins().ireduce(to, v)
        } else if signed {
            self.b.ins().sextend(to, v)
        } else {
            self.b.ins().uextend(to, v)
        }
    }

    pub(super) fn cast(&mut self, v: Value, from: Scalar, to: Scalar) -> Value {
        let (Some(ft), Some(tt)) = (clif(from), clif(to)) else { return v };
        if from == to {
            return v;
        }
        match (from.is_float(), to.is_float()) {
            (true, true) => {
                if tt.bits() > ft.bits() {
                    self.b.ins().fpromote(tt, v)
                } else {
                    self.b.ins().fdemote(tt, v)
                }
            }
            (false, true) => {
                if from.is_signed() {
                    self.b.ins().fcvt_from_sint(tt, v)
                } else {
                    self.b.ins().fcvt_from_uint(tt, v)
                }
            }
            (true, false) => {
                // `as` saturates (NaN → 0): convert at 64 bits, clamp to the target's range, narrow.
                let bits = to.int_bits().unwrap_or(64);
                if to.is_signed() {
                    let wide = self.b.ins().fcvt_to_sint_sat(types::I64, v);
                    if bits == 64 {
                        return wide;
                    }
                    let (min, max) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
                    let lo = self.b.ins().iconst(types::I64, min);
                    let hi = self.b.ins().iconst(types::I64, max);
                    let c = self.b.ins().smax(wide, lo);
                    let c = self.b.ins().smin(c, hi);
                    self.b.ins().ireduce(tt, c)
                } else {
                    let wide = self.b.ins().fcvt_to_uint_sat(types::I64, v);
                    if bits == 64 {
                        return wide;
                    }
                    let hi = self.b.ins().iconst(types::I64, ((1u64 << bits) - 1) as i64);
                    let c = self.b.ins().umin(wide, hi);
                    self.b.ins().ireduce(tt, c)
                }
            }
            (false, false) => self.resize(v, ft, tt, from.is_signed()),
        }
    }

    /// A method of a scalar that gives a scalar ([`TKind::Method`] with a scalar receiver and result).
    pub(super) fn method(&mut self, name: Method, ty: Scalar, v: Value, args: &[Value], at: usize) -> R<Value> {
        let t = clif(ty).ok_or_else(|| CodegenError("method receiver".into()))?;
        let f32 = ty == Scalar::F32;
        let name = match name {
            Method::Scalar(m) => m,
            Method::Char(m) => {
                let op = self.int_const(types::I32, i64::from(m.op()));
                let f = self.helper(Helper::CharOp);
                let call = self.b.ins().call(f, &[v, op]);
                let r = self.b.inst_results(call)[0];
                return Ok(if m.maps() { r } else { self.b.ins().ireduce(types::I8, r) });
            }
            Method::Option(_) | Method::Checked(_) => {
                return Err(CodegenError(format!("the method `{name}` giving a scalar")));
            }
        };
        use ScalarMethod::*;
        Ok(match name {
            Abs if ty.is_float() => self.b.ins().fabs(v),
            Abs => {
                let bits = ty.int_bits().unwrap_or(64);
                let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                let is_min = self.b.ins().icmp_imm(IntCC::Equal, v, min);
                self.fault_if(is_min, Fault::Neg, at);
                let neg = self.b.ins().ineg(v);
                let negative = self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0);
                self.b.ins().select(negative, neg, v)
            }
            Signum if ty.is_float() => self.call_helper(Helper::float(FloatOp::Signum, f32), &[v]),
            Signum => {
                let one = self.b.ins().iconst(t, 1);
                let minus = self.b.ins().iconst(t, -1);
                let zero = self.b.ins().iconst(t, 0);
                let pos = self.b.ins().icmp_imm(IntCC::SignedGreaterThan, v, 0);
                let neg = self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0);
                let s = self.b.ins().select(neg, minus, zero);
                self.b.ins().select(pos, one, s)
            }
            IsPositive => self.b.ins().icmp_imm(IntCC::SignedGreaterThan, v, 0),
            IsNegative => self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0),
            CountOnes => {
                let c = self.b.ins().popcnt(v);
                self.resize(c, t, types::I32, false)
            }
            Sqrt => self.b.ins().sqrt(v),
            Floor => self.b.ins().floor(v),
            Ceil => self.b.ins().ceil(v),
            Min | Max if ty.is_float() => {
                let op = if name == Min { FloatOp::Min } else { FloatOp::Max };
                self.call_helper(Helper::float(op, f32), &[v, args[0]])
            }
            Min | Max => {
                let cc = match (name, ty.is_signed()) {
                    (Min, true) => IntCC::SignedLessThan,
                    (Min, false) => IntCC::UnsignedLessThan,
                    (_, true) => IntCC::SignedGreaterThan,
                    (_, false) => IntCC::UnsignedGreaterThan,
                };
                let keep = self.b.ins().icmp(cc, v, args[0]);
                self.b.ins().select(keep, v, args[0])
            }
            Trunc => self.b.ins().trunc(v),
            // Half-way cases away from zero, as std rounds: the integer part, one more (in `v`'s direction) when
            // the part cut off is at least a half. The part cut off is exact, and NaN compares false (a NaN or an
            // infinity gives its integer part: itself).
            Round => {
                let whole = self.b.ins().trunc(v);
                let cut = self.b.ins().fsub(v, whole);
                let cut = self.b.ins().fabs(cut);
                let (half, one) = if f32 {
                    (self.b.ins().f32const(0.5), self.b.ins().f32const(1.0))
                } else {
                    (self.b.ins().f64const(0.5), self.b.ins().f64const(1.0))
                };
                let away = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, cut, half);
                let step = self.b.ins().fcopysign(one, v);
                let up = self.b.ins().fadd(whole, step);
                self.b.ins().select(away, up, whole)
            }
            IsNan => self.b.ins().fcmp(FloatCC::Unordered, v, v),
            IsFinite | IsInfinite => {
                let magnitude = self.b.ins().fabs(v);
                let infinity =
                    if f32 { self.b.ins().f32const(f32::INFINITY) } else { self.b.ins().f64const(f64::INFINITY) };
                // (NaN compares false with both.)
                let cc = if name == IsFinite { FloatCC::LessThan } else { FloatCC::Equal };
                self.b.ins().fcmp(cc, magnitude, infinity)
            }
            Fract => {
                let whole = self.b.ins().trunc(v);
                self.b.ins().fsub(v, whole)
            }
            Powi => self.call_helper(Helper::float(FloatOp::Powi, f32), &[v, args[0]]),
            WrappingNeg => self.b.ins().ineg(v),
            UnsignedAbs => self.b.ins().iabs(v),
            AbsDiff => {
                let cc = if ty.is_signed() { IntCC::SignedGreaterThan } else { IntCC::UnsignedGreaterThan };
                let greater = self.b.ins().icmp(cc, v, args[0]);
                let down = self.b.ins().isub(v, args[0]);
                let up = self.b.ins().isub(args[0], v);
                self.b.ins().select(greater, down, up)
            }
            LeadingZeros | TrailingZeros | CountZeros => {
                let c = match name {
                    LeadingZeros => self.b.ins().clz(v),
                    TrailingZeros => self.b.ins().ctz(v),
                    _ => {
                        let flipped = self.b.ins().bnot(v);
                        self.b.ins().popcnt(flipped)
                    }
                };
                self.resize(c, t, types::I32, false)
            }
            IsPowerOfTwo => {
                let ones = self.b.ins().popcnt(v);
                self.b.ins().icmp_imm(IntCC::Equal, ones, 1)
            }
            SaturatingAdd | SaturatingSub | SaturatingMul => {
                let a = args[0];
                let signed = ty.is_signed();
                let (r, over) = match (name, signed) {
                    (SaturatingAdd, true) => self.b.ins().sadd_overflow(v, a),
                    (SaturatingAdd, false) => self.b.ins().uadd_overflow(v, a),
                    (SaturatingSub, true) => self.b.ins().ssub_overflow(v, a),
                    (SaturatingSub, false) => self.b.ins().usub_overflow(v, a),
                    (_, true) => self.b.ins().smul_overflow(v, a),
                    (_, false) => self.b.ins().umul_overflow(v, a),
                };
                let bits = ty.int_bits().unwrap_or(64);
                let (min, max) = if signed {
                    let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                    (min, !min)
                } else {
                    (0, if bits == 64 { -1 } else { (1i64 << bits) - 1 })
                };
                let (min, max) = (self.b.ins().iconst(t, min), self.b.ins().iconst(t, max));
                // Which bound the true result passed: a signed sum past the top when `a` is positive, a difference
                // when `a` is negative, a product when the signs agree; unsigned ones only one way.
                let toward_max = match (name, signed) {
                    (SaturatingAdd, true) => self.b.ins().icmp_imm(IntCC::SignedGreaterThan, a, 0),
                    (SaturatingSub, true) => self.b.ins().icmp_imm(IntCC::SignedLessThan, a, 0),
                    (_, true) => {
                        let signs = self.b.ins().bxor(v, a);
                        self.b.ins().icmp_imm(IntCC::SignedGreaterThanOrEqual, signs, 0)
                    }
                    (SaturatingSub, false) => self.b.ins().iconst(types::I8, 0),
                    _ => self.b.ins().iconst(types::I8, 1),
                };
                let bound = self.b.ins().select(toward_max, max, min);
                self.b.ins().select(over, bound, r)
            }
            WrappingAdd => self.b.ins().iadd(v, args[0]),
            WrappingSub => self.b.ins().isub(v, args[0]),
            WrappingMul => self.b.ins().imul(v, args[0]),
            Pow => {
                let bits = ty.int_bits().unwrap_or(64);
                let wide = self.resize(v, t, types::I64, ty.is_signed());
                let slot = self.b.create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                    cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                    1,
                    0,
                ));
                let flag_ptr = self.b.ins().stack_addr(types::I64, slot, 0);
                let bits_v = self.b.ins().iconst(types::I32, bits as i64);
                let signed_v = self.b.ins().iconst(types::I32, ty.is_signed() as i64);
                let r = self.call_helper(Helper::Pow, &[wide, args[0], bits_v, signed_v, flag_ptr]);
                let over = self.b.ins().load(types::I8, MemFlags::trusted(), flag_ptr, 0);
                self.fault_if(over, Fault::Mul, at);
                self.resize(r, types::I64, t, ty.is_signed())
            }
        })
    }

    /// `T::try_from(value)` between integer types, consumed where it is made ([`TKind::TryConvert`]).
    pub(super) fn try_convert(&mut self, value: &TExpr, target: Scalar, then: &ParseThen, name_at: usize) -> R<Vals> {
        let source = value.s();
        let (Some(st), Some(tt)) = (clif(source), clif(target)) else {
            return Err(CodegenError("an integer conversion".into()));
        };
        let v = self.one(value)?;
        // In range of the target: compared in the source's type, against the bounds both types share.
        let range = |s: Scalar| -> (i128, i128) {
            let bits = s.int_bits().unwrap_or(64);
            if s.is_signed() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            }
        };
        let ((smin, smax), (tmin, tmax)) = (range(source), range(target));
        let (lo, hi) = (smin.max(tmin), smax.min(tmax));
        let signed = source.is_signed();
        let mut ok = self.b.ins().iconst(types::I8, 1);
        if lo > smin {
            let k = self.int_const(st, lo as i64);
            let cc = if signed { IntCC::SignedGreaterThanOrEqual } else { IntCC::UnsignedGreaterThanOrEqual };
            let c = self.b.ins().icmp(cc, v, k);
            ok = self.b.ins().band(ok, c);
        }
        if hi < smax {
            // `hi` fits the source type; as a bit pattern for unsigned 64-bit sources.
            let k = self.int_const(st, hi as u64 as i64);
            let cc = if signed { IntCC::SignedLessThanOrEqual } else { IntCC::UnsignedLessThanOrEqual };
            let c = self.b.ins().icmp(cc, v, k);
            ok = self.b.ins().band(ok, c);
        }
        let converted = self.cast(v, source, target);
        let errors = ["TryFromIntError(())".to_owned()];
        self.consume_result(then, ok, converted, tt, &errors, None, name_at)
    }
}
