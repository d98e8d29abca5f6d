//! What a snippet reads and writes in place: host struct fields, sequences, assignment targets.

use crate::{Elem, LocalRef, Scalar, Ty};

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

/// The `self` of a host method call ([`crate::TKind::HostCall`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Receiver {
    /// A hole binding that holds the value or a reference to it (`&self` or `&mut self`).
    Binding(SelfArg),
    /// A host struct read in place — an iterator's item, a `for` variable, a field, a value the snippet holds
    /// (a [`crate::Ty::StructRef`] or [`crate::Ty::Struct`] expression: its address); `&self` methods only.
    InPlace(Box<crate::TExpr>),
}

/// What an assignment writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Local(LocalRef),
    /// `*r` of a hole binding `r: &mut S` (index into the hole's bindings).
    Deref(usize),
    /// A hole binding holding a `String` or a `Vec` (of scalars, text or `&str`) given a whole new value, in the
    /// host's place: the old value is dropped there and the new one moved in (index into the hole's bindings).
    /// Never with an operator.
    WholeBinding(usize),
    /// `x.field = ..` of a host struct's scalar field (index into [`TypedSnippet::fields`]).
    HostField(usize),
    /// `s.field = ..` of a scalar field of a host struct a loop reaches through `&mut` (`for s in
    /// v.iter_mut()`): index into [`TypedSnippet::elem_fields`].
    ///
    /// [`TypedSnippet::elem_fields`]: crate::TypedSnippet::elem_fields
    ElemField(usize),
    /// The whole host struct a snippet local points to: a `&mut` loop variable over a hole binding's sequence of
    /// structs, or an element found through `iter_mut()`, lent `&mut` to a host function ([`crate::TKind::AddrOf`];
    /// never assigned). `root` is the binding the sequence belongs to, which the host must hand over writable
    /// when it holds the sequence by value (`by_value`), and which must be a `&mut` otherwise.
    Elem {
        local: usize,
        root: usize,
        by_value: bool,
    },
}

/// A scalar field written through a snippet local that holds the address of a host struct, an element of a
/// sequence the hole's binding `root` holds (by value, or through a `&mut`: `by_value` false).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElemField {
    /// The snippet local holding the struct's address.
    pub local: usize,
    pub ty: Scalar,
    /// The exported static holding the field's offset ([`crate::field_offset_symbol`]).
    pub symbol: String,
    /// The hole binding the sequence belongs to, which the host must hand over writable.
    pub root: usize,
    pub by_value: bool,
    /// `Some(id)`: the field holds a host struct or enum by value (index into [`crate::TypedSnippet::structs`];
    /// `ty` is then `()`), written whole (`o.status = Status::Shipped`): the old value dropped where it is, the
    /// new one moved in from the run's box.
    pub held: Option<usize>,
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
    /// `[S; N]`: the binding is the array itself, `N` elements from its first byte. Its length never changes.
    Array(u64),
    /// A `Vec<S>` the snippet owns ([`Ty::Vec`]): `binding` is then the snippet local's index.
    Local,
    /// A slice the snippet holds ([`Ty::Slice`]: a parameter, a local, a closure's parameter): `binding` is then
    /// the snippet local's index. Never grows.
    SliceLocal,
    /// A `Vec<S>` field of a host struct, reached through fields from a local that holds the struct or a shared
    /// reference to it (`store.orders`, `o.items`): `binding` is then the index into [`TypedSnippet::seq_places`].
    /// Read in place, never written.
    ///
    /// [`TypedSnippet::seq_places`]: crate::TypedSnippet::seq_places
    Field,
}

impl SeqKind {
    /// Whether its length can change (`push`, `pop`, `truncate`, `dedup`, `retain`): not a slice's or an array's.
    pub fn grows(self) -> bool {
        !matches!(self, SeqKind::Slice | SeqKind::SliceLocal | SeqKind::Array(_))
    }
}

/// Where a [`SeqKind::Field`] sequence is: a local holding a host struct (its place, [`Ty::Struct`]) or a
/// shared reference to one ([`Ty::StructRef`]), then fields of structs held inline, the last one the `Vec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqPlace {
    pub base: LocalRef,
    /// The base local's type: [`Ty::Struct`] or [`Ty::StructRef`].
    pub base_ty: Ty,
    /// The exported statics holding each field's offset in the struct before it ([`crate::field_offset_symbol`]).
    pub path: Vec<String>,
    /// For a base that is a `&mut` loop variable over a sequence of structs of one of the hole's bindings (as
    /// [`crate::ElemField`]'s): that binding, and whether it holds the sequence's owner by value. Changing the
    /// sequence writes it.
    pub root: Option<(usize, bool)>,
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
