//! Faults, fuel and the stack check: how generated code stops, and what it spends.

use crate::abi::{
    Fault, FAULT_AT_OFFSET, FAULT_OFFSET, FAULT_VALUES_OFFSET, FUEL_OFFSET, INTERRUPT_OFFSET, STACK_OFFSET,
};
use crate::codegen::{flat, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, Value};
use lacuna_ir::TExpr;

/// How many fuel counts apart generated code looks at the interrupt (a power of two).
const INTERRUPT_EVERY: i64 = 1024;

impl<'a, 'b> Gen<'a, 'b> {
    /// Ends the current block with a fault return when `cond` is non-zero.
    pub(super) fn fault_if(&mut self, cond: Value, fault: Fault, at: usize) {
        self.fault_if_with(cond, fault, at, &[]);
    }

    /// [`Self::fault_if`] with the values its message needs ([`JitContext::fault_values`]), stored only when the
    /// fault happens: a check in a hot loop then costs a compare and a branch.
    pub(super) fn fault_if_with(&mut self, cond: Value, fault: Fault, at: usize, values: &[Value]) {
        self.fault_if_in(cond, fault, at, values, false);
    }

    /// [`Self::fault_if_with`]; `cold`: the code after the check is on a cold path too (the tick's), so that it
    /// is laid out apart from the hot code rather than between its blocks.
    fn fault_if_in(&mut self, cond: Value, fault: Fault, at: usize, values: &[Value], cold: bool) {
        let fault_block = self.b.create_block();
        self.b.set_cold_block(fault_block);
        let cont = self.b.create_block();
        if cold {
            self.b.set_cold_block(cont);
        }
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
        self.fault_here(fault, at, values);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// [`Self::fault_if`] for one check that covers two faults: `cond` holds when either happens, and `first`
    /// (built on the cold path, from values the check's own dominate) tells the first fault from the second.
    pub(super) fn fault_if_either(
        &mut self,
        cond: Value,
        first: impl FnOnce(&mut Self) -> Value,
        (fault, at): (Fault, usize),
        (otherwise, otherwise_at): (Fault, usize),
    ) {
        let either = self.b.create_block();
        self.b.set_cold_block(either);
        let cont = self.b.create_block();
        self.b.ins().brif(cond, either, &[], cont, &[]);
        self.b.switch_to_block(either);
        self.b.seal_block(either);
        if let Some(taken) = self.guard {
            // (As in `fault_if_in`: a fault of an arm not taken is none.)
            let guarded = self.b.create_block();
            self.b.set_cold_block(guarded);
            self.b.ins().brif(taken, guarded, &[], cont, &[]);
            self.b.switch_to_block(guarded);
            self.b.seal_block(guarded);
        }
        let which = first(self);
        let (first_block, second_block) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(first_block);
        self.b.set_cold_block(second_block);
        self.b.ins().brif(which, first_block, &[], second_block, &[]);
        for (block, fault, at) in [(first_block, fault, at), (second_block, otherwise, otherwise_at)] {
            self.b.switch_to_block(block);
            self.b.seal_block(block);
            self.fault_here(fault, at, &[]);
        }
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// Records `fault` at `at` (and the values its message needs) and returns from the function with it.
    fn fault_here(&mut self, fault: Fault, at: usize, values: &[Value]) {
        for (k, &v) in values.iter().enumerate() {
            self.b.ins().store(MemFlags::trusted(), v, self.ctx, FAULT_VALUES_OFFSET + 8 * k as i32);
        }
        let code = self.b.ins().iconst(types::I32, fault as i64);
        self.b.ins().store(MemFlags::trusted(), code, self.ctx, FAULT_OFFSET);
        let at = self.b.ins().iconst(types::I32, at.min(u32::MAX as usize) as i64);
        self.b.ins().store(MemFlags::trusted(), at, self.ctx, FAULT_AT_OFFSET);
        self.return_fault();
    }

    pub(super) fn return_fault(&mut self) {
        let mut values = vec![self.b.ins().iconst(types::I32, 1)];
        for t in self.in_fn.as_ref().map(flat).unwrap_or_default() {
            values.push(self.zero(t));
        }
        self.b.ins().return_(&values);
    }

    pub(super) fn store_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let left = self.b.use_var(var);
            self.b.ins().store(MemFlags::trusted(), left, self.ctx, FUEL_OFFSET);
        }
    }

    pub(super) fn load_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let left = self.b.ins().load(types::I64, MemFlags::trusted(), self.ctx, FUEL_OFFSET);
            self.b.def_var(var, left);
        }
    }

    /// Fuel for this iteration or call, and (at function entry) the stack limit.
    pub(super) fn enter_checks(&mut self, at: usize) -> R<()> {
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

    /// One count of fuel. The fast path is a test of the count's low bits and a decrement: only every
    /// [`INTERRUPT_EVERY`]th count (and at zero, which those bits always show) takes the cold path that faults
    /// when the fuel is out and looks at the interrupt another thread sets when the time is up. Fuel runs out at
    /// exactly the count it did before; the time budget is noticed within that many counts, and after every host
    /// call ([`Self::after_host_call`]), the one place the snippet's own code spends time no count measures.
    pub(super) fn tick(&mut self, at: usize) {
        let Some(var) = self.fuel else { return };
        let fuel = self.b.use_var(var);
        let low = self.b.ins().band_imm(fuel, INTERRUPT_EVERY - 1);
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        let cont = self.b.create_block();
        self.b.ins().brif(low, cont, &[], slow, &[]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let empty = self.b.ins().icmp_imm(IntCC::Equal, fuel, 0);
        self.fault_if_in(empty, Fault::Fuel, at, &[], true);
        self.interrupt_check(at, true);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        let left = self.b.ins().iadd_imm(fuel, -1);
        self.b.def_var(var, left);
    }

    /// [`Fault::Time`] when another thread has set the interrupt: an atomic load (a plain `mov` on x86-64), which
    /// no load elimination may fold into an earlier one.
    fn interrupt_check(&mut self, at: usize, cold: bool) {
        let flag = self.b.ins().iadd_imm(self.ctx, INTERRUPT_OFFSET as i64);
        let interrupt = self.b.ins().atomic_load(types::I32, MemFlags::trusted(), flag);
        self.fault_if_in(interrupt, Fault::Time, at, &[], cold);
    }

    /// After a call into the host's code (a host function, a shim of a host type's trait) and its panic check:
    /// the interrupt looked at, since the call may have taken any time.
    pub(super) fn after_host_call(&mut self, at: usize) {
        if self.fuel.is_some() {
            self.interrupt_check(at, false);
        }
    }

    /// After a helper that records its fault in the context and returns nothing that says so (a map's change
    /// past the memory budget): the fault return when the context holds one.
    pub(super) fn helper_fault_if_set(&mut self, at: usize) {
        let code = self.b.ins().load(types::I32, MemFlags::trusted(), self.ctx, FAULT_OFFSET);
        self.helper_fault_if(code, at);
    }

    /// After a helper call that records its fault in the context: return the fault when `failed` is non-zero.
    pub(super) fn helper_fault_if(&mut self, failed: Value, at: usize) {
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

    /// The index of a fixed panic message.
    pub(super) fn message(&mut self, message: &str) -> usize {
        match self.messages.iter().position(|m| m == message) {
            Some(i) => i,
            None => {
                self.messages.push(message.to_owned());
                self.messages.len() - 1
            }
        }
    }

    /// A panic with a fixed message, here (the code after it is unreachable).
    pub(super) fn panic_with(&mut self, message: &str, at: usize) {
        let index = self.message(message);
        let index = self.b.ins().iconst(types::I64, index as i64);
        let always = self.b.ins().iconst(types::I8, 1);
        self.fault_if_with(always, Fault::Panic, at, &[index]);
    }

    /// Continue in a fresh block no edge reaches (after `break`, `continue`, `return`).
    pub(super) fn dead_block(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.b.seal_block(dead);
    }

    /// `panic!("{} left", n)` ([`TKind::PanicFormatted`]): the message made, left for the runner, then the fault.
    pub(super) fn panic_formatted(&mut self, e: &TExpr, message: &TExpr) -> R<Vals> {
        let text = self.expr(message)?;
        // (A message that diverged: its own fault came first.)
        if let [ptr, _, len] = text[..] {
            let f = self.helper(Helper::PanicMessage);
            self.b.ins().call(f, &[self.ctx, ptr, len]);
            let index = self.b.ins().iconst(types::I64, crate::abi::FORMATTED_MESSAGE as i64);
            let always = self.b.ins().iconst(types::I8, 1);
            self.fault_if_with(always, Fault::Panic, e.range.start, &[index]);
        }
        Ok(Vec::new())
    }

    /// `expect("..")`, `panic!("..")`, `unreachable!()` ([`TKind::Panic`]).
    pub(super) fn panic_expr(&mut self, e: &TExpr, receiver: &Option<Box<TExpr>>, message: &str) -> R<Vals> {
        let at = e.range.start;
        let Some(receiver) = receiver else {
            self.panic_with(message, at);
            return Ok(Vec::new());
        };
        let values = self.expr(receiver)?;
        // The payload is every part after the tag (text is two, a `String` three).
        let Some((&tag, payload)) = values.split_first().filter(|(_, p)| !p.is_empty()) else {
            return Err(CodegenError("`expect` of something other than an `Option`".into()));
        };
        let none = self.b.ins().icmp_imm(IntCC::Equal, tag, 0);
        let index = self.message(message);
        let index = self.b.ins().iconst(types::I64, index as i64);
        self.fault_if_with(none, Fault::Panic, at, &[index]);
        Ok(payload.to_vec())
    }
}
