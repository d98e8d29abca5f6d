//! Patterns and `match` arms.

use crate::{Lit, TExpr, Ty};

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
    /// order, with patterns for some of its fields (a field is read only once the variant is known to match).
    Variant {
        adt: usize,
        index: u32,
        fields: Vec<VariantField>,
    },
}

impl TPat {
    /// The locals the pattern binds to copies of `String` fields moved out of a host enum's variant (each a
    /// [`VariantField`] read as [`Ty::String`]): what a `match` moving them out moves, and what its arm drops.
    pub fn field_copies(&self) -> Vec<usize> {
        fn walk(pat: &TPat, out: &mut Vec<usize>) {
            match pat {
                TPat::Variant { fields, .. } => {
                    for f in fields {
                        match (&f.ty, &f.pat) {
                            (Ty::String, TPat::Bind(local)) => out.push(*local),
                            (_, sub) => walk(sub, out),
                        }
                    }
                }
                TPat::Or(ps) | TPat::Tuple(ps) => ps.iter().for_each(|p| walk(p, out)),
                TPat::Some(p) | TPat::Ok(p) | TPat::Err(p) => walk(p, out),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

/// A field of a host enum's variant a [`TPat::Variant`] reads.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantField {
    /// The field's number across all the enum's variants, as the host's `__lacuna_field_*` shim takes it.
    pub number: u32,
    /// What the field is read as: a scalar (copied), a `String`'s text in place ([`Ty::Str`]: a binding by
    /// reference, `E::V(s)` against `&E`), or a copy of a `String` ([`Ty::String`]: a binding by value, which
    /// moves the field out of a value the snippet owns; the copy is what is left once the rest of the value is
    /// dropped, and nothing observes the difference).
    pub ty: Ty,
    pub pat: TPat,
    /// Where the pattern is (an owned copy's allocation failure is placed there).
    pub at: usize,
}
