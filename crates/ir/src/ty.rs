//! Types of the typed view: scalars, what a value is (`Ty`), and how a sequence holds its elements (`Elem`).

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
    /// `Option<T>`: a tag, then the payload's parts (zeros for `None`). The payload is a scalar, a value read in
    /// place ([`Ty::Str`], [`Ty::StructRef`]: what `find`, `max_by_key` and the like give over text and host
    /// structs), or an owned `String` ([`Ty::String`]: a host function's `Option<String>`, `o.map(|x| x.name.clone())`)
    /// — then the `Option` owns it: reading the value moves it, and where its scope ends it is dropped.
    Option(Box<Ty>),
    /// `Result<T, E>` a host function returns: a tag (`true` for `Ok`), then the parts of `Ok`'s payload and of
    /// `Err`'s, the variant not held all zeros. A payload is a scalar (`()` too), a host struct read in place
    /// ([`Ty::StructRef`]), or an owned `String` or host struct ([`Ty::String`], [`Ty::Struct`]); the value is
    /// consumed where it is made (a `match`, `if let`, or a method the typed view reads as one), and a payload
    /// no pattern binds is dropped when the arm that matched it ends.
    Result(Box<Ty>, Box<Ty>),
    /// `(A, B, ..)`, two or more elements (`()` is [`Scalar::Unit`]): scalars, or — as the items `enumerate` pairs
    /// with an index, or an element of a sequence of tuples ([`Elem::Tuple`]) read in place — text and host
    /// structs read in place ([`Ty::Str`], [`Ty::StructRef`]). A tuple holding an owned `String` is only ever
    /// written straight into a sequence of tuples (the argument of its `push`).
    Tuple(Vec<Ty>),
    /// `Vec<E>` the snippet owns: its buffer pointer, capacity and length, the buffer allocated through the host
    /// library's allocator so the host can own what the snippet returns (and, for `Vec<String>`, each element's).
    Vec(Elem),
    /// `&str` (or `&String`, read as the text it holds): its pointer and length in bytes.
    Str,
    /// `&[E]` (or `&Vec<E>` coerced to one): a borrowed run of elements, its pointer and length in elements. A
    /// snippet function's parameter, a local, or an item of `windows`/`chunks`; read as a sequence
    /// ([`crate::SeqKind::SliceLocal`]). What it borrows is rustc's borrow check.
    Slice(Elem),
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
    /// as text — [`Ty::String`] or [`Ty::Str`] — or a scalar, and scalar values or vectors of strings), handed to
    /// the host as its own map type when it is the hole's value. A `value` of `()` is a set (`HashSet<K>` /
    /// `BTreeSet<K>`), as std builds its sets: a map to `()` ([`Ty::is_set`]).
    Map {
        key: Box<Ty>,
        value: MapValue,
        ordered: bool,
    },
}

impl From<Scalar> for Ty {
    fn from(s: Scalar) -> Ty {
        Ty::Scalar(s)
    }
}

impl Ty {
    /// A value the JIT can own in a host's place and replace there whole (`b = v`, `std::mem::take`, a binding
    /// moved into the snippet for its run): a `String`, or a vector of scalars, `String`s or `&str`s, whose
    /// buffers the run's record adopts, drops and hands back.
    pub fn replaceable_in_place(&self) -> bool {
        matches!(self, Ty::String | Ty::Vec(Elem::Scalar(_) | Elem::String | Elem::Str))
    }

    /// A hole value of this type may hold text that outlives the run (`&str`, `Option<&str>`).
    pub fn holds_text(&self) -> bool {
        match self {
            Ty::Str => true,
            Ty::Option(payload) => **payload == Ty::Str,
            _ => false,
        }
    }

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

    /// A value [`Ty::in_place`], or a tuple of them (`(usize, &str)`, as `enumerate` pairs them): copying it owns
    /// nothing.
    pub fn copied_in_place(&self) -> bool {
        match self {
            Ty::Tuple(parts) => parts.iter().all(Ty::in_place),
            other => other.in_place(),
        }
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
            Ty::Result(ok, err) => std::iter::once(Scalar::Bool).chain(ok.parts()).chain(err.parts()).collect(),
            Ty::Tuple(elems) => elems.iter().flat_map(Ty::parts).collect(),
            Ty::Vec(_) | Ty::String => vec![Scalar::Usize; 3],
            Ty::Str | Ty::Slice(_) => vec![Scalar::Usize; 2],
            Ty::StructRef(_) | Ty::Struct(_) | Ty::Map { .. } => vec![Scalar::Usize],
        }
    }

    /// A value that owns memory the run must free or drop: reading it by value moves it.
    pub fn owns(&self) -> bool {
        match self {
            Ty::Vec(_) | Ty::String | Ty::Struct(_) | Ty::Map { .. } => true,
            Ty::Result(ok, err) => ok.owns() || err.owns(),
            Ty::Tuple(parts) => parts.iter().any(Ty::owns),
            Ty::Option(payload) => payload.owns(),
            Ty::Scalar(_) | Ty::Str | Ty::Slice(_) | Ty::StructRef(_) => false,
        }
    }

    /// A `HashSet` or `BTreeSet`: a [`Ty::Map`] to `()`.
    pub fn is_set(&self) -> bool {
        matches!(self, Ty::Map { value: MapValue::Scalar(Scalar::Unit), .. })
    }

    /// The type as Rust spells it (as rustc prints the hole's type).
    pub fn name(&self) -> String {
        match self {
            Ty::Scalar(s) => s.name().to_owned(),
            Ty::Option(payload) => format!("Option<{}>", payload.name()),
            Ty::Result(ok, err) => format!("Result<{}, {}>", ok.name(), err.name()),
            Ty::Tuple(elems) => format!("({})", elems.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")),
            Ty::Vec(e) => format!("Vec<{}>", e.name()),
            Ty::Str => "&str".to_owned(),
            Ty::Slice(e) => format!("&[{}]", e.name()),
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

/// What a map the snippet builds ([`Ty::Map`]) holds at each key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapValue {
    /// A scalar's bits (`()` for a set).
    Scalar(Scalar),
    /// A `Vec<String>` (`BTreeMap<char, Vec<String>>`): only ever grown by `m.entry(k).or_default().push(s)`
    /// ([`TKind::MapPush`](crate::TKind::MapPush)), handed to the host, or dropped.
    Strings,
}

impl MapValue {
    /// The scalar, for a map of scalars (or a set).
    pub fn scalar(self) -> Option<Scalar> {
        match self {
            MapValue::Scalar(s) => Some(s),
            MapValue::Strings => None,
        }
    }

    /// The value type as Rust spells it.
    pub fn name(self) -> String {
        match self {
            MapValue::Scalar(s) => s.name().to_owned(),
            MapValue::Strings => "Vec<String>".to_owned(),
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
    /// A tuple of scalars and text (`(String, f64)`, `(&str, i64)`) at the layout rustc gave the host's type of
    /// it ([`tuple_layout_symbol`]): read in place as a [`Ty::Tuple`] of its parts' in-place values, written
    /// part by part.
    ///
    /// [`tuple_layout_symbol`]: crate::tuple_layout_symbol
    Tuple(TupleElem),
    /// `&S` of a host struct (index into [`TypedSnippet::structs`]): its address. The snippet makes a vector of
    /// them only by `collect` (or a host function returns one), and then rustc's borrow check judges the snippet
    /// (`TypedSnippet::references`).
    StructRef(usize),
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
            Elem::String | Elem::Str | Elem::Struct(_) | Elem::StructRef(_) | Elem::Tuple(_) => None,
        }
    }

    /// An element as read in place (through `iter()`, indexing): a scalar's value, a `String` as its text.
    pub fn read_ty(self) -> Ty {
        match self {
            Elem::Scalar(s) => Ty::Scalar(s),
            Elem::String | Elem::Str => Ty::Str,
            Elem::Struct(id) | Elem::StructRef(id) => Ty::StructRef(id),
            Elem::Tuple(t) => Ty::Tuple(t.parts().iter().map(|p| p.read_ty()).collect()),
        }
    }

    /// An element as an owned value (what `push` takes and `collect` gathers; a host struct is never one).
    pub fn owned_ty(self) -> Option<Ty> {
        match self {
            Elem::Scalar(s) => Some(Ty::Scalar(s)),
            Elem::String => Some(Ty::String),
            Elem::Tuple(t) => Some(Ty::Tuple(t.parts().iter().map(|p| p.owned_ty()).collect())),
            Elem::Str | Elem::Struct(_) | Elem::StructRef(_) => None,
        }
    }

    /// The element type as Rust spells it.
    pub fn name(self) -> String {
        match self {
            Elem::Scalar(s) => s.name().to_owned(),
            Elem::String => "String".to_owned(),
            Elem::Str => "&str".to_owned(),
            Elem::Struct(_) => "{host struct}".to_owned(),
            Elem::StructRef(_) => "&{host struct}".to_owned(),
            Elem::Tuple(t) => t.name(),
        }
    }

    /// An element that owns memory the JIT can drop where it lies in a vector (`retain`, `truncate`): a
    /// `String`, a host struct (through its `Drop` shim), a tuple of scalars and `String`s.
    pub fn drops_in_place(self) -> bool {
        match self {
            Elem::String | Elem::Struct(_) => true,
            Elem::Tuple(t) => t.parts().iter().all(|p| matches!(p, Part::Scalar(_) | Part::String)),
            _ => false,
        }
    }

    /// Whether each element owns a buffer (dropping or handing over the sequence covers the elements' buffers).
    pub fn owns_buffer(self) -> bool {
        match self {
            Elem::String => true,
            Elem::Tuple(t) => t.parts().contains(&Part::String),
            _ => false,
        }
    }

    /// Whether an element read in place is a reference into the sequence (its text, its address).
    pub fn read_borrows(self) -> bool {
        match self {
            Elem::Scalar(_) => false,
            Elem::Tuple(t) => t.parts().iter().any(|p| !matches!(p, Part::Scalar(_))),
            _ => true,
        }
    }
}

/// A part of a tuple element ([`TupleElem`]): a scalar of at most 64 bits, an owned `String`, or a `&str`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Scalar(Scalar),
    String,
    Str,
}

impl Part {
    /// The part as read in place: a scalar's value, text as a `&str`.
    pub fn read_ty(self) -> Ty {
        match self {
            Part::Scalar(s) => Ty::Scalar(s),
            Part::String | Part::Str => Ty::Str,
        }
    }

    /// The part as an owned value (what a tuple written into a sequence holds).
    pub fn owned_ty(self) -> Ty {
        match self {
            Part::Scalar(s) => Ty::Scalar(s),
            Part::String => Ty::String,
            Part::Str => Ty::Str,
        }
    }

    /// The part as Rust spells it in a type (`&'static str` for a `&str`, where a host item declares the layout).
    fn name(self, lifetime: &str) -> String {
        match self {
            Part::Scalar(s) => s.name().to_owned(),
            Part::String => "String".to_owned(),
            Part::Str => format!("&{lifetime}str"),
        }
    }
}

/// The type of a tuple element of a sequence: two to [`TupleElem::MAX`] parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TupleElem {
    len: u8,
    parts: [Part; TupleElem::MAX],
}

impl TupleElem {
    /// The most parts a tuple element has.
    pub const MAX: usize = 4;

    /// The tuple of `parts`, if there are two to [`TupleElem::MAX`] of them.
    pub fn new(parts: &[Part]) -> Option<TupleElem> {
        if !(2..=Self::MAX).contains(&parts.len()) {
            return None;
        }
        let mut all = [Part::Scalar(Scalar::Unit); Self::MAX];
        all[..parts.len()].copy_from_slice(parts);
        Some(TupleElem { len: parts.len() as u8, parts: all })
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts[..usize::from(self.len)]
    }

    /// The type as Rust spells it: `(String, f64)`.
    pub fn name(&self) -> String {
        self.spelled("")
    }

    /// The type as an item outside any function spells it (`&'static str`).
    pub fn static_name(&self) -> String {
        self.spelled("'static ")
    }

    fn spelled(&self, lifetime: &str) -> String {
        format!("({})", self.parts().iter().map(|p| p.name(lifetime)).collect::<Vec<_>>().join(", "))
    }
}
