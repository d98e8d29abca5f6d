//! Atomics: `S.load(o)`, `S.store(v, o)`, `S.fetch_add(v, o)`, .. of a host static `S` of one of std's atomic
//! types, acted on in place.

use ra_ap_hir::{ModuleDef, PathResolution};
use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Placement, Result};
use lacuna_ir::{AtomicMethod, Scalar, TKind};

impl<'a, 'db> Builder<'a, 'db> {
    /// `S.method(value, ordering)` where `S` names a static the host declares at its top level or in a block
    /// around the hole (not `static mut`; [`Builder::exported_static`]) of std's `AtomicBool` or an atomic
    /// integer, and the ordering is written as one of std's `Ordering` variants. rustc judges every such snippet: a `load` with `Release` is its error (a deny-by-default lint),
    /// not a panic the JIT would have to raise.
    pub(super) fn atomic_method(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(ast::Expr::PathExpr(receiver)) = m.receiver() else { return Ok(None) };
        let Some(PathResolution::Def(ModuleDef::Static(st))) = receiver.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return Ok(None);
        };
        let module = st.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() || st.is_mut(self.db) || !self.exported_static(st) {
            return Ok(None);
        }
        let Some(scalar) = self.atomic_scalar(&st.ty(self.db)) else { return Ok(None) };
        let Some(f) = self.sema.resolve_method_call(m).filter(|f| self.fn_crate(*f).as_deref() == Some("core")) else {
            return Ok(None);
        };
        let Some(method) = AtomicMethod::from_name(f.name(self.db).as_str()) else {
            return self.unsupported("a method of an atomic outside the subset", m.syntax());
        };
        let args: Vec<ast::Expr> = m.arg_list().map(|l| l.args().collect()).unwrap_or_default();
        let (value, ordering) = match (method, args.as_slice()) {
            (AtomicMethod::Load, [o]) => (None, o),
            (AtomicMethod::Load, _) => return self.unsupported("a `load` of this form", m.syntax()),
            (_, [v, o]) => (Some(v), o),
            _ => return self.unsupported("an atomic operation of this form", m.syntax()),
        };
        if !self.is_atomic_ordering(ordering) {
            return self.unsupported("an ordering other than one of std's variants", ordering.syntax());
        }
        let value = match value {
            Some(v) => Some(Box::new(self.expr(v)?)),
            None => None,
        };
        self.rustc_decides("an atomic host static", m.syntax());
        let symbol = lacuna_ir::atomic_static_symbol(st.name(self.db).as_str());
        Ok(Some(TKind::Atomic { symbol, method, value, scalar }))
    }

    /// The instrumented host exports `st`'s address ([`crate::NamedItems::atomic_statics`]): a top-level static
    /// under its name, or one declared in a block around a hole (outside the snippet) under the only name of its
    /// kind in the host — never a block's static of the same name as a top-level one, which would be the other.
    fn exported_static(&self, st: ra_ap_hir::Static) -> bool {
        use ra_ap_hir::HasSource;
        let name = st.name(self.db);
        let Some((_, path)) = self.named.atomic_statics.iter().find(|(n, _)| n == name.as_str()) else { return false };
        if st.module(self.db).is_crate_root(self.db) {
            return *path == name.as_str();
        }
        *path != name.as_str()
            && st.source(self.db).is_some_and(|s| self.placement(s.map(|v| v.syntax().text_range())) == Placement::Host)
    }

    /// The value `core::sync::atomic`'s type `ty` holds.
    fn atomic_scalar(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        let adt = ty.as_adt()?;
        if !self.in_core_atomic(adt.module(self.db)) {
            return None;
        }
        Some(match adt.name(self.db).as_str() {
            "AtomicBool" => Scalar::Bool,
            "AtomicI8" => Scalar::I8,
            "AtomicI16" => Scalar::I16,
            "AtomicI32" => Scalar::I32,
            "AtomicI64" => Scalar::I64,
            "AtomicIsize" => Scalar::Isize,
            "AtomicU8" => Scalar::U8,
            "AtomicU16" => Scalar::U16,
            "AtomicU32" => Scalar::U32,
            "AtomicU64" => Scalar::U64,
            "AtomicUsize" => Scalar::Usize,
            _ => return None,
        })
    }

    /// `e` is a path to a variant of `core::sync::atomic::Ordering` (`Ordering::SeqCst`), a constant.
    fn is_atomic_ordering(&self, e: &ast::Expr) -> bool {
        let ast::Expr::PathExpr(p) = e else { return false };
        let Some(PathResolution::Def(ModuleDef::EnumVariant(v))) = p.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        let en = v.parent_enum(self.db);
        en.name(self.db).as_str() == "Ordering" && self.in_core_atomic(en.module(self.db))
    }

    /// `module` is `core::sync::atomic`.
    fn in_core_atomic(&self, module: ra_ap_hir::Module) -> bool {
        module.name(self.db).is_some_and(|n| n.as_str() == "atomic")
            && module.krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
    }
}
