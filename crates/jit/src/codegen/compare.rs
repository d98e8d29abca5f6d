//! Sorts by keys: `sort_by_key(|x| k)` and `sort_by(|a, b| ..)` read as the keys it compares ([`SortKey`]).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlags, Type, Value};
use cranelift_frontend::Variable;

use crate::abi::Fault;
use crate::codegen::{clif, flat, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use lacuna_ir::{Closure, IterChain, KeyOrder, Seq, SortKey, Ty};

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
                g.bind_params(&key.key, &[(&item_ty, &item)])?;
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
        let f = self.helper(Helper::KeyedSort);
        self.b.ins().call(f, &[data, len, size, buffer, spec_ptr, spec_len]);
        let free = self.helper(Helper::VecFree);
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
    fn key_words(&mut self, key: &SortKey) -> R<Vec<Value>> {
        if key.key.body.ty == Ty::Str {
            return self.expr(&key.key.body);
        }
        let (word, nan) = self.numeric_key_word(key)?;
        if let (Some(nan), KeyOrder::Partial { message, at }) = (nan, &key.order) {
            self.partial_cmp_panic(nan, message, *at);
        }
        Ok(vec![if key.descending { self.b.ins().bnot(word) } else { word }])
    }

    /// The panic of `partial_cmp(..).unwrap()` (or `.expect(message)`) where `nan` holds.
    fn partial_cmp_panic(&mut self, nan: Value, message: &str, at: usize) {
        let index = self.message(message);
        let index = self.b.ins().iconst(types::I64, index as i64);
        self.fault_if_with(nan, Fault::Panic, at, &[index]);
    }

    /// `max_by(|a, b| ..)` (or `min_by`, `min`) of a chain by the keys its comparison compares ([`Sink::MaxBy`]):
    /// as std folds, the item kept so far is compared with each next one, which replaces it unless the kept one
    /// is greater (`max_by`) or only when it is (`min_by`). Each item's keys are computed once, as words that
    /// order as the keys do (descending ones complemented); a NaN under `partial_cmp(..).unwrap()` panics at the
    /// first comparison that meets it — none for a single item. The `Option` of the item kept.
    pub(super) fn max_by(&mut self, chain: &IterChain, keys: &[SortKey], min: bool, at: usize) -> R<Vals> {
        if let [key] = keys {
            if lacuna_lowering::may_fault(&key.key.body) {
                return self.max_by_each_comparison(chain, key, min, at);
            }
        }
        let item_ty = chain.item();
        let item_parts = flat(&item_ty);
        let new_var = |g: &mut Self, t: Type| {
            let z = g.zero(t);
            g.var(t, z)
        };
        let have = new_var(self, types::I8);
        let best: Vec<Variable> = item_parts.iter().map(|&t| new_var(self, t)).collect();
        let best_words: Vec<Variable> = keys.iter().map(|_| new_var(self, types::I64)).collect();
        let best_nan = new_var(self, types::I8);
        let partial = keys.iter().find_map(|k| match &k.order {
            KeyOrder::Partial { message, at } => Some((message.clone(), *at)),
            _ => None,
        });
        self.drive(chain, at, &mut |g, item, _, _| {
            let mut words = Vec::new();
            let mut nan = g.int_const(types::I8, 0);
            for key in keys {
                g.bind_params(&key.key, &[(&item_ty, &item)])?;
                let (word, key_nan) = g.numeric_key_word(key)?;
                words.push(if key.descending { g.b.ins().bnot(word) } else { word });
                if let Some(key_nan) = key_nan {
                    nan = g.b.ins().bor(nan, key_nan);
                }
            }
            let had = g.b.use_var(have);
            // The comparison std makes: from the second item on, with the kept item's keys.
            if let Some((message, unwrap_at)) = &partial {
                let kept_nan = g.b.use_var(best_nan);
                let either = g.b.ins().bor(kept_nan, nan);
                let compared_nan = g.b.ins().band(had, either);
                g.partial_cmp_panic(compared_nan, message, *unwrap_at);
            }
            // Whether the kept item is greater: the first key that differs decides.
            let mut greater = g.int_const(types::I8, 0);
            for (var, &word) in best_words.iter().zip(&words).rev() {
                let kept = g.b.use_var(*var);
                let gt = g.b.ins().icmp(IntCC::UnsignedGreaterThan, kept, word);
                let eq = g.b.ins().icmp(IntCC::Equal, kept, word);
                let tie = g.b.ins().band(eq, greater);
                greater = g.b.ins().bor(gt, tie);
            }
            let better = if min { greater } else { g.b.ins().bxor_imm(greater, 1) };
            let first = g.b.ins().bxor_imm(had, 1);
            let take = g.b.ins().bor(first, better);
            for (var, &v) in best.iter().chain(&best_words).zip(item.iter().chain(&words)) {
                let old = g.b.use_var(*var);
                let new = g.b.ins().select(take, v, old);
                g.b.def_var(*var, new);
            }
            let old_nan = g.b.use_var(best_nan);
            let new_nan = g.b.ins().select(take, nan, old_nan);
            g.b.def_var(best_nan, new_nan);
            let one = g.int_const(types::I8, 1);
            g.b.def_var(have, one);
            Ok(())
        })?;
        Ok(self.kept(have, &best))
    }

    /// The `Option` of the item a fold kept: whether there is one, then its parts.
    fn kept(&mut self, have: Variable, best: &[Variable]) -> Vals {
        std::iter::once(have).chain(best.iter().copied()).map(|v| self.b.use_var(v)).collect()
    }

    /// `max_by`/`min_by` of one key that may fault (a host method's result, `a.total()`), computed where std's
    /// comparison computes it: for each item after the first, the kept item's key and the new one's, in the order
    /// the comparison is written (`b.total().partial_cmp(&a.total())` computes the new item's first) — so a key
    /// that panics or prints does so on the same items, as often, in the same order.
    fn max_by_each_comparison(&mut self, chain: &IterChain, key: &SortKey, min: bool, at: usize) -> R<Vals> {
        let item_ty = chain.item();
        let new_var = |g: &mut Self, t: Type| {
            let z = g.zero(t);
            g.var(t, z)
        };
        let have = new_var(self, types::I8);
        let best: Vec<Variable> = flat(&item_ty).iter().map(|&t| new_var(self, t)).collect();
        self.drive(chain, at, &mut |g, item, _, _| {
            let had = g.b.use_var(have);
            let compare = g.b.create_block();
            let first = g.b.create_block();
            let merge = g.b.create_block();
            g.b.append_block_param(merge, types::I8);
            g.b.ins().brif(had, compare, &[], first, &[]);
            // The first item is kept without a comparison.
            g.b.switch_to_block(first);
            g.b.seal_block(first);
            let one = g.int_const(types::I8, 1);
            g.b.ins().jump(merge, &[one.into()]);
            g.b.switch_to_block(compare);
            g.b.seal_block(compare);
            let kept: Vals = best.iter().map(|v| g.b.use_var(*v)).collect();
            let mut words = Vec::new();
            let sides = if key.descending { [&item, &kept] } else { [&kept, &item] };
            for side in sides {
                g.bind_params(&key.key, &[(&item_ty, side)])?;
                words.push(g.numeric_key_word(key)?);
            }
            let [(first_word, first_nan), (second_word, second_nan)] = [words[0], words[1]];
            if let KeyOrder::Partial { message, at } = &key.order {
                if let (Some(a), Some(b)) = (first_nan, second_nan) {
                    let nan = g.b.ins().bor(a, b);
                    g.partial_cmp_panic(nan, message, *at);
                }
            }
            // The comparison of the kept item with the new one says `Greater`: the kept one's key is greater
            // (ascending), or the new one's is (descending: the keys compared the other way round).
            let greater = g.b.ins().icmp(IntCC::UnsignedGreaterThan, first_word, second_word);
            // `max_by` takes the new item unless the comparison says `Greater`; `min_by` only if it does.
            let take = if min { greater } else { g.b.ins().bxor_imm(greater, 1) };
            g.b.ins().jump(merge, &[take.into()]);
            g.b.switch_to_block(merge);
            g.b.seal_block(merge);
            let take = g.b.block_params(merge)[0];
            for (var, &v) in best.iter().zip(item.iter()) {
                let old = g.b.use_var(*var);
                let new = g.b.ins().select(take, v, old);
                g.b.def_var(*var, new);
            }
            let one = g.int_const(types::I8, 1);
            g.b.def_var(have, one);
            Ok(())
        })?;
        Ok(self.kept(have, &best))
    }

    /// A numeric key as a word that orders as the key does, ascending, and for a `partial_cmp` key of a float
    /// whether it is NaN.
    fn numeric_key_word(&mut self, key: &SortKey) -> R<(Value, Option<Value>)> {
        let s = key.key.body.s();
        let t = clif(s).ok_or_else(|| CodegenError("a sort key's type".into()))?;
        let k = self.one(&key.key.body)?;
        if !s.is_float() {
            let k = self.resize(k, t, types::I64, s.is_signed());
            return Ok((if s.is_signed() { self.b.ins().bxor_imm(k, i64::MIN) } else { k }, None));
        }
        let mut x = if t == types::F32 { self.b.ins().fpromote(types::F64, k) } else { k };
        let mut nan = None;
        if let KeyOrder::Partial { .. } = &key.order {
            nan = Some(self.b.ins().fcmp(FloatCC::Unordered, x, x));
            // `-0.0 + 0.0` is `0.0`: the two zeros compare equal.
            let zero = self.b.ins().f64const(0.0);
            x = self.b.ins().fadd(x, zero);
        }
        let bits = self.b.ins().bitcast(types::I64, MemFlags::new(), x);
        // Negative floats order backwards as integers: all their bits flipped; the others only the sign bit.
        let sign = self.b.ins().sshr_imm(bits, 63);
        let mask = self.b.ins().bor_imm(sign, i64::MIN);
        Ok((self.b.ins().bxor(bits, mask), nan))
    }
}
