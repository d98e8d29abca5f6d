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
        let ra_ap_hir::Adt::Struct(boxed) = ty.as_adt()? else { return None };
        let alloc = boxed.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc");
        if boxed.name(self.db).as_str() != "Box" || !alloc {
            return None;
        }
        let object = ty.type_arguments().next()?;
        let principal = object.as_dyn_trait()?;
        let module = principal.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() || !module.is_crate_root(self.db) {
            return None;
        }
        let name = principal.name(self.db).as_str().to_owned();
        if !self.named.dyn_traits.contains(&name) {
            return None;
        }
        // No auto trait or other bound (`dyn Shape + Send`): the alias is the plain object type.
        let target = boxed.module(self.db).krate(self.db).to_display_target(self.db);
        let shown = ra_ap_hir::HirDisplay::display(&object, self.db, target).to_string();
        shown.split(" + ").skip(1).all(|b| b.starts_with('\'')).then_some(name)
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
        let Some(mut boxed) = self.sema.type_of_expr(&receiver).map(|t| t.original) else { return Ok(None) };
        while let Some((pointee, _)) = boxed.as_reference() {
            boxed = pointee;
        }
        let Some(name) = self.dyn_box(&boxed) else { return Ok(None) };
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
