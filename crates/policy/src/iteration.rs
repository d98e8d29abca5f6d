//! Where std iterates for a snippet: the methods and functions that step an iterator in a loop inside std, with no
//! snippet code between two steps unless the snippet gave some. A snippet's budgets count at its own loops, fns and
//! closures; these loops get a count of their own (the checker makes each one step a counting wrapper), and the
//! forms where no wrapper can go are denied ([`ViolationKind::UnmeteredLoop`](crate::ViolationKind)).

use crate::{Item, ItemKind};

/// What a method or function of std's iterator vocabulary does with an iterator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Iteration {
    /// An `Iterator` or `DoubleEndedIterator` method that steps its receiver until it decides (`count`, `max`,
    /// `sum`, `nth`, `collect`, `any`, `fold`, `rfind`, ...): its receiver counts every step.
    Consumer,
    /// An adapter whose own `next` loops over its receiver (`flatten` past empty inner iterators, `skip` and
    /// `step_by` through `nth`): its receiver counts every step.
    LoopingAdapter,
    /// An adapter whose `next` calls a function per element until that function says stop (`filter`,
    /// `filter_map`, `skip_while`, `flat_map`): a closure the snippet writes in place counts each call itself;
    /// any other function (`filter(char::is_numeric)`) is wrapped in one that counts. `by_reference`: the function
    /// takes the element by reference (`filter`, `skip_while`), not by value (`filter_map`, `flat_map`).
    CallingAdapter { by_reference: bool },
    /// An adapter that takes one element per element, or a method that steps once or not at all (`map`, `zip`,
    /// `rev`, `next`, `by_ref`, `size_hint`): nothing to count.
    Lazy,
    /// A function that drains its last argument, an iterator (`FromIterator::from_iter`, `Extend::extend`,
    /// `Sum::sum`, `Product::product`, `Vec::splice`): that argument counts every step.
    Drains,
}

impl Iteration {
    /// Whether this use needs a count at all, and so cannot be named as a value (where no count can go).
    pub fn needs_count(self) -> bool {
        !matches!(self, Iteration::Lazy)
    }
}

/// What `item` does with an iterator, if it is one of std's iterator methods or draining functions.
pub fn iteration(item: &Item) -> Option<Iteration> {
    if item.kind != ItemKind::Function || !item.krate.is_std() {
        return None;
    }
    let name = item.name.as_str();
    match item.owner.as_deref()? {
        "Iterator" | "DoubleEndedIterator" => Some(match name {
            "flatten" | "skip" | "step_by" => Iteration::LoopingAdapter,
            "filter" | "skip_while" => Iteration::CallingAdapter { by_reference: true },
            "filter_map" | "flat_map" => Iteration::CallingAdapter { by_reference: false },
            "map" | "enumerate" | "peekable" | "take_while" | "map_while" | "take" | "scan" | "fuse" | "inspect"
            | "rev" | "chain" | "zip" | "cycle" | "copied" | "cloned" | "by_ref" | "size_hint" | "next"
            | "next_back" | "intersperse" | "intersperse_with" | "map_windows" | "array_chunks" => Iteration::Lazy,
            // Everything else steps until it decides, and a method std adds later is counted until it is listed.
            _ => Iteration::Consumer,
        }),
        "FromIterator" if name == "from_iter" => Some(Iteration::Drains),
        "Extend" if name == "extend" => Some(Iteration::Drains),
        "Sum" if name == "sum" => Some(Iteration::Drains),
        "Product" if name == "product" => Some(Iteration::Drains),
        "Vec" if name == "splice" => Some(Iteration::Drains),
        _ => None,
    }
}

/// Whether `item` is the type of an adapter whose receiver the counting wrapper goes on ([`Iteration::LoopingAdapter`]):
/// a snippet's `skip(..)` is a `Skip<Ticking<I>>` when it runs, so a snippet that names `Skip<I>` would not build.
pub fn wraps_receiver_type(item: &Item) -> bool {
    item.kind == ItemKind::Type
        && item.owner.is_none()
        && item.krate.is_std()
        && item.modules.iter().any(|m| m == "iter")
        && matches!(item.name.as_str(), "Skip" | "StepBy" | "Flatten")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CrateKind;

    fn method(krate: CrateKind, owner: &str, name: &str) -> Item {
        Item { krate, modules: Vec::new(), owner: Some(owner.into()), name: name.into(), kind: ItemKind::Function }
    }

    #[test]
    fn std_iterator_methods_by_what_they_do() {
        let of = |owner, name| iteration(&method(CrateKind::Core, owner, name));
        assert_eq!(of("Iterator", "max"), Some(Iteration::Consumer));
        assert_eq!(of("Iterator", "count"), Some(Iteration::Consumer));
        assert_eq!(of("DoubleEndedIterator", "rfind"), Some(Iteration::Consumer));
        assert_eq!(of("Iterator", "some_method_std_adds_later"), Some(Iteration::Consumer));
        assert_eq!(of("Iterator", "flatten"), Some(Iteration::LoopingAdapter));
        assert_eq!(of("Iterator", "filter"), Some(Iteration::CallingAdapter { by_reference: true }));
        assert_eq!(of("Iterator", "flat_map"), Some(Iteration::CallingAdapter { by_reference: false }));
        assert_eq!(of("Iterator", "map"), Some(Iteration::Lazy));
        assert_eq!(of("Iterator", "by_ref"), Some(Iteration::Lazy));
        assert_eq!(of("FromIterator", "from_iter"), Some(Iteration::Drains));
        assert_eq!(of("Extend", "extend"), Some(Iteration::Drains));
        assert_eq!(of("Extend", "extend_one"), None);
        assert_eq!(of("Sum", "sum"), Some(Iteration::Drains));
        assert_eq!(iteration(&method(CrateKind::Alloc, "Vec", "splice")), Some(Iteration::Drains));
        assert_eq!(of("Option", "map"), None);
    }

    #[test]
    fn adapter_types_a_wrapper_changes() {
        let ty = |modules: &[&str], name: &str| Item {
            krate: CrateKind::Core,
            modules: modules.iter().map(|m| m.to_string()).collect(),
            owner: None,
            name: name.into(),
            kind: ItemKind::Type,
        };
        assert!(wraps_receiver_type(&ty(&["iter", "adapters", "skip"], "Skip")));
        assert!(wraps_receiver_type(&ty(&["iter", "adapters", "flatten"], "Flatten")));
        assert!(!wraps_receiver_type(&ty(&["iter", "adapters", "peekable"], "Peekable")));
        assert!(!wraps_receiver_type(&ty(&["str", "iter"], "Chars")));
    }

    #[test]
    fn only_std_items() {
        // A host's or a snippet's own trait named `Iterator` steps its own code, which counts.
        assert_eq!(iteration(&method(CrateKind::Host, "Iterator", "count")), None);
        assert_eq!(iteration(&method(CrateKind::Other("itertools".into()), "Itertools", "sorted")), None);
    }
}
