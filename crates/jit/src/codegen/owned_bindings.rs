//! Owned values of the host's bindings: those the snippet owns while it runs ([`lacuna_ir::Lifted`]), taken over
//! from the host's place when the entry starts and handed back when it ends; and those it replaces in the host's
//! place ([`Place::WholeBinding`]: `x = ..`, `std::mem::take(&mut x)`, `std::mem::replace(&mut x, ..)`).
//!
//! Each is a `String` or a vector whose elements own nothing but text: three words at the host's `Vec` offsets.

use crate::codegen::{CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, Value};
use lacuna_ir::{Elem, LocalRef, Place, TExpr, Ty};

impl<'a, 'b> Gen<'a, 'b> {
    /// Moves each owned binding's value into its snippet local: the buffers (and a vector's strings') become the
    /// run's, uncounted, and the host's place holds an empty value until the end. A fault before then leaves it
    /// empty and the run frees what the local held, as the rustc path leaves the type's default there.
    pub(super) fn take_owned_bindings(&mut self) -> R<()> {
        let snippet = self.snippet;
        for lifted in &snippet.lifted {
            let ty = &snippet.locals[lifted.local].ty;
            let taken = self.take_from_place(lifted.binding, ty)?;
            self.declare(lifted.local, taken.to_vec());
            let empty = self.empty_value(ty)?;
            self.store_in_place(lifted.binding, &empty)?;
        }
        Ok(())
    }

    /// Hands each owned binding's local back to the host's place (which holds an empty value, owning nothing):
    /// its buffers are the host's again. rustc's move check has made sure the local holds a value here.
    pub(super) fn give_back_owned_bindings(&mut self) -> R<()> {
        let snippet = self.snippet;
        for lifted in &snippet.lifted {
            let ty = &snippet.locals[lifted.local].ty;
            let vars = self.vars.get(&lifted.local).cloned().unwrap_or_default();
            let [ptr, cap, len] = vars[..] else {
                return Err(CodegenError("an owned binding's local".into()));
            };
            let value = [ptr, cap, len].map(|v| self.b.use_var(v));
            self.give_to_place(lifted.binding, ty, value)?;
        }
        Ok(())
    }

    /// `binding = new` in the host's place ([`Place::WholeBinding`]): the old value dropped there (its strings
    /// and its buffer, the host's or the run's), then the new one moved in, its buffers the host's from now on. A
    /// fault later leaves the new value there, as in rustc's program.
    pub(super) fn replace_binding(&mut self, binding: usize, ty: &Ty, new: Vals) -> R<()> {
        let [ptr, cap, len] = new[..] else {
            // (A value that diverged: nothing is assigned.)
            return Ok(());
        };
        let (size, align) = self.buffer_layout(ty)?;
        let [old_ptr, old_cap, old_len] = self.load_from_place(binding)?;
        if let Ty::Vec(Elem::String) = ty {
            self.each_host_string(Helper::BufferStringsDrop, old_ptr, old_len)?;
        }
        let bytes = self.b.ins().imul_imm(old_cap, size);
        let align = self.int_const(types::I64, align);
        let drop = self.helper(Helper::BufferDrop);
        self.b.ins().call(drop, &[self.ctx, old_ptr, bytes, align]);
        self.give_to_place(binding, ty, [ptr, cap, len])
    }

    /// `std::mem::take(&mut place)` (no `value`) or `std::mem::replace(&mut place, value)`
    /// ([`lacuna_ir::TKind::MemReplace`]): the value the place held, which is the snippet's now; the place holds
    /// an empty value or `value`.
    pub(super) fn mem_replace(&mut self, place: &Place, value: Option<&TExpr>, ty: &Ty) -> R<Vals> {
        let new = match value {
            Some(v) => self.expr(v)?,
            None => self.empty_value(ty)?.to_vec(),
        };
        let [ptr, cap, len] = new[..] else {
            // (A value that diverged: nothing is replaced.)
            return Ok(Vec::new());
        };
        match place {
            Place::Local(LocalRef::Snippet(id)) => {
                let old = self.read(LocalRef::Snippet(*id), ty);
                self.write(LocalRef::Snippet(*id), new);
                Ok(old)
            }
            Place::WholeBinding(binding) => {
                let old = self.take_from_place(*binding, ty)?;
                self.give_to_place(*binding, ty, [ptr, cap, len])?;
                Ok(old.to_vec())
            }
            _ => Err(CodegenError("`std::mem` on this place".into())),
        }
    }

    /// The value in binding `binding`'s place, made the run's: its buffer and (a vector's) its strings, recorded
    /// but not counted against the budget (the host held them before). The place still holds the same words.
    fn take_from_place(&mut self, binding: usize, ty: &Ty) -> R<[Value; 3]> {
        let (size, align) = self.buffer_layout(ty)?;
        let [ptr, cap, len] = self.load_from_place(binding)?;
        if let Ty::Vec(Elem::String) = ty {
            self.each_host_string(Helper::HostStringsAdopt, ptr, len)?;
        }
        let bytes = self.b.ins().imul_imm(cap, size);
        let align = self.int_const(types::I64, align);
        let adopt = self.helper(Helper::HostBufferAdopt);
        self.b.ins().call(adopt, &[self.ctx, ptr, bytes, align]);
        Ok([ptr, cap, len])
    }

    /// Moves `value` (the run's) into binding `binding`'s place, whose old value is gone: its buffers (and a
    /// vector's strings') are released from the run's record, the host's from now on.
    fn give_to_place(&mut self, binding: usize, ty: &Ty, value: [Value; 3]) -> R<()> {
        let [ptr, _, len] = value;
        if let Ty::Vec(elem) = ty {
            self.element_strings(Helper::StringsRelease, *elem, ptr, len)?;
        }
        let release = self.helper(Helper::VecRelease);
        self.b.ins().call(release, &[self.ctx, ptr]);
        self.store_in_place(binding, &value)
    }

    /// The three words of the `String` or vector in binding `binding`'s place.
    pub(super) fn load_from_place(&mut self, binding: usize) -> R<[Value; 3]> {
        let offsets = self.vec_offsets()?;
        let place = self.binding_ptr(binding);
        Ok(offsets.map(|at| self.b.ins().load(types::I64, MemFlags::trusted(), place, at)))
    }

    /// Writes the three words of a `String` or vector to binding `binding`'s place.
    fn store_in_place(&mut self, binding: usize, value: &[Value; 3]) -> R<()> {
        let place = self.binding_ptr(binding);
        for (&v, at) in value.iter().zip(self.vec_offsets()?) {
            self.b.ins().store(MemFlags::trusted(), v, place, at);
        }
        Ok(())
    }

    /// An empty `String` or vector: a dangling pointer (the elements' alignment), no capacity, no length.
    fn empty_value(&mut self, ty: &Ty) -> R<[Value; 3]> {
        let (_, align) = self.buffer_layout(ty)?;
        let dangling = self.int_const(types::I64, align);
        let zero = self.int_const(types::I64, 0);
        Ok([dangling, zero, zero])
    }

    /// Calls `helper` (`HostStringsAdopt`, `BufferStringsDrop`) on the `len` strings of the host's vector at
    /// `data`, with where each one's pointer and capacity are.
    fn each_host_string(&mut self, helper: Helper, data: Value, len: Value) -> R<()> {
        let [ptr_at, cap_at, _] = self.vec_offsets()?.map(i64::from);
        let args = [24, ptr_at, cap_at].map(|v| self.int_const(types::I64, v));
        let f = self.helper(helper);
        self.b.ins().call(f, &[self.ctx, data, len, args[0], args[1], args[2]]);
        Ok(())
    }

    /// The size and alignment of an element of an owned value's buffer.
    fn buffer_layout(&self, ty: &Ty) -> R<(i64, i64)> {
        match ty {
            Ty::String => Ok((1, 1)),
            Ty::Vec(elem) => self.elem_layout(*elem).map(|(size, align)| (i64::from(size), i64::from(align))),
            _ => Err(CodegenError("an owned value of this type in a host's place".into())),
        }
    }
}
