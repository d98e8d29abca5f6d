//! The Cranelift JIT: compiles a lowered snippet ([`lacuna_lowering::Lowered`]) into one native function that
//! runs in-process against the host's live bindings, and the runtime helpers that code calls.
//!
//! - `abi`: what generated code and the helpers share (the context, fault codes, the entry's signature).
//! - `codegen`: Cranelift code for the subset: debug-build arithmetic (overflow, division, shift faults with
//!   rustc's messages), fuel per loop iteration and call, a stack limit at entry, host calls through shims the
//!   instrumented host exports ([`lacuna_ir::symbol`]).
//! - `helper`: the runtime helpers as one enum: symbol, address and signature per row.
//! - `rt`: the `extern "C"` helpers generated code calls for numbers, sequences, vectors, strings, maps and
//!   text, allocating through the host library's allocator within the run's memory budget.
//!
//! Generated code never unwinds: a fault sets [`JitContext::fault`] and returns; the engine turns it into the
//! hole's error value.

mod abi;
mod codegen;
mod helper;
mod rt;

pub use abi::{Fault, HostFns, JitContext, JitEntry, FORMATTED_MESSAGE};
pub use codegen::{compile, compile_to_clif, CodegenError, Compiled, HostAbi};
pub use rt::heap::Heap;
pub use rt::text::take_fault_message;
