//! Patterns and `match` arms.

use crate::{Lit, Scalar, TExpr};

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
    /// `Ok(p)` / `Err(p)` of a [`crate::Ty::Result`].
    Ok(Box<TPat>),
    Err(Box<TPat>),
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
