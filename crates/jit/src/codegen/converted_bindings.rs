//! Converted copies of the host's bindings ([`lacuna_ir::Converted`]): a vector or an array of numbers the snippet
//! reads at another number type, copied into a new vector of the run's when the entry starts, each element
//! converted as `as` does, and dropped when the snippet ends unless it moved the copy on.

use crate::codegen::{clif, CodegenError, Gen, R};
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
            // A buffer of the run's for `len` elements, then each element read at the host's type and written
            // converted.
            let ptr = self.buffer_for(len, self.elem_layout(elem)?, 0);
            self.each_index(len, |g, i| {
                let at = g.b.ins().imul_imm(i, i64::from(from_t.bytes()));
                let at = g.b.ins().iadd(src, at);
                let v = g.b.ins().load(from_t, MemFlags::trusted(), at, 0);
                let v = g.cast(v, c.from, to);
                let to_at = g.b.ins().imul_imm(i, i64::from(to_t.bytes()));
                let to_at = g.b.ins().iadd(ptr, to_at);
                g.b.ins().store(MemFlags::trusted(), v, to_at, 0);
                Ok(())
            })?;
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
