//! Converted copies of the host's bindings ([`lacuna_ir::Converted`]): a vector or an array of numbers the snippet
//! reads at another number type, copied into a new vector of the run's when the entry starts, each element
//! converted as `as` does, and dropped when the snippet ends unless it moved the copy on.

use crate::codegen::{clif, CodegenError, Gen, R};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlags};
use lacuna_ir::{Elem, Ty};

impl<'a, 'b> Gen<'a, 'b> {
    /// Declares each converted binding's local: a vector as long as the host's, its elements the host's converted.
    pub(super) fn convert_bindings(&mut self) -> R<()> {
        let snippet = self.snippet;
        for c in &snippet.converted {
            let Ty::Vec(elem @ Elem::Scalar(to)) = snippet.locals[c.local].ty else {
                return Err(CodegenError("a converted binding's local".into()));
            };
            let (Some(from_t), Some(to_t)) = (clif(c.from), clif(to)) else {
                return Err(CodegenError("a converted binding of this number type".into()));
            };
            // The host's elements: an array's in the binding's place, a vector's in its buffer.
            let (src, len) = match c.array_len {
                Some(n) => (self.binding_ptr(c.binding), self.int_const(types::I64, n as i64)),
                None => {
                    let [ptr, _, len] = self.load_from_place(c.binding)?;
                    (ptr, len)
                }
            };
            // A buffer of the run's for `len` elements (none for an empty one: `NonNull::dangling`).
            let layout = self.elem_layout(elem)?;
            let dangling = self.int_const(types::I64, i64::from(layout.1));
            let zero = self.int_const(types::I64, 0);
            let alloc = self.b.create_block();
            let copy = self.b.create_block();
            let ptr = self.b.append_block_param(copy, types::I64);
            let empty = self.b.ins().icmp_imm(IntCC::Equal, len, 0);
            self.b.ins().brif(empty, copy, &[dangling.into()], alloc, &[]);
            self.b.switch_to_block(alloc);
            self.b.seal_block(alloc);
            let new = self.vec_grow(dangling, zero, len, layout, true, 0);
            self.b.ins().jump(copy, &[new.into()]);
            self.b.switch_to_block(copy);
            self.b.seal_block(copy);
            // Each element read at the host's type and written converted.
            let head = self.b.create_block();
            let body = self.b.create_block();
            let done = self.b.create_block();
            let i = self.b.append_block_param(head, types::I64);
            self.b.ins().jump(head, &[zero.into()]);
            self.b.switch_to_block(head);
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
            self.b.ins().brif(more, body, &[], done, &[]);
            self.b.switch_to_block(body);
            self.b.seal_block(body);
            let at = self.b.ins().imul_imm(i, i64::from(from_t.bytes()));
            let at = self.b.ins().iadd(src, at);
            let v = self.b.ins().load(from_t, MemFlags::trusted(), at, 0);
            let v = self.cast(v, c.from, to);
            let to_at = self.b.ins().imul_imm(i, i64::from(to_t.bytes()));
            let to_at = self.b.ins().iadd(ptr, to_at);
            self.b.ins().store(MemFlags::trusted(), v, to_at, 0);
            let next = self.b.ins().iadd_imm(i, 1);
            self.b.ins().jump(head, &[next.into()]);
            self.b.seal_block(head);
            self.b.switch_to_block(done);
            self.b.seal_block(done);
            self.declare(c.local, vec![ptr, len, len]);
        }
        Ok(())
    }

    /// Frees each converted binding's copy the snippet did not move on, as its scope ends with the snippet.
    pub(super) fn drop_converted_bindings(&mut self) -> R<()> {
        let snippet = self.snippet;
        for c in &snippet.converted {
            self.drop_local(c.local)?;
        }
        Ok(())
    }
}
