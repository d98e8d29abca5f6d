//! A snippet function's calls of itself in tail position (`fn gcd(a, b) { if b == 0 { a } else { gcd(b, a % b) } }`)
//! as a jump back to the top of its body, as `rustc -O` compiles them: no call, frame or status test per step.
//!
//! Only where every parameter is a scalar: the new arguments are computed first, then every scope inside the
//! function's ends (as a `return` leaves them), the parameters take the new values and the drop flags are cleared,
//! as on a fresh entry. Each step spends a count of fuel, as the call's entry did, and a virtual frame of
//! [`TAIL_FRAME`] bytes of stack: recursion that never ends still ends in the stack budget's fault, as rustc's
//! program (built without optimization) does, and one that ends fits wherever a real frame would have.

use std::collections::HashSet;

use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, MemFlags, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{TBlock, TExpr, TFn, TKind, Ty, TypedSnippet};

use super::{Gen, R};
use crate::abi::{Fault, STACK_OFFSET};

/// The stack a step of a tail self-call is charged: no frame of the JIT's is smaller (a return address and a
/// saved frame pointer), so any depth a real frame reached fits.
const TAIL_FRAME: i64 = 16;

/// Where a function that calls itself in tail position loops back to, and what each step sets.
pub(super) struct TailLoop {
    /// The block after the entry's checks.
    pub(super) head: Block,
    /// The parameters' variables, in order, each of its scalar's one part.
    pub(super) params: Vec<Variable>,
    /// The stack pointer as the steps so far would have left it.
    pub(super) stack: Variable,
    /// The context's stack limit (read once, before the loop).
    pub(super) limit: Value,
    /// The addresses of the calls in tail position ([`tail_self_calls`]).
    pub(super) calls: HashSet<usize>,
}

/// The addresses of function `i`'s calls of itself in tail position: the body's value, through blocks, both arms of
/// an `if` and every arm of a `match`. None unless every parameter is a scalar.
pub(super) fn tail_self_calls(snippet: &TypedSnippet, i: usize, f: &TFn) -> HashSet<usize> {
    let mut calls = HashSet::new();
    if f.params.iter().all(|&p| matches!(snippet.locals[p].ty, Ty::Scalar(_))) {
        in_block(i, &f.body, &mut calls);
    }
    calls
}

fn in_block(i: usize, b: &TBlock, calls: &mut HashSet<usize>) {
    if let Some(tail) = &b.tail {
        in_tail(i, tail, calls);
    }
}

fn in_tail(i: usize, e: &TExpr, calls: &mut HashSet<usize>) {
    match &e.kind {
        TKind::Call { function, .. } if *function == i => {
            calls.insert(e as *const TExpr as usize);
        }
        TKind::Block(b) if b.label.is_none() => in_block(i, b, calls),
        TKind::If { then, otherwise, .. } => {
            in_block(i, then, calls);
            if let Some(o) = otherwise {
                in_tail(i, o, calls);
            }
        }
        TKind::Match { arms, .. } => arms.iter().for_each(|arm| in_tail(i, &arm.body, calls)),
        _ => {}
    }
}

impl Gen<'_, '_> {
    /// Opens the loop a function's tail self-calls jump back to (none without such calls): called where the entry's
    /// checks end. The head is sealed by [`Self::close_tail_loop`], when every jump to it is known.
    pub(super) fn open_tail_loop(&mut self, params: Vec<Variable>, calls: HashSet<usize>) {
        if calls.is_empty() {
            return;
        }
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let stack = self.var(types::I64, sp);
        let limit = self.b.ins().load(types::I64, MemFlags::trusted(), self.ctx, STACK_OFFSET);
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        self.tail = Some(TailLoop { head, params, stack, limit, calls });
    }

    pub(super) fn close_tail_loop(&mut self) {
        if let Some(tail) = self.tail.take() {
            self.b.seal_block(tail.head);
        }
    }

    /// Whether `e` is a call the function makes of itself in tail position.
    pub(super) fn is_tail_call(&self, e: &TExpr) -> bool {
        self.tail.as_ref().is_some_and(|t| t.calls.contains(&(e as *const TExpr as usize)))
    }

    /// A tail self-call: the arguments, the scopes inside the function's left, one count of fuel and a frame of
    /// stack spent, then back to the top with the parameters set. Nothing follows it.
    pub(super) fn tail_call(&mut self, args: &[TExpr]) -> R<()> {
        let mut values = Vec::new();
        for a in args {
            values.extend(self.expr(a)?);
        }
        // The function's own scope (index 0) holds the scalar parameters alone, which drop nothing.
        self.leave_scopes(1)?;
        let Some((head, params, stack, limit)) =
            self.tail.as_ref().map(|t| (t.head, t.params.clone(), t.stack, t.limit))
        else {
            return Err(super::CodegenError("a tail call outside a function that loops".into()));
        };
        if values.len() != params.len() {
            // (A diverging argument: its own fault or return came first, and this code is not reached.)
            self.dead_block();
            return Ok(());
        }
        for (var, v) in params.iter().zip(values) {
            self.b.def_var(*var, v);
        }
        let mut flags: Vec<(usize, Variable)> = self.flags.iter().map(|(l, f)| (*l, *f)).collect();
        flags.sort_by_key(|(local, _)| *local);
        for (_, flag) in flags {
            let clear = self.b.ins().iconst(types::I8, 0);
            self.b.def_var(flag, clear);
        }
        self.tick(0);
        let sp = self.b.use_var(stack);
        let sp = self.b.ins().iadd_imm(sp, -TAIL_FRAME);
        self.b.def_var(stack, sp);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        self.fault_if(below, Fault::Stack, 0);
        self.b.ins().jump(head, &[]);
        self.dead_block();
        Ok(())
    }
}

/// The one variable of each scalar parameter, in order.
pub(super) fn scalar_param_vars(vars: &std::collections::HashMap<usize, Vec<Variable>>, f: &TFn) -> Vec<Variable> {
    f.params.iter().flat_map(|p| vars.get(p).cloned().unwrap_or_default()).collect()
}
