//! Text in the typed view: `&str`, `String`, the hole's string bindings, `format!` and the printing macros.

use ra_ap_hir::{AsAssocItem, Local, PathResolution};
use ra_ap_syntax::ast::RangeItem;
use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, AstToken, SyntaxKind, SyntaxNode};

use super::iter::SourceCall;
use crate::ir_build::{Builder, Result};
use lacuna_ir::{
    parse_format, Closure, Elem, FmtArgRef, FmtPiece, FmtSpec, LocalRef, ParseThen, Scalar, Seq, SeqKind, TExpr, TKind,
    TLocal, TPat, TextMethod, Ty,
};
use std::ops::Range;

impl<'db> Builder<'_, 'db> {
    pub(super) fn is_string(&self, ty: &ra_ap_hir::Type<'db>) -> bool {
        let Some(ra_ap_hir::Adt::Struct(s)) = ty.as_adt() else { return false };
        s.name(self.db).as_str() == "String"
            && s.module(self.db).krate(self.db).display_name(self.db).is_some_and(|n| n.to_string() == "alloc")
    }

    /// `String` as [`Ty::String`]; `&str`, `&String` and shared references to those (`&&str`, `&&&str` — a
    /// closure's parameter over the items of a `Vec<&str>`) as [`Ty::Str`].
    pub(super) fn text_ty(&self, ty: &ra_ap_hir::Type<'db>) -> Option<Ty> {
        if self.is_string(ty) {
            return Some(Ty::String);
        }
        let mut inner = ty.clone();
        let mut depth = 0;
        while let Some((pointee, mutability)) = inner.as_reference() {
            if mutability != ra_ap_hir::Mutability::Shared {
                return None;
            }
            inner = pointee;
            depth += 1;
        }
        (depth > 0 && (inner.is_str() || self.is_string(&inner))).then_some(Ty::Str)
    }

    /// The text `expr` names in place: a string binding of the hole (`String`, `&String`, `&mut String`, `&str`)
    /// or a `String` the snippet owns, as a sequence of bytes.
    pub(super) fn text_seq(&mut self, expr: &ast::Expr) -> Option<Seq> {
        let ast::Expr::PathExpr(p) = expr else { return None };
        let Some(PathResolution::Local(local)) = self.sema.resolve_path(&p.path()?) else { return None };
        if let Some(&id) = self.local_ids.get(&local) {
            let l = self.locals.get(id)?;
            return (l.ty == Ty::String).then_some(Seq {
                binding: id,
                kind: SeqKind::Local,
                elem: Elem::Scalar(Scalar::U8),
                writable: l.mutable,
            });
        }
        let (binding, _) = self.hole_binding(expr)?;
        self.text_binding(binding, local)
    }

    /// The hole binding `binding` (the local `local`) as text in place, when it holds a `String`, `&String`,
    /// `&mut String` or `&str`.
    pub(super) fn text_binding(&mut self, binding: usize, local: Local<'db>) -> Option<Seq> {
        let ty = local.ty(self.db);
        let (kind, writable) = match ty.as_reference() {
            Some((inner, ra_ap_hir::Mutability::Shared)) if inner.is_str() => (SeqKind::Slice, false),
            Some((inner, m)) if self.is_string(&inner) => (SeqKind::RefVec, m == ra_ap_hir::Mutability::Mut),
            None if self.is_string(&ty) => (SeqKind::Vec, local.is_mut(self.db)),
            _ => return None,
        };
        self.owns_buffers.set(true);
        self.note_binding(binding, Scalar::U8);
        Some(Seq { binding, kind, elem: Elem::Scalar(Scalar::U8), writable })
    }

    /// Text read where a reference to it is enough (a receiver, an operand of `==`, a format argument): the hole's
    /// string bindings in place, other text by value.
    pub(super) fn text_operand(&mut self, expr: &ast::Expr) -> Result<TExpr> {
        let range = self.range(expr.syntax());
        if let Some(seq) = self.text_seq(expr) {
            if seq.kind != SeqKind::Local {
                return Ok(TExpr { kind: TKind::TextOf(seq), ty: Ty::Str, range });
            }
        }
        let inner = match expr {
            ast::Expr::RefExpr(r) if r.mut_token().is_none() => r.expr(),
            _ => None,
        };
        if let Some(inner) = inner {
            if self.text_seq(&inner).is_some_and(|s| s.kind != SeqKind::Local) {
                return self.text_operand(&inner);
            }
        }
        let mut value = self.expr(expr)?;
        // A `String` element or field (`v[i]`, `item.name`) is read in place, not moved out.
        if value.ty == Ty::String && matches!(value.kind, TKind::SeqIndex { .. } | TKind::RefField { .. }) {
            value.ty = Ty::Str;
        }
        Ok(Self::in_place(value))
    }

    /// A path to a hole binding holding text by reference (`&str`, `&String`), read in place.
    pub(super) fn text_binding_path(&mut self, expr: &ast::Expr, ty: &Ty) -> Option<TKind> {
        if *ty != Ty::Str {
            return None;
        }
        let seq = self.text_seq(expr)?;
        matches!(seq.kind, SeqKind::Slice | SeqKind::RefVec).then_some(TKind::TextOf(seq))
    }

    /// `&s` of text: the text itself (a borrow the lowering's ownership check follows).
    pub(super) fn text_ref(&mut self, r: &ast::RefExpr, ty: &Ty) -> Result<Option<TKind>> {
        if *ty != Ty::Str || r.mut_token().is_some() || r.raw_token().is_some() {
            return Ok(None);
        }
        let Some(inner) = r.expr() else { return Ok(None) };
        Ok(Some(self.text_borrowed(&inner, "a reference to something other than text", r.syntax())?.kind))
    }

    /// Text `inner` holds, borrowed as a `&str` (`&s`, a `&self` method's receiver): a `&str` itself, a `String`'s
    /// as `as_str` reads it; anything else is `what`, outside the subset.
    pub(super) fn text_borrowed(&mut self, inner: &ast::Expr, what: &str, node: &SyntaxNode) -> Result<TExpr> {
        let value = self.text_operand(inner)?;
        match value.ty {
            Ty::Str => Ok(value),
            Ty::String => {
                let range = value.range.clone();
                let kind = TKind::TextMethod { name: TextMethod::AsStr, receiver: Box::new(value), args: Vec::new() };
                Ok(TExpr { kind, ty: Ty::Str, range })
            }
            _ => self.unsupported(what, node),
        }
    }

    /// Methods of text: reading ones (the [`TextMethod`]s with an arity), and `push_str` / `push` on a writable `String`.
    pub(super) fn text_method(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let Some(receiver) = m.receiver() else { return Ok(None) };
        let Some(f) = self.sema.resolve_method_call(m) else { return Ok(None) };
        let krate = self.fn_crate(f);
        if !matches!(krate.as_deref(), Some("core" | "alloc")) {
            return Ok(None);
        }
        let receiver_ty = self.sema.type_of_expr(&receiver).map(|t| t.original);
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        // `x.to_string()` of a scalar: what `format!("{x}")` makes.
        let scalar_receiver = receiver_ty.as_ref().and_then(|t| Self::builtin(&t.strip_references()));
        if let (Some(s), "to_string", []) = (scalar_receiver, name.as_str(), args.as_slice()) {
            if matches!(s, Scalar::Unit | Scalar::Never) {
                return Ok(None);
            }
            if self.core_trait_of(f).is_none() && krate.as_deref() == Some("alloc") {
                self.owns_buffers.set(true);
                let value = self.expr(&receiver)?;
                return Ok(Some(TKind::Format(vec![FmtPiece::Arg { value, spec: FmtSpec::default() }])));
            }
        }
        let receiver_is_text =
            receiver_ty.as_ref().is_some_and(|t| self.text_ty(t).is_some() || t.strip_references().is_str());
        if !receiver_is_text {
            return Ok(None);
        }
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        if matches!(name.as_str(), "push_str" | "push") {
            let (Some(seq), [value]) = (self.text_seq(&receiver), args.as_slice()) else {
                return self.unsupported("changing text other than a `String` binding or local", m.syntax());
            };
            let value = if name == "push_str" { self.text_operand(value)? } else { self.expr(value)? };
            return Ok(Some(TKind::StringPush { seq, value: Box::new(value), at }));
        }
        let Some(method) = TextMethod::from_name(&name).filter(|m| m.arity() == Some(args.len())) else {
            return Ok(None);
        };
        // A pattern argument's type must implement `Pattern`, a bound rust-analyzer does not check.
        if matches!(
            method,
            TextMethod::Contains
                | TextMethod::StartsWith
                | TextMethod::EndsWith
                | TextMethod::TrimMatches
                | TextMethod::TrimStartMatches
                | TextMethod::TrimEndMatches
                | TextMethod::StripPrefix
                | TextMethod::StripSuffix
                | TextMethod::Find
                | TextMethod::Rfind
                | TextMethod::Replace
        ) {
            let pattern = args.first().and_then(|a| self.sema.type_of_expr(a)).map(|t| t.original);
            let fits = pattern.is_some_and(|t| {
                t.is_char()
                    || t.as_reference().is_some_and(|(inner, m)| {
                        m == ra_ap_hir::Mutability::Shared
                            && (inner.is_str()
                                || self.is_string(&inner)
                                || inner.as_reference().is_some_and(|(i, _)| i.is_str()))
                    })
            });
            if !fits {
                self.rustc_decides("a pattern of this type", m.syntax());
            }
        }
        let receiver = Box::new(self.text_operand(&receiver)?);
        let args = args.iter().map(|a| self.text_operand(a)).collect::<Result<Vec<_>>>()?;
        Ok(Some(TKind::TextMethod { name: method, receiver, args }))
    }

    /// `text.parse::<S>()` followed by what consumes the `Result` (see [`TKind::Parse`]), as `m` (the consumer)
    /// names it.
    pub(super) fn parse_method(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(ast::Expr::MethodCallExpr(parse)) = m.receiver() else { return Ok(None) };
        if parse.name_ref().is_none_or(|n| n.text() != "parse") {
            return Ok(None);
        }
        let in_core = |b: &Self, call: &ast::MethodCallExpr| {
            b.sema
                .resolve_method_call(call)
                .is_some_and(|f| f.module(b.db).krate(b.db).display_name(b.db).is_some_and(|n| n.to_string() == "core"))
        };
        if !in_core(self, &parse) || !in_core(self, m) {
            return Ok(None);
        }
        // `Result<S, E>`: the target is `S`.
        let Some(result) = self.sema.type_of_expr(&ast::Expr::MethodCallExpr(parse.clone())) else { return Ok(None) };
        let Some(target) = result.original.type_arguments().next().and_then(|t| Self::builtin(&t)) else {
            return Ok(None);
        };
        if matches!(target, Scalar::Unit | Scalar::Never) {
            return Ok(None);
        }
        let Some(name) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
        let Some(receiver) = parse.receiver() else { return Ok(None) };
        let text = Box::new(self.text_operand(&receiver)?);
        let then = self.result_consumer(m, &name, &args, "parse")?;
        Ok(Some(TKind::Parse { text, target, then, at }))
    }

    /// What `m` (named `name`, with `args`) does with the `Result` of `parse` or `try_from` (`what`).
    pub(super) fn result_consumer(
        &mut self,
        m: &ast::MethodCallExpr,
        name: &str,
        args: &[ast::Expr],
        what: &str,
    ) -> Result<ParseThen> {
        Ok(match (name, args) {
            ("unwrap", []) => ParseThen::Unwrap,
            ("unwrap_or_default", []) => ParseThen::UnwrapOrDefault,
            ("ok", []) => ParseThen::Ok,
            ("is_ok", []) => ParseThen::IsOk,
            ("is_err", []) => ParseThen::IsErr,
            ("unwrap_or", [v]) => ParseThen::UnwrapOr(Box::new(self.expr(v)?)),
            ("expect", [message]) => {
                let tokens = message.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                match Self::plain_message(tokens) {
                    Some(text) => ParseThen::Expect(text),
                    None => return self.unsupported("an `expect` message that is not a literal", m.syntax()),
                }
            }
            _ => return self.unsupported(&format!("a use of `{what}` outside the subset"), m.syntax()),
        })
    }

    /// `String::from(text)` and `String::new()`.
    pub(super) fn string_constructor(
        &mut self,
        f: ra_ap_hir::Function,
        args: &[ast::Expr],
        ty: &Ty,
    ) -> Result<Option<TKind>> {
        let in_alloc = self.fn_crate(f).as_deref() == Some("alloc");
        let of_string = matches!(
            f.as_assoc_item(self.db).map(|a| a.container(self.db)),
            Some(ra_ap_hir::AssocItemContainer::Impl(imp)) if self.is_string(&imp.self_ty(self.db))
        );
        if *ty != Ty::String || !(in_alloc || of_string) {
            return Ok(None);
        }
        Ok(match (f.name(self.db).as_str(), args) {
            ("new", []) if of_string => Some(TKind::Format(Vec::new())),
            ("with_capacity", [capacity]) if of_string => {
                let range = self.range(capacity.syntax());
                let empty = TExpr { kind: TKind::Format(Vec::new()), ty: Ty::String, range };
                Some(self.with_capacity(capacity, empty)?.kind)
            }
            ("from", [text]) => {
                let receiver = Box::new(self.text_operand(text)?);
                if !matches!(receiver.ty, Ty::Str | Ty::String) {
                    return Ok(None);
                }
                // `String::from` of a `String` moves it (`into` says so to the ownership check).
                let name = if receiver.ty == Ty::String { TextMethod::Into } else { TextMethod::ToString };
                Some(TKind::TextMethod { name, receiver, args: Vec::new() })
            }
            _ => None,
        })
    }

    /// `a == b` and `a != b` of text.
    pub(super) fn text_comparison(
        &mut self,
        op: TextMethod,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
    ) -> Result<Option<TKind>> {
        let is_text = |b: &Self, e: &ast::Expr| {
            b.sema.type_of_expr(e).is_some_and(|t| b.text_ty(&t.original).is_some() || t.original.is_str())
        };
        if !is_text(self, lhs) || !is_text(self, rhs) {
            return Ok(None);
        }
        // std's `PartialEq` impls between text types cover these pairs; for others (`&String == String`,
        // `&&str == &str`) rust-analyzer does not report the missing impl.
        let kind = |b: &Self, e: &ast::Expr| {
            let t = b.sema.type_of_expr(e)?.original;
            if b.is_string(&t) {
                return Some(0);
            }
            match t.as_reference() {
                Some((inner, ra_ap_hir::Mutability::Shared)) if inner.is_str() => Some(1),
                Some((inner, ra_ap_hir::Mutability::Shared)) if b.is_string(&inner) => Some(2),
                _ => None,
            }
        };
        let pair = (kind(self, lhs), kind(self, rhs));
        if !matches!(pair, (Some(a), Some(b)) if a == b || (a != 2 && b != 2) || (a != 0 && b != 0)) {
            self.rustc_decides("a comparison of these text types", lhs.syntax());
        }
        let receiver = Box::new(self.text_operand(lhs)?);
        let other = self.text_operand(rhs)?;
        Ok(Some(TKind::TextMethod { name: op, receiver, args: vec![other] }))
    }

    /// `format!`, `print!`, `println!`, `eprint!`, `eprintln!` with a literal format string.
    pub(super) fn format_macro(&mut self, call: &ast::MacroCall, name: &str) -> Result<TKind> {
        let Some(tt) = call.token_tree() else { return self.unsupported("a macro without arguments", call.syntax()) };
        let first = tt.syntax().children_with_tokens().filter_map(|t| t.into_token()).find(|t| {
            !t.kind().is_trivia()
                && !matches!(t.kind(), SyntaxKind::L_PAREN | SyntaxKind::L_BRACK | SyntaxKind::L_CURLY)
        });
        let newline = name.ends_with("ln");
        let mut pieces = Vec::new();
        match first {
            // `println!()`.
            Some(t)
                if matches!(t.kind(), SyntaxKind::R_PAREN | SyntaxKind::R_BRACK | SyntaxKind::R_CURLY) && newline => {}
            Some(t) if t.kind() == SyntaxKind::STRING => {
                let Some(string) = ast::String::cast(t) else {
                    return self.unsupported("a format string", call.syntax());
                };
                pieces = self.format_pieces(call, &string)?;
            }
            _ => return self.unsupported("a format string that is not a literal", call.syntax()),
        }
        if newline {
            pieces.push(FmtPiece::Lit("\n".into()));
        }
        Ok(match name {
            "format" => TKind::Format(pieces),
            _ => TKind::Print { pieces, stderr: name.starts_with('e') },
        })
    }

    fn format_pieces(&mut self, call: &ast::MacroCall, string: &ast::String) -> Result<Vec<FmtPiece>> {
        let unsupported = |b: &Self| b.unsupported("a format string outside the subset", call.syntax());
        let Ok(template) = string.value() else { return unsupported(self) };
        let Some(parsed) = parse_format(&template) else { return unsupported(self) };
        // Explicit arguments, from `format_args!`'s expansion (they keep their place in the snippet).
        let mut positional = Vec::new();
        let mut named = Vec::new();
        for arg in self.format_args(call) {
            match arg.name() {
                Some(n) => named.push((n.text().to_string(), arg.expr())),
                None => positional.push(arg.expr()),
            }
        }
        // Names captured from the scope (`{x}`, a constant's `{LIMIT}`), as rust-analyzer resolves them.
        let mut captures: Vec<(String, Local<'db>)> = Vec::new();
        let mut consts: Vec<(String, ra_ap_hir::Const)> = Vec::new();
        for (range, resolution) in self.sema.as_format_args_parts(string).unwrap_or_default() {
            let start = usize::from(range.start() - string.syntax().text_range().start());
            let end = usize::from(range.end() - string.syntax().text_range().start());
            let Some(name) = string.text().get(start..end).map(str::to_owned) else { continue };
            match resolution {
                Some(either::Either::Left(PathResolution::Local(local))) => captures.push((name, local)),
                Some(either::Either::Left(PathResolution::Def(ra_ap_hir::ModuleDef::Const(c)))) => {
                    consts.push((name, c))
                }
                _ => {}
            }
        }
        // An argument no placeholder formats is rustc's error ("argument never used").
        let used_index = |i: usize| parsed.iter().any(|(a, ..)| a == &Some(FmtArgRef::Index(i)));
        let used_name = |n: &str| parsed.iter().any(|(a, ..)| matches!(a, Some(FmtArgRef::Name(m)) if m == n));
        if !(0..positional.len()).all(used_index) || !named.iter().all(|(n, _)| used_name(n)) {
            return self.unsupported("a format argument no placeholder uses", call.syntax());
        }
        let mut pieces = Vec::new();
        for (arg, text, spec) in parsed {
            let Some(arg) = arg else {
                pieces.push(FmtPiece::Lit(text));
                continue;
            };
            let value = match &arg {
                FmtArgRef::Index(i) => match positional.get(*i) {
                    Some(Some(e)) => self.format_operand(&e.clone())?,
                    _ => return unsupported(self),
                },
                FmtArgRef::Name(n) => match named.iter().find(|(m, _)| m == n) {
                    Some((_, Some(e))) => self.format_operand(&e.clone())?,
                    Some((_, None)) => return unsupported(self),
                    None => match captures.iter().find(|(m, _)| m == n) {
                        Some((_, local)) => self.captured(*local, call)?,
                        None => match consts.iter().find(|(m, _)| m == n) {
                            Some((_, c)) => self.captured_const(*c, call)?,
                            None => return unsupported(self),
                        },
                    },
                },
            };
            pieces.push(FmtPiece::Arg { value, spec });
        }
        Ok(pieces)
    }

    /// A format argument (which `format_args!` borrows): an `Option` field of a host struct read in place, or a
    /// text operand.
    fn format_operand(&mut self, e: &ast::Expr) -> Result<TExpr> {
        // `x` of `for x in v.iter_mut()` formats the element it points to.
        if let Some((seq, index)) = self.elem_ref(e) {
            let range = self.range(e.syntax());
            let ty = seq.elem.read_ty();
            let index = Box::new(self.index_local(index, range.clone()));
            return Ok(TExpr { kind: TKind::SeqIndex { seq, index }, ty, range });
        }
        // A hole binding `r: &mut S` of a scalar: formatted as the scalar it points to (a shared one is read so
        // everywhere).
        if let Some((binding, s, true)) = self.scalar_reference(e) {
            return Ok(TExpr { kind: TKind::Deref(binding), ty: Ty::Scalar(s), range: self.range(e.syntax()) });
        }
        // A hole binding's vector, array or slice: its elements in place, as the slice `&v[..]` is.
        if let Some(value) = self.binding_elements(e) {
            return Ok(value);
        }
        // An array the snippet names, formatted as the vector holding it is (`[1, 2, 3]`).
        if let Some(seq) = self.array_local(e) {
            let kind = TKind::Local(LocalRef::Snippet(seq.binding));
            return Ok(TExpr { kind, ty: Ty::Vec(seq.elem), range: self.range(e.syntax()) });
        }
        match self.option_field(e, false)? {
            Some(value) => Ok(value),
            None => self.text_operand(e),
        }
    }

    /// The arguments after the format string, from the `format_args!` the macro expands to.
    fn format_args(&self, call: &ast::MacroCall) -> Vec<ast::FormatArgsArg> {
        let mut node = match self.sema.expand_macro_call(call) {
            Some(n) => n.value,
            None => return Vec::new(),
        };
        for _ in 0..4 {
            if let Some(fa) = node.descendants().find_map(ast::FormatArgsExpr::cast) {
                return fa.args().collect();
            }
            let Some(inner) = node.descendants().find_map(ast::MacroCall::cast) else { break };
            match self.sema.expand_macro_call(&inner) {
                Some(n) => node = n.value,
                None => break,
            }
        }
        Vec::new()
    }

    /// A format argument naming a hole binding that is a sequence (`{:?}` of `levels`), as the slice of its
    /// elements `&levels[..]` is: formatted as the vector is.
    fn binding_elements(&mut self, e: &ast::Expr) -> Option<TExpr> {
        let (binding, local) = self.hole_binding(e)?;
        let range = self.range(e.syntax());
        self.binding_elements_of(binding, local, range)
    }

    /// [`Self::binding_elements`] of a binding a format string captures (`{levels:?}`).
    fn binding_elements_of(&mut self, binding: usize, local: Local<'db>, range: Range<usize>) -> Option<TExpr> {
        let seq = self.binding_sequence(binding, local)?;
        let ty = Ty::Slice(seq.elem);
        Some(TExpr { kind: TKind::SubSlice { seq, start: None, end: None }, ty, range })
    }

    /// A variable a format string names (`{x}`): read as a path to it would be.
    fn captured(&mut self, local: Local<'db>, call: &ast::MacroCall) -> Result<TExpr> {
        // `{h}` of `let h: &mut u32 = hits;`: the binding it names (`Builder::reborrow_let`).
        if let Some(&(_, binding_local)) = self.reborrows.get(&local) {
            return self.captured(binding_local, call);
        }
        let range = self.range(call.syntax());
        // `{x}` of `for x in v.iter_mut()`: the element it points to.
        if let Some((seq, index)) = self.elem_refs.get(&local).cloned() {
            let index = Box::new(self.index_local(index, range.clone()));
            return Ok(TExpr { kind: TKind::SeqIndex { seq, index }, ty: seq.elem.read_ty(), range });
        }
        // `{a:?}` of an array the snippet names: the vector holding it (`Builder::named_array`).
        if let Some(&id) = self.local_ids.get(&local).filter(|&&id| self.locals[id].array_literal) {
            return Ok(TExpr { kind: TKind::Local(LocalRef::Snippet(id)), ty: self.locals[id].ty.clone(), range });
        }
        let name = local.name(self.db);
        let decl = usize::from(local.primary_source(self.db).syntax().text_range().start());
        let own = self.local_id(local, call.syntax())?;
        let binding = match own.is_some() {
            true => None,
            false => self.bindings.iter().position(|b| b.decl == decl && b.name == name.as_str()),
        };
        // `{r}` of a hole binding `r: &mut S` of a scalar: the scalar it points to.
        let pointee = match local.ty(self.db).as_reference() {
            Some((inner, ra_ap_hir::Mutability::Mut)) => Self::word(&inner),
            _ => None,
        };
        if let (Some(binding), Some(s)) = (binding, pointee) {
            self.note_binding(binding, s);
            return Ok(TExpr { kind: TKind::Deref(binding), ty: Ty::Scalar(s), range });
        }
        if let Some(value) = binding.and_then(|b| self.binding_elements_of(b, local, range.clone())) {
            return Ok(value);
        }
        let ty = self.ty(&local.ty(self.db), call.syntax())?;
        if let Some(id) = own {
            return Ok(TExpr { kind: TKind::Local(LocalRef::Snippet(id)), ty, range });
        }
        let Some(binding) = binding else {
            return self.unsupported("a local the subset does not know", call.syntax());
        };
        if let Some(seq) = self.text_binding(binding, local) {
            return Ok(TExpr { kind: TKind::TextOf(seq), ty: Ty::Str, range });
        }
        if let Some(b) = self.binding_through_ref(local) {
            return Ok(TExpr { kind: TKind::Deref(b), ty, range });
        }
        let kind = TKind::Local(self.local_ref(local, call.syntax())?);
        Ok(TExpr { kind, ty, range })
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `String::from`, `ToString::to_string` or `ToOwned::to_owned` named as a function (std's).
    pub(super) fn text_to_string_fn(&self, p: &ast::PathExpr) -> bool {
        let Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) =
            p.path().and_then(|p| self.sema.resolve_path(&p))
        else {
            return false;
        };
        let from_alloc = self.fn_crate(f).as_deref() == Some("alloc");
        from_alloc && matches!(f.name(self.db).as_str(), "from" | "to_string" | "to_owned")
    }

    /// What `map(String::from)` does to text, as a closure written in place: `|t| t.to_string()`.
    pub(super) fn string_from_text_closure(&mut self, at: &ra_ap_syntax::SyntaxNode) -> Closure {
        let range = self.range(at);
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

    /// `split_whitespace()`, `lines()` or `split(..)` of `str` (std's, not a host trait's method of that name).
    pub(super) fn text_pieces_call(&self, call: &ast::MethodCallExpr) -> bool {
        if !SourceCall::of(call).is_some_and(SourceCall::is_pieces) {
            return false;
        }
        self.sema.resolve_method_call(call).is_some_and(|f| self.fn_crate(f).as_deref() == Some("core"))
    }

    /// `text[a..b]`, `text[a..]`, `text[..b]` or `text[..]` of text (`&str`, `String`) with `usize` bounds.
    pub(super) fn text_slice(&mut self, index: &ast::IndexExpr) -> Result<Option<TExpr>> {
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
        // `Index::index` panics inside std; rustc places the panic at the `[`.
        let range = self.range(index.syntax());
        let start = index.l_brack_token().map_or(range.start, |b| self.token_at(&b));
        Ok(Some(TExpr { kind, ty: Ty::Str, range: start..range.end }))
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// A macro call the IR knows (`format!`, the printing macros, `vec!`, `panic!`, `matches!`, ..).
    pub(super) fn macro_expr(
        &mut self,
        expr: &ast::Expr,
        mac: &ast::MacroExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let Some(call) = mac.macro_call() else { return self.unsupported("a macro", expr.syntax()) };
            let name = call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()).map(|n| n.text().to_string());
            let krate = self.macro_crate(&call);
            let from_std = matches!(krate.as_deref(), Some("core" | "std"));
            let from_alloc = krate.as_deref() == Some("alloc");
            let tokens = call
                .token_tree()
                .map(|t| t.syntax().descendants_with_tokens().filter_map(|t| t.into_token()).collect::<Vec<_>>())
                .unwrap_or_default();
            if let Some(expanded) = self.snippet_macro(&call, &range)? {
                return Ok(expanded);
            }
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
            // std's fixed text of each, then the snippet's own after `: ` when it gives a plain one.
            let bare =
                tokens.iter().all(|t| t.kind().is_trivia() || matches!(t.text(), "(" | ")" | "[" | "]" | "{" | "}"));
            let fixed = match name.as_deref() {
                Some("unreachable") => Some("internal error: entered unreachable code"),
                Some("todo") => Some("not yet implemented"),
                Some("unimplemented") => Some("not implemented"),
                _ => None,
            };
            let message = match (name.as_deref(), fixed) {
                (Some("panic"), _) => Self::plain_message(tokens.into_iter()),
                (_, Some(fixed)) if bare => Some(fixed.to_owned()),
                (_, Some(fixed)) => Self::plain_message(tokens.into_iter()).map(|m| format!("{fixed}: {m}")),
                _ => None,
            };
            match (from_std, message) {
                (true, Some(message)) => TKind::Panic { receiver: None, message },
                // `panic!("{} left", n)`: its message is what `format!` makes of its arguments.
                (true, None) if name.as_deref() == Some("panic") && !bare => {
                    let message = self.format_macro(&call, "format")?;
                    let message = TExpr { kind: message, ty: Ty::String, range: range.clone() };
                    TKind::PanicFormatted(Box::new(message))
                }
                _ => return self.unsupported("a macro outside the subset", expr.syntax()),
            }
        };
        Ok(TExpr { kind, ty, range })
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `write!(s, ..).unwrap()` or `writeln!(s, ..).expect("..")` of a `String` `s` (a `mut` local or a hole
    /// binding): the text `format!` makes of the rest pushed onto it ([`TKind::StringPush`]). Writing to a
    /// `String` cannot fail when every argument is a number or text, so the `unwrap` never panics; an argument a
    /// host type formats (whose `Display` may fail) is not taken.
    pub(super) fn write_to_string(&mut self, m: &ast::MethodCallExpr) -> Result<Option<TKind>> {
        let Some(method) = m.name_ref().map(|n| n.text().to_string()) else { return Ok(None) };
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        match (method.as_str(), args.as_slice()) {
            ("unwrap", []) | ("expect", [ast::Expr::Literal(_)]) => {}
            _ => return Ok(None),
        }
        let Some(ast::Expr::MacroExpr(mac)) = m.receiver() else { return Ok(None) };
        let Some(call) = mac.macro_call() else { return Ok(None) };
        let name = call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()).map(|n| n.text().to_string());
        let newline = match name.as_deref() {
            Some("write") => false,
            Some("writeln") => true,
            _ => return Ok(None),
        };
        if !matches!(self.macro_crate(&call).as_deref(), Some("core" | "std")) {
            return Ok(None);
        }
        // The destination, as the expansion reads it (`$dst.write_fmt(format_args!(..))`).
        let Some(expansion) = self.sema.expand_macro_call(&call) else { return Ok(None) };
        let dst = expansion
            .value
            .descendants()
            .filter_map(ast::MethodCallExpr::cast)
            .find_map(|w| w.name_ref().is_some_and(|n| n.text() == "write_fmt").then(|| w.receiver()).flatten());
        let Some(seq) = dst.and_then(|d| self.text_seq(&d)) else { return Ok(None) };
        // The format string: the first token after the destination's comma.
        let Some(tt) = call.token_tree() else { return Ok(None) };
        let mut tokens =
            tt.syntax().children_with_tokens().filter_map(|t| t.into_token()).filter(|t| !t.kind().is_trivia());
        if !tokens.any(|t| t.kind() == SyntaxKind::COMMA) {
            return Ok(None);
        }
        let Some(string) = tokens.next().and_then(ast::String::cast) else { return Ok(None) };
        let mut pieces = self.format_pieces(&call, &string)?;
        let plain = |p: &FmtPiece| match p {
            FmtPiece::Lit(_) => true,
            FmtPiece::Arg { value, .. } => value.ty.scalar().is_some() || matches!(value.ty, Ty::Str | Ty::String),
        };
        if !pieces.iter().all(plain) {
            return Ok(None);
        }
        if newline {
            pieces.push(FmtPiece::Lit("\n".into()));
        }
        let range = self.range(mac.syntax());
        let value = TExpr { kind: TKind::Format(pieces), ty: Ty::String, range: range.clone() };
        Ok(Some(TKind::StringPush { seq, value: Box::new(value), at: range.start }))
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// The name of the crate that defines the macro `call` invokes (`core`, `std`, `alloc`, ..).
    fn macro_crate(&self, call: &ast::MacroCall) -> Option<String> {
        let mac = self.sema.resolve_macro_call(call)?;
        Some(mac.module(self.db).krate(self.db).display_name(self.db)?.to_string())
    }
}
