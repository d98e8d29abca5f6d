//! Host structs and enums: values boxed in the run's heap, and the host's shims that drop, clone, compare and format them.

use crate::abi::{Fault, RUN_OFFSET};
use crate::codegen::scan::each_expr;
use crate::codegen::{clif, CodegenError, Gen, HostAbi, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, AbiParam, MemFlags, StackSlot, StackSlotData, StackSlotKind, Type, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{Elem, LocalRef, Place, Receiver, Scalar, TExpr, TKind, Ty, TypedSnippet};
use std::collections::HashMap;

/// A host struct's layout and shims, as the instrumented host's `__lacuna_shims_*` function reports them
/// (`instrument::struct_shims`); a shim is 0 when the struct does not implement its trait.
#[derive(Debug, Clone, Copy)]
pub(super) struct StructShims {
    pub(super) size: usize,
    pub(super) align: usize,
    pub(super) drop: usize,
    pub(super) clone: usize,
    pub(super) eq: usize,
    pub(super) display: usize,
    pub(super) debug: usize,
    /// `PartialOrd`'s operators: `(run, out, a, b, op) -> status`, `op` 0 `<`, 1 `<=`, 2 `>`, 3 `>=`.
    pub(super) ord: usize,
}

/// The shims of each host struct the snippet uses (by index into [`TypedSnippet::structs`]), where the host
/// exports them.
pub(super) fn struct_shims(snippet: &TypedSnippet, host: &HostAbi<'_>) -> HashMap<usize, StructShims> {
    let mut out = HashMap::new();
    for (id, size_symbol) in snippet.structs.iter().enumerate() {
        let Some(address) = (host.symbol)(&lacuna_ir::struct_shims_symbol(size_symbol)) else { continue };
        let mut words = [0usize; 8];
        // SAFETY: the instrumented host defines this symbol as `unsafe extern "C" fn(*mut [usize; 8])`, which only
        // writes the array (`instrument::struct_shims`); the host library stays loaded.
        unsafe {
            let f = std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut [usize; 8])>(address);
            f(&mut words);
        }
        let [size, align, drop, clone, eq, display, debug, ord] = words;
        out.insert(id, StructShims { size, align, drop, clone, eq, display, debug, ord });
    }
    out
}

/// The variant, field and unit-variant shims of each host enum the snippet uses, where the host exports them (a
/// unit-variant shim 0 where it does not).
pub(super) fn enum_fns(snippet: &TypedSnippet, host: &HostAbi<'_>) -> HashMap<usize, (usize, usize, usize)> {
    let mut out = HashMap::new();
    for (id, size_symbol) in snippet.structs.iter().enumerate() {
        let variant = (host.symbol)(&lacuna_ir::enum_variant_symbol(size_symbol));
        let field = (host.symbol)(&lacuna_ir::enum_field_symbol(size_symbol));
        let unit = (host.symbol)(&lacuna_ir::enum_unit_symbol(size_symbol)).map_or(0, |u| u as usize);
        if let (Some(variant), Some(field)) = (variant, field) {
            out.insert(id, (variant as usize, field as usize, unit));
        }
    }
    out
}

/// The shims finding the payloads of the `Option` fields the snippet reads ([`TKind::OptionField`]), by symbol.
pub(super) fn option_fns(snippet: &TypedSnippet, host: &HostAbi<'_>) -> R<HashMap<String, usize>> {
    let mut symbols = Vec::new();
    each_expr(snippet, &mut |e| {
        if let TKind::OptionField { symbol, .. } = &e.kind {
            symbols.push(symbol.clone());
        }
    });
    let mut out = HashMap::new();
    for symbol in symbols {
        let address = host.exported(&symbol)?;
        out.insert(symbol, address as usize);
    }
    Ok(out)
}

/// The snippet calls a host struct's shims (which run under the host library's `run_snippet`).
pub(super) fn uses_struct_shims(snippet: &TypedSnippet) -> bool {
    let mut found = false;
    each_expr(snippet, &mut |e| {
        found |= match &e.kind {
            TKind::StructClone(_) | TKind::StructEq { .. } | TKind::StructOrd { .. } => true,
            TKind::Format(pieces) | TKind::Print { pieces, .. } => pieces.iter().any(|p| {
                matches!(p, lacuna_ir::FmtPiece::Arg { value, .. } if matches!(value.ty, Ty::Struct(_) | Ty::StructRef(_)))
            }),
            _ => false,
        };
    });
    found
}

impl<'a, 'b> Gen<'a, 'b> {
    /// Calls a host enum's `__lacuna_variant_*` (`field`: false) or `__lacuna_field_*` shim; `None` (noted in
    /// `missing`, which fails the compilation) when the host does not export it.
    pub(super) fn enum_call(&mut self, adt: usize, field: bool, args: &[Value]) -> Option<Value> {
        let Some(&(variant_fn, field_fn, _)) = self.enum_fns.get(&adt) else {
            self.missing.get_or_insert_with(|| "a host enum without shims".to_owned());
            return None;
        };
        let ret = if field { self.b.func.dfg.value_type(self.ctx) } else { types::I32 };
        Some(self.call_address(if field { field_fn } else { variant_fn }, args, ret))
    }

    /// An `Option` field of the host struct at `base` read in place ([`TKind::OptionField`]): its tag, then its
    /// payload's parts (a scalar, text, an address; zeros for `None`), where the host's shim says the payload is.
    pub(super) fn option_field(&mut self, base: Value, symbol: &str, payload: &Ty) -> R<Vals> {
        let shim = *self.option_fns.get(symbol).ok_or_else(|| CodegenError(format!("no `{symbol}`")))?;
        let ptr = self.b.func.dfg.value_type(self.ctx);
        // SAFETY of the call: the instrumented host defines the symbol as `unsafe extern "C" fn(*const u8) -> *const
        // u8`, which only matches on the field of the struct `base` points to (`instrument::render`).
        let at = self.call_address(shim, &[base], ptr);
        let tag = self.b.ins().icmp_imm(IntCC::NotEqual, at, 0);
        if let Ty::StructRef(_) = payload {
            return Ok(vec![tag, at]);
        }
        // `None` reads its payload's parts from zeros of the payload's size (at most a `String`'s three words).
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 3));
        let zero = self.b.ins().iconst(types::I64, 0);
        for offset in [0, 8, 16] {
            self.b.ins().stack_store(zero, slot, offset);
        }
        let zeros = self.b.ins().stack_addr(ptr, slot, 0);
        let address = self.b.ins().select(tag, at, zeros);
        let mut out = vec![tag];
        match payload {
            Ty::Str => out.extend(self.text_at(address)?),
            ty => {
                let t = ty.scalar().and_then(clif).ok_or_else(|| CodegenError("an `Option` field's payload".into()))?;
                out.push(self.b.ins().load(t, MemFlags::trusted(), address, 0));
            }
        }
        Ok(out)
    }

    /// Calls the host library's function at `address` with `args` (its parameters their types) and a result of
    /// type `ret`.
    pub(super) fn call_address(&mut self, address: usize, args: &[Value], ret: Type) -> Value {
        let mut sig = cranelift_codegen::ir::Signature::new(self.b.func.signature.call_conv);
        for &a in args {
            sig.params.push(AbiParam::new(self.b.func.dfg.value_type(a)));
        }
        sig.returns.push(AbiParam::new(ret));
        let sig = self.b.import_signature(sig);
        let callee = self.address_const(address, "host shim");
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call)[0]
    }

    /// Calls the host function at `address` that returns nothing.
    pub(super) fn call_address_void(&mut self, address: usize, args: &[Value]) {
        let mut sig = cranelift_codegen::ir::Signature::new(self.b.func.signature.call_conv);
        for &a in args {
            sig.params.push(AbiParam::new(self.b.func.dfg.value_type(a)));
        }
        let sig = self.b.import_signature(sig);
        let callee = self.address_const(address, "host shim");
        self.b.ins().call_indirect(sig, callee, args);
    }

    /// The layout and shims the host exports for struct `id`.
    pub(super) fn shims_of(&self, id: usize) -> R<StructShims> {
        self.shims.get(&id).copied().ok_or_else(|| CodegenError("a host struct without shims".into()))
    }

    /// Calls a host struct's shim (`instrument::ENTRY_POINTS`): `(run, args..) -> status`, under the host library's
    /// `run_snippet`; a panic in it is a [`Fault::HostPanic`] at `at`.
    pub(super) fn call_shim(&mut self, shim: usize, what: &str, args: &[Value], at: usize) -> R<()> {
        if shim == 0 {
            return Err(CodegenError(format!("a host struct that does not implement {what}")));
        }
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let run = self.b.ins().load(ptr, MemFlags::trusted(), self.ctx, RUN_OFFSET);
        let mut values = vec![run];
        values.extend_from_slice(args);
        self.store_fuel();
        let status = self.call_address(shim, &values, types::I32);
        self.load_fuel();
        let panicked = self.b.ins().icmp_imm(IntCC::NotEqual, status, 0);
        self.fault_if(panicked, Fault::HostPanic, at);
        self.after_host_call(at);
        Ok(())
    }

    /// `x.clone()` of the host struct at `source`: a new box the run owns.
    pub(super) fn struct_clone(&mut self, id: usize, source: Value, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let boxed = self.struct_alloc(shims, at);
        self.call_shim(shims.clone, "`Clone`", &[boxed, source], at)?;
        self.struct_ready(shims, boxed);
        Ok(boxed)
    }

    /// `E::V`, unit variant `index` of host enum `id`: a new box the run owns, the variant written into it by the
    /// host's shim ([`TKind::UnitVariant`]).
    pub(super) fn unit_variant(&mut self, id: usize, index: u32, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let unit = match self.enum_fns.get(&id) {
            Some(&(_, _, unit)) if unit != 0 => unit,
            _ => return Err(CodegenError("a host enum without a unit-variant shim".into())),
        };
        let boxed = self.struct_alloc(shims, at);
        let index = self.int_const(types::I32, i64::from(index));
        // The shim only writes a value (no host code runs, nothing can panic); the checker gives only unit variants.
        self.call_address(unit, &[boxed, index], types::I32);
        self.struct_ready(shims, boxed);
        Ok(boxed)
    }

    /// A new box for a host struct, its value not written yet (a fault before [`Self::struct_ready`] frees it
    /// without dropping it).
    pub(super) fn struct_alloc(&mut self, shims: StructShims, at: usize) -> Value {
        let size = self.int_const(types::I64, shims.size as i64);
        let align = self.int_const(types::I64, shims.align as i64);
        let alloc = self.helper(Helper::StructAlloc);
        let call = self.b.ins().call(alloc, &[self.ctx, size, align]);
        let boxed = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, boxed, 0);
        self.helper_fault_if(failed, at);
        boxed
    }

    /// The struct in the box is complete: dropping the box drops it.
    pub(super) fn struct_ready(&mut self, shims: StructShims, boxed: Value) {
        let drop = self.address_const(shims.drop, "drop shim");
        let ready = self.helper(Helper::StructReady);
        self.b.ins().call(ready, &[self.ctx, boxed, drop]);
    }

    /// `a == b` of two host structs (at `a` and `b`): a `bool`.
    pub(super) fn struct_eq(&mut self, id: usize, a: Value, b: Value, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let out = self.b.ins().stack_addr(ptr, slot, 0);
        self.call_shim(shims.eq, "`PartialEq`", &[out, a, b], at)?;
        Ok(self.b.ins().stack_load(types::I8, slot, 0))
    }

    /// `a < b` (`op` 0; 1 `<=`, 2 `>`, 3 `>=`) of two host structs (at `a` and `b`) by the host's `PartialOrd`:
    /// a `bool`.
    pub(super) fn struct_ordered(&mut self, id: usize, a: Value, b: Value, op: u32, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let out = self.b.ins().stack_addr(ptr, slot, 0);
        let op = self.int_const(types::I32, i64::from(op));
        self.call_shim(shims.ord, "`PartialOrd`", &[out, a, b, op], at)?;
        Ok(self.b.ins().stack_load(types::I8, slot, 0))
    }

    /// The host struct at `address` formatted by its `Display` (or `Debug`) into a new `String` the run owns:
    /// its pointer, capacity and length.
    pub(super) fn struct_text(
        &mut self,
        id: usize,
        address: Value,
        debug: bool,
        alternate: bool,
        at: usize,
    ) -> R<[Value; 3]> {
        let shims = self.shims_of(id)?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 3));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let out = self.b.ins().stack_addr(ptr, slot, 0);
        let alternate = self.int_const(types::I32, i64::from(alternate));
        let (shim, what) = if debug { (shims.debug, "`Debug`") } else { (shims.display, "`Display`") };
        self.call_shim(shim, what, &[out, address, alternate], at)?;
        let parts: Vec<Value> = (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect();
        let adopt = self.helper(Helper::VecAdopt);
        let one = self.int_const(types::I64, 1);
        self.b.ins().call(adopt, &[self.ctx, parts[0], parts[1], one]);
        Ok([parts[0], parts[1], parts[2]])
    }

    /// `{:?}` of the host struct at `address` only where `held` (an `Option`'s tag): its text's pointer and length,
    /// zeros otherwise (a `None` holds no struct to format, and freeing a zero pointer frees nothing).
    pub(super) fn struct_text_if(&mut self, id: usize, held: Value, address: Value, at: usize) -> R<[Value; 2]> {
        let format = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I64);
        self.b.append_block_param(done, types::I64);
        let zero = self.int_const(types::I64, 0);
        self.b.ins().brif(held, format, &[], done, &[zero.into(), zero.into()]);
        self.b.switch_to_block(format);
        self.b.seal_block(format);
        let [data, _, len] = self.struct_text(id, address, true, false, at)?;
        self.b.ins().jump(done, &[data.into(), len.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        let params = self.b.block_params(done);
        Ok([params[0], params[1]])
    }

    /// The address of a scalar place lent to a host function ([`TKind::AddrOf`]): a hole binding's slot in the
    /// host, where a `&`/`&mut` binding points, or for a snippet local (kept in a variable) a stack slot holding
    /// its value, pushed on `lent` to be read back after the call.
    fn lent_address(&mut self, place: &Place, lent: &mut Vec<(Variable, StackSlot, Type)>) -> R<Value> {
        Ok(match place {
            Place::Local(LocalRef::Binding(b)) | Place::WholeBinding(b) => self.binding_ptr(*b),
            Place::Deref(b) => self.referent(*b),
            Place::Local(LocalRef::Snippet(id)) => {
                let var = match self.vars.get(id).map(Vec::as_slice) {
                    Some(&[var]) => var,
                    _ => return Err(CodegenError("a lent local that is not one scalar".into())),
                };
                let s = self.snippet.locals.get(*id).and_then(|l| l.ty.scalar());
                let Some(t) = s.and_then(clif) else {
                    return Err(CodegenError("a lent local that is not a scalar".into()));
                };
                let slot =
                    self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, t.bytes(), 3));
                let value = self.b.use_var(var);
                self.b.ins().stack_store(value, slot, 0);
                lent.push((var, slot, t));
                let ptr = self.b.func.dfg.value_type(self.ctx);
                self.b.ins().stack_addr(ptr, slot, 0)
            }
            // The struct's address, which the loop variable holds.
            Place::Elem { local, .. } => *self
                .read(LocalRef::Snippet(*local), &Ty::Scalar(Scalar::Unit))
                .first()
                .ok_or_else(|| CodegenError("an element's address".into()))?,
            Place::HostField(_) | Place::ElemField(_) => return Err(CodegenError("a field lent".into())),
        })
    }

    /// A call of a host function or method through its shim ([`TKind::HostCall`]).
    pub(super) fn host_call(
        &mut self,
        e: &TExpr,
        name: &str,
        symbol: &str,
        receiver: &Option<Receiver>,
        args: &[TExpr],
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            let mut values = Vec::with_capacity(args.len() + 3);
            match receiver {
                Some(Receiver::Binding(r)) => {
                    let this = if r.through_ref { self.referent(r.binding) } else { self.binding_ptr(r.binding) };
                    values.push(this);
                }
                // A host struct's address.
                Some(Receiver::InPlace(this)) => values.push(self.one(this)?),
                None => {}
            }
            // Snippet locals lent for the call: read back from their slots after it.
            let mut lent = Vec::new();
            for a in args {
                if let TKind::AddrOf { place, .. } = &a.kind {
                    let address = self.lent_address(place, &mut lent)?;
                    values.push(address);
                } else if let TKind::SliceOf { .. } = a.kind {
                    // `&[T]` / `&mut [T]`: pointer and length.
                    values.extend(self.expr(a)?);
                } else if a.ty == Ty::Str {
                    let (data, len) = self.text_parts(a)?;
                    values.extend([data, len]);
                } else {
                    values.push(self.one(a)?);
                }
            }
            let ret = clif(e.s());
            // The out slot: 32 bytes hold every result but a `Result` of a host struct (the tag and its bytes).
            let size = match &e.ty {
                Ty::Result(ok, err) => 32.max(8 + self.payload_size(ok)?.max(self.payload_size(err)?)),
                Ty::Struct(_) => 32.max(8 + self.payload_size(&e.ty)?),
                Ty::Option(p) if matches!(**p, Ty::Struct(_)) => 32.max(8 + self.payload_size(p)?),
                _ => 32,
            };
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 4));
            let ptr = self.b.func.dfg.value_type(self.ctx);
            let out = self.b.ins().stack_addr(ptr, slot, 0);
            let run = self.b.ins().load(ptr, MemFlags::trusted(), self.ctx, RUN_OFFSET);
            values.splice(0..0, [run, out]);
            let callee = *self.host_fns.get(symbol).ok_or_else(|| CodegenError(format!("host function `{name}`")))?;
            self.store_fuel();
            let call = self.b.ins().call(callee, &values);
            let status = self.b.inst_results(call)[0];
            self.load_fuel();
            for (var, slot, t) in lent {
                let v = self.b.ins().stack_load(t, slot, 0);
                self.b.def_var(var, v);
            }
            let panicked = self.b.ins().icmp_imm(IntCC::NotEqual, status, 0);
            self.fault_if(panicked, Fault::HostPanic, at);
            self.after_host_call(at);
            // The shim's layouts (`instrument::shim`): a `String` as [pointer, capacity, length], an `Option`
            // as a `u8` tag and the payload at offset 8.
            match &e.ty {
                Ty::String | Ty::Vec(Elem::StructRef(_) | Elem::Scalar(_) | Elem::Str | Elem::Tuple(_)) => {
                    let parts: Vals = (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect();
                    // The buffer's layout: a `String`'s bytes, or its elements' (`Gen::elem_layout`).
                    let (bytes, align) = match &e.ty {
                        Ty::Vec(elem) => {
                            let (size, align) = self.elem_layout(*elem)?;
                            (self.b.ins().imul_imm(parts[1], i64::from(size)), i64::from(align))
                        }
                        _ => (parts[1], 1),
                    };
                    let align = self.int_const(types::I64, align);
                    let adopt = self.helper(Helper::VecAdopt);
                    self.b.ins().call(adopt, &[self.ctx, parts[0], bytes, align]);
                    return Ok(parts);
                }
                Ty::Result(ok, err) => return self.result_from_slot(ok, err, slot, at),
                // A host struct by value: written where a `Result`'s payload is, moved into a box.
                Ty::Struct(_) => {
                    let held = self.b.ins().iconst(types::I8, 1);
                    return self.payload_from_slot(&e.ty, slot, held, at);
                }
                // `Option<String>`: the text's buffer is the run's when there is one (zeros for `None`); an
                // `Option<S>` of a host struct: moved into a box when there is one (a zero address for `None`).
                Ty::Option(p) if matches!(**p, Ty::String | Ty::Struct(_)) => {
                    let tag = self.b.ins().stack_load(types::I8, slot, 0);
                    let held = self.b.ins().icmp_imm(IntCC::NotEqual, tag, 0);
                    let payload = self.payload_from_slot(p, slot, held, at)?;
                    return Ok(std::iter::once(tag).chain(payload).collect());
                }
                // `Option<&str>`: the text's pointer and length (zeros for `None`).
                Ty::Option(p) if **p == Ty::Str => {
                    let tag = self.b.ins().stack_load(types::I8, slot, 0);
                    let held = self.b.ins().icmp_imm(IntCC::NotEqual, tag, 0);
                    let zero = self.zero(types::I64);
                    let mut values = vec![tag];
                    for offset in [8, 16] {
                        let v = self.b.ins().stack_load(types::I64, slot, offset);
                        values.push(self.b.ins().select(held, v, zero));
                    }
                    return Ok(values);
                }
                // `Option<&T>`: the reference, an address.
                Ty::Option(p) if matches!(**p, Ty::StructRef(_)) => {
                    let tag = self.b.ins().stack_load(types::I8, slot, 0);
                    let payload = self.b.ins().stack_load(types::I64, slot, 8);
                    return Ok(vec![tag, payload]);
                }
                Ty::Option(p) => {
                    let s = p.scalar().ok_or_else(|| CodegenError(format!("an `Option<{}>` result", p.name())))?;
                    let t = clif(s).ok_or_else(|| CodegenError(format!("an `Option<{}>` result", s.name())))?;
                    let tag = self.b.ins().stack_load(types::I8, slot, 0);
                    let payload = self.b.ins().stack_load(t, slot, 8);
                    return Ok(vec![tag, payload]);
                }
                _ => ret.map(|t| self.b.ins().stack_load(t, slot, 0)),
            }
        };
        Ok(value.into_iter().collect())
    }

    /// A host struct literal: a new box in the run's heap ([`TKind::StructLit`]).
    pub(super) fn struct_lit(
        &mut self,
        e: &TExpr,
        id: usize,
        fields: &[(String, TExpr)],
        base: &Option<Box<TExpr>>,
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            // The values first, in order (a fault leaves nothing half-built); then the box, each field written
            // at its offset (a `String`'s buffer is the struct's from then on), and the box is complete.
            let mut values = Vec::with_capacity(fields.len());
            for (symbol, value) in fields {
                let offset =
                    *self.statics.get(symbol).ok_or_else(|| CodegenError(format!("no offset for `{symbol}`")))?;
                values.push((offset, value.ty.clone(), self.expr(value)?));
            }
            let shims = self.shims_of(id)?;
            // Over `..base`, the base's (new, complete) box with the named fields replaced.
            if let Some(b) = base {
                let boxed = self.one(b)?;
                for (offset, ty, parts) in values {
                    let address = self.b.ins().iadd_imm(boxed, i64::from(offset));
                    self.elem_write(Elem::Scalar(ty.s()), address, &parts)?;
                }
                return Ok(vec![boxed]);
            }
            let boxed = self.struct_alloc(shims, at);
            for (offset, ty, parts) in values {
                let address = self.b.ins().iadd_imm(boxed, i64::from(offset));
                if ty == Ty::String {
                    self.elem_write(Elem::String, address, &parts)?;
                    let release = self.helper(Helper::VecRelease);
                    self.b.ins().call(release, &[self.ctx, parts[0]]);
                } else {
                    self.elem_write(Elem::Scalar(ty.s()), address, &parts)?;
                }
            }
            self.struct_ready(shims, boxed);
            Some(boxed)
        };
        Ok(value.into_iter().collect())
    }
}
