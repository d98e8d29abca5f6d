//! Host statics of std's atomic types ([`TKind::Atomic`]): each operation done in place, at the static's address.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AtomicRmwOp, InstBuilder, MemFlags};
use lacuna_ir::{AtomicMethod, Scalar, TExpr, TKind, TypedSnippet};

use crate::codegen::scan::each_expr;
use crate::codegen::{clif, CodegenError, Gen, HostAbi, Vals, R};

/// The addresses of the host statics the snippet's atomic operations act on, by symbol: each asked once, of the
/// function the instrumented host exports for the static ([`lacuna_ir::atomic_static_symbol`]).
pub(super) fn atomic_statics(snippet: &TypedSnippet, host: &HostAbi<'_>) -> R<HashMap<String, usize>> {
    let mut symbols = Vec::new();
    each_expr(snippet, &mut |e| {
        if let TKind::Atomic { symbol, .. } = &e.kind {
            symbols.push(symbol.clone());
        }
    });
    let mut out = HashMap::new();
    for symbol in symbols {
        let address = host.exported(&symbol)?;
        // SAFETY: the instrumented host defines this symbol as `extern "C" fn() -> *const u8`, which only takes
        // a static's address; the library stays loaded, so the static does too.
        let at = unsafe { std::mem::transmute::<*const u8, extern "C" fn() -> *const u8>(address)() };
        if at.is_null() {
            return Err(CodegenError(format!("`{symbol}` gave no address")));
        }
        out.insert(symbol, at as usize);
    }
    Ok(out)
}

impl Gen<'_, '_> {
    /// `S.method(value)` at `S`'s address. Cranelift's atomic instructions are sequentially consistent, which
    /// is at least what any ordering asks; std's integer atomics wrap, as these do. A `bool` is a byte holding
    /// 0 or 1, which `and`, `or`, `xor` and a swap keep so.
    pub(super) fn atomic(
        &mut self,
        symbol: &str,
        method: AtomicMethod,
        value: Option<&TExpr>,
        scalar: Scalar,
    ) -> R<Vals> {
        let at = *self.atomics.get(symbol).ok_or_else(|| CodegenError(format!("no `{symbol}`")))?;
        let ty = clif(scalar).filter(|t| t.is_int()).ok_or_else(|| CodegenError("an atomic of this type".into()))?;
        let operand = value.map(|v| self.one(v)).transpose()?;
        let address = self.address_const(at, format!("static {symbol}"));
        let flags = MemFlags::trusted();
        let signed = scalar.is_signed();
        let op = match method {
            AtomicMethod::Load => return Ok(vec![self.b.ins().atomic_load(ty, flags, address)]),
            AtomicMethod::Store => {
                let v = operand.ok_or_else(|| CodegenError("a `store` without a value".into()))?;
                self.b.ins().atomic_store(flags, v, address);
                return Ok(Vec::new());
            }
            AtomicMethod::Swap => AtomicRmwOp::Xchg,
            AtomicMethod::FetchAdd => AtomicRmwOp::Add,
            AtomicMethod::FetchSub => AtomicRmwOp::Sub,
            AtomicMethod::FetchMax if signed => AtomicRmwOp::Smax,
            AtomicMethod::FetchMax => AtomicRmwOp::Umax,
            AtomicMethod::FetchMin if signed => AtomicRmwOp::Smin,
            AtomicMethod::FetchMin => AtomicRmwOp::Umin,
            AtomicMethod::FetchAnd => AtomicRmwOp::And,
            AtomicMethod::FetchOr => AtomicRmwOp::Or,
            AtomicMethod::FetchXor => AtomicRmwOp::Xor,
        };
        let v = operand.ok_or_else(|| CodegenError(format!("`{method}` without a value")))?;
        let old = self.b.ins().atomic_rmw(ty, flags, op, address, v);
        // A `bool`'s old byte is 0 or 1 already; compared anyway, so the value is canonical whatever was stored.
        let old = if scalar == Scalar::Bool { self.b.ins().icmp_imm(IntCC::NotEqual, old, 0) } else { old };
        Ok(vec![old])
    }
}
