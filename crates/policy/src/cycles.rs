//! Values a snippet could keep alive past its hole without `mem::forget`: `Rc`/`Arc` cycles (and thread-locals,
//! which the main thread never drops). Kept alive there, a lock guard or a `RefCell` borrow of the host's stays
//! held after the hole, and the host's own next `lock()` blocks or `borrow_mut()` panics. Safe mode denies shared
//! ownership of a value that can hold one (`ViolationKind::HostTakeover`).

use crate::{CrateKind, Item, ItemKind};

/// Whether `item` is std's `Rc` or `Arc`: shared ownership, the only way std code forms a cycle.
pub fn is_shared_owner(item: &Item) -> bool {
    item.kind == ItemKind::Type
        && item.owner.is_none()
        && matches!(item.krate, CrateKind::Alloc | CrateKind::Std)
        && matches!(
            (item.modules.first().map(String::as_str), item.name.as_str()),
            (Some("rc"), "Rc") | (Some("sync"), "Arc")
        )
}

/// Whether `item` is std's `LocalKey`, a `thread_local!`'s: its value lives until its thread ends (the main thread's,
/// for good).
pub fn is_thread_local(item: &Item) -> bool {
    item.kind == ItemKind::Type && item.owner.is_none() && item.krate == CrateKind::Std && item.name == "LocalKey"
}

/// Whether `item` is a guard of a lock or a borrow of a `RefCell` (or of the process's standard streams): held as
/// long as it lives.
pub fn is_borrow_guard(item: &Item) -> bool {
    if item.kind != ItemKind::Type || item.owner.is_some() {
        return false;
    }
    let first = item.modules.first().map(String::as_str);
    match item.krate {
        CrateKind::Core => first == Some("cell") && matches!(item.name.as_str(), "Ref" | "RefMut"),
        CrateKind::Std => match first {
            Some("sync") => item.name.ends_with("Guard"),
            Some("io") => matches!(item.name.as_str(), "StdoutLock" | "StderrLock" | "StdinLock"),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(krate: CrateKind, modules: &[&str], name: &str) -> Item {
        Item {
            krate,
            modules: modules.iter().map(|m| m.to_string()).collect(),
            owner: None,
            name: name.into(),
            kind: ItemKind::Type,
        }
    }

    #[test]
    fn shared_owners_thread_locals_and_guards() {
        assert!(is_shared_owner(&ty(CrateKind::Alloc, &["rc"], "Rc")));
        assert!(is_shared_owner(&ty(CrateKind::Alloc, &["sync"], "Arc")));
        assert!(!is_shared_owner(&ty(CrateKind::Alloc, &["rc"], "Weak")), "a `Weak` keeps nothing alive");
        assert!(!is_shared_owner(&ty(CrateKind::Alloc, &["boxed"], "Box")));
        assert!(is_thread_local(&ty(CrateKind::Std, &["thread", "local"], "LocalKey")));
        assert!(is_borrow_guard(&ty(CrateKind::Std, &["sync", "poison", "mutex"], "MutexGuard")));
        assert!(is_borrow_guard(&ty(CrateKind::Std, &["sync", "poison", "rwlock"], "RwLockReadGuard")));
        assert!(is_borrow_guard(&ty(CrateKind::Core, &["cell"], "RefMut")));
        assert!(is_borrow_guard(&ty(CrateKind::Std, &["io", "stdio"], "StdoutLock")));
        assert!(!is_borrow_guard(&ty(CrateKind::Core, &["cell"], "RefCell")));
        assert!(!is_borrow_guard(&ty(CrateKind::Std, &["sync", "poison", "mutex"], "Mutex")));
        assert!(!is_borrow_guard(&ty(CrateKind::Host, &["sync"], "MyGuard")), "a host's own guard is the host's");
    }
}
