//! Maps JIT code builds (`HashMap`/`BTreeMap` with text or scalar keys and scalar values). A map lives in this
//! process, owned by the run's [`Heap`](crate::rt::heap::Heap) like the snippet's buffers, until its local's scope
//! ends or the run ends; as the hole's value it is handed to the host as the host's own map type, built by the
//! writer the instrumented host exports for the hole (`__lacuna_map_writer_*`).
//!
//! Keys are text (its bytes) or a scalar's bits; values are a scalar's bits, zero-extended to a word. Its entries
//! are read in key order ([`helper_map_entries`]): a `BTreeMap`'s order, and one of the orders a `HashMap` may
//! have, so one representation serves both map types.
//!
//! A map's contents count against the snippet's memory budget like its buffers ([`Heap::charge`](crate::rt::heap::Heap::charge)): each entry
//! its slot and its key's bytes, each string pushed onto a map's vector its bytes and its slot, from the change
//! that adds them until they are removed or the map is freed. A change past the budget adds nothing and faults.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crate::abi::JitContext;
use crate::rt::heap::run_heap;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Text(Box<[u8]>),
    Word(u64),
}

/// One map of a run.
#[derive(Debug, Default)]
pub struct JitMap {
    entries: HashMap<Key, u64>,
    /// The entries in key order as `[key word, key word, value]` ([`helper_map_entries`]), while the map has not
    /// changed since they were listed.
    listed: Option<Vec<[u64; 3]>>,
    /// For a map of vectors of strings (`BTreeMap<char, Vec<String>>`, grown by [`helper_map_push`]): each entry's
    /// value is an index here, the vector's strings as their bytes.
    lists: Vec<Vec<Box<[u8]>>>,
    /// The bytes of its contents charged to the run's heap ([`Heap::charge`](crate::rt::heap::Heap::charge)),
    /// given back when it is freed.
    held: usize,
}

/// What an entry holds, counted against the budget: its slot (key, value and the table's overhead) and a text
/// key's bytes.
fn entry_bytes(k: &Key) -> usize {
    const SLOT: usize = std::mem::size_of::<(Key, u64)>() + std::mem::size_of::<usize>();
    SLOT + match k {
        Key::Text(bytes) => bytes.len(),
        Key::Word(_) => 0,
    }
}

/// Charges `bytes` more of a map's contents (its `held`) to the run's budget; false, with the context's fault set,
/// when that would pass it (nothing is charged then).
///
/// # Safety
/// `ctx` is the live context of the running snippet.
unsafe fn charge(ctx: *mut JitContext, held: &mut usize, bytes: usize) -> bool {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return true };
    match heap.charge(bytes) {
        Ok(()) => {
            *held += bytes;
            true
        }
        Err(fault) => {
            // SAFETY: as the caller guarantees.
            let ctx = unsafe { &mut *ctx };
            ctx.fault = fault as u32;
            ctx.fault_values[0] = bytes as u64;
            false
        }
    }
}

/// Gives back `bytes` of map `m`'s contents (an entry removed).
///
/// # Safety
/// As [`charge`].
unsafe fn uncharge(ctx: *mut JitContext, m: &mut JitMap, bytes: usize) {
    let bytes = bytes.min(m.held);
    m.held -= bytes;
    // SAFETY: as the caller guarantees.
    if let Some(heap) = unsafe { run_heap(ctx) } {
        heap.uncharge(bytes);
    }
}

impl JitMap {
    /// The map is about to change: its listing is stale.
    fn changing(&mut self) -> &mut HashMap<Key, u64> {
        self.listed = None;
        &mut self.entries
    }
}

/// The writer the instrumented host exports for a hole whose value is a map: builds the host's map at `out` from
/// `n` keys (text as `[pointer, length]`, a scalar as `[bits, 0]`) and values (bits).
pub type MapWriter = unsafe extern "C" fn(out: *mut u8, n: usize, keys: *const [usize; 2], values: *const u64);

/// A key from the JIT's arguments: text when `data` is not null.
///
/// # Safety
/// `data`, when not null, is readable for `len` bytes.
unsafe fn key(data: *const u8, len: usize, word: u64) -> Key {
    if data.is_null() {
        Key::Word(word)
    } else {
        // SAFETY: as the caller guarantees.
        Key::Text(unsafe { std::slice::from_raw_parts(data, len) }.into())
    }
}

/// The map at `m`.
///
/// # Safety
/// `m` is a map [`helper_map_new`] made for this run, not yet freed.
unsafe fn map<'a>(m: usize) -> &'a mut JitMap {
    // SAFETY: as the caller guarantees.
    unsafe { &mut *(m as *mut JitMap) }
}

/// JIT helper: a new, empty map the run owns.
///
/// # Safety
/// `ctx` is the live context of the running snippet.
pub(crate) unsafe extern "C" fn helper_map_new(ctx: *mut JitContext) -> usize {
    let m = Box::into_raw(Box::<JitMap>::default()) as usize;
    // SAFETY: as the caller guarantees.
    match unsafe { run_heap(ctx) } {
        Some(heap) => heap.own_map(m),
        // Not reached (a snippet with a map gets a heap); freed here rather than leaked.
        // SAFETY: made just above, owned by nobody else.
        None => drop(unsafe { Box::from_raw(m as *mut JitMap) }),
    }
    m
}

/// JIT helper: where the value of a key is (null when absent).
///
/// # Safety
/// As [`map`] and [`key`].
pub(crate) unsafe extern "C" fn helper_map_find(m: usize, data: *const u8, len: usize, word: u64) -> *mut u64 {
    // SAFETY: as the caller guarantees.
    let (m, k) = unsafe { (map(m), key(data, len, word)) };
    m.entries.get_mut(&k).map_or(std::ptr::null_mut(), |v| v as *mut u64)
}

/// JIT helper: where the value of a key is, `default` inserted first when it is absent (`entry(k).or_insert(d)`).
/// Valid until the map next changes. Null, with the context's fault set, when the new entry would pass the
/// memory budget.
///
/// # Safety
/// As [`map`], [`key`] and [`charge`].
pub(crate) unsafe extern "C" fn helper_map_slot(
    ctx: *mut JitContext,
    m: usize,
    data: *const u8,
    len: usize,
    word: u64,
    default: u64,
) -> *mut u64 {
    // SAFETY: as the caller guarantees.
    let (m, k) = unsafe { (map(m), key(data, len, word)) };
    // The value may change through the slot: the listing is stale either way.
    m.listed = None;
    match m.entries.entry(k) {
        Entry::Occupied(e) => e.into_mut() as *mut u64,
        Entry::Vacant(e) => {
            // SAFETY: as the caller guarantees.
            if !unsafe { charge(ctx, &mut m.held, entry_bytes(e.key())) } {
                return std::ptr::null_mut();
            }
            e.insert(default) as *mut u64
        }
    }
}

/// JIT helper: `m.entry(k).or_default().push(s)` of a map of vectors of strings: an empty vector inserted at the
/// key when it is absent, then a copy of the `len` bytes at `text` pushed onto it (the caller frees its own).
/// Nothing changes, and the context's fault is set, when that would pass the memory budget.
///
/// # Safety
/// As [`map`], [`key`] and [`charge`]; `text` is readable for `len` bytes; the map holds vectors of strings.
pub(crate) unsafe extern "C" fn helper_map_push(
    ctx: *mut JitContext,
    m: usize,
    data: *const u8,
    len: usize,
    word: u64,
    text: *const u8,
    text_len: usize,
) {
    // SAFETY: as the caller guarantees.
    let (m, k) = unsafe { (map(m), key(data, len, word)) };
    // SAFETY: as the caller guarantees.
    let bytes: Box<[u8]> = unsafe { std::slice::from_raw_parts(text, text_len) }.into();
    let string = std::mem::size_of::<Box<[u8]>>() + bytes.len();
    let index = match m.entries.entry(k) {
        Entry::Occupied(e) => {
            // SAFETY: as the caller guarantees.
            if !unsafe { charge(ctx, &mut m.held, string) } {
                return;
            }
            *e.get()
        }
        Entry::Vacant(e) => {
            let cost = entry_bytes(e.key()) + std::mem::size_of::<Vec<Box<[u8]>>>() + string;
            // SAFETY: as the caller guarantees.
            if !unsafe { charge(ctx, &mut m.held, cost) } {
                return;
            }
            m.lists.push(Vec::new());
            *e.insert((m.lists.len() - 1) as u64)
        }
    };
    m.listed = None;
    m.lists[index as usize].push(bytes);
}

/// JIT helper: `insert` (`remove` when `remove` is 1): whether the key was there, its old value written to `old`.
/// A new key that would pass the memory budget is not inserted, and the context's fault is set.
///
/// # Safety
/// As [`map`], [`key`] and [`charge`]; `old` is writable.
pub(crate) unsafe extern "C" fn helper_map_change(
    ctx: *mut JitContext,
    m: usize,
    data: *const u8,
    len: usize,
    word: u64,
    value: u64,
    remove: u32,
    old: *mut u64,
) -> u8 {
    // SAFETY: as the caller guarantees.
    let (m, k) = unsafe { (map(m), key(data, len, word)) };
    let bytes = entry_bytes(&k);
    let previous = if remove != 0 {
        let previous = m.changing().remove(&k);
        if previous.is_some() {
            // SAFETY: as the caller guarantees.
            unsafe { uncharge(ctx, m, bytes) };
        }
        previous
    } else {
        m.listed = None;
        match m.entries.entry(k) {
            Entry::Occupied(mut e) => Some(e.insert(value)),
            Entry::Vacant(e) => {
                // SAFETY: as the caller guarantees.
                if !unsafe { charge(ctx, &mut m.held, bytes) } {
                    return 0;
                }
                e.insert(value);
                None
            }
        }
    };
    if let Some(v) = previous {
        // SAFETY: as the caller guarantees.
        unsafe { old.write(v) };
    }
    u8::from(previous.is_some())
}

/// JIT helper: the map's entries in key order, as `[key word, key word, value]` each (text keys as pointer and
/// length into the map, scalar keys as their bits and 0), as many as [`helper_map_len`] says. `signed_bits` is the
/// width of a signed integer key (its bits are sign-extended to order them), 0 for any other key. Valid until the
/// map next changes: the JIT reads it right away, and a map its code iterates cannot change meanwhile (rustc's
/// borrow check holds every snippet that lists one).
///
/// # Safety
/// As [`map`].
pub(crate) unsafe extern "C" fn helper_map_entries(m: usize, signed_bits: u32) -> *const [u64; 3] {
    // SAFETY: as the caller guarantees.
    let m = unsafe { map(m) };
    if m.listed.is_none() {
        let mut entries: Vec<(&Key, u64)> = m.entries.iter().map(|(k, v)| (k, *v)).collect();
        let signed = |w: u64| {
            let shift = 64 - signed_bits.clamp(1, 64);
            ((w << shift) as i64) >> shift
        };
        entries.sort_by(|(a, _), (b, _)| match (a, b) {
            (Key::Text(a), Key::Text(b)) => a.cmp(b),
            (Key::Word(a), Key::Word(b)) if signed_bits != 0 => signed(*a).cmp(&signed(*b)),
            (Key::Word(a), Key::Word(b)) => a.cmp(b),
            // One map's keys are all of one type.
            (Key::Text(_), Key::Word(_)) => std::cmp::Ordering::Less,
            (Key::Word(_), Key::Text(_)) => std::cmp::Ordering::Greater,
        });
        let listed = entries
            .into_iter()
            .map(|(k, v)| match k {
                Key::Text(bytes) => [bytes.as_ptr() as u64, bytes.len() as u64, v],
                Key::Word(w) => [*w, 0, v],
            })
            .collect();
        m.listed = Some(listed);
    }
    m.listed.as_ref().map_or(std::ptr::null(), |l| l.as_ptr())
}

/// JIT helper: how many entries.
///
/// # Safety
/// As [`map`].
pub(crate) unsafe extern "C" fn helper_map_len(m: usize) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { map(m) }.entries.len()
}

/// JIT helper: the local owning the map went out of scope.
///
/// # Safety
/// As [`map`]; nothing uses the map afterwards.
pub(crate) unsafe extern "C" fn helper_map_free(ctx: *mut JitContext, m: usize) {
    // SAFETY: as the caller guarantees.
    if let Some(heap) = unsafe { run_heap(ctx) } {
        heap.free_map(m);
    }
}

/// JIT helper: the map becomes the hole's value: the host's writer builds the host's map at `out`, then the map is
/// freed.
///
/// # Safety
/// As [`map`]; `writer` is the host's [`MapWriter`] for the hole's type, `out` the host's slot for it.
pub(crate) unsafe extern "C" fn helper_map_give(ctx: *mut JitContext, m: usize, writer: usize, out: *mut u8) {
    // SAFETY: as the caller guarantees.
    let jm = unsafe { map(m) };
    let mut keys = Vec::with_capacity(jm.entries.len());
    let mut values = Vec::with_capacity(jm.entries.len());
    // A vector of strings is handed over as the address of `[count, address of its strings' [pointer, length]]`
    // (`StringList`), which the host's writer copies into a `Vec<String>`.
    let texts: Vec<Vec<[usize; 2]>> =
        jm.lists.iter().map(|list| list.iter().map(|t| [t.as_ptr() as usize, t.len()]).collect()).collect();
    let heads: Vec<[usize; 2]> = texts.iter().map(|t| [t.len(), t.as_ptr() as usize]).collect();
    let strings = !jm.lists.is_empty();
    for (k, v) in &jm.entries {
        keys.push(match k {
            Key::Text(bytes) => [bytes.as_ptr() as usize, bytes.len()],
            Key::Word(w) => [*w as usize, 0],
        });
        values.push(if strings { &heads[*v as usize] as *const [usize; 2] as u64 } else { *v });
    }
    // SAFETY: as the caller guarantees; the keys' bytes live in the map until it is freed below.
    unsafe {
        let writer = std::mem::transmute::<usize, MapWriter>(writer);
        writer(out, keys.len(), keys.as_ptr(), values.as_ptr());
        helper_map_free(ctx, m);
    }
}

/// Frees a map (the heap's records call this): the bytes of its contents it had charged to the heap.
///
/// # Safety
/// `m` came from [`helper_map_new`] and is freed once.
pub(crate) unsafe fn free(m: usize) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { Box::from_raw(m as *mut JitMap) }.held
}
