//! Iterator chains: a source, adaptors and what consumes them, fused into one loop by the JIT.

use std::ops::Range;

use crate::{Child, Scalar, Seq, TExpr, TPat, Ty};

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

impl IterChain {
    /// The element type of the sequence the chain reads, when every stage so far passes its items on as they
    /// are (filters, `take`/`skip` and their `_while` forms, `rev`): the items are still references to it.
    pub fn source_elem_kept(&self) -> Option<crate::Elem> {
        let IterSource::Seq(seq) = &self.source else { return None };
        let kept = self.stages.iter().all(|(s, _)| {
            matches!(
                s,
                Stage::Filter(_)
                    | Stage::TakeWhile(_)
                    | Stage::SkipWhile(_)
                    | Stage::Take(_)
                    | Stage::Skip(_)
                    | Stage::Rev
            )
        });
        kept.then_some(seq.elem)
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
            IterSource::Runs { seq, .. } => Ty::Slice(seq.elem),
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
            IterSource::Runs { size, .. } => f(Child::Expr(size)),
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
    /// `v.windows(size)` (each run of `size` neighbours, overlapping) or `v.chunks(size)` (runs of `size` from the
    /// start, the last one shorter): slices of a sequence ([`crate::Ty::Slice`]). A `size` of zero panics at `at`,
    /// as std's does.
    Runs { seq: Seq, size: Box<TExpr>, chunks: bool, at: usize },
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

#[derive(Debug, Clone, PartialEq)]
pub struct Closure {
    pub params: Vec<TPat>,
    pub body: Box<TExpr>,
}

/// One key of a [`TKind::SortBy`](crate::TKind::SortBy): the closure computing it from an element (one
/// parameter), whether larger keys come first, and how keys compare.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    pub key: Closure,
    pub descending: bool,
    pub order: KeyOrder,
}

/// How the keys of a [`SortKey`] compare.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyOrder {
    /// `Ord::cmp`: integers, `char`, `bool`, text (by its bytes).
    Ord,
    /// `f64::total_cmp` / `f32::total_cmp`.
    Total,
    /// `partial_cmp(..).unwrap()` (or `.expect(message)`) of floats: `-0.0` equals `0.0`, and a NaN among two or
    /// more keys panics with `message` at `at` (the `unwrap`), as the comparison of it std's sort makes does.
    Partial { message: String, at: usize },
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
    /// `flat_map(|x| inner)`: for each item, the closure's parameters bound to it, every item of the iterator
    /// chain its body builds (`o.items.iter()`, `b.title.split_whitespace()`), run to its end before the next
    /// item is pulled. Only element-wise stages (`map`, `filter`, `filter_map`) follow one.
    FlatMap(Box<FlatMap>),
}

/// The closure of a [`Stage::FlatMap`]: its parameters and the chain its body builds.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatMap {
    pub params: Vec<TPat>,
    pub inner: IterChain,
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
    /// `max_by(|a, b| ..)` / `min_by(..)` of a comparison read as the keys it compares ([`SortKey`], as
    /// `sort_by` reads them): the item kept so far is `a`, the next `b`; `max_by` takes the next unless the kept
    /// one is greater, `min_by` only when it is smaller.
    MaxBy(Vec<SortKey>),
    MinBy(Vec<SortKey>),
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
