//! Sorts by keys: `sort_by_key(|x| k)` and `sort_by(|a, b| ..)` read as the keys it compares ([`SortKey`]).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlags};

use crate::abi::Fault;
use crate::codegen::{clif, CodegenError, Gen, R};
use crate::helper::Helper;
use lacuna_ir::{Closure, KeyOrder, Seq, SortKey, Ty};

/// What `lacuna_keyed_sort` is told of a key: its words are text (a pointer and a length, compared by bytes).
pub(crate) const KEY_TEXT: u8 = 1;
/// What `lacuna_keyed_sort` is told of a key: larger keys first.
pub(crate) const KEY_DESCENDING: u8 = 2;

impl Gen<'_, '_> {
    /// `sort_by_key(|x| key)`: a stable sort by one key compared by `Ord`.
    pub(super) fn sort_by_key(&mut self, seq: &Seq, closure: &Closure, at: usize) -> R<()> {
        let key = SortKey { key: closure.clone(), descending: false, order: KeyOrder::Ord };
        self.sort_by_keys(seq, std::slice::from_ref(&key), at)
    }

    /// A stable sort by `keys`: each element's keys, each a word that orders as the key does (text: its pointer
    /// and length), into a buffer; then `lacuna_keyed_sort` orders the elements by them, the first key first.
    /// Fewer than two elements: nothing runs (std's sorts call nothing).
    pub(super) fn sort_by_keys(&mut self, seq: &Seq, keys: &[SortKey], at: usize) -> R<()> {
        let (data, len) = self.seq_parts(seq)?;
        let size = self.elem_layout(seq.elem)?.0;
        let item_ty = seq.elem.read_ty();
        let mut spec = Vec::new();
        // A descending numeric key is stored complemented (so it orders ascending); only text is told.
        for key in keys {
            let text = key.key.body.ty == Ty::Str;
            spec.push(u8::from(text) * KEY_TEXT + u8::from(text && key.descending) * KEY_DESCENDING);
        }
        let width: i64 = keys.iter().map(|k| if k.key.body.ty == Ty::Str { 2 } else { 1 }).sum();
        let sort = self.b.create_block();
        let exit = self.b.create_block();
        let several = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThanOrEqual, len, 2);
        self.b.ins().brif(several, sort, &[], exit, &[]);
        self.b.switch_to_block(sort);
        self.b.seal_block(sort);
        let dangling = self.int_const(types::I64, 8);
        let zero = self.int_const(types::I64, 0);
        let words = self.b.ins().imul_imm(len, width);
        let buffer = self.vec_grow(dangling, zero, words, (8, 8), true, at);
        self.each_index(len, |g, i| {
            g.tick(at);
            let item = g.element_at(seq.elem, data, i)?;
            let row = g.b.ins().imul_imm(i, width * 8);
            let row = g.b.ins().iadd(buffer, row);
            let mut word = 0;
            for key in keys {
                g.bind_params(&key.key, &[(&item_ty, &item)]);
                for w in g.key_words(key)? {
                    g.b.ins().store(MemFlags::trusted(), w, row, word * 8);
                    word += 1;
                }
            }
            Ok(())
        })?;
        let spec_len = self.int_const(types::I64, spec.len() as i64);
        let spec: Box<[u8]> = spec.into();
        let spec_ptr = self.address_const(spec.as_ptr() as usize, "sort keys");
        self.data.push(spec);
        let size = self.int_const(types::I64, i64::from(size));
        let f = self.helpers[&Helper::KeyedSort];
        self.b.ins().call(f, &[data, len, size, buffer, spec_ptr, spec_len]);
        let free = self.helpers[&Helper::VecFree];
        self.b.ins().call(free, &[self.ctx, buffer]);
        self.b.ins().jump(exit, &[]);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// One element's key as the words `lacuna_keyed_sort` compares: an integer widened to 64 bits with its sign
    /// bit flipped (so signed keys order as unsigned words); a float's bits made to order as `total_cmp` does
    /// (`partial_cmp`: `-0.0` as `0.0` first, and a NaN panics); complemented when descending. Text as its
    /// pointer and length.
    fn key_words(&mut self, key: &SortKey) -> R<Vec<cranelift_codegen::ir::Value>> {
        if key.key.body.ty == Ty::Str {
            return self.expr(&key.key.body);
        }
        let word = self.numeric_key_word(key)?;
        Ok(vec![if key.descending { self.b.ins().bnot(word) } else { word }])
    }

    /// A numeric key as a word that orders as the key does, ascending.
    fn numeric_key_word(&mut self, key: &SortKey) -> R<cranelift_codegen::ir::Value> {
        let s = key.key.body.s();
        let t = clif(s).ok_or_else(|| CodegenError("a sort key's type".into()))?;
        let k = self.one(&key.key.body)?;
        if !s.is_float() {
            let k = self.resize(k, t, types::I64, s.is_signed());
            return Ok(if s.is_signed() { self.b.ins().bxor_imm(k, i64::MIN) } else { k });
        }
        let mut x = if t == types::F32 { self.b.ins().fpromote(types::F64, k) } else { k };
        if let KeyOrder::Partial { message, at } = &key.order {
            let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
            let index = self.message(message);
            let index = self.b.ins().iconst(types::I64, index as i64);
            self.fault_if_with(nan, Fault::Panic, *at, &[index]);
            // `-0.0 + 0.0` is `0.0`: the two zeros compare equal.
            let zero = self.b.ins().f64const(0.0);
            x = self.b.ins().fadd(x, zero);
        }
        let bits = self.b.ins().bitcast(types::I64, MemFlags::new(), x);
        // Negative floats order backwards as integers: all their bits flipped; the others only the sign bit.
        let sign = self.b.ins().sshr_imm(bits, 63);
        let mask = self.b.ins().bor_imm(sign, i64::MIN);
        Ok(self.b.ins().bxor(bits, mask))
    }
}
