//! The JIT path: a lowered snippet ([`lacuna_lowering::Lowered`]) compiled by Cranelift to native code that runs
//! against the binding table directly (scalars are read and written in place; no serialization).
//!
//! The compiled entry is `fn(table: *const *mut u8, out: *mut u8, ctx: *mut JitContext) -> u32`. Arithmetic has
//! the semantics of a debug rustc build: overflow, division by zero and over-long shifts are faults. A fault
//! stores its kind and the snippet offset of the operation in the context and returns 1; every loop iteration
//! and function entry spends fuel, and function entries check the stack against the context's limit.

use std::collections::{BTreeMap, HashMap};

use cranelift_codegen::ir::{types, AbiParam, FuncRef, InstBuilder, MemFlags, Type, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use lacuna_ir::{Elem, LocalRef, Part, Scalar, TFn, TupleElem, Ty, TypedSnippet};
use lacuna_lowering::Lowered;

mod arith;
mod atomic;
mod compare;
mod control;
mod converted_bindings;
mod expr;
mod faults;
mod iter;
mod map;
mod option;
mod owned_bindings;
mod places;
mod result;
mod scan;
mod scopes;
mod seq;
mod structs;
mod tail;
mod text;

use crate::abi::{DeallocFn, HostFns, JitEntry, PrintFn, RawSpec, ReallocFn};
use crate::helper::Helper;
pub(crate) use compare::{KEY_DESCENDING, KEY_TEXT};
use control::LoopCtx;
use scan::{allocates, host_calls, host_statics, host_tuples, TupleLayout};
use structs::{enum_fns, option_fns, struct_shims, uses_struct_shims, StructShims};

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

impl HostAbi<'_> {
    /// The address of the host's exported `symbol`, or the error that leaves the snippet to the rustc path.
    fn exported(&self, symbol: &str) -> Result<*const u8, CodegenError> {
        (self.symbol)(symbol).ok_or_else(|| CodegenError(format!("the host does not export `{symbol}` to the JIT")))
    }
}

/// Compiles a lowered snippet.
pub fn compile(lowered: &Lowered, host: &HostAbi<'_>) -> Result<Compiled, CodegenError> {
    compile_with(lowered, host, None)
}

/// [`compile`], and the CLIF of each function as generated (before Cranelift optimizes it), with the addresses
/// the code holds (its data, host shims) and the functions it calls by name, so the text is the same in every
/// process: what the JIT's layer test compares (`testdata/clif/`).
pub fn compile_to_clif(lowered: &Lowered, host: &HostAbi<'_>) -> Result<(Compiled, String), CodegenError> {
    let mut clif = String::new();
    let compiled = compile_with(lowered, host, Some(&mut clif))?;
    Ok((compiled, clif))
}

fn compile_with(lowered: &Lowered, host: &HostAbi<'_>, clif: Option<&mut String>) -> Result<Compiled, CodegenError> {
    let snippet = &lowered.snippet;
    let calls = host_calls(snippet);
    let mut module = new_module(snippet, host, &calls)?;
    let layout = HostLayout::read(snippet, host)?;
    let declared = Declared::new(&mut module, snippet, host, &calls)?;
    let moves = std::rc::Rc::new(scopes::Moves::of(snippet));
    let mut unit =
        Unit { module, snippet, vec_fields: host.vec_fields, layout, declared, moves, made: Made::default(), clif };
    for (i, f) in snippet.fns.iter().enumerate() {
        unit.define_fn(i, f)?;
    }
    unit.define_entry()?;
    if unit.moves.unmoved(&unit.made.moves) {
        return Err(CodegenError("a move of a local its drop flag would not see".into()));
    }
    unit.finish(host, !calls.is_empty())
}

/// A JIT module that resolves the runtime's helpers and the host functions the snippet calls.
fn new_module(
    snippet: &TypedSnippet,
    host: &HostAbi<'_>,
    calls: &BTreeMap<String, (String, bool, Vec<Ty>)>,
) -> Result<JITModule, CodegenError> {
    let mut builder = JITBuilder::with_isa(target_isa()?, default_libcall_names());
    for helper in Helper::ALL {
        builder.symbol(helper.symbol(), helper.address());
    }
    for (symbol, (name, _, _)) in calls {
        let address = (host.symbol)(symbol)
            .ok_or_else(|| CodegenError(format!("the host does not export `{name}` to the JIT")))?;
        builder.symbol(symbol, address);
    }
    if let Some(symbol) = value_writer(&snippet.ty) {
        if let Some(address) = (host.symbol)(&symbol) {
            builder.symbol(symbol, address);
        }
    }
    Ok(JITModule::new(builder))
}

/// The host library's writer of a hole value of type `ty` in rustc's layout, where it has one: an `Option` of a
/// scalar, a `&str`, an `Option<&str>`.
fn value_writer(ty: &Ty) -> Option<String> {
    match ty {
        Ty::Str => Some(lacuna_ir::symbol::STR_WRITER.to_owned()),
        Ty::Option(payload) if **payload == Ty::Str => Some(lacuna_ir::symbol::OPTION_STR_WRITER.to_owned()),
        _ => ty.option_scalar().map(lacuna_ir::option_writer_symbol),
    }
}

/// The ISA every snippet is compiled for: this machine's, with the JIT's settings. Made once per process (finding
/// the CPU's features and building the backend's tables is a fair part of compiling a small snippet).
fn target_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, CodegenError> {
    static ISA: std::sync::OnceLock<Result<cranelift_codegen::isa::OwnedTargetIsa, String>> =
        std::sync::OnceLock::new();
    let made = ISA.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        flags.set("is_pic", "false").map_err(|e| e.to_string())?;
        // Cranelift's IR verifier checks our code generation, not the snippet: every build the tests run (the
        // differential suite over every accepted case included) keeps it, and an optimized build leaves it out,
        // as wasmtime does by default (`Config::cranelift_debug_verifier`). It is a fair part of compiling a
        // small snippet.
        let verify = if cfg!(debug_assertions) { "true" } else { "false" };
        flags.set("enable_verifier", verify).map_err(|e| e.to_string())?;
        // Snippet functions return a status and their value's parts (an `Option` or a tuple: more than two
        // registers).
        flags.set("enable_multi_ret_implicit_sret", "true").map_err(|e| e.to_string())?;
        let builder = cranelift_native::builder().map_err(|e| e.to_string())?;
        builder.finish(settings::Flags::new(flags)).map_err(|e| e.to_string())
    });
    made.clone().map_err(CodegenError)
}

/// What the code needs of the host library's layouts and shims, read once.
#[derive(Clone)]
struct HostLayout {
    /// The host's field offsets and struct sizes the snippet needs, by symbol ([`host_statics`]).
    statics: HashMap<String, i32>,
    /// Byte offsets of the snippet's host struct fields ([`TypedSnippet::fields`]).
    field_offsets: Vec<i32>,
    shims: HashMap<usize, StructShims>,
    enum_fns: HashMap<usize, (usize, usize, usize)>,
    /// The shims finding the payloads of the `Option` fields the snippet reads, by symbol ([`option_fns`]).
    option_fns: HashMap<String, usize>,
    /// The addresses of the host statics the snippet's atomic operations act on ([`atomic::atomic_statics`]).
    atomics: HashMap<String, usize>,
    /// The layouts of the snippet's tuple elements ([`host_tuples`]).
    tuples: HashMap<TupleElem, TupleLayout>,
    /// The host's writer for a map the snippet hands over (0 when the hole's value is no map).
    map_writer: usize,
}

impl HostLayout {
    fn read(snippet: &TypedSnippet, host: &HostAbi<'_>) -> Result<HostLayout, CodegenError> {
        let statics = host_statics(snippet, host)?;
        let field_offsets: Vec<i32> = snippet.fields.iter().map(|f| statics[&f.symbol]).collect();
        let map_writer = match (&snippet.ty, &host.map_writer) {
            (Ty::Map { .. }, Some(symbol)) => {
                let address = host.exported(symbol)?;
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
        Ok(HostLayout {
            field_offsets,
            shims: struct_shims(snippet, host),
            enum_fns: enum_fns(snippet, host),
            option_fns: option_fns(snippet, host)?,
            atomics: atomic::atomic_statics(snippet, host)?,
            tuples: host_tuples(snippet, host)?,
            statics,
            map_writer,
        })
    }
}

/// Every helper the module declares, with its signature (shared by the functions that import them).
type HelperDecls = std::sync::Arc<HashMap<Helper, (FuncId, cranelift_codegen::ir::Signature)>>;

/// The functions the module declares: helpers, host shims, the snippet's functions, the entry.
struct Declared {
    /// Every helper, with its signature: a function imports the ones it calls when it first calls them
    /// ([`Gen::helper`]), since each signature a function imports costs its compilation an ABI computation.
    helpers: HelperDecls,
    host_fns: HashMap<String, FuncId>,
    fns: Vec<FuncId>,
    entry: FuncId,
    entry_sig: cranelift_codegen::ir::Signature,
    /// For an `Option` or text result: the host's writer of it (rustc's layout), by symbol ([`value_writer`]).
    option_writer: Option<FuncId>,
}

impl Declared {
    /// Declares everything first: calls may come before definitions.
    fn new(
        module: &mut JITModule,
        snippet: &TypedSnippet,
        host: &HostAbi<'_>,
        calls: &BTreeMap<String, (String, bool, Vec<Ty>)>,
    ) -> Result<Declared, CodegenError> {
        let ptr = module.target_config().pointer_type();
        let mut host_fns = HashMap::new();
        for (symbol, (_, has_receiver, params)) in calls {
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
                // `&[T]` / `&mut [T]` ([`TKind::SliceOf`]): pointer and length.
                if let Ty::Tuple(parts) = p {
                    for part in parts {
                        let s = part.s();
                        sig.params.push(c_param(s).ok_or_else(|| CodegenError(format!("a `{}` argument", s.name())))?);
                    }
                    continue;
                }
                // `&S` / `&mut S` of a host struct: its address.
                if let Ty::StructRef(_) = p {
                    sig.params.push(AbiParam::new(ptr));
                    continue;
                }
                let p = p.s();
                sig.params.push(c_param(p).ok_or_else(|| CodegenError(format!("a `{}` argument", p.name())))?);
            }
            sig.returns.push(AbiParam::new(types::I32));
            let id = module.declare_function(symbol, Linkage::Import, &sig).map_err(err)?;
            host_fns.insert(symbol.clone(), id);
        }
        let mut helpers = HashMap::new();
        for &helper in Helper::ALL {
            let mut sig = module.make_signature();
            let (params, rets) = helper.signature(ptr);
            sig.params.extend(params.into_iter().map(AbiParam::new));
            sig.returns.extend(rets.into_iter().map(AbiParam::new));
            let id = module.declare_function(helper.symbol(), Linkage::Import, &sig).map_err(err)?;
            helpers.insert(helper, (id, sig));
        }
        let mut fns = Vec::new();
        for (i, f) in snippet.fns.iter().enumerate() {
            let mut sig = module.make_signature();
            sig.params.push(AbiParam::new(ptr));
            for &p in &f.params {
                sig.params.extend(flat(&snippet.locals[p].ty).into_iter().map(AbiParam::new));
            }
            sig.returns.push(AbiParam::new(types::I32));
            sig.returns.extend(flat(&f.ret).into_iter().map(AbiParam::new));
            fns.push(module.declare_function(&format!("snippet_fn_{i}"), Linkage::Local, &sig).map_err(err)?);
        }
        let mut entry_sig = module.make_signature();
        entry_sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(ptr)]);
        entry_sig.returns.push(AbiParam::new(types::I32));
        let entry = module.declare_function("snippet_entry", Linkage::Export, &entry_sig).map_err(err)?;
        // An `Option` result is written by the host library, which knows rustc's layout for it.
        let option_writer = match value_writer(&snippet.ty) {
            Some(symbol) => {
                host.exported(&symbol)?;
                let mut sig = module.make_signature();
                sig.params.push(AbiParam::new(ptr));
                if matches!(snippet.ty, Ty::Option(_)) {
                    sig.params.push(AbiParam::new(types::I8).uext());
                }
                match snippet.ty.option_scalar() {
                    Some(s) => {
                        sig.params.push(c_param(s).ok_or_else(|| CodegenError("an `Option` of nothing".into()))?)
                    }
                    // Text: its pointer and length.
                    None => sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]),
                }
                Some(module.declare_function(&symbol, Linkage::Import, &sig).map_err(err)?)
            }
            None => None,
        };
        Ok(Declared { helpers: std::sync::Arc::new(helpers), host_fns, fns, entry, entry_sig, option_writer })
    }
}

/// A scalar parameter as C passes it: narrow integers extended to 32 bits (`bool`, `char` and unsigned types with
/// zeros).
fn c_param(s: Scalar) -> Option<AbiParam> {
    let t = clif(s)?;
    Some(match t.bits() {
        b if b >= 32 || s.is_float() => AbiParam::new(t),
        _ if s.is_signed() => AbiParam::new(t).sext(),
        _ => AbiParam::new(t).uext(),
    })
}

/// What generated code keeps and says beyond itself, gathered over its functions.
#[derive(Default)]
struct Made {
    /// Messages of fixed panics, snippet functions' first.
    messages: Vec<String>,
    /// The moves of flagged locals generated ([`scopes::Moves::unmoved`]).
    moves: std::collections::HashSet<usize>,
    data: Vec<Box<[u8]>>,
    #[allow(clippy::vec_box)]
    specs: Vec<Box<RawSpec>>,
}

/// One snippet's compilation under way.
struct Unit<'a, 'c> {
    module: JITModule,
    snippet: &'a TypedSnippet,
    vec_fields: Option<(i32, i32)>,
    layout: HostLayout,
    declared: Declared,
    moves: std::rc::Rc<scopes::Moves>,
    made: Made,
    /// Where the CLIF goes, when asked for ([`compile_to_clif`]).
    clif: Option<&'c mut String>,
}

impl Unit<'_, '_> {
    /// A code generator for one function, over `ctx.func`.
    fn gen<'g>(
        &mut self,
        func: &'g mut cranelift_codegen::ir::Function,
        fctx: &'g mut FunctionBuilderContext,
        in_fn: Option<Ty>,
    ) -> Result<Gen<'_, 'g>, CodegenError> {
        let b = FunctionBuilder::new(func, fctx);
        let d = &self.declared;
        let moves = self.moves.clone();
        let mut g =
            Gen::new(b, &mut self.module, self.snippet, &d.fns, &d.helpers, &d.host_fns, self.vec_fields, in_fn, moves);
        g.field_offsets = self.layout.field_offsets.clone();
        g.statics = self.layout.statics.clone();
        g.tuples = self.layout.tuples.clone();
        g.shims = self.layout.shims.clone();
        g.enum_fns = self.layout.enum_fns.clone();
        g.option_fns = self.layout.option_fns.clone();
        g.atomics = self.layout.atomics.clone();
        Ok(g)
    }

    /// Snippet function `i`: `fn(ctx, params..) -> (status, value..)`.
    fn define_fn(&mut self, i: usize, f: &TFn) -> Result<(), CodegenError> {
        let mut ctx = self.module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        ctx.func.signature = self.module.declarations().get_function_decl(self.declared.fns[i]).signature.clone();
        let snippet = self.snippet;
        let made = {
            let mut g = self.gen(&mut ctx.func, &mut fctx, Some(f.ret.clone()))?;
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
            // The parameters are the function's outermost scope: what the caller moved in is dropped where the
            // body ends or a `return` leaves it, unless the body moved it on.
            g.open_scope();
            for &p in &f.params {
                g.set_flag(p, true);
                g.on_scope_end(scopes::Cleanup::Local(p));
            }
            g.enter_checks(0)?;
            let params = tail::scalar_param_vars(&g.vars, f);
            g.open_tail_loop(params, tail::tail_self_calls(snippet, i, f));
            let value = g.block(&f.body)?;
            g.close_scope()?;
            g.return_ok(value, &f.ret);
            g.close_tail_loop();
            g.finish()?
        };
        self.define(self.declared.fns[i], ctx, made)
    }

    /// The entry: `fn(table, out, ctx) -> status`, the hole's value written to `out`.
    fn define_entry(&mut self) -> Result<(), CodegenError> {
        let mut ctx = self.module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        ctx.func.signature = self.declared.entry_sig.clone();
        let writer = self.declared.option_writer.map(|id| self.module.declare_func_in_func(id, &mut ctx.func));
        let (snippet, map_writer) = (self.snippet, self.layout.map_writer);
        // Panic messages of the snippet functions come first.
        let messages = std::mem::take(&mut self.made.messages);
        let made = {
            let mut g = self.gen(&mut ctx.func, &mut fctx, None)?;
            g.messages = messages;
            let block = g.b.current_block().expect("the entry block");
            let params = g.b.block_params(block).to_vec();
            g.table = params[0];
            let out = params[1];
            g.ctx = params[2];
            g.enter_checks(0)?;
            g.take_owned_bindings()?;
            g.convert_bindings()?;
            let value = g.block(&snippet.body)?;
            g.drop_converted_bindings()?;
            g.give_back_owned_bindings()?;
            g.write_result(&snippet.ty, value, out, writer, map_writer)?;
            g.store_fuel();
            let zero = g.b.ins().iconst(types::I32, 0);
            g.b.ins().return_(&[zero]);
            g.finish()?
        };
        self.define(self.declared.entry, ctx, made)
    }

    /// Defines a generated function in the module, and dumps it when asked.
    fn define(
        &mut self,
        id: FuncId,
        mut ctx: cranelift_codegen::Context,
        (mut made, addresses): (Made, Vec<(i64, String)>),
    ) -> Result<(), CodegenError> {
        if let Some(clif) = self.clif.as_deref_mut() {
            clif.push_str(&named_clif(&ctx.func.display().to_string(), &addresses, &self.module));
        }
        self.module.define_function(id, &mut ctx).map_err(|e| CodegenError(format!("{e:?}")))?;
        self.made.messages.append(&mut made.messages);
        self.made.data.append(&mut made.data);
        self.made.specs.append(&mut made.specs);
        self.made.moves.extend(made.moves);
        Ok(())
    }

    /// The finalized code, and what running it needs.
    fn finish(mut self, host: &HostAbi<'_>, calls_host: bool) -> Result<Compiled, CodegenError> {
        self.module.finalize_definitions().map_err(err)?;
        let code = self.module.get_finalized_function(self.declared.entry);
        // SAFETY: `code` is the finalized entry with exactly the `JitEntry` signature declared above.
        let entry = unsafe { std::mem::transmute::<*const u8, JitEntry>(code) };
        let heap_fns = if allocates(self.snippet) {
            let found = |symbol: &str, what: &str| {
                (host.symbol)(symbol)
                    .ok_or_else(|| CodegenError(format!("the host does not export its {what} to the JIT")))
            };
            let realloc = found(lacuna_ir::symbol::HOST_REALLOC, "allocator")?;
            let dealloc = found(lacuna_ir::symbol::HOST_DEALLOC, "allocator")?;
            let print = found(lacuna_ir::symbol::HOST_PRINT, "output")?;
            // SAFETY: the instrumented host defines these with these signatures (`instrument::ENTRY_POINTS`), and
            // the host library stays loaded.
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
            calls_host: calls_host || uses_struct_shims(self.snippet),
            messages: self.made.messages,
            heap_fns,
            _data: self.made.data,
            _specs: self.made.specs,
            _module: self.module,
        })
    }
}

/// `text` (a function's CLIF) with each address the code holds replaced by what it is, and each function it calls
/// named by its symbol; the declarations of functions and of signatures only they use are left out.
fn named_clif(text: &str, addresses: &[(i64, String)], module: &JITModule) -> String {
    let mut text = text.to_owned();
    for (address, what) in addresses {
        text = replace_word(
            &text,
            &cranelift_codegen::ir::immediates::Imm64::new(*address).to_string(),
            &format!("<{what}>"),
        );
    }
    // `fnN = u0:K sigM`: K is the module's function id.
    let mut names: Vec<(String, String)> = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    for line in text.lines() {
        let declared = line.trim_start().split_once(" = u0:").and_then(|(func, rest)| {
            let index = rest.split_whitespace().next()?.parse::<u32>().ok()?;
            let id = FuncId::from_u32(index);
            Some((func.to_owned(), module.declarations().get_function_decl(id).linkage_name(id).into_owned()))
        });
        match declared {
            Some(name) => names.push(name),
            None => kept.push(line),
        }
    }
    let mut body = kept.join("\n");
    for (func, name) in &names {
        body = replace_word(&body, func, &format!("%{name}"));
    }
    // Signatures no kept line refers to.
    let lines: Vec<&str> = body.lines().collect();
    let mut out = String::with_capacity(body.len());
    for line in &lines {
        let sig = line.trim_start().split_once(" = ").map(|(n, _)| n).filter(|n| n.starts_with("sig"));
        let used = sig.is_none_or(|sig| lines.iter().any(|l| !std::ptr::eq(*l, *line) && has_word(l, sig)));
        if used {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word)
        .any(|(at, _)| !text[..at].ends_with(is_word_char) && !text[at + word.len()..].starts_with(is_word_char))
}

/// `text` with each whole occurrence of `word` (not a part of a longer word) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let (before, after) = (&rest[..at], &rest[at + word.len()..]);
        out.push_str(before);
        let whole = !after.starts_with(is_word_char) && !before.ends_with(is_word_char) && !out.ends_with(is_word_char);
        out.push_str(if whole { with } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}

struct Gen<'a, 'b> {
    b: FunctionBuilder<'b>,
    snippet: &'a TypedSnippet,
    funcs: Vec<FuncRef>,
    /// The helpers this function has imported so far ([`Gen::helper`]).
    helpers: HashMap<Helper, FuncRef>,
    /// Every helper the module declares, with its signature.
    helper_decls: HelperDecls,
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
    /// The layouts of the snippet's tuple elements ([`host_tuples`]).
    tuples: HashMap<TupleElem, TupleLayout>,
    /// Fuel left, kept in a register within a function: written back to the context around calls and returns.
    fuel: Option<Variable>,
    /// What the snippet's reads move ([`scopes::Moves`]).
    moves: std::rc::Rc<scopes::Moves>,
    /// The scopes open where code is being generated, innermost last, each with what it drops where it ends
    /// ([`scopes`]).
    scopes: Vec<Vec<scopes::Cleanup>>,
    /// The drop flags of the moved locals that have one ([`scopes::Moves::flagged`]).
    flags: HashMap<usize, Variable>,
    /// The reads that move a flagged local generated, by address ([`scopes::Moves::sites`]).
    moves_generated: std::collections::HashSet<usize>,
    /// The run has a heap (the snippet allocates).
    has_heap: bool,
    /// The host structs' layouts and shims ([`struct_shims`]).
    shims: HashMap<usize, StructShims>,
    /// A host enum's variant, field and unit-variant shims (the last 0 where the host exports none), by index
    /// into [`TypedSnippet::structs`] ([`enum_fns`]).
    enum_fns: HashMap<usize, (usize, usize, usize)>,
    /// The shims of the `Option` fields the snippet reads, by symbol ([`option_fns`]).
    option_fns: HashMap<String, usize>,
    /// The addresses of the statics the snippet's atomic operations act on, by symbol.
    atomics: HashMap<String, usize>,
    /// Something the code needs that the host does not export (found while generating infallible parts).
    missing: Option<String>,
    /// While an arm of a branch-free `if` is computed ([`arms_without_branches`]): whether that arm is the one
    /// taken. Its faults happen only when it is.
    guard: Option<Value>,
    /// A local known to be even in the arm of a branch-free `if` being computed (the condition tested its
    /// parity): its `/ 2` is then a plain shift. Sound because the arm's value is used only when it is taken.
    even: Option<LocalRef>,
    /// Constants that are addresses in this process, with what they are (for the CLIF dump).
    addresses: Vec<(i64, String)>,
    /// Integer locals that cannot change and that the branches around the code being generated found not zero
    /// (`if b == 0 { .. } else { a % b }`): a division by one needs no zero test.
    nonzero: Vec<LocalRef>,
    /// In a snippet function that calls itself in tail position: the loop those calls are ([`tail`]).
    tail: Option<tail::TailLoop>,
}

type R<T> = Result<T, CodegenError>;

impl<'a, 'b> Gen<'a, 'b> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        mut b: FunctionBuilder<'b>,
        module: &mut JITModule,
        snippet: &'a TypedSnippet,
        fn_ids: &[FuncId],
        helper_decls: &HelperDecls,
        host_ids: &HashMap<String, FuncId>,
        vec_fields: Option<(i32, i32)>,
        in_fn: Option<Ty>,
        moves: std::rc::Rc<scopes::Moves>,
    ) -> Self {
        let funcs = fn_ids.iter().map(|id| module.declare_func_in_func(*id, b.func)).collect();
        // In a fixed order, so the function's text is the same on every run (the CLIF dump).
        let mut host_ids: Vec<(&String, &FuncId)> = host_ids.iter().collect();
        host_ids.sort();
        let host_fns =
            host_ids.into_iter().map(|(n, id)| (n.clone(), module.declare_func_in_func(*id, b.func))).collect();
        // The entry block takes the function's parameters; the first is always the context (the entry's
        // parameters are table, out, context: the caller reassigns).
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let first = b.block_params(block)[0];
        // Every flag is clear until its local gets a value.
        let flags = moves
            .flagged
            .iter()
            .map(|&local| {
                let flag = b.declare_var(types::I8);
                let clear = b.ins().iconst(types::I8, 0);
                b.def_var(flag, clear);
                (local, flag)
            })
            .collect();
        Gen {
            b,
            snippet,
            funcs,
            helpers: HashMap::new(),
            helper_decls: helper_decls.clone(),
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
            tuples: HashMap::new(),
            fuel: None,
            moves,
            scopes: Vec::new(),
            flags,
            moves_generated: Default::default(),
            has_heap: allocates(snippet),
            shims: HashMap::new(),
            enum_fns: HashMap::new(),
            option_fns: HashMap::new(),
            atomics: HashMap::new(),
            missing: None,
            guard: None,
            even: None,
            addresses: Vec::new(),
            nonzero: Vec::new(),
            tail: None,
        }
    }

    /// `helper`, imported into this function the first time it is called here.
    fn helper(&mut self, helper: Helper) -> FuncRef {
        if let Some(&f) = self.helpers.get(&helper) {
            return f;
        }
        // As `Module::declare_func_in_func` imports a declared function.
        let (id, sig) = &self.helper_decls[&helper];
        let signature = self.b.func.import_signature(sig.clone());
        let name = self.b.func.declare_imported_user_function(cranelift_codegen::ir::UserExternalName {
            namespace: 0,
            index: id.as_u32(),
        });
        let f = self.b.import_function(cranelift_codegen::ir::ExtFuncData {
            name: cranelift_codegen::ir::ExternalName::user(name),
            signature,
            // An imported function (`Linkage::Import`) is never final, so never colocated.
            colocated: false,
            patchable: false,
        });
        self.helpers.insert(helper, f);
        f
    }

    /// A constant that is an address in this process (data the code keeps, a host function): `what` names it in
    /// the CLIF dump, where the number would differ from run to run.
    fn address_const(&mut self, address: usize, what: impl Into<String>) -> Value {
        let what = what.into();
        let what = format!("{what} {}", self.addresses.iter().filter(|(_, w)| w.starts_with(&what)).count());
        self.addresses.push((address as i64, what));
        let ptr = self.b.func.dfg.value_type(self.ctx);
        self.int_const(ptr, address as i64)
    }

    /// The function is complete: what it made, and the addresses it holds.
    fn finish(mut self) -> R<(Made, Vec<(i64, String)>)> {
        if let Some(m) = self.missing.take() {
            return Err(CodegenError(m));
        }
        self.b.finalize();
        let made = Made { messages: self.messages, moves: self.moves_generated, data: self.data, specs: self.specs };
        Ok((made, self.addresses))
    }

    /// Writes the entry's `value`, of the hole's type `ty`, to the host's slot at `out`.
    fn write_result(
        &mut self,
        ty: &Ty,
        value: Vals,
        out: Value,
        option_writer: Option<FuncRef>,
        map_writer: usize,
    ) -> R<()> {
        match (ty, option_writer) {
            (Ty::Option(_), Some(writer)) => match value[..] {
                [tag, payload] => {
                    self.b.ins().call(writer, &[out, tag, payload]);
                }
                // `Option<&str>`: the text's pointer and length.
                [tag, data, len] => {
                    self.b.ins().call(writer, &[out, tag, data, len]);
                }
                _ => return Err(CodegenError("an `Option` result's parts".into())),
            },
            (Ty::Str, Some(writer)) => {
                if let [data, len] = value[..] {
                    self.b.ins().call(writer, &[out, data, len]);
                }
            }
            (Ty::Vec(_) | Ty::String, _) => {
                // The buffer (and each string's in it) becomes the host's, in the host's `Vec` layout.
                if let [ptr, cap, len] = value[..] {
                    if let Ty::Vec(elem) = ty {
                        self.element_strings(Helper::StringsRelease, *elem, ptr, len)?;
                    }
                    let release = self.helper(Helper::VecRelease);
                    self.b.ins().call(release, &[self.ctx, ptr]);
                    let offsets = self.vec_offsets()?;
                    for (v, at) in [ptr, cap, len].into_iter().zip(offsets) {
                        self.b.ins().store(MemFlags::trusted(), v, out, at);
                    }
                }
            }
            (Ty::Map { .. }, _) => {
                // The host builds its own map from the entries.
                let writer = self.address_const(map_writer, "map writer");
                let give = self.helper(Helper::MapGive);
                self.b.ins().call(give, &[self.ctx, value[0], writer, out]);
            }
            (Ty::Struct(id), _) => {
                // The box's struct moves into the host's slot.
                let size = self.shims_of(*id)?.size;
                self.move_out_box(value[0], out, size as i64, 0);
            }
            _ => {
                if let Some(&v) = value.first() {
                    self.b.ins().store(MemFlags::trusted(), v, out, 0);
                }
            }
        }
        Ok(())
    }

    /// Calls `lacuna_strings_release` or `lacuna_strings_free` on every `String` of the `len` elements `elem` at
    /// `data` (each element of a `Vec<String>`, each `String` part of a tuple's): their buffers become the host's,
    /// or are freed.
    pub(super) fn element_strings(&mut self, helper: Helper, elem: Elem, data: Value, len: Value) -> R<()> {
        let ptr_at = i64::from(self.vec_offsets()?[0]);
        let (stride, at): (u32, Vec<i32>) = match elem {
            Elem::String => (24, vec![0]),
            Elem::Tuple(t) => {
                let layout = self.tuple_layout(t)?;
                let at = t.parts().iter().zip(&layout.offsets).filter(|(p, _)| **p == Part::String);
                (layout.size, at.map(|(_, &at)| at).collect())
            }
            _ => return Ok(()),
        };
        let f = self.helper(helper);
        for at in at {
            let stride = self.int_const(types::I64, i64::from(stride));
            let ptr_at = self.int_const(types::I64, ptr_at + i64::from(at));
            self.b.ins().call(f, &[self.ctx, data, len, stride, ptr_at]);
        }
        Ok(())
    }

    /// Where the host's type of the tuple element `t` keeps its parts.
    pub(super) fn tuple_layout(&self, t: TupleElem) -> R<TupleLayout> {
        self.tuples.get(&t).cloned().ok_or_else(|| CodegenError(format!("the layout of `{}`", t.name())))
    }

    fn call_helper(&mut self, helper: Helper, args: &[Value]) -> Value {
        let f = self.helper(helper);
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
