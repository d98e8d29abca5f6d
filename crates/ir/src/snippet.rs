//! Blocks, statements, locals, functions, and the snippet itself.

use crate::{ElemField, FieldOf, Scalar, SeqPlace, TExpr, TPat, Ty, Unsupported};

#[derive(Debug, Clone, PartialEq)]
pub enum TStmt {
    /// `let x = init;`, or `let x;` (assigned later, as rustc's initialization check requires).
    Let {
        local: usize,
        init: Option<TExpr>,
    },
    /// `let PAT = init;` with an irrefutable pattern, or `let PAT = init else { .. };` (`otherwise` diverges).
    LetPat {
        pat: TPat,
        init: TExpr,
        otherwise: Option<TBlock>,
    },
    Expr(TExpr),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TBlock {
    pub stmts: Vec<TStmt>,
    pub tail: Option<Box<TExpr>>,
    /// The block's type (of its tail, `()` without one, `!` when it cannot finish).
    pub ty: Option<Ty>,
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TLocal {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
    /// Its type is written out (`let x: i64`, a parameter) or a suffixed literal's, so never an integer or float
    /// type rustc still has to infer from an unsuffixed literal (on which a method call is E0689).
    pub fixed_type: bool,
    /// The vector holding an array of `Copy` elements: the hidden one of an array literal read where it is
    /// written (`for x in [a, b]`, `[a, b].iter().max()`), or a local the snippet names (`let counts = [0; 26];`).
    /// Whatever reads it reads copies, and any local that could keep a reference into it sets
    /// [`TypedSnippet::references`], so the value of the expression around it borrows nothing of it. Nothing reads
    /// it by value: the array itself is a type the typed view does not hold, and loops and iterators that take it
    /// by value read it in place (a local that never changes) or a copy of it.
    pub array_literal: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TFn {
    pub name: String,
    pub params: Vec<usize>,
    pub ret: Ty,
    pub body: TBlock,
}

/// A hole binding of the host's that the snippet owns while it runs, as rustc's program does when the snippet moves
/// it: a `String` or a `Vec` of scalars, text or `&str`, held by the host's `let mut` that the host reads after the
/// hole. It is the snippet local `local` from the start: its buffers are taken over from the binding's place,
/// which holds an empty value meanwhile (what the host finds there if the snippet faults, as on the rustc path),
/// and written back when the snippet ends. That the snippet leaves it initialised is rustc's move check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifted {
    /// Index into the hole's bindings.
    pub binding: usize,
    /// Index into [`TypedSnippet::locals`].
    pub local: usize,
}

/// A hole binding holding a vector or an array of numbers whose element type the snippet settles (the host's
/// `let temps = vec![18.5, 21.0];` holds `f64`s, which the snippet reads as `f32`s): the snippet local `local`
/// holds a converted copy from the start, each element made with `as` from the host's `from` (the literal's value,
/// which fits), as the rustc path makes one (`Retype`). The local is not `mut`, so nothing goes back to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Converted {
    /// Index into the hole's bindings.
    pub binding: usize,
    /// Index into [`TypedSnippet::locals`]: a vector of the snippet's element type (an array's marked
    /// [`TLocal::array_literal`]).
    pub local: usize,
    /// The element type the host's binding holds.
    pub from: Scalar,
    /// For an array, its length (the binding's place holds the elements themselves); `None` for a `Vec`.
    pub array_len: Option<u64>,
}

/// The formatting traits a host struct or enum implements ([`TypedSnippet::formats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Formats {
    pub debug: bool,
    pub display: bool,
}

/// An accepted snippet in the typed subset.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedSnippet {
    pub body: TBlock,
    /// The hole's type.
    pub ty: Ty,
    pub locals: Vec<TLocal>,
    pub fns: Vec<TFn>,
    /// The bindings the snippet uses, with their types.
    pub bindings: Vec<(usize, Scalar)>,
    /// Bindings among `bindings` whose number type the snippet settled (the host's `let workers = 4;` holds an
    /// `i32`, which the snippet reads as `usize`), with the type the host's slot holds: read from the slot and
    /// converted with `as` (the value is the literal's, which fits), written back converted the same way.
    pub retyped: Vec<(usize, Scalar)>,
    /// Bindings among `bindings` the snippet moves (`let old = names;`, `names.into_iter()`): each is a snippet
    /// local for the whole run ([`Lifted`]).
    pub lifted: Vec<Lifted>,
    /// Bindings among `bindings` holding numbers the snippet reads at another type: each is a snippet local holding
    /// a converted copy ([`Converted`]).
    pub converted: Vec<Converted>,
    /// Where the snippet first borrows a place (`&x`) or keeps a reference in a `let` or parameter, which the
    /// typed view reads as the value it points to: whether each borrow is allowed is rustc's check. (Closure
    /// parameters and items of iterators over the hole's sequences are references too; the lowering judges those
    /// itself.)
    pub references: Option<crate::Unsupported>,
    /// Host structs' fields the snippet reads or writes.
    pub fields: Vec<FieldOf>,
    /// Sequences the snippet reads through fields of host structs ([`crate::SeqKind::Field`]).
    pub seq_places: Vec<SeqPlace>,
    /// Scalar fields written through loop variables that reach host structs through `&mut` ([`crate::Place::ElemField`]).
    pub elem_fields: Vec<ElemField>,
    /// Host structs the snippet reaches in place ([`Elem::Struct`], [`Ty::StructRef`]): the exported statics
    /// holding their sizes ([`crate::struct_size_symbol`]).
    pub structs: Vec<String>,
    /// What each of `structs` implements of the formatting traits, as rust-analyzer's trait solver finds on the
    /// host's own impls and derives: `{}` or `{:?}` of one that does needs no rustc to say the trait is there.
    pub formats: Vec<Formats>,
    /// Tuple types of sequences the snippet reads or builds ([`crate::Elem::Tuple`]): the host exports each one's
    /// layout ([`crate::tuple_layout_symbol`]).
    pub tuples: Vec<crate::TupleElem>,
    /// The snippet builds vectors or strings of its own ([`Ty::Vec`], [`Ty::String`]) or reads the host's text
    /// (it needs the JIT's heap; the lowering checks moves and borrows of owned values).
    pub owns_buffers: bool,
    /// A construct rustc may reject where rust-analyzer does not report it, and the typed view cannot tell (an
    /// unusual pair of text types compared, a trait bound of a pattern argument): rustc must decide.
    pub rustc_decides: Option<Unsupported>,
}
