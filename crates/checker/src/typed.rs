//! The typed view of an accepted snippet that the JIT's lowering reads: plain data, every expression with its
//! scalar type, every name resolved. rust-analyzer types never leave the checker; this is the narrow view.
//!
//! It covers the scalar subset (integers, floats, `bool`, `char`, `()`; locals, the hole's scalar bindings,
//! arithmetic, comparisons, casts, `let`, assignment, `if`, `while`, `loop`, `for` over integer ranges, labelled
//! `break`/`continue` with values, functions declared in the snippet, calls of the host's top-level functions
//! over scalars, a few integer and float methods, and reading the hole's sequences of scalars — `Vec<S>`, `&[S]`
//! — by `len()`, indexing and `iter().sum()`; vectors of scalars the snippet builds). Anything
//! else is [`Unsupported`], and the snippet runs on the rustc path.

use std::ops::Range;

/// A scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    F32,
    F64,
    Bool,
    Char,
    Unit,
    /// `!`: the type of `break`, `continue`, `return`, `panic!`-free divergence.
    Never,
}

impl Scalar {
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "i128" => Scalar::I128,
            "isize" => Scalar::Isize,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "u128" => Scalar::U128,
            "usize" => Scalar::Usize,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "bool" => Scalar::Bool,
            "char" => Scalar::Char,
            "()" => Scalar::Unit,
            "!" => Scalar::Never,
            _ => return None,
        })
    }

    /// The type as Rust spells it.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::I128 => "i128",
            Scalar::Isize => "isize",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::U128 => "u128",
            Scalar::Usize => "usize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::Unit => "()",
            Scalar::Never => "!",
        }
    }

    pub fn is_int(self) -> bool {
        self.int_bits().is_some()
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 | Scalar::I128 | Scalar::Isize)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// Width of an integer type (pointer-sized types are 64-bit on the targets Lacuna runs on).
    pub fn int_bits(self) -> Option<u32> {
        Some(match self {
            Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 => 16,
            Scalar::I32 | Scalar::U32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::Isize | Scalar::Usize => 64,
            Scalar::I128 | Scalar::U128 => 128,
            _ => return None,
        })
    }
}

/// The type of a value in the typed view: a scalar, or a small aggregate of scalars the JIT keeps in registers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    Scalar(Scalar),
    /// `Option<T>`: a tag, then the payload's parts. The payload is a scalar, or a value read in place
    /// ([`Ty::Str`], [`Ty::StructRef`]: what `find`, `max_by_key` and the like give over text and host structs).
    Option(Box<Ty>),
    /// `(A, B, ..)`, two or more elements (`()` is [`Scalar::Unit`]): scalars, or — as the items `enumerate` pairs
    /// with an index — text and host structs read in place ([`Ty::Str`], [`Ty::StructRef`]); never an owned value.
    Tuple(Vec<Ty>),
    /// `Vec<E>` the snippet owns: its buffer pointer, capacity and length, the buffer allocated through the host
    /// library's allocator so the host can own what the snippet returns (and, for `Vec<String>`, each element's).
    Vec(Elem),
    /// `&str` (or `&String`, read as the text it holds): its pointer and length in bytes.
    Str,
    /// `String` the snippet owns: as a `Vec<u8>`, allocated through the host library's allocator.
    String,
    /// A shared reference to a host struct (index into [`TypedSnippet::structs`]): its address. Only an element of
    /// one of the hole's sequences, reached in place (`iter()` items, `for` variables, `v[i]`), whose fields are
    /// read through it.
    StructRef(usize),
    /// A host struct by value (index into [`TypedSnippet::structs`]): its address. A hole binding's is its place
    /// in the host's frame (only read in place: fields, formatting, `==`, `clone`); a value the snippet makes
    /// (`clone`, a literal, a host function's result) is in a box the run owns, dropped through the host's shim
    /// when its local's scope ends or when the run ends.
    Struct(usize),
    /// `HashMap<K, V>` (or `BTreeMap`, `ordered`) the snippet owns: its address (a map the run keeps, with keys
    /// as text — [`Ty::String`] or [`Ty::Str`] — or a scalar, and scalar values), handed to the host as its own
    /// map type when it is the hole's value. A `value` of `()` is a set (`HashSet<K>` / `BTreeSet<K>`), as std
    /// builds its sets: a map to `()` ([`Ty::is_set`]).
    Map {
        key: Box<Ty>,
        value: Scalar,
        ordered: bool,
    },
}

impl From<Scalar> for Ty {
    fn from(s: Scalar) -> Ty {
        Ty::Scalar(s)
    }
}

impl Ty {
    /// The scalar, for a scalar type.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// A scalar, or a value read in place (`&str`, `&S` of a host struct): what an `Option` or a tuple may hold
    /// and an iterator may pair, since copying it owns nothing.
    pub fn in_place(&self) -> bool {
        matches!(self, Ty::Scalar(_) | Ty::Str | Ty::StructRef(_))
    }

    /// `Option<S>` of a scalar.
    pub fn option(s: Scalar) -> Ty {
        Ty::Option(Box::new(Ty::Scalar(s)))
    }

    /// The payload of an `Option` of a scalar.
    pub fn option_scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Option(payload) => payload.scalar(),
            _ => None,
        }
    }

    /// A scalar type, or `!` for the others: for operations only the lowering's checks let reach scalars.
    pub fn s(&self) -> Scalar {
        self.scalar().unwrap_or(Scalar::Never)
    }

    /// The scalars the value is made of, in order (an `Option`'s tag is a `bool`).
    pub fn parts(&self) -> Vec<Scalar> {
        match self {
            Ty::Scalar(s) => vec![*s],
            Ty::Option(payload) => std::iter::once(Scalar::Bool).chain(payload.parts()).collect(),
            Ty::Tuple(elems) => elems.iter().flat_map(Ty::parts).collect(),
            Ty::Vec(_) | Ty::String => vec![Scalar::Usize; 3],
            Ty::Str => vec![Scalar::Usize; 2],
            Ty::StructRef(_) | Ty::Struct(_) | Ty::Map { .. } => vec![Scalar::Usize],
        }
    }

    /// A `HashSet` or `BTreeSet`: a [`Ty::Map`] to `()`.
    pub fn is_set(&self) -> bool {
        matches!(self, Ty::Map { value: Scalar::Unit, .. })
    }

    /// The type as Rust spells it (as rustc prints the hole's type).
    pub fn name(&self) -> String {
        match self {
            Ty::Scalar(s) => s.name().to_owned(),
            Ty::Option(payload) => format!("Option<{}>", payload.name()),
            Ty::Tuple(elems) => format!("({})", elems.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")),
            Ty::Vec(e) => format!("Vec<{}>", e.name()),
            Ty::Str => "&str".to_owned(),
            Ty::StructRef(_) => "&{host struct}".to_owned(),
            Ty::Struct(_) => "{host struct}".to_owned(),
            Ty::Map { key, ordered, .. } if self.is_set() => {
                format!("{}<{}>", if *ordered { "BTreeSet" } else { "HashSet" }, key.name())
            }
            Ty::Map { key, value, ordered } => {
                format!("{}<{}, {}>", if *ordered { "BTreeMap" } else { "HashMap" }, key.name(), value.name())
            }
            Ty::String => "String".to_owned(),
        }
    }
}

/// The element type of a sequence: a scalar, or a `String` (24 bytes in the host's `String` layout, its own
/// buffer owned by the element).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    Scalar(Scalar),
    String,
    /// `&str`: a pointer and a length, read in place. The snippet makes a vector of them only by `collect`, and
    /// then rustc's borrow check judges the snippet (`TypedSnippet::references`).
    Str,
    /// A host struct (index into [`TypedSnippet::structs`]), reached in place through its address.
    Struct(usize),
}

impl From<Scalar> for Elem {
    fn from(s: Scalar) -> Elem {
        Elem::Scalar(s)
    }
}

impl Elem {
    /// The scalar, for a sequence of scalars.
    pub fn scalar(self) -> Option<Scalar> {
        match self {
            Elem::Scalar(s) => Some(s),
            Elem::String | Elem::Str | Elem::Struct(_) => None,
        }
    }

    /// An element as read in place (through `iter()`, indexing): a scalar's value, a `String` as its text.
    pub fn read_ty(self) -> Ty {
        match self {
            Elem::Scalar(s) => Ty::Scalar(s),
            Elem::String | Elem::Str => Ty::Str,
            Elem::Struct(id) => Ty::StructRef(id),
        }
    }

    /// An element as an owned value (what `push` takes and `collect` gathers; a host struct is never one).
    pub fn owned_ty(self) -> Option<Ty> {
        match self {
            Elem::Scalar(s) => Some(Ty::Scalar(s)),
            Elem::String => Some(Ty::String),
            Elem::Str | Elem::Struct(_) => None,
        }
    }

    /// The element type as Rust spells it.
    pub fn name(self) -> &'static str {
        match self {
            Elem::Scalar(s) => s.name(),
            Elem::String => "String",
            Elem::Str => "&str",
            Elem::Struct(_) => "{host struct}",
        }
    }

    /// Whether each element owns a buffer (dropping or handing over the sequence covers the elements' buffers).
    pub fn owns_buffer(self) -> bool {
        self == Elem::String
    }

    /// Whether an element read in place is a reference into the sequence (its text, its address).
    pub fn read_borrows(self) -> bool {
        !matches!(self, Elem::Scalar(_))
    }
}

/// Why a snippet is outside the typed subset (it then runs on the rustc path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub construct: String,
    /// Range in the snippet.
    pub range: Range<usize>,
}

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
    /// `x.field` of a host struct's scalar field (index into [`TypedSnippet::fields`]).
    HostField(usize),
    /// `r.field` of a host struct reached through `base` (a [`Ty::StructRef`]): a scalar field's value, or a
    /// `String` field's text read in place ([`Ty::Str`]).
    RefField {
        base: Box<TExpr>,
        /// The exported static holding the field's offset ([`crate::field_offset_symbol`]).
        symbol: String,
    },
    /// `x.clone()` of a host struct (`x` a [`Ty::Struct`] place or a [`Ty::StructRef`]), through the host's
    /// `Clone` shim: a new [`Ty::Struct`].
    StructClone(Box<TExpr>),
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
    /// `m.is_empty()`, and `m[k]` (`name` "index", which panics at `at` without the key) on the snippet's map
    /// local `map`.
    MapMethod {
        map: usize,
        name: String,
        args: Vec<TExpr>,
        at: usize,
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
    /// `a == b` (or `!=`, `negated`) of two host structs of one type, through the host's `PartialEq` shim.
    StructEq {
        left: Box<TExpr>,
        right: Box<TExpr>,
        negated: bool,
    },
    /// `place = value`, or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Box<TExpr>,
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
    /// see `lacuna_checker::scalar_fns`).
    HostCall {
        /// The function's name (for messages).
        name: String,
        /// The shim's symbol ([`crate::ScalarFn::symbol`]).
        symbol: String,
        receiver: Option<SelfArg>,
        args: Vec<TExpr>,
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
        name: String,
        args: Vec<TExpr>,
        at: usize,
    },
    /// `v.retain(|x| keep)`, `v.sort_by_key(|x| key)`, `v.sort_by(|a, b| ka.cmp(&kb))` and their `_unstable`
    /// forms on a sequence, the closure written in place and called with each element (read as `iter()` reads
    /// it). For the sorts the closure computes the scalar sort key (`sort_by`'s comparison of one expression of
    /// `a` with the same expression of `b`), `descending` when the comparison is written the other way round.
    SeqWithClosure {
        seq: Seq,
        name: String,
        closure: Closure,
        descending: bool,
    },
    /// `v[index] = value` or `v[index] op= value` into a writable sequence binding (bounds-checked).
    SeqStore {
        seq: Seq,
        /// Where an index fault is placed (a `Vec`'s `[`; a slice's place); an overflow is at the expression.
        index_at: usize,
        index: Box<TExpr>,
        op: Option<BinOp>,
        value: Box<TExpr>,
    },
    /// `return` inside a function declared in the snippet.
    Return(Option<Box<TExpr>>),
    /// A method of a scalar: `x.abs()`, `x.pow(2)`, `a.min(b)`, `x.checked_add(y)`, `c.to_digit(10)`; or of an
    /// `Option` of one: `o.unwrap()`, `o.unwrap_or(v)`, `o.is_some()`.
    Method {
        name: String,
        receiver: Box<TExpr>,
        args: Vec<TExpr>,
    },
    /// `Some(value)`.
    Some(Box<TExpr>),
    /// `None` (of the expression's type).
    None,
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
        method: String,
        receiver: Box<TExpr>,
        param: Option<TPat>,
        body: Box<TExpr>,
    },
    /// `o.expect("message")`, `panic!("message")`, `unreachable!()`: a panic with a fixed message.
    Panic {
        receiver: Option<Box<TExpr>>,
        message: String,
    },
    /// An iterator chain consumed where it is built: `v.iter().filter(|&x| x > 2).map(|x| x * x).sum()`.
    Consume {
        chain: IterChain,
        sink: Sink,
    },
    /// The text of a string binding of the hole (`String`, `&String`, `&str`) or of a `String` the snippet owns,
    /// read in place as a `&str` (a [`Seq`] of bytes).
    TextOf(Seq),
    /// A method of text (`&str` or `String` receivers, read only): `len`, `is_empty`, `to_string` (and
    /// `to_owned`, `String::from`, `into`, `clone`: a new `String`), `==` and `!=` (with the other text in `args`).
    TextMethod {
        name: String,
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

/// An iterator over a range or one of the hole's sequences, through adaptors, fused into one loop by the JIT.
#[derive(Debug, Clone, PartialEq)]
pub struct IterChain {
    pub source: IterSource,
    /// The adaptors, in order, each with the type of the items it yields.
    pub stages: Vec<(Stage, Ty)>,
    /// Where the chain starts in the snippet (closures' panics are placed inside them).
    pub range: Range<usize>,
}

impl IterChain {
    /// The type of the items the chain yields.
    pub fn item(&self) -> Ty {
        match self.stages.last() {
            Some((_, ty)) => ty.clone(),
            None => self.source.item(),
        }
    }
}

impl IterSource {
    /// The type of the items the source yields.
    pub fn item(&self) -> Ty {
        match self {
            IterSource::Range { start, .. } => start.ty.clone(),
            IterSource::Seq(seq) => seq.elem.read_ty(),
            IterSource::Chars(_) => Ty::Scalar(Scalar::Char),
            IterSource::Pieces { .. } => Ty::Str,
            IterSource::Chain { first, .. } => first.item(),
        }
    }

    /// Calls `f` for the expressions the source evaluates (a range's bounds, the text it reads), in order.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        match self {
            IterSource::Range { start, end, .. } => {
                f(Child::Expr(start));
                if let Some(end) = end {
                    f(Child::Expr(end));
                }
            }
            IterSource::Seq(_) => {}
            IterSource::Chars(text) => f(Child::Expr(text)),
            IterSource::Pieces { text, how } => {
                f(Child::Expr(text));
                if let Pieces::Split(pattern) = how {
                    f(Child::Expr(pattern));
                }
            }
            IterSource::Chain { first, second, .. } => {
                first.each_child(f);
                second.each_child(f);
            }
        }
    }
}

/// Where an iterator's items come from.
#[derive(Debug, Clone, PartialEq)]
pub enum IterSource {
    /// `a..b`, `a..=b`, `a..` over integers.
    Range { start: Box<TExpr>, end: Option<Box<TExpr>>, inclusive: bool },
    /// The elements of a sequence binding (`v.iter()`: shared references, read as the elements).
    Seq(Seq),
    /// `text.chars()`: the `char`s of text (a `&str` or `String` value).
    Chars(Box<TExpr>),
    /// `text.split_whitespace()`, `text.lines()`, `text.split(pattern)`: pieces of text (a `&str` or `String`
    /// value), each a `&str` into it.
    Pieces { text: Box<TExpr>, how: Pieces },
    /// `first.chain(second)`: two ranges or sequences' `iter()` yielding the same type, each possibly reversed
    /// (`v.iter().rev().chain(w.iter())`); nothing reverses the chain itself.
    Chain { first: Box<IterSource>, first_rev: bool, second: Box<IterSource>, second_rev: bool },
}

/// How [`IterSource::Pieces`] cuts text.
#[derive(Debug, Clone, PartialEq)]
pub enum Pieces {
    Whitespace,
    Lines,
    /// At each match of a `char` or `&str` pattern.
    Split(Box<TExpr>),
}

/// What is done with a `parse` or `try_from` result ([`TKind::Parse`], [`TKind::TryConvert`]).
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

/// A piece of a format string: literal text, or an argument formatted by a spec.
#[derive(Debug, Clone, PartialEq)]
pub enum FmtPiece {
    Lit(String),
    Arg { value: TExpr, spec: FmtSpec },
}

/// `{:<fill><align><sign><#><0><width>.<precision><trait>}` with constant width and precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FmtSpec {
    pub fill: Option<char>,
    /// `<`, `^` or `>`.
    pub align: Option<char>,
    pub plus: bool,
    pub alternate: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub trait_: FmtTrait,
}

/// Which formatting trait a spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FmtTrait {
    #[default]
    Display,
    Debug,
    LowerHex,
    UpperHex,
    Binary,
    Octal,
    LowerExp,
    UpperExp,
}

/// Parses a format string into literal text and arguments (`None` for what the typed view does not cover:
/// widths or precisions taken from arguments, `{:x?}`-style debug hex). Each argument says which one it
/// formats.
pub fn parse_format(template: &str) -> Option<Vec<(Option<FmtArgRef>, String, FmtSpec)>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = template.chars().peekable();
    let mut next_positional = 0;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '}' => return None,
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        ch => inner.push(ch),
                    }
                }
                if !text.is_empty() {
                    out.push((None, std::mem::take(&mut text), FmtSpec::default()));
                }
                let (name, spec) = inner.split_once(':').unwrap_or((inner.as_str(), ""));
                let name = name.trim();
                let arg = if name.is_empty() {
                    next_positional += 1;
                    FmtArgRef::Index(next_positional - 1)
                } else if let Ok(i) = name.parse::<usize>() {
                    FmtArgRef::Index(i)
                } else if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    FmtArgRef::Name(name.to_owned())
                } else {
                    return None;
                };
                out.push((Some(arg), String::new(), parse_spec(spec)?));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push((None, text, FmtSpec::default()));
    }
    Some(out)
}

/// Which argument a `{..}` formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FmtArgRef {
    Index(usize),
    Name(String),
}

fn parse_spec(spec: &str) -> Option<FmtSpec> {
    let mut s = FmtSpec::default();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let is_align = |c: Option<&char>| matches!(c, Some('<' | '^' | '>'));
    if chars.len() >= 2 && is_align(chars.get(1)) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if is_align(chars.first()) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if chars.get(i) == Some(&'+') {
        s.plus = true;
        i += 1;
    } else if chars.get(i) == Some(&'-') {
        return None;
    }
    if chars.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        (start < *i).then(|| chars[start..*i].iter().collect::<String>().parse().ok()).flatten()
    };
    s.width = number(&mut i);
    if chars.get(i) == Some(&'$') {
        return None;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        s.precision = Some(number(&mut i)?);
        if chars.get(i) == Some(&'$') {
            return None;
        }
    }
    s.trait_ = match chars[i..].iter().collect::<String>().as_str() {
        "" => FmtTrait::Display,
        "?" => FmtTrait::Debug,
        "x" => FmtTrait::LowerHex,
        "X" => FmtTrait::UpperHex,
        "b" => FmtTrait::Binary,
        "o" => FmtTrait::Octal,
        "e" => FmtTrait::LowerExp,
        "E" => FmtTrait::UpperExp,
        _ => return None,
    };
    Some(s)
}

/// A closure written in place: its parameter patterns and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Closure {
    pub params: Vec<TPat>,
    pub body: Box<TExpr>,
}

/// An iterator adaptor.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    Map(Closure),
    Filter(Closure),
    /// The closure returns an `Option`; its payloads are the items.
    FilterMap(Closure),
    TakeWhile(Closure),
    SkipWhile(Closure),
    /// `(index, item)`.
    Enumerate,
    /// Only right after the source or element-wise stages (`map`, `filter`, `filter_map`): the source runs
    /// backwards.
    Rev,
    Take(Box<TExpr>),
    Skip(Box<TExpr>),
    /// `zip(other)`: `(item, other's next item)`, ending with the shorter; `other` is a range or a sequence's
    /// `iter()`, read forwards, and only pulled after an item came from before it (as `Zip::next` does).
    Zip(Box<IterSource>),
}

/// What consumes an iterator chain.
#[derive(Debug, Clone, PartialEq)]
pub enum Sink {
    /// Integers only (overflow-checked; placed at `at`, the method's name).
    Sum {
        at: usize,
    },
    Product {
        at: usize,
    },
    Count,
    Max,
    Min,
    Last,
    /// `next()` of a chain built where it is consumed: its first item, pulling nothing after it.
    Next,
    Any(Closure),
    All(Closure),
    Position(Closure),
    Find(Closure),
    /// `max_by_key` / `min_by_key` (the last maximum, the first minimum, as `Iterator`'s do).
    MaxByKey(Closure),
    MinByKey(Closure),
    /// `fold(init, |acc, x| body)`.
    Fold {
        init: Box<TExpr>,
        closure: Closure,
    },
    /// `collect()` into a `Vec` of the items (faults of the allocation are placed at `at`, the method's name).
    Collect {
        at: usize,
    },
}

/// One arm of a [`TKind::Match`].
#[derive(Debug, Clone, PartialEq)]
pub struct Arm {
    pub pat: TPat,
    pub guard: Option<TExpr>,
    pub body: TExpr,
}

/// A pattern over the typed view's values.
#[derive(Debug, Clone, PartialEq)]
pub enum TPat {
    /// `_`.
    Wild,
    /// A name (a snippet local), matching anything.
    Bind(usize),
    /// A literal (`negative` for `-1`).
    Lit {
        lit: Lit,
        negative: bool,
    },
    /// `lo..=hi` / `lo..hi` over integers or chars (`None` for an open end; each end a literal and whether negated).
    Range {
        lo: Option<(Lit, bool)>,
        hi: Option<(Lit, bool)>,
        inclusive: bool,
    },
    Or(Vec<TPat>),
    Some(Box<TPat>),
    None,
    Tuple(Vec<TPat>),
    /// A variant of a host enum (index into [`TypedSnippet::structs`]: the enum's), by its index in declaration
    /// order, with patterns for some of its scalar fields (each by its number across all the enum's variants, as
    /// the host's `__lacuna_field_*` shim takes it; a field is read only once the variant is known to match).
    Variant {
        adt: usize,
        index: u32,
        fields: Vec<(u32, Scalar, TPat)>,
    },
}

/// The receiver of a host method: a hole binding that holds the value or a reference to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfArg {
    /// Index into the hole's bindings.
    pub binding: usize,
    /// The binding is `&T` or `&mut T` (the value is where it points); otherwise it is the `T` itself.
    pub through_ref: bool,
    /// The method takes `&mut self`.
    pub mutable: bool,
}

/// What an assignment writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Local(LocalRef),
    /// `*r` of a hole binding `r: &mut S` (index into the hole's bindings).
    Deref(usize),
    /// `x.field = ..` of a host struct's scalar field (index into [`TypedSnippet::fields`]).
    HostField(usize),
}

/// A scalar field of a host struct the snippet reads or writes in place, in a hole binding that holds the struct
/// or a reference to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldOf {
    /// Index into the hole's bindings.
    pub binding: usize,
    /// The binding is `&T` or `&mut T` (`mutable`: `&mut T`); otherwise it is the struct itself.
    pub through_ref: bool,
    pub mutable_ref: bool,
    pub ty: Scalar,
    /// The exported static holding the field's offset ([`crate::field_offset_symbol`]).
    pub symbol: String,
}

/// How a hole binding holds a sequence of scalars: where its elements and its length are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqKind {
    /// `Vec<S>`: the binding is the vector (its buffer pointer and length at the offsets the host's std uses).
    Vec,
    /// `&Vec<S>` or `&mut Vec<S>`: the binding points to a vector.
    RefVec,
    /// `&[S]` or `&mut [S]`: the binding is a (pointer, length) pair.
    Slice,
    /// A `Vec<S>` the snippet owns ([`Ty::Vec`]): `binding` is then the snippet local's index.
    Local,
}

/// A sequence the snippet reads: one of the hole's bindings, or a vector the snippet owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seq {
    /// Index into the hole's bindings (into [`TypedSnippet::locals`] for [`SeqKind::Local`]).
    pub binding: usize,
    pub kind: SeqKind,
    pub elem: Elem,
    /// Its elements may be written: a `mut` binding of a `Vec`, or a `&mut` reference.
    pub writable: bool,
}

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
    /// The hidden vector of an array literal of scalars read where it is written (`for x in [a, b]`,
    /// `[a, b].iter().max()`): whatever reads it reads copies, and any local that could keep a reference into it
    /// sets [`TypedSnippet::references`], so the value of the expression around it borrows nothing of it.
    pub array_literal: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TFn {
    pub name: String,
    pub params: Vec<usize>,
    pub ret: Ty,
    pub body: TBlock,
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
    /// The snippet borrows a place (`&x`) or keeps a reference in a `let` or parameter, which the typed view reads
    /// as the value it points to: whether each borrow is allowed is rustc's check. (Closure parameters and items of
    /// iterators over the hole's sequences are references too; the lowering judges those itself.)
    pub references: bool,
    /// Host structs' fields the snippet reads or writes.
    pub fields: Vec<FieldOf>,
    /// Host structs the snippet reaches in place ([`Elem::Struct`], [`Ty::StructRef`]): the exported statics
    /// holding their sizes ([`crate::struct_size_symbol`]).
    pub structs: Vec<String>,
    /// The snippet builds vectors or strings of its own ([`Ty::Vec`], [`Ty::String`]) or reads the host's text
    /// (it needs the JIT's heap; the lowering checks moves and borrows of owned values).
    pub owns_buffers: bool,
    /// A construct rustc may reject where rust-analyzer does not report it, and the typed view cannot tell (an
    /// unusual pair of text types compared, a trait bound of a pattern argument): rustc must decide.
    pub rustc_decides: Option<Unsupported>,
}

/// A direct part of an expression.
pub enum Child<'a> {
    Expr(&'a TExpr),
    Block(&'a TBlock),
}

impl IterChain {
    /// Calls `f` for the source's bounds and each adaptor's argument or closure body, in order.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        self.source.each_child(f);
        for (stage, _) in &self.stages {
            match stage {
                Stage::Map(c) | Stage::Filter(c) | Stage::FilterMap(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => {
                    f(Child::Expr(&c.body))
                }
                Stage::Take(n) | Stage::Skip(n) => f(Child::Expr(n)),
                Stage::Zip(other) => other.each_child(f),
                Stage::Enumerate | Stage::Rev => {}
            }
        }
    }
}

/// Methods of `char` the JIT runs through `lacuna_char_op`, by their operation number (their index here).
pub const CHAR_METHODS: &[&str] = &[
    "is_alphabetic",
    "is_numeric",
    "is_alphanumeric",
    "is_whitespace",
    "is_uppercase",
    "is_lowercase",
    "is_ascii",
    "is_ascii_digit",
    "is_ascii_alphabetic",
    "is_ascii_alphanumeric",
    "is_ascii_uppercase",
    "is_ascii_lowercase",
    "is_ascii_punctuation",
    "is_ascii_whitespace",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
];

/// Sequence methods that change the sequence.
pub const SEQ_MUTATORS: &[&str] = &["sort", "sort_unstable", "reverse", "swap", "fill", "dedup", "push", "pop"];

impl TBlock {
    /// Calls `f` for each direct part: the statements' expressions and `let .. else` blocks, then the tail.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        for stmt in &self.stmts {
            match stmt {
                TStmt::Let { init, .. } => {
                    if let Some(init) = init {
                        f(Child::Expr(init));
                    }
                }
                TStmt::LetPat { init, otherwise, .. } => {
                    f(Child::Expr(init));
                    if let Some(b) = otherwise {
                        f(Child::Block(b));
                    }
                }
                TStmt::Expr(e) => f(Child::Expr(e)),
            }
        }
        if let Some(t) = &self.tail {
            f(Child::Expr(t));
        }
    }
}

impl TExpr {
    /// Calls `f` for each direct sub-expression and sub-block.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        match &self.kind {
            TKind::Lit(_)
            | TKind::Local(_)
            | TKind::Deref(_)
            | TKind::HostField(_)
            | TKind::Continue { .. }
            | TKind::SeqClone(_) => {}
            TKind::Unary(_, x) | TKind::Cast(x) | TKind::RefField { base: x, .. } | TKind::StructClone(x) => {
                f(Child::Expr(x))
            }
            TKind::Binary(_, l, r) | TKind::StructEq { left: l, right: r, .. } => {
                f(Child::Expr(l));
                f(Child::Expr(r));
            }
            TKind::Assign { value, .. } => f(Child::Expr(value)),
            TKind::Block(b) => f(Child::Block(b)),
            TKind::If { cond, then, otherwise } => {
                f(Child::Expr(cond));
                f(Child::Block(then));
                if let Some(o) = otherwise {
                    f(Child::Expr(o));
                }
            }
            TKind::While { cond, body, .. } => {
                f(Child::Expr(cond));
                f(Child::Block(body));
            }
            TKind::Loop { body, .. } => f(Child::Block(body)),
            TKind::For { start, end, body, .. } => {
                f(Child::Expr(start));
                f(Child::Expr(end));
                f(Child::Block(body));
            }
            TKind::ForSeq { body, .. } => f(Child::Block(body)),
            TKind::Break { value, .. } | TKind::Return(value) => {
                if let Some(v) = value {
                    f(Child::Expr(v));
                }
            }
            TKind::Call { args, .. } | TKind::HostCall { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::StructLit { fields, base, .. } => {
                fields.iter().for_each(|(_, v)| f(Child::Expr(v)));
                if let Some(b) = base {
                    f(Child::Expr(b));
                }
            }
            TKind::MapNew => {}
            TKind::MapMethod { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::MapUpdate { key, default, value, .. } => {
                f(Child::Expr(value));
                f(Child::Expr(key));
                if let Some(d) = default {
                    f(Child::Expr(d));
                }
            }
            TKind::SeqLen(_) | TKind::SeqSum(_) => {}
            TKind::SeqMethod { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::SeqWithClosure { closure, .. } => f(Child::Expr(&closure.body)),
            TKind::SeqIndex { index, .. } => f(Child::Expr(index)),
            TKind::SeqStore { index, value, .. } => {
                f(Child::Expr(index));
                f(Child::Expr(value));
            }
            TKind::Method { receiver, args, .. } => {
                f(Child::Expr(receiver));
                args.iter().for_each(|a| f(Child::Expr(a)));
            }
            TKind::Some(x) | TKind::Field(x, _) => f(Child::Expr(x)),
            TKind::None => {}
            TKind::Tuple(xs) | TKind::VecLit(xs) => xs.iter().for_each(|x| f(Child::Expr(x))),
            TKind::TextOf(_) => {}
            TKind::VecRepeat { value, count } => {
                f(Child::Expr(value));
                f(Child::Expr(count));
            }
            TKind::TextMethod { receiver, args, .. } => {
                f(Child::Expr(receiver));
                args.iter().for_each(|a| f(Child::Expr(a)));
            }
            TKind::StringPush { value, .. } => f(Child::Expr(value)),
            TKind::TryConvert { value: text, then, .. } | TKind::Parse { text, then, .. } => {
                f(Child::Expr(text));
                if let ParseThen::UnwrapOr(v) = then {
                    f(Child::Expr(v));
                }
            }
            TKind::Concat { left, right, .. } => {
                f(Child::Expr(left));
                f(Child::Expr(right));
            }
            TKind::Format(pieces) | TKind::Print { pieces, .. } => {
                for p in pieces {
                    if let FmtPiece::Arg { value, .. } = p {
                        f(Child::Expr(value));
                    }
                }
            }
            TKind::Match { scrutinee, arms } => {
                f(Child::Expr(scrutinee));
                for arm in arms {
                    if let Some(g) = &arm.guard {
                        f(Child::Expr(g));
                    }
                    f(Child::Expr(&arm.body));
                }
            }
            TKind::OptionClosure { receiver, body, .. } => {
                f(Child::Expr(receiver));
                f(Child::Expr(body));
            }
            TKind::Panic { receiver, .. } => {
                if let Some(r) = receiver {
                    f(Child::Expr(r));
                }
            }
            TKind::Consume { chain, sink } => {
                chain.each_child(f);
                match sink {
                    Sink::Any(c)
                    | Sink::All(c)
                    | Sink::Position(c)
                    | Sink::Find(c)
                    | Sink::MaxByKey(c)
                    | Sink::MinByKey(c) => f(Child::Expr(&c.body)),
                    Sink::Fold { init, closure } => {
                        f(Child::Expr(init));
                        f(Child::Expr(&closure.body));
                    }
                    Sink::Sum { .. }
                    | Sink::Product { .. }
                    | Sink::Count
                    | Sink::Max
                    | Sink::Min
                    | Sink::Last
                    | Sink::Next
                    | Sink::Collect { .. } => {}
                }
            }
            TKind::ForIter { chain, body, .. } => {
                chain.each_child(f);
                f(Child::Block(body));
            }
        }
    }
}
