//! Host values behind std's `Box<dyn Any>` ([`lacuna_ir::AnyBox`]): the box read in place as a host struct
//! without fields, and `is::<T>()` / `downcast_ref::<T>()` of it through the views the instrumented host exports.

use std::ops::Range;

use ra_ap_hir::Function;
use ra_ap_syntax::ast::{self, HasGenericArgs};
use ra_ap_syntax::AstNode;

use lacuna_ir::{AnyBox, AnyView, Receiver, Scalar, TExpr, TKind, Ty};

use super::{Builder, Result};

impl<'db> Builder<'_, 'db> {
    /// `ty` is std's `Box<dyn Any>`, `Box<dyn Any + Send>` or `Box<dyn Any + Send + Sync>`: which of them.
    pub(super) fn any_box(&self, ty: &ra_ap_hir::Type<'db>) -> Option<AnyBox> {
        let (principal, bounds) = self.boxed_object(ty)?;
        // std's `Any`, not a trait of the host's of that name.
        if principal.name(self.db).as_str() != "Any" || !self.in_crate(principal.module(self.db), "core") {
            return None;
        }
        match bounds.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            [] => Some(AnyBox::Plain),
            ["Send"] => Some(AnyBox::Send),
            ["Send", "Sync"] => Some(AnyBox::SendSync),
            _ => None,
        }
    }

    /// `ty` is `Box<dyn Trait ..>`: the object's principal trait, and its other bounds as rust-analyzer writes them
    /// (`dyn Any + Send + 'static`: only auto traits can be there), without lifetimes, which change nothing of the
    /// layout.
    pub(super) fn boxed_object(&self, ty: &ra_ap_hir::Type<'db>) -> Option<(ra_ap_hir::Trait, Vec<String>)> {
        let ra_ap_hir::Adt::Struct(boxed) = ty.as_adt()? else { return None };
        if boxed.name(self.db).as_str() != "Box" || !self.in_crate(boxed.module(self.db), "alloc") {
            return None;
        }
        let object = ty.type_arguments().next()?;
        let principal = object.as_dyn_trait()?;
        let target = boxed.module(self.db).krate(self.db).to_display_target(self.db);
        let shown = ra_ap_hir::HirDisplay::display(&object, self.db, target).to_string();
        let bounds = shown.split(" + ").skip(1).filter(|b| !b.starts_with('\'')).map(str::to_owned).collect();
        Some((principal, bounds))
    }

    /// The type of a method call's receiver without the references around it (`&&Box<dyn Any>` of a closure's
    /// parameter: the box).
    pub(super) fn receiver_pointee(&self, receiver: &ast::Expr) -> Option<ra_ap_hir::Type<'db>> {
        let mut ty = self.sema.type_of_expr(receiver)?.original;
        while let Some((pointee, _)) = ty.as_reference() {
            ty = pointee;
        }
        Some(ty)
    }

    /// `module` is in the crate named `name` (`core`, `alloc`).
    pub(super) fn in_crate(&self, module: ra_ap_hir::Module, name: &str) -> bool {
        module.krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == name)
    }

    /// `x.is::<T>()` or `x.downcast_ref::<T>()` of a box of host values ([`Self::any_box`]) read in place — a
    /// hole binding's element, an iterator's item, `v[i]` — for `T` a host type the instrumented host exports or
    /// a scalar: a call of the view's shim, which answers a `bool` or an `Option` of the value in place (of a
    /// scalar, the number).
    pub(super) fn any_view_call(
        &mut self,
        m: &ast::MethodCallExpr,
        f: Function,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let view = match f.name(self.db).as_str() {
            "is" => AnyView::Is,
            "downcast_ref" => AnyView::DowncastRef,
            _ => return Ok(None),
        };
        // The inherent methods of `dyn Any` (and of `dyn Any + Send`, ..), in `core::any`.
        let module = f.module(self.db);
        if !self.in_crate(module, "core") || module.name(self.db).is_none_or(|n| n.as_str() != "any") {
            return Ok(None);
        }
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let Some(kind) = self.receiver_pointee(&receiver).and_then(|b| self.any_box(&b)) else { return Ok(None) };
        // `T`, as the turbofish writes it (`downcast_ref` without one is E0283, which rustc reports).
        let Some(ast::GenericArg::TypeArg(arg)) = m.generic_arg_list().and_then(|l| l.generic_args().next()) else {
            return Ok(None);
        };
        let Some(target_ty) = arg.ty().and_then(|t| self.sema.resolve_type(&t)) else { return Ok(None) };
        let (target, answer) = match Self::builtin(&target_ty) {
            Some(s) if viewed_scalar(s) => (s.name().to_owned(), Ty::Scalar(s)),
            Some(_) => return Ok(None),
            None => {
                let Some(adt) = target_ty.as_adt() else { return Ok(None) };
                if !self.host_declared(adt) || self.any_box(&target_ty).is_some() {
                    return Ok(None);
                }
                let Some(id) = self.host_type(&target_ty) else { return Ok(None) };
                (adt.name(self.db).as_str().to_owned(), Ty::StructRef(id))
            }
        };
        // What the view writes must be what the typed view reads the call as.
        let expected = match view {
            AnyView::Is => Ty::Scalar(Scalar::Bool),
            AnyView::DowncastRef => Ty::Option(Box::new(answer)),
        };
        if *ty != expected {
            return Ok(None);
        }
        let Some(place) = self.struct_place(&receiver)? else { return Ok(None) };
        let kind = TKind::HostCall {
            name: format!("{}::<{target}>", f.name(self.db).as_str()),
            symbol: kind.view_symbol(view, &target),
            receiver: Some(Receiver::InPlace(Box::new(Self::in_place(place)))),
            args: Vec::new(),
        };
        let start = m.name_ref().map_or(range.start, |n| self.range(n.syntax()).start);
        Ok(Some(TExpr { kind, ty: ty.clone(), range: start..range.end }))
    }
}

/// A scalar the views are exported for ([`crate::SHIM_SCALARS`]: no 128-bit integers, no `()`).
fn viewed_scalar(s: Scalar) -> bool {
    crate::outline::SHIM_SCALARS.contains(&s.name())
}
