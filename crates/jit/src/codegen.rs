//! The JIT path: a lowered snippet ([`lacuna_lowering::Lowered`]) compiled by Cranelift to native code that runs
//! against the binding table directly (scalars are read and written in place; no serialization).
//!
//! The compiled entry is `fn(table: *const *mut u8, out: *mut u8, ctx: *mut JitContext) -> u32`. Arithmetic has
//! the semantics of a debug rustc build: overflow, division by zero and over-long shifts are faults. A fault
//! stores its kind and the snippet offset of the operation in the context and returns 1; every loop iteration
//! and function entry spends fuel, and function entries check the stack against the context's limit.

use std::collections::{BTreeMap, HashMap};

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, FuncRef, InstBuilder, InstructionData, MemFlags, Opcode, StackSlot, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use lacuna_checker::typed::{
    BinOp, Child, Closure, Elem, IterChain, IterSource, Lit, LocalRef, Pieces, Place, Scalar, Seq, SeqKind, Sink,
    Stage, TBlock, TExpr, TKind, TPat, TStmt, Ty, TypedSnippet, UnOp,
};
use lacuna_lowering::Lowered;

/// What generated code reads (budgets) and writes (a fault). Shared layout with the generated code: fields at
/// fixed offsets.
#[repr(C)]
#[derive(Debug, Default)]
pub struct JitContext {
    /// Fuel left (offset 0).
    pub fuel: u64,
    /// Lowest stack address allowed (offset 8; 0: unchecked).
    pub stack_limit: u64,
    /// [`Fault`] code (offset 16; 0: none).
    pub fault: u32,
    /// Snippet byte offset of the faulting operation (offset 20).
    pub fault_at: u32,
    /// The `lacuna::__private::RawRun` host function calls run under (offset 24; null when the snippet calls
    /// none): a panic in one leaves its message there.
    pub run: u64,
    /// Values for a fault's message (offsets 32 and 40): an index fault's length and index.
    pub fault_values: [u64; 2],
    /// The run's [`crate::heap::Heap`] (offset 48; null when the snippet builds no vectors). Read by helpers only.
    pub heap: u64,
}

const FUEL_OFFSET: i32 = 0;
const STACK_OFFSET: i32 = 8;
const FAULT_OFFSET: i32 = 16;
const FAULT_AT_OFFSET: i32 = 20;
const RUN_OFFSET: i32 = 24;
const FAULT_VALUES_OFFSET: i32 = 32;

/// Why generated code stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Fault {
    Add = 1,
    Sub,
    Mul,
    DivByZero,
    RemByZero,
    DivOverflow,
    RemOverflow,
    Neg,
    Shl,
    Shr,
    /// A host function the snippet called panicked (the message is in the context's `run`).
    HostPanic,
    /// An index past a sequence's end (the length and the index are in the context's `fault_values`).
    IndexOutOfBounds,
    /// `unwrap()` of `None`.
    UnwrapNone,
    /// A panic with a fixed message: index `fault_values[0]` into [`Compiled::messages`].
    Panic,
    /// `capacity overflow`: a vector's size past `isize::MAX` bytes.
    CapacityOverflow,
    /// Text sliced outside its length or inside a `char`: std's message, left by the helper on this thread
    /// ([`crate::text::take_fault_message`]).
    StrSlice,
    Fuel = 100,
    Stack = 101,
    /// The snippet's vectors would hold more than its memory budget (the bytes asked for in `fault_values[0]`).
    Memory = 102,
}

impl Fault {
    const ALL: [Fault; 19] = {
        use Fault::*;
        [
            Add,
            Sub,
            Mul,
            DivByZero,
            RemByZero,
            DivOverflow,
            RemOverflow,
            Neg,
            Shl,
            Shr,
            HostPanic,
            IndexOutOfBounds,
            UnwrapNone,
            Panic,
            CapacityOverflow,
            StrSlice,
            Fuel,
            Stack,
            Memory,
        ]
    };

    pub fn from_code(code: u32) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| *f as u32 == code)
    }

    /// rustc's panic message for the same fault in a debug build.
    pub fn message(self) -> &'static str {
        match self {
            Fault::Add => "attempt to add with overflow",
            Fault::Sub => "attempt to subtract with overflow",
            Fault::Mul => "attempt to multiply with overflow",
            Fault::DivByZero => "attempt to divide by zero",
            Fault::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            Fault::DivOverflow => "attempt to divide with overflow",
            Fault::RemOverflow => "attempt to calculate the remainder with overflow",
            Fault::Neg => "attempt to negate with overflow",
            Fault::Shl => "attempt to shift left with overflow",
            Fault::Shr => "attempt to shift right with overflow",
            Fault::HostPanic => "a host function panicked",
            Fault::IndexOutOfBounds => "index out of bounds",
            Fault::UnwrapNone => "called `Option::unwrap()` on a `None` value",
            Fault::Panic => "explicit panic",
            Fault::Fuel => "out of fuel",
            Fault::Stack => "out of stack",
            Fault::CapacityOverflow => "capacity overflow",
            Fault::StrSlice => "byte index out of bounds of the text or not a char boundary",
            Fault::Memory => "out of memory",
        }
    }
}

/// The native entry of a compiled snippet.
pub type JitEntry = unsafe extern "C" fn(*const *mut u8, *mut u8, *mut JitContext) -> u32;

/// A compiled snippet. The module owns the code; it is kept for as long as the entry may be called.
pub struct Compiled {
    pub entry: JitEntry,
    /// The snippet calls host functions: [`JitContext::run`] must point to a `RawRun`.
    pub calls_host: bool,
    /// Messages of the snippet's fixed panics ([`Fault::Panic`]).
    pub messages: Vec<String>,
    /// The host library's allocator functions, when the snippet allocates: [`JitContext::heap`] must then point
    /// to a [`crate::heap::Heap`] over them.
    pub heap_fns: Option<crate::heap::HostFns>,
    /// String literals and format specs the code points to.
    _data: Vec<Box<[u8]>>,
    _specs: Vec<Box<crate::text::RawSpec>>,
    _module: JITModule,
}

// SAFETY: the module is only used to own the finalized code, which is immutable; the entry is a plain function.
unsafe impl Send for Compiled {}
// SAFETY: as above: no interior mutability is reachable through `&Compiled`.
unsafe impl Sync for Compiled {}

#[derive(Debug, thiserror::Error)]
#[error("Cranelift: {0}")]
pub struct CodegenError(pub String);

fn err(e: impl std::fmt::Display) -> CodegenError {
    CodegenError(e.to_string())
}

/// `k` when `e` is an integer literal `2^k` that fits its type.
/// `x % 2^k` on integers up to 64 bits: `(x, k)`.
fn remainder_by_power_of_two(e: &TExpr) -> Option<(&TExpr, u32)> {
    match &e.kind {
        TKind::Binary(BinOp::Rem, x, r) if x.s().is_int() && x.s().int_bits()? <= 64 => {
            Some((x.as_ref(), power_of_two(r)?))
        }
        _ => None,
    }
}

fn is_zero(e: &TExpr) -> bool {
    matches!(e.kind, TKind::Lit(Lit::Int(0)))
}

/// A host function or method the snippet calls, by its shim's symbol: (name, has a receiver, parameter types).
type HostCalls = BTreeMap<String, (String, bool, Vec<Ty>)>;

/// Calls `f` on every expression of the snippet (its body and its functions'), outer ones first.
fn each_expr<'a>(snippet: &'a TypedSnippet, f: &mut dyn FnMut(&'a TExpr)) {
    fn in_child<'a>(c: Child<'a>, f: &mut dyn FnMut(&'a TExpr)) {
        match c {
            Child::Expr(e) => {
                f(e);
                e.each_child(&mut |c| in_child(c, f));
            }
            Child::Block(b) => b.each_child(&mut |c| in_child(c, f)),
        }
    }
    in_child(Child::Block(&snippet.body), f);
    for function in &snippet.fns {
        in_child(Child::Block(&function.body), f);
    }
}

/// The host functions and methods the snippet calls.
fn host_calls(snippet: &TypedSnippet) -> HostCalls {
    let mut out = HostCalls::new();
    each_expr(snippet, &mut |e| {
        if let TKind::HostCall { name, symbol, receiver, args } = &e.kind {
            let params = args.iter().map(|a| a.ty.clone()).collect();
            out.insert(symbol.clone(), (name.clone(), receiver.is_some(), params));
        }
    });
    out
}

/// The snippet allocates or prints: it builds vectors or strings, grows the host's, or prints through the host.
fn allocates(snippet: &TypedSnippet) -> bool {
    let mut found = snippet.owns_buffers;
    each_expr(snippet, &mut |e| {
        found |= match &e.kind {
            TKind::SeqMethod { name, .. } => name == "push" || name == "join",
            // A sort's keys are kept in a buffer while it runs.
            TKind::SeqWithClosure { name, .. } => name != "retain",
            TKind::HostCall { .. } => e.ty == Ty::String,
            TKind::StructClone(_) | TKind::StructLit { .. } | TKind::MapNew => true,
            TKind::StringPush { .. }
            | TKind::Concat { .. }
            | TKind::Format(_)
            | TKind::Print { .. }
            | TKind::VecLit(_)
            | TKind::VecRepeat { .. }
            | TKind::SeqClone(_)
            | TKind::TextMethod { .. }
            | TKind::Consume { sink: Sink::Collect { .. }, .. } => true,
            _ => false,
        };
    });
    found
}

/// The values of the host library's `usize` statics the snippet needs: the offsets of the struct fields it
/// reads in place and the sizes of the structs it steps through (`instrument::render` exports them).
fn host_statics(snippet: &TypedSnippet, host: &HostAbi<'_>) -> Result<HashMap<String, i32>, CodegenError> {
    let mut symbols: Vec<&str> = snippet.structs.iter().map(String::as_str).collect();
    symbols.extend(snippet.fields.iter().map(|f| f.symbol.as_str()));
    each_expr(snippet, &mut |e| match &e.kind {
        TKind::RefField { symbol, .. } => symbols.push(symbol),
        TKind::StructLit { fields, .. } => symbols.extend(fields.iter().map(|(symbol, _)| symbol.as_str())),
        _ => {}
    });
    let mut out = HashMap::new();
    for symbol in symbols {
        let address = (host.symbol)(symbol)
            .ok_or_else(|| CodegenError(format!("the host does not export `{symbol}` to the JIT")))?;
        // SAFETY: the instrumented host declares this symbol as a `usize` static (`instrument::render`), and the
        // host library stays loaded.
        let value = unsafe { *address.cast::<usize>() };
        let value = i32::try_from(value).map_err(|_| CodegenError(format!("`{symbol}` out of range")))?;
        out.insert(symbol.to_owned(), value);
    }
    Ok(out)
}

/// One evaluated piece of a format string: the text helper's kind, value words, spec, fault position, and a
/// `String` buffer to free once it is appended (a host struct's text).
type FmtArg = (u32, Value, Value, lacuna_checker::typed::FmtSpec, usize, Option<Value>);

/// A host struct's layout and shims, as the instrumented host's `__lacuna_shims_*` function reports them
/// (`instrument::struct_shims`); a shim is 0 when the struct does not implement its trait.
#[derive(Debug, Clone, Copy)]
struct StructShims {
    size: usize,
    align: usize,
    drop: usize,
    clone: usize,
    eq: usize,
    display: usize,
    debug: usize,
}

/// The shims of each host struct the snippet uses (by index into [`TypedSnippet::structs`]), where the host
/// exports them.
fn struct_shims(snippet: &TypedSnippet, host: &HostAbi<'_>) -> HashMap<usize, StructShims> {
    let mut out = HashMap::new();
    for (id, size_symbol) in snippet.structs.iter().enumerate() {
        let Some(address) = (host.symbol)(&lacuna_checker::struct_shims_symbol(size_symbol)) else { continue };
        let mut words = [0usize; 7];
        // SAFETY: the instrumented host defines this symbol as `unsafe extern "C" fn(*mut [usize; 7])`, which only
        // writes the array (`instrument::struct_shims`); the host library stays loaded.
        unsafe {
            let f = std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut [usize; 7])>(address);
            f(&mut words);
        }
        let [size, align, drop, clone, eq, display, debug] = words;
        out.insert(id, StructShims { size, align, drop, clone, eq, display, debug });
    }
    out
}

/// The variant and field shims of each host enum the snippet uses, where the host exports them.
fn enum_fns(snippet: &TypedSnippet, host: &HostAbi<'_>) -> HashMap<usize, (usize, usize)> {
    let mut out = HashMap::new();
    for (id, size_symbol) in snippet.structs.iter().enumerate() {
        let variant = (host.symbol)(&lacuna_checker::enum_variant_symbol(size_symbol));
        let field = (host.symbol)(&lacuna_checker::enum_field_symbol(size_symbol));
        if let (Some(variant), Some(field)) = (variant, field) {
            out.insert(id, (variant as usize, field as usize));
        }
    }
    out
}

/// The snippet calls a host struct's shims (which run under the host library's `run_snippet`).
fn uses_struct_shims(snippet: &TypedSnippet) -> bool {
    let mut found = false;
    each_expr(snippet, &mut |e| {
        found |= match &e.kind {
            TKind::StructClone(_) | TKind::StructEq { .. } => true,
            TKind::Format(pieces) | TKind::Print { pieces, .. } => pieces.iter().any(|p| {
                matches!(p, lacuna_checker::typed::FmtPiece::Arg { value, .. } if matches!(value.ty, Ty::Struct(_) | Ty::StructRef(_)))
            }),
            _ => false,
        };
    });
    found
}

fn power_of_two(e: &TExpr) -> Option<u32> {
    match e.kind {
        TKind::Lit(Lit::Int(v)) if v.is_power_of_two() && e.s().is_int() => {
            let k = v.trailing_zeros();
            // For signed types 2^(bits-1) does not fit; leave such cases to the general path.
            let limit = e.s().int_bits()? - u32::from(e.s().is_signed());
            (k < limit).then_some(k)
        }
        _ => None,
    }
}

fn clif(ty: Scalar) -> Option<Type> {
    Some(match ty {
        Scalar::I8 | Scalar::U8 | Scalar::Bool => types::I8,
        Scalar::I16 | Scalar::U16 => types::I16,
        Scalar::I32 | Scalar::U32 | Scalar::Char => types::I32,
        Scalar::I64 | Scalar::U64 | Scalar::Isize | Scalar::Usize => types::I64,
        Scalar::I128 | Scalar::U128 => types::I128,
        Scalar::F32 => types::F32,
        Scalar::F64 => types::F64,
        Scalar::Unit | Scalar::Never => return None,
    })
}

/// The Cranelift values a value of type `ty` is kept in (none for `()` and `!`).
fn flat(ty: &Ty) -> Vec<Type> {
    ty.parts().into_iter().filter_map(clif).collect()
}

/// The symbol of the host library's function writing an `Option<S>` in rustc's layout (see
/// `instrument::ENTRY_POINTS`).
pub fn option_writer_symbol(s: Scalar) -> String {
    format!("__lacuna_option_write_{}", s.name())
}

type Vals = Vec<Value>;

extern "C" fn helper_powi_f64(a: f64, n: i32) -> f64 {
    a.powi(n)
}
extern "C" fn helper_powi_f32(a: f32, n: i32) -> f32 {
    a.powi(n)
}
extern "C" fn helper_fmod_f64(a: f64, b: f64) -> f64 {
    a % b
}
extern "C" fn helper_fmod_f32(a: f32, b: f32) -> f32 {
    a % b
}
extern "C" fn helper_fmin_f64(a: f64, b: f64) -> f64 {
    a.min(b)
}
extern "C" fn helper_fmax_f64(a: f64, b: f64) -> f64 {
    a.max(b)
}
extern "C" fn helper_fmin_f32(a: f32, b: f32) -> f32 {
    a.min(b)
}
extern "C" fn helper_fmax_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}
extern "C" fn helper_signum_f64(a: f64) -> f64 {
    a.signum()
}
extern "C" fn helper_signum_f32(a: f32) -> f32 {
    a.signum()
}
/// `base.pow(exp)` for an integer of `bits` bits (signed or not), in i128: the result and whether it overflowed.
extern "C" fn helper_pow(base: i64, exp: u32, bits: u32, signed: u32, overflow: *mut u8) -> i64 {
    let (min, max): (i128, i128) =
        if signed != 0 { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    let base = if signed != 0 { base as i128 } else { (base as u64 as i128) & max };
    // Exponentiation by squaring in i128: if even i128 overflows, so does any 64-bit-or-narrower type.
    let (acc, over) = match base.checked_pow(exp) {
        Some(v) if v >= min && v <= max => (v, false),
        _ => (0, true),
    };
    // SAFETY: generated code passes a pointer to a stack slot of one byte.
    unsafe { *overflow = over as u8 };
    acc as i64
}

const HELPERS: &[(&str, *const u8)] = &[
    ("lacuna_fmod_f64", helper_fmod_f64 as *const u8),
    ("lacuna_fmod_f32", helper_fmod_f32 as *const u8),
    ("lacuna_fmin_f64", helper_fmin_f64 as *const u8),
    ("lacuna_fmax_f64", helper_fmax_f64 as *const u8),
    ("lacuna_fmin_f32", helper_fmin_f32 as *const u8),
    ("lacuna_fmax_f32", helper_fmax_f32 as *const u8),
    ("lacuna_signum_f64", helper_signum_f64 as *const u8),
    ("lacuna_signum_f32", helper_signum_f32 as *const u8),
    ("lacuna_pow", helper_pow as *const u8),
    ("lacuna_powi_f64", helper_powi_f64 as *const u8),
    ("lacuna_powi_f32", helper_powi_f32 as *const u8),
    ("lacuna_sort_i8", helper_sort::<i8> as *const u8),
    ("lacuna_sort_i16", helper_sort::<i16> as *const u8),
    ("lacuna_sort_i32", helper_sort::<i32> as *const u8),
    ("lacuna_sort_i64", helper_sort::<i64> as *const u8),
    ("lacuna_sort_u8", helper_sort::<u8> as *const u8),
    ("lacuna_sort_u16", helper_sort::<u16> as *const u8),
    ("lacuna_sort_u32", helper_sort::<u32> as *const u8),
    ("lacuna_sort_u64", helper_sort::<u64> as *const u8),
    ("lacuna_reverse_8", helper_reverse::<u8> as *const u8),
    ("lacuna_reverse_16", helper_reverse::<u16> as *const u8),
    ("lacuna_reverse_32", helper_reverse::<u32> as *const u8),
    ("lacuna_reverse_64", helper_reverse::<u64> as *const u8),
    ("lacuna_dedup_8", helper_dedup::<u8> as *const u8),
    ("lacuna_dedup_16", helper_dedup::<u16> as *const u8),
    ("lacuna_dedup_32", helper_dedup::<u32> as *const u8),
    ("lacuna_dedup_64", helper_dedup::<u64> as *const u8),
    ("lacuna_vec_grow", crate::heap::helper_vec_grow as *const u8),
    ("lacuna_vec_release", crate::heap::helper_vec_release as *const u8),
    ("lacuna_vec_adopt", crate::heap::helper_vec_adopt as *const u8),
    ("lacuna_vec_free", crate::heap::helper_vec_free as *const u8),
    ("lacuna_strings_release", crate::heap::helper_strings_release as *const u8),
    ("lacuna_strings_free", crate::heap::helper_strings_free as *const u8),
    ("lacuna_copy", helper_copy as *const u8),
    ("lacuna_fill_bytes", helper_fill_bytes as *const u8),
    ("lacuna_fmt", crate::text::helper_fmt as *const u8),
    ("lacuna_push_char", crate::text::helper_push_char as *const u8),
    ("lacuna_push_str", crate::text::helper_push_str as *const u8),
    ("lacuna_bytes_eq", crate::text::helper_bytes_eq as *const u8),
    ("lacuna_str_slice", crate::text::helper_str_slice as *const u8),
    ("lacuna_print", crate::text::helper_print as *const u8),
    ("lacuna_trim", crate::text::helper_trim as *const u8),
    ("lacuna_parse", crate::text::helper_parse as *const u8),
    ("lacuna_char_op", crate::text::helper_char_op as *const u8),
    ("lacuna_next_char", crate::text::helper_next_char as *const u8),
    ("lacuna_next_piece", crate::text::helper_next_piece as *const u8),
    ("lacuna_keyed_sort", helper_keyed_sort as *const u8),
    ("lacuna_strings_sort", helper_sort_strings as *const u8),
    ("lacuna_elements_reverse", helper_reverse_elements as *const u8),
    ("lacuna_find", crate::text::helper_find as *const u8),
    ("lacuna_transform", crate::text::helper_transform as *const u8),
    ("lacuna_struct_alloc", crate::heap::helper_struct_alloc as *const u8),
    ("lacuna_struct_ready", crate::heap::helper_struct_ready as *const u8),
    ("lacuna_struct_drop", crate::heap::helper_struct_drop as *const u8),
    ("lacuna_struct_move_out", crate::heap::helper_struct_move_out as *const u8),
    ("lacuna_map_new", crate::map::helper_map_new as *const u8),
    ("lacuna_map_find", crate::map::helper_map_find as *const u8),
    ("lacuna_map_slot", crate::map::helper_map_slot as *const u8),
    ("lacuna_map_change", crate::map::helper_map_change as *const u8),
    ("lacuna_map_len", crate::map::helper_map_len as *const u8),
    ("lacuna_map_free", crate::map::helper_map_free as *const u8),
    ("lacuna_map_give", crate::map::helper_map_give as *const u8),
];

/// Sorts `len` elements at `data` (integers, `char`s as `u32`, `bool`s as `u8`: the order of the bits' integer
/// is the type's order, so the result is what `sort`/`sort_unstable` give).
///
/// # Safety
/// `data` points to `len` initialized elements that nothing else accesses during the call.
unsafe extern "C" fn helper_sort<T: Ord>(data: *mut T, len: usize) {
    // SAFETY: the caller passes a live sequence's buffer and length, written by nothing else meanwhile (the
    // lowering admits this only on a writable binding).
    unsafe { std::slice::from_raw_parts_mut(data, len) }.sort_unstable();
}

/// Copies `bytes` bytes from `src` to `dst`.
///
/// # Safety
/// Both are live buffers of at least `bytes` bytes that do not overlap.
/// `name` is `prefix` followed by a width (`64`) or a scalar kind and width (`i64`, `u8`).
fn per_width(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .map(|rest| rest.trim_start_matches(['i', 'u']))
        .is_some_and(|bits| matches!(bits, "8" | "16" | "32" | "64"))
}

/// JIT helper: moves the `n` elements of `size` bytes at `data` into the order a stable sort by `keys[i]` (element
/// `i`'s key) gives.
///
/// # Safety
/// `data` holds `n` elements of `size` bytes, `keys` `n` keys; nothing else accesses either meanwhile.
unsafe extern "C" fn helper_keyed_sort(data: *mut u8, n: usize, size: usize, keys: *const u64) {
    // SAFETY: as the caller guarantees.
    let (keys, bytes) =
        unsafe { (std::slice::from_raw_parts(keys, n), std::slice::from_raw_parts_mut(data, n * size)) };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| keys[i]);
    let before = bytes.to_vec();
    for (to, &from) in order.iter().enumerate() {
        bytes[to * size..(to + 1) * size].copy_from_slice(&before[from * size..(from + 1) * size]);
    }
}

/// JIT helper: sorts the `n` strings at `data` (24 bytes each, in the host's `String` layout: the buffer pointer
/// at byte `ptr_at`, the length at `len_at`) by their text, as `sort` on `[String]` does.
///
/// # Safety
/// `data` holds `n` initialized `String`s in that layout; nothing else accesses them meanwhile.
unsafe extern "C" fn helper_sort_strings(data: *mut [u8; 24], n: usize, ptr_at: usize, len_at: usize) {
    // SAFETY: as the caller guarantees.
    let strings = unsafe { std::slice::from_raw_parts_mut(data, n) };
    let text = |s: &[u8; 24]| -> &[u8] {
        let word = |at: usize| usize::from_ne_bytes(s[at..at + 8].try_into().expect("eight bytes"));
        // SAFETY: each element is a live `String`: its buffer holds `len` initialized bytes.
        unsafe { std::slice::from_raw_parts(word(ptr_at) as *const u8, word(len_at)) }
    };
    strings.sort_by(|a, b| text(a).cmp(text(b)));
}

/// JIT helper: reverses the order of the `n` elements of `size` bytes at `data`.
///
/// # Safety
/// `data` holds `n` elements of `size` bytes; nothing else accesses them meanwhile.
unsafe extern "C" fn helper_reverse_elements(data: *mut u8, n: usize, size: usize) {
    // SAFETY: as the caller guarantees.
    let bytes = unsafe { std::slice::from_raw_parts_mut(data, n * size) };
    for i in 0..n / 2 {
        let (front, back) = bytes.split_at_mut((n - 1 - i) * size);
        front[i * size..(i + 1) * size].swap_with_slice(&mut back[..size]);
    }
}

unsafe extern "C" fn helper_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    // SAFETY: the caller copies a sequence into a buffer just allocated for it.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) };
}

/// Sets `len` bytes at `data` to `byte` (`vec![x; n]` and `fill` of one-byte elements: a `memset`, as std does).
///
/// # Safety
/// `data` is a live buffer of at least `len` bytes that nothing else accesses during the call.
unsafe extern "C" fn helper_fill_bytes(data: *mut u8, byte: u8, len: usize) {
    // SAFETY: the caller passes a sequence's buffer (just allocated, or writable) and its length.
    unsafe { std::ptr::write_bytes(data, byte, len) };
}

/// Reverses `len` elements of this width at `data`.
///
/// # Safety
/// As [`helper_sort`].
unsafe extern "C" fn helper_reverse<T>(data: *mut T, len: usize) {
    // SAFETY: as in `helper_sort`.
    unsafe { std::slice::from_raw_parts_mut(data, len) }.reverse();
}

/// `Vec::dedup` on `len` elements of this width at `data` (integers, `char`s, `bool`s: equal values are equal
/// bits): the new length.
///
/// # Safety
/// As [`helper_sort`].
unsafe extern "C" fn helper_dedup<T: PartialEq + Copy>(data: *mut T, len: usize) -> usize {
    // SAFETY: as in `helper_sort`.
    let items = unsafe { std::slice::from_raw_parts_mut(data, len) };
    let mut kept = usize::from(len > 0);
    for read in 1..len {
        if items[read] != items[kept - 1] {
            items[kept] = items[read];
            kept += 1;
        }
    }
    kept
}

/// What compiled code needs to know about the host library it runs against.
pub struct HostAbi<'a> {
    /// Finds the host's exported functions (the shims of host functions the snippet calls).
    pub symbol: &'a dyn Fn(&str) -> Option<*const u8>,
    /// The function the host exports for this hole that gives the writer of its map type, when the hole's value
    /// is a map (`instrument::map_writer_symbol`).
    pub map_writer: Option<String>,
    /// Byte offsets of a `Vec`'s buffer pointer and length in the host's std, when known.
    pub vec_fields: Option<(i32, i32)>,
}

/// Compiles a lowered snippet.
pub fn compile(lowered: &Lowered, host: &HostAbi<'_>) -> Result<Compiled, CodegenError> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(err)?;
    flags.set("is_pic", "false").map_err(err)?;
    // Snippet functions return a status and their value's parts (an `Option` or a tuple: more than two registers).
    flags.set("enable_multi_ret_implicit_sret", "true").map_err(err)?;
    let isa = cranelift_native::builder().map_err(err)?.finish(settings::Flags::new(flags)).map_err(err)?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, ptr) in HELPERS {
        builder.symbol(*name, *ptr);
    }
    let snippet = &lowered.snippet;
    let calls = host_calls(snippet);
    for (symbol, (name, _, _)) in &calls {
        let address = (host.symbol)(symbol)
            .ok_or_else(|| CodegenError(format!("the host does not export `{name}` to the JIT")))?;
        builder.symbol(symbol, address);
    }
    if let Some(s) = snippet.ty.option_scalar() {
        let symbol = option_writer_symbol(s);
        if let Some(address) = (host.symbol)(&symbol) {
            builder.symbol(symbol, address);
        }
    }
    let mut module = JITModule::new(builder);
    let ptr = module.target_config().pointer_type();
    // Offsets of the host structs' fields the snippet uses, and sizes, from the statics the host library exports.
    let statics = host_statics(snippet, host)?;
    let field_offsets: Vec<i32> = snippet.fields.iter().map(|f| statics[&f.symbol]).collect();
    let shims = struct_shims(snippet, host);
    // The host's writer for a map the snippet hands over (0 when its type has none: not the JIT's then).
    let map_writer = match (&snippet.ty, &host.map_writer) {
        (Ty::Map { .. }, Some(symbol)) => {
            let address = (host.symbol)(symbol)
                .ok_or_else(|| CodegenError(format!("the host does not export `{symbol}` to the JIT")))?;
            // SAFETY: the instrumented host defines this symbol as `extern "C" fn() -> usize`
            // (`instrument::map_writer`), which only computes a function's address; the library stays loaded.
            let writer = unsafe { std::mem::transmute::<*const u8, extern "C" fn() -> usize>(address)() };
            if writer == 0 {
                return Err(CodegenError("the hole's map type has no writer".into()));
            }
            writer
        }
        (Ty::Map { .. }, None) => return Err(CodegenError("no map writer for this hole".into())),
        _ => 0,
    };
    let enum_fns = enum_fns(snippet, host);
    let mut host_fns = HashMap::new();
    for (symbol, (_, has_receiver, params)) in &calls {
        let mut sig = module.make_signature();
        sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]);
        if *has_receiver {
            sig.params.push(AbiParam::new(ptr));
        }
        for p in params {
            // `&str`: pointer and length.
            if *p == Ty::Str {
                sig.params.extend([AbiParam::new(ptr), AbiParam::new(types::I64)]);
                continue;
            }
            let p = p.s();
            let t = clif(p).ok_or_else(|| CodegenError(format!("a `{}` argument", p.name())))?;
            // C passes narrow integers extended to 32 bits (`bool`, `char` and unsigned types with zeros).
            let param = match t.bits() {
                b if b >= 32 || p.is_float() => AbiParam::new(t),
                _ if p.is_signed() => AbiParam::new(t).sext(),
                _ => AbiParam::new(t).uext(),
            };
            sig.params.push(param);
        }
        sig.returns.push(AbiParam::new(types::I32));
        let id = module.declare_function(symbol, Linkage::Import, &sig).map_err(err)?;
        host_fns.insert(symbol.clone(), id);
    }

    // Declare helpers and snippet functions first (calls may come before definitions).
    let mut helpers = HashMap::new();
    for (name, _) in HELPERS {
        let mut sig = module.make_signature();
        let (params, rets): (&[Type], &[Type]) = match *name {
            "lacuna_pow" => (&[types::I64, types::I32, types::I32, types::I32, ptr], &[types::I64]),
            "lacuna_powi_f64" => (&[types::F64, types::I32], &[types::F64]),
            "lacuna_powi_f32" => (&[types::F32, types::I32], &[types::F32]),
            // The per-width helpers (`lacuna_sort_i32`, `lacuna_reverse_64`, ..): the prefix and a width suffix.
            n if per_width(n, "lacuna_sort_") || per_width(n, "lacuna_reverse_") => (&[ptr, types::I64], &[]),
            n if per_width(n, "lacuna_dedup_") => (&[ptr, types::I64], &[types::I64]),
            "lacuna_vec_grow" => (&[ptr, ptr, types::I64, types::I64, types::I64, types::I64, types::I64], &[ptr]),
            "lacuna_vec_release" => (&[ptr, ptr], &[]),
            "lacuna_vec_adopt" => (&[ptr, ptr, types::I64], &[]),
            "lacuna_vec_free" => (&[ptr, ptr], &[]),
            "lacuna_strings_release" | "lacuna_strings_free" => (&[ptr, ptr, ptr, ptr], &[]),
            "lacuna_copy" => (&[ptr, ptr, types::I64], &[]),
            "lacuna_fill_bytes" => (&[ptr, types::I8, types::I64], &[]),
            "lacuna_fmt" => (&[ptr, ptr, types::I32, types::I64, types::I64, ptr], &[types::I32]),
            "lacuna_push_char" => (&[ptr, ptr, types::I32], &[types::I32]),
            "lacuna_push_str" => (&[ptr, ptr, ptr, types::I64], &[types::I32]),
            "lacuna_bytes_eq" => (&[ptr, types::I64, ptr, types::I64], &[types::I8]),
            "lacuna_str_slice" => (&[ptr, ptr, types::I64, types::I64, types::I64, ptr], &[types::I32]),
            "lacuna_print" => (&[ptr, ptr, types::I32], &[]),
            "lacuna_trim" => (&[ptr, types::I64, types::I32, ptr, types::I64, ptr], &[]),
            "lacuna_parse" => (&[ptr, types::I64, types::I32, ptr], &[types::I32]),
            "lacuna_char_op" => (&[types::I32, types::I32], &[types::I32]),
            "lacuna_next_char" => (&[ptr, ptr, types::I32], &[types::I32]),
            "lacuna_next_piece" => (&[ptr, ptr, types::I32, ptr, ptr], &[types::I32]),
            "lacuna_keyed_sort" | "lacuna_strings_sort" => (&[ptr, ptr, ptr, ptr], &[]),
            "lacuna_elements_reverse" => (&[ptr, ptr, ptr], &[]),
            "lacuna_find" => (&[ptr, types::I64, ptr, types::I64, types::I32, types::I32], &[types::I8]),
            "lacuna_transform" => (&[ptr, ptr, ptr, types::I64, types::I32, types::I64], &[types::I32]),
            "lacuna_struct_alloc" => (&[ptr, types::I64, types::I64], &[ptr]),
            "lacuna_struct_ready" => (&[ptr, ptr, ptr], &[]),
            "lacuna_struct_drop" => (&[ptr, ptr], &[]),
            "lacuna_struct_move_out" => (&[ptr, ptr, ptr, types::I64], &[types::I32]),
            "lacuna_map_new" => (&[ptr], &[ptr]),
            "lacuna_map_find" => (&[ptr, ptr, types::I64, types::I64], &[ptr]),
            "lacuna_map_slot" => (&[ptr, ptr, types::I64, types::I64, types::I64], &[ptr]),
            "lacuna_map_change" => (&[ptr, ptr, types::I64, types::I64, types::I64, types::I32, ptr], &[types::I8]),
            "lacuna_map_len" => (&[ptr], &[types::I64]),
            "lacuna_map_free" => (&[ptr, ptr], &[]),
            "lacuna_map_give" => (&[ptr, ptr, ptr, ptr], &[]),
            n if n.ends_with("f64") && (n.contains("signum")) => (&[types::F64], &[types::F64]),
            n if n.ends_with("f32") && (n.contains("signum")) => (&[types::F32], &[types::F32]),
            n if n.ends_with("f64") => (&[types::F64, types::F64], &[types::F64]),
            _ => (&[types::F32, types::F32], &[types::F32]),
        };
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(rets.iter().map(|t| AbiParam::new(*t)));
        let id = module.declare_function(name, Linkage::Import, &sig).map_err(err)?;
        helpers.insert(*name, id);
    }
    let mut fn_ids = Vec::new();
    for (i, f) in snippet.fns.iter().enumerate() {
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(ptr));
        for &p in &f.params {
            sig.params.extend(flat(&snippet.locals[p].ty).into_iter().map(AbiParam::new));
        }
        sig.returns.push(AbiParam::new(types::I32));
        sig.returns.extend(flat(&f.ret).into_iter().map(AbiParam::new));
        fn_ids.push(module.declare_function(&format!("snippet_fn_{i}"), Linkage::Local, &sig).map_err(err)?);
    }
    let mut entry_sig = module.make_signature();
    entry_sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(ptr)]);
    entry_sig.returns.push(AbiParam::new(types::I32));
    let entry_id = module.declare_function("snippet_entry", Linkage::Export, &entry_sig).map_err(err)?;
    // An `Option` result is written by the host library, which knows rustc's layout for it.
    let option_writer = match snippet.ty.option_scalar() {
        Some(s) => {
            let symbol = option_writer_symbol(s);
            let address = (host.symbol)(&symbol)
                .ok_or_else(|| CodegenError(format!("the host does not export `{symbol}` to the JIT")))?;
            let mut sig = module.make_signature();
            sig.params.extend([AbiParam::new(ptr), AbiParam::new(types::I8).uext()]);
            let t = clif(s).ok_or_else(|| CodegenError("an `Option` of nothing".into()))?;
            sig.params.push(match t.bits() {
                b if b >= 32 || s.is_float() => AbiParam::new(t),
                _ if s.is_signed() => AbiParam::new(t).sext(),
                _ => AbiParam::new(t).uext(),
            });
            Some((symbol, address, sig))
        }
        _ => None,
    };

    let mut fctx = FunctionBuilderContext::new();
    let mut ctx = module.make_context();
    let mut messages = Vec::new();
    let mut data = Vec::new();
    let mut specs = Vec::new();
    for (i, f) in snippet.fns.iter().enumerate() {
        ctx.func.signature = module.declarations().get_function_decl(fn_ids[i]).signature.clone();
        {
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let mut g =
                Gen::new(b, &mut module, snippet, &fn_ids, &helpers, &host_fns, host.vec_fields, Some(f.ret.clone()))?;
            g.field_offsets = field_offsets.clone();
            g.statics = statics.clone();
            g.shims = shims.clone();
            g.enum_fns = enum_fns.clone();
            let block = g.b.current_block().expect("the entry block");
            let params = g.b.block_params(block).to_vec();
            g.ctx = params[0];
            let mut next = 1;
            for &p in &f.params {
                let mut vars = Vec::new();
                for t in flat(&snippet.locals[p].ty) {
                    let var = g.b.declare_var(t);
                    g.b.def_var(var, params[next]);
                    vars.push(var);
                    next += 1;
                }
                g.vars.insert(p, vars);
            }
            g.enter_checks(0)?;
            let value = g.block(&f.body)?;
            g.return_ok(value, &f.ret);
            if let Some(m) = g.missing.take() {
                return Err(CodegenError(m));
            }
            g.b.finalize();
            messages.append(&mut g.messages);
            data.append(&mut g.data);
            specs.append(&mut g.specs);
        }
        module.define_function(fn_ids[i], &mut ctx).map_err(|e| CodegenError(format!("{e:?}")))?;
        module.clear_context(&mut ctx);
    }
    ctx.func.signature = entry_sig;
    {
        let writer = match option_writer {
            Some((symbol, _, sig)) => {
                let id = module.declare_function(&symbol, Linkage::Import, &sig).map_err(err)?;
                Some(module.declare_func_in_func(id, &mut ctx.func))
            }
            None => None,
        };
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mut g = Gen::new(b, &mut module, snippet, &fn_ids, &helpers, &host_fns, host.vec_fields, None)?;
        g.field_offsets = field_offsets;
        g.statics = statics;
        g.shims = shims;
        g.enum_fns = enum_fns;
        // Panic messages of the snippet functions come first.
        g.messages = std::mem::take(&mut messages);
        let block = g.b.current_block().expect("the entry block");
        let params = g.b.block_params(block).to_vec();
        g.table = params[0];
        let out = params[1];
        g.ctx = params[2];
        g.enter_checks(0)?;
        let value = g.block(&snippet.body)?;
        match (&snippet.ty, writer) {
            (Ty::Option(_), Some(writer)) => {
                if let [tag, payload] = value[..] {
                    g.b.ins().call(writer, &[out, tag, payload]);
                }
            }
            (Ty::Vec(_) | Ty::String, _) => {
                // The buffer (and each string's in it) becomes the host's, in the host's `Vec` layout.
                if let [ptr, cap, len] = value[..] {
                    if snippet.ty == Ty::Vec(Elem::String) {
                        g.strings_helper("lacuna_strings_release", ptr, len)?;
                    }
                    let release = g.helpers["lacuna_vec_release"];
                    g.b.ins().call(release, &[g.ctx, ptr]);
                    let offsets = g.vec_offsets()?;
                    for (v, at) in [ptr, cap, len].into_iter().zip(offsets) {
                        g.b.ins().store(MemFlags::trusted(), v, out, at);
                    }
                }
            }
            (Ty::Map { .. }, _) => {
                // The host builds its own map from the entries.
                let writer = g.int_const(types::I64, map_writer as i64);
                let give = g.helpers["lacuna_map_give"];
                g.b.ins().call(give, &[g.ctx, value[0], writer, out]);
            }
            (Ty::Struct(id), _) => {
                // The box's struct moves into the host's slot.
                let size = g.shims_of(*id)?.size;
                let size = g.int_const(types::I64, size as i64);
                let f = g.helpers["lacuna_struct_move_out"];
                let call = g.b.ins().call(f, &[g.ctx, value[0], out, size]);
                let moved = g.b.inst_results(call)[0];
                let failed = g.b.ins().icmp_imm(IntCC::Equal, moved, 0);
                g.fault_if(failed, Fault::Memory, 0);
            }
            _ => {
                if let Some(&v) = value.first() {
                    g.b.ins().store(MemFlags::trusted(), v, out, 0);
                }
            }
        }
        g.store_fuel();
        let zero = g.b.ins().iconst(types::I32, 0);
        g.b.ins().return_(&[zero]);
        if let Some(m) = g.missing.take() {
            return Err(CodegenError(m));
        }
        g.b.finalize();
        messages = std::mem::take(&mut g.messages);
        data.append(&mut g.data);
        specs.append(&mut g.specs);
    }
    module.define_function(entry_id, &mut ctx).map_err(|e| CodegenError(format!("{e:?}")))?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(err)?;
    let code = module.get_finalized_function(entry_id);
    // SAFETY: `code` is the finalized entry with exactly the `JitEntry` signature declared above.
    let entry = unsafe { std::mem::transmute::<*const u8, JitEntry>(code) };
    let heap_fns = if allocates(snippet) {
        let realloc = (host.symbol)("__lacuna_realloc")
            .ok_or_else(|| CodegenError("the host does not export its allocator to the JIT".into()))?;
        let dealloc = (host.symbol)("__lacuna_dealloc")
            .ok_or_else(|| CodegenError("the host does not export its allocator to the JIT".into()))?;
        let print = (host.symbol)("__lacuna_print")
            .ok_or_else(|| CodegenError("the host does not export its output to the JIT".into()))?;
        // SAFETY: the instrumented host defines these with these signatures (`instrument::ENTRY_POINTS`), and the
        // host library stays loaded.
        unsafe {
            Some(crate::heap::HostFns {
                realloc: std::mem::transmute::<*const u8, crate::heap::ReallocFn>(realloc),
                dealloc: std::mem::transmute::<*const u8, crate::heap::DeallocFn>(dealloc),
                print: std::mem::transmute::<*const u8, crate::heap::PrintFn>(print),
            })
        }
    } else {
        None
    };
    Ok(Compiled {
        entry,
        calls_host: !calls.is_empty() || uses_struct_shims(snippet),
        messages,
        heap_fns,
        _data: data,
        _specs: specs,
        _module: module,
    })
}

/// Where a vector's parts are kept ([`Gen::vec_home`]).
#[derive(Clone, Copy)]
enum VecHome {
    /// A snippet's own vector: variables for the pointer, capacity and length.
    Vars([Variable; 3]),
    /// A host `Vec` at this address (its fields at the offsets the host's std uses).
    Mem(Value),
}

/// A vector's parts, in the order a [`Ty::Vec`] keeps them.
#[derive(Clone, Copy)]
enum VecField {
    Ptr = 0,
    Cap = 1,
    Len = 2,
}

struct LoopCtx {
    label: Option<String>,
    /// Where `continue` goes.
    next: cranelift_codegen::ir::Block,
    exit: cranelift_codegen::ir::Block,
    /// The exit block's parameter types, for `break value` out of `loop` or a labelled block.
    value: Vec<Type>,
    /// A labelled block: only a `break` naming it leaves it.
    is_block: bool,
}

struct Gen<'a, 'b> {
    b: FunctionBuilder<'b>,
    snippet: &'a TypedSnippet,
    funcs: Vec<FuncRef>,
    helpers: HashMap<&'static str, FuncRef>,
    /// Shims of the host functions the snippet calls, by function name.
    host_fns: HashMap<String, FuncRef>,
    /// Where a `Vec` keeps its buffer pointer and length (the host's std).
    vec_fields: Option<(i32, i32)>,
    ctx: Value,
    table: Value,
    vars: HashMap<usize, Vec<Variable>>,
    loops: Vec<LoopCtx>,
    /// `Some(ret)` inside a snippet function (returns `(status, value..)`), `None` in the entry (returns status).
    in_fn: Option<Ty>,
    /// Messages of fixed panics ([`Fault::Panic`]), indexed by the fault's value.
    messages: Vec<String>,
    /// String literals and format specs the code points to (moved into [`Compiled`]).
    data: Vec<Box<[u8]>>,
    specs: Vec<Box<crate::text::RawSpec>>,
    /// Byte offsets of the snippet's host struct fields ([`TypedSnippet::fields`]).
    field_offsets: Vec<i32>,
    /// The host's field offsets and struct sizes the snippet needs, by symbol ([`host_statics`]).
    statics: HashMap<String, i32>,
    /// Fuel left, kept in a register within a function: written back to the context around calls and returns.
    fuel: Option<Variable>,
    /// `Vec`/`String` locals moved somewhere ([`lacuna_lowering::moved_locals`]): never freed at their scope's end.
    moved: std::collections::BTreeSet<usize>,
    /// The run has a heap (the snippet allocates).
    has_heap: bool,
    /// The host structs' layouts and shims ([`struct_shims`]).
    shims: HashMap<usize, StructShims>,
    /// A host enum's variant and field shims, by index into [`TypedSnippet::structs`] ([`enum_fns`]).
    enum_fns: HashMap<usize, (usize, usize)>,
    /// Something the code needs that the host does not export (found while generating infallible parts).
    missing: Option<String>,
    /// While an arm of a branch-free `if` is computed ([`arms_without_branches`]): whether that arm is the one
    /// taken. Its faults happen only when it is.
    guard: Option<Value>,
    /// A local known to be even in the arm of a branch-free `if` being computed (the condition tested its
    /// parity): its `/ 2` is then a plain shift. Sound because the arm's value is used only when it is taken.
    even: Option<LocalRef>,
}

type R<T> = Result<T, CodegenError>;

/// `(x, true)` for a condition `x % 2 == 0` on a local `x` (it is even where the condition holds), `(x, false)`
/// for `!= 0` (even where it does not).
fn parity_test(cond: &TExpr) -> Option<(LocalRef, bool)> {
    let TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r) = &cond.kind else { return None };
    let (x, 1) = remainder_by_power_of_two(l)? else { return None };
    let TKind::Local(x) = x.kind else { return None };
    is_zero(r).then_some((x, *op == BinOp::Eq))
}

/// The arms of an `if` (their tail expressions) when computing both and selecting one is cheaper than branching:
/// each a few integer operations on locals and literals, with no effect but the arithmetic faults that
/// [`Gen::fault_if_with`] guards, and nothing that traps in the machine (a division only by a literal other than
/// zero and -1).
fn arms_without_branches<'e>(then: &'e TBlock, otherwise: Option<&'e TExpr>) -> Option<(&'e TExpr, &'e TExpr)> {
    fn tail(b: &TBlock) -> Option<&TExpr> {
        (b.stmts.is_empty() && b.label.is_none()).then_some(b.tail.as_deref()?)
    }
    fn cheap(e: &TExpr, budget: &mut u32) -> bool {
        let int = |e: &TExpr| {
            e.ty.scalar()
                .is_some_and(|s| s.int_bits().is_some_and(|b| b <= 64) || matches!(s, Scalar::Bool | Scalar::Char))
        };
        if *budget == 0 || !int(e) {
            return false;
        }
        *budget -= 1;
        match &e.kind {
            TKind::Lit(_) | TKind::Local(_) => true,
            TKind::Unary(_, x) | TKind::Cast(x) => cheap(x, budget),
            TKind::Block(b) => tail(b).is_some_and(|x| cheap(x, budget)),
            TKind::Binary(BinOp::And | BinOp::Or, ..) => false,
            TKind::Binary(BinOp::Div | BinOp::Rem, l, r) => {
                matches!(r.kind, TKind::Lit(Lit::Int(k)) if k >= 1) && cheap(l, budget) && cheap(r, budget)
            }
            TKind::Binary(_, l, r) => cheap(l, budget) && cheap(r, budget),
            _ => false,
        }
    }
    let then = tail(then)?;
    let otherwise = match &otherwise?.kind {
        TKind::Block(b) => tail(b)?,
        _ => return None,
    };
    let mut budget = 8;
    (cheap(then, &mut budget) && cheap(otherwise, &mut budget)).then_some((then, otherwise))
}

impl<'a, 'b> Gen<'a, 'b> {
    fn new(
        mut b: FunctionBuilder<'b>,
        module: &mut JITModule,
        snippet: &'a TypedSnippet,
        fn_ids: &[FuncId],
        helper_ids: &HashMap<&'static str, FuncId>,
        host_ids: &HashMap<String, FuncId>,
        vec_fields: Option<(i32, i32)>,
        in_fn: Option<Ty>,
    ) -> R<Self> {
        let funcs = fn_ids.iter().map(|id| module.declare_func_in_func(*id, b.func)).collect();
        let host_fns = host_ids.iter().map(|(n, id)| (n.clone(), module.declare_func_in_func(*id, b.func))).collect();
        let helpers = helper_ids.iter().map(|(n, id)| (*n, module.declare_func_in_func(*id, b.func))).collect();
        // The entry block takes the function's parameters; the first is always the context (the entry's
        // parameters are table, out, context: the caller reassigns).
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let first = b.block_params(block)[0];
        Ok(Gen {
            b,
            snippet,
            funcs,
            helpers,
            host_fns,
            vec_fields,
            ctx: first,
            table: first,
            vars: HashMap::new(),
            loops: Vec::new(),
            in_fn,
            messages: Vec::new(),
            data: Vec::new(),
            specs: Vec::new(),
            field_offsets: Vec::new(),
            statics: HashMap::new(),
            fuel: None,
            moved: lacuna_lowering::moved_locals(snippet),
            has_heap: allocates(snippet),
            shims: HashMap::new(),
            enum_fns: HashMap::new(),
            missing: None,
            guard: None,
            even: None,
        })
    }

    /// Ends the current block with a fault return when `cond` is non-zero.
    fn fault_if(&mut self, cond: Value, fault: Fault, at: usize) {
        self.fault_if_with(cond, fault, at, &[]);
    }

    /// [`Self::fault_if`] with the values its message needs ([`JitContext::fault_values`]), stored only when the
    /// fault happens: a check in a hot loop then costs a compare and a branch.
    fn fault_if_with(&mut self, cond: Value, fault: Fault, at: usize, values: &[Value]) {
        let fault_block = self.b.create_block();
        self.b.set_cold_block(fault_block);
        let cont = self.b.create_block();
        match self.guard {
            // The guard tested only once the fault's own condition holds: the usual path stays one fused
            // compare-and-branch.
            Some(taken) => {
                let guarded = self.b.create_block();
                self.b.set_cold_block(guarded);
                self.b.ins().brif(cond, guarded, &[], cont, &[]);
                self.b.switch_to_block(guarded);
                self.b.seal_block(guarded);
                self.b.ins().brif(taken, fault_block, &[], cont, &[]);
            }
            None => {
                self.b.ins().brif(cond, fault_block, &[], cont, &[]);
            }
        }
        self.b.switch_to_block(fault_block);
        self.b.seal_block(fault_block);
        for (k, &v) in values.iter().enumerate() {
            self.b.ins().store(MemFlags::trusted(), v, self.ctx, FAULT_VALUES_OFFSET + 8 * k as i32);
        }
        let code = self.b.ins().iconst(types::I32, fault as i64);
        self.b.ins().store(MemFlags::trusted(), code, self.ctx, FAULT_OFFSET);
        let at = self.b.ins().iconst(types::I32, at.min(u32::MAX as usize) as i64);
        self.b.ins().store(MemFlags::trusted(), at, self.ctx, FAULT_AT_OFFSET);
        self.return_fault();
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    fn return_fault(&mut self) {
        let mut values = vec![self.b.ins().iconst(types::I32, 1)];
        for t in self.in_fn.as_ref().map(flat).unwrap_or_default() {
            values.push(self.zero(t));
        }
        self.b.ins().return_(&values);
    }

    fn store_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let left = self.b.use_var(var);
            self.b.ins().store(MemFlags::trusted(), left, self.ctx, FUEL_OFFSET);
        }
    }

    fn load_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let left = self.b.ins().load(types::I64, MemFlags::trusted(), self.ctx, FUEL_OFFSET);
            self.b.def_var(var, left);
        }
    }

    fn return_ok(&mut self, value: Vals, ret: &Ty) {
        self.store_fuel();
        let mut values = vec![self.b.ins().iconst(types::I32, 0)];
        let value = self.fill(value, &flat(ret));
        values.extend(value);
        self.b.ins().return_(&values);
    }

    /// `values` as `ts` asks: zeros where a diverging or unit expression left none.
    fn fill(&mut self, values: Vals, ts: &[Type]) -> Vals {
        if values.len() == ts.len() {
            return values;
        }
        ts.iter().map(|&t| self.zero(t)).collect()
    }

    fn zero(&mut self, t: Type) -> Value {
        if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else if t == types::F32 {
            self.b.ins().f32const(0.0)
        } else {
            self.b.ins().iconst(t, 0)
        }
    }

    /// Continue in a fresh block no edge reaches (after `break`, `continue`, `return`).
    fn dead_block(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.b.seal_block(dead);
    }

    /// Fuel for this iteration or call, and (at function entry) the stack limit.
    fn enter_checks(&mut self, at: usize) -> R<()> {
        let var = self.b.declare_var(types::I64);
        self.fuel = Some(var);
        self.load_fuel();
        self.tick(at);
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let limit = self.b.ins().load(types::I64, MemFlags::trusted(), self.ctx, STACK_OFFSET);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        self.fault_if(below, Fault::Stack, at);
        Ok(())
    }

    fn tick(&mut self, at: usize) {
        let Some(var) = self.fuel else { return };
        let fuel = self.b.use_var(var);
        let empty = self.b.ins().icmp_imm(IntCC::Equal, fuel, 0);
        self.fault_if(empty, Fault::Fuel, at);
        let left = self.b.ins().iadd_imm(fuel, -1);
        self.b.def_var(var, left);
    }

    fn binding_ptr(&mut self, index: usize) -> Value {
        self.b.ins().load(types::I64, MemFlags::trusted(), self.table, (index * 8) as i32)
    }

    fn read(&mut self, local: LocalRef, ty: &Ty) -> Vals {
        match local {
            LocalRef::Snippet(id) => {
                let vars = self.vars.get(&id).cloned().unwrap_or_default();
                vars.into_iter().map(|v| self.b.use_var(v)).collect()
            }
            // A host struct binding is its place; a reference to one, where it points.
            LocalRef::Binding(i) if matches!(ty, Ty::Struct(_)) => vec![self.binding_ptr(i)],
            LocalRef::Binding(i) if matches!(ty, Ty::StructRef(_)) => vec![self.referent(i)],
            // Other bindings are scalars.
            LocalRef::Binding(i) => match ty.scalar().and_then(clif) {
                Some(t) => {
                    let p = self.binding_ptr(i);
                    vec![self.b.ins().load(t, MemFlags::trusted(), p, 0)]
                }
                None => Vec::new(),
            },
        }
    }

    /// Where the hole binding `r: &S` / `&mut S` points.
    fn referent(&mut self, binding: usize) -> Value {
        let p = self.binding_ptr(binding);
        self.b.ins().load(types::I64, MemFlags::trusted(), p, 0)
    }

    /// Where a host struct's field is.
    fn field_address(&mut self, field: usize) -> Value {
        let f = &self.snippet.fields[field];
        let (binding, through_ref) = (f.binding, f.through_ref);
        let base = if through_ref { self.referent(binding) } else { self.binding_ptr(binding) };
        let offset = self.field_offsets.get(field).copied().unwrap_or(0);
        self.b.ins().iadd_imm(base, i64::from(offset))
    }

    fn read_place(&mut self, place: Place, ty: Scalar) -> Option<Value> {
        match place {
            Place::HostField(field) => {
                let t = clif(ty)?;
                let address = self.field_address(field);
                Some(self.b.ins().load(t, MemFlags::trusted(), address, 0))
            }
            Place::Local(local) => self.read(local, &Ty::Scalar(ty)).first().copied(),
            Place::Deref(binding) => {
                let t = clif(ty)?;
                let target = self.referent(binding);
                Some(self.b.ins().load(t, MemFlags::trusted(), target, 0))
            }
        }
    }

    fn place_ty(&self, place: Place) -> Scalar {
        match place {
            Place::Local(local) => self.local_ty(local).s(),
            // The binding's listed type is what it points to.
            Place::Deref(binding) => self.local_ty(LocalRef::Binding(binding)).s(),
            Place::HostField(field) => self.snippet.fields[field].ty,
        }
    }

    fn write(&mut self, local: LocalRef, values: Vals) {
        match local {
            LocalRef::Snippet(id) => {
                let vars = self.vars.get(&id).cloned().unwrap_or_default();
                if vars.len() == values.len() {
                    for (var, v) in vars.into_iter().zip(values) {
                        self.b.def_var(var, v);
                    }
                }
            }
            LocalRef::Binding(i) => {
                if let Some(&v) = values.first() {
                    let p = self.binding_ptr(i);
                    self.b.ins().store(MemFlags::trusted(), v, p, 0);
                }
            }
        }
    }

    /// Fresh variables for a snippet local, holding `values` (zeros when there are none yet).
    fn declare(&mut self, local: usize, values: Vals) {
        let ts = flat(&self.snippet.locals[local].ty);
        let values = self.fill(values, &ts);
        let mut vars = Vec::new();
        for (t, v) in ts.into_iter().zip(values) {
            let var = self.b.declare_var(t);
            self.b.def_var(var, v);
            vars.push(var);
        }
        self.vars.insert(local, vars);
    }

    fn local_ty(&self, local: LocalRef) -> Ty {
        match local {
            LocalRef::Snippet(id) => self.snippet.locals[id].ty.clone(),
            LocalRef::Binding(i) => {
                Ty::Scalar(self.snippet.bindings.iter().find(|(b, _)| *b == i).map(|(_, t)| *t).unwrap_or(Scalar::Unit))
            }
        }
    }

    /// A scalar or `()` expression's value (none for `()` and `!`).
    fn opt(&mut self, e: &TExpr) -> R<Option<Value>> {
        Ok(self.expr(e)?.first().copied())
    }

    /// A scalar expression's value.
    fn one(&mut self, e: &TExpr) -> R<Value> {
        let values = self.expr(e)?;
        match values[..] {
            [v] => Ok(v),
            _ => Err(CodegenError(format!("a scalar where the snippet has `{}`", e.ty.name()))),
        }
    }

    fn block(&mut self, block: &TBlock) -> R<Vals> {
        if block.label.is_none() {
            return self.block_inner(block);
        }
        // A labelled block: `break 'label value` jumps to its exit with the value.
        let exit = self.b.create_block();
        let ts = block.ty.as_ref().map(flat).unwrap_or_default();
        for &t in &ts {
            self.b.append_block_param(exit, t);
        }
        let ctx = LoopCtx { label: block.label.clone(), next: exit, exit, value: ts.clone(), is_block: true };
        self.loops.push(ctx);
        let v = self.block_inner(block);
        self.loops.pop();
        let v = v?;
        self.jump_with(exit, &ts, v);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(self.b.block_params(exit).to_vec())
    }

    fn block_inner(&mut self, block: &TBlock) -> R<Vals> {
        for stmt in &block.stmts {
            match stmt {
                TStmt::Let { local, init } => {
                    let v = match init {
                        Some(init) => self.expr(init)?,
                        // `let x;`: rustc proved every use comes after an assignment.
                        None => Vec::new(),
                    };
                    self.declare(*local, v);
                }
                TStmt::LetPat { pat, init, otherwise } => {
                    let v = self.expr(init)?;
                    if let Some(otherwise) = otherwise {
                        let matched = self.test_pat(pat, &init.ty, &v);
                        let bind = self.b.create_block();
                        let other = self.b.create_block();
                        self.b.ins().brif(matched, bind, &[], other, &[]);
                        self.b.switch_to_block(other);
                        self.b.seal_block(other);
                        // The `else` block diverges.
                        self.block(otherwise)?;
                        self.b.ins().jump(bind, &[]);
                        self.b.switch_to_block(bind);
                        self.b.seal_block(bind);
                    }
                    self.bind_pat(pat, &init.ty, &v);
                }
                TStmt::Expr(e) => {
                    self.expr(e)?;
                }
            }
        }
        let value = match &block.tail {
            Some(t) => self.expr(t)?,
            None => Vec::new(),
        };
        // The block's own vectors and strings that were never moved are dropped here, as rustc drops them.
        for stmt in &block.stmts {
            if let TStmt::Let { local, .. } = stmt {
                self.drop_local(*local)?;
            }
        }
        Ok(value)
    }

    /// What a `Result` made in place (`parse`, `try_from`) turns into, given whether it is `Ok` and the value it
    /// holds then: `unwrap`/`expect` panic at `at` with std's message for the error (`errors`, chosen by
    /// `status` - error `i` is status `i + 1` - when there are several), the others select.
    #[allow(clippy::too_many_arguments)]
    fn consume_result(
        &mut self,
        then: &lacuna_checker::typed::ParseThen,
        ok: Value,
        value: Value,
        t: Type,
        errors: &[String],
        status: Option<Value>,
        at: usize,
    ) -> R<Vals> {
        use lacuna_checker::typed::ParseThen;
        Ok(match then {
            ParseThen::Unwrap | ParseThen::Expect(_) => {
                let mut index = self.int_const(types::I64, 0);
                for (i, error) in errors.iter().enumerate() {
                    let message = match then {
                        ParseThen::Expect(m) => format!("{m}: {error}"),
                        _ => format!("called `Result::unwrap()` on an `Err` value: {error}"),
                    };
                    let k = self.message(&message);
                    let k = self.int_const(types::I64, k as i64);
                    index = match status {
                        Some(status) => {
                            let this = self.b.ins().icmp_imm(IntCC::Equal, status, i as i64 + 1);
                            self.b.ins().select(this, k, index)
                        }
                        None => k,
                    };
                }
                let failed = self.b.ins().bxor_imm(ok, 1);
                self.fault_if_with(failed, Fault::Panic, at, &[index]);
                vec![value]
            }
            ParseThen::UnwrapOrDefault => {
                let zero = self.zero(t);
                vec![self.b.ins().select(ok, value, zero)]
            }
            ParseThen::UnwrapOr(default) => {
                let d = self.one(default)?;
                vec![self.b.ins().select(ok, value, d)]
            }
            ParseThen::Ok => vec![ok, value],
            ParseThen::IsOk => vec![ok],
            ParseThen::IsErr => vec![self.b.ins().bxor_imm(ok, 1)],
        })
    }

    /// Frees the buffer of a `Vec`/`String` local that is never moved (it owns the buffer alone): at the end of
    /// its scope, or before it is assigned a new value.
    fn drop_local(&mut self, local: usize) -> R<()> {
        if let Some(ty @ (Ty::Struct(_) | Ty::Map { .. })) = self.snippet.locals.get(local).map(|l| &l.ty) {
            if self.moved.contains(&local) || !self.has_heap {
                return Ok(());
            }
            let Some(&[var]) = self.vars.get(&local).map(|vars| &vars[..]) else { return Ok(()) };
            let ptr = self.b.use_var(var);
            let f = if matches!(ty, Ty::Map { .. }) {
                self.helpers["lacuna_map_free"]
            } else {
                self.helpers["lacuna_struct_drop"]
            };
            self.b.ins().call(f, &[self.ctx, ptr]);
            return Ok(());
        }
        let owned = matches!(self.snippet.locals.get(local).map(|l| &l.ty), Some(Ty::Vec(_) | Ty::String));
        if !owned || self.moved.contains(&local) || !self.has_heap {
            return Ok(());
        }
        let Some(&[ptr, _, len]) = self.vars.get(&local).map(|vars| &vars[..]) else { return Ok(()) };
        let ptr = self.b.use_var(ptr);
        if self.snippet.locals[local].ty == Ty::Vec(Elem::String) {
            let len = self.b.use_var(len);
            self.strings_helper("lacuna_strings_free", ptr, len)?;
        }
        let free = self.helpers["lacuna_vec_free"];
        self.b.ins().call(free, &[self.ctx, ptr]);
        Ok(())
    }

    /// Calls `lacuna_strings_release` or `lacuna_strings_free` on the `len` strings at `data`.
    fn strings_helper(&mut self, name: &str, data: Value, len: Value) -> R<()> {
        let ptr_at = self.int_const(types::I64, i64::from(self.vec_offsets()?[0]));
        let f = *self.helpers.get(name).ok_or_else(|| CodegenError(format!("no `{name}`")))?;
        self.b.ins().call(f, &[self.ctx, data, len, ptr_at]);
        Ok(())
    }

    /// Whether `values` (of type `ty`) match `pat`: a `bool` value.
    fn test_pat(&mut self, pat: &TPat, ty: &Ty, values: &[Value]) -> Value {
        match (pat, ty) {
            (TPat::Wild | TPat::Bind(_), _) => self.b.ins().iconst(types::I8, 1),
            (TPat::Variant { adt, index, fields }, Ty::Struct(_) | Ty::StructRef(_)) => {
                let Some(&p) = values.first() else { return self.b.ins().iconst(types::I8, 0) };
                let Some(variant) = self.enum_call(*adt, false, &[p]) else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                let is = self.b.ins().icmp_imm(IntCC::Equal, variant, i64::from(*index));
                let refutable: Vec<&(u32, Scalar, TPat)> =
                    fields.iter().filter(|(_, _, sub)| !matches!(sub, TPat::Wild | TPat::Bind(_))).collect();
                if refutable.is_empty() {
                    return is;
                }
                // The fields are read (and tested) only in the variant they belong to.
                let check = self.b.create_block();
                let done = self.b.create_block();
                self.b.append_block_param(done, types::I8);
                self.b.ins().brif(is, check, &[], done, &[is.into()]);
                self.b.switch_to_block(check);
                self.b.seal_block(check);
                let mut all = self.b.ins().iconst(types::I8, 1);
                for (field, s, sub) in refutable {
                    let number = self.b.ins().iconst(types::I32, i64::from(*field));
                    let (Some(address), Some(t)) = (self.enum_call(*adt, true, &[p, number]), clif(*s)) else {
                        continue;
                    };
                    let v = self.b.ins().load(t, MemFlags::trusted(), address, 0);
                    let ok = self.test_pat(sub, &Ty::Scalar(*s), &[v]);
                    all = self.b.ins().band(all, ok);
                }
                self.b.ins().jump(done, &[all.into()]);
                self.b.switch_to_block(done);
                self.b.seal_block(done);
                self.b.block_params(done)[0]
            }
            (TPat::Lit { lit, negative }, Ty::Scalar(s)) => {
                let (Some(&v), Some(k)) = (values.first(), self.lit(lit, *s, *negative)) else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                self.b.ins().icmp(IntCC::Equal, v, k)
            }
            (TPat::Range { lo, hi, inclusive }, Ty::Scalar(s)) => {
                let Some(&v) = values.first() else { return self.b.ins().iconst(types::I8, 0) };
                let signed = s.is_signed();
                let mut ok = self.b.ins().iconst(types::I8, 1);
                if let Some((lit, negative)) = lo {
                    if let Some(k) = self.lit(lit, *s, *negative) {
                        let cc =
                            if signed { IntCC::SignedGreaterThanOrEqual } else { IntCC::UnsignedGreaterThanOrEqual };
                        let c = self.b.ins().icmp(cc, v, k);
                        ok = self.b.ins().band(ok, c);
                    }
                }
                if let Some((lit, negative)) = hi {
                    if let Some(k) = self.lit(lit, *s, *negative) {
                        let cc = match (signed, inclusive) {
                            (true, true) => IntCC::SignedLessThanOrEqual,
                            (true, false) => IntCC::SignedLessThan,
                            (false, true) => IntCC::UnsignedLessThanOrEqual,
                            (false, false) => IntCC::UnsignedLessThan,
                        };
                        let c = self.b.ins().icmp(cc, v, k);
                        ok = self.b.ins().band(ok, c);
                    }
                }
                ok
            }
            (TPat::Or(alternatives), ty) => {
                let mut any = self.b.ins().iconst(types::I8, 0);
                for alternative in alternatives {
                    let m = self.test_pat(alternative, ty, values);
                    any = self.b.ins().bor(any, m);
                }
                any
            }
            (TPat::Some(inner), Ty::Option(payload)) => {
                let Some((&tag, payload_values)) = values.split_first() else {
                    return self.b.ins().iconst(types::I8, 0);
                };
                let inner = self.test_pat(inner, payload, payload_values);
                self.b.ins().band(tag, inner)
            }
            (TPat::None, Ty::Option(_)) => match values.first() {
                Some(&tag) => self.b.ins().bxor_imm(tag, 1),
                None => self.b.ins().iconst(types::I8, 0),
            },
            (TPat::Tuple(elems), Ty::Tuple(parts)) => {
                let mut all = self.b.ins().iconst(types::I8, 1);
                for ((elem, part), vs) in elems.iter().zip(parts).zip(tuple_fields(parts, values)) {
                    let m = self.test_pat(elem, part, vs);
                    all = self.b.ins().band(all, m);
                }
                all
            }
            // The lowering admits no other combination.
            _ => self.b.ins().iconst(types::I8, 0),
        }
    }

    /// Binds the names of `pat` (which matched) to the parts of `values`.
    fn bind_pat(&mut self, pat: &TPat, ty: &Ty, values: &[Value]) {
        match (pat, ty) {
            (TPat::Bind(local), _) => self.declare(*local, values.to_vec()),
            (TPat::Variant { adt, fields, .. }, Ty::Struct(_) | Ty::StructRef(_)) => {
                let Some(&p) = values.first() else { return };
                for (field, s, sub) in fields {
                    let TPat::Bind(local) = sub else { continue };
                    let number = self.b.ins().iconst(types::I32, i64::from(*field));
                    let (Some(address), Some(t)) = (self.enum_call(*adt, true, &[p, number]), clif(*s)) else {
                        continue;
                    };
                    let v = self.b.ins().load(t, MemFlags::trusted(), address, 0);
                    self.declare(*local, vec![v]);
                }
            }
            (TPat::Some(inner), Ty::Option(payload)) => {
                if let Some((_, payload_values)) = values.split_first() {
                    self.bind_pat(inner, payload, payload_values);
                }
            }
            (TPat::Tuple(elems), Ty::Tuple(parts)) => {
                for ((elem, part), vs) in elems.iter().zip(parts).zip(tuple_fields(parts, values)) {
                    self.bind_pat(elem, part, vs);
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &TExpr) -> R<Vals> {
        let at = e.range.start;
        let value: Option<Value> = match &e.kind {
            TKind::Lit(Lit::Str(text)) => return Ok(self.str_literal(text)),
            TKind::Lit(lit) => self.lit(lit, e.s(), false),
            TKind::Local(l) => return Ok(self.read(*l, &e.ty)),
            TKind::Deref(binding) => self.read_place(Place::Deref(*binding), e.s()),
            TKind::HostField(field) => self.read_place(Place::HostField(*field), e.s()),
            TKind::Unary(UnOp::Neg, inner) if matches!(inner.kind, TKind::Lit(Lit::Int(_))) => {
                // `-128i8` is a literal, not a negation that overflows.
                let TKind::Lit(lit) = &inner.kind else { unreachable!() };
                self.lit(lit, e.s(), true)
            }
            TKind::Unary(op, inner) => {
                let v = self.one(inner)?;
                Some(match op {
                    UnOp::Neg if e.s().is_float() => self.b.ins().fneg(v),
                    UnOp::Neg => {
                        let bits = e.s().int_bits().unwrap_or(64);
                        let t = clif(e.s()).unwrap_or(types::I64);
                        let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                        let min = self.b.ins().iconst(t, min);
                        let is_min = self.b.ins().icmp(IntCC::Equal, v, min);
                        self.fault_if(is_min, Fault::Neg, at);
                        self.b.ins().ineg(v)
                    }
                    UnOp::Not if e.s() == Scalar::Bool => self.b.ins().bxor_imm(v, 1),
                    UnOp::Not => self.b.ins().bnot(v),
                })
            }
            TKind::Binary(BinOp::And, l, r) | TKind::Binary(BinOp::Or, l, r) => {
                let is_and = matches!(e.kind, TKind::Binary(BinOp::And, ..));
                let lv = self.one(l)?;
                let rhs_block = self.b.create_block();
                let merge = self.b.create_block();
                self.b.append_block_param(merge, types::I8);
                if is_and {
                    self.b.ins().brif(lv, rhs_block, &[], merge, &[BlockArg::Value(lv)]);
                } else {
                    self.b.ins().brif(lv, merge, &[BlockArg::Value(lv)], rhs_block, &[]);
                }
                self.b.switch_to_block(rhs_block);
                self.b.seal_block(rhs_block);
                let rv = self.one(r)?;
                self.b.ins().jump(merge, &[BlockArg::Value(rv)]);
                self.b.switch_to_block(merge);
                self.b.seal_block(merge);
                Some(self.b.block_params(merge)[0])
            }
            TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), l, r)
                if remainder_by_power_of_two(l).is_some() && is_zero(r) =>
            {
                // `x % 2^k == 0` whatever x's sign: the low k bits are zero (no sign adjustment, as rustc -O).
                let (x, k) = remainder_by_power_of_two(l).unwrap_or((l, 0));
                let xv = self.one(x)?;
                let low = self.b.ins().band_imm(xv, ((1u128 << k) - 1) as i64);
                let cc = if *op == BinOp::Eq { IntCC::Equal } else { IntCC::NotEqual };
                Some(self.b.ins().icmp_imm(cc, low, 0))
            }
            TKind::Binary(op @ (BinOp::Div | BinOp::Rem), l, r) if power_of_two(r).is_some() && l.s().is_int() => {
                // Division by a literal power of two cannot fault: shifts and masks, as rustc -O emits.
                let k = power_of_two(r).unwrap_or(0);
                let lv = self.opt(l)?;
                if *op == BinOp::Div && k == 1 && matches!(l.kind, TKind::Local(x) if Some(x) == self.even) {
                    // An even number halves exactly: no rounding toward zero to correct.
                    return Ok(lv.map(|lv| self.b.ins().sshr_imm(lv, 1)).into_iter().collect());
                }
                lv.map(|lv| self.div_by_power_of_two(*op, l.s(), lv, k))
            }
            TKind::Binary(op, l, r) => {
                let lv = self.opt(l)?;
                let rv = self.opt(r)?;
                match (lv, rv) {
                    (Some(lv), Some(rv)) => Some(self.binary(*op, l.s(), r.s(), lv, rv, at)),
                    _ => None,
                }
            }
            TKind::Cast(inner) => {
                let v = self.opt(inner)?;
                v.map(|v| self.cast(v, inner.s(), e.s()))
            }
            TKind::Assign { place: Place::Local(local), op: None, value } if value.ty.scalar().is_none() => {
                let values = self.expr(value)?;
                // The old value is dropped (after the new one is made: it may read the old).
                if let LocalRef::Snippet(id) = local {
                    self.drop_local(*id)?;
                }
                self.write(*local, values);
                None
            }
            TKind::Assign { place, op, value } => {
                let v = self.opt(value)?;
                let v = match (op, v) {
                    (Some(op), Some(v)) => {
                        let ty = self.place_ty(*place);
                        let current = self.read_place(*place, ty).ok_or_else(|| CodegenError("assignment".into()))?;
                        Some(self.binary(*op, ty, value.s(), current, v, at))
                    }
                    (_, v) => v,
                };
                match place {
                    Place::Local(local) => self.write(*local, v.into_iter().collect()),
                    Place::Deref(binding) => {
                        if let Some(v) = v {
                            let target = self.referent(*binding);
                            self.b.ins().store(MemFlags::trusted(), v, target, 0);
                        }
                    }
                    Place::HostField(field) => {
                        if let Some(v) = v {
                            let target = self.field_address(*field);
                            self.b.ins().store(MemFlags::trusted(), v, target, 0);
                        }
                    }
                }
                None
            }
            TKind::Block(b) => return self.block(b),
            TKind::If { cond, then, otherwise } => {
                let c = self.one(cond)?;
                if let Some((then, otherwise)) = arms_without_branches(then, otherwise.as_deref()) {
                    // Both arms computed, the taken one selected: no branch to mispredict on data-dependent
                    // conditions (what LLVM does with `cmov`); each arm's faults guarded by whether it is taken.
                    let taken = self.b.ins().icmp_imm(IntCC::NotEqual, c, 0);
                    let not_taken = self.b.ins().bxor_imm(taken, 1);
                    let (even_then, even_else) = match parity_test(cond) {
                        Some((local, true)) => (Some(local), None),
                        Some((local, false)) => (None, Some(local)),
                        None => (None, None),
                    };
                    (self.guard, self.even) = (Some(taken), even_then);
                    let tv = self.one(then);
                    (self.guard, self.even) = (Some(not_taken), even_else);
                    let ev = self.one(otherwise);
                    (self.guard, self.even) = (None, None);
                    return Ok(vec![self.b.ins().select(taken, tv?, ev?)]);
                }
                let then_block = self.b.create_block();
                let else_block = self.b.create_block();
                let ts = flat(&e.ty);
                let merge = self.merge_block(&ts);
                self.b.ins().brif(c, then_block, &[], else_block, &[]);
                self.b.switch_to_block(then_block);
                self.b.seal_block(then_block);
                let tv = self.block(then)?;
                self.jump_with(merge, &ts, tv);
                self.b.switch_to_block(else_block);
                self.b.seal_block(else_block);
                let ev = match otherwise {
                    Some(o) => self.expr(o)?,
                    None => Vec::new(),
                };
                self.jump_with(merge, &ts, ev);
                return Ok(self.enter_merge(merge));
            }
            TKind::While { label, cond, body } => {
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let c = self.one(cond)?;
                self.b.ins().brif(c, body_block, &[], exit, &[]);
                self.b.switch_to_block(body_block);
                self.b.seal_block(body_block);
                self.tick(at);
                self.loop_body(
                    LoopCtx { label: label.clone(), next: header, exit, value: Vec::new(), is_block: false },
                    body,
                )?;
                None
            }
            TKind::Loop { label, body } => {
                let header = self.b.create_block();
                let ts = flat(&e.ty);
                let exit = self.b.create_block();
                for &t in &ts {
                    self.b.append_block_param(exit, t);
                }
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                self.tick(at);
                let ctx = LoopCtx { label: label.clone(), next: header, exit, value: ts, is_block: false };
                self.loop_body(ctx, body)?;
                return Ok(self.b.block_params(exit).to_vec());
            }
            TKind::For { label, var, start, end, inclusive, body } => {
                let ty = self.snippet.locals[*var].ty.s();
                let t = clif(ty).ok_or_else(|| CodegenError("`for` variable".into()))?;
                let s = self.one(start)?;
                let end_v = self.one(end)?;
                let counter = self.b.declare_var(t);
                self.b.def_var(counter, s);
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let latch = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let i = self.b.use_var(counter);
                let (lt, le) = if ty.is_signed() {
                    (IntCC::SignedLessThan, IntCC::SignedLessThanOrEqual)
                } else {
                    (IntCC::UnsignedLessThan, IntCC::UnsignedLessThanOrEqual)
                };
                let go = self.b.ins().icmp(if *inclusive { le } else { lt }, i, end_v);
                self.b.ins().brif(go, body_block, &[], exit, &[]);
                self.b.switch_to_block(body_block);
                self.b.seal_block(body_block);
                self.tick(at);
                let loop_var = self.b.declare_var(t);
                let i = self.b.use_var(counter);
                self.b.def_var(loop_var, i);
                self.vars.insert(*var, vec![loop_var]);
                self.loops.push(LoopCtx {
                    label: label.clone(),
                    next: latch,
                    exit,
                    value: Vec::new(),
                    is_block: false,
                });
                self.block(body)?;
                self.loops.pop();
                self.b.ins().jump(latch, &[]);
                self.b.switch_to_block(latch);
                self.b.seal_block(latch);
                let i = self.b.use_var(counter);
                if *inclusive {
                    // `..=end` stops after `end` without computing `end + 1` (which may not exist).
                    let last = self.b.ins().icmp(IntCC::Equal, i, end_v);
                    let step = self.b.create_block();
                    self.b.ins().brif(last, exit, &[], step, &[]);
                    self.b.switch_to_block(step);
                    self.b.seal_block(step);
                }
                let i = self.b.use_var(counter);
                let next = self.b.ins().iadd_imm(i, 1);
                self.b.def_var(counter, next);
                self.b.ins().jump(header, &[]);
                self.b.seal_block(header);
                self.b.switch_to_block(exit);
                self.b.seal_block(exit);
                None
            }
            TKind::ForSeq { label, var, seq, body } => {
                // A slice iterator: the buffer and length as the loop starts (the body cannot change them).
                let (data, len) = self.seq_parts(seq)?;
                let counter = self.b.declare_var(types::I64);
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.def_var(counter, zero);
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let latch = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let k = self.b.use_var(counter);
                let go = self.b.ins().icmp(IntCC::UnsignedLessThan, k, len);
                self.b.ins().brif(go, body_block, &[], exit, &[]);
                self.b.switch_to_block(body_block);
                self.b.seal_block(body_block);
                self.tick(at);
                let k = self.b.use_var(counter);
                let element = self.element_at(seq.elem, data, k)?;
                let ts = flat(&seq.elem.read_ty());
                let loop_vars: Vec<Variable> = ts.iter().zip(element).map(|(&t, v)| self.var(t, v)).collect();
                self.vars.insert(*var, loop_vars);
                self.loops.push(LoopCtx {
                    label: label.clone(),
                    next: latch,
                    exit,
                    value: Vec::new(),
                    is_block: false,
                });
                self.block(body)?;
                self.loops.pop();
                self.b.ins().jump(latch, &[]);
                self.b.switch_to_block(latch);
                self.b.seal_block(latch);
                let k = self.b.use_var(counter);
                let next = self.b.ins().iadd_imm(k, 1);
                self.b.def_var(counter, next);
                self.b.ins().jump(header, &[]);
                self.b.seal_block(header);
                self.b.switch_to_block(exit);
                self.b.seal_block(exit);
                None
            }
            TKind::Break { label, value } => {
                let v = match value {
                    Some(v) => self.expr(v)?,
                    None => Vec::new(),
                };
                let target = self.find_loop(label)?;
                let (exit, ts) = (self.loops[target].exit, self.loops[target].value.clone());
                self.jump_with(exit, &ts, v);
                self.dead_block();
                None
            }
            TKind::Continue { label } => {
                let target = self.find_loop(label)?;
                let next = self.loops[target].next;
                self.b.ins().jump(next, &[]);
                self.dead_block();
                None
            }
            TKind::Return(value) => {
                let v = match value {
                    Some(v) => self.expr(v)?,
                    None => Vec::new(),
                };
                let ret = self.in_fn.clone().ok_or_else(|| CodegenError("`return` outside a function".into()))?;
                self.return_ok(v, &ret);
                self.dead_block();
                None
            }
            TKind::Call { function, args } => {
                let mut values = vec![self.ctx];
                for a in args {
                    values.extend(self.expr(a)?);
                }
                self.store_fuel();
                let call = self.b.ins().call(self.funcs[*function], &values);
                let results = self.b.inst_results(call).to_vec();
                self.load_fuel();
                let failed = self.b.ins().icmp_imm(IntCC::NotEqual, results[0], 0);
                let fail_block = self.b.create_block();
                let cont = self.b.create_block();
                self.b.ins().brif(failed, fail_block, &[], cont, &[]);
                self.b.switch_to_block(fail_block);
                self.b.seal_block(fail_block);
                self.return_fault();
                self.b.switch_to_block(cont);
                self.b.seal_block(cont);
                return Ok(results[1..].to_vec());
            }
            TKind::SeqLen(seq) => Some(self.seq_parts(seq)?.1),
            TKind::SeqIndex { seq, index } => {
                let i = self.one(index)?;
                let address = self.seq_element(seq, i, at)?;
                return self.elem_read(seq.elem, address);
            }
            TKind::SeqSum(seq) => Some(self.seq_sum(seq, at)?),
            TKind::RefField { base, symbol } => {
                let base = self.one(base)?;
                let offset = *self.statics.get(symbol).ok_or_else(|| CodegenError(format!("no `{symbol}`")))?;
                let address = self.b.ins().iadd_imm(base, i64::from(offset));
                return match &e.ty {
                    Ty::Str => self.text_at(address),
                    ty => {
                        let t = ty.scalar().and_then(clif).ok_or_else(|| CodegenError("a field's type".into()))?;
                        Ok(vec![self.b.ins().load(t, MemFlags::trusted(), address, 0)])
                    }
                };
            }
            TKind::SeqMethod { seq, name, args, at: name_at } => return self.seq_method(seq, name, args, *name_at),
            TKind::SeqWithClosure { seq, name, closure, descending } => {
                if name == "retain" {
                    self.retain(seq, closure, at)?;
                } else {
                    self.sort_by_key(seq, closure, *descending, at)?;
                }
                None
            }
            TKind::SeqStore { seq, index_at, index, op, value } => {
                // Rust evaluates the value first, then the place.
                let v = self.one(value)?;
                let i = self.one(index)?;
                let address = self.seq_element(seq, i, *index_at)?;
                let elem = seq.elem.scalar().ok_or_else(|| CodegenError("a store into strings".into()))?;
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
            }
            TKind::HostCall { name, symbol, receiver, args } => {
                let mut values = Vec::with_capacity(args.len() + 3);
                if let Some(r) = receiver {
                    let this = if r.through_ref { self.referent(r.binding) } else { self.binding_ptr(r.binding) };
                    values.push(this);
                }
                for a in args {
                    if a.ty == Ty::Str {
                        let (data, len) = self.text_parts(a)?;
                        values.extend([data, len]);
                    } else {
                        values.push(self.one(a)?);
                    }
                }
                let ret = clif(e.s());
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 4));
                let ptr = self.b.func.dfg.value_type(self.ctx);
                let out = self.b.ins().stack_addr(ptr, slot, 0);
                let run = self.b.ins().load(ptr, MemFlags::trusted(), self.ctx, RUN_OFFSET);
                values.splice(0..0, [run, out]);
                let callee =
                    *self.host_fns.get(symbol).ok_or_else(|| CodegenError(format!("host function `{name}`")))?;
                self.store_fuel();
                let call = self.b.ins().call(callee, &values);
                let status = self.b.inst_results(call)[0];
                self.load_fuel();
                let panicked = self.b.ins().icmp_imm(IntCC::NotEqual, status, 0);
                self.fault_if(panicked, Fault::HostPanic, at);
                // The shim's layouts (`instrument::shim`): a `String` as [pointer, capacity, length], an `Option`
                // as a `u8` tag and the payload at offset 8.
                match &e.ty {
                    Ty::String => {
                        let parts: Vals = (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect();
                        let adopt = self.helpers["lacuna_vec_adopt"];
                        self.b.ins().call(adopt, &[self.ctx, parts[0], parts[1]]);
                        return Ok(parts);
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
            }
            TKind::Method { name, receiver, args } if receiver.ty.scalar().is_none() || e.ty.scalar().is_none() => {
                return self.aggregate_method(name, receiver, args, &e.ty, at);
            }
            TKind::Method { name, receiver, args } => {
                let rv = self.one(receiver)?;
                let mut avs = Vec::new();
                for a in args {
                    avs.push(self.one(a)?);
                }
                Some(self.method(name, receiver.s(), rv, &avs, at)?)
            }
            TKind::StructClone(x) => {
                let (Ty::Struct(id) | Ty::StructRef(id)) = x.ty else {
                    return Err(CodegenError("a `clone` of something other than a host struct".into()));
                };
                let source = self.one(x)?;
                Some(self.struct_clone(id, source, at)?)
            }
            TKind::StructLit { id, fields, base } => {
                // The values first, in order (a fault leaves nothing half-built); then the box, each field written
                // at its offset (a `String`'s buffer is the struct's from then on), and the box is complete.
                let mut values = Vec::with_capacity(fields.len());
                for (symbol, value) in fields {
                    let offset =
                        *self.statics.get(symbol).ok_or_else(|| CodegenError(format!("no offset for `{symbol}`")))?;
                    values.push((offset, value.ty.clone(), self.expr(value)?));
                }
                let shims = self.shims_of(*id)?;
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
                        let release = self.helpers["lacuna_vec_release"];
                        self.b.ins().call(release, &[self.ctx, parts[0]]);
                    } else {
                        self.elem_write(Elem::Scalar(ty.s()), address, &parts)?;
                    }
                }
                self.struct_ready(shims, boxed);
                Some(boxed)
            }
            TKind::MapNew => {
                let f = self.helpers["lacuna_map_new"];
                let call = self.b.ins().call(f, &[self.ctx]);
                Some(self.b.inst_results(call)[0])
            }
            TKind::MapMethod { map, name, args, at: method_at } => {
                return self.map_method(*map, name, args, &e.ty, *method_at)
            }
            TKind::MapUpdate { map, key, default, op, value } => {
                let Ty::Map { value: vt, .. } = self.snippet.locals[*map].ty else {
                    return Err(CodegenError("an entry of something other than a map".into()));
                };
                // Primitive operands: the value first, then the place.
                let v = self.one(value)?;
                let m = self.map_address(*map)?;
                let (data, len, word, owned) = self.map_key_parts(key)?;
                let default = match default {
                    Some(d) => {
                        let d = self.one(d)?;
                        self.word_of(d, vt)
                    }
                    None => self.int_const(types::I64, 0),
                };
                let f = self.helpers["lacuna_map_slot"];
                let call = self.b.ins().call(f, &[m, data, len, word, default]);
                let slot = self.b.inst_results(call)[0];
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
            }
            TKind::StructEq { left, right, negated } => {
                let (Ty::Struct(id) | Ty::StructRef(id)) = left.ty else {
                    return Err(CodegenError("a comparison of something other than host structs".into()));
                };
                let a = self.one(left)?;
                let b = self.one(right)?;
                let equal = self.struct_eq(id, a, b, at)?;
                Some(if *negated { self.b.ins().bxor_imm(equal, 1) } else { equal })
            }
            TKind::Some(inner) => {
                let v = self.one(inner)?;
                let tag = self.b.ins().iconst(types::I8, 1);
                return Ok(vec![tag, v]);
            }
            TKind::None => {
                let tag = self.b.ins().iconst(types::I8, 0);
                let payload: Vals = flat(&e.ty).iter().skip(1).map(|&t| self.zero(t)).collect();
                return Ok(std::iter::once(tag).chain(payload).collect());
            }
            TKind::Tuple(elems) => {
                let mut values = Vec::new();
                for x in elems {
                    values.extend(self.expr(x)?);
                }
                return Ok(values);
            }
            TKind::TextOf(seq) => {
                let (data, len) = self.seq_parts(seq)?;
                return Ok(vec![data, len]);
            }
            TKind::TextMethod { name, receiver, args } => {
                let (data, len) = self.text_parts(receiver)?;
                return Ok(match name.as_str() {
                    "len" => vec![len],
                    "is_empty" => vec![self.b.ins().icmp_imm(IntCC::Equal, len, 0)],
                    "as_str" => vec![data, len],
                    "trim" | "trim_start" | "trim_end" | "trim_matches" | "trim_start_matches" | "trim_end_matches" => {
                        let which = match name.as_str() {
                            "trim" => 0,
                            "trim_start" => 1,
                            "trim_end" => 2,
                            "trim_matches" => 3,
                            "trim_start_matches" => 4,
                            _ => 5,
                        };
                        let mut which = self.int_const(types::I32, which);
                        // The `_matches` forms' pattern: text, or a `char` riding above the mode's byte.
                        let (mut pattern_data, mut pattern_len) =
                            (self.int_const(types::I64, 0), self.int_const(types::I64, 0));
                        match args.first() {
                            Some(pattern) if pattern.ty == Ty::Str => {
                                (pattern_data, pattern_len) = self.text_parts(pattern)?
                            }
                            Some(pattern) => {
                                let c = self.one(pattern)?;
                                let c = self.b.ins().ishl_imm(c, 8);
                                which = self.b.ins().bor(which, c);
                            }
                            None => {}
                        }
                        let slot =
                            self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                        let out = self.b.ins().stack_addr(types::I64, slot, 0);
                        let f = self.helpers["lacuna_trim"];
                        self.b.ins().call(f, &[data, len, which, pattern_data, pattern_len, out]);
                        vec![self.b.ins().stack_load(types::I64, slot, 0), self.b.ins().stack_load(types::I64, slot, 8)]
                    }
                    "contains" | "starts_with" | "ends_with" => {
                        let which = match name.as_str() {
                            "contains" => 0,
                            "starts_with" => 1,
                            _ => 2,
                        };
                        let which = self.int_const(types::I32, which);
                        let pattern = &args[0];
                        let (p, p_len, c) = if pattern.ty == Ty::Scalar(Scalar::Char) {
                            let c = self.one(pattern)?;
                            (self.int_const(types::I64, 0), self.int_const(types::I64, 0), c)
                        } else {
                            let (p, p_len) = self.text_parts(pattern)?;
                            (p, p_len, self.int_const(types::I32, 0))
                        };
                        let f = self.helpers["lacuna_find"];
                        let call = self.b.ins().call(f, &[data, len, p, p_len, c, which]);
                        vec![self.b.inst_results(call)[0]]
                    }
                    "to_uppercase" | "to_lowercase" | "repeat" => {
                        let (slot, address) = self.new_text_slot();
                        let (op, n) = match name.as_str() {
                            "to_uppercase" => (0, self.int_const(types::I64, 0)),
                            "to_lowercase" => (1, self.int_const(types::I64, 0)),
                            _ => (2, self.one(&args[0])?),
                        };
                        let op = self.int_const(types::I32, op);
                        let f = self.helpers["lacuna_transform"];
                        let call = self.b.ins().call(f, &[self.ctx, address, data, len, op, n]);
                        let status = self.b.inst_results(call)[0];
                        self.helper_fault_if(status, at);
                        (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect()
                    }
                    // `&text[a..b]`, `[a..]`, `[..b]`, `[..]`: the bounds given, in order.
                    "slice" | "slice_from" | "slice_to" | "slice_all" => {
                        let mut given = Vec::new();
                        for a in args {
                            given.push(self.one(a)?);
                        }
                        let zero = self.int_const(types::I64, 0);
                        let (start, end) = match (name.as_str(), given.as_slice()) {
                            ("slice", &[a, b]) => (a, b),
                            ("slice_from", &[a]) => (a, len),
                            ("slice_to", &[b]) => (zero, b),
                            _ => (zero, len),
                        };
                        let slot =
                            self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                        let out = self.b.ins().stack_addr(types::I64, slot, 0);
                        let f = self.helpers["lacuna_str_slice"];
                        let call = self.b.ins().call(f, &[self.ctx, data, len, start, end, out]);
                        let status = self.b.inst_results(call)[0];
                        self.helper_fault_if(status, at);
                        vec![self.b.ins().stack_load(types::I64, slot, 0), self.b.ins().stack_load(types::I64, slot, 8)]
                    }
                    _ if e.ty == Ty::Str => vec![data, len],
                    "to_string" | "to_owned" | "clone" | "into" => self.owned_copy(data, len, types::I8, at)?,
                    "==" | "!=" => {
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
                                let f = self.helpers["lacuna_bytes_eq"];
                                let call = self.b.ins().call(f, &[data, len, other, other_len]);
                                self.b.inst_results(call)[0]
                            }
                        };
                        if name == "==" {
                            vec![equal]
                        } else {
                            vec![self.b.ins().bxor_imm(equal, 1)]
                        }
                    }
                    _ => return Err(CodegenError(format!("the text method `{name}`"))),
                });
            }
            TKind::StringPush { seq, value, at: push_at } => {
                let home = self.vec_home(seq)?;
                let slot = self.text_slot(&home, seq.kind == SeqKind::Local)?;
                self.append_text(slot, value, *push_at)?;
                self.text_unslot(slot, &home)?;
                return Ok(Vec::new());
            }
            TKind::Concat { left, right, at: op_at } => {
                let mut values = self.expr(left)?;
                values.push(self.int_const(types::I64, 1));
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 3));
                for (i, v) in values.iter().enumerate() {
                    self.b.ins().stack_store(*v, slot, (i * 8) as i32);
                }
                let address = self.b.ins().stack_addr(types::I64, slot, 0);
                self.append_text(address, right, *op_at)?;
                return Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect());
            }
            TKind::Format(pieces) => {
                let (slot, _) = self.format_into(pieces, at)?;
                return Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect());
            }
            TKind::Print { pieces, stderr } => {
                let (_, address) = self.format_into(pieces, at)?;
                let to = self.int_const(types::I32, i64::from(*stderr));
                let f = self.helpers["lacuna_print"];
                self.b.ins().call(f, &[self.ctx, address, to]);
                return Ok(Vec::new());
            }
            TKind::TryConvert { value, target, then, at: name_at } => {
                let source = value.s();
                let (Some(st), Some(tt)) = (clif(source), clif(*target)) else {
                    return Err(CodegenError("an integer conversion".into()));
                };
                let v = self.one(value)?;
                // In range of the target: compared in the source's type, against the bounds both types share.
                let range = |s: Scalar| -> (i128, i128) {
                    let bits = s.int_bits().unwrap_or(64);
                    if s.is_signed() {
                        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                    } else {
                        (0, (1i128 << bits) - 1)
                    }
                };
                let ((smin, smax), (tmin, tmax)) = (range(source), range(*target));
                let (lo, hi) = (smin.max(tmin), smax.min(tmax));
                let signed = source.is_signed();
                let mut ok = self.b.ins().iconst(types::I8, 1);
                if lo > smin {
                    let k = self.int_const(st, lo as i64);
                    let cc = if signed { IntCC::SignedGreaterThanOrEqual } else { IntCC::UnsignedGreaterThanOrEqual };
                    let c = self.b.ins().icmp(cc, v, k);
                    ok = self.b.ins().band(ok, c);
                }
                if hi < smax {
                    // `hi` fits the source type; as a bit pattern for unsigned 64-bit sources.
                    let k = self.int_const(st, hi as u64 as i64);
                    let cc = if signed { IntCC::SignedLessThanOrEqual } else { IntCC::UnsignedLessThanOrEqual };
                    let c = self.b.ins().icmp(cc, v, k);
                    ok = self.b.ins().band(ok, c);
                }
                let converted = self.cast(v, source, *target);
                let errors = ["TryFromIntError(())".to_owned()];
                return self.consume_result(then, ok, converted, tt, &errors, None, *name_at);
            }
            TKind::Parse { text, target, then, at: name_at } => {
                let t = clif(*target).ok_or_else(|| CodegenError("a parsed type".into()))?;
                let (data, len) = self.text_parts(text)?;
                let code = crate::text::PARSE_TARGETS
                    .iter()
                    .position(|s| s == target)
                    .ok_or_else(|| CodegenError(format!("parsing a `{}`", target.name())))?;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
                let zero64 = self.int_const(types::I64, 0);
                self.b.ins().stack_store(zero64, slot, 0);
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                let code = self.int_const(types::I32, code as i64);
                let f = self.helpers["lacuna_parse"];
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
                let errors = crate::text::parse_errors(*target);
                return self.consume_result(then, ok, value, t, &errors, Some(status), *name_at);
            }
            TKind::SeqClone(seq) => {
                let elem = seq.elem.scalar().ok_or_else(|| CodegenError("a copy of strings".into()))?;
                let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
                let (data, len) = self.seq_parts(seq)?;
                // A copy's capacity is its length (as `to_vec` allocates).
                return self.owned_copy(data, len, t, at);
            }
            TKind::VecRepeat { value, count } => {
                let &Ty::Vec(elem) = &e.ty else { return Err(CodegenError("a vector of this type".into())) };
                let s = elem.scalar().ok_or_else(|| CodegenError("repeated strings".into()))?;
                let t = clif(s).ok_or_else(|| CodegenError("an element type".into()))?;
                let x = self.one(value)?;
                let n = self.one(count)?;
                let home = self.vec_new(elem, 0, at)?;
                let VecHome::Vars(vars) = home else { return Err(CodegenError("a vector".into())) };
                let fill = self.b.create_block();
                let done = self.b.create_block();
                self.b.ins().brif(n, fill, &[], done, &[]);
                self.b.switch_to_block(fill);
                self.b.seal_block(fill);
                let dangling = self.b.use_var(vars[0]);
                let zero = self.int_const(types::I64, 0);
                let ptr = self.vec_grow(dangling, zero, n, (t.bytes(), t.bytes()), true, at);
                self.b.def_var(vars[0], ptr);
                self.b.def_var(vars[1], n);
                self.b.def_var(vars[2], n);
                self.fill_elements(ptr, n, t, x)?;
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                self.b.seal_block(done);
                return Ok(vars.iter().map(|v| self.b.use_var(*v)).collect());
            }
            TKind::VecLit(elems) => {
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
                return Ok(vars.iter().map(|v| self.b.use_var(*v)).collect());
            }
            TKind::Field(base, index) => {
                let values = self.expr(base)?;
                let Ty::Tuple(parts) = &base.ty else { return Err(CodegenError("a field of a non-tuple".into())) };
                let field = tuple_fields(parts, &values).nth(*index);
                return field.map(<[Value]>::to_vec).ok_or_else(|| CodegenError("a tuple field".into()));
            }
            TKind::Match { scrutinee, arms } => {
                let values = self.expr(scrutinee)?;
                let ts = flat(&e.ty);
                let merge = self.merge_block(&ts);
                for arm in arms {
                    let matched = self.test_pat(&arm.pat, &scrutinee.ty, &values);
                    let bind = self.b.create_block();
                    let next = self.b.create_block();
                    self.b.ins().brif(matched, bind, &[], next, &[]);
                    self.b.switch_to_block(bind);
                    self.b.seal_block(bind);
                    self.bind_pat(&arm.pat, &scrutinee.ty, &values);
                    if let Some(guard) = &arm.guard {
                        let holds = self.one(guard)?;
                        let body = self.b.create_block();
                        self.b.ins().brif(holds, body, &[], next, &[]);
                        self.b.switch_to_block(body);
                        self.b.seal_block(body);
                    }
                    let v = self.expr(&arm.body)?;
                    self.jump_with(merge, &ts, v);
                    self.b.switch_to_block(next);
                    self.b.seal_block(next);
                }
                // No arm matched: impossible for a `match` rustc (or a final catch-all arm) made exhaustive.
                self.panic_with("internal error: entered unreachable code", at);
                self.jump_with(merge, &ts, Vec::new());
                return Ok(self.enter_merge(merge));
            }
            TKind::OptionClosure { method, receiver, param, body } => {
                return self.option_closure(method, receiver, param.as_ref(), body, &e.ty);
            }
            TKind::Consume { chain, sink } => return self.consume(chain, sink, &e.ty, at),
            TKind::ForIter { label, pat, chain, body } => {
                let item_ty = chain.item();
                // The loop's `next()` is placed at its iterator expression (a fault of a source, as rustc's).
                self.drive(chain, chain.range.start, &mut |g, item, next, exit| {
                    g.bind_pat(pat, &item_ty, &item);
                    g.loops.push(LoopCtx { label: label.clone(), next, exit, value: Vec::new(), is_block: false });
                    let r = g.block(body);
                    g.loops.pop();
                    r.map(|_| ())
                })?;
                None
            }
            TKind::Panic { receiver, message } => {
                let Some(receiver) = receiver else {
                    self.panic_with(message, at);
                    return Ok(Vec::new());
                };
                let values = self.expr(receiver)?;
                let (Some(&tag), Some(&payload)) = (values.first(), values.get(1)) else {
                    return Err(CodegenError("`expect` of something other than an `Option`".into()));
                };
                let none = self.b.ins().icmp_imm(IntCC::Equal, tag, 0);
                let index = self.message(message);
                let index = self.b.ins().iconst(types::I64, index as i64);
                self.fault_if_with(none, Fault::Panic, at, &[index]);
                Some(payload)
            }
        };
        Ok(value.into_iter().collect())
    }

    /// A variable of type `t` holding `v`.
    fn var(&mut self, t: Type, v: Value) -> Variable {
        let var = self.b.declare_var(t);
        self.b.def_var(var, v);
        var
    }

    fn int_const(&mut self, t: Type, v: i64) -> Value {
        self.b.ins().iconst(t, v)
    }

    /// Runs an iterator chain as one loop: `each` gets every item the chain yields, and the blocks to jump to for
    /// the next item and out of the loop (it may end the current block with either, or fall through). Adaptor
    /// arguments are evaluated first, in order, as Rust builds the adaptors before iterating.
    fn drive(
        &mut self,
        chain: &IterChain,
        at: usize,
        each: &mut dyn FnMut(&mut Self, Vals, cranelift_codegen::ir::Block, cranelift_codegen::ir::Block) -> R<()>,
    ) -> R<()> {
        let reversed = chain.stages.iter().any(|(s, _)| matches!(s, Stage::Rev));
        let src = self.open_source(&chain.source, reversed)?;
        // Adaptor state: counters and limits, and the sources `zip` pairs with.
        let mut state: Vec<Option<(Variable, Option<Value>)>> = Vec::new();
        let mut zipped: Vec<Src> = Vec::new();
        for (stage, _) in &chain.stages {
            state.push(match stage {
                Stage::Take(n) | Stage::Skip(n) => {
                    let n = self.one(n)?;
                    let zero = self.int_const(types::I64, 0);
                    Some((self.var(types::I64, zero), Some(n)))
                }
                Stage::Enumerate => {
                    let zero = self.int_const(types::I64, 0);
                    Some((self.var(types::I64, zero), None))
                }
                Stage::SkipWhile(_) => {
                    let one = self.int_const(types::I8, 1);
                    Some((self.var(types::I8, one), None))
                }
                _ => None,
            });
            if let Stage::Zip(other) = stage {
                zipped.push(self.open_source(other, false)?);
            }
        }
        let mut zipped = zipped.into_iter();
        let header = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        self.tick(at);
        // An exhausted `take` yields nothing more, without pulling from what is before it.
        for ((stage, _), st) in chain.stages.iter().zip(&state) {
            if let (Stage::Take(_), Some((taken, Some(n)))) = (stage, st) {
                let taken = self.b.use_var(*taken);
                let room = self.b.ins().icmp(IntCC::UnsignedLessThan, taken, *n);
                self.continue_if(room, exit);
            }
        }
        // The source's next item.
        let mut item = self.next_item(&src, reversed, exit, at)?;
        // The adaptors, in order.
        let mut item_ty = chain.source.item();
        for ((stage, ty), st) in chain.stages.iter().zip(&state) {
            match stage {
                Stage::Map(c) => {
                    self.bind_params(c, &[(&item_ty, &item)]);
                    item = self.expr(&c.body)?;
                }
                Stage::Filter(c) => {
                    self.bind_params(c, &[(&item_ty, &item)]);
                    let keep = self.one(&c.body)?;
                    self.continue_if(keep, header);
                }
                Stage::FilterMap(c) => {
                    self.bind_params(c, &[(&item_ty, &item)]);
                    let v = self.expr(&c.body)?;
                    let (Some(&tag), Some(&payload)) = (v.first(), v.get(1)) else {
                        return Err(CodegenError("a `filter_map` closure's `Option`".into()));
                    };
                    self.continue_if(tag, header);
                    item = vec![payload];
                }
                Stage::TakeWhile(c) => {
                    self.bind_params(c, &[(&item_ty, &item)]);
                    let keep = self.one(&c.body)?;
                    self.continue_if(keep, exit);
                }
                Stage::SkipWhile(c) => {
                    let Some((skipping, _)) = st else { return Err(CodegenError("`skip_while` state".into())) };
                    let skipping_v = self.b.use_var(*skipping);
                    let test = self.b.create_block();
                    let go = self.b.create_block();
                    self.b.ins().brif(skipping_v, test, &[], go, &[]);
                    self.b.switch_to_block(test);
                    self.b.seal_block(test);
                    self.bind_params(c, &[(&item_ty, &item)]);
                    let skip = self.one(&c.body)?;
                    let stop = self.b.create_block();
                    self.b.ins().brif(skip, header, &[], stop, &[]);
                    self.b.switch_to_block(stop);
                    self.b.seal_block(stop);
                    let zero = self.int_const(types::I8, 0);
                    self.b.def_var(*skipping, zero);
                    self.b.ins().jump(go, &[]);
                    self.b.switch_to_block(go);
                    self.b.seal_block(go);
                }
                Stage::Enumerate => {
                    let Some((count, _)) = st else { return Err(CodegenError("`enumerate` state".into())) };
                    let i = self.b.use_var(*count);
                    let next = self.b.ins().iadd_imm(i, 1);
                    self.b.def_var(*count, next);
                    item.insert(0, i);
                }
                Stage::Rev => {}
                Stage::Zip(_) => {
                    let other = zipped.next().ok_or_else(|| CodegenError("`zip` state".into()))?;
                    let paired = self.next_item(&other, false, exit, at)?;
                    item.extend(paired);
                }
                Stage::Take(_) => {
                    let Some((taken, _)) = st else { return Err(CodegenError("`take` state".into())) };
                    let t = self.b.use_var(*taken);
                    let next = self.b.ins().iadd_imm(t, 1);
                    self.b.def_var(*taken, next);
                }
                Stage::Skip(_) => {
                    let Some((skipped, Some(n))) = st else { return Err(CodegenError("`skip` state".into())) };
                    let k = self.b.use_var(*skipped);
                    let dropping = self.b.ins().icmp(IntCC::UnsignedLessThan, k, *n);
                    let drop_block = self.b.create_block();
                    let go = self.b.create_block();
                    self.b.ins().brif(dropping, drop_block, &[], go, &[]);
                    self.b.switch_to_block(drop_block);
                    self.b.seal_block(drop_block);
                    let next = self.b.ins().iadd_imm(k, 1);
                    self.b.def_var(*skipped, next);
                    self.b.ins().jump(header, &[]);
                    self.b.switch_to_block(go);
                    self.b.seal_block(go);
                }
            }
            item_ty = ty.clone();
        }
        each(self, item, header, exit)?;
        self.b.ins().jump(header, &[]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// Opens an iterator source (evaluating what it reads) for [`Self::next_item`]; `reversed` runs it backwards.
    fn open_source(&mut self, source: &IterSource, reversed: bool) -> R<Src> {
        Ok(match source {
            IterSource::Range { start, end, inclusive } => {
                let s = start.s();
                let t = clif(s).ok_or_else(|| CodegenError("a range's type".into()))?;
                let start_v = self.one(start)?;
                let end_v = match end {
                    Some(e) => Some(self.one(e)?),
                    None => None,
                };
                let first = match (reversed, end_v) {
                    (true, Some(end_v)) => end_v,
                    _ => start_v,
                };
                let counter = self.var(t, first);
                let zero = self.int_const(types::I8, 0);
                let done = self.var(types::I8, zero);
                Src::Range {
                    t,
                    signed: s.is_signed(),
                    counter,
                    end: end_v,
                    inclusive: *inclusive,
                    done,
                    start: start_v,
                }
            }
            IterSource::Seq(seq) => {
                let (data, len) = self.seq_parts(seq)?;
                let first = if reversed { len } else { self.int_const(types::I64, 0) };
                let index = self.var(types::I64, first);
                Src::Seq { elem: seq.elem, data, index, len }
            }
            IterSource::Chars(text) => {
                let (data, len) = self.text_parts(text)?;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                let zero = self.int_const(types::I64, 0);
                self.b.ins().stack_store(zero, slot, 0);
                self.b.ins().stack_store(len, slot, 8);
                Src::Chars { data, state: self.b.ins().stack_addr(types::I64, slot, 0) }
            }
            IterSource::Pieces { text, how } => {
                let (data, len) = self.text_parts(text)?;
                let (how, pat, pat_len) = match how {
                    Pieces::Whitespace => (crate::text::PIECES_WHITESPACE, None, None),
                    Pieces::Lines => (crate::text::PIECES_LINES, None, None),
                    Pieces::Split(pattern) if pattern.ty == Ty::Str => {
                        let (p, n) = self.text_parts(pattern)?;
                        (crate::text::PIECES_SPLIT_STR, Some(p), Some(n))
                    }
                    Pieces::Split(pattern) => {
                        let c = self.one(pattern)?;
                        let c = self.b.ins().uextend(types::I64, c);
                        (crate::text::PIECES_SPLIT_CHAR, None, Some(c))
                    }
                };
                let zero = self.int_const(types::I64, 0);
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 48, 3));
                for (i, v) in [zero, len, zero, zero].into_iter().enumerate() {
                    self.b.ins().stack_store(v, slot, (i * 8) as i32);
                }
                let how = self.int_const(types::I32, i64::from(how));
                let state = self.b.ins().stack_addr(types::I64, slot, 0);
                Src::Pieces { data, state, how, pat: pat.unwrap_or(zero), pat_len: pat_len.unwrap_or(zero) }
            }
            IterSource::Chain { first, first_rev, second, second_rev } => {
                let first_src = self.open_source(first, *first_rev)?;
                let second_src = self.open_source(second, *second_rev)?;
                let zero = self.int_const(types::I8, 0);
                Src::Chain {
                    first: Box::new(first_src),
                    first_rev: *first_rev,
                    second: Box::new(second_src),
                    second_rev: *second_rev,
                    in_second: self.var(types::I8, zero),
                    ty: source.item(),
                }
            }
        })
    }

    /// The next item of an opened source, or a jump to `exit` when it has none.
    fn next_item(&mut self, src: &Src, reversed: bool, exit: cranelift_codegen::ir::Block, at: usize) -> R<Vals> {
        Ok(match src.clone() {
            Src::Range { t, signed, counter, end, inclusive, done, start } => {
                let cc = |s: IntCC, u: IntCC| if signed { s } else { u };
                let i = self.b.use_var(counter);
                match end {
                    None => {
                        // `a..`: the next value must exist (a debug build panics on the overflow).
                        let one = self.int_const(t, 1);
                        let (next, over) = if signed {
                            self.b.ins().sadd_overflow(i, one)
                        } else {
                            self.b.ins().uadd_overflow(i, one)
                        };
                        self.fault_if(over, Fault::Add, at);
                        self.b.def_var(counter, next);
                        vec![i]
                    }
                    Some(end) if !inclusive && !reversed => {
                        let more = self.b.ins().icmp(cc(IntCC::SignedLessThan, IntCC::UnsignedLessThan), i, end);
                        self.continue_if(more, exit);
                        let next = self.b.ins().iadd_imm(i, 1);
                        self.b.def_var(counter, next);
                        vec![i]
                    }
                    Some(_) if !inclusive => {
                        // `(a..b).rev()`: from `b - 1` down to `a`.
                        let more =
                            self.b.ins().icmp(cc(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan), i, start);
                        self.continue_if(more, exit);
                        let value = self.b.ins().iadd_imm(i, -1);
                        self.b.def_var(counter, value);
                        vec![value]
                    }
                    Some(end) => {
                        // `a..=b`, forwards or backwards: stops at the far end without stepping past it (the
                        // value there may not exist).
                        let (bound, within) = if reversed {
                            (start, cc(IntCC::SignedGreaterThanOrEqual, IntCC::UnsignedGreaterThanOrEqual))
                        } else {
                            (end, cc(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual))
                        };
                        let within = self.b.ins().icmp(within, i, bound);
                        let finished = self.b.use_var(done);
                        let not_done = self.b.ins().bxor_imm(finished, 1);
                        let more = self.b.ins().band(within, not_done);
                        self.continue_if(more, exit);
                        let last = self.b.ins().icmp(IntCC::Equal, i, bound);
                        let one = self.int_const(t, 1);
                        let zero = self.int_const(t, 0);
                        let step = self.b.ins().select(last, zero, one);
                        let next = if reversed { self.b.ins().isub(i, step) } else { self.b.ins().iadd(i, step) };
                        self.b.def_var(counter, next);
                        self.b.def_var(done, last);
                        vec![i]
                    }
                }
            }
            Src::Seq { elem, data, index, len } => {
                let k = self.b.use_var(index);
                let (more, position) = if reversed {
                    let more = self.b.ins().icmp_imm(IntCC::NotEqual, k, 0);
                    (more, None)
                } else {
                    (self.b.ins().icmp(IntCC::UnsignedLessThan, k, len), Some(k))
                };
                self.continue_if(more, exit);
                let position = match position {
                    Some(k) => {
                        let next = self.b.ins().iadd_imm(k, 1);
                        self.b.def_var(index, next);
                        k
                    }
                    None => {
                        let previous = self.b.ins().iadd_imm(k, -1);
                        self.b.def_var(index, previous);
                        previous
                    }
                };
                self.element_at(elem, data, position)?
            }
            Src::Chars { data, state } => {
                let from_back = self.int_const(types::I32, i64::from(reversed));
                let f = self.helpers["lacuna_next_char"];
                let call = self.b.ins().call(f, &[data, state, from_back]);
                let c = self.b.inst_results(call)[0];
                // `char::MAX + 1`: the text is exhausted.
                let more = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, c, 0x11_0000);
                self.continue_if(more, exit);
                vec![c]
            }
            Src::Pieces { data, state, how, pat, pat_len } => {
                let f = self.helpers["lacuna_next_piece"];
                let call = self.b.ins().call(f, &[data, state, how, pat, pat_len]);
                let more = self.b.inst_results(call)[0];
                self.continue_if(more, exit);
                let start = self.b.ins().load(types::I64, MemFlags::trusted(), state, 32);
                let len = self.b.ins().load(types::I64, MemFlags::trusted(), state, 40);
                vec![self.b.ins().iadd(data, start), len]
            }
            Src::Chain { first, first_rev, second, second_rev, in_second, ty } => {
                let ts = flat(&ty);
                let merge = self.merge_block(&ts);
                let (first_block, first_done, second_block) =
                    (self.b.create_block(), self.b.create_block(), self.b.create_block());
                let on_second = self.b.use_var(in_second);
                self.b.ins().brif(on_second, second_block, &[], first_block, &[]);
                self.b.switch_to_block(first_block);
                self.b.seal_block(first_block);
                let item = self.next_item(&first, first_rev, first_done, at)?;
                self.jump_with(merge, &ts, item);
                self.b.switch_to_block(first_done);
                self.b.seal_block(first_done);
                let one = self.int_const(types::I8, 1);
                self.b.def_var(in_second, one);
                self.b.ins().jump(second_block, &[]);
                self.b.switch_to_block(second_block);
                self.b.seal_block(second_block);
                let item = self.next_item(&second, second_rev, exit, at)?;
                self.jump_with(merge, &ts, item);
                self.enter_merge(merge)
            }
        })
    }

    /// Whether the text at `data` (`len` bytes) is `literal` (at most [`SHORT_LITERAL`] bytes): the lengths, then
    /// the bytes in 8-, 4-, 2- and 1-byte loads, read only once the lengths agree.
    fn equals_literal(&mut self, data: Value, len: Value, literal: &[u8]) -> Value {
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

    /// Continues in a fresh block when `cond` holds; otherwise jumps to `otherwise`.
    fn continue_if(&mut self, cond: Value, otherwise: cranelift_codegen::ir::Block) {
        let go = self.b.create_block();
        self.b.ins().brif(cond, go, &[], otherwise, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
    }

    /// Binds a closure's parameters to values.
    fn bind_params(&mut self, c: &Closure, args: &[(&Ty, &Vals)]) {
        for (pat, (ty, values)) in c.params.iter().zip(args) {
            self.bind_pat(pat, ty, values);
        }
    }

    /// An iterator chain consumed by `sink`: the sink's value.
    fn consume(&mut self, chain: &IterChain, sink: &Sink, ty: &Ty, at: usize) -> R<Vals> {
        let item_ty = chain.item();
        let item_parts = flat(&item_ty);
        let zeros = |g: &mut Self, ts: &[Type]| -> Vec<Variable> {
            ts.iter()
                .map(|&t| {
                    let z = g.zero(t);
                    g.var(t, z)
                })
                .collect()
        };
        let set = |g: &mut Self, vars: &[Variable], values: &[Value]| {
            for (var, v) in vars.iter().zip(values) {
                g.b.def_var(*var, *v);
            }
        };
        let get = |g: &mut Self, vars: &[Variable]| -> Vals { vars.iter().map(|v| g.b.use_var(*v)).collect() };
        match sink {
            Sink::Sum { at: op_at } | Sink::Product { at: op_at } => {
                let s = ty.s();
                let t = clif(s).ok_or_else(|| CodegenError("a sum's type".into()))?;
                let is_sum = matches!(sink, Sink::Sum { .. });
                // std's float sum starts at -0.0 (so an empty sum is -0.0, and -0.0 + -0.0 stays -0.0).
                let first = match (t, is_sum) {
                    (types::F64, true) => self.b.ins().f64const(-0.0),
                    (types::F64, false) => self.b.ins().f64const(1.0),
                    (types::F32, true) => self.b.ins().f32const(-0.0),
                    (types::F32, false) => self.b.ins().f32const(1.0),
                    _ => self.int_const(t, if is_sum { 0 } else { 1 }),
                };
                let acc = self.var(t, first);
                let op = if is_sum { BinOp::Add } else { BinOp::Mul };
                self.drive(chain, at, &mut |g, item, _, _| {
                    let x = item.first().copied().ok_or_else(|| CodegenError("an item".into()))?;
                    let a = g.b.use_var(acc);
                    let v = g.binary(op, s, s, a, x, *op_at);
                    g.b.def_var(acc, v);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(acc)])
            }
            Sink::Count => {
                let zero = self.int_const(types::I64, 0);
                let n = self.var(types::I64, zero);
                self.drive(chain, at, &mut |g, _, _, _| {
                    let k = g.b.use_var(n);
                    let next = g.b.ins().iadd_imm(k, 1);
                    g.b.def_var(n, next);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(n)])
            }
            Sink::Max | Sink::Min | Sink::Last | Sink::MaxByKey(_) | Sink::MinByKey(_) => {
                let s = item_ty.s();
                let zero = self.int_const(types::I8, 0);
                let have = self.var(types::I8, zero);
                let best = zeros(self, &item_parts);
                let key_ty = match sink {
                    Sink::MaxByKey(c) | Sink::MinByKey(c) => c.body.s(),
                    // (`last` compares nothing: its key is a placeholder.)
                    Sink::Last => Scalar::Bool,
                    _ => s,
                };
                let key_t = clif(key_ty).ok_or_else(|| CodegenError("a key's type".into()))?;
                let best_key = zeros(self, &[key_t]);
                self.drive(chain, at, &mut |g, item, _, _| {
                    let key = match sink {
                        Sink::MaxByKey(c) | Sink::MinByKey(c) => {
                            g.bind_params(c, &[(&item_ty, &item)]);
                            g.one(&c.body)?
                        }
                        Sink::Last => g.int_const(types::I8, 0),
                        _ => item.first().copied().ok_or_else(|| CodegenError("an item".into()))?,
                    };
                    let had = g.b.use_var(have);
                    let current = g.b.use_var(best_key[0]);
                    // `max` keeps the last of equal maxima, `min` the first of equal minima.
                    let better = match sink {
                        Sink::Max | Sink::MaxByKey(_) => g.binary(BinOp::Ge, key_ty, key_ty, key, current, at),
                        Sink::Min | Sink::MinByKey(_) => g.binary(BinOp::Lt, key_ty, key_ty, key, current, at),
                        _ => g.int_const(types::I8, 1),
                    };
                    let first = g.b.ins().bxor_imm(had, 1);
                    let take = g.b.ins().bor(first, better);
                    for (var, &v) in best.iter().zip(&item) {
                        let old = g.b.use_var(*var);
                        let new = g.b.ins().select(take, v, old);
                        g.b.def_var(*var, new);
                    }
                    let new_key = g.b.ins().select(take, key, current);
                    g.b.def_var(best_key[0], new_key);
                    let one = g.int_const(types::I8, 1);
                    g.b.def_var(have, one);
                    Ok(())
                })?;
                let mut out = vec![self.b.use_var(have)];
                out.extend(get(self, &best));
                Ok(out)
            }
            Sink::Any(c) | Sink::All(c) => {
                let is_any = matches!(sink, Sink::Any(_));
                let init = self.int_const(types::I8, if is_any { 0 } else { 1 });
                let result = self.var(types::I8, init);
                self.drive(chain, at, &mut |g, item, _, exit| {
                    g.bind_params(c, &[(&item_ty, &item)]);
                    let holds = g.one(&c.body)?;
                    let decided = if is_any { holds } else { g.b.ins().bxor_imm(holds, 1) };
                    let decide = g.b.create_block();
                    let go = g.b.create_block();
                    g.b.ins().brif(decided, decide, &[], go, &[]);
                    g.b.switch_to_block(decide);
                    g.b.seal_block(decide);
                    let v = g.int_const(types::I8, if is_any { 1 } else { 0 });
                    g.b.def_var(result, v);
                    g.b.ins().jump(exit, &[]);
                    g.b.switch_to_block(go);
                    g.b.seal_block(go);
                    Ok(())
                })?;
                Ok(vec![self.b.use_var(result)])
            }
            Sink::Position(_) | Sink::Find(_) | Sink::Next => {
                let is_position = matches!(sink, Sink::Position(_));
                let test = match sink {
                    Sink::Position(c) | Sink::Find(c) => Some(c),
                    _ => None,
                };
                let zero = self.int_const(types::I8, 0);
                let found = self.var(types::I8, zero);
                let zero64 = self.int_const(types::I64, 0);
                let index = self.var(types::I64, zero64);
                let value = zeros(self, if is_position { &[types::I64] } else { &item_parts });
                self.drive(chain, at, &mut |g, item, _, exit| {
                    let holds = match test {
                        Some(c) => {
                            g.bind_params(c, &[(&item_ty, &item)]);
                            g.one(&c.body)?
                        }
                        // `next()`: the first item is the one.
                        None => g.int_const(types::I8, 1),
                    };
                    let hit = g.b.create_block();
                    let go = g.b.create_block();
                    g.b.ins().brif(holds, hit, &[], go, &[]);
                    g.b.switch_to_block(hit);
                    g.b.seal_block(hit);
                    let one = g.int_const(types::I8, 1);
                    g.b.def_var(found, one);
                    let i = g.b.use_var(index);
                    if is_position {
                        set(g, &value, &[i]);
                    } else {
                        set(g, &value, &item);
                    }
                    g.b.ins().jump(exit, &[]);
                    g.b.switch_to_block(go);
                    g.b.seal_block(go);
                    let i = g.b.use_var(index);
                    let next = g.b.ins().iadd_imm(i, 1);
                    g.b.def_var(index, next);
                    Ok(())
                })?;
                let mut out = vec![self.b.use_var(found)];
                out.extend(get(self, &value));
                Ok(out)
            }
            Sink::Fold { init, closure } => {
                let first = self.expr(init)?;
                let ts = flat(ty);
                let acc = zeros(self, &ts);
                let first = self.fill(first, &ts);
                set(self, &acc, &first);
                self.drive(chain, at, &mut |g, item, _, _| {
                    let current = get(g, &acc);
                    g.bind_params(closure, &[(ty, &current), (&item_ty, &item)]);
                    let next = g.expr(&closure.body)?;
                    let next = g.fill(next, &ts);
                    set(g, &acc, &next);
                    Ok(())
                })?;
                Ok(get(self, &acc))
            }
            Sink::Collect { at: op_at } if *ty == Ty::String => {
                let (slot, address) = self.new_text_slot();
                let f = self.helpers["lacuna_push_char"];
                self.drive(chain, at, &mut |g, item, _, _| {
                    let c = item.first().copied().ok_or_else(|| CodegenError("an item".into()))?;
                    let call = g.b.ins().call(f, &[g.ctx, address, c]);
                    let status = g.b.inst_results(call)[0];
                    g.helper_fault_if(status, *op_at);
                    Ok(())
                })?;
                Ok((0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect())
            }
            Sink::Collect { .. } if ty.is_set() => {
                let Ty::Map { key, .. } = ty else { return Err(CodegenError("`collect` into this type".into())) };
                let f = self.helpers["lacuna_map_new"];
                let call = self.b.ins().call(f, &[self.ctx]);
                let m = self.b.inst_results(call)[0];
                let key = (**key).clone();
                self.drive(chain, at, &mut |g, item, _, _| {
                    let zero = g.int_const(types::I64, 0);
                    let (parts, owned) = match (&key, item.as_slice()) {
                        (Ty::Str, &[data, len]) => ((data, len, zero), None),
                        (Ty::String, &[data, _, len]) => ((data, len, zero), Some(data)),
                        (Ty::Scalar(s), &[v]) => ((zero, zero, g.word_of(v, *s)), None),
                        _ => return Err(CodegenError("a set item".into())),
                    };
                    g.map_change(m, parts, None, false);
                    // A `String` item's bytes were copied into the set.
                    g.free_moved_key(owned);
                    Ok(())
                })?;
                Ok(vec![m])
            }
            Sink::Collect { at: op_at } => {
                let &Ty::Vec(elem) = ty else { return Err(CodegenError("`collect` into this type".into())) };
                let home = self.vec_new(elem, 0, *op_at)?;
                self.drive(chain, at, &mut |g, item, _, _| g.vec_push(home, elem, true, &item, *op_at))?;
                let VecHome::Vars(vars) = home else { return Err(CodegenError("a vector".into())) };
                Ok(get(self, &vars))
            }
        }
    }

    /// The index of a fixed panic message.
    fn message(&mut self, message: &str) -> usize {
        match self.messages.iter().position(|m| m == message) {
            Some(i) => i,
            None => {
                self.messages.push(message.to_owned());
                self.messages.len() - 1
            }
        }
    }

    /// A panic with a fixed message, here (the code after it is unreachable).
    fn panic_with(&mut self, message: &str, at: usize) {
        let index = self.message(message);
        let index = self.b.ins().iconst(types::I64, index as i64);
        let always = self.b.ins().iconst(types::I8, 1);
        self.fault_if_with(always, Fault::Panic, at, &[index]);
    }

    /// Methods of `Option`s of scalars, and the `Option`-valued methods of scalars.
    fn aggregate_method(&mut self, name: &str, receiver: &TExpr, args: &[TExpr], ty: &Ty, at: usize) -> R<Vals> {
        let rv = self.expr(receiver)?;
        let mut avs = Vec::new();
        for a in args {
            avs.push(self.expr(a)?);
        }
        let arg = |i: usize, part: usize| -> R<Value> {
            avs.get(i).and_then(|a| a.get(part)).copied().ok_or_else(|| CodegenError(format!("`{name}`'s argument")))
        };
        if let Ty::Option(payload_ty) = &receiver.ty {
            let (Some((&tag, payload_values)), Some(&payload)) = (rv.split_first(), rv.get(1)) else {
                return Err(CodegenError("an `Option` without parts".into()));
            };
            return Ok(match name {
                "unwrap" => {
                    let none = self.b.ins().icmp_imm(IntCC::Equal, tag, 0);
                    self.fault_if(none, Fault::UnwrapNone, at);
                    payload_values.to_vec()
                }
                "unwrap_or" => {
                    let mut chosen = Vec::new();
                    for (part, &v) in payload_values.iter().enumerate() {
                        chosen.push(self.b.ins().select(tag, v, arg(0, part)?));
                    }
                    chosen
                }
                "unwrap_or_default" => {
                    let t = clif(payload_ty.s()).ok_or_else(|| CodegenError("an `Option` of nothing".into()))?;
                    let zero = self.zero(t);
                    vec![self.b.ins().select(tag, payload, zero)]
                }
                "is_some" => vec![tag],
                "is_none" => vec![self.b.ins().bxor_imm(tag, 1)],
                "or" => {
                    let (other_tag, other) = (arg(0, 0)?, arg(0, 1)?);
                    vec![self.b.ins().select(tag, tag, other_tag), self.b.ins().select(tag, payload, other)]
                }
                "xor" => {
                    // Some when exactly one is: that one.
                    let (other_tag, other) = (arg(0, 0)?, arg(0, 1)?);
                    let one = self.b.ins().bxor(tag, other_tag);
                    vec![one, self.b.ins().select(tag, payload, other)]
                }
                _ => return Err(CodegenError(format!("the `Option` method `{name}`"))),
            });
        }
        let s = receiver.s();
        let x = rv.first().copied().ok_or_else(|| CodegenError("a receiver".into()))?;
        let t = clif(s).ok_or_else(|| CodegenError("a receiver type".into()))?;
        Ok(match name {
            "checked_add" | "checked_sub" | "checked_mul" => {
                let y = arg(0, 0)?;
                let (v, over) = match (name, s.is_signed()) {
                    ("checked_add", true) => self.b.ins().sadd_overflow(x, y),
                    ("checked_add", false) => self.b.ins().uadd_overflow(x, y),
                    ("checked_sub", true) => self.b.ins().ssub_overflow(x, y),
                    ("checked_sub", false) => self.b.ins().usub_overflow(x, y),
                    (_, true) => self.b.ins().smul_overflow(x, y),
                    (_, false) => self.b.ins().umul_overflow(x, y),
                };
                let ok = self.b.ins().bxor_imm(over, 1);
                vec![ok, v]
            }
            "checked_div" | "checked_rem" => {
                // None for a zero divisor and for MIN / -1; the division itself runs on a safe divisor.
                let y = arg(0, 0)?;
                let zero = self.b.ins().icmp_imm(IntCC::Equal, y, 0);
                let mut bad = zero;
                if s.is_signed() {
                    let bits = s.int_bits().unwrap_or(64);
                    let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                    let is_min = self.b.ins().icmp_imm(IntCC::Equal, x, min);
                    let minus_one = self.b.ins().icmp_imm(IntCC::Equal, y, -1);
                    let both = self.b.ins().band(is_min, minus_one);
                    bad = self.b.ins().bor(zero, both);
                }
                let one = self.b.ins().iconst(t, 1);
                let safe = self.b.ins().select(bad, one, y);
                let v = match (name, s.is_signed()) {
                    ("checked_div", true) => self.b.ins().sdiv(x, safe),
                    ("checked_div", false) => self.b.ins().udiv(x, safe),
                    (_, true) => self.b.ins().srem(x, safe),
                    (_, false) => self.b.ins().urem(x, safe),
                };
                let ok = self.b.ins().bxor_imm(bad, 1);
                vec![ok, v]
            }
            "to_digit" => {
                // core's `char::to_digit` for a radix the lowering proved to be a literal in 2..=36.
                let radix = arg(0, 0)?;
                let zero_char = self.b.ins().iadd_imm(x, -('0' as i64));
                let is_dec = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, zero_char, 10);
                let lower = self.b.ins().bor_imm(x, 0x20);
                let from_a = self.b.ins().iadd_imm(lower, -('a' as i64));
                // saturating_add(10): values near u32::MAX stay invalid either way.
                let from_a_ten = self.b.ins().iadd_imm(from_a, 10);
                let wrapped = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThan, from_a, (u32::MAX - 10) as i64);
                let max = self.b.ins().iconst(types::I32, u32::MAX as i64);
                let letter_digit = self.b.ins().select(wrapped, max, from_a_ten);
                let big_radix = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThan, radix, 10);
                let not_dec = self.b.ins().bxor_imm(is_dec, 1);
                let use_letter = self.b.ins().band(big_radix, not_dec);
                let digit = self.b.ins().select(use_letter, letter_digit, zero_char);
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, digit, radix);
                vec![ok, digit]
            }
            _ => return Err(CodegenError(format!("the method `{name}` giving `{}`", ty.name()))),
        })
    }

    /// `Option` methods taking a closure written in place: the closure's body runs here, at most once.
    fn option_closure(
        &mut self,
        method: &str,
        receiver: &TExpr,
        param: Option<&TPat>,
        body: &TExpr,
        ty: &Ty,
    ) -> R<Vals> {
        let rv = self.expr(receiver)?;
        let Ty::Option(payload_ty) = &receiver.ty else {
            return Err(CodegenError("a closure method of something other than an `Option`".into()));
        };
        let Some((&tag, payload)) = rv.split_first() else {
            return Err(CodegenError("an `Option` without parts".into()));
        };
        let ts = flat(ty);
        let merge = self.merge_block(&ts);
        let some_block = self.b.create_block();
        let none_block = self.b.create_block();
        self.b.ins().brif(tag, some_block, &[], none_block, &[]);
        // The closure's parameter, bound to the payload (or nothing, for `unwrap_or_else`).
        let run_body = |g: &mut Self| -> R<Vals> {
            if let Some(p) = param {
                g.bind_pat(p, payload_ty, payload);
            }
            g.expr(body)
        };
        self.b.switch_to_block(some_block);
        self.b.seal_block(some_block);
        let when_some: Vals = match method {
            "map" => {
                let v = run_body(self)?;
                let one = self.b.ins().iconst(types::I8, 1);
                std::iter::once(one).chain(v).collect()
            }
            "and_then" | "is_some_and" | "is_none_or" => run_body(self)?,
            "filter" => {
                let keep = run_body(self)?;
                let keep = keep.first().copied().ok_or_else(|| CodegenError("a filter's result".into()))?;
                std::iter::once(keep).chain(payload.iter().copied()).collect()
            }
            "unwrap_or_else" => payload.to_vec(),
            _ => return Err(CodegenError(format!("the `Option` method `{method}`"))),
        };
        self.jump_with(merge, &ts, when_some);
        self.b.switch_to_block(none_block);
        self.b.seal_block(none_block);
        let when_none: Vals = match method {
            "unwrap_or_else" => self.expr(body)?,
            "is_none_or" => vec![self.b.ins().iconst(types::I8, 1)],
            "is_some_and" => vec![self.b.ins().iconst(types::I8, 0)],
            // `None` (its payload is filled with zeros).
            _ => vec![self.b.ins().iconst(types::I8, 0)],
        };
        let when_none = if when_none.len() == 1 && ts.len() >= 2 {
            let zeros: Vals = ts[1..].iter().map(|&t| self.zero(t)).collect();
            std::iter::once(when_none[0]).chain(zeros).collect()
        } else {
            when_none
        };
        self.jump_with(merge, &ts, when_none);
        Ok(self.enter_merge(merge))
    }

    /// The body of a `while` or `loop` whose header (`next`) is the current loop head: then back to the header,
    /// and on at the exit.
    fn loop_body(&mut self, ctx: LoopCtx, body: &TBlock) -> R<()> {
        let (header, exit) = (ctx.next, ctx.exit);
        self.loops.push(ctx);
        self.block(body)?;
        self.loops.pop();
        self.b.ins().jump(header, &[]);
        self.b.seal_block(header);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    fn find_loop(&self, label: &Option<String>) -> R<usize> {
        match label {
            None => self.loops.iter().rposition(|c| !c.is_block),
            Some(l) => self.loops.iter().rposition(|c| c.label.as_ref() == Some(l)),
        }
        .ok_or_else(|| CodegenError("`break` or `continue` without its loop".into()))
    }

    fn jump_with(&mut self, target: cranelift_codegen::ir::Block, ts: &[Type], values: Vals) {
        let values = self.fill(values, ts);
        let args: Vec<BlockArg> = values.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(target, &args);
    }

    /// A block where branches meet with values of types `ts`.
    fn merge_block(&mut self, ts: &[Type]) -> cranelift_codegen::ir::Block {
        let merge = self.b.create_block();
        for &t in ts {
            self.b.append_block_param(merge, t);
        }
        merge
    }

    /// Continues at `merge` (every branch into it emitted): its values.
    fn enter_merge(&mut self, merge: cranelift_codegen::ir::Block) -> Vals {
        self.b.switch_to_block(merge);
        self.b.seal_block(merge);
        self.b.block_params(merge).to_vec()
    }

    fn lit(&mut self, lit: &Lit, ty: Scalar, negate: bool) -> Option<Value> {
        let t = clif(ty)?;
        Some(match lit {
            Lit::Int(v) if ty.is_float() => {
                let f = if negate { -(*v as f64) } else { *v as f64 };
                if ty == Scalar::F32 {
                    self.b.ins().f32const(f as f32)
                } else {
                    self.b.ins().f64const(f)
                }
            }
            Lit::Int(v) => {
                let v = if negate { (*v as i128).wrapping_neg() } else { *v as i128 };
                self.b.ins().iconst(t, v as i64)
            }
            Lit::Float(f) => {
                let f = if negate { -f } else { *f };
                if ty == Scalar::F32 {
                    self.b.ins().f32const(f as f32)
                } else {
                    self.b.ins().f64const(f)
                }
            }
            Lit::Bool(b) => self.b.ins().iconst(types::I8, *b as i64),
            Lit::Char(c) => self.b.ins().iconst(types::I32, *c as u32 as i64),
            Lit::Unit | Lit::Str(_) => return None,
        })
    }

    /// A sequence binding's buffer pointer and length.
    fn seq_parts(&mut self, seq: &Seq) -> R<(Value, Value)> {
        if seq.kind == SeqKind::Local {
            let home = self.vec_home(seq)?;
            return Ok((self.vec_get(&home, VecField::Ptr)?, self.vec_get(&home, VecField::Len)?));
        }
        let base = self.binding_ptr(seq.binding);
        let vec = |g: &mut Self, vec: Value| -> R<(Value, Value)> {
            let (ptr_at, len_at) =
                g.vec_fields.ok_or_else(|| CodegenError("the host's `Vec` layout is unknown".into()))?;
            let data = g.b.ins().load(types::I64, MemFlags::trusted(), vec, ptr_at);
            let len = g.b.ins().load(types::I64, MemFlags::trusted(), vec, len_at);
            Ok((data, len))
        };
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
            SeqKind::Local => Err(CodegenError("a snippet's vector".into())),
        }
    }

    /// Byte offsets of a `Vec`'s buffer pointer, capacity and length in the host's std (the capacity is the word
    /// the probe did not name).
    fn vec_offsets(&self) -> R<[i32; 3]> {
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
    fn vec_home(&mut self, seq: &Seq) -> R<VecHome> {
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
            SeqKind::Slice => return Err(CodegenError("a slice's length cannot change".into())),
        })
    }

    fn vec_get(&mut self, home: &VecHome, field: VecField) -> R<Value> {
        Ok(match home {
            VecHome::Vars(vars) => self.b.use_var(vars[field as usize]),
            VecHome::Mem(base) => {
                let at = self.vec_offsets()?[field as usize];
                self.b.ins().load(types::I64, MemFlags::trusted(), *base, at)
            }
        })
    }

    fn vec_set(&mut self, home: &VecHome, field: VecField, v: Value) -> R<()> {
        match home {
            VecHome::Vars(vars) => self.b.def_var(vars[field as usize], v),
            VecHome::Mem(base) => {
                let at = self.vec_offsets()?[field as usize];
                self.b.ins().store(MemFlags::trusted(), v, *base, at);
            }
        }
        Ok(())
    }

    /// After a helper call that records its fault in the context: return the fault when `failed` is non-zero.
    fn helper_fault_if(&mut self, failed: Value, at: usize) {
        let fault_block = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(failed, fault_block, &[], cont, &[]);
        self.b.switch_to_block(fault_block);
        self.b.seal_block(fault_block);
        let at = self.b.ins().iconst(types::I32, at.min(u32::MAX as usize) as i64);
        self.b.ins().store(MemFlags::trusted(), at, self.ctx, FAULT_AT_OFFSET);
        self.return_fault();
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// A buffer for `cap` elements of `(size, align)` grown from `ptr` (capacity `old_cap`) through the host's
    /// allocator.
    fn vec_grow(
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
        let f = self.helpers["lacuna_vec_grow"];
        let call = self.b.ins().call(f, &[self.ctx, ptr, old_cap, cap, size, align, owned]);
        let new = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, new, 0);
        self.helper_fault_if(failed, at);
        new
    }

    /// A string literal: its bytes, kept with the compiled code.
    fn str_literal(&mut self, text: &str) -> Vals {
        let len = self.int_const(types::I64, text.len() as i64);
        if text.is_empty() {
            return vec![self.int_const(types::I64, 1), len];
        }
        let bytes: Box<[u8]> = text.as_bytes().into();
        let ptr = self.int_const(types::I64, bytes.as_ptr() as i64);
        self.data.push(bytes);
        vec![ptr, len]
    }

    /// The pointer and length of text: a `&str` value, or a `String`'s (pointer, capacity, length).
    fn text_parts(&mut self, e: &TExpr) -> R<(Value, Value)> {
        let values = self.expr(e)?;
        match (&e.ty, values.as_slice()) {
            (Ty::Str, [data, len]) | (Ty::String, [data, _, len]) => Ok((*data, *len)),
            _ => Err(CodegenError("text".into())),
        }
    }

    /// A new buffer the snippet owns holding a copy of `len` elements at `data` (capacity = length).
    fn owned_copy(&mut self, data: Value, len: Value, t: Type, at: usize) -> R<Vals> {
        let align = self.int_const(types::I64, i64::from(t.bytes()));
        let zero = self.int_const(types::I64, 0);
        let vars = [self.var(types::I64, align), self.var(types::I64, zero), self.var(types::I64, zero)];
        let copy = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(len, copy, &[], done, &[]);
        self.b.switch_to_block(copy);
        self.b.seal_block(copy);
        let ptr = self.vec_grow(align, zero, len, (t.bytes(), t.bytes()), true, at);
        let bytes = self.b.ins().imul_imm(len, i64::from(t.bytes()));
        let f = self.helpers["lacuna_copy"];
        self.b.ins().call(f, &[ptr, data, bytes]);
        self.b.def_var(vars[0], ptr);
        self.b.def_var(vars[1], len);
        self.b.def_var(vars[2], len);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        Ok(vars.iter().map(|v| self.b.use_var(*v)).collect())
    }

    /// A `String`'s (pointer, capacity, length) and whether the snippet owns it, copied to a stack slot for the
    /// text helpers (`text::TextSlot`): its address.
    fn text_slot(&mut self, home: &VecHome, owned: bool) -> R<Value> {
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
    fn text_unslot(&mut self, slot: Value, home: &VecHome) -> R<()> {
        for (i, field) in [VecField::Ptr, VecField::Cap, VecField::Len].into_iter().enumerate() {
            let v = self.b.ins().load(types::I64, MemFlags::trusted(), slot, (i * 8) as i32);
            self.vec_set(home, field, v)?;
        }
        Ok(())
    }

    /// Appends text or a `char` to the `String` at `slot` (a growing buffer the snippet or the host owns: a host
    /// `String` grows through the same allocator, which is why `push_str` on one is fine).
    fn append_text(&mut self, slot: Value, value: &TExpr, at: usize) -> R<()> {
        // `s.push_str(&format!(..))`, `s += &x.to_string()`: the arguments evaluated first, as for the temporary
        // `String`, then formatted straight into `s` (no temporary to allocate and keep).
        if let TKind::TextMethod { name, receiver, .. } = &value.kind {
            if let (true, TKind::Format(pieces)) = (name == "as_str", &receiver.kind) {
                let args = self.format_args(pieces, receiver.range.start)?;
                self.append_formatted(slot, args);
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
                let f = g.helpers["lacuna_push_char"];
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
                    let f = g.helpers["lacuna_push_str"];
                    (g.b.ins().iadd_imm(len, bytes.len() as i64), f, vec![g.ctx, slot, data, n])
                });
            }
        }
        let status = {
            let (data, len) = self.text_parts(value)?;
            let f = self.helpers["lacuna_push_str"];
            let call = self.b.ins().call(f, &[self.ctx, slot, data, len]);
            self.b.inst_results(call)[0]
        };
        self.helper_fault_if(status, at);
        Ok(())
    }

    /// The pointer, capacity and length of the `String` in a text slot.
    fn text_slot_parts(&mut self, slot: Value) -> (Value, Value, Value) {
        let [ptr, cap, len] = [0, 8, 16].map(|offset| self.b.ins().load(types::I64, MemFlags::trusted(), slot, offset));
        (ptr, cap, len)
    }

    /// An append with a fast path: where `fast` holds, `store` writes the bytes in place and gives the new length
    /// (and the helper doing the same, with its arguments, for the other case), which the slot then records.
    fn append_in_place(
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
    fn new_text_slot(&mut self) -> (StackSlot, Value) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 3));
        let one = self.int_const(types::I64, 1);
        let zero = self.int_const(types::I64, 0);
        for (i, v) in [one, zero, zero, one].into_iter().enumerate() {
            self.b.ins().stack_store(v, slot, (i * 8) as i32);
        }
        (slot, self.b.ins().stack_addr(types::I64, slot, 0))
    }

    /// The pieces of a format string appended, in order, to a new `String` in a stack slot.
    fn format_into(&mut self, pieces: &[lacuna_checker::typed::FmtPiece], at: usize) -> R<(StackSlot, Value)> {
        let (slot, address) = self.new_text_slot();
        let args = self.format_args(pieces, at)?;
        self.append_formatted(address, args);
        Ok((slot, address))
    }

    /// Each piece of a format string evaluated, in order (what `format_args!` does before anything is written):
    /// the helper's kind, value words, spec and fault position for each.
    fn format_args(&mut self, pieces: &[lacuna_checker::typed::FmtPiece], at: usize) -> R<Vec<FmtArg>> {
        use crate::text::{KIND_BOOL, KIND_CHAR, KIND_FLOAT, KIND_SIGNED, KIND_STR, KIND_UNSIGNED};
        use lacuna_checker::typed::{FmtPiece, FmtSpec};
        let mut out = Vec::new();
        for piece in pieces {
            out.push(match piece {
                FmtPiece::Lit(text) => {
                    let parts = self.str_literal(text);
                    (KIND_STR, parts[0], parts[1], FmtSpec::default(), at, None)
                }
                FmtPiece::Arg { value, spec } => {
                    let zero = self.int_const(types::I64, 0);
                    match &value.ty {
                        Ty::Str | Ty::String => {
                            let (data, len) = self.text_parts(value)?;
                            (KIND_STR, data, len, *spec, value.range.start, None)
                        }
                        Ty::Struct(id) | Ty::StructRef(id) => {
                            // The host formats it (its shim makes a `String`, appended as text, then freed).
                            let address = self.one(value)?;
                            let debug = spec.trait_ == lacuna_checker::typed::FmtTrait::Debug;
                            let [data, _, len] =
                                self.struct_text(*id, address, debug, spec.alternate, value.range.start)?;
                            (KIND_STR, data, len, FmtSpec::default(), value.range.start, Some(data))
                        }
                        Ty::Scalar(s) => {
                            let v = self.one(value)?;
                            let t = clif(*s).ok_or_else(|| CodegenError("a formatted value".into()))?;
                            let bits = t.bits();
                            let (kind, word) = if s.is_float() {
                                let as_int = self.b.ins().bitcast(
                                    if bits == 32 { types::I32 } else { types::I64 },
                                    MemFlags::new(),
                                    v,
                                );
                                let word = if bits == 32 { self.b.ins().uextend(types::I64, as_int) } else { as_int };
                                (KIND_FLOAT | bits << 8, word)
                            } else {
                                let kind = match s {
                                    Scalar::Bool => KIND_BOOL,
                                    Scalar::Char => KIND_CHAR,
                                    s if s.is_signed() => KIND_SIGNED | bits << 8,
                                    _ => KIND_UNSIGNED | bits << 8,
                                };
                                let word = match bits {
                                    64 => v,
                                    _ if s.is_signed() => self.b.ins().sextend(types::I64, v),
                                    _ => self.b.ins().uextend(types::I64, v),
                                };
                                (kind, word)
                            };
                            (kind, word, zero, *spec, value.range.start, None)
                        }
                        other => return Err(CodegenError(format!("formatting a `{}`", other.name()))),
                    }
                }
            });
        }
        Ok(out)
    }

    /// Appends evaluated format pieces to the `String` at `address` (a `text::TextSlot`).
    fn append_formatted(&mut self, address: Value, args: Vec<FmtArg>) {
        let mut temporaries = Vec::new();
        for (kind, a, b, spec, at, temporary) in args {
            temporaries.extend(temporary);
            let raw = Box::new(crate::text::RawSpec::new(&spec));
            let spec_ptr = self.int_const(types::I64, &*raw as *const crate::text::RawSpec as i64);
            self.specs.push(raw);
            let kind = self.int_const(types::I32, i64::from(kind));
            let f = self.helpers["lacuna_fmt"];
            let call = self.b.ins().call(f, &[self.ctx, address, kind, a, b, spec_ptr]);
            let status = self.b.inst_results(call)[0];
            self.helper_fault_if(status, at);
        }
        let free = self.helpers["lacuna_vec_free"];
        for t in temporaries {
            self.b.ins().call(free, &[self.ctx, t]);
        }
    }

    /// Calls a host enum's `__lacuna_variant_*` (`field`: false) or `__lacuna_field_*` shim; `None` (noted in
    /// `missing`, which fails the compilation) when the host does not export it.
    fn enum_call(&mut self, adt: usize, field: bool, args: &[Value]) -> Option<Value> {
        let Some(&(variant_fn, field_fn)) = self.enum_fns.get(&adt) else {
            self.missing.get_or_insert_with(|| "a host enum without shims".to_owned());
            return None;
        };
        let ret = if field { self.b.func.dfg.value_type(self.ctx) } else { types::I32 };
        Some(self.call_address(if field { field_fn } else { variant_fn }, args, ret))
    }

    /// Calls the host library's function at `address` with `args` (its parameters their types) and a result of
    /// type `ret`.
    fn call_address(&mut self, address: usize, args: &[Value], ret: Type) -> Value {
        let mut sig = cranelift_codegen::ir::Signature::new(self.b.func.signature.call_conv);
        for &a in args {
            sig.params.push(AbiParam::new(self.b.func.dfg.value_type(a)));
        }
        sig.returns.push(AbiParam::new(ret));
        let sig = self.b.import_signature(sig);
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let callee = self.int_const(ptr, address as i64);
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call)[0]
    }

    /// Where the snippet's map local `map` keeps its map.
    fn map_address(&mut self, map: usize) -> R<Value> {
        let ty = self.snippet.locals[map].ty.clone();
        self.read(LocalRef::Snippet(map), &ty).first().copied().ok_or_else(|| CodegenError("a map not yet made".into()))
    }

    /// A map key's arguments to the map helpers: text as (pointer, length), a scalar as its bits; and the buffer of
    /// a `String` key moved into the map (the map keeps a copy of its bytes), to free after the call.
    fn map_key_parts(&mut self, key: &TExpr) -> R<(Value, Value, Value, Option<Value>)> {
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

    fn free_moved_key(&mut self, owned: Option<Value>) {
        if let Some(ptr) = owned {
            let free = self.helpers["lacuna_vec_free"];
            self.b.ins().call(free, &[self.ctx, ptr]);
        }
    }

    /// A scalar's bits, zero-extended to a word (how maps keep keys and values).
    fn word_of(&mut self, v: Value, s: Scalar) -> Value {
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
    /// and the stack slot holding its old value.
    fn map_change(
        &mut self,
        m: Value,
        key: (Value, Value, Value),
        value: Option<Value>,
        remove: bool,
    ) -> (Value, StackSlot) {
        let (data, len, word) = key;
        let value = value.unwrap_or_else(|| self.int_const(types::I64, 0));
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let zero = self.int_const(types::I64, 0);
        self.b.ins().stack_store(zero, slot, 0);
        let old = self.b.ins().stack_addr(types::I64, slot, 0);
        let remove = self.int_const(types::I32, i64::from(remove));
        let f = self.helpers["lacuna_map_change"];
        let call = self.b.ins().call(f, &[m, data, len, word, value, remove, old]);
        (self.b.inst_results(call)[0], slot)
    }

    /// `m.len()`, `m.get(k)`, `m[k]`, `m.insert(k, v)`, .. of the snippet's map local `map` ([`TKind::MapMethod`]).
    fn map_method(&mut self, map: usize, name: &str, args: &[TExpr], ty: &Ty, at: usize) -> R<Vals> {
        let map_ty = self.snippet.locals[map].ty.clone();
        let Ty::Map { value: vt, .. } = map_ty else {
            return Err(CodegenError("a method of something other than a map".into()));
        };
        let m = self.map_address(map)?;
        if matches!(name, "len" | "is_empty") {
            let f = self.helpers["lacuna_map_len"];
            let call = self.b.ins().call(f, &[m]);
            let len = self.b.inst_results(call)[0];
            return Ok(vec![if name == "len" { len } else { self.b.ins().icmp_imm(IntCC::Equal, len, 0) }]);
        }
        let key = args.first().ok_or_else(|| CodegenError(format!("`{name}` without a key")))?;
        let (data, len, word, owned) = self.map_key_parts(key)?;
        // A set's values are `()`: no type to read, and nothing of them is read.
        let t = clif(vt).ok_or_else(|| CodegenError("a map value".into()));
        match name {
            "insert" | "remove" => {
                let value = match args.get(1) {
                    Some(v) => {
                        let v = self.one(v)?;
                        Some(self.word_of(v, vt))
                    }
                    None => None,
                };
                let (had, slot) = self.map_change(m, (data, len, word), value, name == "remove");
                self.free_moved_key(owned);
                if map_ty.is_set() {
                    // `insert` says whether the key is new; `remove` whether it was there.
                    return Ok(vec![if name == "insert" { self.b.ins().bxor_imm(had, 1) } else { had }]);
                }
                if *ty == Ty::Scalar(Scalar::Unit) {
                    return Ok(Vec::new());
                }
                let previous = self.b.ins().stack_load(t?, slot, 0);
                Ok(vec![had, previous])
            }
            "get" | "contains_key" | "contains" | "index" => {
                let f = self.helpers["lacuna_map_find"];
                let call = self.b.ins().call(f, &[m, data, len, word]);
                let found = self.b.inst_results(call)[0];
                let absent = self.b.ins().icmp_imm(IntCC::Equal, found, 0);
                if matches!(name, "contains_key" | "contains") {
                    return Ok(vec![self.b.ins().bxor_imm(absent, 1)]);
                }
                let t = t?;
                if name == "index" {
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
            other => Err(CodegenError(format!("the map method `{other}`"))),
        }
    }

    /// The layout and shims the host exports for struct `id`.
    fn shims_of(&self, id: usize) -> R<StructShims> {
        self.shims.get(&id).copied().ok_or_else(|| CodegenError("a host struct without shims".into()))
    }

    /// Calls a host struct's shim (`instrument::ENTRY_POINTS`): `(run, args..) -> status`, under the host library's
    /// `run_snippet`; a panic in it is a [`Fault::HostPanic`] at `at`.
    fn call_shim(&mut self, shim: usize, what: &str, args: &[Value], at: usize) -> R<()> {
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
        Ok(())
    }

    /// `x.clone()` of the host struct at `source`: a new box the run owns.
    fn struct_clone(&mut self, id: usize, source: Value, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let boxed = self.struct_alloc(shims, at);
        self.call_shim(shims.clone, "`Clone`", &[boxed, source], at)?;
        self.struct_ready(shims, boxed);
        Ok(boxed)
    }

    /// A new box for a host struct, its value not written yet (a fault before [`Self::struct_ready`] frees it
    /// without dropping it).
    fn struct_alloc(&mut self, shims: StructShims, at: usize) -> Value {
        let size = self.int_const(types::I64, shims.size as i64);
        let align = self.int_const(types::I64, shims.align as i64);
        let alloc = self.helpers["lacuna_struct_alloc"];
        let call = self.b.ins().call(alloc, &[self.ctx, size, align]);
        let boxed = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, boxed, 0);
        self.helper_fault_if(failed, at);
        boxed
    }

    /// The struct in the box is complete: dropping the box drops it.
    fn struct_ready(&mut self, shims: StructShims, boxed: Value) {
        let drop = self.int_const(types::I64, shims.drop as i64);
        let ready = self.helpers["lacuna_struct_ready"];
        self.b.ins().call(ready, &[self.ctx, boxed, drop]);
    }

    /// `a == b` of two host structs (at `a` and `b`): a `bool`.
    fn struct_eq(&mut self, id: usize, a: Value, b: Value, at: usize) -> R<Value> {
        let shims = self.shims_of(id)?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let out = self.b.ins().stack_addr(ptr, slot, 0);
        self.call_shim(shims.eq, "`PartialEq`", &[out, a, b], at)?;
        Ok(self.b.ins().stack_load(types::I8, slot, 0))
    }

    /// The host struct at `address` formatted by its `Display` (or `Debug`) into a new `String` the run owns:
    /// its pointer, capacity and length.
    fn struct_text(&mut self, id: usize, address: Value, debug: bool, alternate: bool, at: usize) -> R<[Value; 3]> {
        let shims = self.shims_of(id)?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 3));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let out = self.b.ins().stack_addr(ptr, slot, 0);
        let alternate = self.int_const(types::I32, i64::from(alternate));
        let (shim, what) = if debug { (shims.debug, "`Debug`") } else { (shims.display, "`Display`") };
        self.call_shim(shim, what, &[out, address, alternate], at)?;
        let parts: Vec<Value> = (0..3).map(|i| self.b.ins().stack_load(types::I64, slot, i * 8)).collect();
        let adopt = self.helpers["lacuna_vec_adopt"];
        self.b.ins().call(adopt, &[self.ctx, parts[0], parts[1]]);
        Ok([parts[0], parts[1], parts[2]])
    }

    /// A new vector of the snippet's own, in fresh variables: empty, or allocated to hold `n` elements.
    fn vec_new(&mut self, elem: Elem, n: usize, at: usize) -> R<VecHome> {
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

    /// `v.push(x)`: grows the buffer as `Vec` does (double, at least 4 elements, 8 for bytes) when it is full.
    fn vec_push(&mut self, home: VecHome, elem: Elem, owned: bool, x: &[Value], at: usize) -> R<()> {
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
        let address = self.b.ins().iadd(ptr, offset);
        self.elem_write(elem, address, x)?;
        let len = self.b.ins().iadd_imm(len, 1);
        self.vec_set(&home, VecField::Len, len)
    }

    /// `v.retain(|x| keep)`: the elements kept moved down in order, the closure called once on each, in order.
    fn retain(&mut self, seq: &Seq, closure: &Closure, at: usize) -> R<()> {
        let (data, len) = self.seq_parts(seq)?;
        let item_ty = seq.elem.read_ty();
        let zero = self.int_const(types::I64, 0);
        let kept = self.var(types::I64, zero);
        self.each_index(len, |g, i| {
            g.tick(at);
            let item = g.element_at(seq.elem, data, i)?;
            g.bind_params(closure, &[(&item_ty, &item)]);
            let keeps = g.one(&closure.body)?;
            let keep = g.b.create_block();
            let next = g.b.create_block();
            g.b.ins().brif(keeps, keep, &[], next, &[]);
            g.b.switch_to_block(keep);
            g.b.seal_block(keep);
            let w = g.b.use_var(kept);
            let to = g.element_address(seq.elem, data, w)?;
            g.elem_write(seq.elem, to, &item)?;
            let w = g.b.ins().iadd_imm(w, 1);
            g.b.def_var(kept, w);
            g.b.ins().jump(next, &[]);
            g.b.switch_to_block(next);
            g.b.seal_block(next);
            Ok(())
        })?;
        let home = self.vec_home(seq)?;
        let w = self.b.use_var(kept);
        self.vec_set(&home, VecField::Len, w)
    }

    /// A stable sort by the scalar key `closure` computes from each element (`descending`: largest first, equal
    /// keys still in their order): the keys, each mapped to a `u64` that orders as it does, into a buffer; then
    /// `lacuna_keyed_sort` moves the elements. Fewer than two elements: nothing runs (std's sorts call nothing).
    fn sort_by_key(&mut self, seq: &Seq, closure: &Closure, descending: bool, at: usize) -> R<()> {
        let (data, len) = self.seq_parts(seq)?;
        let size = self.elem_layout(seq.elem)?.0;
        let key = closure.body.s();
        let t = clif(key).ok_or_else(|| CodegenError("a sort key's type".into()))?;
        let item_ty = seq.elem.read_ty();
        let sort = self.b.create_block();
        let exit = self.b.create_block();
        let several = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThanOrEqual, len, 2);
        self.b.ins().brif(several, sort, &[], exit, &[]);
        self.b.switch_to_block(sort);
        self.b.seal_block(sort);
        let dangling = self.int_const(types::I64, 8);
        let zero = self.int_const(types::I64, 0);
        let keys = self.vec_grow(dangling, zero, len, (8, 8), true, at);
        self.each_index(len, |g, i| {
            g.tick(at);
            let item = g.element_at(seq.elem, data, i)?;
            g.bind_params(closure, &[(&item_ty, &item)]);
            let k = g.one(&closure.body)?;
            let k = g.resize(k, t, types::I64, key.is_signed());
            // Signed keys with the sign bit flipped order as unsigned ones; a descending sort orders the
            // complements.
            let k = if key.is_signed() { g.b.ins().bxor_imm(k, i64::MIN) } else { k };
            let k = if descending { g.b.ins().bnot(k) } else { k };
            let offset = g.b.ins().ishl_imm(i, 3);
            let slot = g.b.ins().iadd(keys, offset);
            g.b.ins().store(MemFlags::trusted(), k, slot, 0);
            Ok(())
        })?;
        let size = self.int_const(types::I64, i64::from(size));
        let f = self.helpers["lacuna_keyed_sort"];
        self.b.ins().call(f, &[data, len, size, keys]);
        let free = self.helpers["lacuna_vec_free"];
        self.b.ins().call(free, &[self.ctx, keys]);
        self.b.ins().jump(exit, &[]);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// `join(separator)` of the `len` strings at `data`: a new `String`.
    fn join(&mut self, elem: Elem, data: Value, len: Value, separator: &[Value], at: usize) -> R<Vals> {
        let &[sep_ptr, sep_len] = separator else { return Err(CodegenError("a separator".into())) };
        let (slot, out) = self.new_text_slot();
        let push = self.helpers["lacuna_push_str"];
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

    /// An element's size and alignment in bytes (a `String` is three words).
    fn elem_layout(&self, elem: Elem) -> R<(u32, u32)> {
        match elem {
            Elem::Scalar(s) => {
                let t = clif(s).ok_or_else(|| CodegenError("an element type".into()))?;
                Ok((t.bytes(), t.bytes()))
            }
            Elem::String => Ok((24, 8)),
            Elem::Str => Ok((16, 8)),
            // (Only the size is used: host structs are read in place, never allocated.)
            Elem::Struct(id) => {
                let size = self.snippet.structs.get(id).and_then(|symbol| self.statics.get(symbol));
                let size = size.ok_or_else(|| CodegenError("a host struct's size".into()))?;
                Ok((*size as u32, 8))
            }
        }
    }

    /// An element read in place at `address`: a scalar's value, or a `String`'s text (pointer, length).
    fn elem_read(&mut self, elem: Elem, address: Value) -> R<Vals> {
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
        })
    }

    /// The text of the `String` at `address` (in the host's layout): its pointer and length.
    fn text_at(&mut self, address: Value) -> R<Vals> {
        let [ptr_at, _, len_at] = self.vec_offsets()?;
        let ptr = self.b.ins().load(types::I64, MemFlags::trusted(), address, ptr_at);
        let len = self.b.ins().load(types::I64, MemFlags::trusted(), address, len_at);
        Ok(vec![ptr, len])
    }

    /// An owned element written at `address`: a scalar, or a `String` (pointer, capacity, length) in the host's
    /// layout.
    fn elem_write(&mut self, elem: Elem, address: Value, value: &[Value]) -> R<()> {
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
            _ => return Err(CodegenError("an element of this type".into())),
        }
        Ok(())
    }

    /// Methods of a sequence binding that allocate nothing ([`TKind::SeqMethod`]).
    fn seq_method(&mut self, seq: &Seq, name: &str, args: &[TExpr], at: usize) -> R<Vals> {
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a)?);
        }
        if name == "push" {
            let home = self.vec_home(seq)?;
            let value = values.first().ok_or_else(|| CodegenError("`push` without a value".into()))?;
            self.vec_push(home, seq.elem, seq.kind == SeqKind::Local, value, at)?;
            return Ok(Vec::new());
        }
        let (data, len) = self.seq_parts(seq)?;
        if name == "is_empty" {
            return Ok(vec![self.b.ins().icmp_imm(IntCC::Equal, len, 0)]);
        }
        if name == "join" {
            let separator = values.first().ok_or_else(|| CodegenError("`join` without a separator".into()))?;
            return self.join(seq.elem, data, len, separator, at);
        }
        match (seq.elem, name) {
            (Elem::String, "sort" | "sort_unstable") => {
                let [ptr_at, _, len_at] = self.vec_offsets()?;
                let (ptr_at, len_at) =
                    (self.int_const(types::I64, ptr_at.into()), self.int_const(types::I64, len_at.into()));
                let f = self.helpers["lacuna_strings_sort"];
                self.b.ins().call(f, &[data, len, ptr_at, len_at]);
                return Ok(Vec::new());
            }
            // An element (a scalar, or read in place: `Option<&str>`, `Option<&S>`), or nothing.
            (_, "first" | "last" | "get") => {
                let index = match name {
                    "first" => self.int_const(types::I64, 0),
                    // Of an empty sequence the index wraps to the maximum, past the end.
                    "last" => self.b.ins().iadd_imm(len, -1),
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
            (Elem::String | Elem::Str | Elem::Struct(_), "reverse") => {
                let size = self.elem_layout(seq.elem)?.0;
                let size = self.int_const(types::I64, i64::from(size));
                let f = self.helpers["lacuna_elements_reverse"];
                self.b.ins().call(f, &[data, len, size]);
                return Ok(Vec::new());
            }
            _ => {}
        }
        let elem = seq.elem.scalar().ok_or_else(|| CodegenError(format!("`{name}` of strings")))?;
        let values: Vec<Value> = values.iter().filter_map(|v| v.first().copied()).collect();
        let t = clif(elem).ok_or_else(|| CodegenError("an element type".into()))?;
        let width = t.bits();
        let element = |g: &mut Self, i: Value| -> Value {
            let offset = g.b.ins().imul_imm(i, i64::from(t.bytes()));
            g.b.ins().iadd(data, offset)
        };
        Ok(match name {
            "contains" => {
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
            "sort" | "sort_unstable" => {
                let kind = if elem.is_signed() { "i" } else { "u" };
                let helper = format!("lacuna_sort_{kind}{width}");
                let f = *self.helpers.get(helper.as_str()).ok_or_else(|| CodegenError(format!("no `{helper}`")))?;
                self.b.ins().call(f, &[data, len]);
                Vec::new()
            }
            "reverse" => {
                let helper = format!("lacuna_reverse_{width}");
                let f = *self.helpers.get(helper.as_str()).ok_or_else(|| CodegenError(format!("no `{helper}`")))?;
                self.b.ins().call(f, &[data, len]);
                Vec::new()
            }
            "dedup" => {
                let helper = format!("lacuna_dedup_{width}");
                let f = *self.helpers.get(helper.as_str()).ok_or_else(|| CodegenError(format!("no `{helper}`")))?;
                let call = self.b.ins().call(f, &[data, len]);
                let kept = self.b.inst_results(call)[0];
                let home = self.vec_home(seq)?;
                self.vec_set(&home, VecField::Len, kept)?;
                Vec::new()
            }
            "pop" => {
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
            "swap" => {
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
            "fill" => {
                self.fill_elements(data, len, t, values[0])?;
                Vec::new()
            }
            _ => return Err(CodegenError(format!("the sequence method `{name}`"))),
        })
    }

    /// Stores `x` into each of the `len` elements of type `t` at `data` (`fill`, `vec![x; n]`).
    fn fill_elements(&mut self, data: Value, len: Value, t: Type, x: Value) -> R<()> {
        if t.bytes() == 1 {
            let f = self.helpers["lacuna_fill_bytes"];
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
    fn each_index(&mut self, len: Value, mut body: impl FnMut(&mut Self, Value) -> R<()>) -> R<()> {
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
    fn seq_element(&mut self, seq: &Seq, i: Value, at: usize) -> R<Value> {
        let (data, len) = self.seq_parts(seq)?;
        let past = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
        self.fault_if_with(past, Fault::IndexOutOfBounds, at, &[len, i]);
        self.element_address(seq.elem, data, i)
    }

    /// The address of element `i` of the elements at `data` (no bounds check).
    fn element_address(&mut self, elem: Elem, data: Value, i: Value) -> R<Value> {
        let size = self.elem_layout(elem)?.0;
        let offset = self.b.ins().imul_imm(i, i64::from(size));
        Ok(self.b.ins().iadd(data, offset))
    }

    /// Element `i` of the elements at `data` read in place (no bounds check).
    fn element_at(&mut self, elem: Elem, data: Value, i: Value) -> R<Vals> {
        let address = self.element_address(elem, data, i)?;
        self.elem_read(elem, address)
    }

    /// `v.iter().sum()` over integers: a loop with the debug build's overflow check.
    fn seq_sum(&mut self, seq: &Seq, at: usize) -> R<Value> {
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

    /// The value of `x` when it is an integer constant here, sign-extended from its type's width.
    fn constant(&self, x: Value) -> Option<i64> {
        let inst = self.b.func.dfg.value_def(x).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => {
                Some(imm.sign_extend_from_width(self.b.func.dfg.value_type(x).bits()).bits())
            }
            _ => None,
        }
    }

    /// `x * c` for a constant `c` and whether it overflowed: the product wrapping (`imul` by an immediate) and the
    /// overflow as a range check of `x` (`MIN / c ..= MAX / c`, one unsigned compare), neither through the
    /// one-operand multiply that `smul_overflow` needs.
    fn mul_by_constant(&mut self, x: Value, c: i64, signed: bool, bits: u32) -> (Value, Value) {
        let t = self.b.func.dfg.value_type(x);
        // `x * 3`, `* 5`, `* 9` as one `lea`; powers of two become shifts in Cranelift itself.
        let v = match c {
            3 | 5 | 9 => {
                let shifted = self.b.ins().ishl_imm(x, (c - 1).trailing_zeros() as i64);
                self.b.ins().iadd(x, shifted)
            }
            _ => self.b.ins().imul_imm(x, c),
        };
        let (min, max): (i128, i128) =
            if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
        let c = if signed { i128::from(c) } else { i128::from(c as u64) & max };
        // The range of `x` whose product fits (Rust's `/` truncates, which rounds each bound inwards).
        let (lo, hi) = match c {
            0 | 1 => (min, max),
            -1 => (min + 1, max),
            c if c > 0 => (min / c, max / c),
            c => (max / c, min / c),
        };
        let over = if (lo, hi) == (min, max) {
            self.b.ins().iconst(types::I8, 0)
        } else {
            let shifted = self.b.ins().iadd_imm(x, (-lo) as i64);
            let span = self.int_const(t, (hi - lo) as i64);
            self.b.ins().icmp(IntCC::UnsignedGreaterThan, shifted, span)
        };
        (v, over)
    }

    /// `l + r` or `l - r` and whether it overflowed, as a comparison where one decides it: a branch on a compare
    /// fuses into `cmp; jcc`, while one on an `*_overflow` flag goes through `seto; test; jnz`.
    fn add_or_sub(&mut self, add: bool, signed: bool, l: Value, r: Value) -> (Value, Value) {
        let v = if add { self.b.ins().iadd(l, r) } else { self.b.ins().isub(l, r) };
        if !signed {
            // Unsigned: a sum wrapped iff it is below an operand; a difference iff `l < r`.
            let over = if add {
                self.b.ins().icmp(IntCC::UnsignedLessThan, v, l)
            } else {
                self.b.ins().icmp(IntCC::UnsignedLessThan, l, r)
            };
            return (v, over);
        }
        // Signed with a constant operand `c`: `l + c` wrapped iff it moved against `c`'s sign.
        let (x, c) = match (self.constant(l), self.constant(r)) {
            (_, Some(c)) => (l, c),
            (Some(c), None) if add => (r, c),
            _ => {
                let (v, over) = if add { self.b.ins().sadd_overflow(l, r) } else { self.b.ins().ssub_overflow(l, r) };
                return (v, over);
            }
        };
        let over = match (c.signum(), add) {
            (0, _) => self.b.ins().iconst(types::I8, 0),
            (1, true) | (-1, false) => self.b.ins().icmp(IntCC::SignedLessThan, v, x),
            _ => self.b.ins().icmp(IntCC::SignedGreaterThan, v, x),
        };
        (v, over)
    }

    fn binary(&mut self, op: BinOp, lt: Scalar, rt: Scalar, l: Value, r: Value, at: usize) -> Value {
        use BinOp::*;
        if lt.is_float() {
            let f32 = lt == Scalar::F32;
            return match op {
                Add => self.b.ins().fadd(l, r),
                Sub => self.b.ins().fsub(l, r),
                Mul => self.b.ins().fmul(l, r),
                Div => self.b.ins().fdiv(l, r),
                Rem => self.call_helper(if f32 { "lacuna_fmod_f32" } else { "lacuna_fmod_f64" }, &[l, r]),
                Eq => self.b.ins().fcmp(FloatCC::Equal, l, r),
                Ne => self.b.ins().fcmp(FloatCC::NotEqual, l, r),
                Lt => self.b.ins().fcmp(FloatCC::LessThan, l, r),
                Le => self.b.ins().fcmp(FloatCC::LessThanOrEqual, l, r),
                Gt => self.b.ins().fcmp(FloatCC::GreaterThan, l, r),
                Ge => self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, l, r),
                _ => l,
            };
        }
        let signed = lt.is_signed();
        let bits = lt.int_bits().unwrap_or(8);
        let t = clif(lt).unwrap_or(types::I8);
        match op {
            // (Not Rust on `bool`s; kept total, unchecked.)
            Add | Sub | Mul if lt == Scalar::Bool => match op {
                Add => self.b.ins().iadd(l, r),
                Sub => self.b.ins().isub(l, r),
                _ => self.b.ins().imul(l, r),
            },
            Add | Sub => {
                let (v, over) = self.add_or_sub(op == Add, signed, l, r);
                self.fault_if(over, if op == Add { Fault::Add } else { Fault::Sub }, at);
                v
            }
            Mul => {
                let constant_operand = match (self.constant(l), self.constant(r)) {
                    _ if bits > 64 => None,
                    (_, Some(c)) => Some((l, c)),
                    (Some(c), None) => Some((r, c)),
                    (None, None) => None,
                };
                let (v, over) = match (constant_operand, signed) {
                    (Some((x, c)), _) => self.mul_by_constant(x, c, signed, bits),
                    (None, true) => self.b.ins().smul_overflow(l, r),
                    (None, false) => self.b.ins().umul_overflow(l, r),
                };
                self.fault_if(over, Fault::Mul, at);
                v
            }
            Div | Rem => {
                let zero = self.b.ins().icmp_imm(IntCC::Equal, r, 0);
                self.fault_if(zero, if op == Div { Fault::DivByZero } else { Fault::RemByZero }, at);
                if signed {
                    let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                    let is_min = self.b.ins().icmp_imm(IntCC::Equal, l, min);
                    let minus_one = self.b.ins().icmp_imm(IntCC::Equal, r, -1);
                    let both = self.b.ins().band(is_min, minus_one);
                    self.fault_if(both, if op == Div { Fault::DivOverflow } else { Fault::RemOverflow }, at);
                }
                match (op, signed) {
                    (Div, true) => self.b.ins().sdiv(l, r),
                    (Div, false) => self.b.ins().udiv(l, r),
                    (_, true) => self.b.ins().srem(l, r),
                    (_, false) => self.b.ins().urem(l, r),
                }
            }
            BitAnd => self.b.ins().band(l, r),
            BitOr => self.b.ins().bor(l, r),
            BitXor => self.b.ins().bxor(l, r),
            Shl | Shr => {
                // Rust checks the amount as unsigned against the width (a negative amount is huge).
                let too_far = self.b.ins().icmp_imm(IntCC::UnsignedGreaterThanOrEqual, r, bits as i64);
                self.fault_if(too_far, if op == Shl { Fault::Shl } else { Fault::Shr }, at);
                let amount = self.resize(r, clif(rt).unwrap_or(types::I64), t, false);
                match (op, signed) {
                    (Shl, _) => self.b.ins().ishl(l, amount),
                    (_, true) => self.b.ins().sshr(l, amount),
                    (_, false) => self.b.ins().ushr(l, amount),
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let cc = match (op, signed) {
                    (Eq, _) => IntCC::Equal,
                    (Ne, _) => IntCC::NotEqual,
                    (Lt, true) => IntCC::SignedLessThan,
                    (Lt, false) => IntCC::UnsignedLessThan,
                    (Le, true) => IntCC::SignedLessThanOrEqual,
                    (Le, false) => IntCC::UnsignedLessThanOrEqual,
                    (Gt, true) => IntCC::SignedGreaterThan,
                    (Gt, false) => IntCC::UnsignedGreaterThan,
                    (_, true) => IntCC::SignedGreaterThanOrEqual,
                    (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(cc, l, r)
            }
            And | Or => l,
        }
    }

    /// `x / 2^k` or `x % 2^k` with Rust's semantics (truncation toward zero; the remainder has the dividend's sign).
    fn div_by_power_of_two(&mut self, op: BinOp, ty: Scalar, x: Value, k: u32) -> Value {
        let t = clif(ty).unwrap_or(types::I64);
        let bits = ty.int_bits().unwrap_or(64) as i64;
        if k == 0 {
            return if op == BinOp::Div { x } else { self.b.ins().iconst(t, 0) };
        }
        if !ty.is_signed() {
            return if op == BinOp::Div {
                self.b.ins().ushr_imm(x, k as i64)
            } else {
                self.b.ins().band_imm(x, ((1u128 << k) - 1) as i64)
            };
        }
        // Bias negative dividends by 2^k - 1 so the arithmetic shift rounds toward zero.
        let sign = self.b.ins().sshr_imm(x, bits - 1);
        let bias = self.b.ins().ushr_imm(sign, bits - k as i64);
        let biased = self.b.ins().iadd(x, bias);
        let quotient = self.b.ins().sshr_imm(biased, k as i64);
        if op == BinOp::Div {
            quotient
        } else {
            let back = self.b.ins().ishl_imm(quotient, k as i64);
            self.b.ins().isub(x, back)
        }
    }

    /// An integer value from one width to another (sign- or zero-extending).
    fn resize(&mut self, v: Value, from: Type, to: Type, signed: bool) -> Value {
        if from == to {
            v
        } else if from.bits() > to.bits() {
            self.b.ins().ireduce(to, v)
        } else if signed {
            self.b.ins().sextend(to, v)
        } else {
            self.b.ins().uextend(to, v)
        }
    }

    fn cast(&mut self, v: Value, from: Scalar, to: Scalar) -> Value {
        let (Some(ft), Some(tt)) = (clif(from), clif(to)) else { return v };
        if from == to {
            return v;
        }
        match (from.is_float(), to.is_float()) {
            (true, true) => {
                if tt.bits() > ft.bits() {
                    self.b.ins().fpromote(tt, v)
                } else {
                    self.b.ins().fdemote(tt, v)
                }
            }
            (false, true) => {
                if from.is_signed() {
                    self.b.ins().fcvt_from_sint(tt, v)
                } else {
                    self.b.ins().fcvt_from_uint(tt, v)
                }
            }
            (true, false) => {
                // `as` saturates (NaN → 0): convert at 64 bits, clamp to the target's range, narrow.
                let bits = to.int_bits().unwrap_or(64);
                if to.is_signed() {
                    let wide = self.b.ins().fcvt_to_sint_sat(types::I64, v);
                    if bits == 64 {
                        return wide;
                    }
                    let (min, max) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
                    let lo = self.b.ins().iconst(types::I64, min);
                    let hi = self.b.ins().iconst(types::I64, max);
                    let c = self.b.ins().smax(wide, lo);
                    let c = self.b.ins().smin(c, hi);
                    self.b.ins().ireduce(tt, c)
                } else {
                    let wide = self.b.ins().fcvt_to_uint_sat(types::I64, v);
                    if bits == 64 {
                        return wide;
                    }
                    let hi = self.b.ins().iconst(types::I64, ((1u64 << bits) - 1) as i64);
                    let c = self.b.ins().umin(wide, hi);
                    self.b.ins().ireduce(tt, c)
                }
            }
            (false, false) => self.resize(v, ft, tt, from.is_signed()),
        }
    }

    fn call_helper(&mut self, name: &str, args: &[Value]) -> Value {
        let f = self.helpers[name];
        let call = self.b.ins().call(f, args);
        self.b.inst_results(call)[0]
    }

    fn method(&mut self, name: &str, ty: Scalar, v: Value, args: &[Value], at: usize) -> R<Value> {
        let t = clif(ty).ok_or_else(|| CodegenError("method receiver".into()))?;
        let f32 = ty == Scalar::F32;
        if let Some(op) = lacuna_checker::typed::CHAR_METHODS.iter().position(|m| *m == name) {
            let op = self.int_const(types::I32, op as i64);
            let f = self.helpers["lacuna_char_op"];
            let call = self.b.ins().call(f, &[v, op]);
            let r = self.b.inst_results(call)[0];
            return Ok(if name.starts_with("to_") { r } else { self.b.ins().ireduce(types::I8, r) });
        }
        Ok(match name {
            "abs" if ty.is_float() => self.b.ins().fabs(v),
            "abs" => {
                let bits = ty.int_bits().unwrap_or(64);
                let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                let is_min = self.b.ins().icmp_imm(IntCC::Equal, v, min);
                self.fault_if(is_min, Fault::Neg, at);
                let neg = self.b.ins().ineg(v);
                let negative = self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0);
                self.b.ins().select(negative, neg, v)
            }
            "signum" if ty.is_float() => {
                self.call_helper(if f32 { "lacuna_signum_f32" } else { "lacuna_signum_f64" }, &[v])
            }
            "signum" => {
                let one = self.b.ins().iconst(t, 1);
                let minus = self.b.ins().iconst(t, -1);
                let zero = self.b.ins().iconst(t, 0);
                let pos = self.b.ins().icmp_imm(IntCC::SignedGreaterThan, v, 0);
                let neg = self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0);
                let s = self.b.ins().select(neg, minus, zero);
                self.b.ins().select(pos, one, s)
            }
            "is_positive" => self.b.ins().icmp_imm(IntCC::SignedGreaterThan, v, 0),
            "is_negative" => self.b.ins().icmp_imm(IntCC::SignedLessThan, v, 0),
            "count_ones" => {
                let c = self.b.ins().popcnt(v);
                self.resize(c, t, types::I32, false)
            }
            "sqrt" => self.b.ins().sqrt(v),
            "floor" => self.b.ins().floor(v),
            "ceil" => self.b.ins().ceil(v),
            "min" | "max" if ty.is_float() => {
                let helper = match (name, f32) {
                    ("min", true) => "lacuna_fmin_f32",
                    ("min", false) => "lacuna_fmin_f64",
                    ("max", true) => "lacuna_fmax_f32",
                    _ => "lacuna_fmax_f64",
                };
                self.call_helper(helper, &[v, args[0]])
            }
            "min" | "max" => {
                let cc = match (name, ty.is_signed()) {
                    ("min", true) => IntCC::SignedLessThan,
                    ("min", false) => IntCC::UnsignedLessThan,
                    (_, true) => IntCC::SignedGreaterThan,
                    (_, false) => IntCC::UnsignedGreaterThan,
                };
                let keep = self.b.ins().icmp(cc, v, args[0]);
                self.b.ins().select(keep, v, args[0])
            }
            "trunc" => self.b.ins().trunc(v),
            "powi" => self.call_helper(if f32 { "lacuna_powi_f32" } else { "lacuna_powi_f64" }, &[v, args[0]]),
            "wrapping_neg" => self.b.ins().ineg(v),
            "unsigned_abs" => self.b.ins().iabs(v),
            "abs_diff" => {
                let cc = if ty.is_signed() { IntCC::SignedGreaterThan } else { IntCC::UnsignedGreaterThan };
                let greater = self.b.ins().icmp(cc, v, args[0]);
                let down = self.b.ins().isub(v, args[0]);
                let up = self.b.ins().isub(args[0], v);
                self.b.ins().select(greater, down, up)
            }
            "leading_zeros" | "trailing_zeros" | "count_zeros" => {
                let c = match name {
                    "leading_zeros" => self.b.ins().clz(v),
                    "trailing_zeros" => self.b.ins().ctz(v),
                    _ => {
                        let flipped = self.b.ins().bnot(v);
                        self.b.ins().popcnt(flipped)
                    }
                };
                self.resize(c, t, types::I32, false)
            }
            "is_power_of_two" => {
                let ones = self.b.ins().popcnt(v);
                self.b.ins().icmp_imm(IntCC::Equal, ones, 1)
            }
            "saturating_add" | "saturating_sub" | "saturating_mul" => {
                let a = args[0];
                let signed = ty.is_signed();
                let (r, over) = match (name, signed) {
                    ("saturating_add", true) => self.b.ins().sadd_overflow(v, a),
                    ("saturating_add", false) => self.b.ins().uadd_overflow(v, a),
                    ("saturating_sub", true) => self.b.ins().ssub_overflow(v, a),
                    ("saturating_sub", false) => self.b.ins().usub_overflow(v, a),
                    (_, true) => self.b.ins().smul_overflow(v, a),
                    (_, false) => self.b.ins().umul_overflow(v, a),
                };
                let bits = ty.int_bits().unwrap_or(64);
                let (min, max) = if signed {
                    let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                    (min, !min)
                } else {
                    (0, if bits == 64 { -1 } else { (1i64 << bits) - 1 })
                };
                let (min, max) = (self.b.ins().iconst(t, min), self.b.ins().iconst(t, max));
                // Which bound the true result passed: a signed sum past the top when `a` is positive, a difference
                // when `a` is negative, a product when the signs agree; unsigned ones only one way.
                let toward_max = match (name, signed) {
                    ("saturating_add", true) => self.b.ins().icmp_imm(IntCC::SignedGreaterThan, a, 0),
                    ("saturating_sub", true) => self.b.ins().icmp_imm(IntCC::SignedLessThan, a, 0),
                    (_, true) => {
                        let signs = self.b.ins().bxor(v, a);
                        self.b.ins().icmp_imm(IntCC::SignedGreaterThanOrEqual, signs, 0)
                    }
                    ("saturating_sub", false) => self.b.ins().iconst(types::I8, 0),
                    _ => self.b.ins().iconst(types::I8, 1),
                };
                let bound = self.b.ins().select(toward_max, max, min);
                self.b.ins().select(over, bound, r)
            }
            "wrapping_add" => self.b.ins().iadd(v, args[0]),
            "wrapping_sub" => self.b.ins().isub(v, args[0]),
            "wrapping_mul" => self.b.ins().imul(v, args[0]),
            "pow" => {
                let bits = ty.int_bits().unwrap_or(64);
                let wide = self.resize(v, t, types::I64, ty.is_signed());
                let slot = self.b.create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                    cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                    1,
                    0,
                ));
                let flag_ptr = self.b.ins().stack_addr(types::I64, slot, 0);
                let bits_v = self.b.ins().iconst(types::I32, bits as i64);
                let signed_v = self.b.ins().iconst(types::I32, ty.is_signed() as i64);
                let r = self.call_helper("lacuna_pow", &[wide, args[0], bits_v, signed_v, flag_ptr]);
                let over = self.b.ins().load(types::I8, MemFlags::trusted(), flag_ptr, 0);
                self.fault_if(over, Fault::Mul, at);
                self.resize(r, types::I64, t, ty.is_signed())
            }
            other => return Err(CodegenError(format!("the method `{other}`"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Generated code reads and writes the context at these offsets.
    #[test]
    fn context_offsets_match_the_struct() {
        assert_eq!(std::mem::offset_of!(JitContext, fuel), FUEL_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, stack_limit), STACK_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault), FAULT_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault_at), FAULT_AT_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, run), RUN_OFFSET as usize);
        assert_eq!(std::mem::offset_of!(JitContext, fault_values), FAULT_VALUES_OFFSET as usize);
    }
}

/// An iterator source's state in a [`Gen::drive`] loop.
#[derive(Clone)]
enum Src {
    Range {
        t: Type,
        signed: bool,
        counter: Variable,
        end: Option<Value>,
        inclusive: bool,
        done: Variable,
        start: Value,
    },
    /// The buffer and length as the loop starts (nothing in the loop can change the binding).
    Seq { elem: Elem, data: Value, index: Variable, len: Value },
    /// Text, decoded by a helper from a (front, back) byte position pair in a stack slot.
    Chars { data: Value, state: Value },
    /// Pieces of text, cut by a helper ([`crate::text::helper_next_piece`]) keeping its state in a stack slot.
    Pieces { data: Value, state: Value, how: Value, pat: Value, pat_len: Value },
    /// `first.chain(second)`: `first` until it is exhausted (`in_second`), then `second`; items of type `ty`.
    Chain { first: Box<Src>, first_rev: bool, second: Box<Src>, second_rev: bool, in_second: Variable, ty: Ty },
}

/// A short literal's bytes as 8-, 4-, 2- and 1-byte words: each word's type, offset and value (native byte
/// order, zero-extended from its width), as loads and stores of them read and write.
fn literal_words(bytes: &[u8]) -> Vec<(Type, i32, i64)> {
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
const SHORT_LITERAL: usize = 16;

/// The values of each element of a tuple of `parts`, from the tuple's flat `values`.
fn tuple_fields<'v>(parts: &'v [Ty], values: &'v [Value]) -> impl Iterator<Item = &'v [Value]> + 'v {
    let mut rest = values;
    parts.iter().map(move |part| {
        let (field, tail) = rest.split_at(part.parts().len().min(rest.len()));
        rest = tail;
        field
    })
}
