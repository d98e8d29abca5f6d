//! Building the typed view ([`crate::typed`]) of a snippet from rust-analyzer's semantics.

use std::collections::HashMap;
use std::ops::Range;

use ra_ap_hir::{AsAssocItem, Function, Local, PathResolution, Semantics};
use ra_ap_ide::RootDatabase;
use ra_ap_syntax::ast::{self, HasArgList, HasGenericParams, HasLoopBody, HasName, RangeItem};
use ra_ap_syntax::{AstNode, AstToken, SyntaxNode};

use lacuna_ir::Binding;
use lacuna_ir::*;

mod text;

pub(crate) struct Builder<'a, 'db> {
    pub sema: &'a Semantics<'db, RootDatabase>,
    pub db: &'db RootDatabase,
    pub snippet_start: usize,
    pub bindings: &'a [Binding],
    pub locals: Vec<TLocal>,
    local_ids: HashMap<Local<'db>, usize>,
    pub fns: Vec<Option<TFn>>,
    fn_ids: HashMap<Function, usize>,
    pub used_bindings: Vec<(usize, Scalar)>,
    /// A shared reference to a scalar was read as its value somewhere (see `TypedSnippet::references`).
    pub references: std::cell::Cell<bool>,
    /// Temporaries an expression being built needs before it (an array literal an iterator reads, in a hidden
    /// local): [`Self::expr`] puts the expression in a block after them.
    hoisted: Vec<TStmt>,
    /// Host structs' fields used (see `TypedSnippet::fields`).
    pub fields: Vec<FieldOf>,
    /// Host structs reached in place, by their size's symbol (see `TypedSnippet::structs`).
    pub structs: std::cell::RefCell<Vec<String>>,
    /// A value of type `Vec<S>` appears (see `TypedSnippet::owns_buffers`).
    pub owns_buffers: std::cell::Cell<bool>,
    /// The first construct rustc must judge (see `TypedSnippet::rustc_decides`).
    pub rustc_decides: std::cell::RefCell<Option<Unsupported>>,
    /// Constants whose bodies are being built (a constant is computed where it is used).
    expanding_consts: Vec<ra_ap_hir::Const>,
    /// Closures kept in locals (`let f = |x| ..;`), inlined where they are called.
    closure_locals: HashMap<Local<'db>, Closure>,
}

type Result<T> = std::result::Result<T, Unsupported>;

impl<'a, 'db> Builder<'a, 'db> {
    pub fn new(
        sema: &'a Semantics<'db, RootDatabase>,
        db: &'db RootDatabase,
        snippet_start: usize,
        bindings: &'a [Binding],
    ) -> Self {
        Builder {
            sema,
            db,
            snippet_start,
            bindings,
            locals: Vec::new(),
            local_ids: HashMap::new(),
            fns: Vec::new(),
            fn_ids: HashMap::new(),
            used_bindings: Vec::new(),
            references: std::cell::Cell::new(false),
            hoisted: Vec::new(),
            fields: Vec::new(),
            structs: std::cell::RefCell::new(Vec::new()),
            owns_buffers: std::cell::Cell::new(false),
            rustc_decides: std::cell::RefCell::new(None),
            expanding_consts: Vec::new(),
            closure_locals: HashMap::new(),
        }
    }

    /// Notes a construct whose verdict only rustc can give (the first one noted is kept).
    pub(crate) fn rustc_decides(&self, construct: &str, node: &SyntaxNode) {
        let mut slot = self.rustc_decides.borrow_mut();
        if slot.is_none() {
            *slot = Some(Unsupported { construct: construct.to_owned(), range: self.range(node) });
        }
    }

    /// `ty` holds a reference somewhere: itself, a type argument (`Option<&i64>`, `Vec<&str>`) or a tuple field.
    fn holds_reference(&self, ty: &ra_ap_hir::Type<'db>) -> bool {
        ty.as_reference().is_some()
            || ty.type_arguments().any(|t| self.holds_reference(&t))
            || (ty.is_tuple() && ty.tuple_fields(self.db).iter().any(|t| self.holds_reference(t)))
    }

    fn range(&self, node: &SyntaxNode) -> Range<usize> {
        // Nodes inside a macro's expansion (`vec![..]`'s elements) are placed where the snippet wrote them.
        let r = self.sema.original_range_opt(node).map_or_else(|| node.text_range(), |r| r.range);
        usize::from(r.start()).saturating_sub(self.snippet_start)
            ..usize::from(r.end()).saturating_sub(self.snippet_start)
    }

    fn unsupported<T>(&self, what: &str, node: &SyntaxNode) -> Result<T> {
        Err(Unsupported { construct: what.to_owned(), range: self.range(node) })
    }

    fn builtin(ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
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
    fn part(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        let valued = |s: &Scalar| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never);
        if let Some(s) = Self::builtin(ty).filter(valued) {
            return Some(s);
        }
        self.shared_scalar_ref(ty).filter(valued)
    }

    /// `&S` (shared) for a scalar `S`.
    fn shared_scalar_ref(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Scalar> {
        match ty.as_reference() {
            // `&&S` too (a `filter` closure's parameter over `iter()`).
            Some((inner, ra_ap_hir::Mutability::Shared)) => {
                Self::builtin(&inner).or_else(|| self.shared_scalar_ref(&inner))
            }
            _ => None,
        }
    }

    /// `adt` is `core`'s type of this name.
    fn is_core_adt(&self, adt: ra_ap_hir::Adt, name: &str) -> bool {
        adt.name(self.db).as_str() == name
            && adt.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
    }

    /// `Some` (true) or `None` (false) of `core`'s `Option`.
    fn option_variant(&self, v: ra_ap_hir::EnumVariant) -> Option<bool> {
        self.core_variant(v, "Option", ["Some", "None"])
    }

    /// `Ok` (true) or `Err` (false) of `core`'s `Result`.
    fn result_variant(&self, v: ra_ap_hir::EnumVariant) -> Option<bool> {
        self.core_variant(v, "Result", ["Ok", "Err"])
    }

    /// The enum variant a tuple-struct pattern names.
    fn tuple_variant(&self, t: &ast::TupleStructPat) -> Option<ra_ap_hir::EnumVariant> {
        match self.sema.resolve_path(&t.path()?)? {
            PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)) => Some(v),
            _ => None,
        }
    }

    /// Which of `core`'s two-variant enum `name`'s variants `v` is: the first (true) or the second (false).
    fn core_variant(&self, v: ra_ap_hir::EnumVariant, name: &str, [first, second]: [&str; 2]) -> Option<bool> {
        if !self.is_core_adt(ra_ap_hir::Adt::Enum(v.parent_enum(self.db)), name) {
            return None;
        }
        let variant = v.name(self.db);
        (variant.as_str() == first).then_some(true).or((variant.as_str() == second).then_some(false))
    }

    /// A scrutinee that is a bare `text.parse::<S>()` of a scalar `S`, read as `.ok()` — an `Option<S>` — so that
    /// `if let Ok(v) = ..`, `while let Ok(v) = ..` and `match .. { Ok(v) => .., Err(_) => .. }` stay in the subset
    /// (the error is never bound: an `Err(e)` pattern is outside it).
    fn parse_result_scrutinee(&mut self, e: &ast::Expr) -> Result<Option<TExpr>> {
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
        let at = usize::from(parse.syntax().text_range().start()).saturating_sub(self.snippet_start);
        let kind = TKind::Parse { text, target, then: ParseThen::Ok, at };
        Ok(Some(TExpr { kind, ty: Ty::option(target), range: self.range(e.syntax()) }))
    }

    /// The scrutinee of `if let`, `while let` or `match`, and whether its patterns read a `parse` result as an
    /// `Option`.
    fn scrutinee(&mut self, e: &ast::Expr) -> Result<(TExpr, bool)> {
        Ok(match self.parse_result_scrutinee(e)? {
            Some(option) => (option, true),
            None => (self.expr(e)?, false),
        })
    }

    /// A pattern of a scrutinee from [`Builder::scrutinee`]: of a `parse` result, `Ok(p)` is `Some(p)` and
    /// `Err(_)` is `None`.
    fn scrutinee_pat(&mut self, pat: &ast::Pat, parse_result: bool) -> Result<TPat> {
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

    fn ty(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Result<Ty> {
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
        // `&S` (or `&&S`) of a plain host struct: its address.
        if let Some((inner, ra_ap_hir::Mutability::Shared)) = ty.as_reference() {
            let inner = match inner.as_reference() {
                Some((innermost, ra_ap_hir::Mutability::Shared)) => innermost,
                _ => inner,
            };
            if let Some(id) = self.host_type(&inner) {
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
                }
            }
            if let Some(elem) = self.vec_elem(ty).as_ref().and_then(|t| self.elem(t)) {
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
        }
        self.unsupported("a value that is not a scalar", node)
    }

    fn scalar(&self, ty: &ra_ap_hir::Type<'db>, node: &SyntaxNode) -> Result<Scalar> {
        match Self::builtin(ty) {
            Some(s) => Ok(s),
            None => self.unsupported("a value that is not a scalar", node),
        }
    }

    fn expr_type(&self, expr: &ast::Expr) -> Result<Ty> {
        match self.sema.type_of_expr(expr) {
            Some(info) if !info.original.is_unknown() => self.ty(&info.original, expr.syntax()),
            _ => self.unsupported("an expression of unknown type", expr.syntax()),
        }
    }

    /// A hole binding that is a sequence of scalars (`Vec<S>`, `&Vec<S>`, `&mut Vec<S>`, `&[S]`, `&mut [S]`,
    /// with `S` at most 64 bits), as `expr` names it.
    fn sequence(&mut self, expr: &ast::Expr) -> Option<Seq> {
        if let Some(seq) = self.owned_sequence(expr) {
            return Some(seq);
        }
        let (binding, local) = self.hole_binding(expr)?;
        let ty = local.ty(self.db);
        let vec_elem = |ty: &ra_ap_hir::Type<'db>| self.vec_elem(ty);
        let (kind, elem, writable) = match ty.as_reference() {
            Some((inner, m)) if inner.is_slice() => {
                (SeqKind::Slice, inner.as_slice()?, m == ra_ap_hir::Mutability::Mut)
            }
            Some((inner, m)) => (SeqKind::RefVec, vec_elem(&inner)?, m == ra_ap_hir::Mutability::Mut),
            None => (SeqKind::Vec, vec_elem(&ty)?, local.is_mut(self.db)),
        };
        let elem = self.elem(&elem)?;
        if elem.owns_buffer() {
            self.owns_buffers.set(true);
        }
        self.note_binding(binding, elem.scalar().unwrap_or(Scalar::Unit));
        Some(Seq { binding, kind, elem, writable })
    }

    /// The element type of a sequence in the typed view: a scalar of at most 64 bits (by value, not a reference),
    /// or `String`.
    fn elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Elem> {
        if self.is_string(ty) {
            return Some(Elem::String);
        }
        if let Some(id) = self.host_type(ty) {
            return Some(Elem::Struct(id));
        }
        if ty.as_reference().is_some_and(|(inner, m)| inner.is_str() && m == ra_ap_hir::Mutability::Shared) {
            return Some(Elem::Str);
        }
        let s = Self::builtin(ty)?;
        (!matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never)).then_some(Elem::Scalar(s))
    }

    /// `vec![a, b, ..]`, `vec![x; n]` and `vec![]`, read from the macro's expansion (its elements keep their
    /// place in the snippet).
    fn vec_macro(&mut self, call: &ast::MacroCall) -> Result<TKind> {
        let Some(expansion) = self.sema.expand_macro_call(call) else {
            return self.unsupported("a `vec!` that does not expand", call.syntax());
        };
        let tokens: Vec<_> = call
            .token_tree()
            .map(|t| t.syntax().children_with_tokens().filter_map(|t| t.into_token()).collect())
            .unwrap_or_default();
        let empty =
            tokens.iter().all(|t| t.kind().is_trivia() || matches!(t.text(), "(" | ")" | "[" | "]" | "{" | "}"));
        if empty {
            return Ok(TKind::VecLit(Vec::new()));
        }
        if tokens.iter().any(|t| t.kind() == ra_ap_syntax::SyntaxKind::SEMICOLON) {
            // `vec![value; count]` is `from_elem(value, count)`.
            let from_elem = expansion.value.descendants().filter_map(ast::CallExpr::cast).find(|c| {
                matches!(c.expr(), Some(ast::Expr::PathExpr(p)) if p.path().and_then(|p| p.segment()).is_some_and(|s| s.to_string() == "from_elem"))
            });
            let args: Vec<ast::Expr> =
                from_elem.into_iter().flat_map(|c| c.arg_list()).flat_map(|l| l.args()).collect();
            let [value, count] = args.as_slice() else {
                return self.unsupported("`vec![value; count]`", call.syntax());
            };
            let value = Box::new(self.expr(value)?);
            let count = Box::new(self.expr(count)?);
            return Ok(TKind::VecRepeat { value, count });
        }
        let Some(array) = expansion.value.descendants().find_map(ast::ArrayExpr::cast) else {
            return self.unsupported("a `vec!` of this form", call.syntax());
        };
        let elems = array.exprs().map(|e| self.expr(&e)).collect::<Result<Vec<_>>>()?;
        Ok(TKind::VecLit(elems))
    }

    /// `v[i]` of a sequence, as a value of type `ty` (the element's, or for an element read in place, the reference
    /// the typed view reads it through).
    fn seq_index(&mut self, ix: &ast::IndexExpr, ty: Ty) -> Result<TExpr> {
        let range = self.range(ix.syntax());
        let (Some(base), Some(index)) = (ix.base(), ix.index()) else {
            return self.unsupported("an index expression", ix.syntax());
        };
        let Some(seq) = self.sequence(&base) else {
            return self.unsupported("indexing something other than a sequence of scalars", ix.syntax());
        };
        let index = self.expr(&index)?;
        if index.s() != Scalar::Usize {
            return self.unsupported("an index that is not a `usize`", ix.syntax());
        }
        let kind = TKind::SeqIndex { seq, index: Box::new(index) };
        // A `Vec`'s indexing is a call of `Index::index`, whose faults rustc places at the `[`.
        match ix.l_brack_token() {
            Some(bracket) if seq.kind != SeqKind::Slice => {
                let start = usize::from(bracket.text_range().start()).saturating_sub(self.snippet_start);
                Ok(TExpr { kind, ty, range: start..range.end })
            }
            _ => Ok(TExpr { kind, ty, range }),
        }
    }

    /// `String::from`, `ToString::to_string` or `ToOwned::to_owned` named as a function (std's).
    fn text_to_string_fn(&self, p: &ast::PathExpr) -> bool {
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
            p.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        let from_alloc = self.fn_crate(f).as_deref() == Some("alloc");
        from_alloc && matches!(f.name(self.db).as_str(), "from" | "to_string" | "to_owned")
    }

    /// What `map(String::from)` does to text, as a closure written in place: `|t| t.to_string()`.
    fn string_from_text_closure(&mut self, p: &ast::PathExpr) -> Closure {
        let range = self.range(p.syntax());
        let param = self.locals.len();
        self.locals.push(TLocal {
            name: format!("<text at {}>", range.start),
            ty: Ty::Str,
            mutable: false,
            fixed_type: true,
            array_literal: false,
        });
        let text = TExpr { kind: TKind::Local(LocalRef::Snippet(param)), ty: Ty::Str, range: range.clone() };
        let kind = TKind::TextMethod { name: TextMethod::ToString, receiver: Box::new(text), args: Vec::new() };
        Closure { params: vec![TPat::Bind(param)], body: Box::new(TExpr { kind, ty: Ty::String, range }) }
    }

    /// The name of the crate that defines `f` (`core`, `alloc`, `std` for std's).
    pub(super) fn fn_crate(&self, f: ra_ap_hir::Function) -> Option<String> {
        f.module(self.db).krate(self.db).display_name(self.db).map(|n| n.to_string())
    }

    /// `m` calls a slice's, `Vec`'s or `str`'s own method (`core` or `alloc`), not a trait's.
    fn std_inherent_method(&self, m: &ast::MethodCallExpr) -> bool {
        self.sema.resolve_method_call(m).is_some_and(|f| {
            matches!(self.fn_crate(f).as_deref(), Some("core" | "alloc")) && self.core_trait_of(f).is_none()
        })
    }

    /// `split_whitespace()`, `lines()` or `split(..)` of `str` (std's, not a host trait's method of that name).
    fn text_pieces_call(&self, call: &ast::MethodCallExpr) -> bool {
        let Some(name) = call.name_ref().map(|n| n.text().to_string()) else { return false };
        if !matches!(name.as_str(), "split_whitespace" | "lines" | "split") {
            return false;
        }
        self.sema.resolve_method_call(call).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"))
    }

    /// A struct with named fields (not packed) or an enum, declared at the top level of the host without generics
    /// (JIT code reaches it through its address and the host's shims): its index in `structs`.
    fn host_type(&self, ty: &ra_ap_hir::Type<'db>) -> Option<usize> {
        let adt = ty.as_adt()?;
        let module = adt.module(self.db);
        if !module.is_crate_root(self.db) || !module.krate(self.db).origin(self.db).is_local() {
            return None;
        }
        if ty.type_arguments().next().is_some() {
            return None;
        }
        // Host enums go the same way (reached in place or held by value, through their shims).
        match adt {
            ra_ap_hir::Adt::Struct(st) => {
                if st.kind(self.db) != ra_ap_hir::StructKind::Record {
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
        let symbol = lacuna_ir::struct_size_symbol(adt.name(self.db).as_str());
        let mut structs = self.structs.borrow_mut();
        Some(match structs.iter().position(|s| *s == symbol) {
            Some(i) => i,
            None => {
                structs.push(symbol);
                structs.len() - 1
            }
        })
    }

    /// std's `HashMap<K, V>` (with its default hasher) or `BTreeMap<K, V>`, with text or scalar keys and scalar
    /// values; or `HashSet<K>` / `BTreeSet<K>` with such keys (a map to `()`).
    fn map_ty(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        let adt = ty.as_adt()?;
        let krate = adt.module(self.db).krate(self.db).display_name(self.db)?.to_string();
        let (ordered, set) = match (adt.name(self.db).as_str(), krate.as_str()) {
            ("HashMap", "std") => (false, false),
            ("BTreeMap", "alloc") => (true, false),
            ("HashSet", "std") => (false, true),
            ("BTreeSet", "alloc") => (true, true),
            _ => return None,
        };
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
                    self.references.set(true);
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
            true => Scalar::Unit,
            false => Self::builtin(args.get(1)?)
                .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))?,
        };
        Some(Ty::Map { key: Box::new(key), value, ordered })
    }

    /// The snippet local of map type that `e` names.
    fn map_local(&self, e: &ast::Expr) -> Option<usize> {
        let ast::Expr::PathExpr(p) = e else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        let &id = self.local_ids.get(&local)?;
        matches!(self.locals.get(id)?.ty, Ty::Map { .. }).then_some(id)
    }

    /// A key argument of a map method: text read in place (or a `String` moved in, for `insert` and `entry`), or a
    /// scalar (a `&k` read as its value).
    fn map_key(&mut self, map: usize, e: &ast::Expr) -> Result<TExpr> {
        match &self.locals[map].ty {
            Ty::Map { key, .. } if matches!(**key, Ty::String | Ty::Str) => self.text_operand(e),
            _ => self.expr(e),
        }
    }

    /// `HashMap::new()` / `BTreeMap::new()` (std's).
    fn map_new(&self, c: &ast::CallExpr, ty: &Ty) -> bool {
        let no_args = c.arg_list().is_some_and(|l| l.args().next().is_none());
        let Some(ast::Expr::PathExpr(callee)) = c.expr() else { return false };
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
            callee.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        no_args
            && matches!(ty, Ty::Map { .. })
            && f.name(self.db).as_str() == "new"
            && matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc"))
    }

    /// A method of the snippet's map local: `insert`, `get`, `contains_key`, `remove`, `len`, `is_empty` (std's);
    /// of a set local: `insert`, `contains`, `remove`, `len`, `is_empty`.
    fn map_method(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(map) = m.receiver().and_then(|r| self.map_local(&r)) else { return Ok(None) };
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(f) = self.sema.resolve_method_call(m) else { return Ok(None) };
        if !matches!(self.fn_crate(f).as_deref(), Some("std" | "alloc")) {
            return Ok(None);
        }
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let set = self.locals[map].ty.is_set();
        let Some(name) = MapMethod::from_name(&name).filter(|m| *m != MapMethod::Index) else {
            return self.unsupported("a map method outside the subset", m.syntax());
        };
        let args = match (name, args.as_slice()) {
            (MapMethod::Len | MapMethod::IsEmpty, []) => Vec::new(),
            (MapMethod::Get | MapMethod::ContainsKey | MapMethod::Remove, [k]) if !set => vec![self.map_key(map, k)?],
            (MapMethod::Insert, [k, v]) if !set => vec![self.map_key(map, k)?, self.expr(v)?],
            (MapMethod::Contains | MapMethod::Remove | MapMethod::Insert, [k]) if set => vec![self.map_key(map, k)?],
            _ => return self.unsupported("a map method outside the subset", m.syntax()),
        };
        let at =
            m.name_ref().map_or(0, |n| usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start));
        Ok(Some(TKind::MapMethod { map, name, args, at }))
    }

    /// `*m.entry(key).or_insert(default)` / `.or_default()` on the snippet's map local: (map, key, default).
    fn map_entry(&mut self, e: &ast::Expr) -> Result<Option<(usize, TExpr, Option<TExpr>)>> {
        let ast::Expr::MethodCallExpr(or) = e else { return Ok(None) };
        let Some(ast::Expr::MethodCallExpr(entry)) = or.receiver() else { return Ok(None) };
        if entry.name_ref().is_none_or(|n| n.text() != "entry") {
            return Ok(None);
        }
        let Some(map) = entry.receiver().and_then(|r| self.map_local(&r)) else { return Ok(None) };
        let key: Vec<ast::Expr> = entry.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let default: Vec<ast::Expr> = or.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let [key] = key.as_slice() else { return Ok(None) };
        let default = match (or.name_ref().map(|n| n.text().to_string()).as_deref(), default.as_slice()) {
            (Some("or_insert"), [d]) => Some(self.expr(d)?),
            (Some("or_default"), []) => None,
            _ => return Ok(None),
        };
        let key = self.map_key(map, key)?;
        Ok(Some((map, key, default)))
    }

    /// `x` of a host struct read in place: a [`Ty::Struct`] place or a [`Ty::StructRef`] (`v[i]` of a sequence of
    /// structs is its element's address). `None` for anything else.
    fn struct_place(&mut self, e: &ast::Expr) -> Result<Option<TExpr>> {
        if let ast::Expr::IndexExpr(ix) = e {
            let seq = ix.base().and_then(|b| self.sequence(&b));
            if let Some(Elem::Struct(id)) = seq.map(|s| s.elem) {
                return self.seq_index(ix, Ty::StructRef(id)).map(Some);
            }
        }
        let Ok(ty) = self.expr_type(e) else { return Ok(None) };
        if !matches!(ty, Ty::Struct(_) | Ty::StructRef(_)) {
            return Ok(None);
        }
        self.expr(e).map(Some)
    }

    /// `S { a: .., b }` of a plain host struct whose fields are all given, each a scalar or a `String`.
    fn struct_literal(&mut self, r: &ast::RecordExpr, ty: &Ty) -> Result<TKind> {
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
    /// Whether the struct implements the trait is rustc's check (rust-analyzer does not check every bound).
    fn struct_method(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Result<Option<TKind>> {
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
            self.rustc_decides("cloning a host struct", m.syntax());
            return Ok(Some(TKind::StructClone(Box::new(place))));
        }
        self.owns_buffers.set(true);
        Ok(Some(TKind::Format(vec![FmtPiece::Arg { value: place, spec: FmtSpec::default() }])))
    }

    /// `a == b` / `a != b` of two host structs of one type (`PartialEq` through the host's shim; whether the
    /// struct implements it is rustc's check).
    fn struct_comparison(&mut self, b: &ast::BinExpr, negated: bool) -> Result<Option<TKind>> {
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
        self.rustc_decides("comparing host structs", b.syntax());
        Ok(Some(TKind::StructEq { left: Box::new(left), right: Box::new(right), negated }))
    }

    /// `r.field` of a host struct reached in place: through a reference (an iterator's item, a `for` variable) or
    /// as an element of one of the hole's sequences (`v[i].field`).
    fn ref_field(&mut self, f: &ast::FieldExpr) -> Result<Option<TKind>> {
        let Some(base) = f.expr() else { return Ok(None) };
        let Some(either::Either::Left(field)) = self.sema.resolve_field(f) else { return Ok(None) };
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return Ok(None) };
        let base = match &base {
            ast::Expr::IndexExpr(ix) => {
                let seq = ix.base().and_then(|b| self.sequence(&b));
                let Some(Elem::Struct(id)) = seq.map(|s| s.elem) else { return Ok(None) };
                self.seq_index(ix, Ty::StructRef(id))?
            }
            other => self.expr(other)?,
        };
        if !matches!(base.ty, Ty::StructRef(_) | Ty::Struct(_)) {
            return Ok(None);
        }
        let symbol = lacuna_ir::field_offset_symbol(st.name(self.db).as_str(), field.name(self.db).as_str());
        Ok(Some(TKind::RefField { base: Box::new(base), symbol }))
    }

    /// The element type of std's `Vec<T>`.
    fn vec_elem(&self, ty: &ra_ap_hir::Type<'db>) -> Option<ra_ap_hir::Type<'db>> {
        let ra_ap_hir::Adt::Struct(s) = ty.as_adt()? else { return None };
        let is_vec = s.name(self.db).as_str() == "Vec"
            && s.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc");
        if !is_vec {
            return None;
        }
        ty.type_arguments().next()
    }

    /// A snippet local holding a `Vec<S>` the snippet owns, as `expr` names it.
    fn owned_sequence(&self, expr: &ast::Expr) -> Option<Seq> {
        let ast::Expr::PathExpr(p) = expr else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        let &id = self.local_ids.get(&local)?;
        let l = self.locals.get(id)?;
        let Ty::Vec(elem) = l.ty else { return None };
        Some(Seq { binding: id, kind: SeqKind::Local, elem, writable: l.mutable })
    }

    /// The hole binding `expr` names (not a snippet local), with its local.
    fn hole_binding(&self, expr: &ast::Expr) -> Option<(usize, Local<'db>)> {
        let ast::Expr::PathExpr(p) = expr else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        if self.local_ids.contains_key(&local) {
            return None;
        }
        let name = local.name(self.db);
        let source = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(self.db))).ok()?;
        let decl = usize::from(source.syntax().text_range().start());
        let binding = self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str())?;
        Some((binding, local))
    }

    fn note_binding(&mut self, binding: usize, ty: Scalar) {
        if !self.used_bindings.iter().any(|(i, _)| *i == binding) {
            self.used_bindings.push((binding, ty));
        }
    }

    /// The hole binding `r: &S` or `r: &mut S` (`S` a scalar up to 64 bits) that `expr` names, with `S` and whether
    /// it is `&mut`.
    fn scalar_reference(&mut self, expr: &ast::Expr) -> Option<(usize, Scalar, bool)> {
        let (binding, local) = self.hole_binding(expr)?;
        let (inner, mutability) = local.ty(self.db).as_reference()?;
        let elem = inner.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()))?;
        if matches!(elem, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never) {
            return None;
        }
        self.note_binding(binding, elem);
        Some((binding, elem, mutability == ra_ap_hir::Mutability::Mut))
    }

    /// For a method of a top-level inherent impl of a host type with a `&self`/`&mut self` receiver and scalar
    /// parameters and result: the type's name and whether the receiver is `&mut self`.
    fn host_scalar_method(&self, f: Function) -> Option<(ra_ap_hir::Adt, String, bool)> {
        let ra_ap_hir::AssocItemContainer::Impl(imp) = f.as_assoc_item(self.db)?.container(self.db) else {
            return None;
        };
        let module = imp.module(self.db);
        if imp.trait_(self.db).is_some()
            || !module.is_crate_root(self.db)
            || !module.krate(self.db).origin(self.db).is_local()
        {
            return None;
        }
        let adt = imp.self_ty(self.db).as_adt()?;
        let mutable = match f.self_param(self.db)?.access(self.db) {
            ra_ap_hir::Access::Shared => false,
            ra_ap_hir::Access::Exclusive => true,
            ra_ap_hir::Access::Owned => return None,
        };
        self.scalar_signature(f)?;
        Some((adt, adt.name(self.db).as_str().to_owned(), mutable))
    }

    /// The hole binding a host method's receiver expression names: the value itself, `&value`, `&mut value`, or a
    /// binding holding a reference to it.
    fn self_arg(&mut self, expr: &ast::Expr, adt: ra_ap_hir::Adt, mutable: bool) -> Option<SelfArg> {
        let (expr, explicit_ref) = match expr {
            ast::Expr::RefExpr(r) if r.raw_token().is_none() => (r.expr()?, true),
            other => (other.clone(), false),
        };
        let (binding, local) = self.hole_binding(&expr)?;
        let ty = local.ty(self.db);
        let through_ref = match ty.as_reference() {
            Some((inner, _)) if !explicit_ref && inner.as_adt() == Some(adt) => true,
            None if ty.as_adt() == Some(adt) => false,
            _ => return None,
        };
        self.note_binding(binding, Scalar::Unit);
        Some(SelfArg { binding, through_ref, mutable })
    }

    /// The element pattern and the sequence of `for &x in &v`, `for &x in v.iter()` or
    /// `for x in v.iter().copied()`, and of `for x in r` for a binding `r` that is a shared reference to one.
    fn sequence_loop(&mut self, f: &ast::ForExpr) -> Option<(ast::IdentPat, Seq)> {
        let no_args = |m: &ast::MethodCallExpr| m.arg_list().is_some_and(|l| l.args().next().is_none());
        let shared_ref = |e: &ast::Expr| {
            let ty = self.sema.type_of_expr(e)?.original;
            matches!(ty.as_reference(), Some((_, ra_ap_hir::Mutability::Shared))).then(|| e.clone())
        };
        let iter_receiver = |e: &ast::Expr| match e {
            ast::Expr::MethodCallExpr(m) if no_args(m) && m.name_ref().is_some_and(|n| n.text() == "iter") => {
                m.receiver()
            }
            // `for x in r` over `r: &[T]` or `r: &Vec<T>` iterates `r.iter()`.
            ast::Expr::PathExpr(_) => shared_ref(e),
            _ => None,
        };
        let (pat, base) = match (f.pat()?, f.iterable()?) {
            // `for &x in &v` / `for &x in v.iter()`.
            (ast::Pat::RefPat(r), iterable) => {
                let ast::Pat::IdentPat(pat) = r.pat()? else { return None };
                let base = match &iterable {
                    ast::Expr::RefExpr(e) if e.mut_token().is_none() && e.raw_token().is_none() => e.expr()?,
                    other => iter_receiver(other)?,
                };
                (pat, base)
            }
            // `for x in v.iter().copied()`.
            (ast::Pat::IdentPat(pat), ast::Expr::MethodCallExpr(m))
                if no_args(&m) && m.name_ref().is_some_and(|n| n.text() == "copied") =>
            {
                (pat, iter_receiver(&m.receiver()?)?)
            }
            // `for x in &v` / `for x in v.iter()`: `x` is a shared reference, read as the element.
            (ast::Pat::IdentPat(pat), iterable) => {
                let base = match &iterable {
                    ast::Expr::RefExpr(e) if e.mut_token().is_none() && e.raw_token().is_none() => e.expr()?,
                    other => iter_receiver(other)?,
                };
                (pat, base)
            }
            _ => return None,
        };
        if pat.ref_token().is_some() || pat.mut_token().is_some() || pat.at_token().is_some() {
            return None;
        }
        Some((pat, self.sequence(&base)?))
    }

    /// `retain` and the sorts by a key or a comparison (see [`TKind::SeqWithClosure`]).
    fn sequence_with_closure(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(name) = m.name_ref().and_then(|n| SeqClosureMethod::from_name(n.text())) else {
            return Ok(None);
        };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let own = self.std_inherent_method(m);
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let ([arg], true) = (args.as_slice(), own) else { return Ok(None) };
        let Some(seq) = self.sequence(&receiver) else { return Ok(None) };
        if !name.compares() {
            let closure = self.closure_with(arg, Some(1))?;
            return Ok(Some(TKind::SeqWithClosure { seq, name, closure, descending: false }));
        }
        // `|a, b| KEY(a).cmp(&KEY(b))`: the same expression of each parameter, compared by `Ord::cmp`.
        let unsupported = |b: &Self| b.unsupported("a comparison other than `key(a).cmp(&key(b))`", arg.syntax());
        let ast::Expr::ClosureExpr(c) = arg else { return unsupported(self) };
        let params: Vec<ast::Param> = c.param_list().into_iter().flat_map(|l| l.params()).collect();
        let [Some(ast::Pat::IdentPat(a)), Some(ast::Pat::IdentPat(b))] =
            [params[..].first(), params[..].get(1)].map(|p| p.and_then(|p| p.pat()))
        else {
            return unsupported(self);
        };
        let Some(ast::Expr::MethodCallExpr(cmp)) = c.body() else { return unsupported(self) };
        let is_ord_cmp = cmp.name_ref().is_some_and(|n| n.text() == "cmp")
            && self.sema.resolve_method_call(&cmp).and_then(|f| self.core_trait_of(f)).as_deref() == Some("Ord");
        let cmp_args: Vec<ast::Expr> = cmp.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let (Some(left), [right], true) = (cmp.receiver(), cmp_args.as_slice(), is_ord_cmp) else {
            return unsupported(self);
        };
        let right = match right {
            ast::Expr::RefExpr(r) if r.mut_token().is_none() => r.expr().unwrap_or_else(|| right.clone()),
            other => other.clone(),
        };
        let (Some(a_name), Some(b_name)) = (a.name(), b.name()) else { return unsupported(self) };
        let (a_name, b_name) = (a_name.text().to_string(), b_name.text().to_string());
        // The two sides are the same tokens but for the parameter: `a.x` and `b.x` (ascending), or the other way
        // round (descending).
        let tokens = |e: &ast::Expr, from: &str, to: &str| -> Vec<String> {
            e.syntax()
                .descendants_with_tokens()
                .filter_map(|t| t.into_token())
                .filter(|t| !t.kind().is_trivia())
                .map(|t| if t.text() == from { to.to_owned() } else { t.text().to_string() })
                .collect()
        };
        let mentions = |e: &ast::Expr, name: &str| tokens(e, "", "").iter().any(|t| t == name);
        let (param, key, descending) = if !mentions(&left, &b_name)
            && !mentions(&right, &a_name)
            && tokens(&left, &a_name, &b_name) == tokens(&right, "", "")
        {
            (a, left, false)
        } else if !mentions(&left, &a_name)
            && !mentions(&right, &b_name)
            && tokens(&left, &b_name, &a_name) == tokens(&right, "", "")
        {
            (b, left, true)
        } else {
            return unsupported(self);
        };
        let param = self.pat(&ast::Pat::IdentPat(param))?;
        let body = Box::new(self.expr(&key)?);
        Ok(Some(TKind::SeqWithClosure { seq, name, closure: Closure { params: vec![param], body }, descending }))
    }

    /// A reading method of a vector the snippet makes in the same expression (`s.split(c).collect::<Vec<_>>()
    /// .join("-")`): `{ let hidden = VEC; hidden.method(..) }`, the temporary dropped right after, as at the end
    /// of Rust's statement.
    fn temporary_sequence_method(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Result<Option<TBlock>> {
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        // `len`, or a method that reads the vector.
        let method = SeqMethod::from_name(&name);
        let reading = method.is_some_and(|m| !m.mutates());
        if !(reading || name == "len") || matches!(receiver, ast::Expr::PathExpr(_)) || !self.std_inherent_method(m) {
            return Ok(None);
        }
        let at_name = m.name_ref().map_or(0, |n| usize::from(n.syntax().text_range().start()));
        // An array literal: its hidden local is declared before the whole expression (`Self::expr`).
        let (seq, stmts) = match self.array_temporary(&receiver)? {
            Some(seq) => (seq, Vec::new()),
            None => {
                let Ok(Ty::Vec(elem)) = self.expr_type(&receiver) else { return Ok(None) };
                let init = self.expr(&receiver)?;
                let hidden = self.locals.len();
                self.locals.push(TLocal {
                    name: format!("<temporary at {}>", at_name.saturating_sub(self.snippet_start)),
                    ty: Ty::Vec(elem),
                    mutable: false,
                    fixed_type: true,
                    array_literal: false,
                });
                let seq = Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false };
                (seq, vec![TStmt::Let { local: hidden, init: Some(init) }])
            }
        };
        let kind = match method {
            Some(name) => {
                let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::SeqMethod { seq, name, args, at: at_name.saturating_sub(self.snippet_start) }
            }
            None => TKind::SeqLen(seq),
        };
        let range = self.range(m.syntax());
        let tail = Some(Box::new(TExpr { kind, ty: ty.clone(), range }));
        Ok(Some(TBlock { stmts, tail, ty: Some(ty.clone()), label: None }))
    }

    /// Methods of a sequence binding that allocate nothing (see [`TKind::SeqMethod`]).
    fn sequence_in_place(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(name) = m.name_ref().and_then(|n| SeqMethod::from_name(n.text())) else {
            return Ok(None);
        };
        let own = self.std_inherent_method(m);
        let Some(receiver) = m.receiver() else { return Ok(None) };
        if !own {
            return Ok(None);
        }
        let Some(seq) = self.sequence(&receiver) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
        let at =
            m.name_ref().map_or(0, |n| usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start));
        Ok(Some(TKind::SeqMethod { seq, name, args, at }))
    }

    /// `v.clone()` of a vector or `s.to_vec()` of a sequence of scalars: a new vector the snippet owns.
    fn sequence_copy(&mut self, m: &ast::MethodCallExpr, ty: &Ty) -> Option<TKind> {
        let name = m.name_ref()?.text().to_string();
        let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
        if !no_args || !matches!(name.as_str(), "clone" | "to_vec") {
            return None;
        }
        let f = self.sema.resolve_method_call(m)?;
        let krate = self.fn_crate(f);
        let std_copy = match name.as_str() {
            "clone" => self.core_trait_of(f).as_deref() == Some("Clone"),
            _ => krate.as_deref() == Some("alloc"),
        };
        let seq = self.sequence(&m.receiver()?)?;
        (std_copy && *ty == Ty::Vec(seq.elem)).then_some(TKind::SeqClone(seq))
    }

    /// `v.len()` or `v.iter().sum()` on a sequence binding.
    fn sequence_method(&mut self, m: &ast::MethodCallExpr) -> Option<TKind> {
        let name = m.name_ref()?.text().to_string();
        let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
        if !no_args {
            return None;
        }
        match name.as_str() {
            "len" => Some(TKind::SeqLen(self.sequence(&m.receiver()?)?)),
            "sum" => {
                let ast::Expr::MethodCallExpr(iter) = m.receiver()? else { return None };
                let iter_no_args = iter.arg_list().is_some_and(|l| l.args().next().is_none());
                if iter.name_ref()?.text() != "iter" || !iter_no_args {
                    return None;
                }
                // `Iterator::sum` itself (not a host trait's `sum`), to the element type.
                let f = self.sema.resolve_method_call(m)?;
                let from_iterator = match f.as_assoc_item(self.db).map(|a| a.container(self.db)) {
                    Some(ra_ap_hir::AssocItemContainer::Trait(t)) => t.name(self.db).as_str() == "Iterator",
                    _ => false,
                };
                let seq = self.sequence(&iter.receiver()?)?;
                let result = self.sema.type_of_expr(&ast::Expr::MethodCallExpr(m.clone()))?.original;
                let result = result.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()));
                let elem = seq.elem.scalar().filter(|s| s.is_int());
                (from_iterator && elem.is_some() && result == elem).then_some(TKind::SeqSum(seq))
            }
            _ => None,
        }
    }

    /// `f`'s name when it is a function at the top level of the host (not std's, not a method) whose parameters
    /// and result are scalars passed by value (`()` allowed as the result; no 128-bit integers). Whether the host
    /// exports a shim for it (no generics, no attributes, ...) is settled when the call is compiled.
    /// A function of the host the JIT calls through a shim: declared at the top level or in a top-level `mod`,
    /// with the signature [`Builder::scalar_signature`] admits. Its name as the host's code calls it (`lookup`,
    /// `tools::lookup`) and its shim's symbol.
    fn host_scalar_fn(&self, f: Function) -> Option<(String, String)> {
        let module = f.module(self.db);
        if !module.krate(self.db).origin(self.db).is_local() {
            return None;
        }
        if f.as_assoc_item(self.db).is_some() || f.self_param(self.db).is_some() {
            return None;
        }
        self.scalar_signature(f)?;
        let name = f.name(self.db).as_str().to_owned();
        if module.is_crate_root(self.db) {
            let symbol = lacuna_ir::shim_symbol(None, &name);
            return Some((name, symbol));
        }
        // The instrumented host exports shims for `pub` functions of top-level modules only.
        let parent = module.parent(self.db)?;
        if !parent.is_crate_root(self.db)
            || !matches!(ra_ap_hir::HasVisibility::visibility(&f, self.db), ra_ap_hir::Visibility::Public)
        {
            return None;
        }
        let module_name = module.name(self.db)?.as_str().to_owned();
        let symbol = lacuna_ir::module_shim_symbol(&module_name, &name);
        Some((format!("{module_name}::{name}"), symbol))
    }

    /// The arguments of a call of a host function or method: scalars, or text passed as `&str`.
    fn host_args(&mut self, args: &[ast::Expr], node: &SyntaxNode) -> Result<Vec<TExpr>> {
        let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
        if args.iter().any(|a| a.ty.scalar().is_none() && a.ty != Ty::Str) {
            return self.unsupported("an argument of this type to a host function", node);
        }
        Ok(args)
    }

    /// `f`'s parameters (other than `self`) are scalars passed by value or `&str`, and its result is a scalar,
    /// `()`, `String` or `Option` of a scalar (no 128-bit integers anywhere).
    fn scalar_signature(&self, f: Function) -> Option<()> {
        let scalar = |ty: &ra_ap_hir::Type<'db>| {
            let scalar = ty.as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()));
            matches!(scalar, Some(s) if !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))
        };
        let param = |ty: &ra_ap_hir::Type<'db>| {
            scalar(ty)
                || ty.as_reference().is_some_and(|(inner, m)| m == ra_ap_hir::Mutability::Shared && inner.is_str())
        };
        let ret = f.ret_type(self.db);
        let option_of_scalar = ret.as_adt().is_some_and(|adt| self.is_core_adt(adt, "Option"))
            && ret.type_arguments().next().is_some_and(|t| scalar(&t));
        let ret_ok = ret.is_unit() || scalar(&ret) || self.is_string(&ret) || option_of_scalar;
        let params_ok = f.params_without_self(self.db).iter().all(|p| param(p.ty()));
        (params_ok && ret_ok).then_some(())
    }

    /// `T::try_from(x)` or `x.try_into()` between integer types (up to 64 bits), followed by what consumes the
    /// `Result` ([`TKind::TryConvert`]), as `m` (the consumer) names it.
    fn try_convert(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let (source, conversion) = match m.receiver() {
            Some(ast::Expr::MethodCallExpr(call)) if call.name_ref().is_some_and(|n| n.text() == "try_into") => {
                let Some(f) = self.sema.resolve_method_call(&call) else { return Ok(None) };
                if call.arg_list().is_some_and(|l| l.args().next().is_some()) {
                    return Ok(None);
                }
                (call.receiver(), (f, ast::Expr::MethodCallExpr(call.clone()), "TryInto"))
            }
            Some(ast::Expr::CallExpr(call)) => {
                let Some(ast::Expr::PathExpr(p)) = call.expr() else { return Ok(None) };
                let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
                    p.path().and_then(|p| self.sema.resolve_path(&p))
                else {
                    return Ok(None);
                };
                let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let [value] = args.as_slice() else { return Ok(None) };
                (Some(value.clone()), (f, ast::Expr::CallExpr(call.clone()), "TryFrom"))
            }
            _ => return Ok(None),
        };
        let (f, call, trait_name) = conversion;
        let Some(source) = source else { return Ok(None) };
        if self.core_trait_of(f).as_deref() != Some(trait_name) {
            return Ok(None);
        }
        let consumer_in_core =
            self.sema.resolve_method_call(m).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"));
        if !consumer_in_core {
            return Ok(None);
        }
        // `Result<T, E>`: the target is `T`; the source's type is the value's.
        let Some(result) = self.sema.type_of_expr(&call) else { return Ok(None) };
        let Some(target) = result.original.type_arguments().next().and_then(|t| Self::builtin(&t)) else {
            return Ok(None);
        };
        let value = self.expr(&source)?;
        let narrow_int = |s: Scalar| s.int_bits().is_some_and(|b| b <= 64);
        if !narrow_int(target) || !value.ty.scalar().is_some_and(narrow_int) {
            return Ok(None);
        }
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let at =
            m.name_ref().map_or(0, |n| usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start));
        let then = self.result_consumer(m, &name, &args, trait_name)?;
        Ok(Some(TKind::TryConvert { value: Box::new(value), target, then, at }))
    }

    /// The name of the `core` trait `f` belongs to (declared in it, or implementing it).
    fn core_trait_of(&self, f: Function) -> Option<String> {
        let t = match f.as_assoc_item(self.db)?.container(self.db) {
            ra_ap_hir::AssocItemContainer::Trait(t) => t,
            ra_ap_hir::AssocItemContainer::Impl(imp) => imp.trait_(self.db)?,
        };
        let krate = t.module(self.db).krate(self.db).display_name(self.db)?.to_string();
        (krate == "core").then(|| t.name(self.db).as_str().to_owned())
    }

    /// A conversion between scalars that is a `From`/`Into` impl of `core` (all are lossless, so each means what
    /// the `as` cast between the same types means; the lowering admits only the casts the JIT implements).
    fn conversion(&mut self, f: Function, value: &ast::Expr, ty: Ty, range: Range<usize>) -> Result<Option<TExpr>> {
        let name = f.name(self.db);
        let is_conversion = match self.core_trait_of(f).as_deref() {
            Some("From") => name.as_str() == "from",
            Some("Into") => name.as_str() == "into",
            _ => false,
        };
        if !is_conversion {
            return Ok(None);
        }
        let inner = self.expr(value)?;
        Ok(Some(TExpr { kind: TKind::Cast(Box::new(inner)), ty, range }))
    }

    /// The snippet's block (the `{ .. }` Lacuna spliced in).
    pub fn block(&mut self, block: &ast::BlockExpr) -> Result<TBlock> {
        if block.modifier().is_some_and(|m| !matches!(m, ast::BlockModifier::Label(_))) {
            return self.unsupported("an async, unsafe, const or try block", block.syntax());
        }
        let label = block.label().and_then(|l| l.lifetime()).map(|l| l.text().to_string());
        let Some(list) = block.stmt_list() else { return Ok(TBlock::default()) };
        // Functions first: a call may come before the declaration.
        for item in list.statements().filter_map(|s| match s {
            ast::Stmt::Item(ast::Item::Fn(f)) => Some(f),
            _ => None,
        }) {
            self.declare_fn(&item)?;
        }
        let mut stmts = Vec::new();
        for stmt in list.statements() {
            match stmt {
                ast::Stmt::LetStmt(let_stmt) => stmts.push(self.let_stmt(&let_stmt)?),
                ast::Stmt::ExprStmt(e) => match e.expr() {
                    Some(expr) => stmts.push(TStmt::Expr(self.expr(&expr)?)),
                    None => return self.unsupported("an empty statement", e.syntax()),
                },
                ast::Stmt::Item(ast::Item::Fn(f)) => self.define_fn(&f)?,
                // Only name resolution, which rust-analyzer has done.
                ast::Stmt::Item(ast::Item::Use(_)) => {}
                // A constant is computed where it is used; its value is also evaluated here once, as rustc evaluates
                // every constant (so the subset's lint checks see its arithmetic even when it is unused).
                ast::Stmt::Item(ast::Item::Const(c)) => {
                    let def = self.sema.to_def(&c);
                    match def.map(|d| self.const_body(d)).transpose()?.flatten() {
                        Some(body) => {
                            let value = self.expr(&body)?;
                            self.expanding_consts.pop();
                            stmts.push(TStmt::Expr(value));
                        }
                        None => return self.unsupported("a constant outside the subset", c.syntax()),
                    }
                }
                ast::Stmt::Item(item) => return self.unsupported("an item other than a function", item.syntax()),
            }
        }
        let tail = match list.tail_expr() {
            Some(e) => Some(Box::new(self.expr(&e)?)),
            None => None,
        };
        let ty = match self.sema.type_of_expr(&ast::Expr::BlockExpr(block.clone())) {
            Some(info) => Some(self.ty(&info.original, block.syntax())?),
            None => None,
        };
        Ok(TBlock { stmts, tail, ty, label })
    }

    fn let_stmt(&mut self, stmt: &ast::LetStmt) -> Result<TStmt> {
        let simple = match stmt.pat() {
            Some(ast::Pat::IdentPat(p))
                if stmt.let_else().is_none() && self.sema.resolve_bind_pat_to_const(&p).is_none() =>
            {
                Some(p)
            }
            _ => None,
        };
        // `let f = |x| ..;`: the closure is inlined where `f` is called. Not a `move` closure (which would copy
        // what it captures here, not where it is called); whether its captures' borrows work out is rustc's check.
        if let (Some(pat), Some(ast::Expr::ClosureExpr(c))) = (&simple, stmt.initializer()) {
            if c.move_token().is_some() || stmt.ty().is_some() {
                return self.unsupported("a `move` closure or a typed closure local", stmt.syntax());
            }
            let closure = self.closure_with(&ast::Expr::ClosureExpr(c), None)?;
            let Some(local) = self.sema.to_def(pat) else {
                return self.unsupported("an unresolved binding", pat.syntax());
            };
            self.references.set(true);
            self.closure_locals.insert(local, closure);
            let unit =
                TExpr { kind: TKind::Lit(Lit::Unit), ty: Ty::Scalar(Scalar::Unit), range: self.range(stmt.syntax()) };
            return Ok(TStmt::Expr(unit));
        }
        let Some(pat) = simple else {
            // `let (a, b) = t;`, `let Some(x) = o else { .. };`
            let (Some(pat), Some(init)) = (stmt.pat(), stmt.initializer()) else {
                return self.unsupported("a `let` pattern without a value", stmt.syntax());
            };
            let init = self.expr(&init)?;
            for ident in pat.syntax().descendants().filter_map(ast::IdentPat::cast) {
                self.note_reference_local(&ident);
            }
            let pat = self.pat(&pat)?;
            let otherwise = match stmt.let_else() {
                Some(e) => match e.block_expr() {
                    Some(b) => Some(self.block(&b)?),
                    None => return self.unsupported("`let .. else`", stmt.syntax()),
                },
                None => None,
            };
            return Ok(TStmt::LetPat { pat, init, otherwise });
        };
        let init = match stmt.initializer() {
            Some(init) => Some(self.expr(&init)?),
            None => None,
        };
        let local = self.declare_local(&pat)?;
        self.note_reference_local(&pat);
        let suffixed = |e: &ast::Expr| match e {
            ast::Expr::Literal(l) => match l.kind() {
                ast::LiteralKind::IntNumber(n) => n.suffix().is_some(),
                ast::LiteralKind::FloatNumber(f) => f.suffix().is_some(),
                _ => false,
            },
            _ => false,
        };
        self.locals[local].fixed_type = stmt.ty().is_some() || stmt.initializer().is_some_and(|e| suffixed(&e));
        Ok(TStmt::Let { local, init })
    }

    /// A `let` or parameter that holds a reference (read as its value): whether it outlives a write to what it
    /// points to is rustc's borrow check.
    fn note_reference_local(&self, pat: &ast::IdentPat) {
        if self.sema.to_def(pat).is_some_and(|l| self.holds_reference(&l.ty(self.db))) {
            self.references.set(true);
        }
    }

    fn declare_local(&mut self, pat: &ast::IdentPat) -> Result<usize> {
        if pat.ref_token().is_some() || pat.pat().is_some() {
            return self.unsupported("a `ref` or `@` binding", pat.syntax());
        }
        let Some(local) = self.sema.to_def(pat) else { return self.unsupported("an unresolved binding", pat.syntax()) };
        let ty = self.ty(&local.ty(self.db), pat.syntax())?;
        let id = self.locals.len();
        self.locals.push(TLocal {
            name: pat.name().map(|n| n.text().to_string()).unwrap_or_default(),
            ty,
            mutable: pat.mut_token().is_some(),
            fixed_type: false,
            array_literal: false,
        });
        self.local_ids.insert(local, id);
        Ok(id)
    }

    fn declare_fn(&mut self, f: &ast::Fn) -> Result<()> {
        let Some(def) = self.sema.to_def(f) else { return self.unsupported("an unresolved function", f.syntax()) };
        // Lifetime parameters only constrain borrows, which rustc checks (`references`); types and consts would need
        // an instance per use.
        let generic = f
            .generic_param_list()
            .is_some_and(|l| l.generic_params().any(|p| !matches!(p, ast::GenericParam::LifetimeParam(_))));
        if f.generic_param_list().is_some() {
            self.references.set(true);
        }
        if generic || f.where_clause().is_some() || f.async_token().is_some() || f.const_token().is_some() {
            return self.unsupported("a generic, async or const function", f.syntax());
        }
        self.fn_ids.insert(def, self.fns.len());
        self.fns.push(None);
        Ok(())
    }

    fn define_fn(&mut self, f: &ast::Fn) -> Result<()> {
        let def = self.sema.to_def(f).expect("declared before");
        let id = self.fn_ids[&def];
        let mut params = Vec::new();
        for param in f.param_list().into_iter().flat_map(|l| l.params()) {
            let Some(ast::Pat::IdentPat(pat)) = param.pat() else {
                return self.unsupported("a parameter pattern other than a name", param.syntax());
            };
            let local = self.declare_local(&pat)?;
            self.locals[local].fixed_type = true;
            params.push(local);
            self.note_reference_local(&pat);
        }
        if f.param_list().and_then(|l| l.self_param()).is_some() {
            return self.unsupported("a method", f.syntax());
        }
        // A returned reference: whether its lifetime works out is rustc's check.
        if self.holds_reference(&def.ret_type(self.db)) {
            self.references.set(true);
        }
        let ret = self.ty(&def.ret_type(self.db), f.syntax())?;
        let Some(body) = f.body() else { return self.unsupported("a function without a body", f.syntax()) };
        let body = self.block(&body)?;
        let name = f.name().map(|n| n.text().to_string()).unwrap_or_default();
        self.fns[id] = Some(TFn { name, params, ret, body });
        Ok(())
    }

    fn local_ref(&mut self, local: Local<'db>, node: &SyntaxNode) -> Result<LocalRef> {
        if let Some(&id) = self.local_ids.get(&local) {
            return Ok(LocalRef::Snippet(id));
        }
        let name = local.name(self.db);
        let source = local.primary_source(self.db);
        let decl = usize::from(source.syntax().text_range().start());
        let Some(index) = self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str()) else {
            return self.unsupported("a local the subset does not know", node);
        };
        let local_ty = local.ty(self.db);
        // A host struct (or a shared reference to one) is read in place, through its address.
        let by_ref = match local_ty.as_reference() {
            Some((inner, ra_ap_hir::Mutability::Shared)) => Some(inner),
            _ => None,
        };
        if self.host_type(by_ref.as_ref().unwrap_or(&local_ty)).is_some() {
            self.note_binding(index, Scalar::Unit);
            return Ok(LocalRef::Binding(index));
        }
        let ty = self.scalar(&local_ty, node)?;
        self.note_binding(index, ty);
        Ok(LocalRef::Binding(index))
    }

    /// `x.field`: a scalar field of a struct the host declares at its top level (no generics), in a hole binding
    /// that holds the struct or a reference to it.
    fn host_field(&mut self, f: &ast::FieldExpr) -> Option<usize> {
        let base = f.expr()?;
        let (binding, local) = self.hole_binding(&base)?;
        let Some(either::Either::Left(field)) = self.sema.resolve_field(f) else { return None };
        let ty = Self::builtin(&field.ty(self.db))
            .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))?;
        let ra_ap_hir::Variant::Struct(st) = field.parent_def(self.db) else { return None };
        let module = st.module(self.db);
        if !module.is_crate_root(self.db) || !module.krate(self.db).origin(self.db).is_local() {
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
    fn binding_through_ref(&mut self, local: Local<'db>) -> Option<usize> {
        if self.local_ids.contains_key(&local) {
            return None;
        }
        let s = self.shared_scalar_ref(&local.ty(self.db))?;
        let name = local.name(self.db);
        let source = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(self.db))).ok()?;
        let decl = usize::from(source.syntax().text_range().start());
        let index = self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str())?;
        self.note_binding(index, s);
        Some(index)
    }

    fn label(l: Option<ast::Lifetime>) -> Option<String> {
        l.map(|l| l.text().to_string())
    }

    /// `MAX`, `MIN` and `BITS` of a primitive integer type, as literals of the expression's type.
    /// The body of a constant declared in the host file or the snippet whose value is plain arithmetic: literals,
    /// operators, casts, parentheses and other such constants. Pushes `c` on `expanding_consts` (the caller pops it
    /// after building the body); a constant that refers to itself is outside the subset.
    fn const_body(&mut self, c: ra_ap_hir::Const) -> Result<Option<ast::Expr>> {
        let Some(source) = self.sema.source(c) else { return Ok(None) };
        if c.as_assoc_item(self.db).is_some() || source.file_id.macro_file().is_some() {
            return Ok(None);
        }
        let Some(body) = source.value.body() else { return Ok(None) };
        if self.expanding_consts.contains(&c) {
            return self.unsupported("a constant defined by itself", body.syntax());
        }
        let plain = body.syntax().descendants().all(|n| {
            ast::Expr::cast(n.clone()).is_none_or(|e| {
                matches!(
                    e,
                    ast::Expr::Literal(_)
                        | ast::Expr::BinExpr(_)
                        | ast::Expr::PrefixExpr(_)
                        | ast::Expr::CastExpr(_)
                        | ast::Expr::ParenExpr(_)
                        | ast::Expr::PathExpr(_)
                )
            })
        });
        if !plain {
            return Ok(None);
        }
        self.expanding_consts.push(c);
        Ok(Some(body))
    }

    fn primitive_const(&self, c: ra_ap_hir::Const, ty: &Ty) -> Option<TKind> {
        let ra_ap_hir::AssocItemContainer::Impl(imp) = c.as_assoc_item(self.db)?.container(self.db) else {
            return None;
        };
        let owner = imp.self_ty(self.db).as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()))?;
        let bits = owner.int_bits().filter(|b| *b <= 64)?;
        let name = c.name(self.db)?;
        let lit = |v: u128| TKind::Lit(Lit::Int(v));
        Some(match (name.as_str(), owner.is_signed()) {
            ("BITS", _) if ty == &Ty::Scalar(Scalar::U32) => lit(u128::from(bits)),
            ("MAX", true) if ty == &Ty::Scalar(owner) => lit((1u128 << (bits - 1)) - 1),
            ("MAX", false) if ty == &Ty::Scalar(owner) => lit((1u128 << bits) - 1),
            ("MIN", false) if ty == &Ty::Scalar(owner) => lit(0),
            ("MIN", true) if ty == &Ty::Scalar(owner) => {
                TKind::Unary(UnOp::Neg, Box::new(TExpr { kind: lit(1u128 << (bits - 1)), ty: ty.clone(), range: 0..0 }))
            }
            _ => return None,
        })
    }

    /// A pattern (its names become snippet locals).
    fn pat(&mut self, pat: &ast::Pat) -> Result<TPat> {
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
                let variant = self.tuple_variant(t).and_then(|v| self.option_variant(v));
                let fields: Vec<ast::Pat> = t.fields().collect();
                match (variant, fields.as_slice()) {
                    (Some(true), [inner]) => TPat::Some(Box::new(self.pat(inner)?)),
                    _ => return self.unsupported("a pattern of a type other than `Option`", pat.syntax()),
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
    fn host_variant_of(&self, pat: &ast::Pat) -> Option<ra_ap_hir::EnumVariant> {
        let path = match pat {
            ast::Pat::TupleStructPat(t) => t.path(),
            ast::Pat::RecordPat(r) => r.path(),
            ast::Pat::PathPat(p) => p.path(),
            _ => None,
        }?;
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = self.sema.resolve_path(&path) else {
            return None;
        };
        let en = v.parent_enum(self.db);
        let module = en.module(self.db);
        (module.is_crate_root(self.db) && module.krate(self.db).origin(self.db).is_local()).then_some(v)
    }

    /// `E::V(a, _, ..)`, `E::V { f: 1..=3, .. }` or `E::V` of a plain host enum: the variant, and patterns for
    /// scalar fields.
    fn host_variant_pat(&mut self, pat: &ast::Pat) -> Result<TPat> {
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
            let Some(s) = self.part(&field.ty(self.db)) else {
                return self.unsupported("a field of a host enum that is not a scalar", p.syntax());
            };
            let sub = self.pat(&p)?;
            fields.push(((first_field + i) as u32, s, sub));
        }
        Ok(TPat::Variant { adt, index: index as u32, fields })
    }

    /// A closure written in place with at most one parameter: its parameter pattern and body. (`return` inside it
    /// would leave the closure, not the snippet function: not in the subset.)
    fn closure(&mut self, e: &ast::Expr) -> Result<(Option<TPat>, TExpr)> {
        let Closure { mut params, body } = self.closure_with(e, None)?;
        if params.len() > 1 {
            return self.unsupported("a closure with several parameters", e.syntax());
        }
        Ok((params.pop(), *body))
    }

    /// A closure written in place (with `n` parameters when given).
    fn closure_with(&mut self, e: &ast::Expr, n: Option<usize>) -> Result<Closure> {
        let ast::Expr::ClosureExpr(c) = e else {
            return self.unsupported("a closure that is not written in place", e.syntax());
        };
        let params: Vec<ast::Param> = c.param_list().into_iter().flat_map(|l| l.params()).collect();
        if n.is_some_and(|n| n != params.len()) {
            return self.unsupported("a closure with an unexpected number of parameters", c.syntax());
        }
        let mut pats = Vec::new();
        for p in &params {
            match p.pat() {
                Some(pat) => pats.push(self.pat(&pat)?),
                None => return self.unsupported("a closure parameter", p.syntax()),
            }
        }
        let Some(body) = c.body() else { return self.unsupported("a closure without a body", c.syntax()) };
        if body.syntax().descendants().any(|n| ast::ReturnExpr::can_cast(n.kind())) {
            return self.unsupported("`return` inside a closure", body.syntax());
        }
        let body = Box::new(self.expr(&body)?);
        Ok(Closure { params: pats, body })
    }

    /// `e` as an iterator chain's parts, when it is one the JIT fuses: its base (a range, or the receiver of
    /// the first `iter()`) and its method calls in order. Pure syntax and resolution; nothing is built.
    fn chain_parts(&self, e: &ast::Expr) -> Option<(ast::Expr, Vec<ast::MethodCallExpr>)> {
        const ADAPTORS: &[&str] = &[
            "iter",
            "copied",
            "cloned",
            "into_iter",
            "map",
            "filter",
            "filter_map",
            "take_while",
            "skip_while",
            "enumerate",
            "rev",
            "take",
            "skip",
            "chars",
            "split_whitespace",
            "lines",
            "split",
            "zip",
            "chain",
        ];
        let mut calls = Vec::new();
        let mut current = e.clone();
        loop {
            match current {
                ast::Expr::ParenExpr(p) => current = p.expr()?,
                ast::Expr::MethodCallExpr(m)
                    if m.name_ref().is_some_and(|n| ADAPTORS.iter().any(|a| n.text() == *a)) =>
                {
                    let from_core =
                        self.sema.resolve_method_call(&m).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"));
                    if !from_core {
                        return None;
                    }
                    current = m.receiver()?;
                    calls.push(m);
                }
                _ => break,
            }
        }
        calls.reverse();
        let first = calls.first().and_then(|c| c.name_ref()).map(|n| n.text().to_string()).unwrap_or_default();
        let base = match current {
            ast::Expr::RangeExpr(_) => current,
            other if matches!(first.as_str(), "iter" | "chars" | "split_whitespace" | "lines" | "split") => other,
            // An array's items by value: scalars, as `iter()` reads them.
            other @ ast::Expr::ArrayExpr(_) if first == "into_iter" => other,
            _ => return None,
        };
        Some((base, calls))
    }

    /// The iterator chain `e` builds (see [`Self::chain_parts`]).
    fn iter_chain(&mut self, e: &ast::Expr) -> Result<Option<IterChain>> {
        let Some((base, calls)) = self.chain_parts(e) else { return Ok(None) };
        let range = self.range(e.syntax());
        let mut calls = calls.into_iter().peekable();
        let source = match &base {
            ast::Expr::RangeExpr(r) => {
                let Some(start) = r.start() else { return self.unsupported("a range without a start", r.syntax()) };
                let start = Box::new(self.expr(&start)?);
                if !start.s().is_int() {
                    return self.unsupported("a range of non-integers", r.syntax());
                }
                let end = match r.end() {
                    Some(end) => Some(Box::new(self.expr(&end)?)),
                    None => None,
                };
                let inclusive = r.op_kind() == Some(ast::RangeOp::Inclusive);
                if calls.peek().is_some_and(|c| c.name_ref().is_some_and(|n| n.text() == "into_iter")) {
                    calls.next();
                }
                IterSource::Range { start, end, inclusive }
            }
            other if calls.peek().is_some_and(|c| self.text_pieces_call(c)) => {
                let call = calls.next().expect("peeked");
                let text = self.text_operand(other)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return self.unsupported("pieces of something other than text", other.syntax());
                }
                let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
                let how = match (call.name_ref().map(|n| n.text().to_string()).as_deref(), args.as_slice()) {
                    (Some("split_whitespace"), []) => Pieces::Whitespace,
                    (Some("lines"), []) => Pieces::Lines,
                    (Some("split"), [pattern]) => {
                        let pattern = self.text_operand(pattern)?;
                        if !matches!(pattern.ty, Ty::Str | Ty::Scalar(Scalar::Char)) {
                            return self.unsupported("a `split` pattern other than a `char` or text", call.syntax());
                        }
                        Pieces::Split(Box::new(pattern))
                    }
                    _ => return self.unsupported("a text method outside the subset", call.syntax()),
                };
                IterSource::Pieces { text: Box::new(text), how }
            }
            other if calls.peek().is_some_and(|c| c.name_ref().is_some_and(|n| n.text() == "chars")) => {
                calls.next();
                let text = self.text_operand(other)?;
                if !matches!(text.ty, Ty::Str | Ty::String) {
                    return self.unsupported("`chars` of something other than text", other.syntax());
                }
                IterSource::Chars(Box::new(text))
            }
            other => {
                let seq = match self.sequence(other) {
                    Some(seq) => Some(seq),
                    None => self.array_temporary(other)?,
                };
                let Some(seq) = seq else {
                    return self
                        .unsupported("an iterator over something other than a sequence of scalars", other.syntax());
                };
                calls.next();
                IterSource::Seq(seq)
            }
        };
        let mut chain = IterChain { source, stages: Vec::new(), range };
        for call in calls {
            let name = call.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
            let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
            let item = chain.item();
            let scalar_item = item.scalar().is_some();
            let element_wise =
                chain.stages.iter().all(|(s, _)| matches!(s, Stage::Map(_) | Stage::Filter(_) | Stage::FilterMap(_)));
            if let ("chain", [other]) = (name.as_str(), args.as_slice()) {
                let (first_rev, second, second_rev) = self.chain_operand(&chain, other, &call)?;
                let IterChain { source, range, .. } = chain;
                let source = IterSource::Chain { first: Box::new(source), first_rev, second, second_rev };
                chain = IterChain { source, stages: Vec::new(), range };
                continue;
            }
            let (stage, ty) = match (name.as_str(), args.as_slice()) {
                ("copied" | "cloned", []) if scalar_item => continue,
                // `copied()` of a `Vec<&str>`'s items (`&&str` to `&str`): the same text.
                ("copied", [])
                    if matches!(&chain.source, IterSource::Seq(seq) if seq.elem == Elem::Str)
                        && chain.stages.iter().all(|(s, _)| {
                            matches!(
                                s,
                                Stage::Filter(_)
                                    | Stage::TakeWhile(_)
                                    | Stage::SkipWhile(_)
                                    | Stage::Take(_)
                                    | Stage::Skip(_)
                                    | Stage::Rev
                            )
                        }) =>
                {
                    continue
                }
                ("zip", [other]) => {
                    let (other, reversed) = self.simple_iter(other)?;
                    let other_item = other.item();
                    if reversed || !item.in_place() || !other_item.in_place() {
                        return self.unsupported("a `zip` of these items", call.syntax());
                    }
                    (Stage::Zip(other), Ty::Tuple(vec![item, other_item]))
                }
                // `map(String::from)` (or `str::to_string`, `str::to_owned`) over text: a new `String` of each.
                ("map", [ast::Expr::PathExpr(p)]) if item == Ty::Str && self.text_to_string_fn(p) => {
                    (Stage::Map(self.string_from_text_closure(p)), Ty::String)
                }
                ("map", [c]) => {
                    let c = self.closure_with(c, Some(1))?;
                    let ty = c.body.ty.clone();
                    (Stage::Map(c), ty)
                }
                ("filter", [c]) => (Stage::Filter(self.closure_with(c, Some(1))?), item),
                ("take_while", [c]) => (Stage::TakeWhile(self.closure_with(c, Some(1))?), item),
                ("skip_while", [c]) => (Stage::SkipWhile(self.closure_with(c, Some(1))?), item),
                ("filter_map", [c]) => {
                    let c = self.closure_with(c, Some(1))?;
                    let Some(payload) = c.body.ty.option_scalar() else {
                        return self.unsupported("a `filter_map` closure", call.syntax());
                    };
                    (Stage::FilterMap(c), Ty::Scalar(payload))
                }
                ("enumerate", []) if item.in_place() => {
                    (Stage::Enumerate, Ty::Tuple(vec![Ty::Scalar(Scalar::Usize), item]))
                }
                ("enumerate", []) => return self.unsupported("`enumerate` of tuples or owned values", call.syntax()),
                ("rev", []) => {
                    let bounded = !matches!(&chain.source, IterSource::Range { end: None, .. })
                        && !matches!(&chain.source, IterSource::Pieces { .. } | IterSource::Chain { .. });
                    if !(bounded && element_wise) {
                        return self.unsupported("`rev` after an adaptor that counts", call.syntax());
                    }
                    (Stage::Rev, item)
                }
                ("take", [n]) => (Stage::Take(Box::new(self.expr(n)?)), item),
                ("skip", [n]) => (Stage::Skip(Box::new(self.expr(n)?)), item),
                _ => return self.unsupported("an iterator adaptor outside the subset", call.syntax()),
            };
            chain.stages.push((stage, ty));
        }
        Ok(Some(chain))
    }

    /// An iterator `zip` or `chain` takes: a range or a sequence's `iter()`, possibly reversed (`rev` its only
    /// adaptor).
    fn simple_iter(&mut self, e: &ast::Expr) -> Result<(Box<IterSource>, bool)> {
        let Some(chain) = self.iter_chain(e)? else {
            return self.unsupported("an iterator argument other than a range or a sequence's `iter()`", e.syntax());
        };
        let Some(reversed) = only_reversed(&chain.stages) else {
            return self.unsupported("an iterator argument with adaptors", e.syntax());
        };
        if !matches!(chain.source, IterSource::Range { .. } | IterSource::Seq(_)) {
            return self.unsupported("an iterator argument other than a range or a sequence's `iter()`", e.syntax());
        }
        Ok((Box::new(chain.source), reversed))
    }

    /// `chain.chain(other)`: whether the chain so far runs reversed, `other`, and whether it does; both are ranges
    /// or sequences' `iter()` of the same item type.
    fn chain_operand(
        &mut self,
        chain: &IterChain,
        other: &ast::Expr,
        call: &ast::MethodCallExpr,
    ) -> Result<(bool, Box<IterSource>, bool)> {
        let Some(first_rev) = only_reversed(&chain.stages) else {
            return self.unsupported("`chain` after adaptors", call.syntax());
        };
        if !matches!(chain.source, IterSource::Range { .. } | IterSource::Seq(_)) {
            return self.unsupported("`chain` of something other than a range or a sequence", call.syntax());
        }
        let (second, second_rev) = self.simple_iter(other)?;
        if second.item() != chain.source.item() {
            return self.unsupported("`chain` of two item types", call.syntax());
        }
        Ok((first_rev, second, second_rev))
    }

    /// `text[a..b]`, `text[a..]`, `text[..b]` or `text[..]` of text (`&str`, `String`) with `usize` bounds.
    fn text_slice(&mut self, index: &ast::IndexExpr) -> Result<Option<TExpr>> {
        let (Some(base), Some(ast::Expr::RangeExpr(r))) = (index.base(), index.index()) else { return Ok(None) };
        let is_str = self.sema.type_of_expr(&ast::Expr::IndexExpr(index.clone())).is_some_and(|t| t.original.is_str());
        if !is_str || r.op_kind() == Some(ast::RangeOp::Inclusive) {
            return Ok(None);
        }
        let receiver = Box::new(self.text_operand(&base)?);
        if !matches!(receiver.ty, Ty::Str | Ty::String) {
            return self.unsupported("slicing something other than text", index.syntax());
        }
        let mut args = Vec::new();
        for bound in [r.start(), r.end()].into_iter().flatten() {
            let bound = self.expr(&bound)?;
            if bound.ty != Ty::Scalar(Scalar::Usize) {
                return self.unsupported("a text range with bounds other than `usize`", index.syntax());
            }
            args.push(bound);
        }
        let name = match (r.start().is_some(), r.end().is_some()) {
            (true, true) => TextMethod::Slice,
            (true, false) => TextMethod::SliceFrom,
            (false, true) => TextMethod::SliceTo,
            (false, false) => TextMethod::SliceAll,
        };
        let kind = TKind::TextMethod { name, receiver, args };
        Ok(Some(TExpr { kind, ty: Ty::Str, range: self.range(index.syntax()) }))
    }

    /// `CHAIN.sink(..)`: an iterator chain consumed where it is built.
    fn consume(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        const SINKS: &[&str] = &[
            "sum",
            "product",
            "count",
            "max",
            "min",
            "last",
            "next",
            "any",
            "all",
            "position",
            "find",
            "max_by_key",
            "min_by_key",
            "fold",
            "collect",
        ];
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        if !SINKS.contains(&name.as_str()) || self.chain_parts(&receiver).is_none() {
            return Ok(None);
        }
        let in_iterator =
            self.sema.resolve_method_call(m).and_then(|f| self.core_trait_of(f)).as_deref() == Some("Iterator");
        if !in_iterator {
            return Ok(None);
        }
        let Some(chain) = self.iter_chain(&receiver)? else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let at =
            m.name_ref().map_or(0, |n| usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start));
        let sink = match (name.as_str(), args.as_slice()) {
            ("sum", []) => Sink::Sum { at },
            ("product", []) => Sink::Product { at },
            ("count", []) => Sink::Count,
            ("max", []) => Sink::Max,
            ("min", []) => Sink::Min,
            ("last", []) => Sink::Last,
            ("next", []) => Sink::Next,
            ("any", [c]) => Sink::Any(self.closure_with(c, Some(1))?),
            ("all", [c]) => Sink::All(self.closure_with(c, Some(1))?),
            ("position", [c]) => Sink::Position(self.closure_with(c, Some(1))?),
            ("find", [c]) => Sink::Find(self.closure_with(c, Some(1))?),
            ("max_by_key", [c]) => Sink::MaxByKey(self.closure_with(c, Some(1))?),
            ("min_by_key", [c]) => Sink::MinByKey(self.closure_with(c, Some(1))?),
            ("fold", [init, c]) => {
                let init = Box::new(self.expr(init)?);
                Sink::Fold { init, closure: self.closure_with(c, Some(2))? }
            }
            // Into a `Vec` or a set of the items only (the lowering checks the types).
            ("collect", []) => match self.expr_type(&ast::Expr::MethodCallExpr(m.clone()))? {
                Ty::Vec(_) | Ty::String => {
                    // A `Vec<&S>` keeps references (read as the values): rustc's borrow check judges them.
                    let real = self.sema.type_of_expr(&ast::Expr::MethodCallExpr(m.clone()));
                    if real.is_none_or(|t| self.holds_reference(&t.original)) {
                        self.references.set(true);
                    }
                    Sink::Collect { at }
                }
                ty if ty.is_set() => {
                    // A `HashSet<&str>` keeps references: rustc's borrow check judges them.
                    if matches!(&ty, Ty::Map { key, .. } if **key == Ty::Str) {
                        self.references.set(true);
                    }
                    Sink::Collect { at }
                }
                _ => return self.unsupported("a collection other than a `Vec` or a set", m.syntax()),
            },
            _ => return self.unsupported("an iterator method outside the subset", m.syntax()),
        };
        Ok(Some(TKind::Consume { chain, sink }))
    }

    /// The text of a single string literal with no formatting (`panic!("..")`, `expect("..")`).
    fn plain_message(tokens: impl Iterator<Item = ra_ap_syntax::SyntaxToken>) -> Option<String> {
        let strings: Vec<_> = tokens
            .filter(|t| !t.kind().is_trivia() && !matches!(t.text(), "(" | ")" | "[" | "]" | "{" | "}"))
            .collect();
        let [token] = strings.as_slice() else { return None };
        let s = ast::String::cast(token.clone())?;
        let value = s.value().ok()?.to_string();
        (!value.contains('{') && !value.contains('}')).then_some(value)
    }

    /// `o.map(|x| body).unwrap_or_default()` (or `unwrap`, `expect("..")`, `unwrap_or(<text from a literal>)`) and
    /// `o.cloned().unwrap()` of a host struct reference, whose intermediate `Option` of a `String`, a vector or a
    /// struct the typed view cannot hold: read as `match o { Some(x) => body, None => default }`. Each default
    /// neither faults nor moves anything, so evaluating it only when `o` is `None` (where Rust evaluates the
    /// argument eagerly) changes nothing observable.
    fn option_of_owned_unwrapped(
        &mut self,
        receiver: &ast::Expr,
        name: &str,
        args: &[ast::Expr],
        ty: &Ty,
        range: &Range<usize>,
        at_name: usize,
    ) -> Result<Option<TExpr>> {
        if !matches!(ty, Ty::String | Ty::Vec(_) | Ty::Struct(_)) {
            return Ok(None);
        }
        let ast::Expr::MethodCallExpr(inner) = receiver else { return Ok(None) };
        let Some(option) = inner.receiver() else { return Ok(None) };
        let Ok(option_ty @ Ty::Option(_)) = self.expr_type(&option) else { return Ok(None) };
        let core_method = self.sema.resolve_method_call(inner).is_some_and(|f| {
            f.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "core")
        });
        let inner_args: Vec<ast::Expr> = inner.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let inner_name = inner.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
        if !core_method {
            return Ok(None);
        }
        // The default first: its form decides whether this applies before anything of `o` is built.
        let never = Ty::Scalar(Scalar::Never);
        let panic = |message: String| TExpr {
            kind: TKind::Panic { receiver: None, message },
            ty: never.clone(),
            range: at_name..range.end,
        };
        let default = match (name, args) {
            ("unwrap_or_default", []) => {
                let kind = match ty {
                    Ty::String => TKind::Format(Vec::new()),
                    Ty::Vec(_) => TKind::VecLit(Vec::new()),
                    _ => return Ok(None),
                };
                TExpr { kind, ty: ty.clone(), range: range.clone() }
            }
            ("unwrap", []) => panic("called `Option::unwrap()` on a `None` value".to_owned()),
            ("expect", [ast::Expr::Literal(lit)]) => {
                let tokens = lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                let Some(message) = Self::plain_message(tokens) else { return Ok(None) };
                panic(message)
            }
            ("unwrap_or", [d]) => {
                let d = self.expr(d)?;
                if !text_from_a_literal(&d) {
                    return Ok(None);
                }
                d
            }
            _ => return Ok(None),
        };
        let (scrutinee, pat, body) = match (inner_name.as_str(), inner_args.as_slice(), &option_ty) {
            ("map", [closure], _) => {
                let scrutinee = self.expr(&option)?;
                let (param, body) = self.closure(closure)?;
                (scrutinee, param.unwrap_or(TPat::Wild), body)
            }
            ("cloned", [], Ty::Option(payload)) => {
                let Ty::StructRef(id) = **payload else { return Ok(None) };
                let scrutinee = self.expr(&option)?;
                let hidden = self.locals.len();
                self.locals.push(TLocal {
                    name: format!("<cloned at {}>", range.start),
                    ty: Ty::StructRef(id),
                    mutable: false,
                    fixed_type: true,
                    array_literal: false,
                });
                let local = TExpr {
                    kind: TKind::Local(LocalRef::Snippet(hidden)),
                    ty: Ty::StructRef(id),
                    range: range.clone(),
                };
                let body =
                    TExpr { kind: TKind::StructClone(Box::new(local)), ty: Ty::Struct(id), range: range.clone() };
                (scrutinee, TPat::Bind(hidden), body)
            }
            _ => return Ok(None),
        };
        if body.ty != *ty {
            return Ok(None);
        }
        let arms = vec![
            Arm { pat: TPat::Some(Box::new(pat)), guard: None, body },
            // `_` rather than `None`: a last arm that catches all needs no exhaustiveness verdict from rustc.
            Arm { pat: TPat::Wild, guard: None, body: default },
        ];
        let kind = TKind::Match { scrutinee: Box::new(scrutinee), arms };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: range.clone() }))
    }

    /// Methods of `Option<S>` and the `Option`-valued methods of scalars.
    fn option_method(
        &mut self,
        m: &ast::MethodCallExpr,
        f: Function,
        ty: &Ty,
        range: &Range<usize>,
    ) -> Result<Option<TExpr>> {
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let name = f.name(self.db).as_str().to_owned();
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        // Placed, as rustc places a `#[track_caller]` method's panic, at the method's name.
        let at_name = m
            .name_ref()
            .map_or(range.start, |n| usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start));
        let in_core = |this: &Self| {
            this.sema.resolve_method_call(m).is_some_and(|f| {
                f.module(this.db).krate(this.db).display_name(this.db).is_some_and(|n| n.to_string() == "core")
            })
        };
        if !in_core(self) {
            return Ok(None);
        }
        // (Before the receiver's type: an `Option` of an owned value has none in the typed view.)
        if let Some(e) = self.option_of_owned_unwrapped(&receiver, &name, &args, ty, range, at_name)? {
            return Ok(Some(e));
        }
        let Ok(receiver_ty) = self.expr_type(&receiver) else { return Ok(None) };
        let option_method = OptionMethod::from_name(&name).filter(|m| m.arity() == args.len());
        let checked = CheckedMethod::from_name(&name).filter(|m| *m != CheckedMethod::ToDigit);
        let kind = match (&receiver_ty, name.as_str(), args.as_slice()) {
            (Ty::Option(_), _, _) if option_method.is_some() => {
                let Some(method) = option_method else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                let start = if method == OptionMethod::Unwrap { at_name } else { range.start };
                return Ok(Some(TExpr {
                    kind: TKind::Method { name: Method::Option(method), receiver, args },
                    ty: ty.clone(),
                    range: start..range.end,
                }));
            }
            // `Option<&S>` of a scalar is read as `Option<S>`.
            (Ty::Option(_), "copied" | "cloned", []) if receiver_ty == *ty => {
                let mut value = self.expr(&receiver)?;
                value.range = range.clone();
                return Ok(Some(value));
            }
            (Ty::Option(_), "expect", [message]) => {
                let ast::Expr::Literal(lit) = message else { return Ok(None) };
                let Some(message) =
                    Self::plain_message(lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token()))
                else {
                    return Ok(None);
                };
                let receiver = Some(Box::new(self.expr(&receiver)?));
                TKind::Panic { receiver, message }
            }
            (Ty::Option(_), _, [closure]) if OptionClosureMethod::from_name(&name).is_some() => {
                let Some(method) = OptionClosureMethod::from_name(&name) else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let (param, body) = self.closure(closure)?;
                TKind::OptionClosure { method, receiver, param, body: Box::new(body) }
            }
            (Ty::Scalar(s), _, [_]) if s.is_int() && checked.is_some() => {
                let Some(method) = checked else { return Ok(None) };
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::Method { name: Method::Checked(method), receiver, args }
            }
            (Ty::Scalar(Scalar::Char), "to_digit", [_]) => {
                let receiver = Box::new(self.expr(&receiver)?);
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                // `to_digit` panics (at its name) on a radix above 36.
                return Ok(Some(TExpr {
                    kind: TKind::Method { name: Method::Checked(CheckedMethod::ToDigit), receiver, args },
                    ty: ty.clone(),
                    range: at_name..range.end,
                }));
            }
            _ => return Ok(None),
        };
        let start = if matches!(kind, TKind::Panic { .. }) { at_name } else { range.start };
        Ok(Some(TExpr { kind, ty: ty.clone(), range: start..range.end }))
    }

    pub fn expr(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        let mark = self.hoisted.len();
        let built = self.expr_here(expr);
        let stmts = self.hoisted.split_off(mark);
        let e = built?;
        if stmts.is_empty() {
            return Ok(e);
        }
        let (ty, range) = (e.ty.clone(), e.range.clone());
        let block = TBlock { stmts, tail: Some(Box::new(e)), ty: Some(ty.clone()), label: None };
        Ok(TExpr { kind: TKind::Block(block), ty, range })
    }

    /// An array literal of scalars (`[a, b, c]`, `[x; n]`) read where it is written, by a loop, an iterator or a
    /// reading method: the elements in a vector in a hidden local, declared before the expression that reads it
    /// ([`Self::hoisted`]). The typed view has no arrays; the literal is never named, so nothing can tell.
    fn array_temporary(&mut self, e: &ast::Expr) -> Result<Option<Seq>> {
        let ast::Expr::ArrayExpr(array) = e else { return Ok(None) };
        let Some((elem, _)) = self.sema.type_of_expr(e).and_then(|t| t.original.as_array(self.db)) else {
            return Ok(None);
        };
        let Some(elem @ Elem::Scalar(_)) = self.elem(&elem) else { return Ok(None) };
        let kind = match array.kind() {
            ast::ArrayExprKind::Repeat { initializer: Some(value), repeat: Some(count) } => {
                let value = Box::new(self.expr(&value)?);
                let count = Box::new(self.expr(&count)?);
                TKind::VecRepeat { value, count }
            }
            ast::ArrayExprKind::ElementList(elems) => {
                TKind::VecLit(elems.map(|x| self.expr(&x)).collect::<Result<Vec<_>>>()?)
            }
            ast::ArrayExprKind::Repeat { .. } => return self.unsupported("an array of this form", e.syntax()),
        };
        let range = self.range(e.syntax());
        let hidden = self.locals.len();
        let name = format!("<array at {}>", range.start);
        self.locals.push(TLocal { name, ty: Ty::Vec(elem), mutable: false, fixed_type: true, array_literal: true });
        let init = TExpr { kind, ty: Ty::Vec(elem), range };
        self.hoisted.push(TStmt::Let { local: hidden, init: Some(init) });
        Ok(Some(Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false }))
    }

    fn expr_here(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        // `text[a..b]` is a `str` (no value of its own): read as the `&str` it is always borrowed as.
        if let ast::Expr::IndexExpr(index) = expr {
            if let Some(slice) = self.text_slice(index)? {
                return Ok(slice);
            }
        }
        let ty = self.expr_type(expr)?;
        let range = self.range(expr.syntax());
        // Sequence bindings read by loops and methods, before the general forms.
        match expr {
            ast::Expr::ForExpr(f) => {
                if let (Some((pat, seq)), Some(body)) = (self.sequence_loop(f), f.loop_body()) {
                    let var = self.declare_local(&pat)?;
                    let label = Self::label(f.label().and_then(|l| l.lifetime()));
                    let kind = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                    return Ok(TExpr { kind, ty, range });
                }
                // (A plain range is the `for` below.)
                let chain = match f.iterable() {
                    Some(iterable) if self.chain_parts(&iterable).is_some_and(|(_, calls)| !calls.is_empty()) => {
                        self.iter_chain(&iterable)?
                    }
                    _ => None,
                };
                if let (Some(chain), Some(pat), Some(body)) = (chain, f.pat(), f.loop_body()) {
                    let pat = self.pat(&pat)?;
                    let label = Self::label(f.label().and_then(|l| l.lifetime()));
                    let kind = TKind::ForIter { label, pat, chain, body: self.block(&body)? };
                    return Ok(TExpr { kind, ty, range });
                }
                // `for x in [a, b, c]`: the array in a hidden local, then a loop over its elements.
                if let (Some(iterable), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable(), f.pat(), f.loop_body())
                {
                    if let Some(seq) = self.array_temporary(&iterable)? {
                        let var = self.declare_local(&pat)?;
                        let label = Self::label(f.label().and_then(|l| l.lifetime()));
                        let kind = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                // `for x in VEC` over a vector the snippet owns (consumed): the vector in a hidden local, then a
                // loop over its elements.
                if let (Some(iterable), Some(ast::Pat::IdentPat(pat)), Some(body)) =
                    (f.iterable(), f.pat(), f.loop_body())
                {
                    if let Ok(Ty::Vec(elem)) = self.expr_type(&iterable) {
                        let init = self.expr(&iterable)?;
                        let hidden = self.locals.len();
                        let name = format!("<for at {}>", range.start);
                        self.locals.push(TLocal {
                            name,
                            ty: Ty::Vec(elem),
                            mutable: false,
                            fixed_type: true,
                            array_literal: false,
                        });
                        let seq = Seq { binding: hidden, kind: SeqKind::Local, elem, writable: false };
                        let var = self.declare_local(&pat)?;
                        let label = Self::label(f.label().and_then(|l| l.lifetime()));
                        let each = TKind::ForSeq { label, var, seq, body: self.block(&body)? };
                        let unit = Ty::Scalar(Scalar::Unit);
                        let tail = Some(Box::new(TExpr { kind: each, ty: ty.clone(), range: range.clone() }));
                        let stmts = vec![TStmt::Let { local: hidden, init: Some(init) }];
                        let block = TBlock { stmts, tail, ty: Some(unit), label: None };
                        return Ok(TExpr { kind: TKind::Block(block), ty, range });
                    }
                }
            }
            ast::Expr::MethodCallExpr(m) => {
                if let Some(kind) = self.try_convert(m)? {
                    let TKind::TryConvert { at, .. } = &kind else { unreachable!("made above") };
                    let start =
                        if matches!(kind, TKind::TryConvert { then: ParseThen::Unwrap | ParseThen::Expect(_), .. }) {
                            *at
                        } else {
                            range.start
                        };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
                if let Some(kind) = self.parse_method(m)? {
                    // A panic of `unwrap` or `expect` is placed at the method's name.
                    let start = match &kind {
                        TKind::Parse { at, then: ParseThen::Unwrap | ParseThen::Expect(_), .. } => *at,
                        _ => range.start,
                    };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
                if let Some(kind) = self.struct_method(m, &ty)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.map_method(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.text_method(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.consume(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_with_closure(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_in_place(m)? {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(block) = self.temporary_sequence_method(m, &ty)? {
                    return Ok(TExpr { kind: TKind::Block(block), ty, range });
                }
                if let Some(kind) = self.sequence_copy(m, &ty) {
                    return Ok(TExpr { kind, ty, range });
                }
                if let Some(kind) = self.sequence_method(m) {
                    // An overflow inside `sum` is placed, as rustc places it, at the method's name.
                    let start = match (&kind, m.name_ref()) {
                        (TKind::SeqSum(_), Some(name)) => {
                            usize::from(name.syntax().text_range().start()).saturating_sub(self.snippet_start)
                        }
                        _ => range.start,
                    };
                    return Ok(TExpr { kind, ty, range: start..range.end });
                }
            }
            _ => {}
        }
        let kind = match expr {
            ast::Expr::Literal(lit) => TKind::Lit(match lit.kind() {
                ast::LiteralKind::IntNumber(n) => match n.value() {
                    Ok(v) => Lit::Int(v),
                    Err(_) => return self.unsupported("an integer literal out of range", expr.syntax()),
                },
                ast::LiteralKind::FloatNumber(f) => match f.value_string().parse::<f64>() {
                    Ok(v) if v.is_finite() => Lit::Float(v),
                    _ => return self.unsupported("a float literal out of range", expr.syntax()),
                },
                ast::LiteralKind::Bool(b) => Lit::Bool(b),
                ast::LiteralKind::Char(c) => match c.value() {
                    Ok(c) => Lit::Char(c),
                    Err(_) => return self.unsupported("a malformed char literal", expr.syntax()),
                },
                ast::LiteralKind::String(s) => match s.value() {
                    Ok(v) => Lit::Str(v.into_owned()),
                    Err(_) => return self.unsupported("a malformed string literal", expr.syntax()),
                },
                _ => return self.unsupported("a byte literal", expr.syntax()),
            }),
            ast::Expr::ParenExpr(p) => match p.expr() {
                Some(inner) => return self.expr(&inner),
                None => return self.unsupported("empty parentheses", expr.syntax()),
            },
            ast::Expr::RecordExpr(r) => self.struct_literal(r, &ty)?,
            ast::Expr::PathExpr(p) => {
                let Some(path) = p.path() else { return self.unsupported("a path", expr.syntax()) };
                if let Some(kind) = self.text_binding_path(expr, &ty) {
                    return Ok(TExpr { kind, ty, range });
                }
                match self.sema.resolve_path(&path) {
                    Some(PathResolution::Local(local)) => match self.binding_through_ref(local) {
                        Some(binding) => TKind::Deref(binding),
                        None => TKind::Local(self.local_ref(local, expr.syntax())?),
                    },
                    Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v)))
                        if self.option_variant(v) == Some(false) =>
                    {
                        TKind::None
                    }
                    Some(PathResolution::Def(ra_ap_hir::ModuleDef::Const(c))) => match self.primitive_const(c, &ty) {
                        Some(kind) => kind,
                        None => match self.const_body(c)? {
                            // The constant's value, computed where it is used (pure arithmetic on literals).
                            Some(body) => {
                                let mut value = self.expr(&body)?;
                                self.expanding_consts.pop();
                                value.range = range;
                                return Ok(value);
                            }
                            None => return self.unsupported("a constant", expr.syntax()),
                        },
                    },
                    _ => return self.unsupported("a path that is not a local", expr.syntax()),
                }
            }
            ast::Expr::RefExpr(r) if ty == Ty::Str => match self.text_ref(r, &ty)? {
                Some(kind) => kind,
                None => return self.unsupported("a reference", expr.syntax()),
            },
            // `&x` of a scalar: the typed view reads a shared reference as its value.
            ast::Expr::RefExpr(r) if r.mut_token().is_none() && r.raw_token().is_none() && ty.scalar().is_some() => {
                let Some(inner) = r.expr() else { return self.unsupported("a reference", expr.syntax()) };
                // A borrow of a place (not of a literal) is for rustc's borrow check to judge.
                if !matches!(inner, ast::Expr::Literal(_)) {
                    self.references.set(true);
                }
                let mut value = self.expr(&inner)?;
                value.range = range;
                return Ok(value);
            }
            ast::Expr::TupleExpr(t) => TKind::Tuple(t.fields().map(|f| self.expr(&f)).collect::<Result<_>>()?),
            ast::Expr::FieldExpr(f) if f.name_ref().is_some_and(|n| n.text().parse::<usize>().is_err()) => {
                match self.host_field(f) {
                    Some(i) => TKind::HostField(i),
                    None => match self.ref_field(f)? {
                        Some(kind) => kind,
                        None => return self.unsupported("a field of a struct", expr.syntax()),
                    },
                }
            }
            ast::Expr::FieldExpr(f) => {
                let index = f.name_ref().and_then(|n| n.text().parse::<usize>().ok());
                let (Some(base), Some(index)) = (f.expr(), index) else {
                    return self.unsupported("a field of a struct", expr.syntax());
                };
                let base = self.expr(&base)?;
                if !matches!(&base.ty, Ty::Tuple(parts) if index < parts.len()) {
                    return self.unsupported("a field of something other than a tuple", expr.syntax());
                }
                TKind::Field(Box::new(base), index)
            }
            ast::Expr::MatchExpr(m) => {
                let Some(scrutinee) = m.expr() else { return self.unsupported("`match`", expr.syntax()) };
                let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                let scrutinee = Box::new(scrutinee);
                let mut arms = Vec::new();
                for arm in m.match_arm_list().into_iter().flat_map(|l| l.arms()) {
                    let (Some(pat), Some(body)) = (arm.pat(), arm.expr()) else {
                        return self.unsupported("a `match` arm", arm.syntax());
                    };
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let guard = match arm.guard().and_then(|g| g.condition()) {
                        Some(ast::Expr::LetExpr(_)) => return self.unsupported("an `if let` guard", arm.syntax()),
                        Some(c) => Some(self.expr(&c)?),
                        None => None,
                    };
                    arms.push(Arm { pat, guard, body: self.expr(&body)? });
                }
                TKind::Match { scrutinee, arms }
            }
            ast::Expr::MacroExpr(mac) => {
                let Some(call) = mac.macro_call() else { return self.unsupported("a macro", expr.syntax()) };
                let name =
                    call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()).map(|n| n.text().to_string());
                let from_std = self.sema.resolve_macro_call(&call).is_some_and(|m| {
                    m.module(self.db)
                        .krate(self.db)
                        .display_name(self.db)
                        .is_some_and(|n| matches!(n.to_string().as_str(), "core" | "std"))
                });
                let tokens = call
                    .token_tree()
                    .map(|t| t.syntax().descendants_with_tokens().filter_map(|t| t.into_token()).collect::<Vec<_>>())
                    .unwrap_or_default();
                let from_alloc = self.sema.resolve_macro_call(&call).is_some_and(|m| {
                    m.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc")
                });
                if from_alloc && name.as_deref() == Some("vec") && matches!(ty, Ty::Vec(_)) {
                    return Ok(TExpr { kind: self.vec_macro(&call)?, ty, range });
                }
                let std_format = (from_alloc && name.as_deref() == Some("format"))
                    || (from_std && matches!(name.as_deref(), Some("print" | "println" | "eprint" | "eprintln")));
                if let (true, Some(name)) = (std_format, name.as_deref()) {
                    return Ok(TExpr { kind: self.format_macro(&call, name)?, ty, range });
                }
                // `matches!(e, pat)` is the `match` it expands to (its parts keep their place in the snippet).
                if from_std && name.as_deref() == Some("matches") {
                    let m = self
                        .sema
                        .expand_macro_call(&call)
                        .and_then(|x| x.value.descendants().find_map(ast::MatchExpr::cast));
                    let Some(m) = m else {
                        return self.unsupported("a `matches!` that does not expand", expr.syntax());
                    };
                    let mut built = self.expr(&ast::Expr::MatchExpr(m))?;
                    built.range = range;
                    return Ok(built);
                }
                let message = match name.as_deref() {
                    Some("panic") => Self::plain_message(tokens.into_iter()),
                    Some("unreachable")
                        if tokens.iter().all(|t| t.kind().is_trivia() || matches!(t.text(), "(" | ")")) =>
                    {
                        Some("internal error: entered unreachable code".to_owned())
                    }
                    _ => None,
                };
                match (from_std, message) {
                    (true, Some(message)) => TKind::Panic { receiver: None, message },
                    _ => return self.unsupported("a macro outside the subset", expr.syntax()),
                }
            }
            ast::Expr::PrefixExpr(p) => {
                let op = match p.op_kind() {
                    Some(ast::UnaryOp::Neg) => UnOp::Neg,
                    Some(ast::UnaryOp::Not) => UnOp::Not,
                    Some(ast::UnaryOp::Deref) => {
                        let Some(inner) = p.expr() else { return self.unsupported("a dereference", expr.syntax()) };
                        if let Some((binding, _, _)) = self.scalar_reference(&inner) {
                            return Ok(TExpr { kind: TKind::Deref(binding), ty, range });
                        }
                        // `*x` of a shared reference to a scalar, which the typed view reads as the value.
                        let shared = self.sema.type_of_expr(&inner).and_then(|t| self.shared_scalar_ref(&t.original));
                        if shared.is_some() {
                            let mut value = self.expr(&inner)?;
                            value.range = range;
                            return Ok(value);
                        }
                        return self.unsupported("a dereference", expr.syntax());
                    }
                    None => return self.unsupported("a prefix operator", expr.syntax()),
                };
                let Some(inner) = p.expr() else { return self.unsupported("an operand", expr.syntax()) };
                TKind::Unary(op, Box::new(self.expr(&inner)?))
            }
            ast::Expr::BinExpr(b) => {
                let (Some(lhs), Some(rhs), Some(op)) = (b.lhs(), b.rhs(), b.op_kind()) else {
                    return self.unsupported("an operator", expr.syntax());
                };
                let at = b
                    .op_token()
                    .map_or(range.start, |t| usize::from(t.text_range().start()).saturating_sub(self.snippet_start));
                match op {
                    ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated }) => {
                        if let Some(kind) =
                            self.text_comparison(if negated { TextMethod::Ne } else { TextMethod::Eq }, &lhs, &rhs)?
                        {
                            return Ok(TExpr { kind, ty, range });
                        }
                        if let Some(kind) = self.struct_comparison(b, negated)? {
                            return Ok(TExpr { kind, ty, range });
                        }
                    }
                    ast::BinaryOp::ArithOp(ast::ArithOp::Add) if ty == Ty::String => {
                        let left = Box::new(self.expr(&lhs)?);
                        let right = Box::new(self.text_operand(&rhs)?);
                        return Ok(TExpr { kind: TKind::Concat { left, right, at }, ty, range });
                    }
                    ast::BinaryOp::Assignment { op: Some(ast::ArithOp::Add) } => {
                        if let Some(seq) = self.text_seq(&lhs) {
                            let value = Box::new(self.text_operand(&rhs)?);
                            return Ok(TExpr { kind: TKind::StringPush { seq, value, at }, ty, range });
                        }
                    }
                    _ => {}
                }
                match op {
                    ast::BinaryOp::Assignment { op } => {
                        if let ast::Expr::IndexExpr(ix) = &lhs {
                            let (Some(base), Some(index)) = (ix.base(), ix.index()) else {
                                return self.unsupported("an index expression", expr.syntax());
                            };
                            let Some(seq) = self.sequence(&base) else {
                                return self
                                    .unsupported("assignment into something other than a sequence", expr.syntax());
                            };
                            let index = self.expr(&index)?;
                            if index.s() != Scalar::Usize {
                                return self.unsupported("an index that is not a `usize`", expr.syntax());
                            }
                            let value = Box::new(self.expr(&rhs)?);
                            // Index faults at the `[` for a `Vec` (`IndexMut::index_mut`), at the place for a slice.
                            let index_at = match (seq.kind, ix.l_brack_token()) {
                                (SeqKind::Slice, _) | (_, None) => self.range(lhs.syntax()).start,
                                (_, Some(b)) => usize::from(b.text_range().start()).saturating_sub(self.snippet_start),
                            };
                            let index = Box::new(index);
                            TKind::SeqStore { seq, index_at, index, op: op.map(arith), value }
                        } else if let ast::Expr::FieldExpr(f) = &lhs {
                            let Some(i) = self.host_field(f) else {
                                return self.unsupported("assignment to a field of a struct", expr.syntax());
                            };
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::HostField(i), op: op.map(arith), value }
                        } else if let Some((map, key, default)) = match &lhs {
                            ast::Expr::PrefixExpr(d) if d.op_kind() == Some(ast::UnaryOp::Deref) => {
                                d.expr().map(|inner| self.map_entry(&inner)).transpose()?.flatten()
                            }
                            _ => None,
                        } {
                            // Primitive operands: the value is evaluated before the place.
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::MapUpdate {
                                map,
                                key: Box::new(key),
                                default: default.map(Box::new),
                                op: op.map(arith),
                                value,
                            }
                        } else if let ast::Expr::PrefixExpr(deref) = &lhs {
                            let target = match deref.op_kind() {
                                Some(ast::UnaryOp::Deref) => deref.expr().and_then(|r| self.scalar_reference(&r)),
                                _ => None,
                            };
                            let Some((binding, _, true)) = target else {
                                return self
                                    .unsupported("assignment through something other than a `&mut`", expr.syntax());
                            };
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::Deref(binding), op: op.map(arith), value }
                        } else {
                            let ast::Expr::PathExpr(place) = &lhs else {
                                return self.unsupported("assignment to something other than a local", expr.syntax());
                            };
                            let Some(PathResolution::Local(local)) =
                                place.path().and_then(|p| self.sema.resolve_path(&p))
                            else {
                                return self.unsupported("assignment to something other than a local", expr.syntax());
                            };
                            let place = self.local_ref(local, lhs.syntax())?;
                            let value = Box::new(self.expr(&rhs)?);
                            TKind::Assign { place: Place::Local(place), op: op.map(arith), value }
                        }
                    }
                    other => {
                        let op = match other {
                            ast::BinaryOp::ArithOp(a) => arith(a),
                            ast::BinaryOp::LogicOp(ast::LogicOp::And) => BinOp::And,
                            ast::BinaryOp::LogicOp(ast::LogicOp::Or) => BinOp::Or,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: false }) => BinOp::Eq,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: true }) => BinOp::Ne,
                            ast::BinaryOp::CmpOp(ast::CmpOp::Ord { ordering, strict }) => match (ordering, strict) {
                                (ast::Ordering::Less, true) => BinOp::Lt,
                                (ast::Ordering::Less, false) => BinOp::Le,
                                (ast::Ordering::Greater, true) => BinOp::Gt,
                                (ast::Ordering::Greater, false) => BinOp::Ge,
                            },
                            ast::BinaryOp::Assignment { .. } => unreachable!("handled above"),
                        };
                        let (l, r) = (self.expr(&lhs)?, self.expr(&rhs)?);
                        TKind::Binary(op, Box::new(l), Box::new(r))
                    }
                }
            }
            ast::Expr::CastExpr(c) => {
                let Some(inner) = c.expr() else { return self.unsupported("a cast", expr.syntax()) };
                TKind::Cast(Box::new(self.expr(&inner)?))
            }
            ast::Expr::BlockExpr(b) => TKind::Block(self.block(b)?),
            ast::Expr::IfExpr(i) => {
                let Some(cond) = i.condition() else { return self.unsupported("`if`", expr.syntax()) };
                let Some(then) = i.then_branch() else { return self.unsupported("`if`", expr.syntax()) };
                if let ast::Expr::LetExpr(l) = &cond {
                    // `if let P = e { A } else { B }` is `match e { P => A, _ => B }`.
                    let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                        return self.unsupported("`if let`", expr.syntax());
                    };
                    let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                    let scrutinee = Box::new(scrutinee);
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let then_ty = self.expr_type(&ast::Expr::BlockExpr(then.clone()))?;
                    let body =
                        TExpr { ty: then_ty, range: self.range(then.syntax()), kind: TKind::Block(self.block(&then)?) };
                    let otherwise = match i.else_branch() {
                        Some(ast::ElseBranch::Block(b)) => TExpr {
                            ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                            range: self.range(b.syntax()),
                            kind: TKind::Block(self.block(&b)?),
                        },
                        Some(ast::ElseBranch::IfExpr(e)) => self.expr(&ast::Expr::IfExpr(e))?,
                        None => {
                            TExpr { ty: Ty::Scalar(Scalar::Unit), range: range.clone(), kind: TKind::Lit(Lit::Unit) }
                        }
                    };
                    let arms =
                        vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: otherwise }];
                    return Ok(TExpr { kind: TKind::Match { scrutinee, arms }, ty, range });
                }
                if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                    return self.unsupported("a `let` chain", expr.syntax());
                }
                let otherwise = match i.else_branch() {
                    Some(ast::ElseBranch::Block(b)) => Some(Box::new(TExpr {
                        ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                        range: self.range(b.syntax()),
                        kind: TKind::Block(self.block(&b)?),
                    })),
                    Some(ast::ElseBranch::IfExpr(e)) => Some(Box::new(self.expr(&ast::Expr::IfExpr(e))?)),
                    None => None,
                };
                TKind::If { cond: Box::new(self.expr(&cond)?), then: self.block(&then)?, otherwise }
            }
            ast::Expr::WhileExpr(w) => {
                let Some(cond) = w.condition() else { return self.unsupported("`while`", expr.syntax()) };
                let Some(body) = w.loop_body() else { return self.unsupported("`while`", expr.syntax()) };
                let label = Self::label(w.label().and_then(|l| l.lifetime()));
                if let ast::Expr::LetExpr(l) = &cond {
                    // `while let P = e { body }` is `loop { match e { P => body, _ => break } }`.
                    let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                        return self.unsupported("`while let`", expr.syntax());
                    };
                    let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                    let scrutinee = Box::new(scrutinee);
                    let pat = self.scrutinee_pat(&pat, parse_result)?;
                    let unit = Ty::Scalar(Scalar::Unit);
                    let body = TExpr {
                        ty: unit.clone(),
                        range: self.range(body.syntax()),
                        kind: TKind::Block(self.block(&body)?),
                    };
                    let leave = TExpr {
                        ty: Ty::Scalar(Scalar::Never),
                        range: range.clone(),
                        kind: TKind::Break { label: label.clone(), value: None },
                    };
                    let arms = vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: leave }];
                    let step = TExpr { kind: TKind::Match { scrutinee, arms }, ty: unit.clone(), range: range.clone() };
                    let body = TBlock { stmts: vec![TStmt::Expr(step)], tail: None, ty: Some(unit), label: None };
                    return Ok(TExpr { kind: TKind::Loop { label, body }, ty, range });
                }
                if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                    return self.unsupported("a `let` chain", expr.syntax());
                }
                TKind::While { label, cond: Box::new(self.expr(&cond)?), body: self.block(&body)? }
            }
            ast::Expr::LoopExpr(l) => {
                let Some(body) = l.loop_body() else { return self.unsupported("`loop`", expr.syntax()) };
                let label = Self::label(l.label().and_then(|l| l.lifetime()));
                TKind::Loop { label, body: self.block(&body)? }
            }
            ast::Expr::ForExpr(f) => {
                let (
                    Some(pat @ (ast::Pat::IdentPat(_) | ast::Pat::WildcardPat(_))),
                    Some(ast::Expr::RangeExpr(range_expr)),
                    Some(body),
                ) = (f.pat(), f.iterable(), f.loop_body())
                else {
                    return self.unsupported("`for` over something other than an integer range", expr.syntax());
                };
                let (Some(start), Some(end)) = (range_expr.start(), range_expr.end()) else {
                    return self.unsupported("an open range", expr.syntax());
                };
                let inclusive = range_expr.op_kind() == Some(ast::RangeOp::Inclusive);
                let (start, end) = (self.expr(&start)?, self.expr(&end)?);
                if !start.s().is_int() {
                    return self.unsupported("`for` over a range of non-integers", expr.syntax());
                }
                let var = match &pat {
                    ast::Pat::IdentPat(pat) => self.declare_local(pat)?,
                    // `for _ in ..`: the counter in a local no name reaches.
                    _ => {
                        let name = format!("<for at {}>", range.start);
                        self.locals.push(TLocal {
                            name,
                            ty: start.ty.clone(),
                            mutable: false,
                            fixed_type: true,
                            array_literal: false,
                        });
                        self.locals.len() - 1
                    }
                };
                let label = Self::label(f.label().and_then(|l| l.lifetime()));
                TKind::For {
                    label,
                    var,
                    start: Box::new(start),
                    end: Box::new(end),
                    inclusive,
                    body: self.block(&body)?,
                }
            }
            ast::Expr::BreakExpr(b) => {
                let value = match b.expr() {
                    Some(v) => Some(Box::new(self.expr(&v)?)),
                    None => None,
                };
                TKind::Break { label: Self::label(b.lifetime()), value }
            }
            ast::Expr::ContinueExpr(c) => TKind::Continue { label: Self::label(c.lifetime()) },
            ast::Expr::ReturnExpr(r) => {
                let value = match r.expr() {
                    Some(v) => Some(Box::new(self.expr(&v)?)),
                    None => None,
                };
                TKind::Return(value)
            }
            ast::Expr::CallExpr(c) if self.map_new(c, &ty) => TKind::MapNew,
            ast::Expr::CallExpr(c) => {
                let Some(ast::Expr::PathExpr(callee)) = c.expr() else {
                    return self.unsupported("a call of something other than a function", expr.syntax());
                };
                let resolution = callee.path().and_then(|p| self.sema.resolve_path(&p));
                // A closure kept in a local: its body, with its parameters bound to the arguments.
                if let Some(PathResolution::Local(local)) = &resolution {
                    if let Some(closure) = self.closure_locals.get(local).cloned() {
                        let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                        if args.len() != closure.params.len() {
                            return self
                                .unsupported("a closure called with the wrong number of arguments", expr.syntax());
                        }
                        let mut stmts = Vec::new();
                        for (pat, arg) in closure.params.into_iter().zip(&args) {
                            let init = self.expr(arg)?;
                            stmts.push(match pat {
                                TPat::Bind(local) => TStmt::Let { local, init: Some(init) },
                                pat => TStmt::LetPat { pat, init, otherwise: None },
                            });
                        }
                        let block_ty = Some(closure.body.ty.clone());
                        let block = TBlock { stmts, tail: Some(closure.body), ty: block_ty, label: None };
                        return Ok(TExpr { kind: TKind::Block(block), ty, range });
                    }
                }
                if let Some(PathResolution::Def(ra_ap_hir::ModuleDef::EnumVariant(v))) = resolution {
                    let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                    if let (Some(true), [value]) = (self.option_variant(v), args.as_slice()) {
                        return Ok(TExpr { kind: TKind::Some(Box::new(self.expr(value)?)), ty, range });
                    }
                    return self.unsupported("a variant of a type other than `Option`", expr.syntax());
                }
                let resolved = match resolution {
                    Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) => Some(f),
                    _ => None,
                };
                let args: Vec<ast::Expr> = c.arg_list().into_iter().flat_map(|l| l.args()).collect();
                if let Some(f) = resolved {
                    if let Some(kind) = self.string_constructor(f, &args, &ty)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                if let (Some(f), [], Ty::Vec(_)) = (resolved, args.as_slice(), &ty) {
                    // `Vec::new()`.
                    let in_alloc = f
                        .module(self.db)
                        .krate(self.db)
                        .display_name(self.db)
                        .is_some_and(|n| n.to_string() == "alloc");
                    if in_alloc && f.name(self.db).as_str() == "new" && f.as_assoc_item(self.db).is_some() {
                        return Ok(TExpr { kind: TKind::VecLit(Vec::new()), ty, range });
                    }
                }
                if let (Some(f), [value]) = (resolved, args.as_slice()) {
                    // `i64::from(x)`.
                    if let Some(cast) = self.conversion(f, value, ty.clone(), range.clone())? {
                        return Ok(cast);
                    }
                }
                if let (Some(f), [a, b]) = (resolved, args.as_slice()) {
                    // `std::cmp::max(a, b)` / `min`: what `a.max(b)` is.
                    let name = f.name(self.db).as_str().to_owned();
                    let in_cmp = f.module(self.db).name(self.db).is_some_and(|m| m.as_str() == "cmp")
                        && f.module(self.db)
                            .krate(self.db)
                            .display_name(self.db)
                            .is_some_and(|n| n.to_string() == "core")
                        && f.as_assoc_item(self.db).is_none();
                    let method = match name.as_str() {
                        "max" => Some(ScalarMethod::Max),
                        "min" => Some(ScalarMethod::Min),
                        _ => None,
                    };
                    if let (true, Some(method)) = (in_cmp, method) {
                        let receiver = Box::new(self.expr(a)?);
                        let args = vec![self.expr(b)?];
                        let kind = TKind::Method { name: Method::Scalar(method), receiver, args };
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                let Some(function) = resolved.and_then(|f| self.fn_ids.get(&f).copied()) else {
                    if let Some((name, symbol)) = resolved.and_then(|f| self.host_scalar_fn(f)) {
                        let args = self.host_args(&args, expr.syntax())?;
                        let kind = TKind::HostCall { name, symbol, receiver: None, args };
                        return Ok(TExpr { kind, ty, range });
                    }
                    // `Type::method(&mut value, ..)`.
                    if let Some((adt, ty_name, mutable)) = resolved.and_then(|f| self.host_scalar_method(f)) {
                        if let Some((first, rest)) = args.split_first() {
                            if let Some(receiver) = self.self_arg(first, adt, mutable) {
                                let name = resolved.map(|f| f.name(self.db).as_str().to_owned()).unwrap_or_default();
                                let args = self.host_args(rest, expr.syntax())?;
                                let symbol = lacuna_ir::shim_symbol(Some(&ty_name), &name);
                                let kind = TKind::HostCall { name, symbol, receiver: Some(receiver), args };
                                return Ok(TExpr { kind, ty, range });
                            }
                        }
                    }
                    return self.unsupported("a call of a function not declared in the snippet", expr.syntax());
                };
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>>>()?;
                TKind::Call { function, args }
            }
            ast::Expr::IndexExpr(ix) if ix.base().and_then(|b| self.map_local(&b)).is_some() => {
                let map = ix.base().and_then(|b| self.map_local(&b)).expect("checked above");
                let Some(key) = ix.index() else { return self.unsupported("an index expression", expr.syntax()) };
                let key = self.map_key(map, &key)?;
                // `Index::index` panics inside std; rustc places the panic at the `[`.
                let at = ix
                    .l_brack_token()
                    .map_or(range.start, |b| usize::from(b.text_range().start()).saturating_sub(self.snippet_start));
                TKind::MapMethod { map, name: MapMethod::Index, args: vec![key], at }
            }
            ast::Expr::IndexExpr(ix) => return self.seq_index(ix, ty),
            ast::Expr::MethodCallExpr(m) => {
                let Some(f) = self.sema.resolve_method_call(m) else {
                    return self.unsupported("a method", expr.syntax());
                };
                let name = f.name(self.db).as_str().to_owned();
                let no_args = m.arg_list().is_some_and(|l| l.args().next().is_none());
                if let (true, Some(receiver)) = (no_args, m.receiver()) {
                    // `x.into()`.
                    if let Some(cast) = self.conversion(f, &receiver, ty.clone(), range.clone())? {
                        return Ok(cast);
                    }
                }
                if let Some(e) = self.option_method(m, f, &ty, &range)? {
                    return Ok(e);
                }
                // A method of the host's own type, on a hole binding.
                if let (Some((adt, ty_name, mutable)), Some(receiver)) = (self.host_scalar_method(f), m.receiver()) {
                    if let Some(receiver) = self.self_arg(&receiver, adt, mutable) {
                        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
                        let args = self.host_args(&args, m.syntax())?;
                        let symbol = lacuna_ir::shim_symbol(Some(&ty_name), &name);
                        let kind = TKind::HostCall { name, symbol, receiver: Some(receiver), args };
                        // A panic inside is placed, as rustc's debug info places the call, at the method's name.
                        let start = m.name_ref().map_or(range.start, |n| {
                            usize::from(n.syntax().text_range().start()).saturating_sub(self.snippet_start)
                        });
                        return Ok(TExpr { kind, ty, range: start..range.end });
                    }
                }
                // Inherent methods of the primitive types (not the host's), and `Ord::max`/`min` (integers have no
                // inherent ones).
                let inherent_primitive = match f.as_assoc_item(self.db).map(|a| a.container(self.db)) {
                    Some(ra_ap_hir::AssocItemContainer::Impl(imp)) => {
                        imp.trait_(self.db).is_none() && imp.self_ty(self.db).as_builtin().is_some()
                    }
                    _ => false,
                };
                let ord = (name == "max" || name == "min") && self.core_trait_of(f).as_deref() == Some("Ord");
                let known = ScalarMethod::from_name(&name)
                    .map(Method::Scalar)
                    .or_else(|| CharMethod::from_name(&name).map(Method::Char));
                let Some(method) = known.filter(|_| inherent_primitive || ord) else {
                    return self.unsupported("a method outside the subset", expr.syntax());
                };
                let Some(receiver) = m.receiver() else { return self.unsupported("a method", expr.syntax()) };
                let receiver = Box::new(self.expr(&receiver)?);
                let mut args = Vec::new();
                for a in m.arg_list().into_iter().flat_map(|l| l.args()) {
                    args.push(self.expr(&a)?);
                }
                TKind::Method { name: method, receiver, args }
            }
            _ => return self.unsupported("an expression outside the subset", expr.syntax()),
        };
        Ok(TExpr { kind, ty, range })
    }
}

fn arith(a: ast::ArithOp) -> BinOp {
    match a {
        ast::ArithOp::Add => BinOp::Add,
        ast::ArithOp::Sub => BinOp::Sub,
        ast::ArithOp::Mul => BinOp::Mul,
        ast::ArithOp::Div => BinOp::Div,
        ast::ArithOp::Rem => BinOp::Rem,
        ast::ArithOp::Shl => BinOp::Shl,
        ast::ArithOp::Shr => BinOp::Shr,
        ast::ArithOp::BitXor => BinOp::BitXor,
        ast::ArithOp::BitOr => BinOp::BitOr,
        ast::ArithOp::BitAnd => BinOp::BitAnd,
    }
}

/// Whether adaptors that are at most one `rev` reverse their source (`None` for any other adaptors).
fn only_reversed(stages: &[(Stage, Ty)]) -> Option<bool> {
    match stages {
        [] => Some(false),
        [(Stage::Rev, _)] => Some(true),
        _ => None,
    }
}

/// A new `String` made from a string literal alone (`"..".to_string()`, `String::from("..")`, `String::new()`):
/// evaluating it can neither fault nor move anything.
fn text_from_a_literal(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Format(pieces) => pieces.iter().all(|p| matches!(p, FmtPiece::Lit(_))),
        TKind::TextMethod { receiver, args, .. } => {
            e.ty == Ty::String && args.is_empty() && matches!(receiver.kind, TKind::Lit(Lit::Str(_)))
        }
        _ => false,
    }
}
