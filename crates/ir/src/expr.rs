//! Expressions: every one with its type and its range in the snippet.

use std::ops::Range;

use crate::{
    Arm, AtomicMethod, Closure, Elem, FmtPiece, IterChain, MapMethod, MapView, Method, OptionClosureMethod, Place,
    Receiver, Scalar, Seq, SeqClosureMethod, SeqMethod, Sink, SortKey, TBlock, TPat, TextMethod, Ty,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

/// A local variable: one of the hole's bindings, or declared in the snippet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LocalRef {
    /// Index into the hole's [`crate::HoleScope::bindings`].
    Binding(usize),
    /// Index into [`TypedSnippet::locals`].
    Snippet(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    /// The magnitude; a negative literal is a negation of a literal.
    Int(u128),
    Float(f64),
    Bool(bool),
    Char(char),
    Unit,
    /// A string literal (of type `&str`).
    Str(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct TExpr {
    pub kind: TKind,
    pub ty: Ty,
    pub range: Range<usize>,
}

impl TExpr {
    /// The expression's scalar type (`!` for an aggregate: see [`Ty::s`]).
    pub fn s(&self) -> Scalar {
        self.ty.s()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TKind {
    Lit(Lit),
    Local(LocalRef),
    Unary(UnOp, Box<TExpr>),
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    /// `expr as ty` (the target is the expression's `ty`).
    Cast(Box<TExpr>),
    /// `*r` of a hole binding `r: &S` or `r: &mut S` (index into the hole's bindings).
    Deref(usize),
    /// `&x` or `&mut x` of a scalar place, an argument of a host function that takes `&S` or `&mut S`: the
    /// place's address (the expression's type is `usize`). A hole binding's place is the host's slot
    /// ([`crate::Place::Local`]) or where the binding points ([`crate::Place::Deref`]: `r`, `&mut *r`); a snippet
    /// local's is a stack slot it is written to before the call and read back from after it.
    AddrOf {
        place: crate::Place,
        mutable: bool,
    },
    /// `x.field` of a host struct's scalar field (index into [`TypedSnippet::fields`]).
    HostField(usize),
    /// `r.field` of a host struct reached through `base` (a [`Ty::StructRef`]): a scalar field's value, or a
    /// `String` field's text read in place ([`Ty::Str`]).
    RefField {
        base: Box<TExpr>,
        /// The exported static holding the field's offset ([`crate::field_offset_symbol`]).
        symbol: String,
        /// What the field holds, as its declared type says: a `String` ([`Elem::String`]) and a `&str`
        /// ([`Elem::Str`]) are both read as [`Ty::Str`] text, from different layouts; a host struct by value
        /// ([`Elem::Struct`], read where it is) and a reference to one ([`Elem::StructRef`], the address it holds)
        /// are both a [`Ty::StructRef`].
        stored: Elem,
    },
    /// `r.field` of a host struct reached through `base` (a [`Ty::StructRef`] or [`Ty::Struct`] place) whose field
    /// is an `Option<T>`, read in place where the snippet only borrows it (`&r.field`, `r.field.is_some()`,
    /// `r.field.as_deref()`): a [`Ty::Option`] of `T` read in place (a scalar, a `String`'s text, a host struct's
    /// address). Which variant it holds and where its payload is come from the host's shim, whatever niche rustc
    /// chose.
    OptionField {
        base: Box<TExpr>,
        /// The exported shim `(struct address) -> payload address or null` ([`crate::option_field_symbol`]).
        symbol: String,
    },
    /// `&o` or `o.as_ref()` of a snippet local `o` holding an `Option` that owns its payload (a `String`, a host
    /// struct): the `Option` of that payload read in place ([`Ty::Str`] text, a [`Ty::StructRef`] address), as
    /// `match &o { Some(x) => .. }` binds `x`. `o` keeps its payload.
    OptionRef(Box<TExpr>),
    /// `x.clone()` of a host struct (`x` a [`Ty::Struct`] place or a [`Ty::StructRef`]), through the host's
    /// `Clone` shim: a new [`Ty::Struct`].
    StructClone(Box<TExpr>),
    /// `E::V`, a unit variant of a host enum (index `id` into [`TypedSnippet::structs`], `index` the variant's in
    /// declaration order), as a value: a new [`Ty::Struct`], written by the host ([`crate::enum_unit_symbol`]).
    /// For what only the host's own code can do with it (a hand-written `PartialEq`: [`TKind::StructEq`]).
    ///
    /// [`TypedSnippet::structs`]: crate::TypedSnippet::structs
    UnitVariant {
        id: usize,
        index: u32,
    },
    /// `S { field: value, .. }` of a host struct, every field given or the rest from `..base`, each a scalar or a `String`: a
    /// new [`Ty::Struct`]. The values are evaluated in the order written; each field is named by the static
    /// holding its offset ([`crate::field_offset_symbol`]).
    StructLit {
        id: usize,
        fields: Vec<(String, TExpr)>,
        /// `..base` (evaluated after the fields): a new struct the literal takes over, its named fields replaced.
        base: Option<Box<TExpr>>,
    },
    /// `HashMap::new()` / `BTreeMap::new()`: an empty map (the expression's type says which).
    MapNew,
    /// `m.insert(k, v)`, `m.get(k)` (an `Option` of the value), `m.contains_key(k)`, `m.remove(k)`, `m.len()`,
    /// `m.is_empty()`, and `m[k]` ([`MapMethod::Index`], which panics at `at` without the key) on the snippet's map
    /// local `map`.
    MapMethod {
        map: usize,
        name: MapMethod,
        args: Vec<TExpr>,
        at: usize,
    },
    /// `m.iter()`, `m.into_iter()`, `m.keys()`, `m.values()` of the snippet's map local `map`: a new vector (the
    /// expression's [`Ty::Vec`]) of its entries (tuples of key and value), keys or values, in key order (a
    /// `BTreeMap`'s order; any order is a `HashMap`'s). Text keys are read where the map keeps them, or copied
    /// into `String`s the vector owns when its elements own them (`into_iter` of `String` keys).
    MapEntries {
        map: usize,
        view: MapView,
    },
    /// `*m.entry(key).or_insert(default) op= value` (`default` `None`: `or_default()`; `op` `None`: `=`): the
    /// value evaluated first (primitive operands), then the entry's value changed in place.
    MapUpdate {
        map: usize,
        key: Box<TExpr>,
        default: Option<Box<TExpr>>,
        op: Option<BinOp>,
        value: Box<TExpr>,
    },
    /// `m.entry(key).or_default().push(value)` (or `.or_insert_with(Vec::new)`) on the snippet's map of vectors of
    /// strings ([`MapValue::Strings`](crate::MapValue::Strings)): the key evaluated, then the `String` value, then
    /// an empty vector inserted at the key when it is absent and the value pushed onto the key's vector.
    MapPush {
        map: usize,
        key: Box<TExpr>,
        value: Box<TExpr>,
    },
    /// `a == b` (or `!=`, `negated`) of two host structs of one type, through the host's `PartialEq` shim.
    StructEq {
        left: Box<TExpr>,
        right: Box<TExpr>,
        negated: bool,
    },
    /// `a < b` (`op` one of [`BinOp::Lt`], `Le`, `Gt`, `Ge`) of two host values of one type, through the host's
    /// `PartialOrd` shim, which applies the operator itself (an impl may write `lt` apart from `partial_cmp`).
    StructOrd {
        left: Box<TExpr>,
        right: Box<TExpr>,
        op: BinOp,
    },
    /// `place = value`, or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Box<TExpr>,
    },
    /// `std::mem::take(&mut place)` (no `value`) or `std::mem::replace(&mut place, value)` of a `String` or a
    /// vector: the value `place` held, which it holds no more: an empty one takes its place, or `value`. `place`
    /// is a snippet local ([`Place::Local`]) or a hole binding's whole value ([`Place::WholeBinding`]).
    MemReplace {
        place: Place,
        value: Option<Box<TExpr>>,
    },
    Block(TBlock),
    If {
        cond: Box<TExpr>,
        then: TBlock,
        otherwise: Option<Box<TExpr>>,
    },
    While {
        label: Option<String>,
        cond: Box<TExpr>,
        body: TBlock,
    },
    Loop {
        label: Option<String>,
        body: TBlock,
    },
    /// `for var in start..end` (or `..=`) over integers.
    For {
        label: Option<String>,
        var: usize,
        start: Box<TExpr>,
        end: Box<TExpr>,
        inclusive: bool,
        body: TBlock,
    },
    Break {
        label: Option<String>,
        value: Option<Box<TExpr>>,
    },
    Continue {
        label: Option<String>,
    },
    /// A call of a function declared in the snippet (index into [`TypedSnippet::fns`]).
    Call {
        function: usize,
        args: Vec<TExpr>,
    },
    /// A call of a function the host declares at its top level, or of a method of a top-level inherent impl with a
    /// `&self`/`&mut self` receiver, over scalars (the instrumented host exports a shim for each such function;
    /// see the checker's `scalar_fns`).
    HostCall {
        /// The function's name (for messages).
        name: String,
        /// The shim's symbol (`ScalarFn::symbol` in the checker).
        symbol: String,
        receiver: Option<Receiver>,
        args: Vec<TExpr>,
    },
    /// `S.method(value, ordering)` of a host static `S` of one of std's atomic types holding a `scalar`
    /// (`AtomicUsize`, `AtomicBool`, ..): done in place, at the static's address (the instrumented host exports a
    /// function giving it, [`crate::atomic_static_symbol`]), as sequentially consistent, which every ordering the
    /// method accepts allows. `value` is the operand (none for `load`); the result is the old value (`()` for
    /// `store`). The ordering is not kept: rustc judges it.
    Atomic {
        symbol: String,
        method: AtomicMethod,
        value: Option<Box<TExpr>>,
        scalar: Scalar,
    },
    /// `unwrap()` or `expect("message")` of a host function's `Result` that holds `Err(payload)` (or
    /// `unwrap_err()`, `expect_err("message")` of one that holds `Ok(payload)`): the host's `symbol` shim
    /// ([`crate::unwrap_failed_symbol`], [`crate::unwrap_err_failed_symbol`]) panics with std's message and the
    /// payload's `Debug` (the payload stays the run's, dropped with it); placed at `at`, as std's
    /// `#[track_caller]` panic is.
    UnwrapFailed {
        symbol: String,
        message: String,
        payload: Box<TExpr>,
        at: usize,
    },
    /// `for &x in &v`, `for &x in v.iter()` or `for x in v.iter().copied()` over a sequence binding (`var` is
    /// each element in turn).
    ForSeq {
        label: Option<String>,
        var: usize,
        seq: Seq,
        body: TBlock,
    },
    /// `v.len()` of a sequence binding.
    SeqLen(Seq),
    /// `v[index]` read from a sequence binding (bounds-checked).
    SeqIndex {
        seq: Seq,
        index: Box<TExpr>,
    },
    /// `v.iter().sum()` of a sequence binding of integers (overflow-checked, as in a debug build).
    SeqSum(Seq),
    /// A method of a sequence binding: `is_empty()`, `contains(&x)`, `first()`, `last()`, `get(i)` read it;
    /// `sort()`, `sort_unstable()`, `reverse()`, `swap(i, j)`, `fill(x)`, `dedup()`, `push(x)`, `pop()` change it in
    /// place; `join(separator)` of strings makes a new `String`. (Faults of `swap` and of allocations are placed
    /// at `at`, the method's name.)
    SeqMethod {
        seq: Seq,
        name: SeqMethod,
        args: Vec<TExpr>,
        at: usize,
    },
    /// `v.retain(|x| keep)`, `v.sort_by_key(|x| key)` and `v.sort_unstable_by_key(|x| key)` on a sequence, the
    /// closure written in place and called with each element (read as `iter()` reads it). For the sorts the
    /// closure computes the scalar sort key; `descending` is always false for them (see [`TKind::SortBy`]).
    SeqWithClosure {
        seq: Seq,
        name: SeqClosureMethod,
        closure: Closure,
        descending: bool,
    },
    /// `v.sort_by(|a, b| ..)` (`unstable`: `sort_unstable_by`) whose comparison is a chain of comparisons of one
    /// expression of `a` with the same expression of `b` (or the other way round): `a.x.cmp(&b.x)`,
    /// `b.1.partial_cmp(&a.1).unwrap()`, `a.f.total_cmp(&b.f)`, joined by `then`/`then_with`, perhaps
    /// `reverse`d. Each key is computed once per element, then the elements are ordered by the keys in turn.
    SortBy {
        seq: Seq,
        unstable: bool,
        keys: Vec<SortKey>,
    },
    /// `v[index] = value` or `v[index] op= value` into a writable sequence binding (bounds-checked); with `part`,
    /// `v[index].part op= value` of a scalar part of a sequence of tuples (`counts[i].1 += 1`, `e.1 += 1` of
    /// `for e in v.iter_mut()`).
    SeqStore {
        seq: Seq,
        /// Where an index fault is placed (a `Vec`'s `[`; a slice's place); an overflow is at the expression.
        index_at: usize,
        index: Box<TExpr>,
        part: Option<usize>,
        op: Option<BinOp>,
        value: Box<TExpr>,
    },
    /// `return` inside a function declared in the snippet.
    Return(Option<Box<TExpr>>),
    /// A method of a scalar: `x.abs()`, `x.pow(2)`, `a.min(b)`, `x.checked_add(y)`, `c.to_digit(10)`; or of an
    /// `Option` of one: `o.unwrap()`, `o.unwrap_or(v)`, `o.is_some()`.
    Method {
        name: Method,
        receiver: Box<TExpr>,
        args: Vec<TExpr>,
    },
    /// `Some(value)`.
    Some(Box<TExpr>),
    /// `None` (of the expression's type).
    None,
    /// `Ok(value)` (`ok`) or `Err(value)`: a [`crate::Ty::Result`] the snippet makes, its payload moved in.
    ResultOf {
        ok: bool,
        value: Box<TExpr>,
    },
    /// `(a, b, ..)`.
    Tuple(Vec<TExpr>),
    /// `t.0` of a tuple.
    Field(Box<TExpr>, usize),
    /// `match`, and what `if let` and `while let` mean: the first arm whose pattern matches and whose guard holds.
    Match {
        scrutinee: Box<TExpr>,
        arms: Vec<Arm>,
    },
    /// `o.map(|x| body)`, `o.and_then(..)`, `o.filter(..)`, `o.unwrap_or_else(|| ..)`, `o.is_some_and(..)` with the
    /// closure written in place (it runs at most once, where the call is): `param` is bound to the payload.
    OptionClosure {
        method: OptionClosureMethod,
        receiver: Box<TExpr>,
        param: Option<TPat>,
        body: Box<TExpr>,
    },
    /// `o.expect("message")`, `panic!("message")`, `unreachable!()`: a panic with a fixed message.
    Panic {
        receiver: Option<Box<TExpr>>,
        message: String,
    },
    /// `panic!("{} left", n)`: a panic whose message the snippet formats (the `String` [`TKind::Format`] makes).
    PanicFormatted(Box<TExpr>),
    /// An iterator chain consumed where it is built: `v.iter().filter(|&x| x > 2).map(|x| x * x).sum()`.
    Consume {
        chain: IterChain,
        sink: Sink,
    },
    /// The text of a string binding of the hole (`String`, `&String`, `&str`) or of a `String` the snippet owns,
    /// read in place as a `&str` (a [`Seq`] of bytes).
    TextOf(Seq),
    /// A sequence's elements as the (pointer, length) pair a host function's `&[T]` / `&mut [T]` parameter takes
    /// (of type `(usize, usize)`); `mutable`: lent as `&mut`, so the sequence is written.
    SliceOf {
        seq: Seq,
        mutable: bool,
    },
    /// `&v[start..end]`, `&v[start..]`, `&v[..end]` of a sequence: a slice of its elements ([`Ty::Slice`]), the
    /// bounds checked as std's `index` checks them (a fault at the `[`, where rustc places the call's).
    SubSlice {
        seq: Seq,
        start: Option<Box<TExpr>>,
        end: Option<Box<TExpr>>,
    },
    /// A method of text (`&str` or `String` receivers, read only): `len`, `is_empty`, `to_string` (and
    /// `to_owned`, `String::from`, `into`, `clone`: a new `String`), `==` and `!=` (with the other text in `args`).
    TextMethod {
        name: TextMethod,
        receiver: Box<TExpr>,
        args: Vec<TExpr>,
    },
    /// `s.push_str(text)`, `s.push(c)`, `s += text` on a writable `String` (faults of the allocation at `at`).
    StringPush {
        seq: Seq,
        value: Box<TExpr>,
        at: usize,
    },
    /// `left + right`: a `String` (moved) with a `&str` appended.
    Concat {
        left: Box<TExpr>,
        right: Box<TExpr>,
        at: usize,
    },
    /// `format!(..)`: a new `String`.
    Format(Vec<FmtPiece>),
    /// `text.parse::<S>()` of a scalar, consumed where it is made (`unwrap`, `expect`, `unwrap_or`, `ok`, ..).
    /// An `unwrap` or `expect` of the error panics at `at`, as std's does.
    Parse {
        text: Box<TExpr>,
        target: Scalar,
        then: ParseThen,
        at: usize,
    },
    /// `T::try_from(value)` or `value.try_into()` between integer types, consumed where it is made like a
    /// [`TKind::Parse`] (the error is `TryFromIntError(())`; an `unwrap` or `expect` of it panics at `at`).
    TryConvert {
        value: Box<TExpr>,
        target: Scalar,
        then: ParseThen,
        at: usize,
    },
    /// `print!`, `println!`, `eprint!`, `eprintln!`: the text goes to the host's stdout or stderr.
    Print {
        pieces: Vec<FmtPiece>,
        stderr: bool,
    },
    /// `v.clone()` / `v.to_vec()` of a sequence: a new vector the snippet owns, of the same elements.
    SeqClone(Seq),
    /// `vec![a, b, ..]` or `Vec::new()` (no elements): a `Vec` the snippet owns, allocated to fit its elements
    /// (faults of the allocation are placed at the expression).
    VecLit(Vec<TExpr>),
    /// `vec![value; count]` (faults of the allocation are placed at the expression).
    VecRepeat {
        value: Box<TExpr>,
        count: Box<TExpr>,
    },
    /// `for PAT in CHAIN { body }` over an iterator chain.
    ForIter {
        label: Option<String>,
        pat: TPat,
        chain: IterChain,
        body: TBlock,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParseThen {
    Unwrap,
    Expect(String),
    UnwrapOr(Box<TExpr>),
    UnwrapOrDefault,
    /// `.ok()`: an `Option`.
    Ok,
    IsOk,
    IsErr,
}
