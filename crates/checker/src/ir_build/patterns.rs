//! Patterns and what `match`, `if let` and `while let` test: the IR's [`TPat`] over core's and the host's enums.

use ra_ap_hir::PathResolution;
use ra_ap_syntax::ast::{self, HasArgList, RangeItem};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Lit, ParseThen, Scalar, TExpr, TKind, TPat, Ty, VariantField};

impl<'a, 'db> Builder<'a, 'db> {
    /// `Some` (true) or `None` (false) of `core`'s `Option`.
    pub(super) fn option_variant(&self, v: ra_ap_hir::EnumVariant) -> Option<bool> {
        self.core_variant(v, "Option", ["Some", "None"])
    }

    /// `Ok` (true) or `Err` (false) of `core`'s `Result`.
    pub(super) fn result_variant(&self, v: ra_ap_hir::EnumVariant) -> Option<bool> {
        self.core_variant(v, "Result", ["Ok", "Err"])
    }

    /// The enum variant a tuple-struct pattern names.
    pub(super) fn tuple_variant(&self, t: &ast::TupleStructPat) -> Option<ra_ap_hir::EnumVariant> {
        match self.sema.resolve_path(&t.path()?)? {
            PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)) => Some(v),
            _ => None,
        }
    }

    /// Which of `core`'s two-variant enum `name`'s variants `v` is: the first (true) or the second (false).
    pub(super) fn core_variant(
        &self,
        v: ra_ap_hir::EnumVariant,
        name: &str,
        [first, second]: [&str; 2],
    ) -> Option<bool> {
        if !self.is_core_adt(ra_ap_hir::Adt::Enum(v.parent_enum(self.db)), name) {
            return None;
        }
        let variant = v.name(self.db);
        (variant.as_str() == first).then_some(true).or((variant.as_str() == second).then_some(false))
    }

    /// A scrutinee that is a bare `text.parse::<S>()` of a scalar `S`, read as `.ok()` — an `Option<S>` — so that
    /// `if let Ok(v) = ..`, `while let Ok(v) = ..` and `match .. { Ok(v) => .., Err(_) => .. }` stay in the subset
    /// (the error is never bound: an `Err(e)` pattern is outside it).
    pub(super) fn parse_result_scrutinee(&mut self, e: &ast::Expr) -> Result<Option<TExpr>> {
        let ast::Expr::MethodCallExpr(parse) = e else { return Ok(None) };
        let core_parse = parse.name_ref().is_some_and(|n| n.text() == "parse")
            && parse.arg_list().is_some_and(|l| l.args().next().is_none())
            && self.sema.resolve_method_call(parse).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"));
        let Some(receiver) = parse.receiver().filter(|_| core_parse) else { return Ok(None) };
        let Some(result) = self.sema.type_of_expr(e) else { return Ok(None) };
        let Some(target) = result.original.type_arguments().next().and_then(|t| Self::builtin(&t)) else {
            return Ok(None);
        };
        if matches!(target, Scalar::Unit | Scalar::Never) {
            return Ok(None);
        }
        let text = Box::new(self.text_operand(&receiver)?);
        let at = self.range(parse.syntax()).start;
        let kind = TKind::Parse { text, target, then: ParseThen::Ok, at };
        Ok(Some(TExpr { kind, ty: Ty::option(target), range: self.range(e.syntax()) }))
    }

    /// The scrutinee of `if let`, `while let` or `match`, and whether its patterns read a `parse` result as an
    /// `Option`.
    pub(super) fn scrutinee(&mut self, e: &ast::Expr) -> Result<(TExpr, bool)> {
        Ok(match self.parse_result_scrutinee(e)? {
            Some(option) => (option, true),
            None => (Self::in_place(self.expr(e)?), false),
        })
    }

    /// A pattern of a scrutinee from [`Builder::scrutinee`]: of a `parse` result, `Ok(p)` is `Some(p)` and
    /// `Err(_)` is `None`.
    pub(super) fn scrutinee_pat(&mut self, pat: &ast::Pat, parse_result: bool) -> Result<TPat> {
        if !parse_result {
            return self.pat(pat);
        }
        Ok(match pat {
            ast::Pat::WildcardPat(_) => TPat::Wild,
            ast::Pat::OrPat(o) => TPat::Or(o.pats().map(|p| self.scrutinee_pat(&p, true)).collect::<Result<_>>()?),
            ast::Pat::ParenPat(p) => match p.pat() {
                Some(inner) => self.scrutinee_pat(&inner, true)?,
                None => return self.unsupported("a pattern", pat.syntax()),
            },
            ast::Pat::TupleStructPat(t) => {
                let variant = self.tuple_variant(t).and_then(|v| self.result_variant(v));
                let fields: Vec<ast::Pat> = t.fields().collect();
                match (variant, fields.as_slice()) {
                    (Some(true), [inner]) => TPat::Some(Box::new(self.pat(inner)?)),
                    (Some(false), [ast::Pat::WildcardPat(_)]) => TPat::None,
                    _ => return self.unsupported("a pattern of a `parse` result that binds its error", pat.syntax()),
                }
            }
            _ => return self.unsupported("a pattern of a `parse` result", pat.syntax()),
        })
    }

    /// A pattern (its names become snippet locals).
    pub(super) fn pat(&mut self, pat: &ast::Pat) -> Result<TPat> {
        let literal = |lit: &ast::LiteralPat| -> Option<(Lit, bool)> {
            let value = match lit.literal()?.kind() {
                ast::LiteralKind::IntNumber(n) => Lit::Int(n.value().ok()?),
                ast::LiteralKind::Char(c) => Lit::Char(c.value().ok()?),
                ast::LiteralKind::Bool(b) => Lit::Bool(b),
                _ => return None,
            };
            Some((value, lit.minus_token().is_some()))
        };
        Ok(match pat {
            ast::Pat::WildcardPat(_) => TPat::Wild,
            ast::Pat::IdentPat(p) => match self.sema.resolve_bind_pat_to_const(p) {
                Some(ra_ap_hir::ModuleDef::EnumVariant(v)) if self.option_variant(v) == Some(false) => TPat::None,
                Some(_) => return self.unsupported("a constant in a pattern", pat.syntax()),
                None => TPat::Bind(self.declare_local(p)?),
            },
            ast::Pat::LiteralPat(l) => match literal(l) {
                Some((lit, negative)) => TPat::Lit { lit, negative },
                None => return self.unsupported("a literal pattern of this kind", pat.syntax()),
            },
            ast::Pat::RangePat(r) => {
                let end = |p: Option<ast::Pat>| -> Result<Option<(Lit, bool)>> {
                    match p {
                        None => Ok(None),
                        Some(ast::Pat::LiteralPat(l)) => match literal(&l) {
                            Some(v) => Ok(Some(v)),
                            None => self.unsupported("a range pattern of this kind", pat.syntax()),
                        },
                        Some(_) => self.unsupported("a range pattern with a constant", pat.syntax()),
                    }
                };
                let inclusive = r.op_token().is_some_and(|t| t.text() == "..=");
                TPat::Range { lo: end(r.start())?, hi: end(r.end())?, inclusive }
            }
            ast::Pat::OrPat(o) => TPat::Or(o.pats().map(|p| self.pat(&p)).collect::<Result<_>>()?),
            // `&x` against a shared reference: the typed view reads references as values.
            ast::Pat::RefPat(r) if r.mut_token().is_none() => match r.pat() {
                Some(inner) => self.pat(&inner)?,
                None => return self.unsupported("a pattern", pat.syntax()),
            },
            ast::Pat::ParenPat(p) => match p.pat() {
                Some(inner) => self.pat(&inner)?,
                None => return self.unsupported("a pattern", pat.syntax()),
            },
            // `()`: matches the one value of `()`.
            ast::Pat::TuplePat(t) if t.fields().next().is_none() => TPat::Wild,
            ast::Pat::TuplePat(t) => {
                if t.syntax().children_with_tokens().any(|c| c.kind() == ra_ap_syntax::SyntaxKind::DOT2) {
                    return self.unsupported("`..` in a tuple pattern", pat.syntax());
                }
                TPat::Tuple(t.fields().map(|p| self.pat(&p)).collect::<Result<_>>()?)
            }
            ast::Pat::TupleStructPat(_) | ast::Pat::RecordPat(_) | ast::Pat::PathPat(_)
                if self.host_variant_of(pat).is_some() =>
            {
                self.host_variant_pat(pat)?
            }
            ast::Pat::TupleStructPat(t) => {
                let variant = self.tuple_variant(t);
                let fields: Vec<ast::Pat> = t.fields().collect();
                let option = variant.and_then(|v| self.option_variant(v));
                let result = variant.and_then(|v| self.result_variant(v));
                match (option, result, fields.as_slice()) {
                    (Some(true), _, [inner]) => TPat::Some(Box::new(self.pat(inner)?)),
                    (_, Some(true), [inner]) => TPat::Ok(Box::new(self.pat(inner)?)),
                    (_, Some(false), [inner]) => TPat::Err(Box::new(self.pat(inner)?)),
                    _ => return self.unsupported("a pattern of a type other than `Option` or `Result`", pat.syntax()),
                }
            }
            ast::Pat::PathPat(p) => match p.path().and_then(|p| self.sema.resolve_path(&p)) {
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)))
                    if self.option_variant(v) == Some(false) =>
                {
                    TPat::None
                }
                _ => return self.unsupported("a path pattern", pat.syntax()),
            },
            _ => return self.unsupported("a pattern outside the subset", pat.syntax()),
        })
    }

    /// The host enum variant a tuple-struct, record or path pattern names, if it names one of a plain host enum.
    pub(super) fn host_variant_of(&self, pat: &ast::Pat) -> Option<ra_ap_hir::EnumVariant> {
        let path = match pat {
            ast::Pat::TupleStructPat(t) => t.path(),
            ast::Pat::RecordPat(r) => r.path(),
            ast::Pat::PathPat(p) => p.path(),
            _ => None,
        }?;
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = self.sema.resolve_path(&path) else {
            return None;
        };
        self.host_declared(ra_ap_hir::Adt::Enum(v.parent_enum(self.db))).then_some(v)
    }

    /// `E::V(a, _, ..)`, `E::V { f: 1..=3, .. }` or `E::V` of a plain host enum: the variant, and patterns for
    /// scalar fields.
    pub(super) fn host_variant_pat(&mut self, pat: &ast::Pat) -> Result<TPat> {
        let unsupported = |b: &Self| b.unsupported("a pattern of a host enum outside the subset", pat.syntax());
        let Some(v) = self.host_variant_of(pat) else { return unsupported(self) };
        let en = v.parent_enum(self.db);
        let Some(adt) = self.host_type(&en.ty(self.db)) else { return unsupported(self) };
        let variants = en.variants(self.db);
        let Some(index) = variants.iter().position(|x| *x == v) else { return unsupported(self) };
        let first_field: usize = variants[..index].iter().map(|x| x.fields(self.db).len()).sum();
        let declared = v.fields(self.db);
        // (field number within the variant, its pattern)
        let mut given: Vec<(usize, ast::Pat)> = Vec::new();
        match pat {
            ast::Pat::TupleStructPat(t) => {
                let fields: Vec<ast::Pat> = t.fields().collect();
                let rest = fields.iter().position(|f| matches!(f, ast::Pat::RestPat(_)));
                for (i, f) in fields.iter().enumerate() {
                    match rest {
                        Some(r) if i == r => continue,
                        // Fields after `..` count from the end.
                        Some(r) if i > r => given.push((declared.len() - (fields.len() - i), f.clone())),
                        _ => given.push((i, f.clone())),
                    }
                }
            }
            ast::Pat::RecordPat(r) => {
                for f in r.record_pat_field_list().into_iter().flat_map(|l| l.fields()) {
                    let Some(name) = f.field_name().map(|n| n.text().to_string()) else { return unsupported(self) };
                    let Some(i) = declared.iter().position(|d| d.name(self.db).as_str() == name) else {
                        return unsupported(self);
                    };
                    let p = match f.pat() {
                        Some(p) => p,
                        None => return unsupported(self),
                    };
                    given.push((i, p));
                }
            }
            _ => {}
        }
        let mut fields = Vec::new();
        for (i, p) in given {
            // `_` reads nothing, whatever the field's type.
            if matches!(p, ast::Pat::WildcardPat(_)) {
                continue;
            }
            let Some(field) = declared.get(i) else { return unsupported(self) };
            let field_ty = field.ty(self.db);
            let sub = self.pat(&p)?;
            let ty = match (Self::word(&field_ty), &sub) {
                (Some(s), _) => Ty::Scalar(s),
                // A `String` field is bound by name: by reference (its text in place) or by value (a copy the
                // binding owns), as rust-analyzer types the binding.
                (None, &TPat::Bind(local)) if self.is_string(&field_ty) => match &self.locals[local].ty {
                    ty @ (Ty::Str | Ty::String) => ty.clone(),
                    _ => return self.unsupported("a binding of a `String` field of this type", p.syntax()),
                },
                _ => return self.unsupported("a field of a host enum that is not a scalar", p.syntax()),
            };
            let at = self.range(p.syntax()).start;
            fields.push(VariantField { number: (first_field + i) as u32, ty, pat: sub, at });
        }
        Ok(TPat::Variant { adt, index: index as u32, fields })
    }
}
