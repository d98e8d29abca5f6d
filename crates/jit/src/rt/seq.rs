//! Helpers JIT code calls for sequences: sorting, reversing and deduplicating elements in place, copying and
//! filling buffers.

/// Sorts `len` elements at `data` (integers, `char`s as `u32`, `bool`s as `u8`: the order of the bits' integer
/// is the type's order, so the result is what `sort`/`sort_unstable` give).
///
/// # Safety
/// `data` points to `len` initialized elements that nothing else accesses during the call.
pub(crate) unsafe extern "C" fn helper_sort<T: Ord>(data: *mut T, len: usize) {
    // SAFETY: the caller passes a live sequence's buffer and length, written by nothing else meanwhile (the
    // lowering admits this only on a writable binding).
    unsafe { std::slice::from_raw_parts_mut(data, len) }.sort_unstable();
}

/// JIT helper: moves the `n` elements of `size` bytes at `data` into the order a stable sort by their keys
/// gives. Element `i`'s keys are its row of `keys`, one per entry of `spec` (`nspec` bytes): a word compared as
/// an unsigned integer, or with `KEY_TEXT` two words — a text's pointer and length — compared by bytes; with
/// `KEY_DESCENDING` (text only: a numeric key comes complemented) larger keys come first. Rows compare key by
/// key, the first unequal key deciding.
///
/// # Safety
/// `data` holds `n` elements of `size` bytes, `keys` `n` rows of the words `spec` describes (text words pointing
/// to live text), `spec` `nspec` bytes; nothing else accesses any of them meanwhile.
pub(crate) unsafe extern "C" fn helper_keyed_sort(
    data: *mut u8,
    n: usize,
    size: usize,
    keys: *const u64,
    spec: *const u8,
    nspec: usize,
) {
    use crate::codegen::{KEY_DESCENDING, KEY_TEXT};
    // SAFETY: as the caller guarantees.
    let spec = unsafe { std::slice::from_raw_parts(spec, nspec) };
    let width: usize = spec.iter().map(|s| if s & KEY_TEXT != 0 { 2 } else { 1 }).sum();
    // SAFETY: as the caller guarantees.
    let (keys, bytes) =
        unsafe { (std::slice::from_raw_parts(keys, n * width), std::slice::from_raw_parts_mut(data, n * size)) };
    let compare = |i: usize, j: usize| {
        let (a, b) = (&keys[i * width..(i + 1) * width], &keys[j * width..(j + 1) * width]);
        let mut at = 0;
        for s in spec {
            let order = if s & KEY_TEXT != 0 {
                // SAFETY: as the caller guarantees, these words are a live text's pointer and length.
                let text =
                    |row: &[u64]| unsafe { std::slice::from_raw_parts(row[at] as *const u8, row[at + 1] as usize) };
                let order = text(a).cmp(text(b));
                at += 2;
                order
            } else {
                let order = a[at].cmp(&b[at]);
                at += 1;
                order
            };
            let order = if s & KEY_DESCENDING != 0 { order.reverse() } else { order };
            if order != std::cmp::Ordering::Equal {
                return order;
            }
        }
        std::cmp::Ordering::Equal
    };
    let mut order: Vec<usize> = (0..n).collect();
    match (width, spec.iter().any(|s| s & KEY_TEXT != 0)) {
        // Numeric keys only (descending ones come complemented): the words in order decide.
        (1, false) => order.sort_by_key(|&i| keys[i]),
        (_, false) => order.sort_by(|&i, &j| keys[i * width..(i + 1) * width].cmp(&keys[j * width..(j + 1) * width])),
        (_, true) => order.sort_by(|&i, &j| compare(i, j)),
    }
    let before = bytes.to_vec();
    for (to, &from) in order.iter().enumerate() {
        bytes[to * size..(to + 1) * size].copy_from_slice(&before[from * size..(from + 1) * size]);
    }
}

/// JIT helper: sorts the `n` strings at `data` (24 bytes each, in the host's `String` layout: the buffer pointer
/// at byte `ptr_at`, the length at `len_at`) by their text, as `sort` on `[String]` does.
///
/// # Safety
/// `data` holds `n` initialized `String`s in that layout; nothing else accesses them meanwhile.
pub(crate) unsafe extern "C" fn helper_sort_strings(data: *mut [u8; 24], n: usize, ptr_at: usize, len_at: usize) {
    // SAFETY: as the caller guarantees.
    let strings = unsafe { std::slice::from_raw_parts_mut(data, n) };
    let text = |s: &[u8; 24]| -> &[u8] {
        let word = |at: usize| usize::from_ne_bytes(s[at..at + 8].try_into().expect("eight bytes"));
        // SAFETY: each element is a live `String`: its buffer holds `len` initialized bytes.
        unsafe { std::slice::from_raw_parts(word(ptr_at) as *const u8, word(len_at)) }
    };
    strings.sort_by(|a, b| text(a).cmp(text(b)));
}

/// JIT helper: sorts the `n` `&str`s at `data` (16 bytes each: pointer, then length) by their text, as `sort` on
/// `[&str]` does.
///
/// # Safety
/// `data` holds `n` `&str`s in that layout, each pointing to live text; nothing else accesses them meanwhile.
pub(crate) unsafe extern "C" fn helper_sort_strs(data: *mut [usize; 2], n: usize) {
    // SAFETY: as the caller guarantees.
    let strs = unsafe { std::slice::from_raw_parts_mut(data, n) };
    // SAFETY: each element points to `len` initialized bytes.
    let text = |s: &[usize; 2]| -> &[u8] { unsafe { std::slice::from_raw_parts(s[0] as *const u8, s[1]) } };
    strs.sort_by(|a, b| text(a).cmp(text(b)));
}

/// JIT helper: whether one of the `n` texts at `data` (elements of `size` bytes, each holding its text's pointer
/// at byte `ptr_at` and its length at `len_at`: a `String` or a `&str`) equals the `needle_len` bytes at
/// `needle`, as `contains` on `[String]` or `[&str]` does.
///
/// # Safety
/// `data` holds `n` such live elements and `needle` `needle_len` initialized bytes.
pub(crate) unsafe extern "C" fn helper_texts_contain(
    data: *const u8,
    n: usize,
    size: usize,
    ptr_at: usize,
    len_at: usize,
    needle: *const u8,
    needle_len: usize,
) -> u8 {
    // SAFETY: as the caller guarantees.
    let needle = unsafe { std::slice::from_raw_parts(needle, needle_len) };
    (0..n).any(|i| {
        // SAFETY: element `i` is in `data` and holds a live text's pointer and length at those offsets.
        let text = unsafe {
            let element = data.add(i * size);
            let ptr = element.add(ptr_at).cast::<*const u8>().read_unaligned();
            let len = element.add(len_at).cast::<usize>().read_unaligned();
            std::slice::from_raw_parts(ptr, len)
        };
        text == needle
    }) as u8
}

/// JIT helper: reverses the order of the `n` elements of `size` bytes at `data`.
///
/// # Safety
/// `data` holds `n` elements of `size` bytes; nothing else accesses them meanwhile.
pub(crate) unsafe extern "C" fn helper_reverse_elements(data: *mut u8, n: usize, size: usize) {
    // SAFETY: as the caller guarantees.
    let bytes = unsafe { std::slice::from_raw_parts_mut(data, n * size) };
    for i in 0..n / 2 {
        let (front, back) = bytes.split_at_mut((n - 1 - i) * size);
        front[i * size..(i + 1) * size].swap_with_slice(&mut back[..size]);
    }
}

/// Copies `bytes` bytes from `src` to `dst`.
///
/// # Safety
/// Both are live buffers of at least `bytes` bytes that do not overlap.
pub(crate) unsafe extern "C" fn helper_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    // SAFETY: the caller copies a sequence into a buffer just allocated for it.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) };
}

/// Sets `len` bytes at `data` to `byte` (`vec![x; n]` and `fill` of one-byte elements: a `memset`, as std does).
///
/// # Safety
/// `data` is a live buffer of at least `len` bytes that nothing else accesses during the call.
pub(crate) unsafe extern "C" fn helper_fill_bytes(data: *mut u8, byte: u8, len: usize) {
    // SAFETY: the caller passes a sequence's buffer (just allocated, or writable) and its length.
    unsafe { std::ptr::write_bytes(data, byte, len) };
}

/// Reverses `len` elements of this width at `data`.
///
/// # Safety
/// As [`helper_sort`].
pub(crate) unsafe extern "C" fn helper_reverse<T>(data: *mut T, len: usize) {
    // SAFETY: as in `helper_sort`.
    unsafe { std::slice::from_raw_parts_mut(data, len) }.reverse();
}

/// `Vec::dedup` on `len` elements of this width at `data` (integers, `char`s, `bool`s: equal values are equal
/// bits): the new length.
///
/// # Safety
/// As [`helper_sort`].
pub(crate) unsafe extern "C" fn helper_dedup<T: PartialEq + Copy>(data: *mut T, len: usize) -> usize {
    // SAFETY: as in `helper_sort`.
    let items = unsafe { std::slice::from_raw_parts_mut(data, len) };
    let mut kept = usize::from(len > 0);
    for read in 1..len {
        if items[read] != items[kept - 1] {
            items[kept] = items[read];
            kept += 1;
        }
    }
    kept
}
