//! Building a snippet's IR ([`lacuna_ir`]) from rust-analyzer's semantics, a construct family per file.

use std::collections::HashMap;
use std::ops::Range;

use ra_ap_hir::{AsAssocItem, Function, Local, Semantics};
use ra_ap_ide::RootDatabase;
use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, SyntaxNode};

use lacuna_ir::Binding;
use lacuna_ir::{
    BinOp, Closure, ElemField, FieldOf, FmtPiece, Lit, Scalar, Seq, SeqPlace, Stage, TExpr, TFn, TKind, TLocal, TStmt,
    Ty, Unsupported,
};

mod any;
mod arith;
mod atomic;
mod calls;
mod compare;
mod control;
mod converted_bindings;
mod expr;
mod impls;
mod iter;
mod map;
mod map_binding;
mod move_closures;
mod names;
mod option;
mod owned_bindings;
mod patterns;
mod result;
mod seq;
mod structs;
mod text;
mod trait_objects;
mod types;
mod unreported;

pub(crate) struct Builder<'a, 'db> {
    pub sema: &'a Semantics<'db, RootDatabase>,
    pub db: &'db RootDatabase,
    pub snippet_start: usize,
    /// The file and range of the snippet's block: what is declared there is the snippet's own.
    snippet_block: (ra_ap_ide::FileId, ra_ap_syntax::TextRange),
    /// The host's items the instrumented host exports by name ([`crate::NamedItems`]).
    named: &'a crate::NamedItems,
    pub bindings: &'a [Binding],
    pub locals: Vec<TLocal>,
    local_ids: HashMap<Local<'db>, usize>,
    pub fns: Vec<Option<TFn>>,
    fn_ids: HashMap<Function, usize>,
    pub used_bindings: Vec<(usize, Scalar)>,
    /// See `TypedSnippet::retyped`.
    pub retyped: Vec<(usize, Scalar)>,
    /// See `TypedSnippet::lifted`.
    pub lifted: Vec<lacuna_ir::Lifted>,
    /// See `TypedSnippet::converted`.
    pub converted: Vec<lacuna_ir::Converted>,
    /// The first borrow rustc's borrow check must judge (see `TypedSnippet::references`).
    pub references: std::cell::OnceCell<Unsupported>,
    /// Temporaries an expression being built needs before it (an array literal an iterator reads, in a hidden
    /// local): [`Self::expr`] puts the expression in a block after them.
    hoisted: Vec<TStmt>,
    /// Host structs' fields used (see `TypedSnippet::fields`).
    pub fields: Vec<FieldOf>,
    /// Sequences read through host structs' fields (see `TypedSnippet::seq_places`).
    pub seq_places: Vec<SeqPlace>,
    /// Fields written through `&mut` loop variables (see `TypedSnippet::elem_fields`).
    pub elem_fields: Vec<ElemField>,
    /// Snippet locals that are `&mut` loop variables over a hole binding's sequence of host structs: the binding
    /// and whether it holds the sequence's owner by value.
    mut_elems: HashMap<usize, (usize, bool)>,
    /// `&mut` loop variables over a sequence of scalars (`for x in v.iter_mut()`): the sequence and the hidden
    /// index local the loop counts with; `*x` is the element at that index.
    elem_refs: HashMap<Local<'db>, (Seq, usize)>,
    /// Host structs reached in place, by their size's symbol (see `TypedSnippet::structs`).
    pub structs: std::cell::RefCell<Vec<String>>,
    /// What each of `structs` implements of the formatting traits (see `TypedSnippet::formats`).
    pub formats: std::cell::RefCell<Vec<lacuna_ir::Formats>>,
    /// Tuple types of sequences (see `TypedSnippet::tuples`).
    pub tuples: std::cell::RefCell<Vec<lacuna_ir::TupleElem>>,
    /// A value of type `Vec<S>` appears (see `TypedSnippet::owns_buffers`).
    pub owns_buffers: std::cell::Cell<bool>,
    /// The first construct rustc must judge (see `TypedSnippet::rustc_decides`).
    pub rustc_decides: std::cell::RefCell<Option<Unsupported>>,
    /// Constants whose bodies are being built (a constant is computed where it is used).
    expanding_consts: Vec<ra_ap_hir::Const>,
    /// Closures kept in locals (`let f = |x| ..;`), inlined where they are called.
    closure_locals: HashMap<Local<'db>, Closure>,
    /// `let e = m.entry(k).or_insert(d);`: `e`'s map local and the hidden local holding its key (`*e` is the
    /// map's value at that key; see `Builder::map_slot_let`).
    slot_locals: HashMap<Local<'db>, (usize, usize)>,
    /// `let h: &mut u32 = hits;` (or `&mut *hits`) of a hole binding `hits` that is a `&mut` of a number: `h` is
    /// the binding itself under another name, by the binding's index and local (see `Builder::reborrow_let`).
    reborrows: HashMap<Local<'db>, (usize, Local<'db>)>,
    /// The calls of the snippet's own macros being expanded, outermost first: what a macro's own text makes is
    /// placed at the outermost call, as rustc places it.
    snippet_macro_calls: Vec<Range<usize>>,
    /// The closures being built whose bodies use `?`, innermost last: each body is a labelled block
    /// ([`Builder::closure_label`]) that a `?` in it breaks out of with the closure's `None` or `Err`.
    try_closures: Vec<ast::ClosureExpr>,
    /// Copies `move` closures took that are not yet placed where their closures are made
    /// ([`move_closures::MoveCopy`]).
    move_copies: Vec<move_closures::MoveCopy<'db>>,
}

type Result<T> = std::result::Result<T, Unsupported>;

/// Where an item is declared ([`Builder::placement`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Placement {
    /// In the host's file, inside the snippet's block: the snippet's own.
    Snippet,
    /// In the host's file, outside the snippet's block.
    Host,
    /// Made by a macro.
    Macro,
    /// In another file (std's, a dependency's).
    OtherFile,
}

impl<'a, 'db> Builder<'a, 'db> {
    pub fn new(
        sema: &'a Semantics<'db, RootDatabase>,
        db: &'db RootDatabase,
        snippet_block: (ra_ap_ide::FileId, ra_ap_syntax::TextRange),
        named: &'a crate::NamedItems,
        bindings: &'a [Binding],
    ) -> Self {
        Builder {
            sema,
            db,
            snippet_start: usize::from(snippet_block.1.start()) + 2,
            snippet_block,
            named,
            bindings,
            locals: Vec::new(),
            local_ids: HashMap::new(),
            fns: Vec::new(),
            fn_ids: HashMap::new(),
            used_bindings: Vec::new(),
            retyped: Vec::new(),
            lifted: Vec::new(),
            converted: Vec::new(),
            references: std::cell::OnceCell::new(),
            hoisted: Vec::new(),
            fields: Vec::new(),
            seq_places: Vec::new(),
            elem_fields: Vec::new(),
            mut_elems: HashMap::new(),
            elem_refs: HashMap::new(),
            structs: std::cell::RefCell::new(Vec::new()),
            formats: std::cell::RefCell::new(Vec::new()),
            tuples: std::cell::RefCell::new(Vec::new()),
            owns_buffers: std::cell::Cell::new(false),
            rustc_decides: std::cell::RefCell::new(None),
            snippet_macro_calls: Vec::new(),
            expanding_consts: Vec::new(),
            closure_locals: HashMap::new(),
            try_closures: Vec::new(),
            slot_locals: HashMap::new(),
            reborrows: HashMap::new(),
            move_copies: Vec::new(),
        }
    }

    /// Notes a construct whose verdict only rustc can give (the first one noted is kept).
    pub(crate) fn rustc_decides(&self, construct: &str, node: &SyntaxNode) {
        let mut slot = self.rustc_decides.borrow_mut();
        if slot.is_none() {
            *slot = Some(Unsupported { construct: construct.to_owned(), range: self.range(node) });
        }
    }

    fn range(&self, node: &SyntaxNode) -> Range<usize> {
        // Nodes inside a macro's expansion (`vec![..]`'s elements, a `macro_rules!` argument) are placed where the
        // snippet wrote them; one the macro's own text makes, at the macro's call (rustc places a panic there).
        let r = match self.sema.original_range_opt(node) {
            Some(r) => r.range,
            None => match self.snippet_macro_calls.first() {
                Some(call) => match self.written_at_call(node) {
                    Some(r) => r,
                    None => return call.clone(),
                },
                None if node.ancestors().last().is_some_and(|r| r.kind() != ra_ap_syntax::SyntaxKind::SOURCE_FILE) => {
                    self.sema.original_range(node).range
                }
                None => node.text_range(),
            },
        };
        usize::from(r.start()).saturating_sub(self.snippet_start)
            ..usize::from(r.end()).saturating_sub(self.snippet_start)
    }

    /// Where the snippet wrote `node`, a node of a snippet macro's expansion, if it is made of an argument's
    /// tokens alone (`counts[2] * 1_000` given as `$x`); `None` if the macro's own text is part of it (`$x * $x`).
    fn written_at_call(&self, node: &SyntaxNode) -> Option<ra_ap_syntax::TextRange> {
        let at = self.sema.original_range(node);
        let root = self.sema.parse_guess_edition(at.file_id.file_id(self.db));
        let words = |tokens: &mut dyn Iterator<Item = ra_ap_syntax::SyntaxToken>| {
            tokens.filter(|t| !t.kind().is_trivia()).map(|t| t.text().to_owned()).collect::<Vec<_>>()
        };
        // The tokens of the smallest element around the range, not the whole file's.
        let around = match root.syntax().covering_element(at.range) {
            ra_ap_syntax::NodeOrToken::Node(n) => n,
            ra_ap_syntax::NodeOrToken::Token(t) => t.parent()?,
        };
        let written = words(
            &mut around
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| at.range.contains_range(t.text_range())),
        );
        let expanded = words(&mut node.descendants_with_tokens().filter_map(|e| e.into_token()));
        // An `$x:expr` argument comes in parentheses rust-analyzer adds (keeping its precedence), which the
        // snippet did not write.
        let unwrapped = match expanded.as_slice() {
            [open, inner @ .., close] if open == "(" && close == ")" => inner,
            all => all,
        };
        (written == expanded || written == unwrapped).then_some(at.range)
    }

    /// Where a token is in the snippet: as many bytes into its parent's place as it is into the parent (which
    /// maps a token of a format argument, in `format_args!`'s expansion, back to the snippet's text).
    fn token_at(&self, token: &ra_ap_syntax::SyntaxToken) -> usize {
        match token.parent() {
            Some(parent) => {
                let into = usize::from(token.text_range().start() - parent.text_range().start());
                self.range(&parent).start + into
            }
            None => usize::from(token.text_range().start()).saturating_sub(self.snippet_start),
        }
    }

    /// The syntax that declares `local`; `None` for a local rust-analyzer makes up, which has none
    /// (`primary_source` panics on it).
    fn local_source(&self, local: Local<'db>) -> Option<ra_ap_hir::LocalSource<'db>> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| local.primary_source(self.db))).ok()
    }

    /// The pattern that declares `local` when it is a plain name: no `ref`, `mut` or `@ pattern`.
    fn plain_ident_of(&self, local: Local<'db>) -> Option<ast::IdentPat> {
        let pat = self.local_source(local)?.as_ident_pat()?.clone();
        (pat.ref_token().is_none() && pat.mut_token().is_none() && pat.pat().is_none()).then_some(pat)
    }

    fn unsupported<T>(&self, what: &str, node: &SyntaxNode) -> Result<T> {
        Err(Unsupported { construct: what.to_owned(), range: self.range(node) })
    }

    /// The snippet borrows here in a way the typed view reads as a value (`what`): rustc's borrow check judges it.
    /// The first such borrow is the one reported.
    fn borrows(&self, what: &str, node: &SyntaxNode) {
        let _ = self.references.set(Unsupported { construct: what.to_owned(), range: self.range(node) });
    }

    /// [`Self::borrows`] for a type that holds references, where no node of the snippet is at hand.
    fn borrows_in_type(&self, what: &str) {
        let _ = self.references.set(Unsupported { construct: what.to_owned(), range: 0..0 });
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

    /// The name of the `core` trait `f` belongs to (declared in it, or implementing it).
    fn core_trait_of(&self, f: Function) -> Option<String> {
        let t = match f.as_assoc_item(self.db)?.container(self.db) {
            ra_ap_hir::AssocItemContainer::Trait(t) => t,
            ra_ap_hir::AssocItemContainer::Impl(imp) => imp.trait_(self.db)?,
        };
        let krate = t.module(self.db).krate(self.db).display_name(self.db)?.to_string();
        (krate == "core").then(|| t.name(self.db).as_str().to_owned())
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
