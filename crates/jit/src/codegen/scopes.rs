//! Drop scopes and drop flags: what generated code drops where a scope ends, and on every way out of it before
//! its end (`break`, `continue`, `return`, and so `?`), as rustc drops a scope's locals.
//!
//! A block, a `match` arm, a `for` loop's pass over a vector of strings and a snippet function's parameters each
//! open a scope while their code is generated; each local the scope declares (the payloads an arm's pattern took,
//! the values the caller moved into the parameters) is recorded there, in order.
//! Where the scope ends normally its cleanups run in reverse order. A jump out of scopes (`break`/`continue` to a
//! loop or labelled block, recorded in its [`LoopCtx`](super::control::LoopCtx); `return`, out of all of a
//! function's) runs the cleanups of every scope it leaves, innermost first, and changes nothing for the code after
//! it.
//!
//! A local that some read moves ([`lacuna_lowering::move_sites`]) may be moved on one path and not on another
//! (`if keep { kept.push(line) }`). It gets a drop flag, as rustc's locals do: set where the local gets a value,
//! cleared where one of its moves runs, and tested where it would be dropped. Invariant: a flag is set only while
//! the local owns its value. Every move site of a flagged local must have been generated through
//! [`Gen::expr`] (which clears the flag there); [`Moves::unmoved`] finds one that was not, and the snippet is then
//! not compiled at all.

use std::collections::{BTreeSet, HashSet};

use cranelift_codegen::ir::{types, InstBuilder, Value};
use lacuna_ir::{LocalRef, TExpr, TKind, TPat, Ty, TypedSnippet};

use crate::codegen::{Gen, R};

/// What a scope does where it ends.
#[derive(Clone)]
pub(super) enum Cleanup {
    /// A local dropped ([`Gen::drop_local`]).
    Local(usize),
    /// The end of a `match` arm: what its pattern took out of the scrutinee's `values` ([`Gen::end_arm`]).
    Arm { pat: TPat, scrutinee_ty: Ty, scrutinee_local: bool, values: Vec<Value> },
}

/// What the snippet's reads move, found once per compile and shared by every function's generator.
pub(super) struct Moves {
    /// Locals moved somewhere ([`lacuna_lowering::moved_locals`]): dropped only where their flag says they still
    /// own their value, and never without one.
    pub(super) moved: BTreeSet<usize>,
    /// The locals that get a drop flag: those some read moves, of a type [`Gen::drop_local`] drops, but not the
    /// bindings the snippet owns (they go back to the host, never dropped).
    pub(super) flagged: BTreeSet<usize>,
    /// The addresses of the expressions that move a flagged local ([`lacuna_lowering::move_sites`]).
    pub(super) sites: HashSet<usize>,
}

impl Moves {
    pub(super) fn of(snippet: &TypedSnippet) -> Moves {
        let moved = lacuna_lowering::moved_locals(snippet);
        let lifted: BTreeSet<usize> = snippet.lifted.iter().map(|l| l.local).collect();
        let flagged: BTreeSet<usize> = moved
            .iter()
            .copied()
            .filter(|l| !lifted.contains(l))
            .filter(|&l| {
                matches!(
                    snippet.locals.get(l).map(|l| &l.ty),
                    Some(Ty::Vec(_) | Ty::String | Ty::Struct(_) | Ty::Map { .. })
                ) || snippet.locals.get(l).is_some_and(|l| lacuna_lowering::owned_option(&l.ty))
            })
            .collect();
        let sites = lacuna_lowering::move_sites(snippet)
            .into_iter()
            .filter(|e| matches!(e.kind, TKind::Local(LocalRef::Snippet(id)) if flagged.contains(&id)))
            .map(|e| e as *const TExpr as usize)
            .collect();
        Moves { moved, flagged, sites }
    }

    /// Whether some move of a flagged local was never generated through [`Gen::expr`] (`generated`: the sites
    /// every function's generator cleared a flag at): then a flag might stay set after its local moved.
    pub(super) fn unmoved(&self, generated: &HashSet<usize>) -> bool {
        self.sites.iter().any(|site| !generated.contains(site))
    }
}

impl Gen<'_, '_> {
    pub(super) fn open_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Records what the innermost scope does where it ends (after what it recorded before).
    pub(super) fn on_scope_end(&mut self, cleanup: Cleanup) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(cleanup);
        }
    }

    /// Ends the innermost scope: its cleanups, last recorded first.
    pub(super) fn close_scope(&mut self) -> R<()> {
        let scope = self.scopes.pop().unwrap_or_default();
        scope.iter().rev().try_for_each(|c| self.cleanup(c))
    }

    /// Before a jump out of the scopes from `depth` on: their cleanups, innermost first. The scopes stay open for
    /// the code generated after the jump.
    pub(super) fn leave_scopes(&mut self, depth: usize) -> R<()> {
        let leaving: Vec<Cleanup> =
            self.scopes.get(depth..).unwrap_or_default().iter().rev().flat_map(|s| s.iter().rev()).cloned().collect();
        leaving.iter().try_for_each(|c| self.cleanup(c))
    }

    fn cleanup(&mut self, cleanup: &Cleanup) -> R<()> {
        match cleanup {
            Cleanup::Local(local) => self.drop_local(*local),
            Cleanup::Arm { pat, scrutinee_ty, scrutinee_local, values } => {
                self.end_arm(pat, scrutinee_ty, *scrutinee_local, values)
            }
        }
    }

    /// What a scope drops of `pat`'s bindings where it ends: the `String` fields copied out of a host enum's
    /// variant, the `String` of an `Option<String>` (`Some(name)`), and an `Ok`/`Err` payload bound by name.
    pub(super) fn record_pattern_drops(&mut self, pat: &TPat) {
        for local in pat.field_copies() {
            self.on_scope_end(Cleanup::Local(local));
        }
        if let TPat::Some(inner) | TPat::Ok(inner) | TPat::Err(inner) = pat {
            if let TPat::Bind(local) = &**inner {
                self.on_scope_end(Cleanup::Local(*local));
            }
        }
    }

    /// A flagged local now owns a value (`live`), or none.
    pub(super) fn set_flag(&mut self, local: usize, live: bool) {
        if let Some(&flag) = self.flags.get(&local) {
            let v = self.b.ins().iconst(types::I8, i64::from(live));
            self.b.def_var(flag, v);
        }
    }

    /// `e` (a read of a local) is being generated: where it moves a flagged local, the flag is cleared.
    pub(super) fn note_read(&mut self, e: &TExpr) {
        let TKind::Local(LocalRef::Snippet(local)) = e.kind else { return };
        let site = e as *const TExpr as usize;
        if self.moves.sites.contains(&site) {
            self.moves_generated.insert(site);
            self.set_flag(local, false);
        }
    }

    /// Runs `drop` (which drops `local`) only where the local still owns its value: always for a local never
    /// moved, where its flag is set for a flagged one, never for another moved one.
    pub(super) fn when_owned(&mut self, local: usize, drop: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        if let Some(&flag) = self.flags.get(&local) {
            let live = self.b.use_var(flag);
            let dropping = self.b.create_block();
            let after = self.b.create_block();
            self.b.ins().brif(live, dropping, &[], after, &[]);
            self.b.switch_to_block(dropping);
            self.b.seal_block(dropping);
            drop(self)?;
            self.set_flag(local, false);
            self.b.ins().jump(after, &[]);
            self.b.switch_to_block(after);
            self.b.seal_block(after);
            return Ok(());
        }
        if self.moves.moved.contains(&local) {
            return Ok(());
        }
        drop(self)
    }
}
