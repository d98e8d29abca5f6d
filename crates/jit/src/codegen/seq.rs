//! Sequences: the hole's vectors and slices read in place, vectors the snippet owns, their methods.

use crate::abi::Fault;
use crate::codegen::{clif, flat, CodegenError, Gen, Vals, R};
use crate::helper::{Helper, Width};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, BlockArg, MemFlags, Type, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{BinOp, Closure, Elem, Part, Seq, SeqKind, SeqMethod, TExpr, Ty};

/// Where a vector's parts are kept ([`Gen::vec_home`]).
#[derive(Clone, Copy)]
pub(super) enum VecHome {
    /// A snippet's own vector: variables for the pointer, capacity and length.
    Vars([Variable; 3]),
    /// A host `Vec` at this address (its fields at the offsets the host's std uses).
    Mem(Value),
}

/// A vector's parts, in the order a [`Ty::Vec`] keeps them.
#[derive(Clone, Copy)]
pub(super) enum VecField {
    Ptr = 0,
    Cap = 1,
    Len = 2,
}

impl<'a, 'b> Gen<'a, 'b> {
    /// A sequence binding's buffer pointer and length.
    pub(super) fn seq_parts(&mut self, seq: &Seq) -> R<(Value, Value)> {
        if seq.kind == SeqKind::Local {
            let home = self.vec_home(seq)?;
            return Ok((self.vec_get(&home, VecField::Ptr)?, self.vec_get(&home, VecField::Len)?));
        }
        // A slice the snippet holds: its two words.
        if seq.kind == SeqKind::SliceLocal {
            let vars = self.vars.get(&seq.binding).cloned().unwrap_or_default();
            let [data, len] = vars[..] else { return Err(CodegenError("a slice local".into())) };
            return Ok((self.b.use_var(data), self.b.use_var(len)));
        }
        let vec = |g: &mut Self, vec: Value| -> R<(Value, Value)> {
            let (ptr_at, len_at) =
                g.vec_fields.ok_or_else(|| CodegenError("the host's `Vec` layout is unknown".into()))?;
            let data = g.b.ins().load(types::I64, MemFlags::trusted(), vec, ptr_at);
            let len = g.b.ins().load(types::I64, MemFlags::trusted(), vec, len_at);
            Ok((data, len))
        };
        if seq.kind == SeqKind::Field {
            let at = self.seq_place(seq.binding)?;
            return vec(self, at);
        }
        let base = self.binding_ptr(seq.binding);
        match seq.kind {
            SeqKind::Vec => vec(self, base),
            SeqKind::RefVec => {
                let target = self.b.ins().load(types::I64, MemFlags::trusted(), base, 0);
                vec(self, target)
            }
            SeqKind::Slice => {
                let data = self.b.ins().load(types::I64, MemFlags::trusted(), base, 0);
                let len = self.b.ins().load(types::I64, MemFlags::trusted(), base, 8);
                Ok((data, len))
            }
            SeqKind::Array(n) => {
                let len = self.int_const(types::I64, n as i64);
                Ok((base, len))
            }
            SeqKind::Local | SeqKind::SliceLocal | SeqKind::Field => Err(CodegenError("a snippet's vector".into())),
        }
    }

    /// The address of a [`SeqKind::Field`] sequence's `Vec`: its base struct's, then each field's offset.
    fn seq_place(&mut self, index: usize) -> R<Value> {
        let place = self.snippet.seq_places.get(index).ok_or_else(|| CodegenError("a sequence's place".into()))?;
        let mut at = match self.read(place.base, &place.base_ty)[..] {
            [address] => address,
            _ => return Err(CodegenError("a sequence's base struct".into())),
        };
        for symbol in &place.path {
            let offset = *self.statics.get(symbol).ok_or_else(|| CodegenError(format!("no `{symbol}`")))?;
            at = self.b.ins().iadd_imm(at, i64::from(offset));
        }
        Ok(at)
    }

    /// Byte offsets of a `Vec`'s buffer pointer, capacity and length in the host's std (the capacity is the word
    /// the probe did not name).
    pub(super) fn vec_offsets(&self) -> R<[i32; 3]> {
        let (ptr_at, len_at) =
            self.vec_fields.ok_or_else(|| CodegenError("the host's `Vec` layout is unknown".into()))?;
        let cap_at = 24 - ptr_at - len_at;
        let words = [ptr_at, cap_at, len_at];
        if words.iter().all(|w| [0, 8, 16].contains(w)) && ptr_at != len_at {
            Ok(words)
        } else {
            Err(CodegenError("the host's `Vec` layout is not three words".into()))
        }
    }

    /// Where a vector's pointer, capacity and length are kept: a snippet's own in variables, a host one in memory.
    pub(super) fn vec_home(&mut self, seq: &Seq) -> R<VecHome> {
        Ok(match seq.kind {
            SeqKind::Local => {
                let vars = self.vars.get(&seq.binding).cloned().unwrap_or_default();
                let [ptr, cap, len] = vars[..] else { return Err(CodegenError("a vector local".into())) };
                VecHome::Vars([ptr, cap, len])
            }
            SeqKind::Vec => VecHome::Mem(self.binding_ptr(seq.binding)),
            SeqKind::RefVec => {
                let base = self.binding_ptr(seq.binding);
                VecHome::Mem(self.b.ins().load(types::I64, MemFlags::trusted(), base, 0))
            }
            SeqKind::Slice | SeqKind::SliceLocal | SeqKind::Array(_) => {
                return Err(CodegenError("a slice's or an array's length cannot change".into()))
            }
            SeqKind::Field => VecHome::Mem(self.seq_place(seq.binding)?),
        })
    }

    pub(super) fn vec_get(&mut self, home: &VecHome, field: VecField) -> R<Value> {
        Ok(match home {
            VecHome::Vars(vars) => self.b.use_var(vars[field as usize]),
            VecHome::Mem(base) => {
                let at = self.vec_offsets()?[field as usize];
                self.b.ins().load(types::I64, MemFlags::trusted(), *base, at)
            }
        })
    }

    pub(super) fn vec_set(&mut self, home: &VecHome, field: VecField, v: Value) -> R<()> {
        match home {
            VecHome::Vars(vars) => self.b.def_var(vars[field as usize], v),
            VecHome::Mem(base) => {
                let at = self.vec_offsets()?[field as usize];
                self.b.ins().store(MemFlags::trusted(), v, *base, at);
            }
        }
        Ok(())
    }

    /// A buffer for `cap` elements of `(size, align)` grown from `ptr` (capacity `old_cap`) through the host's
    /// allocator.
    pub(super) fn vec_grow(
        &mut self,
        ptr: Value,
        old_cap: Value,
        cap: Value,
        layout: (u32, u32),
        owned: bool,
        at: usize,
    ) -> Value {
        let size = self.int_const(types::I64, i64::from(layout.0));
        let align = self.int_const(types::I64, i64::from(layout.1));
        let owned = self.int_const(types::I64, i64::from(owned));
        let f = self.helper(Helper::VecGrow);
        let call = self.b.ins().call(f, &[self.ctx, ptr, old_cap, cap, size, align, owned]);
        let new = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, new, 0);
        self.helper_fault_if(failed, at);
        new
    }

    /// A new vector of the snippet's own, in fresh variables: empty, or allocated to hold `n` elements.
    pub(super) fn vec_new(&mut self, elem: Elem, n: usize, at: usize) -> R<VecHome> {
        let layout = self.elem_layout(elem)?;
        // An empty `Vec`'s buffer pointer is its alignment (`NonNull::dangling`).
        let mut ptr = self.int_const(types::I64, i64::from(layout.1));
        let zero = self.int_const(types::I64, 0);
        let cap = self.int_const(types::I64, n as i64);
        if n > 0 {
            ptr = self.vec_grow(ptr, zero, cap, layout, true, at);
        }
        let vars = [self.var(types::I64, ptr), self.var(types::I64, cap), self.var(types::I64, zero)];
        Ok(VecHome::Vars(vars))
    }

    /// A buffer of the run's for `n` elements of `layout` (a length known only when the code runs): none for
    /// `n == 0`, whose pointer is the alignment (`NonNull::dangling`), as std's vectors hold no allocation then.
    pub(super) fn buffer_for(&mut self, n: Value, layout: (u32, u32), at: usize) -> Value {
        let dangling = self.int_const(types::I64, i64::from(layout.1));
        let zero = self.int_const(types::I64, 0);
        let alloc = self.b.create_block();
        let done = self.b.create_block();
        let ptr = self.b.append_block_param(done, types::I64);
        let empty = self.b.ins().icmp_imm(IntCC::Equal, n, 0);
        self.b.ins().brif(empty, done, &[dangling.into()], alloc, &[]);
        self.b.switch_to_block(alloc);
        self.b.seal_block(alloc);
        let new = self.vec_grow(dangling, zero, n, layout, true, at);
        self.b.ins().jump(done, &[new.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        ptr
    }

    /// `v.push(x)`: grows the buffer as `Vec` does (double, at least 4 elements, 8 for bytes) when it is full.
    pub(super) fn vec_push(&mut self, home: VecHome, elem: Elem, owned: bool, x: &[Value], at: usize) -> R<()> {
        let (address, len) = self.vec_reserve_one(&home, elem, owned, at)?;
        self.elem_write(elem, address, x)?;
        let len = self.b.ins().iadd_imm(len, 1);
        self.vec_set(&home, VecField::Len, len)
    }

    /// A host struct in a box of the run's moved onto the end of a host vector of them: the box freed, nothing
    /// dropped (`v.push(o.clone())`, `v.push(S { .. })`).
    fn vec_push_boxed(&mut self, home: VecHome, elem: Elem, boxed: Value, at: usize) -> R<()> {
        let (address, len) = self.vec_reserve_one(&home, elem, false, at)?;
        let size = self.elem_layout(elem)?.0;
        // (Never faults: the lowering pushes only the run's own complete structs.)
        self.move_out_box(boxed, address, i64::from(size), at);
        let len = self.b.ins().iadd_imm(len, 1);
        self.vec_set(&home, VecField::Len, len)
    }

    /// Moves the host struct of `size` bytes in a box of the run's to `to` and frees the box; a memory fault at
    /// `at` when the box is not one the run can move out of.
    pub(super) fn move_out_box(&mut self, boxed: Value, to: Value, size: i64, at: usize) {
        let size = self.int_const(types::I64, size);
        let f = self.helper(Helper::StructMoveOut);
        let call = self.b.ins().call(f, &[self.ctx, boxed, to, size]);
        let moved = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, moved, 0);
        self.fault_if(failed, Fault::Memory, at);
    }

    /// Room for one more element at the end of the vector (grown when full): the new element's address and the
    /// length before it.
    fn vec_reserve_one(&mut self, home: &VecHome, elem: Elem, owned: bool, at: usize) -> R<(Value, Value)> {
        let home = *home;
        let layout = self.elem_layout(elem)?;
        let len = self.vec_get(&home, VecField::Len)?;
        let cap = self.vec_get(&home, VecField::Cap)?;
        let full = self.b.ins().icmp(IntCC::Equal, len, cap);
        let grow = self.b.create_block();
        let store = self.b.create_block();
        self.b.ins().brif(full, grow, &[], store, &[]);
        self.b.switch_to_block(grow);
        self.b.seal_block(grow);
        let ptr = self.vec_get(&home, VecField::Ptr)?;
        let min = self.int_const(types::I64, if layout.0 == 1 { 8 } else { 4 });
        let doubled = self.b.ins().ishl_imm(cap, 1);
        let new_cap = self.b.ins().umax(doubled, min);
        let new = self.vec_grow(ptr, cap, new_cap, layout, owned, at);
        self.vec_set(&home, VecField::Ptr, new)?;
        self.vec_set(&home, VecField::Cap, new_cap)?;
        self.b.ins().jump(store, &[]);
        self.b.switch_to_block(store);
        self.b.seal_block(store);
        let ptr = self.vec_get(&home, VecField::Ptr)?;
        let offset = self.b.ins().imul_imm(len, i64::from(layout.0));
        Ok((self.b.ins().iadd(ptr, offset), len))
    }

    /// `v.retain(|x| keep)`: the elements kept moved down in order, the closure called once on each, in order.
    ///
    /// Elements that own memory (`String`s, host structs) are dropped where they are removed, and the vector's
    /// length counts only the elements kept so far throughout: a fault part-way (a budget, a host `Drop` that
    /// panics) leaves the kept ones in order and the ones not yet looked at leaked, nothing dropped twice.
    pub(super) fn retain(&mut self, seq: &Seq, closure: &Closure, at: usize) -> R<()> {
        let (data, len) = self.seq_parts(seq)?;
        let home = self.vec_home(seq)?;
        let item_ty = seq.elem.read_ty();
        let owning = match seq.elem {
            Elem::Scalar(_) => false,
            elem if elem.drops_in_place() => true,
            _ => return Err(CodegenError("`retain` of these elements".into())),
        };
        let zero = self.int_const(types::I64, 0);
        if owning {
            self.vec_set(&home, VecField::Len, zero)?;
        }
        let kept = self.var(types::I64, zero);
        self.each_index(len, |g, i| {
            g.tick(at);
            let item = g.element_at(seq.elem, data, i)?;
            g.bind_params(closure, &[(&item_ty, &item)])?;
            let keeps = g.one(&closure.body)?;
            let keep = g.b.create_block();
            let next = g.b.create_block();
            let removed = if owning { g.b.create_block() } else { next };
            g.b.ins().brif(keeps, keep, &[], removed, &[]);
            g.b.switch_to_block(keep);
            g.b.seal_block(keep);
            let w = g.b.use_var(kept);
            let to = g.element_address(seq.elem, data, w)?;
            if owning {
                // Moved down as it is (until the first removal `to` is where it already is: copying it onto
                // itself changes nothing).
                let from = g.element_address(seq.elem, data, i)?;
                let size = g.elem_layout(seq.elem)?.0;
                g.copy_bytes(to, from, size)?;
            } else {
                g.elem_write(seq.elem, to, &item)?;
            }
            let w = g.b.ins().iadd_imm(w, 1);
            g.b.def_var(kept, w);
            if owning {
                g.vec_set(&home, VecField::Len, w)?;
            }
            g.b.ins().jump(next, &[]);
            if owning {
                g.b.switch_to_block(removed);
                g.b.seal_block(removed);
                let address = g.element_address(seq.elem, data, i)?;
                g.drop_element(seq.elem, address)?;
                g.b.ins().jump(next, &[]);
            }
            g.b.switch_to_block(next);
            g.b.seal_block(next);
            Ok(())
        })?;
        let w = self.b.use_var(kept);
        self.vec_set(&home, VecField::Len, w)
    }

    /// Drops the element of a vector at `address` in place: a `String`'s buffer freed, a host struct through its
    /// `Drop` shim (which keeps a panic in the host's `Drop` from unwinding into JIT code).
    fn drop_element(&mut self, elem: Elem, address: Value) -> R<()> {
        match elem {
            Elem::String => self.drop_string_at(address, 0),
            // Each `String` part where rustc put it.
            Elem::Tuple(t) => {
                let layout = self.tuple_layout(t)?;
                for (part, at) in t.parts().iter().zip(layout.offsets) {
                    if *part == Part::String {
                        self.drop_string_at(address, at)?;
                    }
                }
                Ok(())
            }
            Elem::Struct(id) => {
                let drop = self.shims_of(id)?.drop;
                if drop == 0 {
                    return Err(CodegenError("a host struct without a drop shim".into()));
                }
                self.store_fuel();
                self.call_address_void(drop, &[address]);
                self.load_fuel();
                Ok(())
            }
            _ => Err(CodegenError("dropping an element of this type".into())),
        }
    }

    /// Drops the `String` at byte `at` of `address` ([`Helper::StringDrop`]).
    fn drop_string_at(&mut self, address: Value, at: i32) -> R<()> {
        let [ptr_at, cap_at, _] = self.vec_offsets()?;
        let ptr = self.b.ins().load(types::I64, MemFlags::trusted(), address, at + ptr_at);
        let cap = self.b.ins().load(types::I64, MemFlags::trusted(), address, at + cap_at);
        let drop = self.helper(Helper::StringDrop);
        self.b.ins().call(drop, &[self.ctx, ptr, cap]);
        Ok(())
    }

    /// Copies `size` bytes from `from` to `to` (the same place, or places that do not overlap), in words.
    fn copy_bytes(&mut self, to: Value, from: Value, size: u32) -> R<()> {
        if size > 512 {
            return Err(CodegenError("a struct too large to copy inline".into()));
        }
        let mut at = 0u32;
        for (width, t) in [(8u32, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)] {
            while size - at >= width {
                // (Not `aligned`: a struct's alignment may be less than the word's.)
                let v = self.b.ins().load(t, MemFlags::new().with_notrap(), from, at as i32);
                self.b.ins().store(MemFlags::new().with_notrap(), v, to, at as i32);
                at += width;
            }
        }
        Ok(())
    }

    /// `join(separator)` of the `len` strings at `data`: a new `String`.
    pub(super) fn join(&mut self, elem: Elem, data: Value, len: Value, separator: &[Value], at: usize) -> R<Vals> {
        let &[sep_ptr, sep_len] = separator else { return Err(CodegenError("a separator".into())) };
        let (slot, out) = self.new_text_slot();
        let push = self.helper(Helper::PushStr);
        self.each_index(len, |g, i| {
            // The separator before every element but the first (as `[S]::join`).
            let later = g.b.create_block();
            let element = g.b.create_block();
            g.b.ins().brif(i, later, &[], element, &[]);
            g.b.switch_to_block(later);
            g.b.seal_block(later);
            let call = g.b.ins().call(push, &[g.ctx, out, sep_ptr, sep_len]);
            let status = g.b.inst_results(call)[0];
            g.helper_fault_if(status, at);
            g.b.ins().jump(element, &[]);
            g.b.switch_to_block(element);
            g.b.seal_block(element);
            let text = g.element_at(elem, data, i)?;
            let call = g.b.ins().call(push, &[g.ctx, out, text[0], text[1]]);
            let status = g.b.inst_results(call)[0];
            g.helper_fault_if(status, at);
            Ok(())
        })?;
        Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect())
    }

    /// A text element's size and where its pointer and length are in it: a `String` (as std lays out its
    /// buffer) or a `&str` (pointer, length). Other elements are not text.
    fn text_elem_layout(&self, elem: Elem) -> R<(i32, i32, i32)> {
        match elem {
            Elem::String => {
                let [ptr_at, _, len_at] = self.vec_offsets()?;
                Ok((24, ptr_at, len_at))
            }
            Elem::Str => Ok((16, 0, 8)),
            _ => Err(CodegenError("text of an element that is not text".into())),
        }
    }

    /// An element's size and alignment in bytes (a `String` is three words).
    pub(super) fn elem_layout(&self, elem: Elem) -> R<(u32, u32)> {
        match elem {
            Elem::Scalar(s) => {
                let t = clif(s).ok_or_else(|| CodegenError("an element type".into()))?;
                Ok((t.bytes(), t.bytes()))
            }
            Elem::String => Ok((24, 8)),
            Elem::Str => Ok((16, 8)),
            Elem::StructRef(_) => Ok((8, 8)),
            // (Only the size is used: host structs are read in place, never allocated.)
            Elem::Struct(id) => {
                let size = self.snippet.structs.get(id).and_then(|symbol| self.statics.get(symbol));
                let size = size.ok_or_else(|| CodegenError("a host struct's size".into()))?;
                Ok((*size as u32, 8))
            }
            Elem::Tuple(t) => {
                let layout = self.tuple_layout(t)?;
                Ok((layout.size, layout.align))
            }
        }
    }

    /// An element read in place at `address`: a scalar's value, or a `String`'s text (pointer, length).
    pub(super) fn elem_read(&mut self, elem: Elem, address: Value) -> R<Vals> {
        Ok(match elem {
            Elem::Scalar(s) => {
                let t = clif(s).ok_or_else(|| CodegenError("an element type".into()))?;
                vec![self.b.ins().load(t, MemFlags::trusted(), address, 0)]
            }
            Elem::String => self.text_at(address)?,
            // A `&str` is its pointer, then its length (rustc's layout of every slice reference).
            Elem::Str => vec![
                self.b.ins().load(types::I64, MemFlags::trusted(), address, 0),
                self.b.ins().load(types::I64, MemFlags::trusted(), address, 8),
            ],
            Elem::Struct(_) => vec![address],
            // A reference to a host struct: the address it holds.
            Elem::StructRef(_) => vec![self.b.ins().load(types::I64, MemFlags::trusted(), address, 0)],
            // Each part read in place where rustc put it.
            Elem::Tuple(t) => {
                let layout = self.tuple_layout(t)?;
                let mut out = Vec::new();
                for (part, at) in t.parts().iter().zip(layout.offsets) {
                    let at = self.b.ins().iadd_imm(address, i64::from(at));
                    out.extend(self.elem_read(part_elem(*part), at)?);
                }
                out
            }
        })
    }

    /// The text of the `String` at `address` (in the host's layout): its pointer and length.
    pub(super) fn text_at(&mut self, address: Value) -> R<Vals> {
        let [ptr_at, _, len_at] = self.vec_offsets()?;
        let ptr = self.b.ins().load(types::I64, MemFlags::trusted(), address, ptr_at);
        let len = self.b.ins().load(types::I64, MemFlags::trusted(), address, len_at);
        Ok(vec![ptr, len])
    }

    /// An owned element written at `address`: a scalar, or a `String` (pointer, capacity, length) in the host's
    /// layout.
    pub(super) fn elem_write(&mut self, elem: Elem, address: Value, value: &[Value]) -> R<()> {
        match (elem, value) {
            (Elem::Scalar(_), [x]) => {
                self.b.ins().store(MemFlags::trusted(), *x, address, 0);
            }
            (Elem::String, [ptr, cap, len]) => {
                let offsets = self.vec_offsets()?;
                for (v, at) in [*ptr, *cap, *len].into_iter().zip(offsets) {
                    self.b.ins().store(MemFlags::trusted(), v, address, at);
                }
            }
            (Elem::Str, [ptr, len]) => {
                self.b.ins().store(MemFlags::trusted(), *ptr, address, 0);
                self.b.ins().store(MemFlags::trusted(), *len, address, 8);
            }
            (Elem::StructRef(_), [address_of]) => {
                self.b.ins().store(MemFlags::trusted(), *address_of, address, 0);
            }
            // Each part (its owned value's words) where rustc puts it.
            (Elem::Tuple(t), _) => {
                let layout = self.tuple_layout(t)?;
                let mut rest = value;
                for (part, at) in t.parts().iter().zip(layout.offsets) {
                    let n = part.owned_ty().parts().len();
                    if rest.len() < n {
                        return Err(CodegenError("a tuple element with too few values".into()));
                    }
                    let (this, tail) = rest.split_at(n);
                    rest = tail;
                    let at = self.b.ins().iadd_imm(address, i64::from(at));
                    self.elem_write(part_elem(*part), at, this)?;
                }
            }
            _ => return Err(CodegenError("an element of this type".into())),
        }
        Ok(())
    }

    /// Methods of a sequence binding that allocate nothing ([`TKind::SeqMethod`]).
    pub(super) fn seq_method(&mut self, seq: &Seq, name: SeqMethod, args: &[TExpr], at: usize) -> R<Vals> {
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a)?);
        }
        use SeqMethod::*;
        if name == Push {
            let home = self.vec_home(seq)?;
            let value = values.first().ok_or_else(|| CodegenError("`push` without a value".into()))?;
            if let (Elem::Struct(_), [boxed]) = (seq.elem, &value[..]) {
                self.vec_push_boxed(home, seq.elem, *boxed, at)?;
                return Ok(Vec::new());
            }
            self.vec_push(home, seq.elem, seq.kind == SeqKind::Local, value, at)?;
            // A `String` pushed onto the host's vector is the host's from then on: its buffer leaves the run's
            // record (the run would free it otherwise).
            if seq.elem == Elem::String && seq.kind != SeqKind::Local {
                let ptr = *value.first().ok_or_else(|| CodegenError("a `String` without parts".into()))?;
                let release = self.helper(Helper::VecRelease);
                self.b.ins().call(release, &[self.ctx, ptr]);
            }
            return Ok(Vec::new());
        }
        let (data, len) = self.seq_parts(seq)?;
        if name == IsEmpty {
            return Ok(vec![self.b.ins().icmp_imm(IntCC::Equal, len, 0)]);
        }
        if name == Truncate {
            // `min(len, n)`; the elements past it dropped (their strings' buffers freed).
            let n = *values
                .first()
                .and_then(|v| v.first())
                .ok_or_else(|| CodegenError("`truncate` without a length".into()))?;
            let shorter = self.b.ins().icmp(IntCC::UnsignedLessThan, n, len);
            let kept = self.b.ins().select(shorter, n, len);
            let home = self.vec_home(seq)?;
            if seq.elem.owns_buffer() || matches!(seq.elem, Elem::Struct(_)) {
                // The vector is cut first: a fault part-way leaves the rest leaked, none dropped twice.
                self.vec_set(&home, VecField::Len, kept)?;
                let size = i64::from(self.elem_layout(seq.elem)?.0);
                let offset = self.b.ins().imul_imm(kept, size);
                let tail = self.b.ins().iadd(data, offset);
                let cut = self.b.ins().isub(len, kept);
                let elem = seq.elem;
                self.each_index(cut, |g, i| {
                    let address = g.element_address(elem, tail, i)?;
                    g.drop_element(elem, address)
                })?;
            }
            self.vec_set(&home, VecField::Len, kept)?;
            return Ok(Vec::new());
        }
        if name == Join {
            let separator = values.first().ok_or_else(|| CodegenError("`join` without a separator".into()))?;
            return self.join(seq.elem, data, len, separator, at);
        }
        match (seq.elem, name) {
            (Elem::String, Sort | SortUnstable) => {
                let [ptr_at, _, len_at] = self.vec_offsets()?;
                let (ptr_at, len_at) =
                    (self.int_const(types::I64, ptr_at.into()), self.int_const(types::I64, len_at.into()));
                let f = self.helper(Helper::StringsSort);
                self.b.ins().call(f, &[data, len, ptr_at, len_at]);
                return Ok(Vec::new());
            }
            (Elem::String | Elem::Str, Dedup) => {
                let home = self.vec_home(seq)?;
                let (size, ptr_at, len_at) = self.text_elem_layout(seq.elem)?;
                let owned = i64::from(seq.elem == Elem::String && seq.kind == SeqKind::Local);
                let [size, ptr_at, len_at] = [size, ptr_at, len_at].map(|v| self.int_const(types::I64, i64::from(v)));
                let owned = self.int_const(types::I8, owned);
                let f = self.helper(Helper::DedupTexts);
                let call = self.b.ins().call(f, &[self.ctx, data, len, size, ptr_at, len_at, owned]);
                let kept = self.b.inst_results(call)[0];
                self.vec_set(&home, VecField::Len, kept)?;
                return Ok(Vec::new());
            }
            (Elem::Str, Sort | SortUnstable) => {
                let f = self.helper(Helper::StrsSort);
                self.b.ins().call(f, &[data, len]);
                return Ok(Vec::new());
            }
            (Elem::String | Elem::Str, Contains) => {
                let (size, ptr_at, len_at) = self.text_elem_layout(seq.elem)?;
                let needle = values.first().ok_or_else(|| CodegenError("`contains` without a value".into()))?;
                let [needle, needle_len] = needle[..] else {
                    return Err(CodegenError("`contains` of something other than text".into()));
                };
                let [size, ptr_at, len_at] = [size, ptr_at, len_at].map(|v| self.int_const(types::I64, i64::from(v)));
                let f = self.helper(Helper::TextsContain);
                let call = self.b.ins().call(f, &[data, len, size, ptr_at, len_at, needle, needle_len]);
                return Ok(vec![self.b.inst_results(call)[0]]);
            }
            // An element (a scalar, or read in place: `Option<&str>`, `Option<&S>`), or nothing.
            (_, First | Last | Get) => {
                let index = match name {
                    First => self.int_const(types::I64, 0),
                    // Of an empty sequence the index wraps to the maximum, past the end.
                    Last => self.b.ins().iadd_imm(len, -1),
                    _ => values
                        .first()
                        .and_then(|v| v.first().copied())
                        .ok_or_else(|| CodegenError("`get`'s index".into()))?,
                };
                let present = self.b.ins().icmp(IntCC::UnsignedLessThan, index, len);
                let ts = flat(&Ty::Option(Box::new(seq.elem.read_ty())));
                let merge = self.merge_block(&ts);
                let read = self.b.create_block();
                let absent = self.b.create_block();
                self.b.ins().brif(present, read, &[], absent, &[]);
                self.b.switch_to_block(read);
                self.b.seal_block(read);
                let mut some = vec![self.int_const(types::I8, 1)];
                some.extend(self.element_at(seq.elem, data, index)?);
                self.jump_with(merge, &ts, some);
                self.b.switch_to_block(absent);
                self.b.seal_block(absent);
                let none: Vals = ts.iter().map(|&t| self.zero(t)).collect();
                self.jump_with(merge, &ts, none);
                return Ok(self.enter_merge(merge));
            }
            (Elem::String | Elem::Str | Elem::Struct(_) | Elem::StructRef(_), Reverse) => {
                let size = self.elem_layout(seq.elem)?.0;
                let size = self.int_const(types::I64, i64::from(size));
                let f = self.helper(Helper::ElementsReverse);
                self.b.ins().call(f, &[data, len, size]);
                return Ok(Vec::new());
            }
            _ => {}
        }
        let elem = seq.elem.scalar().ok_or_else(|| CodegenError(format!("`{name}` of strings")))?;
        let values: Vec<Value> = values.iter().filter_map(|v| v.first().copied()).collect();
        let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
        let width = Width::of_bytes(t.bytes()).ok_or_else(|| CodegenError("an element width".into()))?;
        let element = |g: &mut Self, i: Value| -> Value {
            let offset = g.b.ins().imul_imm(i, i64::from(t.bytes()));
            g.b.ins().iadd(data, offset)
        };
        Ok(match name {
            Contains => {
                let x = values[0];
                let zero = self.int_const(types::I64, 0);
                let index = self.var(types::I64, zero);
                let no = self.int_const(types::I8, 0);
                let found = self.var(types::I8, no);
                let header = self.b.create_block();
                let body = self.b.create_block();
                let hit = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let i = self.b.use_var(index);
                let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
                self.b.ins().brif(more, body, &[], exit, &[]);
                self.b.switch_to_block(body);
                self.b.seal_block(body);
                let address = element(self, i);
                let y = self.b.ins().load(t, MemFlags::trusted(), address, 0);
                let equal = self.binary(BinOp::Eq, elem, elem, y, x, at);
                let next = self.b.ins().iadd_imm(i, 1);
                self.b.def_var(index, next);
                self.b.ins().brif(equal, hit, &[], header, &[]);
                self.b.seal_block(header);
                self.b.switch_to_block(hit);
                self.b.seal_block(hit);
                let yes = self.int_const(types::I8, 1);
                self.b.def_var(found, yes);
                self.b.ins().jump(exit, &[]);
                self.b.switch_to_block(exit);
                self.b.seal_block(exit);
                vec![self.b.use_var(found)]
            }
            Sort | SortUnstable => {
                let f = self.helper(Helper::sort(elem.is_signed(), width));
                self.b.ins().call(f, &[data, len]);
                Vec::new()
            }
            Reverse => {
                let f = self.helper(Helper::reverse(width));
                self.b.ins().call(f, &[data, len]);
                Vec::new()
            }
            Dedup => {
                let f = self.helper(Helper::dedup(width));
                let call = self.b.ins().call(f, &[data, len]);
                let kept = self.b.inst_results(call)[0];
                let home = self.vec_home(seq)?;
                self.vec_set(&home, VecField::Len, kept)?;
                Vec::new()
            }
            Pop => {
                let home = self.vec_home(seq)?;
                let empty = self.b.ins().icmp_imm(IntCC::Equal, len, 0);
                let merge = self.merge_block(&[types::I8, t]);
                let none = self.b.create_block();
                let some = self.b.create_block();
                self.b.ins().brif(empty, none, &[], some, &[]);
                self.b.switch_to_block(none);
                self.b.seal_block(none);
                let no = self.int_const(types::I8, 0);
                let nothing = self.zero(t);
                self.jump_with(merge, &[types::I8, t], vec![no, nothing]);
                self.b.switch_to_block(some);
                self.b.seal_block(some);
                let last = self.b.ins().iadd_imm(len, -1);
                self.vec_set(&home, VecField::Len, last)?;
                let address = element(self, last);
                let x = self.b.ins().load(t, MemFlags::trusted(), address, 0);
                let yes = self.int_const(types::I8, 1);
                self.jump_with(merge, &[types::I8, t], vec![yes, x]);
                self.enter_merge(merge)
            }
            Swap => {
                let (a, b) = (values[0], values[1]);
                for i in [a, b] {
                    let past = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
                    self.fault_if_with(past, Fault::IndexOutOfBounds, at, &[len, i]);
                }
                let (pa, pb) = (element(self, a), element(self, b));
                let x = self.b.ins().load(t, MemFlags::trusted(), pa, 0);
                let y = self.b.ins().load(t, MemFlags::trusted(), pb, 0);
                self.b.ins().store(MemFlags::trusted(), y, pa, 0);
                self.b.ins().store(MemFlags::trusted(), x, pb, 0);
                Vec::new()
            }
            Fill => {
                self.fill_elements(data, len, t, values[0])?;
                Vec::new()
            }
            // Handled above, whatever the elements.
            Push | IsEmpty | Join | First | Last | Get | Truncate => {
                return Err(CodegenError(format!("the sequence method `{name}` twice")))
            }
        })
    }

    /// Stores `x` into each of the `len` elements of type `t` at `data` (`fill`, `vec![x; n]`).
    pub(super) fn fill_elements(&mut self, data: Value, len: Value, t: Type, x: Value) -> R<()> {
        if t.bytes() == 1 {
            let f = self.helper(Helper::FillBytes);
            self.b.ins().call(f, &[data, x, len]);
            return Ok(());
        }
        self.each_index(len, |g, i| {
            let offset = g.b.ins().imul_imm(i, i64::from(t.bytes()));
            let address = g.b.ins().iadd(data, offset);
            g.b.ins().store(MemFlags::trusted(), x, address, 0);
            Ok(())
        })
    }

    /// A loop over the indices `0..len` (a `usize`): `body` gets each index and may branch, as long as it ends in a
    /// block that goes on to the next index.
    pub(super) fn each_index(&mut self, len: Value, mut body: impl FnMut(&mut Self, Value) -> R<()>) -> R<()> {
        let zero = self.int_const(types::I64, 0);
        let index = self.var(types::I64, zero);
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let i = self.b.use_var(index);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
        self.b.ins().brif(more, body_block, &[], exit, &[]);
        self.b.switch_to_block(body_block);
        self.b.seal_block(body_block);
        body(self, i)?;
        let i = self.b.use_var(index);
        let next = self.b.ins().iadd_imm(i, 1);
        self.b.def_var(index, next);
        self.b.ins().jump(header, &[]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// The address of element `i` of a sequence, after the bounds check (a fault at `at` past the end).
    pub(super) fn seq_element(&mut self, seq: &Seq, i: Value, at: usize) -> R<Value> {
        let (data, len) = self.seq_parts(seq)?;
        let past = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
        self.fault_if_with(past, Fault::IndexOutOfBounds, at, &[len, i]);
        self.element_address(seq.elem, data, i)
    }

    /// The address of element `i` of the elements at `data` (no bounds check).
    pub(super) fn element_address(&mut self, elem: Elem, data: Value, i: Value) -> R<Value> {
        let size = self.elem_layout(elem)?.0;
        let offset = self.b.ins().imul_imm(i, i64::from(size));
        Ok(self.b.ins().iadd(data, offset))
    }

    /// Element `i` of the elements at `data` read in place (no bounds check).
    pub(super) fn element_at(&mut self, elem: Elem, data: Value, i: Value) -> R<Vals> {
        let address = self.element_address(elem, data, i)?;
        self.elem_read(elem, address)
    }

    /// `v.iter().sum()` over integers: a loop with the debug build's overflow check.
    pub(super) fn seq_sum(&mut self, seq: &Seq, at: usize) -> R<Value> {
        let elem = seq.elem.scalar().ok_or_else(|| CodegenError("a sum of strings".into()))?;
        let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
        let (data, len) = self.seq_parts(seq)?;
        let header = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        self.b.append_block_param(header, t);
        self.b.append_block_param(exit, t);
        let zero = self.b.ins().iconst(types::I64, 0);
        let acc = self.zero(t);
        self.b.ins().jump(header, &[BlockArg::Value(zero), BlockArg::Value(acc)]);
        self.b.switch_to_block(header);
        let (k, acc) = (self.b.block_params(header)[0], self.b.block_params(header)[1]);
        let done = self.b.ins().icmp(IntCC::Equal, k, len);
        self.b.ins().brif(done, exit, &[BlockArg::Value(acc)], body, &[]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
        let offset = self.b.ins().imul_imm(k, i64::from(t.bytes()));
        let address = self.b.ins().iadd(data, offset);
        let x = self.b.ins().load(t, MemFlags::trusted(), address, 0);
        let acc = self.binary(BinOp::Add, elem, elem, acc, x, at);
        let next = self.b.ins().iadd_imm(k, 1);
        self.b.ins().jump(header, &[BlockArg::Value(next), BlockArg::Value(acc)]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(self.b.block_params(exit)[0])
    }

    /// A new buffer the snippet owns holding a copy of `len` elements at `data` (capacity = length).
    pub(super) fn owned_copy(&mut self, data: Value, len: Value, t: Type, at: usize) -> R<Vals> {
        self.owned_copy_of(data, len, (t.bytes(), t.bytes()), at)
    }

    /// A new vector of the snippet's own holding a bytewise copy of `len` elements of `layout` (size, alignment)
    /// at `data`, its capacity its length.
    pub(super) fn owned_copy_of(&mut self, data: Value, len: Value, layout: (u32, u32), at: usize) -> R<Vals> {
        let align = self.int_const(types::I64, i64::from(layout.1));
        let zero = self.int_const(types::I64, 0);
        let vars = [self.var(types::I64, align), self.var(types::I64, zero), self.var(types::I64, zero)];
        let copy = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(len, copy, &[], done, &[]);
        self.b.switch_to_block(copy);
        self.b.seal_block(copy);
        let ptr = self.vec_grow(align, zero, len, layout, true, at);
        let bytes = self.b.ins().imul_imm(len, i64::from(layout.0));
        let f = self.helper(Helper::Copy);
        self.b.ins().call(f, &[ptr, data, bytes]);
        self.b.def_var(vars[0], ptr);
        self.b.def_var(vars[1], len);
        self.b.def_var(vars[2], len);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        Ok(vars.iter().map(|v| self.b.use_var(*v)).collect())
    }

    /// `vec![value; count]` ([`TKind::VecRepeat`]).
    pub(super) fn vec_repeat(&mut self, e: &TExpr, value: &TExpr, count: &TExpr) -> R<Vals> {
        let at = e.range.start;
        let &Ty::Vec(elem) = &e.ty else { return Err(CodegenError("a vector of this type".into())) };
        let s = elem.scalar().ok_or_else(|| CodegenError("repeated strings".into()))?;
        let t = clif(s).ok_or_else(|| CodegenError("an element type".into()))?;
        let x = self.one(value)?;
        let n = self.one(count)?;
        let ptr = self.buffer_for(n, (t.bytes(), t.bytes()), at);
        self.fill_elements(ptr, n, t, x)?;
        Ok(vec![ptr, n, n])
    }

    /// `vec![a, b, ..]` or `Vec::new()` ([`TKind::VecLit`]).
    pub(super) fn vec_lit(&mut self, e: &TExpr, elems: &[TExpr]) -> R<Vals> {
        let at = e.range.start;
        let &Ty::Vec(elem) = &e.ty else { return Err(CodegenError("a vector of this type".into())) };
        let size = self.elem_layout(elem)?.0;
        // The elements first (they may fault), then the buffer, exactly their size (as `vec!` allocates).
        let mut values = Vec::new();
        for x in elems {
            values.push(self.expr(x)?);
        }
        let home = self.vec_new(elem, values.len(), at)?;
        let VecHome::Vars(vars) = home else { return Err(CodegenError("a vector".into())) };
        let ptr = self.b.use_var(vars[0]);
        for (i, v) in values.into_iter().enumerate() {
            let address = self.b.ins().iadd_imm(ptr, i as i64 * i64::from(size));
            self.elem_write(elem, address, &v)?;
        }
        let n = self.int_const(types::I64, elems.len() as i64);
        self.b.def_var(vars[2], n);
        Ok(vars.iter().map(|v| self.b.use_var(*v)).collect())
    }

    /// `v[index] = value` or `v[index] op= value`, or of a tuple part (`v[index].part op= value`)
    /// ([`TKind::SeqStore`]).
    pub(super) fn seq_store(
        &mut self,
        e: &TExpr,
        seq: &Seq,
        (index_at, index, part): (usize, &TExpr, Option<usize>),
        op: &Option<BinOp>,
        value: &TExpr,
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            // Rust evaluates the value first, then the place.
            let v = self.one(value)?;
            let i = self.one(index)?;
            let mut address = self.seq_element(seq, i, index_at)?;
            let elem = match (seq.elem, part) {
                (Elem::Tuple(t), Some(p)) => {
                    let layout = self.tuple_layout(t)?;
                    let (Some(Part::Scalar(s)), Some(offset)) = (t.parts().get(p), layout.offsets.get(p)) else {
                        return Err(CodegenError("a store into a tuple part that is not a scalar".into()));
                    };
                    address = self.b.ins().iadd_imm(address, i64::from(*offset));
                    Some(*s)
                }
                (elem, None) => elem.scalar(),
                _ => None,
            };
            let elem = elem.ok_or_else(|| CodegenError("a store into strings".into()))?;
            let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
            let v = match op {
                Some(op) => {
                    let old = self.b.ins().load(t, MemFlags::trusted(), address, 0);
                    self.binary(*op, elem, value.s(), old, v, at)
                }
                None => v,
            };
            self.b.ins().store(MemFlags::trusted(), v, address, 0);
            None
        };
        Ok(value.into_iter().collect())
    }
}

/// A tuple's part as the element type it is stored as.
fn part_elem(part: Part) -> Elem {
    match part {
        Part::Scalar(s) => Elem::Scalar(s),
        Part::String => Elem::String,
        Part::Str => Elem::Str,
    }
}

impl<'a, 'b> Gen<'a, 'b> {
    /// `&v[start..end]` ([`lacuna_ir::TKind::SubSlice`]): the elements from `start` (zero when absent) to `end`
    /// (the length when absent), checked as std's `slice_index_fail` reports a range that does not fit: the start
    /// past the length, then the end past it, then the start past the end; each a fault at `at`.
    pub(super) fn sub_slice(
        &mut self,
        seq: &Seq,
        start: Option<&lacuna_ir::TExpr>,
        end: Option<&lacuna_ir::TExpr>,
        at: usize,
    ) -> R<Vals> {
        let start = match start {
            Some(s) => Some(self.one(s)?),
            None => None,
        };
        let end = match end {
            Some(e) => Some(self.one(e)?),
            None => None,
        };
        let (data, len) = self.seq_parts(seq)?;
        let start = start.unwrap_or_else(|| self.int_const(types::I64, 0));
        let end = end.unwrap_or(len);
        let start_past = self.b.ins().icmp(IntCC::UnsignedGreaterThan, start, len);
        self.fault_if_with(start_past, Fault::SliceStart, at, &[start, len]);
        let end_past = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
        self.fault_if_with(end_past, Fault::SliceEnd, at, &[end, len]);
        let reversed = self.b.ins().icmp(IntCC::UnsignedGreaterThan, start, end);
        self.fault_if_with(reversed, Fault::SliceOrder, at, &[start, end]);
        let size = i64::from(self.elem_layout(seq.elem)?.0);
        let offset = self.b.ins().imul_imm(start, size);
        let from = self.b.ins().iadd(data, offset);
        let count = self.b.ins().isub(end, start);
        Ok(vec![from, count])
    }
}
