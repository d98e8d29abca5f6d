//! Text: literals, `String`s the snippet owns, appending, comparing, and `format!` through the format helper.

use crate::abi::FindMode;
use crate::abi::TransformOp;
use crate::abi::TrimMode;
use crate::abi::{
    RawSpec, KIND_BOOL, KIND_CHAR, KIND_FLOAT, KIND_SEQ, KIND_SIGNED, KIND_STR, KIND_STRING, KIND_UNSIGNED,
};
use crate::codegen::seq::{VecField, VecHome};
use crate::codegen::{clif, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, BlockArg, FuncRef, MemFlags, StackSlot, StackSlotData, StackSlotKind, Type, Value};
use lacuna_ir::{Elem, Lit, ParseThen, Scalar, TExpr, TKind, TextMethod, TupleElem, Ty};

/// One evaluated piece of a format string: the text helper's kind, value words, spec, fault position, a
/// `String` buffer to free once it is appended (a host struct's text), and the condition under which it is
/// appended at all (a `Some`'s payload and closing parenthesis).
pub(super) struct FmtArg {
    kind: u32,
    a: Value,
    b: Value,
    spec: lacuna_ir::FmtSpec,
    at: usize,
    temporary: Option<Value>,
    only_if: Option<Value>,
    /// `{:?}` of a vector of tuples (`a` its buffer, `b` its length): written element by element, part by part.
    tuples: Option<TupleElem>,
    /// `{:?}` of a map (`a` its listing, `b` its length; [`Gen::map_listing`]): written entry by entry.
    map: Option<(Ty, Scalar)>,
}

impl FmtArg {
    fn new(kind: u32, a: Value, b: Value, spec: lacuna_ir::FmtSpec, at: usize) -> FmtArg {
        FmtArg { kind, a, b, spec, at, temporary: None, only_if: None, tuples: None, map: None }
    }
}

/// A short literal's bytes as 8-, 4-, 2- and 1-byte words: each word's type, offset and value (native byte
/// order, zero-extended from its width), as loads and stores of them read and write.
pub(super) fn literal_words(bytes: &[u8]) -> Vec<(Type, i32, i64)> {
    let mut words = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let (t, width) = match bytes.len() - offset {
            8.. => (types::I64, 8),
            4.. => (types::I32, 4),
            2.. => (types::I16, 2),
            _ => (types::I8, 1),
        };
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(&bytes[offset..offset + width]);
        let mask = if width == 8 { -1 } else { (1i64 << (width * 8)) - 1 };
        words.push((t, offset as i32, i64::from_ne_bytes(word) & mask));
        offset += width;
    }
    words
}

/// The longest string literal `==` compares and `push_str` appends in place rather than through a helper.
pub(super) const SHORT_LITERAL: usize = 16;

impl<'a, 'b> Gen<'a, 'b> {
    /// Where a vector's or a slice's elements are, and how many there are.
    fn elements(&mut self, value: &TExpr) -> R<(Value, Value)> {
        let parts = self.expr(value)?;
        match (&value.ty, &parts[..]) {
            (Ty::Vec(_), &[data, _, len]) | (Ty::Slice(_), &[data, len]) => Ok((data, len)),
            _ => Err(CodegenError("a vector's or a slice's parts".into())),
        }
    }

    /// Whether the text at `data` (`len` bytes) is `literal` (at most [`SHORT_LITERAL`] bytes): the lengths, then
    /// the bytes in 8-, 4-, 2- and 1-byte loads, read only once the lengths agree.
    pub(super) fn equals_literal(&mut self, data: Value, len: Value, literal: &[u8]) -> Value {
        let same_len = self.b.ins().icmp_imm(IntCC::Equal, len, literal.len() as i64);
        if literal.is_empty() {
            return same_len;
        }
        let merge = self.merge_block(&[types::I8]);
        let compare = self.b.create_block();
        let no = self.b.ins().iconst(types::I8, 0);
        self.b.ins().brif(same_len, compare, &[], merge, &[BlockArg::Value(no)]);
        self.b.switch_to_block(compare);
        self.b.seal_block(compare);
        let mut all = self.b.ins().iconst(types::I8, 1);
        for (t, offset, expected) in literal_words(literal) {
            // The text's bytes are readable up to its length, which equals the literal's; no alignment.
            let loaded = self.b.ins().load(t, MemFlags::new().with_notrap(), data, offset);
            let same = self.b.ins().icmp_imm(IntCC::Equal, loaded, expected);
            all = self.b.ins().band(all, same);
        }
        self.b.ins().jump(merge, &[BlockArg::Value(all)]);
        self.enter_merge(merge)[0]
    }

    /// A string literal: its bytes, kept with the compiled code.
    pub(super) fn str_literal(&mut self, text: &str) -> Vals {
        let len = self.int_const(types::I64, text.len() as i64);
        if text.is_empty() {
            return vec![self.int_const(types::I64, 1), len];
        }
        // Text the hole's value may hold outlives the run: a literal's bytes are then kept for the process's life
        // (once per distinct text), as a literal in a compiled program is.
        if self.snippet.ty.holds_text() {
            let ptr = self.address_const(interned(text).as_ptr() as usize, "str");
            return vec![ptr, len];
        }
        let bytes: Box<[u8]> = text.as_bytes().into();
        let ptr = self.address_const(bytes.as_ptr() as usize, "str");
        self.data.push(bytes);
        vec![ptr, len]
    }

    /// The pointer and length of text: a `&str` value, or a `String`'s (pointer, capacity, length).
    pub(super) fn text_parts(&mut self, e: &TExpr) -> R<(Value, Value)> {
        let values = self.expr(e)?;
        match (&e.ty, values.as_slice()) {
            (Ty::Str, [data, len]) | (Ty::String, [data, _, len]) => Ok((*data, *len)),
            _ => Err(CodegenError("text".into())),
        }
    }

    /// A `String`'s (pointer, capacity, length) and whether the snippet owns it, copied to a stack slot for the
    /// text helpers (`text::TextSlot`): its address.
    pub(super) fn text_slot(&mut self, home: &VecHome, owned: bool) -> R<Value> {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 3));
        for (i, field) in [VecField::Ptr, VecField::Cap, VecField::Len].into_iter().enumerate() {
            let v = self.vec_get(home, field)?;
            self.b.ins().stack_store(v, slot, (i * 8) as i32);
        }
        let owned = self.int_const(types::I64, i64::from(owned));
        self.b.ins().stack_store(owned, slot, 24);
        Ok(self.b.ins().stack_addr(types::I64, slot, 0))
    }

    /// The `String` back from the helpers' slot.
    pub(super) fn text_unslot(&mut self, slot: Value, home: &VecHome) -> R<()> {
        for (i, field) in [VecField::Ptr, VecField::Cap, VecField::Len].into_iter().enumerate() {
            let v = self.b.ins().load(types::I64, MemFlags::trusted(), slot, (i * 8) as i32);
            self.vec_set(home, field, v)?;
        }
        Ok(())
    }

    /// Appends text or a `char` to the `String` at `slot` (a growing buffer the snippet or the host owns: a host
    /// `String` grows through the same allocator, which is why `push_str` on one is fine).
    pub(super) fn append_text(&mut self, slot: Value, value: &TExpr, at: usize) -> R<()> {
        // `s.push_str(&format!(..))`, `s += &x.to_string()`: the arguments evaluated first, as for the temporary
        // `String`, then formatted straight into `s` (no temporary to allocate and keep).
        if let TKind::TextMethod { name, receiver, .. } = &value.kind {
            if let (true, TKind::Format(pieces)) = (*name == TextMethod::AsStr, &receiver.kind) {
                let args = self.format_args(pieces, receiver.range.start)?;
                self.append_formatted(slot, args)?;
                return Ok(());
            }
        }
        if value.ty == Ty::Scalar(Scalar::Char) {
            let c = self.one(value)?;
            // An ASCII `char` with room for it is stored in place; anything else goes through the helper.
            let (ptr, cap, len) = self.text_slot_parts(slot);
            let ascii = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c, 0x80);
            let room = self.b.ins().icmp(IntCC::UnsignedLessThan, len, cap);
            let fast = self.b.ins().band(ascii, room);
            return self.append_in_place(slot, fast, at, |g| {
                let end = g.b.ins().iadd(ptr, len);
                let byte = g.b.ins().ireduce(types::I8, c);
                g.b.ins().store(MemFlags::trusted(), byte, end, 0);
                let f = g.helper(Helper::PushChar);
                (g.b.ins().iadd_imm(len, 1), f, vec![g.ctx, slot, c])
            });
        }
        if let TKind::Lit(Lit::Str(text)) = &value.kind {
            if !text.is_empty() && text.len() <= SHORT_LITERAL {
                // A short literal with room for it is stored in place, in a few constant stores.
                let bytes = text.clone().into_bytes();
                let (ptr, cap, len) = self.text_slot_parts(slot);
                let free = self.b.ins().isub(cap, len);
                let fast = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThanOrEqual, free, bytes.len() as i64);
                let (data, n) = self.text_parts(value)?;
                return self.append_in_place(slot, fast, at, |g| {
                    let end = g.b.ins().iadd(ptr, len);
                    for (t, offset, word) in literal_words(&bytes) {
                        let v = g.b.ins().iconst(t, word);
                        // The buffer has room (checked above); no alignment.
                        g.b.ins().store(MemFlags::new().with_notrap(), v, end, offset);
                    }
                    let f = g.helper(Helper::PushStr);
                    (g.b.ins().iadd_imm(len, bytes.len() as i64), f, vec![g.ctx, slot, data, n])
                });
            }
        }
        let status = {
            let (data, len) = self.text_parts(value)?;
            let f = self.helper(Helper::PushStr);
            let call = self.b.ins().call(f, &[self.ctx, slot, data, len]);
            self.b.inst_results(call)[0]
        };
        self.helper_fault_if(status, at);
        Ok(())
    }

    /// The pointer, capacity and length of the `String` in a text slot.
    pub(super) fn text_slot_parts(&mut self, slot: Value) -> (Value, Value, Value) {
        let [ptr, cap, len] = [0, 8, 16].map(|offset| self.b.ins().load(types::I64, MemFlags::trusted(), slot, offset));
        (ptr, cap, len)
    }

    /// An append with a fast path: where `fast` holds, `store` writes the bytes in place and gives the new length
    /// (and the helper doing the same, with its arguments, for the other case), which the slot then records.
    pub(super) fn append_in_place(
        &mut self,
        slot: Value,
        fast: Value,
        at: usize,
        store: impl FnOnce(&mut Self) -> (Value, FuncRef, Vec<Value>),
    ) -> R<()> {
        let (in_place, helper, done) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(fast, in_place, &[], helper, &[]);
        self.b.switch_to_block(in_place);
        self.b.seal_block(in_place);
        let (new_len, f, args) = store(self);
        self.b.ins().store(MemFlags::trusted(), new_len, slot, 16);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(helper);
        self.b.seal_block(helper);
        let call = self.b.ins().call(f, &args);
        let status = self.b.inst_results(call)[0];
        self.helper_fault_if(status, at);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        Ok(())
    }

    /// A new, empty `String` the snippet owns in a stack slot for the text helpers (`text::TextSlot`).
    pub(super) fn new_text_slot(&mut self) -> (StackSlot, Value) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 3));
        let one = self.int_const(types::I64, 1);
        let zero = self.int_const(types::I64, 0);
        for (i, v) in [one, zero, zero, one].into_iter().enumerate() {
            self.b.ins().stack_store(v, slot, (i * 8) as i32);
        }
        (slot, self.b.ins().stack_addr(types::I64, slot, 0))
    }

    /// The pieces of a format string appended, in order, to a new `String` in a stack slot.
    pub(super) fn format_into(&mut self, pieces: &[lacuna_ir::FmtPiece], at: usize) -> R<(StackSlot, Value)> {
        let (slot, address) = self.new_text_slot();
        let args = self.format_args(pieces, at)?;
        self.append_formatted(address, args)?;
        Ok((slot, address))
    }

    /// Each piece of a format string evaluated, in order (what `format_args!` does before anything is written):
    /// the helper's kind, value words, spec and fault position for each.
    pub(super) fn format_args(&mut self, pieces: &[lacuna_ir::FmtPiece], at: usize) -> R<Vec<FmtArg>> {
        use lacuna_ir::{FmtPiece, FmtSpec, FmtTrait};
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                FmtPiece::Lit(text) => {
                    let parts = self.str_literal(text);
                    out.push(FmtArg::new(KIND_STR, parts[0], parts[1], FmtSpec::default(), at));
                }
                FmtPiece::Arg { value, spec } => {
                    let zero = self.int_const(types::I64, 0);
                    let start = value.range.start;
                    match &value.ty {
                        Ty::Str | Ty::String => {
                            let (data, len) = self.text_parts(value)?;
                            out.push(FmtArg::new(KIND_STR, data, len, *spec, start));
                        }
                        Ty::Struct(id) | Ty::StructRef(id) => {
                            // The host formats it (its shim makes a `String`, appended as text, then freed).
                            let address = self.one(value)?;
                            let debug = spec.trait_ == FmtTrait::Debug;
                            let [data, _, len] = self.struct_text(*id, address, debug, spec.alternate, start)?;
                            let mut arg = FmtArg::new(KIND_STR, data, len, FmtSpec::default(), start);
                            arg.temporary = Some(data);
                            out.push(arg);
                        }
                        Ty::Scalar(s) => {
                            let v = self.one(value)?;
                            out.push(self.scalar_fmt_arg(*s, v, zero, *spec, start)?);
                        }
                        // `{:?}` of an `Option`: `Some(` the payload's `Debug` `)`, or `None`, as the derived
                        // `Debug` writes them: the spec (width, fill, precision, sign) is the payload's, `None` is
                        // written as it is, and `{:#?}` puts the payload on a line of its own, indented by four.
                        Ty::Option(payload) => {
                            let parts = self.expr(value)?;
                            let tag = parts[0];
                            let (open, close) = if spec.alternate { ("Some(\n    ", ",\n)") } else { ("Some(", ")") };
                            let (some, none) = (self.str_literal(open), self.str_literal("None"));
                            let data = self.b.ins().select(tag, some[0], none[0]);
                            let len = self.b.ins().select(tag, some[1], none[1]);
                            out.push(FmtArg::new(KIND_STR, data, len, FmtSpec::default(), start));
                            let debug = FmtSpec { trait_: FmtTrait::Debug, ..*spec };
                            let mut inner = match &**payload {
                                Ty::Scalar(s) => self.scalar_fmt_arg(*s, parts[1], zero, debug, start)?,
                                Ty::Str => FmtArg::new(KIND_STR, parts[1], parts[2], debug, start),
                                // [pointer, capacity, length]
                                Ty::String => FmtArg::new(KIND_STR, parts[1], parts[3], debug, start),
                                // A host struct's box or address: the host formats it, only where there is one.
                                Ty::Struct(id) | Ty::StructRef(id) => {
                                    let [data, len] = self.struct_text_if(*id, tag, parts[1], start)?;
                                    let mut arg = FmtArg::new(KIND_STR, data, len, FmtSpec::default(), start);
                                    arg.temporary = Some(data);
                                    arg
                                }
                                other => return Err(CodegenError(format!("formatting an `Option<{}>`", other.name()))),
                            };
                            inner.only_if = Some(tag);
                            out.push(inner);
                            let close = self.str_literal(close);
                            let mut close = FmtArg::new(KIND_STR, close[0], close[1], FmtSpec::default(), start);
                            close.only_if = Some(tag);
                            out.push(close);
                        }
                        // `{:?}` of a `Result`: `Ok(` or `Err(`, the payload's `Debug` with the spec, `)`, as the
                        // derived `Debug` writes them. A temporary's text is freed after (the variant not held is
                        // zeros, which free nothing).
                        Ty::Result(ok, err) => {
                            let parts = self.expr(value)?;
                            let Some((tag, okv, errv)) = super::result::split(ok, &parts) else {
                                return Err(CodegenError("a `Result`'s parts".into()));
                            };
                            let (okv, errv) = (okv.to_vec(), errv.to_vec());
                            let is_err = self.b.ins().bxor_imm(tag, 1);
                            let temporary = !matches!(value.kind, TKind::Local(_));
                            let debug = FmtSpec { trait_: FmtTrait::Debug, ..*spec };
                            for (payload, vs, held, open) in [(ok, okv, tag, "Ok("), (err, errv, is_err, "Err(")] {
                                let mut pieces = vec![self.fmt_text(open, start)];
                                let mut inner = match &**payload {
                                    Ty::Scalar(Scalar::Unit) => self.fmt_text("()", start),
                                    Ty::Scalar(s) => self.scalar_fmt_arg(*s, vs[0], zero, debug, start)?,
                                    Ty::Str => FmtArg::new(KIND_STR, vs[0], vs[1], debug, start),
                                    // [pointer, capacity, length]
                                    Ty::String => FmtArg::new(KIND_STR, vs[0], vs[2], debug, start),
                                    other => {
                                        return Err(CodegenError(format!(
                                            "formatting a `Result` of `{}`",
                                            other.name()
                                        )))
                                    }
                                };
                                if temporary && **payload == Ty::String {
                                    inner.temporary = Some(vs[0]);
                                }
                                pieces.push(inner);
                                pieces.push(self.fmt_text(")", start));
                                for mut piece in pieces {
                                    piece.only_if = Some(held);
                                    out.push(piece);
                                }
                            }
                        }
                        // `{:?}` of a vector (or of a slice of the elements of one: a hole binding's): its
                        // elements, formatted by the helper in one piece.
                        Ty::Vec(elem) | Ty::Slice(elem) => {
                            let layout = match elem {
                                Elem::Scalar(s) => self.scalar_fmt_kind(*s)?,
                                Elem::Str => KIND_STR,
                                Elem::String => {
                                    let [ptr_at, _, len_at] = self.vec_offsets()?;
                                    KIND_STRING | (ptr_at as u32 / 8) << 16 | (len_at as u32 / 8) << 18
                                }
                                Elem::Tuple(t) => {
                                    let (data, len) = self.elements(value)?;
                                    let mut arg = FmtArg::new(KIND_STR, data, len, *spec, start);
                                    arg.tuples = Some(*t);
                                    out.push(arg);
                                    continue;
                                }
                                other => return Err(CodegenError(format!("formatting a `Vec<{}>`", other.name()))),
                            };
                            let (data, len) = self.elements(value)?;
                            out.push(FmtArg::new(KIND_SEQ | layout << 8, data, len, *spec, start));
                        }
                        Ty::Map { key, value: vt, .. } => {
                            let vt = vt.scalar().ok_or_else(|| CodegenError("formatting a map of vectors".into()))?;
                            let m = self.one(value)?;
                            let (entries, n) = self.map_listing(m, key)?;
                            let mut arg = FmtArg::new(KIND_STR, entries, n, *spec, start);
                            arg.map = Some(((**key).clone(), vt));
                            out.push(arg);
                        }
                        other => return Err(CodegenError(format!("formatting a `{}`", other.name()))),
                    }
                }
            }
        }
        Ok(out)
    }

    /// The helper's kind of a scalar (with its width).
    fn scalar_fmt_kind(&self, s: Scalar) -> R<u32> {
        let t = clif(s).ok_or_else(|| CodegenError("a formatted value".into()))?;
        let bits = t.bits();
        Ok(match s {
            _ if s.is_float() => KIND_FLOAT | bits << 8,
            Scalar::Bool => KIND_BOOL,
            Scalar::Char => KIND_CHAR,
            s if s.is_signed() => KIND_SIGNED | bits << 8,
            _ => KIND_UNSIGNED | bits << 8,
        })
    }

    /// A scalar's piece of a format string: its kind (with its width) and its value as a word.
    fn scalar_fmt_arg(&mut self, s: Scalar, v: Value, zero: Value, spec: lacuna_ir::FmtSpec, at: usize) -> R<FmtArg> {
        let bits = clif(s).ok_or_else(|| CodegenError("a formatted value".into()))?.bits();
        let kind = self.scalar_fmt_kind(s)?;
        let word = if s.is_float() {
            let as_int = self.b.ins().bitcast(if bits == 32 { types::I32 } else { types::I64 }, MemFlags::new(), v);
            if bits == 32 {
                self.b.ins().uextend(types::I64, as_int)
            } else {
                as_int
            }
        } else {
            match bits {
                64 => v,
                _ if s.is_signed() => self.b.ins().sextend(types::I64, v),
                _ => self.b.ins().uextend(types::I64, v),
            }
        };
        Ok(FmtArg::new(kind, word, zero, spec, at))
    }

    /// Appends evaluated format pieces to the `String` at `address` (a `text::TextSlot`).
    pub(super) fn append_formatted(&mut self, address: Value, args: Vec<FmtArg>) -> R<()> {
        let mut temporaries = Vec::new();
        for arg in args {
            if let Some(t) = arg.tuples {
                self.append_tuples(address, t, arg.a, arg.b, arg.at)?;
                continue;
            }
            if let Some((key, value)) = arg.map {
                self.append_map(address, &key, value, arg.a, arg.b, arg.at)?;
                continue;
            }
            temporaries.extend(arg.temporary);
            let raw = Box::new(RawSpec::new(&arg.spec));
            let spec_ptr = self.address_const(&*raw as *const RawSpec as usize, "format spec");
            self.specs.push(raw);
            // A conditional piece in a block of its own.
            let done = arg.only_if.map(|cond| {
                let (append, done) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(cond, append, &[], done, &[]);
                self.b.switch_to_block(append);
                self.b.seal_block(append);
                done
            });
            let kind = self.int_const(types::I32, i64::from(arg.kind));
            let f = self.helper(Helper::Fmt);
            let call = self.b.ins().call(f, &[self.ctx, address, kind, arg.a, arg.b, spec_ptr]);
            let status = self.b.inst_results(call)[0];
            self.helper_fault_if(status, arg.at);
            if let Some(done) = done {
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                self.b.seal_block(done);
            }
        }
        let free = self.helper(Helper::VecFree);
        for t in temporaries {
            self.b.ins().call(free, &[self.ctx, t]);
        }
        Ok(())
    }

    /// A plain piece of text to append.
    fn fmt_text(&mut self, s: &str, at: usize) -> FmtArg {
        let parts = self.str_literal(s);
        FmtArg::new(KIND_STR, parts[0], parts[1], lacuna_ir::FmtSpec::default(), at)
    }

    /// `open`, then for each of the `n` items `stride` bytes apart from `data` the pieces `item` makes of its
    /// address (after `, ` from the second on), then `close`: how `{:?}` lists a collection.
    fn append_listed(
        &mut self,
        address: Value,
        (open, close): (&str, &str),
        (data, n, stride): (Value, Value, i64),
        at: usize,
        mut item: impl FnMut(&mut Self, Value, &mut Vec<FmtArg>) -> R<()>,
    ) -> R<()> {
        let open = self.fmt_text(open, at);
        self.append_formatted(address, vec![open])?;
        self.each_index(n, |g, i| {
            let offset = g.b.ins().imul_imm(i, stride);
            let element = g.b.ins().iadd(data, offset);
            let mut comma = g.fmt_text(", ", at);
            comma.only_if = Some(g.b.ins().icmp_imm(IntCC::NotEqual, i, 0));
            let mut pieces = vec![comma];
            item(g, element, &mut pieces)?;
            g.append_formatted(address, pieces)
        })?;
        let close = self.fmt_text(close, at);
        self.append_formatted(address, vec![close])
    }

    /// `{:?}` of a map from its listing (`n` entries of `[key word, key word, value]`): `{k: v, ..}`, or `{k, ..}`
    /// for a set (values of `()`), each key and value as its own `{:?}` writes it.
    fn append_map(&mut self, address: Value, key: &Ty, value: Scalar, entries: Value, n: Value, at: usize) -> R<()> {
        use lacuna_ir::{FmtSpec, FmtTrait};
        let debug = FmtSpec { trait_: FmtTrait::Debug, ..FmtSpec::default() };
        self.append_listed(address, ("{", "}"), (entries, n, 24), at, |g, entry, pieces| {
            let zero = g.int_const(types::I64, 0);
            pieces.push(match key {
                Ty::Str | Ty::String => {
                    let ptr = g.b.ins().load(types::I64, MemFlags::trusted(), entry, 0);
                    let len = g.b.ins().load(types::I64, MemFlags::trusted(), entry, 8);
                    FmtArg::new(KIND_STR, ptr, len, debug, at)
                }
                Ty::Scalar(s) => {
                    let t = clif(*s).ok_or_else(|| CodegenError("a map key".into()))?;
                    let v = g.b.ins().load(t, MemFlags::trusted(), entry, 0);
                    g.scalar_fmt_arg(*s, v, zero, debug, at)?
                }
                other => return Err(CodegenError(format!("formatting a map keyed by `{}`", other.name()))),
            });
            if let Some(t) = clif(value) {
                pieces.push(g.fmt_text(": ", at));
                let v = g.b.ins().load(t, MemFlags::trusted(), entry, 16);
                pieces.push(g.scalar_fmt_arg(value, v, zero, debug, at)?);
            }
            Ok(())
        })
    }

    /// `{:?}` of the `len` tuples at `data`: `[(a, b), (c, d)]`, each part as its own `{:?}` writes it.
    fn append_tuples(&mut self, address: Value, t: TupleElem, data: Value, len: Value, at: usize) -> R<()> {
        use lacuna_ir::{FmtSpec, FmtTrait, Part};
        let debug = FmtSpec { trait_: FmtTrait::Debug, ..FmtSpec::default() };
        let layout = self.tuple_layout(t)?;
        self.append_listed(address, ("[", "]"), (data, len, i64::from(layout.size)), at, |g, element, pieces| {
            pieces.push(g.fmt_text("(", at));
            for (k, part) in t.parts().iter().enumerate() {
                if k > 0 {
                    pieces.push(g.fmt_text(", ", at));
                }
                let at_part = g.b.ins().iadd_imm(element, i64::from(layout.offsets[k]));
                pieces.push(match part {
                    Part::Str => {
                        let ptr = g.b.ins().load(types::I64, MemFlags::trusted(), at_part, 0);
                        let n = g.b.ins().load(types::I64, MemFlags::trusted(), at_part, 8);
                        FmtArg::new(KIND_STR, ptr, n, debug, at)
                    }
                    Part::String => {
                        let parts = g.text_at(at_part)?;
                        FmtArg::new(KIND_STR, parts[0], parts[1], debug, at)
                    }
                    Part::Scalar(s) => {
                        let ty = clif(*s).ok_or_else(|| CodegenError("a tuple's part".into()))?;
                        let v = g.b.ins().load(ty, MemFlags::trusted(), at_part, 0);
                        let zero = g.int_const(types::I64, 0);
                        g.scalar_fmt_arg(*s, v, zero, debug, at)?
                    }
                });
            }
            pieces.push(g.fmt_text(")", at));
            Ok(())
        })
    }

    /// A search pattern as the text helpers take it: text as (pointer, length) and a zero `char`, or null text and
    /// the `char`.
    fn pattern_args(&mut self, pattern: &TExpr) -> R<(Value, Value, Value)> {
        if pattern.ty == Ty::Scalar(Scalar::Char) {
            let c = self.one(pattern)?;
            Ok((self.int_const(types::I64, 0), self.int_const(types::I64, 0), c))
        } else {
            let (p, p_len) = self.text_parts(pattern)?;
            Ok((p, p_len, self.int_const(types::I32, 0)))
        }
    }

    /// A method of text ([`TKind::TextMethod`]).
    pub(super) fn text_method(&mut self, e: &TExpr, name: TextMethod, receiver: &TExpr, args: &[TExpr]) -> R<Vals> {
        let at = e.range.start;
        let (data, len) = self.text_parts(receiver)?;
        use TextMethod::*;
        Ok(match name {
            Len => vec![len],
            IsEmpty => vec![self.b.ins().icmp_imm(IntCC::Equal, len, 0)],
            AsStr => vec![data, len],
            Trim | TrimStart | TrimEnd | TrimMatches | TrimStartMatches | TrimEndMatches => {
                let which = match name {
                    Trim => TrimMode::Trim,
                    TrimStart => TrimMode::TrimStart,
                    TrimEnd => TrimMode::TrimEnd,
                    TrimMatches => TrimMode::TrimMatches,
                    TrimStartMatches => TrimMode::TrimStartMatches,
                    _ => TrimMode::TrimEndMatches,
                };
                let mut which = self.int_const(types::I32, i64::from(which.code()));
                // The `_matches` forms' pattern: text, or a `char` riding above the mode's byte.
                let (mut pattern_data, mut pattern_len) =
                    (self.int_const(types::I64, 0), self.int_const(types::I64, 0));
                match args.first() {
                    Some(pattern) if pattern.ty == Ty::Str => (pattern_data, pattern_len) = self.text_parts(pattern)?,
                    Some(pattern) => {
                        let c = self.one(pattern)?;
                        let c = self.b.ins().ishl_imm(c, 8);
                        which = self.b.ins().bor(which, c);
                    }
                    None => {}
                }
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                let f = self.helper(Helper::Trim);
                self.b.ins().call(f, &[data, len, which, pattern_data, pattern_len, out]);
                vec![self.b.ins().stack_load(types::I64, slot, 0), self.b.ins().stack_load(types::I64, slot, 8)]
            }
            // `Some(rest)` when the text starts (ends) with the pattern: the text past (before) it, as `str` does.
            StripPrefix | StripSuffix => {
                let which = if name == StripPrefix { FindMode::StartsWith } else { FindMode::EndsWith };
                let which = self.int_const(types::I32, i64::from(which.code()));
                let pattern = &args[0];
                let (p, p_len, c, cut) = if pattern.ty == Ty::Scalar(Scalar::Char) {
                    let c = self.one(pattern)?;
                    // The `char`'s length in UTF-8.
                    let c64 = self.b.ins().uextend(types::I64, c);
                    let [one, two, three, four] = [1, 2, 3, 4].map(|n| self.int_const(types::I64, n));
                    let below_0x80 = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c64, 0x80);
                    let below_0x800 = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c64, 0x800);
                    let below_0x10000 = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c64, 0x10000);
                    let n = self.b.ins().select(below_0x10000, three, four);
                    let n = self.b.ins().select(below_0x800, two, n);
                    let n = self.b.ins().select(below_0x80, one, n);
                    (self.int_const(types::I64, 0), self.int_const(types::I64, 0), c, n)
                } else {
                    let (p, p_len) = self.text_parts(pattern)?;
                    (p, p_len, self.int_const(types::I32, 0), p_len)
                };
                let f = self.helper(Helper::Find);
                let call = self.b.ins().call(f, &[data, len, p, p_len, c, which]);
                let found = self.b.inst_results(call)[0];
                // (Only read when found: then `cut <= len`.)
                let rest_len = self.b.ins().isub(len, cut);
                let rest = if name == StripPrefix { self.b.ins().iadd(data, cut) } else { data };
                vec![found, rest, rest_len]
            }
            // `Option<usize>`: found when the helper gives an index (`u64::MAX` for none), which is then the value.
            Find | Rfind => {
                let (p, p_len, c) = self.pattern_args(&args[0])?;
                let from_end = self.int_const(types::I32, i64::from(name == Rfind));
                let f = self.helper(Helper::Position);
                let call = self.b.ins().call(f, &[data, len, p, p_len, c, from_end]);
                let at = self.b.inst_results(call)[0];
                let found = self.b.ins().icmp_imm(IntCC::NotEqual, at, -1);
                let zero = self.int_const(types::I64, 0);
                vec![found, self.b.ins().select(found, at, zero)]
            }
            Contains | StartsWith | EndsWith => {
                let which = match name {
                    Contains => FindMode::Contains,
                    StartsWith => FindMode::StartsWith,
                    _ => FindMode::EndsWith,
                };
                let which = self.int_const(types::I32, i64::from(which.code()));
                let (p, p_len, c) = self.pattern_args(&args[0])?;
                let f = self.helper(Helper::Find);
                let call = self.b.ins().call(f, &[data, len, p, p_len, c, which]);
                vec![self.b.inst_results(call)[0]]
            }
            ToUppercase | ToLowercase | Repeat => {
                let (slot, address) = self.new_text_slot();
                let (op, n) = match name {
                    ToUppercase => (TransformOp::ToUppercase, self.int_const(types::I64, 0)),
                    ToLowercase => (TransformOp::ToLowercase, self.int_const(types::I64, 0)),
                    _ => (TransformOp::Repeat, self.one(&args[0])?),
                };
                let op = self.int_const(types::I32, i64::from(op.code()));
                let f = self.helper(Helper::Transform);
                let call = self.b.ins().call(f, &[self.ctx, address, data, len, op, n]);
                let status = self.b.inst_results(call)[0];
                self.helper_fault_if(status, at);
                (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect()
            }
            // Each match of the pattern replaced, into a new `String` grown as the pieces are appended.
            Replace => {
                let (slot, address) = self.new_text_slot();
                let (p, p_len, c) = self.pattern_args(&args[0])?;
                let (to, to_len) = self.text_parts(&args[1])?;
                let f = self.helper(Helper::Replace);
                let call = self.b.ins().call(f, &[self.ctx, address, data, len, p, p_len, c, to, to_len]);
                let status = self.b.inst_results(call)[0];
                self.helper_fault_if(status, at);
                (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect()
            }
            // `&text[a..b]`, `[a..]`, `[..b]`, `[..]`: the bounds given, in order.
            Slice | SliceFrom | SliceTo | SliceAll => {
                let mut given = Vec::new();
                for a in args {
                    given.push(self.one(a)?);
                }
                let zero = self.int_const(types::I64, 0);
                let (start, end) = match (name, given.as_slice()) {
                    (Slice, &[a, b]) => (a, b),
                    (SliceFrom, &[a]) => (a, len),
                    (SliceTo, &[b]) => (zero, b),
                    _ => (zero, len),
                };
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                let f = self.helper(Helper::StrSlice);
                let call = self.b.ins().call(f, &[self.ctx, data, len, start, end, out]);
                let status = self.b.inst_results(call)[0];
                self.helper_fault_if(status, at);
                vec![self.b.ins().stack_load(types::I64, slot, 0), self.b.ins().stack_load(types::I64, slot, 8)]
            }
            _ if e.ty == Ty::Str => vec![data, len],
            ToString | ToOwned | Clone | Into => self.owned_copy(data, len, types::I8, at)?,
            Eq | Ne => {
                let literal = match (&receiver.kind, &args[0].kind) {
                    (_, TKind::Lit(Lit::Str(text))) | (TKind::Lit(Lit::Str(text)), _) => Some(text.clone()),
                    _ => None,
                };
                let equal = match literal {
                    // Against a short literal: its length, then its bytes in a few loads.
                    Some(text) if text.len() <= SHORT_LITERAL => {
                        let (other, other_len) = if matches!(receiver.kind, TKind::Lit(_)) {
                            self.text_parts(&args[0])?
                        } else {
                            (data, len)
                        };
                        self.equals_literal(other, other_len, text.as_bytes())
                    }
                    _ => {
                        let (other, other_len) = self.text_parts(&args[0])?;
                        let f = self.helper(Helper::BytesEq);
                        let call = self.b.ins().call(f, &[data, len, other, other_len]);
                        self.b.inst_results(call)[0]
                    }
                };
                if name == Eq {
                    vec![equal]
                } else {
                    vec![self.b.ins().bxor_imm(equal, 1)]
                }
            }
        })
    }

    /// `text.parse::<S>()` of a scalar, consumed where it is made ([`TKind::Parse`]).
    pub(super) fn parse(&mut self, text: &TExpr, target: Scalar, then: &ParseThen, name_at: usize) -> R<Vals> {
        let t = clif(target).ok_or_else(|| CodegenError("a parsed type".into()))?;
        let (data, len) = self.text_parts(text)?;
        let code = crate::rt::text::PARSE_TARGETS
            .iter()
            .position(|s| *s == target)
            .ok_or_else(|| CodegenError(format!("parsing a `{}`", target.name())))?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let zero64 = self.int_const(types::I64, 0);
        self.b.ins().stack_store(zero64, slot, 0);
        let out = self.b.ins().stack_addr(types::I64, slot, 0);
        let code = self.int_const(types::I32, code as i64);
        let f = self.helper(Helper::Parse);
        let call = self.b.ins().call(f, &[data, len, code, out]);
        let status = self.b.inst_results(call)[0];
        let raw = self.b.ins().stack_load(types::I64, slot, 0);
        let value = match t {
            types::I64 => raw,
            types::F64 => self.b.ins().bitcast(types::F64, MemFlags::new(), raw),
            types::F32 => {
                let bits = self.b.ins().ireduce(types::I32, raw);
                self.b.ins().bitcast(types::F32, MemFlags::new(), bits)
            }
            _ => self.b.ins().ireduce(t, raw),
        };
        let ok = self.b.ins().icmp_imm(IntCC::Equal, status, 0);
        let errors = crate::rt::text::parse_errors(target);
        self.consume_result(then, ok, value, t, &errors, Some(status), name_at)
    }
}

/// `text`, kept for the process's life: one copy per distinct text, however many snippets write it.
fn interned(text: &str) -> &'static str {
    static KEPT: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&t) = kept.get(text) {
        return t;
    }
    let t: &'static str = Box::leak(text.into());
    kept.insert(t);
    t
}
