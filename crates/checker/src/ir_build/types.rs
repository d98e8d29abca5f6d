//! Types: rust-analyzer's types of snippet expressions as the IR's [`Ty`], and the host types JIT code can reach.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, SyntaxNode};

use crate::ir_build::{Builder, Placement, Result};
use lacuna_ir::{Elem, MapValue, Scalar, Ty};

impl<'a, 'db> Builder<'a, 'db> {
    pub(super) fn ty(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Result<Ty> {
        if let Some(s) = Self::builtin(ty) {
            return Ok(Ty::Scalar(s));
        }
        if let Some(t) = self.text_ty(ty) {
            self.owns_buffers.set(true);
            return Ok(t);
        }
        if let Some(s) = self.shared_scalar_ref(ty) {
            return Ok(Ty::Scalar(s));
        }
        // `&[T]` (a helper's parameter, an item of `windows`; `&&[T]`, a `filter` closure's parameter over
        // them): its elements read in place.
        if let Some((mut inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            while let Some((next, ra_ap_hir::Mutability::Shared)) = inner.as_reference() {
                inner = next;
            }
            if let Some(elem) = inner.as_slice().and_then(|e| self.elem(&e)) {
                return Ok(Ty::Slice(elem));
            }
        }
        // `&S` (or `&&S`, `&&&S`: a `find` closure's parameter over a `Vec<&S>`) of a plain host struct: its
        // address.
        if let Some((inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            let mut inner = inner;
            while let Some((next, ra_ap_hir::Mutability::Shared)) = inner.as_reference() {
                inner = next;
            }
            if let Some(id) = self.host_type(&inner) {
                return Ok(Ty::StructRef(id));
            }
            // `&&mut S`: a `find` closure's parameter over `iter_mut()`, read in place.
            if let Some((target, ra_ap_hir::Mutability::Mut)) = inner.as_reference() {
                if let Some(id) = self.host_type(&target) {
                    self.borrows("a `&mut` of a host struct", node);
                    return Ok(Ty::StructRef(id));
                }
            }
        }
        // `&mut S` of a plain host struct: its address too, read in place (what is written through it is a place of
        // its own, `Place::ElemField`); whether the borrow is allowed is rustc's check.
        if let Some((inner, ra_ap_hir::Mutability::Mut)) = ty.as_reference() {
            if let Some(id) = self.host_type(&inner) {
                self.borrows("a `&mut` of a host struct", node);
                return Ok(Ty::StructRef(id));
            }
        }
        if let Some(id) = self.host_type(ty) {
            return Ok(Ty::Struct(id));
        }
        if let Some(map) = self.map_ty(ty) {
            self.owns_buffers.set(true);
            return Ok(map);
        }
        if let Some(adt) = ty.as_adt() {
            if self.is_core_adt(adt, "Option") {
                if let Some(payload) = ty.type_arguments().next() {
                    if let Some(s) = self.part(&payload) {
                        return Ok(Ty::option(s));
                    }
                    // `Option<&str>`, `Option<&S>`: a reference read in place.
                    if let Some(inner) = self.ty(&payload, node).ok().filter(Ty::in_place) {
                        return Ok(Ty::Option(Box::new(inner)));
                    }
                    // `Option<S>` of a host struct or enum by value: the `Option` owns the box its value is in —
                    // where no host type has a `Drop` impl of its own, as for a `Result`'s payload.
                    if let Some(Ty::Struct(id)) = self.owned_struct(&payload) {
                        return Ok(Ty::Option(Box::new(Ty::Struct(id))));
                    }
                    // `Option<(usize, &str)>`, as `enumerate().max_by_key(..)` gives: a tuple of values read in
                    // place (copying it owns nothing).
                    if let Ok(Ty::Tuple(parts)) = self.ty(&payload, node) {
                        if parts.iter().all(Ty::in_place) {
                            return Ok(Ty::Option(Box::new(Ty::Tuple(parts))));
                        }
                    }
                    // `Option<String>`: the `Option` owns the text.
                    if self.is_string(&payload) {
                        self.owns_buffers.set(true);
                        return Ok(Ty::Option(Box::new(Ty::String)));
                    }
                    // `Option<(String, f64)>`, as a `filter_map` closure gives for a sequence of such tuples: the
                    // `Option` owns the tuple's text.
                    if let Some(t) = self.tuple_elem(&payload) {
                        self.owns_buffers.set(true);
                        return Ok(Ty::Option(Box::new(Ty::Tuple(t.parts().iter().map(|p| p.owned_ty()).collect()))));
                    }
                }
            }
            if self.is_core_adt(adt, "Result") {
                let mut args = ty.type_arguments();
                if let (Some(ok), Some(err)) = (args.next(), args.next()) {
                    if let (Some(ok), Some(err)) = (self.result_payload(&ok), self.result_payload(&err)) {
                        return Ok(Ty::Result(Box::new(ok), Box::new(err)));
                    }
                }
            }
            let copied = |t: &ra_ap_hir::Type<'db>| {
                // What the references point to is rustc's borrow check.
                self.copied_elem(t).inspect(|_| self.borrows_in_type("a collection of references"))
            };
            if let Some(elem) = self.vec_elem(ty).as_ref().and_then(|t| self.elem(t).or_else(|| copied(t))) {
                self.owns_buffers.set(true);
                return Ok(Ty::Vec(elem));
            }
        }
        if ty.is_tuple() {
            let parts: Option<Vec<Ty>> =
                ty.tuple_fields(self.db).iter().map(|t| self.part(t).map(Ty::Scalar)).collect();
            if let Some(parts) = parts.filter(|p| p.len() >= 2) {
                return Ok(Ty::Tuple(parts));
            }
            // `(String, f64)`, `(&str, i64)`: a tuple the snippet writes into a sequence of them, its parts owned.
            if let Some(t) = self.tuple_elem(ty) {
                return Ok(Ty::Tuple(t.parts().iter().map(|p| p.owned_ty()).collect()));
            }
            // `(usize, &String)`, `(&str, &S)`: values read in place, as `enumerate` and `zip` pair them.
            let parts: Option<Vec<Ty>> =
                ty.tuple_fields(self.db).iter().map(|t| self.ty(t, node).ok().filter(Ty::in_place)).collect();
            if let Some(parts) = parts.filter(|p| p.len() >= 2) {
                return Ok(Ty::Tuple(parts));
            }
            // `(v.first(), v.last())`: `Option`s of values read in place (copying them owns nothing).
            let parts: Option<Vec<Ty>> = ty
                .tuple_fields(self.db)
                .iter()
                .map(|t| self.ty(t, node).ok().filter(|p| matches!(p, Ty::Option(q) if q.in_place())))
                .collect();
            if let Some(parts) = parts.filter(|p| p.len() >= 2) {
                return Ok(Ty::Tuple(parts));
            }
        }
        // `&(String, f64)` (or `&&..`: a closure's parameter over `iter()`): an element of a sequence of tuples,
        // its parts read in place.
        if let Some((mut inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            while let Some((next, ra_ap_hir::Mutability::Shared)) = inner.as_reference() {
                inner = next;
            }
            if let Some(t) = self.tuple_elem(&inner) {
                return Ok(Elem::Tuple(t).read_ty());
            }
            // `&(usize, &f64)`: a `min_by` closure's parameter over `enumerate()`, a tuple of values read in place.
            if let Ok(Ty::Tuple(parts)) = self.ty(&inner, node) {
                if parts.iter().all(Ty::in_place) {
                    return Ok(Ty::Tuple(parts));
                }
            }
        }
        self.not_held(ty, node)
    }

    /// The JIT holds no value of `ty` yet: the reason names the type, so that a report says which.
    fn not_held<T>(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Result<T> {
        match self.shown(ty, node) {
            Some(shown) => self.unsupported(&format!("a value that is not a scalar (`{shown}`)"), node),
            None => self.unsupported("a value that is not a scalar", node),
        }
    }

    /// `ty` as the snippet would write it at `node` where that is possible; a closure's or an opaque type's as
    /// rust-analyzer shows it. For reasons given in reports.
    pub(super) fn shown(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Option<String> {
        let scope = self.sema.scope(node)?;
        Some(ra_ap_hir::HirDisplay::display_source_code(ty, self.db, scope.module().into(), false).unwrap_or_else(
            |_| ra_ap_hir::HirDisplay::display(ty, self.db, scope.krate().to_display_target(self.db)).to_string(),
        ))
    }

    /// A tuple type of two to four parts, each a scalar of at most 64 bits, `String` or `&str` ([`Elem::Tuple`]): the host exports the layout rustc gives it when the host writes the type.
    pub(super) fn tuple_elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<lacuna_ir::TupleElem> {
        use lacuna_ir::Part;
        if !ty.is_tuple() {
            return None;
        }
        let mut parts = Vec::new();
        for t in ty.tuple_fields(self.db) {
            let part = if self.is_string(&t) {
                Part::String
            } else if t.as_reference().is_some_and(|(inner, m)| inner.is_str() && m == ra_ap_hir::Mutability::Shared) {
                Part::Str
            } else {
                let s = Self::builtin(&t)?;
                if matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never) {
                    return None;
                }
                Part::Scalar(s)
            };
            parts.push(part);
        }
        let t = lacuna_ir::TupleElem::new(&parts)?;
        if parts.contains(&Part::String) {
            self.owns_buffers.set(true);
        }
        // What its `&str`s point to is rustc's borrow check.
        if parts.contains(&Part::Str) {
            self.borrows_in_type("a tuple holding `&str`");
        }
        let mut tuples = self.tuples.borrow_mut();
        if !tuples.contains(&t) {
            tuples.push(t);
        }
        Some(t)
    }

    /// A payload of a `Result` a host function returns ([`Ty::Result`]): a scalar or `()`, `String`, a vector of
    /// scalars, `&S` of a
    /// host struct or enum, or one by value — only where no host type has a `Drop` impl of its own, since a
    /// payload no pattern binds is dropped when its arm ends, which can come before rustc drops the temporary.
    pub(super) fn result_payload(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        if ty.is_unit() {
            return Some(Ty::Scalar(Scalar::Unit));
        }
        if let Some(s) = self.part(ty).filter(|_| ty.as_reference().is_none()) {
            return Some(Ty::Scalar(s));
        }
        if self.is_string(ty) {
            self.owns_buffers.set(true);
            return Some(Ty::String);
        }
        // `Vec<S>` of a scalar: its buffer the run's.
        if let Some(s) = self.vec_elem(ty).and_then(|e| Self::word(&e)) {
            self.owns_buffers.set(true);
            return Some(Ty::Vec(Elem::Scalar(s)));
        }
        if let Some((inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            return self.host_type(&inner).map(Ty::StructRef);
        }
        self.owned_struct(ty)
    }

    /// A host struct or enum by value that a `Result` or an `Option` may own ([`Ty::Struct`]): only where no host
    /// type has a `Drop` impl of its own, since the JIT drops such a payload where the arm or local holding it ends,
    /// which can come before rustc drops the temporary.
    pub(super) fn owned_struct(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        let krate = ty.as_adt()?.module(self.db).krate(self.db);
        if !krate.origin(self.db).is_local() || self.host_has_drop_impl(krate) {
            return None;
        }
        let id = self.host_type(ty)?;
        self.owns_buffers.set(true);
        Some(Ty::Struct(id))
    }

    /// What a host type implements of `core::fmt`'s `Debug` and `Display`, as the trait solver finds: on a type
    /// with no generic parameters, through the host's impls and derives (rustc built the host, so they hold).
    fn formats_of(&self, ty: &ra_ap_hir::Type<'db>) -> lacuna_ir::Formats {
        lacuna_ir::Formats {
            debug: self.implements_core(ty, "fmt", "Debug", &[]),
            display: self.implements_core(ty, "fmt", "Display", &[]),
        }
    }

    /// Whether a host type (no generic parameters) implements the trait `core::{module}::{name}` with `args`, as
    /// rust-analyzer's trait solver finds through the host's impls and derives. rustc built the host, so the impls
    /// it finds hold; a trait of the host's own named like std's is not std's.
    pub(super) fn implements_core(
        &self,
        ty: &ra_ap_hir::Type<'db>,
        module: &str,
        name: &str,
        args: &[ra_ap_hir::Type<'db>],
    ) -> bool {
        let Some(krate) = ty.as_adt().map(|adt| adt.module(self.db).krate(self.db)) else { return false };
        let Some(core) = ra_ap_ide_db::famous_defs::FamousDefs(self.sema, krate).core() else { return false };
        let named = |n: Option<ra_ap_hir::Name>, want: &str| n.is_some_and(|n| n.as_str() == want);
        let Some(m) = core.root_module(self.db).children(self.db).find(|m| named(m.name(self.db), module)) else {
            return false;
        };
        m.scope(self.db, None).into_iter().any(|(n, def)| match def {
            ra_ap_hir::ScopeDef::ModuleDef(ra_ap_hir::ModuleDef::Trait(t)) if n.as_str() == name => {
                ty.impls_trait(self.db, t, args)
            }
            _ => false,
        })
    }

    /// Some type of the host's crate implements `Drop` itself.
    fn host_has_drop_impl(&self, krate: ra_ap_hir::Crate) -> bool {
        ra_ap_hir::Impl::all_in_crate(self.db, krate).into_iter().any(|imp| {
            imp.trait_(self.db).is_some_and(|t| {
                t.name(self.db).as_str() == "Drop"
                    && t.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
            })
        })
    }

    pub(super) fn scalar(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Result<Scalar> {
        match Self::builtin(ty) {
            Some(s) => Ok(s),
            None => self.not_held(ty, node),
        }
    }

    pub(super) fn expr_type(&self, expr: &ast::Expr) -> Result<Ty> {
        match self.sema.type_of_expr(expr) {
            Some(info) if !info.original.is_unknown() => self.ty(&info.original, expr.syntax()),
            _ => self.unsupported("an expression of unknown type", expr.syntax()),
        }
    }

    pub(super) fn builtin(ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        if ty.is_unit() {
            return Some(Scalar::Unit);
        }
        if ty.is_never() {
            return Some(Scalar::Never);
        }
        ty.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()))
    }

    /// A scalar that can be part of an aggregate (it has a value of at most 64 bits), or a shared reference to
    /// one (read as the value).
    pub(super) fn part(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        Self::word(ty).or_else(|| self.shared_scalar_ref(ty).filter(|s| valued(*s)))
    }

    /// A scalar type (not a reference) with a value of at most 64 bits: what a shim passes as a word.
    pub(super) fn word(ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        Self::builtin(ty).filter(|s| valued(*s))
    }

    /// `&S` (shared) for a scalar `S`.
    pub(super) fn shared_scalar_ref(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        match ty.as_reference() {
            // `&&S` too (a `filter` closure's parameter over `iter()`).
            Some((inner, ra_ap_hir::Mutability::Shared)) => {
                Self::builtin(&inner).or_else(|| self.shared_scalar_ref(&inner))
            }
            _ => None,
        }
    }

    /// `ty` holds a reference somewhere: itself, a type argument (`Option<&i64>`, `Vec<&str>`) or a tuple field.
    pub(super) fn holds_reference(&self, ty: &ra_ap_hir::Type<'db>) -> bool {
        ty.as_reference().is_some()
            || ty.type_arguments().any(|t| self.holds_reference(&t))
            || (ty.is_tuple() && ty.tuple_fields(self.db).iter().any(|t| self.holds_reference(t)))
    }

    /// A struct with fields (named or by position; not packed) or an enum, declared at the top level of the host
    /// without generics
    /// (JIT code reaches it through its address and the host's shims): its index in `structs`.
    pub(super) fn host_type(&self, ty: &ra_ap_hir::Type<'db>) -> Option<usize> {
        if let Some(kind) = self.any_box(ty) {
            return Some(self.registered(lacuna_ir::struct_size_symbol(kind.alias()), ty));
        }
        if let Some(name) = self.dyn_box(ty) {
            return Some(self.registered(lacuna_ir::struct_size_symbol(&lacuna_ir::dyn_box_alias(&name)), ty));
        }
        let adt = ty.as_adt()?;
        if !self.host_declared(adt) {
            return None;
        }
        if ty.type_arguments().next().is_some() {
            return None;
        }
        // Host enums go the same way (reached in place or held by value, through their shims).
        match adt {
            ra_ap_hir::Adt::Struct(st) => {
                // Fields named or by position (`struct LoanError(pub String)`); a unit struct has no layout to read.
                if st.kind(self.db) == ra_ap_hir::StructKind::Unit {
                    return None;
                }
                // A packed struct's fields may not be borrowed (E0793), which reading text in place does.
                if st.repr(self.db).is_some_and(|r| r.pack.is_some()) {
                    return None;
                }
            }
            ra_ap_hir::Adt::Enum(_) => {}
            ra_ap_hir::Adt::Union(_) => return None,
        }
        Some(self.registered(lacuna_ir::struct_size_symbol(adt.name(self.db).as_str()), ty))
    }

    /// The index in [`TypedSnippet::structs`](lacuna_ir::TypedSnippet::structs) of the host type `ty` whose size
    /// the host exports as `symbol`, registered the first time.
    fn registered(&self, symbol: String, ty: &ra_ap_hir::Type<'db>) -> usize {
        let mut structs = self.structs.borrow_mut();
        match structs.iter().position(|s| *s == symbol) {
            Some(i) => i,
            None => {
                structs.push(symbol);
                self.formats.borrow_mut().push(self.formats_of(ty));
                structs.len() - 1
            }
        }
    }

    /// `adt` is a type of the host the instrumented host exports shims for, by its name: declared at the host's
    /// top level, or in a block around a hole under a name no other type of the host has
    /// ([`crate::NamedItems::block_types`]) and outside the snippet (which may declare a type of that name too).
    pub(super) fn host_declared(&self, adt: ra_ap_hir::Adt) -> bool {
        use ra_ap_hir::HasSource;
        let module = adt.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() {
            return false;
        }
        if module.is_crate_root(self.db) {
            return true;
        }
        let source = match adt {
            ra_ap_hir::Adt::Struct(s) => s.source(self.db).map(|s| s.map(|v| v.syntax().text_range())),
            ra_ap_hir::Adt::Enum(e) => e.source(self.db).map(|s| s.map(|v| v.syntax().text_range())),
            ra_ap_hir::Adt::Union(_) => None,
        };
        source.is_some_and(|s| self.placement(s) == Placement::Host)
            && self.named.block_types.iter().any(|(name, _)| name == adt.name(self.db).as_str())
    }

    /// `imp` is declared in the snippet (or made by a macro, which may be the snippet's).
    pub(super) fn declared_in_snippet(&self, imp: ra_ap_hir::Impl) -> bool {
        use ra_ap_hir::HasSource;
        imp.source(self.db).is_none_or(|s| {
            matches!(self.placement(s.map(|v| v.syntax().text_range())), Placement::Snippet | Placement::Macro)
        })
    }

    /// Where a declaration whose syntax spans `at` sits, relative to the host's file and the snippet's block.
    pub(super) fn placement(&self, at: ra_ap_hir::InFile<ra_ap_syntax::TextRange>) -> Placement {
        let (file, block) = self.snippet_block;
        match at.file_id.file_id() {
            None => Placement::Macro,
            Some(f) if f.file_id(self.db) != file => Placement::OtherFile,
            Some(_) if block.contains_range(at.value) => Placement::Snippet,
            Some(_) => Placement::Host,
        }
    }

    /// Which of std's maps and sets `ty` is, if any.
    pub(super) fn std_collection(&self, ty: &ra_ap_hir::Type<'db>) -> Option<StdCollection> {
        let adt = ty.as_adt()?;
        let krate = adt.module(self.db).krate(self.db).display_name(self.db)?.to_string();
        Some(match (adt.name(self.db).as_str(), krate.as_str()) {
            ("HashMap", "std") => StdCollection::HashMap,
            ("BTreeMap", "alloc") => StdCollection::BTreeMap,
            ("HashSet", "std") => StdCollection::HashSet,
            ("BTreeSet", "alloc") => StdCollection::BTreeSet,
            _ => return None,
        })
    }

    /// std's `HashMap<K, V>` (with its default hasher) or `BTreeMap<K, V>`, with text or scalar keys and scalar
    /// values; or `HashSet<K>` / `BTreeSet<K>` with such keys (a map to `()`).
    pub(super) fn map_ty(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        let collection = self.std_collection(ty)?;
        let (ordered, set) = (collection.ordered(), collection.is_set());
        let args: Vec<ra_ap_hir::Type<'db>> = ty.type_arguments().collect();
        let key = args.first()?;
        let hasher = if set { args.get(1) } else { args.get(2) };
        if !ordered && hasher?.as_adt()?.name(self.db).as_str() != "RandomState" {
            return None;
        }
        let key = if self.is_string(key) {
            Ty::String
        } else if key.as_reference().is_some_and(|(inner, m)| inner.is_str() && m == ra_ap_hir::Mutability::Shared) {
            Ty::Str
        } else {
            // A set of references to scalars (`v.iter().collect::<HashSet<_>>()`) compares them as values; it
            // borrows what they point into, which rustc's borrow check judges.
            let key = match key.as_reference() {
                Some((inner, ra_ap_hir::Mutability::Shared)) if set => {
                    self.borrows_in_type("a set of references");
                    inner
                }
                _ => key.clone(),
            };
            let s = Self::builtin(&key)?;
            // Floats are not `Ord`/`Hash`; keys compare as their bits, which is right for the others.
            if s.is_float() || matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never) {
                return None;
            }
            Ty::Scalar(s)
        };
        let value = match set {
            true => MapValue::Scalar(Scalar::Unit),
            // `Vec<String>` values (`BTreeMap<char, Vec<String>>`: names grouped by a key).
            false if self.vec_elem(args.get(1)?).is_some_and(|e| self.is_string(&e)) => MapValue::Strings,
            false => Self::builtin(args.get(1)?)
                .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))
                .map(MapValue::Scalar)?,
        };
        Some(Ty::Map { key: Box::new(key), value, ordered })
    }

    /// The element type of a sequence in the typed view: a scalar of at most 64 bits (by value, not a reference),
    /// or `String`.
    pub(super) fn elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Elem> {
        if self.is_string(ty) {
            return Some(Elem::String);
        }
        if let Some(t) = self.tuple_elem(ty) {
            return Some(Elem::Tuple(t));
        }
        if let Some(id) = self.host_type(ty) {
            return Some(Elem::Struct(id));
        }
        if ty.as_reference().is_some_and(|(inner, m)| inner.is_str() && m == ra_ap_hir::Mutability::Shared) {
            return Some(Elem::Str);
        }
        // `&S` of a host struct: what it points to is rustc's borrow check.
        if let Some((inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            if let Some(id) = self.host_type(&inner) {
                self.borrows_in_type("a reference to a host struct");
                return Some(Elem::StructRef(id));
            }
        }
        let s = Self::builtin(ty)?;
        (!matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never)).then_some(Elem::Scalar(s))
    }

    /// An element of a vector the snippet makes whose references the JIT holds as what they point to: `&u32`
    /// (`&&u32`, ..) as the number, `&String` (`&&str`, ..) as the text, as the typed view reads such a reference
    /// everywhere else. Only the snippet's own vectors (`let ids: Vec<&u32> = m.keys().collect()`) are read so:
    /// a host's vector of them has rustc's layout (a pointer each), and such a vector is never the hole's value
    /// ([`Self::copies_references`]). Nothing the snippet can do tells a copy from the reference while the
    /// vector lives, since what it points to cannot change then: that is rustc's borrow check, which the caller
    /// asks for.
    fn copied_elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Elem> {
        let (inner, ra_ap_hir::Mutability::Shared) = ty.as_reference()? else { return None };
        let elem = match self.shared_scalar_ref(ty) {
            Some(s) if valued(s) => Elem::Scalar(s),
            Some(_) => return None,
            None if self.text_ty(&inner) == Some(Ty::Str) || self.is_string(&inner) => Elem::Str,
            None => return None,
        };
        Some(elem)
    }

    /// Whether `ty` is a vector whose references the JIT holds as copies ([`Self::copied_elem`]): as the
    /// hole's value, it would be handed over in the wrong layout.
    pub(crate) fn copies_references(&self, ty: &ra_ap_hir::Type<'db>) -> bool {
        self.vec_elem(ty).is_some_and(|t| self.elem(&t).is_none() && self.copied_elem(&t).is_some())
    }

    /// The element type of std's `Vec<T>`.
    pub(super) fn vec_elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<ra_ap_hir::Type<'db>> {
        let ra_ap_hir::Adt::Struct(s) = ty.as_adt()? else { return None };
        let is_vec = s.name(self.db).as_str() == "Vec"
            && s.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc");
        if !is_vec {
            return None;
        }
        ty.type_arguments().next()
    }

    /// `adt` is `core`'s type of this name.
    pub(super) fn is_core_adt(&self, adt: ra_ap_hir::Adt, name: &str) -> bool {
        adt.name(self.db).as_str() == name
            && adt.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
    }
}

/// std's maps and sets, as the typed view tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StdCollection {
    HashMap,
    BTreeMap,
    HashSet,
    BTreeSet,
}

impl StdCollection {
    /// Iterated in key order (a B-tree), not in the hasher's.
    pub(super) fn ordered(self) -> bool {
        matches!(self, StdCollection::BTreeMap | StdCollection::BTreeSet)
    }

    pub(super) fn is_set(self) -> bool {
        matches!(self, StdCollection::HashSet | StdCollection::BTreeSet)
    }
}

/// A scalar with a value of at most 64 bits (not `()`, `!` or a 128-bit integer).
fn valued(s: Scalar) -> bool {
    !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never)
}
