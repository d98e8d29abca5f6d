//! The method vocabularies: every method the IR can name, one closed enum per receiver family, each with its one
//! name table. The builder turns a resolved method's name into a member ([`from_name`](MapMethod::from_name)); every
//! later layer matches on members, so a new method fails to compile wherever it must be handled.

use std::fmt;

/// Declares a vocabulary: a fieldless enum with `ALL`, `name()` (the method as Rust spells it) and `from_name()`.
macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every member, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The method's name as Rust spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The member named `name`, if there is one.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

vocabulary! {
    /// Methods of a host static of one of std's atomic integer or `bool` types ([`TKind::Atomic`](crate::TKind::Atomic)).
    AtomicMethod {
        Load = "load",
        Store = "store",
        Swap = "swap",
        FetchAdd = "fetch_add",
        FetchSub = "fetch_sub",
        FetchMax = "fetch_max",
        FetchMin = "fetch_min",
        FetchAnd = "fetch_and",
        FetchOr = "fetch_or",
        FetchXor = "fetch_xor",
    }
}

vocabulary! {
    /// Methods of a map or set the snippet builds ([`TKind::MapMethod`](crate::TKind::MapMethod)).
    MapMethod {
        Insert = "insert",
        Get = "get",
        ContainsKey = "contains_key",
        /// A set's.
        Contains = "contains",
        Remove = "remove",
        Len = "len",
        IsEmpty = "is_empty",
        /// `m[k]`, which panics without the key.
        Index = "index",
    }
}

vocabulary! {
    /// What a view of a map the snippet builds yields ([`TKind::MapEntries`](crate::TKind::MapEntries)): `iter()`
    /// and `into_iter()` its entries, `keys()`, `values()`.
    MapView {
        Iter = "iter",
        IntoIter = "into_iter",
        Keys = "keys",
        Values = "values",
    }
}

impl MapMethod {
    /// Whether it changes the map.
    pub fn mutates(self) -> bool {
        matches!(self, MapMethod::Insert | MapMethod::Remove)
    }
}

vocabulary! {
    /// Methods of a sequence that take no closure ([`TKind::SeqMethod`](crate::TKind::SeqMethod)).
    SeqMethod {
        IsEmpty = "is_empty",
        Contains = "contains",
        First = "first",
        Last = "last",
        Get = "get",
        Sort = "sort",
        SortUnstable = "sort_unstable",
        Reverse = "reverse",
        Swap = "swap",
        Fill = "fill",
        Dedup = "dedup",
        Push = "push",
        Pop = "pop",
        Truncate = "truncate",
        Join = "join",
    }
}

impl SeqMethod {
    /// Whether it changes the sequence in place.
    pub fn mutates(self) -> bool {
        matches!(
            self,
            SeqMethod::Sort
                | SeqMethod::SortUnstable
                | SeqMethod::Reverse
                | SeqMethod::Swap
                | SeqMethod::Fill
                | SeqMethod::Dedup
                | SeqMethod::Push
                | SeqMethod::Pop
                | SeqMethod::Truncate
        )
    }
}

vocabulary! {
    /// Methods of a sequence that take a closure written in place
    /// ([`TKind::SeqWithClosure`](crate::TKind::SeqWithClosure)).
    SeqClosureMethod {
        Retain = "retain",
        SortByKey = "sort_by_key",
        SortUnstableByKey = "sort_unstable_by_key",
    }
}

impl SeqClosureMethod {
    /// One of the sorts by a key.
    pub fn sorts(self) -> bool {
        self != SeqClosureMethod::Retain
    }

    /// `sort_unstable_by_key`: equal keys may end up in any order.
    pub fn unstable(self) -> bool {
        self == SeqClosureMethod::SortUnstableByKey
    }
}

vocabulary! {
    /// Methods of text read in place, and the text operations the IR names like methods
    /// ([`TKind::TextMethod`](crate::TKind::TextMethod)).
    TextMethod {
        Len = "len",
        IsEmpty = "is_empty",
        ToString = "to_string",
        ToOwned = "to_owned",
        Clone = "clone",
        /// `into()`, and `String::from` of a `String`: moves the receiver.
        Into = "into",
        AsStr = "as_str",
        Trim = "trim",
        TrimStart = "trim_start",
        TrimEnd = "trim_end",
        ToUppercase = "to_uppercase",
        ToLowercase = "to_lowercase",
        Repeat = "repeat",
        /// `replace(pattern, to)`: a new `String`.
        Replace = "replace",
        Contains = "contains",
        StartsWith = "starts_with",
        EndsWith = "ends_with",
        TrimMatches = "trim_matches",
        TrimStartMatches = "trim_start_matches",
        TrimEndMatches = "trim_end_matches",
        /// `Option<usize>`: the byte index of a pattern's first match.
        Find = "find",
        /// `Option<usize>`: the byte index of a pattern's last match.
        Rfind = "rfind",
        /// `Option<&str>`: the rest after a prefix.
        StripPrefix = "strip_prefix",
        /// `Option<&str>`: the rest before a suffix.
        StripSuffix = "strip_suffix",
        /// `a == b` of text.
        Eq = "==",
        /// `a != b` of text.
        Ne = "!=",
        /// `&s[a..b]`.
        Slice = "slice",
        /// `&s[a..]`.
        SliceFrom = "slice_from",
        /// `&s[..b]`.
        SliceTo = "slice_to",
        /// `&s[..]`.
        SliceAll = "slice_all",
    }
}

impl TextMethod {
    /// How many arguments the method takes, for the methods a snippet calls by name (`None` for the operators and
    /// slices the builder makes from other syntax).
    pub fn arity(self) -> Option<usize> {
        use TextMethod::*;
        match self {
            Len | IsEmpty | ToString | ToOwned | Clone | Into | AsStr | Trim | TrimStart | TrimEnd | ToUppercase
            | ToLowercase => Some(0),
            Repeat | Contains | StartsWith | EndsWith | TrimMatches | TrimStartMatches | TrimEndMatches
            | StripPrefix | StripSuffix | Find | Rfind => Some(1),
            Replace => Some(2),
            Eq | Ne | Slice | SliceFrom | SliceTo | SliceAll => None,
        }
    }

    /// Whether the result is a new `String` copied from the receiver's text.
    pub fn copies(self) -> bool {
        matches!(self, TextMethod::ToString | TextMethod::ToOwned | TextMethod::Clone | TextMethod::Into)
    }
}

vocabulary! {
    /// Methods of `char` that the JIT runs through one helper (`lacuna_char_op`), numbered by their position here
    /// ([`CharMethod::op`]).
    #[repr(u32)]
    CharMethod {
        IsAlphabetic = "is_alphabetic",
        IsNumeric = "is_numeric",
        IsAlphanumeric = "is_alphanumeric",
        IsWhitespace = "is_whitespace",
        IsUppercase = "is_uppercase",
        IsLowercase = "is_lowercase",
        IsAscii = "is_ascii",
        IsAsciiDigit = "is_ascii_digit",
        IsAsciiAlphabetic = "is_ascii_alphabetic",
        IsAsciiAlphanumeric = "is_ascii_alphanumeric",
        IsAsciiUppercase = "is_ascii_uppercase",
        IsAsciiLowercase = "is_ascii_lowercase",
        IsAsciiPunctuation = "is_ascii_punctuation",
        IsAsciiWhitespace = "is_ascii_whitespace",
        ToAsciiUppercase = "to_ascii_uppercase",
        ToAsciiLowercase = "to_ascii_lowercase",
    }
}

impl CharMethod {
    /// The operation number `lacuna_char_op` takes.
    pub fn op(self) -> u32 {
        self as u32
    }

    /// The method numbered `op`.
    pub fn from_op(op: u32) -> Option<CharMethod> {
        CharMethod::ALL.get(op as usize).copied()
    }

    /// Whether it maps a `char` to a `char` (the others are tests giving a `bool`).
    pub fn maps(self) -> bool {
        matches!(self, CharMethod::ToAsciiUppercase | CharMethod::ToAsciiLowercase)
    }
}

vocabulary! {
    /// Methods of integers and floats that give a scalar
    /// ([`TKind::Method`](crate::TKind::Method) with [`Method::Scalar`]).
    ScalarMethod {
        Abs = "abs",
        Pow = "pow",
        Min = "min",
        Max = "max",
        WrappingAdd = "wrapping_add",
        WrappingSub = "wrapping_sub",
        WrappingMul = "wrapping_mul",
        CountOnes = "count_ones",
        IsPositive = "is_positive",
        IsNegative = "is_negative",
        Signum = "signum",
        Sqrt = "sqrt",
        Floor = "floor",
        Ceil = "ceil",
        Trunc = "trunc",
        Round = "round",
        Fract = "fract",
        IsNan = "is_nan",
        IsFinite = "is_finite",
        IsInfinite = "is_infinite",
        Powi = "powi",
        SaturatingAdd = "saturating_add",
        SaturatingSub = "saturating_sub",
        SaturatingMul = "saturating_mul",
        WrappingNeg = "wrapping_neg",
        UnsignedAbs = "unsigned_abs",
        AbsDiff = "abs_diff",
        LeadingZeros = "leading_zeros",
        TrailingZeros = "trailing_zeros",
        CountZeros = "count_zeros",
        IsPowerOfTwo = "is_power_of_two",
    }
}

vocabulary! {
    /// Methods of an `Option` of a scalar without a closure ([`Method::Option`]).
    OptionMethod {
        Unwrap = "unwrap",
        UnwrapOr = "unwrap_or",
        UnwrapOrDefault = "unwrap_or_default",
        IsSome = "is_some",
        IsNone = "is_none",
        Or = "or",
        Xor = "xor",
    }
}

impl OptionMethod {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            OptionMethod::Unwrap | OptionMethod::UnwrapOrDefault | OptionMethod::IsSome | OptionMethod::IsNone => 0,
            OptionMethod::UnwrapOr | OptionMethod::Or | OptionMethod::Xor => 1,
        }
    }
}

vocabulary! {
    /// Methods of scalars that give an `Option` ([`Method::Checked`]).
    CheckedMethod {
        CheckedAdd = "checked_add",
        CheckedSub = "checked_sub",
        CheckedMul = "checked_mul",
        CheckedDiv = "checked_div",
        CheckedRem = "checked_rem",
        /// `char::to_digit(radix)`.
        ToDigit = "to_digit",
    }
}

/// A method of a scalar or of an `Option` of one ([`TKind::Method`](crate::TKind::Method)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Scalar(ScalarMethod),
    Char(CharMethod),
    Option(OptionMethod),
    Checked(CheckedMethod),
}

impl Method {
    /// The method's name as Rust spells it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Scalar(m) => m.name(),
            Method::Char(m) => m.name(),
            Method::Option(m) => m.name(),
            Method::Checked(m) => m.name(),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

vocabulary! {
    /// Methods of an `Option` that take a closure written in place
    /// ([`TKind::OptionClosure`](crate::TKind::OptionClosure)).
    OptionClosureMethod {
        Map = "map",
        AndThen = "and_then",
        Filter = "filter",
        IsSomeAnd = "is_some_and",
        IsNoneOr = "is_none_or",
        UnwrapOrElse = "unwrap_or_else",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T: Copy + PartialEq + fmt::Debug>(
        all: &[T],
        name: fn(T) -> &'static str,
        from: fn(&str) -> Option<T>,
    ) {
        let mut seen = std::collections::HashSet::new();
        for &m in all {
            assert!(seen.insert(name(m)), "two members named {}", name(m));
            assert_eq!(from(name(m)), Some(m));
        }
    }

    #[test]
    fn every_name_is_one_member() {
        round_trips(MapMethod::ALL, MapMethod::name, MapMethod::from_name);
        round_trips(MapView::ALL, MapView::name, MapView::from_name);
        round_trips(SeqMethod::ALL, SeqMethod::name, SeqMethod::from_name);
        round_trips(SeqClosureMethod::ALL, SeqClosureMethod::name, SeqClosureMethod::from_name);
        round_trips(TextMethod::ALL, TextMethod::name, TextMethod::from_name);
        round_trips(CharMethod::ALL, CharMethod::name, CharMethod::from_name);
        round_trips(ScalarMethod::ALL, ScalarMethod::name, ScalarMethod::from_name);
        round_trips(OptionMethod::ALL, OptionMethod::name, OptionMethod::from_name);
        round_trips(CheckedMethod::ALL, CheckedMethod::name, CheckedMethod::from_name);
        round_trips(OptionClosureMethod::ALL, OptionClosureMethod::name, OptionClosureMethod::from_name);
    }

    #[test]
    fn char_methods_are_numbered_by_position() {
        for (i, m) in CharMethod::ALL.iter().enumerate() {
            assert_eq!(m.op(), i as u32);
            assert_eq!(CharMethod::from_op(i as u32), Some(*m));
        }
    }
}
