//! Boxed trait objects of the host's own traits (`Box<dyn Shape>`, [`lacuna_ir::dyn_box_alias`]): the box read in
//! place as a host struct without fields, and the trait's `&self` methods called on it through the shims the
//! instrumented host exports as the alias's methods.

use std::ops::Range;

use ra_ap_hir::Function;
use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use lacuna_ir::{Receiver, TExpr, TKind, Ty};

use super::{Builder, Result};

impl<'db> Builder<'_, 'db> {
    /// `ty` is `Box<dyn Trait>` of a trait at the host's top level, without other bounds than a lifetime: the
    /// trait's name.
    pub(super) fn dyn_box(&self, ty: &ra_ap_hir::Type<'db>) -> Option<String> {
        let (principal, bounds) = self.boxed_object(ty)?;
        let module = principal.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() || !module.is_crate_root(self.db) {
            return None;
        }
        let name = principal.name(self.db).as_str().to_owned();
        // No auto trait (`dyn Shape + Send`): the alias is the plain object type.
        (self.named.dyn_traits.contains(&name) && bounds.is_empty()).then_some(name)
    }

    /// `b.area()` of a `&self` method of a host trait on a `Box<dyn Trait>` read in place ([`Self::dyn_box`]),
    /// with arguments and an answer the shims pass ([`Self::scalar_signature`]).
    pub(super) fn trait_object_call(
        &mut self,
        m: &ast::MethodCallExpr,
        f: Function,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        use ra_ap_hir::AsAssocItem;
        let Some(ra_ap_hir::AssocItemContainer::Trait(t)) = f.as_assoc_item(self.db).map(|a| a.container(self.db))
        else {
            return Ok(None);
        };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let Some(name) = self.receiver_pointee(&receiver).and_then(|b| self.dyn_box(&b)) else { return Ok(None) };
        if t.name(self.db).as_str() != name {
            return Ok(None);
        }
        let shared = f.self_param(self.db).is_some_and(|p| p.access(self.db) == ra_ap_hir::Access::Shared);
        if !shared || self.scalar_signature(f).is_none() {
            return Ok(None);
        }
        let Some(place) = self.struct_place(&receiver)? else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let args = self.host_args(&args, m.syntax())?;
        let method = f.name(self.db).as_str().to_owned();
        self.note_borrowed_result(Some(f), m.syntax());
        let kind = TKind::HostCall {
            symbol: lacuna_ir::shim_symbol(Some(&lacuna_ir::dyn_box_alias(&name)), &method),
            name: method,
            receiver: Some(Receiver::InPlace(Box::new(Self::in_place(place)))),
            args,
        };
        // A panic inside is placed, as rustc's debug info places the call, at the method's name.
        let start = m.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
        Ok(Some(TExpr { kind, ty: ty.clone(), range: start..range.end }))
    }
}
