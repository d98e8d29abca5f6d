//! Host structs and enums: fields in place, literals, clones, comparisons, methods through shims.

use ra_ap_hir::{HasSource, Local, PathResolution};
use ra_ap_syntax::ast::{self, HasArgList, HasAttrs};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Arm, BinOp, Elem, FieldOf, FmtPiece, FmtSpec, Lit, LocalRef, Scalar, TExpr, TKind, TPat, Ty};

/// The operands of `x OP E::V` ([`Builder::unit_variant_operands`]): `x` read in place, the enum's index in
/// `structs`, the variant's index and how many variants the enum has, and whether the variant is on the left.
struct VariantOperands {
    value: TExpr,
    adt: usize,
    index: u32,
    count: u32,
    variant_on_left: bool,
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `x` of a host struct read in place: a [`Ty::Struct`] place or a [`Ty::StructRef`] (`v[i]` of a sequence of
    /// structs is its element's address). `None` for anything else.
    /// The host struct of type `id` that `inner` names, borrowed (`&v[i]`, `&s.inner`, a `&self` method's
    /// receiver): its address, read in place. Not a hole binding's own struct, which is its place in the host's
    /// frame, whose address the typed view does not take. Whether the borrow is allowed is the caller's to note.
    pub(super) fn struct_borrowed(&mut self, inner: &ast::Expr, id: usize) -> Result<Option<TExpr>> {
        let Some(mut value) = self.struct_place(inner)? else { return Ok(None) };
        let binding = matches!((&value.kind, &value.ty), (TKind::Local(LocalRef::Binding(_)), Ty::Struct(_)));
        if binding || !matches!(value.ty, Ty::Struct(a) | Ty::StructRef(a) if a == id) {
            return Ok(None);
        }
        value.ty = Ty::StructRef(id);
        Ok(Some(value))
    }

    pub(super) fn struct_place(&mut self, e: &ast::Expr) -> Result<Option<TExpr>> {
        if let ast::Expr::IndexExpr(ix) = e {
            let seq = ix.base().and_then(|b| self.sequence(&b));
            if let Some(Elem::Struct(id) | Elem::StructRef(id)) = seq.map(|s| s.elem) {
                return self.seq_index(ix, Ty::StructRef(id)).map(Some);
            }
        }
        if let Some(place) = self.through_mut_binding(e) {
            return Ok(Some(place));
        }
        let Ok(ty) = self.expr_type(e) else { return Ok(None) };
        if !matches!(ty, Ty::Struct(_) | Ty::StructRef(_)) {
            return Ok(None);
        }
        self.expr(e).map(|e| Some(Self::in_place(e)))
    }

    /// A hole binding holding a reference to a host struct `S` (`&mut S` or `&S`, or only the one `mutability`
    /// asks for; `self` in a `&mut self` method): the binding and `S`'s index in `structs`.
    pub(super) fn binding_behind_ref(
        &mut self,
        e: &ast::Expr,
        mutability: Option<ra_ap_hir::Mutability>,
    ) -> Option<(usize, usize)> {
        let (binding, local) = self.hole_binding(e)?;
        let (inner, m) = local.ty(self.db).as_reference()?;
        if mutability.is_some_and(|wanted| wanted != m) {
            return None;
        }
        let id = self.host_type(&inner)?;
        self.note_binding(binding, Scalar::Unit);
        Some((binding, id))
    }

    /// A hole binding `r: &mut S` of a host struct (`self` in a hole of a `&mut self` method) read in place:
    /// where it points, as a [`Ty::StructRef`]. Whether the reads overlap a use of it is rustc's borrow check.
    pub(super) fn through_mut_binding(&mut self, e: &ast::Expr) -> Option<TExpr> {
        let (binding, id) = self.binding_behind_ref(e, Some(ra_ap_hir::Mutability::Mut))?;
        self.borrows("a `&mut` binding of a host struct read in place", e.syntax());
        let kind = TKind::Local(lacuna_ir::LocalRef::Binding(binding));
        Some(TExpr { kind, ty: Ty::StructRef(id), range: self.range(e.syntax()) })
    }

    /// A host struct field of a host struct type (`o.status`), read where it is: its address, as a
    /// [`Ty::StructRef`] (never moved out). Anything else as it is.
    pub(super) fn in_place(mut e: TExpr) -> TExpr {
        if let (TKind::RefField { .. }, Ty::Struct(id)) = (&e.kind, &e.ty) {
            e.ty = Ty::StructRef(*id);
        }
        e
    }

    /// `x == E::V` (or `!=`, either way round) for a unit variant `V` of a host enum whose `PartialEq` is derived:
    /// whether `x` is that variant (a derived `PartialEq` compares variants first, and a unit variant has nothing
    /// else), as a `match`.
    pub(super) fn unit_variant_comparison(&mut self, b: &ast::BinExpr, negated: bool) -> Result<Option<TKind>> {
        let Some(VariantOperands { value, adt, index, .. }) = self.unit_variant_operands(b, "PartialEq")? else {
            return Ok(None);
        };
        let range = self.range(b.syntax());
        let boolean =
            |v: bool| TExpr { kind: TKind::Lit(Lit::Bool(v)), ty: Ty::Scalar(Scalar::Bool), range: range.clone() };
        let arms = vec![
            Arm { pat: TPat::Variant { adt, index, fields: Vec::new() }, guard: None, body: boolean(!negated) },
            Arm { pat: TPat::Wild, guard: None, body: boolean(negated) },
        ];
        Ok(Some(TKind::Match { scrutinee: Box::new(value), arms }))
    }

    /// `x < E::V` (`<=`, `>`, `>=`, either way round) for a unit variant `V` of a host enum whose `PartialOrd` is
    /// derived and follows declaration order: `x`'s variant against `V`'s (a derived order compares variants
    /// first, and a value of `V` itself has nothing else), as a `match` over `x`'s variants.
    pub(super) fn unit_variant_ordering(
        &mut self,
        b: &ast::BinExpr,
        ordering: ast::Ordering,
        strict: bool,
    ) -> Result<Option<TKind>> {
        let Some(VariantOperands { value, adt, index, count, variant_on_left }) =
            self.unit_variant_operands(b, "PartialOrd")?
        else {
            return Ok(None);
        };
        // `value OP V`, with `OP` turned round when the variant is on the left.
        let less = (ordering == ast::Ordering::Less) != variant_on_left;
        let range = self.range(b.syntax());
        let holds = |j: u32| match (less, strict) {
            (true, true) => j < index,
            (true, false) => j <= index,
            (false, true) => j > index,
            (false, false) => j >= index,
        };
        let boolean =
            |v: bool| TExpr { kind: TKind::Lit(Lit::Bool(v)), ty: Ty::Scalar(Scalar::Bool), range: range.clone() };
        // Each variant but the last by name; the last as `_` (no exhaustiveness verdict needed).
        let mut arms: Vec<Arm> = (0..count.saturating_sub(1))
            .map(|j| Arm {
                pat: TPat::Variant { adt, index: j, fields: Vec::new() },
                guard: None,
                body: boolean(holds(j)),
            })
            .collect();
        arms.push(Arm { pat: TPat::Wild, guard: None, body: boolean(holds(count.saturating_sub(1))) });
        Ok(Some(TKind::Match { scrutinee: Box::new(value), arms }))
    }

    /// `x OP E::V` or `E::V OP x` for a unit variant `V` of a plain host enum deriving `derive`
    /// ([`Self::unit_variant`]) and `x` a value of that enum read in place.
    fn unit_variant_operands(&mut self, b: &ast::BinExpr, derive: &str) -> Result<Option<VariantOperands>> {
        let (Some(lhs), Some(rhs)) = (b.lhs(), b.rhs()) else { return Ok(None) };
        let variant = |this: &Self, e: &ast::Expr| match e {
            ast::Expr::PathExpr(p) => p.path().and_then(|path| this.unit_variant(&path, derive)),
            _ => None,
        };
        let (value, (adt, index, count), variant_on_left) = match (variant(self, &lhs), variant(self, &rhs)) {
            (_, Some(v)) => (lhs, v, false),
            (Some(v), _) => (rhs, v, true),
            _ => return Ok(None),
        };
        let Some(value) = self.struct_place(&value)? else { return Ok(None) };
        if !matches!(value.ty, Ty::Struct(id) | Ty::StructRef(id) if id == adt) {
            return Ok(None);
        }
        Ok(Some(VariantOperands { value, adt, index, count, variant_on_left }))
    }

    /// A unit variant of a plain host enum that derives `derive` (`PartialEq`, `PartialOrd`; a derive and a
    /// hand-written impl cannot both exist: E0119): the enum's index in `structs`, the variant's in declaration
    /// order, and how many variants there are. For `PartialOrd`, only an enum without explicit discriminants
    /// (whose derived order is then the declaration order).
    fn unit_variant(&self, path: &ast::Path, derive: &str) -> Option<(usize, u32, u32)> {
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = self.sema.resolve_path(path) else {
            return None;
        };
        if v.kind(self.db) != ra_ap_hir::StructKind::Unit {
            return None;
        }
        let en = v.parent_enum(self.db);
        if !self.host_declared(ra_ap_hir::Adt::Enum(en)) {
            return None;
        }
        let node = self.adt_node(ra_ap_hir::Adt::Enum(en))?;
        let ast::Adt::Enum(node) = &node else { return None };
        let explicit_discriminant =
            node.variant_list().into_iter().flat_map(|l| l.variants()).any(|v| v.eq_token().is_some());
        if !self.derives(&ast::Adt::Enum(node.clone()), derive) || (derive == "PartialOrd" && explicit_discriminant) {
            return None;
        }
        let variants = en.variants(self.db);
        let index = variants.iter().position(|x| *x == v)?;
        Some((self.host_type(&en.ty(self.db))?, index as u32, variants.len() as u32))
    }

    /// The declaration of `adt`, in the tree `sema` knows.
    pub(super) fn adt_node(&self, adt: ra_ap_hir::Adt) -> Option<ast::Adt> {
        let (file_id, range) = match adt {
            ra_ap_hir::Adt::Struct(s) => s.source(self.db).map(|s| (s.file_id, s.value.syntax().text_range()))?,
            ra_ap_hir::Adt::Enum(e) => e.source(self.db).map(|s| (s.file_id, s.value.syntax().text_range()))?,
            ra_ap_hir::Adt::Union(_) => return None,
        };
        let root = self.sema.parse_or_expand(file_id);
        let node = match root.covering_element(range) {
            ra_ap_syntax::NodeOrToken::Node(node) => node,
            ra_ap_syntax::NodeOrToken::Token(token) => token.parent()?,
        };
        node.ancestors().find_map(ast::Adt::cast)
    }

    /// Whether `node` derives std's `derive` (`Clone`, `PartialEq`) as rust-analyzer resolves it: under any path,
    /// not a macro that is only named so.
    pub(super) fn derives(&self, node: &ast::Adt, derive: &str) -> bool {
        node.attrs().filter_map(|a| a.meta()).any(|meta| {
            self.sema.resolve_derive_macro(&meta).is_some_and(|macros| {
                macros
                    .iter()
                    .flatten()
                    .any(|m| m.builtin_derive_kind(self.db).is_some() && m.name(self.db).as_str() == derive)
            })
        })
    }

    /// `S { a: .., b }` of a plain host struct whose fields are all given, each a scalar or a `String`.
    pub(super) fn struct_literal(&mut self, r: &ast::RecordExpr, ty: &Ty) -> Result<TKind> {
        let unsupported = |b: &Self| b.unsupported("a struct literal outside the subset", r.syntax());
        let (Ty::Struct(id), Some(list)) = (ty, r.record_expr_field_list()) else { return unsupported(self) };
        // `..base`: a new struct (not a local's, whose other fields stay usable after a partial move).
        let base = match list.spread() {
            Some(b) if !matches!(b, ast::Expr::PathExpr(_)) => Some(Box::new(self.expr(&b)?)),
            Some(_) => return unsupported(self),
            None if list.dotdot_token().is_some() => return unsupported(self),
            None => None,
        };
        let mut fields = Vec::new();
        for field in list.fields() {
            let Some((resolved, local, _)) = self.sema.resolve_record_field(&field) else { return unsupported(self) };
            let ra_ap_hir::Variant::Struct(st) = resolved.parent_def(self.db) else { return unsupported(self) };
            let symbol = lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), resolved.name(self.db).as_str());
            let value = match (field.expr(), local) {
                (Some(e), _) => self.expr(&e)?,
                // `S { x }`: the local `x`.
                (None, Some(local)) => {
                    let kind = TKind::Local(self.local_ref(local, field.syntax())?);
                    let ty = self.ty(&local.ty(self.db), field.syntax())?;
                    TExpr { kind, ty, range: self.range(field.syntax()) }
                }
                (None, None) => return unsupported(self),
            };
            fields.push((symbol, value));
        }
        Ok(TKind::StructLit { id: *id, fields, base })
    }

    /// `x.clone()` and `x.to_string()` of a host struct (std's `Clone` and `ToString` through the host's shims).
    /// Whether the struct implements `Clone` is rustc's check unless rust-analyzer's trait solver finds the impl
    /// (rust-analyzer does not check every bound).
    pub(super) fn struct_method(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Result<Option<TKind>> {
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
        let (Some(receiver), true) = (m.receiver(), no_args) else { return Ok(None) };
        let Some(f) = self.sema.resolve_method_call(m) else { return Ok(None) };
        let kind = match name.as_str() {
            "clone" if self.core_trait_of(f).as_deref() == Some("Clone") && matches!(ty, Ty::Struct(_)) => "clone",
            "to_string" if self.fn_crate(f).as_deref() == Some("alloc") && *ty == Ty::String => "to_string",
            _ => return Ok(None),
        };
        let Some(place) = self.struct_place(&receiver)? else { return Ok(None) };
        let (Ty::Struct(id) | Ty::StructRef(id)) = place.ty else { return Ok(None) };
        if kind == "clone" {
            if *ty != Ty::Struct(id) {
                return Ok(None);
            }
            if !self.clone_implemented(&receiver) {
                self.rustc_decides("cloning a host struct", m.syntax());
            }
            return Ok(Some(TKind::StructClone(Box::new(place))));
        }
        self.owns_buffers.set(true);
        Ok(Some(TKind::Format(vec![FmtPiece::Arg { value: place, spec: FmtSpec::default() }])))
    }

    /// Both operands of `b` have one type per rust-analyzer — a host type, or references to one (`&a == &b`;
    /// `a == &b` does not compile) — and the host type implements `core::cmp::{name}` with itself, as the trait
    /// solver finds.
    fn operands_implement(&self, b: &ast::BinExpr, name: &str) -> bool {
        let (Some(lhs), Some(rhs)) = (b.lhs(), b.rhs()) else { return false };
        let ty_of = |e: &ast::Expr| self.sema.type_of_expr(e).map(|t| t.original);
        let (Some(l), Some(r)) = (ty_of(&lhs), ty_of(&rhs)) else { return false };
        if l != r || l.is_unknown() {
            return false;
        }
        let mut host = l;
        while let Some((inner, _)) = host.as_reference() {
            host = inner;
        }
        self.host_type(&host).is_some() && self.implements_core(&host, "cmp", name, &[host.clone()])
    }

    /// The host type a `clone`'s receiver is (or refers to) implements `core::clone::Clone`, as the trait solver
    /// finds.
    fn clone_implemented(&self, receiver: &ast::Expr) -> bool {
        let Some(mut host) = self.sema.type_of_expr(receiver).map(|t| t.original) else { return false };
        while let Some((inner, _)) = host.as_reference() {
            host = inner;
        }
        self.host_type(&host).is_some() && self.implements_core(&host, "clone", "Clone", &[])
    }

    /// The two operands of a comparison of host values of one type, read in place; `None` for any other operands.
    fn struct_operands(&mut self, b: &ast::BinExpr) -> Result<Option<(TExpr, TExpr)>> {
        let (Some(lhs), Some(rhs)) = (b.lhs(), b.rhs()) else { return Ok(None) };
        let Some(left) = self.struct_place(&lhs)? else { return Ok(None) };
        let Some(right) = self.struct_place(&rhs)? else { return Ok(None) };
        let (Ty::Struct(l) | Ty::StructRef(l), Ty::Struct(r) | Ty::StructRef(r)) = (&left.ty, &right.ty) else {
            return Ok(None);
        };
        // `&a == &b` compares the structs too, but `a == &b` does not compile; rustc tells them apart.
        if l != r {
            return Ok(None);
        }
        Ok(Some((left, right)))
    }

    /// `a == b` / `a != b` of two host structs of one type (`PartialEq` through the host's shim; whether the
    /// struct implements it is rustc's check unless both sides have one type and the trait solver finds the impl).
    pub(super) fn struct_comparison(&mut self, b: &ast::BinExpr, negated: bool) -> Result<Option<TKind>> {
        let Some((left, right)) = self.struct_operands(b)? else { return Ok(None) };
        if !self.operands_implement(b, "PartialEq") {
            self.rustc_decides("comparing host structs", b.syntax());
        }
        Ok(Some(TKind::StructEq { left: Box::new(left), right: Box::new(right), negated }))
    }

    /// `a < b` (`<=`, `>`, `>=`) of two host values of one type (`PartialOrd` through the host's shim; whether the
    /// type implements it is rustc's check).
    pub(super) fn struct_ordering(
        &mut self,
        b: &ast::BinExpr,
        ordering: ast::Ordering,
        strict: bool,
    ) -> Result<Option<TKind>> {
        let Some((left, right)) = self.struct_operands(b)? else { return Ok(None) };
        if !self.operands_implement(b, "PartialOrd") {
            self.rustc_decides("ordering host values", b.syntax());
        }
        let op = match (ordering, strict) {
            (ast::Ordering::Less, true) => BinOp::Lt,
            (ast::Ordering::Less, false) => BinOp::Le,
            (ast::Ordering::Greater, true) => BinOp::Gt,
            (ast::Ordering::Greater, false) => BinOp::Ge,
        };
        Ok(Some(TKind::StructOrd { left: Box::new(left), right: Box::new(right), op }))
    }

    /// `r.field` of a host struct reached in place whose field is an `Option<T>` of a scalar, a `String` or a host
    /// struct: the `Option` read where it is ([`TKind::OptionField`], a [`Ty::Option`] of `T` read in place). Only
    /// for a place the snippet borrows or copies (`&r.field`, `r.field.is_some()`, an `Option` of a scalar).
    pub(super) fn option_field(&mut self, e: &ast::Expr, scalar_only: bool) -> Result<Option<TExpr>> {
        let ast::Expr::FieldExpr(f) = e else { return Ok(None) };
        let (Some(base), Some(either::Either::Left(field))) = (f.expr(), self.sema.resolve_field(f)) else {
            return Ok(None);
        };
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return Ok(None) };
        let field_ty = field.ty(self.db);
        let Some(adt) = field_ty.as_adt() else { return Ok(None) };
        if !self.is_core_adt(adt, "Option") {
            return Ok(None);
        }
        let Some(payload) = field_ty.type_arguments().next() else { return Ok(None) };
        let read = if let Some(s) = self.part(&payload).filter(|_| payload.as_reference().is_none()) {
            Ty::Scalar(s)
        } else if self.is_string(&payload) {
            Ty::Str
        } else if let Some(id) = self.host_type(&payload) {
            Ty::StructRef(id)
        } else {
            return Ok(None);
        };
        if scalar_only && read.scalar().is_none() {
            return Ok(None);
        }
        let Some(base) = self.field_base(&base)? else { return Ok(None) };
        // What the payload's text or address is borrowed from, and for how long, is rustc's borrow check.
        if read.scalar().is_none() {
            self.borrows("an `Option` field's payload read in place", e.syntax());
        }
        let symbol = lacuna_ir::option_field_symbol(st.name(self.db).as_str(), field.name(self.db).as_str());
        let kind = TKind::OptionField { base: Box::new(base), symbol };
        Ok(Some(TExpr { kind, ty: Ty::Option(Box::new(read)), range: self.range(e.syntax()) }))
    }

    /// The struct whose field `r.field` reads, read in place: through a reference (an iterator's item, a `for`
    /// variable, a `&mut` binding) or as an element of one of the hole's sequences (`v[i].field`). `None` for
    /// anything but a host struct.
    fn field_base(&mut self, base: &ast::Expr) -> Result<Option<TExpr>> {
        let base = match base {
            ast::Expr::IndexExpr(ix) => {
                let seq = ix.base().and_then(|b| self.sequence(&b));
                let Some(Elem::Struct(id) | Elem::StructRef(id)) = seq.map(|s| s.elem) else { return Ok(None) };
                self.seq_index(ix, Ty::StructRef(id))?
            }
            other => match self.through_mut_binding(other) {
                Some(place) => place,
                None => self.expr(other)?,
            },
        };
        Ok(matches!(base.ty, Ty::StructRef(_) | Ty::Struct(_)).then_some(base))
    }

    /// `r.field` of a host struct reached in place: through a reference (an iterator's item, a `for` variable) or
    /// as an element of one of the hole's sequences (`v[i].field`).
    pub(super) fn ref_field(&mut self, f: &ast::FieldExpr) -> Result<Option<TKind>> {
        let Some(base) = f.expr() else { return Ok(None) };
        let Some(either::Either::Left(field)) = self.sema.resolve_field(f) else { return Ok(None) };
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return Ok(None) };
        // What the field holds, as declared (a `&str` field is not a `String`'s layout).
        let field_ty = field.ty(self.db);
        let Some(stored) = self.elem(&field_ty).or_else(|| Self::builtin(&field_ty).map(Elem::Scalar)) else {
            return Ok(None);
        };
        let Some(base) = self.field_base(&base)? else { return Ok(None) };
        let symbol = lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), field.name(self.db).as_str());
        Ok(Some(TKind::RefField { base: Box::new(base), symbol, stored }))
    }

    /// `x.field`: a scalar field of a struct the host declares at its top level (no generics), in a hole binding
    /// that holds the struct or a reference to it.
    pub(super) fn host_field(&mut self, f: &ast::FieldExpr) -> Option<usize> {
        let base = f.expr()?;
        let (binding, local) = self.hole_binding(&base)?;
        let Some(either::Either::Left(field)) = self.sema.resolve_field(f) else { return None };
        let ty = Self::builtin(&field.ty(self.db))
            .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))?;
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return None };
        if !self.host_declared(ra_ap_hir::Adt::Struct(st)) {
            return None;
        }
        let adt = ra_ap_hir::Adt::Struct(st);
        let local_ty = local.ty(self.db);
        let (through_ref, mutable_ref) = match local_ty.as_reference() {
            Some((inner, m)) if inner.as_adt() == Some(adt) => (true, m == ra_ap_hir::Mutability::Mut),
            None if local_ty.as_adt() == Some(adt) => (false, false),
            _ => return None,
        };
        let symbol = lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), field.name(self.db).as_str());
        self.note_binding(binding, Scalar::Unit);
        let entry = FieldOf { binding, through_ref, mutable_ref, ty, symbol };
        Some(match self.fields.iter().position(|f| *f == entry) {
            Some(i) => i,
            None => {
                self.fields.push(entry);
                self.fields.len() - 1
            }
        })
    }

    /// A hole binding `r: &S` used as a value: what it points to.
    pub(super) fn binding_through_ref(&mut self, local: Local<'db>) -> Option<usize> {
        if self.local_ids.contains_key(&local) {
            return None;
        }
        let s = self.shared_scalar_ref(&local.ty(self.db))?;
        let index = self.binding_index(local)?;
        self.note_binding(index, s);
        Some(index)
    }
}
