//! Where a snippet's thread waits inside std for another thread: a receive, a lock, a condition variable, a join, a
//! send on a bounded channel. A wait that never ends (a sender never dropped, a lock taken twice, a notify that
//! never comes) would outlast every budget, which acts only at the snippet's next tick. The checker renames each
//! such call to a waiting twin in Lacuna's prelude (`__lacuna_waiting_recv` for `recv`) that waits in slices and
//! looks at the run's time budget between them; a wait with no such twin is denied
//! ([`ViolationKind::UnboundedWait`](crate::ViolationKind)).

use crate::{CrateKind, Item, ItemKind};

/// What safe mode does with one of std's blocking waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// The call gets its prelude twin: the same name with a prefix before it (`rx.__lacuna_waiting_recv()`), the
    /// same signature.
    Renamed,
    /// `<Receiver<T> as IntoIterator>::into_iter` (and `&Receiver`'s): a twin as a method, the argument wrapped
    /// where it is called by path.
    IntoIter,
    /// `thread::sleep`: the path is wrapped in the prelude's twin, a `fn(Duration)` that sleeps in slices and looks
    /// at the run's time budget between them, called or used as a value alike.
    Sleep,
    /// A wait with no twin that looks at the clock: denied, with what to use instead.
    Unbounded { instead: &'static str },
}

/// What safe mode does with `item`, if it is one of std's blocking waits or sleeps (which the `time` grant
/// allows: a sleep longer than the time budget would outlast it).
pub fn waiting(item: &Item) -> Option<Waiting> {
    if item.kind != ItemKind::Function
        || item.krate != CrateKind::Std
        || !matches!(item.modules.first().map(String::as_str), Some("sync" | "thread"))
    {
        return None;
    }
    let park = "std cannot tell its wake-up from its timeout; wait on a channel's `recv_timeout` or a `Condvar`";
    Some(match (item.owner.as_deref(), item.name.as_str()) {
        (None, "sleep") => Waiting::Sleep,
        (None, "sleep_ms") => Waiting::Unbounded { instead: "use `thread::sleep` with a `Duration`" },
        (None, "park_timeout" | "park_timeout_ms") => Waiting::Unbounded { instead: park },
        (Some("Receiver"), "recv" | "iter" | "recv_timeout")
        | (Some("SyncSender"), "send")
        | (Some("Mutex"), "lock")
        | (Some("RwLock"), "read" | "write")
        | (Some("Condvar"), "wait" | "wait_while" | "wait_timeout" | "wait_timeout_while")
        | (Some("JoinHandle" | "ScopedJoinHandle"), "join") => Waiting::Renamed,
        (Some("Receiver"), "into_iter") => Waiting::IntoIter,
        (Some("Barrier"), "wait") => Waiting::Unbounded { instead: "use a channel or a `Condvar`" },
        (Some("Condvar"), "wait_timeout_ms") => Waiting::Unbounded { instead: "use `wait_timeout` with a `Duration`" },
        _ => return None,
    })
}

/// Whether `item` is std's channel receiver, whose iterators wait for each element: where one is stepped as an
/// iterator (a `for` loop, a generic function's iterator argument) it is handed over as Lacuna's waiting iterator.
pub fn is_receiver(item: &Item) -> bool {
    item.kind == ItemKind::Type
        && item.krate == CrateKind::Std
        && item.owner.is_none()
        && item.name == "Receiver"
        && item.modules.iter().any(|m| m == "mpsc")
}

/// Whether `item` is the type of a receiver's waiting iterator (`mpsc::Iter`, `mpsc::IntoIter`): a snippet's
/// `rx.iter()` is Lacuna's twin when it runs, not this type, so a snippet that names it would not build.
pub fn is_receiver_iterator_type(item: &Item) -> bool {
    item.kind == ItemKind::Type
        && item.krate == CrateKind::Std
        && item.owner.is_none()
        && matches!(item.name.as_str(), "Iter" | "IntoIter")
        && item.modules.iter().any(|m| m == "mpsc")
}

/// What std's iterator methods that step each element as an iterator of its own step: with a channel receiver
/// there (or a receiver's iterator, or a type the snippet's generic code does not know), std waits for each
/// value in a loop of its own, where no twin can be put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flattening {
    /// `Iterator::flatten`: the receiver's elements.
    Elements,
    /// `Iterator::flat_map`: what its function returns.
    Results,
}

/// Whether `item` is `Iterator::flatten` or `Iterator::flat_map`, and which of them.
pub fn flattening(item: &Item) -> Option<Flattening> {
    if item.kind != ItemKind::Function || item.krate != CrateKind::Core || item.owner.as_deref() != Some("Iterator") {
        return None;
    }
    match item.name.as_str() {
        "flatten" => Some(Flattening::Elements),
        "flat_map" => Some(Flattening::Results),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(modules: &[&str], owner: &str, name: &str) -> Item {
        Item {
            krate: CrateKind::Std,
            modules: modules.iter().map(|m| m.to_string()).collect(),
            owner: Some(owner.into()),
            name: name.into(),
            kind: ItemKind::Function,
        }
    }

    #[test]
    fn std_waits_by_what_safe_mode_does() {
        let of = |modules: &[&str], owner, name| waiting(&method(modules, owner, name));
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "recv"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "iter"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "into_iter"), Some(Waiting::IntoIter));
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "try_recv"), None);
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "try_iter"), None);
        assert_eq!(of(&["sync", "mpsc"], "Sender", "send"), None, "an unbounded channel's send never waits");
        assert_eq!(of(&["sync", "mpsc"], "SyncSender", "send"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "mutex"], "Mutex", "lock"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "mutex"], "Mutex", "try_lock"), None);
        assert_eq!(of(&["sync", "poison", "rwlock"], "RwLock", "write"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "condvar"], "Condvar", "wait_while"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "condvar"], "Condvar", "notify_all"), None);
        assert_eq!(of(&["thread", "scoped"], "ScopedJoinHandle", "join"), Some(Waiting::Renamed));
        assert!(matches!(of(&["sync", "barrier"], "Barrier", "wait"), Some(Waiting::Unbounded { .. })));
        assert_eq!(of(&["sync", "mpsc"], "Receiver", "recv_timeout"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "condvar"], "Condvar", "wait_timeout"), Some(Waiting::Renamed));
        assert_eq!(of(&["sync", "poison", "condvar"], "Condvar", "wait_timeout_while"), Some(Waiting::Renamed));
        assert!(matches!(
            of(&["sync", "poison", "condvar"], "Condvar", "wait_timeout_ms"),
            Some(Waiting::Unbounded { .. })
        ));
        let free = |name: &str| waiting(&Item { owner: None, ..method(&["thread", "functions"], "", name) });
        assert_eq!(free("sleep"), Some(Waiting::Sleep));
        assert!(matches!(free("park_timeout"), Some(Waiting::Unbounded { .. })));
        assert!(matches!(free("sleep_ms"), Some(Waiting::Unbounded { .. })));
        assert_eq!(free("yield_now"), None, "yielding does not wait for anything");
        assert_eq!(free("spawn"), None);
        let host = Item { krate: CrateKind::Host, ..method(&["sync"], "Mutex", "lock") };
        assert_eq!(waiting(&host), None, "a host's own `Mutex` is the host's code");
    }

    #[test]
    fn flattening_methods() {
        let core = |owner: &str, name: &str| Item {
            krate: CrateKind::Core,
            modules: vec!["iter".into(), "traits".into(), "iterator".into()],
            owner: Some(owner.into()),
            name: name.into(),
            kind: ItemKind::Function,
        };
        assert_eq!(flattening(&core("Iterator", "flatten")), Some(Flattening::Elements));
        assert_eq!(flattening(&core("Iterator", "flat_map")), Some(Flattening::Results));
        assert_eq!(flattening(&core("Option", "flatten")), None, "`Option::flatten` steps nothing");
        assert_eq!(flattening(&core("Iterator", "map")), None);
    }

    #[test]
    fn receiver_types() {
        let ty = |modules: &[&str], name: &str| Item {
            krate: CrateKind::Std,
            modules: modules.iter().map(|m| m.to_string()).collect(),
            owner: None,
            name: name.into(),
            kind: ItemKind::Type,
        };
        assert!(is_receiver(&ty(&["sync", "mpsc"], "Receiver")));
        assert!(!is_receiver(&ty(&["sync", "mpsc"], "Sender")));
        assert!(is_receiver_iterator_type(&ty(&["sync", "mpsc"], "Iter")));
        assert!(!is_receiver_iterator_type(&ty(&["sync", "mpsc"], "TryIter")));
        assert!(!is_receiver_iterator_type(&ty(&["slice", "iter"], "Iter")));
    }
}
