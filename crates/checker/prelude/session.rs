
#[doc(hidden)]
pub mod __session {
    //! A session's locals between its turns (`lacuna serve`'s sessions): each value boxed in this runtime (one
    //! per process), by session and slot. Only the hosts Lacuna generates for turns call these (safe mode denies
    //! snippets `lacuna::__*`).
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    struct Held {
        ptr: usize,
        /// Drops the box at `ptr` (monomorphized in the host that kept it; libraries are never unloaded).
        drop: unsafe fn(usize),
    }

    static STORE: Mutex<BTreeMap<(u64, u32), Held>> = Mutex::new(BTreeMap::new());

    /// SAFETY (caller): `ptr` came from `Box::<T>::into_raw` and is dropped once.
    unsafe fn drop_boxed<T>(ptr: usize) {
        // SAFETY: see the function's contract.
        drop(unsafe { Box::from_raw(ptr as *mut T) });
    }

    /// Moves the value out of `slot`.
    ///
    /// # Safety
    /// The slot holds a `T` put there by `keep::<T>`: a turn's host declares each local with the type it was
    /// kept at.
    pub unsafe fn take<T>(session: u64, slot: u32) -> T {
        let held = STORE.lock().unwrap_or_else(|e| e.into_inner()).remove(&(session, slot));
        let held = held.expect("a session local is kept between turns");
        // SAFETY: the slot holds a boxed `T` (the function's contract); removing it from the store makes this the
        // only owner.
        *unsafe { Box::from_raw(held.ptr as *mut T) }
    }

    /// Keeps `value` in `slot` until a later turn takes it (dropping what the slot held).
    pub fn keep<T>(session: u64, slot: u32, value: T) {
        let held = Held { ptr: Box::into_raw(Box::new(value)) as usize, drop: drop_boxed::<T> };
        let old = STORE.lock().unwrap_or_else(|e| e.into_inner()).insert((session, slot), held);
        if let Some(old) = old {
            // SAFETY: `old` was kept by `keep` with its own drop function, and the store no longer has it.
            unsafe { (old.drop)(old.ptr) }
        }
    }

    /// Drops every value the session keeps.
    #[no_mangle]
    pub extern "C" fn lacuna_session_close(session: u64) {
        let held: Vec<Held> = {
            let mut store = STORE.lock().unwrap_or_else(|e| e.into_inner());
            let keys: Vec<(u64, u32)> = store.range((session, 0)..=(session, u32::MAX)).map(|(k, _)| *k).collect();
            keys.iter().filter_map(|k| store.remove(k)).collect()
        };
        for old in held {
            // SAFETY: each was kept by `keep` with its own drop function, and the store no longer has it.
            unsafe { (old.drop)(old.ptr) }
        }
    }

    /// Forgets a slot without dropping its value: its type is no longer the one later turns would name.
    #[no_mangle]
    pub extern "C" fn lacuna_session_forget(session: u64, slot: u32) {
        STORE.lock().unwrap_or_else(|e| e.into_inner()).remove(&(session, slot));
    }
}
