//! Maps and sets the snippet builds: the JIT's map helpers, keys as text or scalar words.

use crate::abi::Fault;
use crate::codegen::seq::VecHome;
use crate::codegen::{clif, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, StackSlot, StackSlotData, StackSlotKind, Value};
use lacuna_ir::{BinOp, LocalRef, MapMethod, MapView, Scalar, TExpr, Ty};

impl<'a, 'b> Gen<'a, 'b> {
    /// Where the snippet's map local `map` keeps its map.
    pub(super) fn map_address(&mut self, map: usize) -> R<Value> {
        let ty = self.snippet.locals[map].ty.clone();
        self.read(LocalRef::Snippet(map), &ty).first().copied().ok_or_else(|| CodegenError("a map not yet made".into()))
    }

    /// A map key's arguments to the map helpers: text as (pointer, length), a scalar as its bits; and the buffer of
    /// a `String` key moved into the map (the map keeps a copy of its bytes), to free after the call.
    pub(super) fn map_key_parts(&mut self, key: &TExpr) -> R<(Value, Value, Value, Option<Value>)> {
        let zero = self.int_const(types::I64, 0);
        match &key.ty {
            Ty::Str | Ty::String => {
                let owned = (key.ty == Ty::String).then(|| self.expr(key)).transpose()?;
                let (data, len) = match &owned {
                    Some(parts) => (parts[0], parts[2]),
                    None => self.text_parts(key)?,
                };
                Ok((data, len, zero, owned.map(|p| p[0])))
            }
            Ty::Scalar(s) => {
                let v = self.one(key)?;
                let word = self.word_of(v, *s);
                Ok((zero, zero, word, None))
            }
            other => Err(CodegenError(format!("a map key of type `{}`", other.name()))),
        }
    }

    pub(super) fn free_moved_key(&mut self, owned: Option<Value>) {
        if let Some(ptr) = owned {
            let free = self.helper(Helper::VecFree);
            self.b.ins().call(free, &[self.ctx, ptr]);
        }
    }

    /// A scalar's bits, zero-extended to a word (how maps keep keys and values).
    pub(super) fn word_of(&mut self, v: Value, s: Scalar) -> Value {
        let t = self.b.func.dfg.value_type(v);
        let bits = if s.is_float() {
            self.b.ins().bitcast(if t == types::F32 { types::I32 } else { types::I64 }, MemFlags::new(), v)
        } else {
            v
        };
        if self.b.func.dfg.value_type(bits) == types::I64 {
            bits
        } else {
            self.b.ins().uextend(types::I64, bits)
        }
    }

    /// `insert` of `key` (with `value`, a map's, as a word) or `remove` at the map `m`: whether the key was there,
    /// and the stack slot holding its old value. A new key past the memory budget faults at `at`.
    pub(super) fn map_change(
        &mut self,
        m: Value,
        key: (Value, Value, Value),
        value: Option<Value>,
        remove: bool,
        at: usize,
    ) -> (Value, StackSlot) {
        let (data, len, word) = key;
        let value = value.unwrap_or_else(|| self.int_const(types::I64, 0));
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let zero = self.int_const(types::I64, 0);
        self.b.ins().stack_store(zero, slot, 0);
        let old = self.b.ins().stack_addr(types::I64, slot, 0);
        let flag = self.int_const(types::I32, i64::from(remove));
        let f = self.helper(Helper::MapChange);
        let call = self.b.ins().call(f, &[self.ctx, m, data, len, word, value, flag, old]);
        let had = self.b.inst_results(call)[0];
        if !remove {
            self.helper_fault_if_set(at);
        }
        (had, slot)
    }

    /// `m.len()`, `m.get(k)`, `m[k]`, `m.insert(k, v)`, .. of the snippet's map local `map` ([`TKind::MapMethod`]).
    pub(super) fn map_method(&mut self, map: usize, name: MapMethod, args: &[TExpr], ty: &Ty, at: usize) -> R<Vals> {
        let map_ty = self.snippet.locals[map].ty.clone();
        let Ty::Map { value: vt, .. } = map_ty else {
            return Err(CodegenError("a method of something other than a map".into()));
        };
        let m = self.map_address(map)?;
        use MapMethod::*;
        if matches!(name, Len | IsEmpty) {
            let f = self.helper(Helper::MapLen);
            let call = self.b.ins().call(f, &[m]);
            let len = self.b.inst_results(call)[0];
            return Ok(vec![if name == Len { len } else { self.b.ins().icmp_imm(IntCC::Equal, len, 0) }]);
        }
        let vt = vt.scalar().ok_or_else(|| CodegenError(format!("`{name}` of a map of vectors")))?;
        let key = args.first().ok_or_else(|| CodegenError(format!("`{name}` without a key")))?;
        let (data, len, word, owned) = self.map_key_parts(key)?;
        // A set's values are `()`: no type to read, and nothing of them is read.
        let t = clif(vt).ok_or_else(|| CodegenError("a map value".into()));
        match name {
            Insert | Remove => {
                let value = match args.get(1) {
                    Some(v) => {
                        let v = self.one(v)?;
                        Some(self.word_of(v, vt))
                    }
                    None => None,
                };
                let (had, slot) = self.map_change(m, (data, len, word), value, name == Remove, at);
                self.free_moved_key(owned);
                if map_ty.is_set() {
                    // `insert` says whether the key is new; `remove` whether it was there.
                    return Ok(vec![if name == Insert { self.b.ins().bxor_imm(had, 1) } else { had }]);
                }
                if *ty == Ty::Scalar(Scalar::Unit) {
                    return Ok(Vec::new());
                }
                let previous = self.b.ins().stack_load(t?, slot, 0);
                Ok(vec![had, previous])
            }
            Get | ContainsKey | Contains | Index => {
                let f = self.helper(Helper::MapFind);
                let call = self.b.ins().call(f, &[m, data, len, word]);
                let found = self.b.inst_results(call)[0];
                let absent = self.b.ins().icmp_imm(IntCC::Equal, found, 0);
                if matches!(name, ContainsKey | Contains) {
                    return Ok(vec![self.b.ins().bxor_imm(absent, 1)]);
                }
                let t = t?;
                if name == Index {
                    let index = self.message("no entry found for key");
                    let index = self.b.ins().iconst(types::I64, index as i64);
                    self.fault_if_with(absent, Fault::Panic, at, &[index]);
                    return Ok(vec![self.b.ins().load(t, MemFlags::trusted(), found, 0)]);
                }
                // `get`: the value where it is, read only when present.
                let read = self.b.create_block();
                let done = self.b.create_block();
                self.b.append_block_param(done, t);
                let zero = self.zero(t);
                self.b.ins().brif(absent, done, &[zero.into()], read, &[]);
                self.b.switch_to_block(read);
                self.b.seal_block(read);
                let v = self.b.ins().load(t, MemFlags::trusted(), found, 0);
                self.b.ins().jump(done, &[v.into()]);
                self.b.switch_to_block(done);
                self.b.seal_block(done);
                let v = self.b.block_params(done)[0];
                let present = self.b.ins().bxor_imm(absent, 1);
                Ok(vec![present, v])
            }
            Len | IsEmpty => Err(CodegenError(format!("the map method `{name}` twice"))),
        }
    }

    /// The entries of the map at `m` (keyed by `key`) in key order, and how many: `[key word, key word, value]`
    /// each ([`crate::rt::map::helper_map_entries`]), valid until the map changes.
    pub(super) fn map_listing(&mut self, m: Value, key: &Ty) -> R<(Value, Value)> {
        let signed_bits = match key {
            Ty::Scalar(s) if s.is_signed() => s.int_bits().unwrap_or(64),
            _ => 0,
        };
        let list = self.helper(Helper::MapEntries);
        let bits = self.b.ins().iconst(types::I32, i64::from(signed_bits));
        let call = self.b.ins().call(list, &[m, bits]);
        let entries = self.b.inst_results(call)[0];
        let count = self.helper(Helper::MapLen);
        let call = self.b.ins().call(count, &[m]);
        Ok((entries, self.b.inst_results(call)[0]))
    }

    /// `m.iter()`, `m.into_iter()`, `m.keys()` or `m.values()` of the snippet's map ([`TKind::MapEntries`]): a new
    /// vector of its entries, keys or values in key order, pushed one by one from the map's listing. Text keys
    /// point into the map, or are copied when the vector's elements own them.
    pub(super) fn map_entries(&mut self, e: &TExpr, map: usize, view: MapView) -> R<Vals> {
        let at = e.range.start;
        let &Ty::Vec(elem) = &e.ty else { return Err(CodegenError("a map's view of this type".into())) };
        let Ty::Map { key, value, .. } = self.snippet.locals[map].ty.clone() else {
            return Err(CodegenError("a view of something other than a map".into()));
        };
        let value = value.scalar().ok_or_else(|| CodegenError("a view of a map of vectors".into()))?;
        let m = self.map_address(map)?;
        let (entries, n) = self.map_listing(m, &key)?;
        let home = self.vec_new(elem, 0, at)?;
        let VecHome::Vars(vars) = home else { return Err(CodegenError("a vector".into())) };
        self.each_index(n, |g, i| {
            let offset = g.b.ins().imul_imm(i, 24);
            let entry = g.b.ins().iadd(entries, offset);
            let load = |g: &mut Self, t, at: i32| g.b.ins().load(t, MemFlags::trusted(), entry, at);
            let mut key_parts = match &*key {
                Ty::String | Ty::Str => vec![load(g, types::I64, 0), load(g, types::I64, 8)],
                // (Little-endian: a narrower scalar is the word's first bytes.)
                Ty::Scalar(s) => vec![load(g, clif(*s).ok_or_else(|| CodegenError("a map key".into()))?, 0)],
                _ => return Err(CodegenError("a map key of this type".into())),
            };
            // A `String` key of `into_iter`: a copy the vector owns.
            if elem.owns_buffer() {
                key_parts = g.owned_copy(key_parts[0], key_parts[1], types::I8, at)?;
            }
            let value_parts = match clif(value) {
                Some(t) => vec![load(g, t, 16)],
                None => Vec::new(),
            };
            let item = match view {
                MapView::Keys => key_parts,
                MapView::Values => value_parts,
                MapView::Iter | MapView::IntoIter if value == Scalar::Unit => key_parts,
                MapView::Iter | MapView::IntoIter => key_parts.into_iter().chain(value_parts).collect(),
            };
            g.vec_push(VecHome::Vars(vars), elem, true, &item, at)
        })?;
        Ok(vars.iter().map(|v| self.b.use_var(*v)).collect())
    }

    /// `*m.entry(key).or_insert(default) op= value` ([`TKind::MapUpdate`]).
    pub(super) fn map_update(
        &mut self,
        e: &TExpr,
        map: usize,
        key: &TExpr,
        default: &Option<Box<TExpr>>,
        op: &Option<BinOp>,
        value: &TExpr,
    ) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = {
            let Ty::Map { value: vt, .. } = self.snippet.locals[map].ty else {
                return Err(CodegenError("an entry of something other than a map".into()));
            };
            let vt = vt.scalar().ok_or_else(|| CodegenError("a change of a map's vector".into()))?;
            // Primitive operands: the value first, then the place.
            let v = self.one(value)?;
            let m = self.map_address(map)?;
            let (data, len, word, owned) = self.map_key_parts(key)?;
            let default = match default {
                Some(d) => {
                    let d = self.one(d)?;
                    self.word_of(d, vt)
                }
                None => self.int_const(types::I64, 0),
            };
            let f = self.helper(Helper::MapSlot);
            let call = self.b.ins().call(f, &[self.ctx, m, data, len, word, default]);
            let slot = self.b.inst_results(call)[0];
            let failed = self.b.ins().icmp_imm(IntCC::Equal, slot, 0);
            self.helper_fault_if(failed, at);
            self.free_moved_key(owned);
            let t = clif(vt).ok_or_else(|| CodegenError("a map value".into()))?;
            let new = match op {
                Some(op) => {
                    let current = self.b.ins().load(t, MemFlags::trusted(), slot, 0);
                    self.binary(*op, vt, vt, current, v, at)
                }
                None => v,
            };
            self.b.ins().store(MemFlags::trusted(), new, slot, 0);
            None
        };
        Ok(value.into_iter().collect())
    }

    /// `m.entry(key).or_default().push(value)` of a map of vectors of strings ([`TKind::MapPush`]): the key, then
    /// the `String`, evaluated; the map keeps copies of both, and the moved buffers are freed.
    pub(super) fn map_push(&mut self, map: usize, key: &TExpr, value: &TExpr, at: usize) -> R<Vals> {
        let (data, len, word, owned) = self.map_key_parts(key)?;
        let text = self.expr(value)?;
        let &[text_data, _, text_len] = text.as_slice() else {
            return Err(CodegenError("a push of something other than a `String`".into()));
        };
        let m = self.map_address(map)?;
        let f = self.helper(Helper::MapPush);
        self.b.ins().call(f, &[self.ctx, m, data, len, word, text_data, text_len]);
        self.free_moved_key(owned);
        self.free_moved_key(Some(text_data));
        self.helper_fault_if_set(at);
        Ok(Vec::new())
    }
}
