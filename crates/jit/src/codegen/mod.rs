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
use lacuna_ir::{
    Arm, BinOp, CheckedMethod, Child, Closure, Elem, IterChain, IterSource, Lit, LocalRef, MapMethod, Method,
    OptionClosureMethod, OptionMethod, ParseThen, Pieces, Place, Scalar, ScalarMethod, SelfArg, Seq, SeqClosureMethod,
    SeqKind, SeqMethod, Sink, Stage, TBlock, TExpr, TKind, TPat, TStmt, TextMethod, Ty, TypedSnippet, UnOp,
};
use lacuna_lowering::Lowered;

mod arith;
mod control;
mod expr;
mod faults;
mod iter;
mod map;
mod option;
mod places;
mod scan;
mod seq;
mod structs;
mod text;

use crate::abi::*;
use crate::helper::{FloatOp, Helper, Width};
use arith::{is_zero, power_of_two, remainder_by_power_of_two};
use control::LoopCtx;
use scan::{allocates, each_expr, host_calls, host_statics};
use seq::{VecField, VecHome};
use structs::{enum_fns, struct_shims, uses_struct_shims, StructShims};

/// A compiled snippet. The module owns the code; it is kept for as long as the entry may be called.
pub struct Compiled {
    pub entry: JitEntry,
    /// The snippet calls host functions: [`JitContext::run`] must point to a `RawRun`.
    pub calls_host: bool,
    /// Messages of the snippet's fixed panics ([`Fault::Panic`]).
    pub messages: Vec<String>,
    /// The host library's allocator functions, when the snippet allocates: [`JitContext::heap`] must then point
    /// to a [`Heap`](crate::Heap) over them.
    pub heap_fns: Option<HostFns>,
    /// String literals and format specs the code points to.
    _data: Vec<Box<[u8]>>,
    // Generated code holds each spec's address: a box keeps it in place while the vector grows.
    #[allow(clippy::vec_box)]
    _specs: Vec<Box<RawSpec>>,
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

type Vals = Vec<Value>;

/// What compiled code needs to know about the host library it runs against.
pub struct HostAbi<'a> {
    /// Finds the host's exported functions (the shims of host functions the snippet calls).
    pub symbol: &'a dyn Fn(&str) -> Option<*const u8>,
    /// The function the host exports for this hole that gives the writer of its map type, when the hole's value
    /// is a map ([`lacuna_ir::map_writer_symbol`]).
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
    for helper in Helper::ALL {
        builder.symbol(helper.symbol(), helper.address());
    }
    let snippet = &lowered.snippet;
    let calls = host_calls(snippet);
    for (symbol, (name, _, _)) in &calls {
        let address = (host.symbol)(symbol)
            .ok_or_else(|| CodegenError(format!("the host does not export `{name}` to the JIT")))?;
        builder.symbol(symbol, address);
    }
    if let Some(s) = snippet.ty.option_scalar() {
        let symbol = lacuna_ir::option_writer_symbol(s);
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
    for &helper in Helper::ALL {
        let mut sig = module.make_signature();
        let (params, rets) = helper.signature(ptr);
        sig.params.extend(params.into_iter().map(AbiParam::new));
        sig.returns.extend(rets.into_iter().map(AbiParam::new));
        let id = module.declare_function(helper.symbol(), Linkage::Import, &sig).map_err(err)?;
        helpers.insert(helper, id);
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
            let symbol = lacuna_ir::option_writer_symbol(s);
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
                        g.strings_helper(Helper::StringsRelease, ptr, len)?;
                    }
                    let release = g.helpers[&Helper::VecRelease];
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
                let give = g.helpers[&Helper::MapGive];
                g.b.ins().call(give, &[g.ctx, value[0], writer, out]);
            }
            (Ty::Struct(id), _) => {
                // The box's struct moves into the host's slot.
                let size = g.shims_of(*id)?.size;
                let size = g.int_const(types::I64, size as i64);
                let f = g.helpers[&Helper::StructMoveOut];
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
        let realloc = (host.symbol)(lacuna_ir::symbol::HOST_REALLOC)
            .ok_or_else(|| CodegenError("the host does not export its allocator to the JIT".into()))?;
        let dealloc = (host.symbol)(lacuna_ir::symbol::HOST_DEALLOC)
            .ok_or_else(|| CodegenError("the host does not export its allocator to the JIT".into()))?;
        let print = (host.symbol)(lacuna_ir::symbol::HOST_PRINT)
            .ok_or_else(|| CodegenError("the host does not export its output to the JIT".into()))?;
        // SAFETY: the instrumented host defines these with these signatures (`instrument::ENTRY_POINTS`), and the
        // host library stays loaded.
        unsafe {
            Some(HostFns {
                realloc: std::mem::transmute::<*const u8, ReallocFn>(realloc),
                dealloc: std::mem::transmute::<*const u8, DeallocFn>(dealloc),
                print: std::mem::transmute::<*const u8, PrintFn>(print),
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

struct Gen<'a, 'b> {
    b: FunctionBuilder<'b>,
    snippet: &'a TypedSnippet,
    funcs: Vec<FuncRef>,
    helpers: HashMap<Helper, FuncRef>,
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
    // As `Compiled::_specs`: each spec's address is in the code.
    #[allow(clippy::vec_box)]
    specs: Vec<Box<RawSpec>>,
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

impl<'a, 'b> Gen<'a, 'b> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        mut b: FunctionBuilder<'b>,
        module: &mut JITModule,
        snippet: &'a TypedSnippet,
        fn_ids: &[FuncId],
        helper_ids: &HashMap<Helper, FuncId>,
        host_ids: &HashMap<String, FuncId>,
        vec_fields: Option<(i32, i32)>,
        in_fn: Option<Ty>,
    ) -> R<Self> {
        let funcs = fn_ids.iter().map(|id| module.declare_func_in_func(*id, b.func)).collect();
        let host_fns = host_ids.iter().map(|(n, id)| (n.clone(), module.declare_func_in_func(*id, b.func))).collect();
        let helpers = helper_ids.iter().map(|(h, id)| (*h, module.declare_func_in_func(*id, b.func))).collect();
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

    /// Calls `lacuna_strings_release` or `lacuna_strings_free` on the `len` strings at `data`.
    fn strings_helper(&mut self, helper: Helper, data: Value, len: Value) -> R<()> {
        let ptr_at = self.int_const(types::I64, i64::from(self.vec_offsets()?[0]));
        let f = self.helpers[&helper];
        self.b.ins().call(f, &[self.ctx, data, len, ptr_at]);
        Ok(())
    }

    fn call_helper(&mut self, helper: Helper, args: &[Value]) -> Value {
        let f = self.helpers[&helper];
        let call = self.b.ins().call(f, args);
        self.b.inst_results(call)[0]
    }
}

/// The values of each element of a tuple of `parts`, from the tuple's flat `values`.
fn tuple_fields<'v>(parts: &'v [Ty], values: &'v [Value]) -> impl Iterator<Item = &'v [Value]> + 'v {
    let mut rest = values;
    parts.iter().map(move |part| {
        let (field, tail) = rest.split_at(part.parts().len().min(rest.len()));
        rest = tail;
        field
    })
}
