//! Buffers JIT code allocates (the vectors a snippet builds), through the host library's allocator.
//!
//! A snippet's vectors must be allocated by the host library's global allocator: the one it returns becomes the
//! host's `Vec`, which the host's std frees. Every buffer the snippet allocates (or adopts from a host function)
//! is recorded here. Generated code frees a named local's buffer where rustc would drop it when the local is never
//! moved; whatever is still recorded when the snippet ends — normally or by a fault — is freed then. A buffer that
//! leaves the snippet (the hole's value) is released from the record first. The bytes the snippet holds at once
//! count against its memory budget.

use std::collections::HashMap;

use crate::abi::{DropFn, Fault, HostFns, JitContext};

/// The buffers one snippet run owns.
pub struct Heap {
    host: HostFns,
    /// Buffer address → (size, align).
    live: HashMap<usize, (usize, usize)>,
    /// The buffers among `live` that hold a host struct by value ("boxes"), with the struct's drop shim once the
    /// struct in it is complete (`None` while it is being written).
    boxes: HashMap<usize, Option<DropFn>>,
    /// The run's maps ([`crate::rt::map`]), freed when their local's scope ends or with the heap.
    maps: std::collections::HashSet<usize>,
    /// Buffers among `live` taken over from the host's bindings ([`helper_host_buffer_adopt`]), with the bytes of
    /// each that do not count against the budget: what the host held before the run, as on the rustc path,
    /// whose allocator counts only what the snippet allocates.
    uncounted: HashMap<usize, usize>,
    /// Bytes the snippet may hold at once (`usize::MAX`: unlimited), and holds.
    limit: usize,
    held: usize,
}

impl Heap {
    pub fn new(host: HostFns, limit: usize) -> Heap {
        Heap {
            host,
            live: HashMap::new(),
            boxes: HashMap::new(),
            maps: Default::default(),
            uncounted: HashMap::new(),
            limit,
            held: 0,
        }
    }

    /// Writes text through the host's stdout or stderr (so it lands in the host's buffers, in order with what
    /// the host prints), then frees the buffer if the snippet owns it.
    pub(crate) fn print(&mut self, ptr: *const u8, len: usize, stderr: bool) {
        // SAFETY: `ptr` is readable for `len` bytes (a buffer the snippet built).
        unsafe { (self.host.print)(ptr, len, u32::from(stderr)) };
        if let Some((size, align)) = self.unrecord(ptr as usize) {
            // SAFETY: a recorded buffer of this size and alignment, no longer referenced (the text was a temporary).
            unsafe { (self.host.dealloc)(ptr as *mut u8, size, align) };
        }
    }

    /// Grows (or first allocates) a buffer of `old_size` bytes to `new_size` bytes: one of the snippet's own
    /// vectors (`owned`), or a host vector's, which is grown through the same allocator and stays the host's.
    fn grow(
        &mut self,
        ptr: usize,
        old_size: usize,
        new_size: usize,
        align: usize,
        owned: bool,
    ) -> Result<usize, Fault> {
        if new_size > isize::MAX as usize {
            return Err(Fault::CapacityOverflow);
        }
        let grown = new_size.saturating_sub(old_size);
        if owned && self.held.saturating_add(grown) > self.limit {
            return Err(Fault::Memory);
        }
        let ours = owned && self.live.remove(&ptr).is_some();
        let uncounted = if ours { self.uncounted.remove(&ptr) } else { None };
        let old = if old_size == 0 { std::ptr::null_mut() } else { ptr as *mut u8 };
        // SAFETY: `old` is null or a buffer of `old_size` bytes at `align` from the host library's allocator (one
        // this heap recorded, or a host `Vec`'s buffer of exactly its capacity); `new_size` is at most
        // `isize::MAX`; the host function allocates when `old` is null.
        let new = unsafe { (self.host.realloc)(old, old_size, align, new_size) };
        if new.is_null() {
            if ours {
                self.live.insert(ptr, (old_size, align));
                if let Some(u) = uncounted {
                    self.uncounted.insert(ptr, u);
                }
            }
            return Err(Fault::Memory);
        }
        if owned {
            self.held += grown;
            self.live.insert(new as usize, (new_size, align));
            // What was not counted of the old buffer is not counted of the new one either.
            if let Some(u) = uncounted {
                self.uncounted.insert(new as usize, u);
            }
        }
        Ok(new as usize)
    }

    /// The buffer leaves the snippet (it is the hole's value): the host owns it now.
    fn release(&mut self, ptr: usize) {
        self.unrecord(ptr);
    }

    /// Removes a buffer from the record, and what it counted from the bytes held: its size and alignment.
    fn unrecord(&mut self, ptr: usize) -> Option<(usize, usize)> {
        let (size, align) = self.live.remove(&ptr)?;
        let uncounted = self.uncounted.remove(&ptr).unwrap_or(0);
        self.held -= size - uncounted;
        Some((size, align))
    }

    /// The owner of a recorded buffer went out of scope: free it now (a pointer not recorded — a dangling
    /// empty buffer, a host's — is left alone).
    fn free(&mut self, ptr: usize) {
        if let Some((size, align)) = self.unrecord(ptr) {
            // SAFETY: a recorded buffer of this size and alignment, and its only owner is gone.
            unsafe { (self.host.dealloc)(ptr as *mut u8, size, align) };
        }
    }

    /// A buffer made elsewhere with the host library's allocator (a `String` a host function returned) becomes
    /// the snippet's: freed with the others unless it leaves the snippet. Counts against the budget from now on.
    fn adopt(&mut self, ptr: usize, size: usize, align: usize) {
        if size > 0 {
            self.held = self.held.saturating_add(size);
            self.live.insert(ptr, (size, align));
        }
    }

    /// A buffer of a host binding the snippet takes over ([`lacuna_ir::Lifted`]): the run's, freed with the others
    /// unless it goes back, but not counted against the budget (it was the host's before the run).
    fn adopt_host(&mut self, ptr: usize, size: usize, align: usize) {
        if size > 0 {
            self.live.insert(ptr, (size, align));
            self.uncounted.insert(ptr, size);
        }
    }

    /// A new box for a host struct of this size and alignment (its value not written yet).
    fn box_alloc(&mut self, size: usize, align: usize) -> Result<usize, Fault> {
        let ptr = self.grow(0, 0, size.max(1), align, true)?;
        self.boxes.insert(ptr, None);
        Ok(ptr)
    }

    /// The box's struct is complete: dropping the box drops it.
    fn box_ready(&mut self, ptr: usize, drop: DropFn) {
        if let Some(slot) = self.boxes.get_mut(&ptr) {
            *slot = Some(drop);
        }
    }

    /// Drops the struct in a box (if complete) and frees the box.
    fn box_drop(&mut self, ptr: usize) {
        if let Some(drop) = self.boxes.remove(&ptr) {
            if let Some(drop) = drop {
                // SAFETY: a complete struct of the type this shim drops, owned by the box alone.
                unsafe { drop(ptr as *mut u8) };
            }
            self.free(ptr);
        }
    }

    /// Moves the box's struct (`size` bytes) to `dst` and frees the box. False for anything but a complete box.
    fn box_move_out(&mut self, ptr: usize, dst: usize, size: usize) -> bool {
        if !matches!(self.boxes.get(&ptr), Some(Some(_))) {
            return false;
        }
        self.boxes.remove(&ptr);
        // SAFETY: the box holds `size` bytes of a complete struct; `dst` is the host's slot for one (not overlapping
        // the box, which the heap allocated); the struct is moved, so the box is freed without dropping it.
        unsafe { std::ptr::copy_nonoverlapping(ptr as *const u8, dst as *mut u8, size) };
        self.free(ptr);
        true
    }

    /// Drops the struct at `dst` in place (a value of the box's type: a field of a host struct), then moves the
    /// box's struct (`size` bytes) over it and frees the box. False, with nothing done, for anything but a
    /// complete box.
    fn box_replace(&mut self, ptr: usize, dst: usize, size: usize) -> bool {
        let Some(Some(drop)) = self.boxes.get(&ptr).copied() else { return false };
        // SAFETY: `dst` holds a complete value of the box's type, which the caller's place owns and nothing reads
        // again before the box's value is moved over it; the drop shim never unwinds.
        unsafe { drop(dst as *mut u8) };
        self.box_move_out(ptr, dst, size)
    }

    /// Counts `bytes` more the snippet holds outside its buffers (a map's contents), or the fault when that would
    /// pass its budget (nothing counted then).
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), Fault> {
        match self.held.checked_add(bytes) {
            Some(held) if held <= self.limit => {
                self.held = held;
                Ok(())
            }
            _ => Err(Fault::Memory),
        }
    }

    /// The snippet no longer holds `bytes` it was [charged](Self::charge) for.
    pub(crate) fn uncharge(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
    }

    /// A map of the run (`crate::rt::map::helper_map_new`): freed with the heap unless freed before.
    pub(crate) fn own_map(&mut self, m: usize) {
        self.maps.insert(m);
    }

    /// Frees a map of the run (a pointer not recorded is left alone).
    pub(crate) fn free_map(&mut self, m: usize) {
        if self.maps.remove(&m) {
            // SAFETY: a map of this run, recorded once and removed from the record now.
            let held = unsafe { crate::rt::map::free(m) };
            self.uncharge(held);
        }
    }

    /// Frees every buffer the snippet still owns, after dropping the structs in its boxes.
    pub(crate) fn free_all(&mut self) {
        for m in std::mem::take(&mut self.maps) {
            // SAFETY: a map of this run, freed once (the record is emptied).
            unsafe { crate::rt::map::free(m) };
        }
        for (ptr, drop) in self.boxes.drain() {
            if let Some(drop) = drop {
                // SAFETY: a complete struct of the type this shim drops, owned by the box alone.
                unsafe { drop(ptr as *mut u8) };
            }
        }
        for (ptr, (size, align)) in self.live.drain() {
            // SAFETY: each recorded buffer came from `realloc` with this size and alignment and was not released.
            unsafe { (self.host.dealloc)(ptr as *mut u8, size, align) };
        }
        self.uncounted.clear();
        self.held = 0;
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.free_all();
    }
}

/// JIT helper: grows a vector's buffer from `old_cap` to `new_cap` elements of `size` bytes at `align` (`owned`:
/// the snippet's own vector, else a host one). Returns the new buffer, or 0 with the fault recorded in the
/// context.
///
/// # Safety
/// `ctx` is the live context of the running snippet, whose `heap` points to its [`Heap`]; `ptr` is the vector's
/// buffer with capacity `old_cap`.
pub(crate) unsafe extern "C" fn helper_vec_grow(
    ctx: *mut JitContext,
    ptr: usize,
    old_cap: usize,
    new_cap: usize,
    size: usize,
    align: usize,
    owned: usize,
) -> usize {
    // SAFETY: as the caller guarantees; generated code calls this only with its own context.
    let ctx = unsafe { &mut *ctx };
    if ctx.heap == 0 {
        // Not reached: the runner gives every snippet that allocates a heap. A fault, not undefined behaviour.
        ctx.fault = Fault::Memory as u32;
        return 0;
    }
    // SAFETY: the runner sets `heap` to a `Heap` that outlives the call whenever the snippet allocates.
    let heap = unsafe { &mut *(ctx.heap as *mut Heap) };
    let (Some(old_size), Some(new_size)) = (old_cap.checked_mul(size), new_cap.checked_mul(size)) else {
        ctx.fault = Fault::CapacityOverflow as u32;
        return 0;
    };
    match heap.grow(ptr, old_size, new_size, align, owned != 0) {
        Ok(new) => new,
        Err(fault) => {
            ctx.fault = fault as u32;
            if fault == Fault::Memory {
                ctx.fault_values[0] = new_size as u64;
            }
            0
        }
    }
}

/// The running snippet's heap, if it has one.
///
/// # Safety
/// As [`helper_vec_grow`]: `ctx` is the live context of the running snippet.
pub(crate) unsafe fn run_heap<'a>(ctx: *mut JitContext) -> Option<&'a mut Heap> {
    // SAFETY: as the caller guarantees; generated code calls the helpers only with its own context.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: the runner sets `heap` to a `Heap` that outlives the run whenever the snippet allocates.
    (ctx.heap != 0).then(|| unsafe { &mut *(ctx.heap as *mut Heap) })
}

/// JIT helper: the buffer becomes the host's (the hole's value).
///
/// # Safety
/// As [`helper_vec_grow`].
pub(crate) unsafe extern "C" fn helper_vec_release(ctx: *mut JitContext, ptr: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    heap.release(ptr);
}

/// JIT helper: the local owning the buffer at `ptr` went out of scope (or was assigned a new value).
///
/// # Safety
/// As [`helper_vec_grow`]; nothing reads the buffer afterwards.
pub(crate) unsafe extern "C" fn helper_vec_free(ctx: *mut JitContext, ptr: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    heap.free(ptr);
}

/// Calls `f` with the run's heap and each buffer pointer of the `len` strings at `data` (each a `String` in the
/// host's layout whose pointer is at byte `ptr_at`).
///
/// # Safety
/// As [`helper_vec_grow`]; `data` holds `len` initialized elements of `stride` bytes, each with a `String` in the
/// host's layout whose buffer pointer is at `ptr_at` in it.
unsafe fn each_string_buffer(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    ptr_at: usize,
    mut f: impl FnMut(&mut Heap, usize),
) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    for i in 0..len {
        // SAFETY: as the caller guarantees: element `i` is at `data + stride i`, its string's pointer at `ptr_at`.
        let ptr = unsafe { ((data + stride * i + ptr_at) as *const usize).read_unaligned() };
        f(heap, ptr);
    }
}

/// JIT helper: the `String` element (`ptr`, `cap`) of a host's vector is removed from it and dropped: its buffer
/// freed, through the run's record when the run made it, else as the host's (allocated by the host library's
/// allocator, `cap` bytes).
///
/// # Safety
/// As [`helper_vec_grow`]; `ptr` and `cap` are a valid `String`'s, which nothing uses afterwards.
pub(crate) unsafe extern "C" fn helper_string_drop(ctx: *mut JitContext, ptr: usize, cap: usize) {
    // SAFETY: as the caller guarantees: a `String`'s buffer of `cap` bytes.
    unsafe { helper_buffer_drop(ctx, ptr, cap, 1) }
}

/// JIT helper: a vector of strings leaves the snippet (the hole's value): each string's buffer is the host's now
/// (the vector's own buffer is released by [`helper_vec_release`]).
///
/// # Safety
/// As [`each_string_buffer`].
pub(crate) unsafe extern "C" fn helper_strings_release(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    ptr_at: usize,
) {
    // SAFETY: as the caller guarantees.
    unsafe { each_string_buffer(ctx, data, len, stride, ptr_at, |heap, ptr| heap.release(ptr)) }
}

/// JIT helper: the vector of strings owning these went out of scope: each string's buffer is freed (the vector's
/// own by [`helper_vec_free`]).
///
/// # Safety
/// As [`each_string_buffer`]; nothing reads the strings afterwards.
pub(crate) unsafe extern "C" fn helper_strings_free(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    ptr_at: usize,
) {
    // SAFETY: as the caller guarantees.
    unsafe { each_string_buffer(ctx, data, len, stride, ptr_at, |heap, ptr| heap.free(ptr)) }
}

/// JIT helper: the `len` strings at `data` (elements of `stride` bytes, each a `String` in the host's layout with
/// its pointer, capacity and length at `ptr_at`, `cap_at`, `len_at`) were copied bytewise from another vector:
/// each is given a buffer of its own, a copy of its text with its length for capacity (as `String::clone`).
/// Returns 0 with the context's fault set when an allocation fails (the strings not yet copied still point into
/// the source's buffers, which this heap does not record, so dropping the copy frees only what it owns).
///
/// # Safety
/// As [`each_string_buffer`]; each element's text is readable for its length.
pub(crate) unsafe extern "C" fn helper_strings_clone(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    offsets: usize,
) -> usize {
    let at = |i: usize, field: usize| data + stride * i + ((offsets >> (16 * field)) & 0xffff);
    for i in 0..len {
        // SAFETY: as the caller guarantees: element `i` holds a `String` whose words are at these offsets.
        let (ptr, n) =
            unsafe { ((at(i, 0) as *const usize).read_unaligned(), (at(i, 2) as *const usize).read_unaligned()) };
        if n == 0 {
            // An empty `String` owns nothing: a dangling pointer and no capacity, as `String::new`.
            // SAFETY: as above.
            unsafe {
                (at(i, 0) as *mut usize).write_unaligned(1);
                (at(i, 1) as *mut usize).write_unaligned(0);
            }
            continue;
        }
        // SAFETY: as the caller guarantees (`helper_vec_grow`'s contract: the live context of the snippet).
        let new = unsafe { helper_vec_grow(ctx, 1, 0, n, 1, 1, 1) };
        if new == 0 {
            return 0;
        }
        // SAFETY: `new` is a fresh buffer of `n` bytes; the element's text is `n` readable bytes at `ptr`.
        unsafe {
            std::ptr::copy_nonoverlapping(ptr as *const u8, new as *mut u8, n);
            (at(i, 0) as *mut usize).write_unaligned(new);
            (at(i, 1) as *mut usize).write_unaligned(n);
        }
    }
    1
}

/// JIT helper: `dedup` of the `n` texts at `data` (elements of `size` bytes holding their text's pointer at
/// `ptr_at` and length at `len_at`: `String`s, or `&str`s): consecutive equal texts are removed, the first of
/// each run kept, in place, as `Vec::dedup` does; with `owned` (the snippet's own `String`s) each removed one's
/// buffer is freed. Returns the new length.
///
/// # Safety
/// As [`helper_vec_grow`]; `data` holds `n` such live elements nothing else accesses meanwhile.
pub(crate) unsafe extern "C" fn helper_dedup_texts(
    ctx: *mut JitContext,
    data: usize,
    n: usize,
    size: usize,
    ptr_at: usize,
    len_at: usize,
    owned: u8,
) -> usize {
    let word = |i: usize, at: usize| {
        // SAFETY: element `i < n` is `size` bytes at `data + size i`, with a text's pointer and length at `at`.
        unsafe { ((data + size * i + at) as *const usize).read_unaligned() }
    };
    let text = |i: usize| {
        // SAFETY: element `i < n` holds a live text: its pointer and length, read by `word`.
        unsafe { std::slice::from_raw_parts(word(i, ptr_at) as *const u8, word(i, len_at)) }
    };
    if n == 0 {
        return 0;
    }
    let mut kept = 1;
    for i in 1..n {
        if text(i) == text(kept - 1) {
            if owned != 0 {
                // SAFETY: as the caller guarantees.
                if let Some(heap) = unsafe { run_heap(ctx) } {
                    heap.free(word(i, ptr_at));
                }
            }
            continue;
        }
        if i != kept {
            // SAFETY: two distinct elements of the buffer; the one at `kept` was removed or moved before.
            unsafe {
                std::ptr::copy_nonoverlapping((data + size * i) as *const u8, (data + size * kept) as *mut u8, size)
            };
        }
        kept += 1;
    }
    kept
}

/// JIT helper: a host function's `String` or `Vec` result, a buffer of `bytes` bytes aligned to `align` at `ptr`
/// (its capacity times its element's size and alignment), becomes the snippet's.
///
/// # Safety
/// As [`helper_vec_grow`]; `ptr` is a buffer of that layout from the host library's allocator that nothing else
/// owns.
pub(crate) unsafe extern "C" fn helper_vec_adopt(ctx: *mut JitContext, ptr: usize, bytes: usize, align: usize) {
    // (Without a heap — not reached: a snippet whose host call returns a `String` gets one — the buffer leaks.)
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    heap.adopt(ptr, bytes, align);
}

/// JIT helper: the buffer of a host binding the snippet takes over (`bytes` at `align`, its capacity times its
/// element's layout) becomes the run's, uncounted ([`Heap::adopt_host`]).
///
/// # Safety
/// As [`helper_vec_grow`]; `ptr` is a buffer of that layout from the host library's allocator, owned by the
/// binding whose place now holds an empty value.
pub(crate) unsafe extern "C" fn helper_host_buffer_adopt(ctx: *mut JitContext, ptr: usize, bytes: usize, align: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    heap.adopt_host(ptr, bytes, align);
}

/// JIT helper: each of the `len` strings at `data` (elements of `stride` bytes, a `String`'s pointer at `ptr_at`
/// and its capacity at `cap_at` in each) is taken over with the host binding's vector that holds them
/// ([`Heap::adopt_host`]).
///
/// # Safety
/// As [`each_string_buffer`]; the strings' buffers are the host library allocator's, owned by the vector.
pub(crate) unsafe extern "C" fn helper_host_strings_adopt(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    ptr_at: usize,
    cap_at: usize,
) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    // SAFETY: as the caller guarantees.
    unsafe { each_string_parts(data, len, stride, (ptr_at, cap_at), |ptr, cap| heap.adopt_host(ptr, cap, 1)) }
}

/// Calls `f` with the pointer and capacity of each of the `len` strings at `data` (elements of `stride` bytes,
/// each with a `String` in the host's layout whose pointer and capacity are at `ptr_at` and `cap_at` in it).
///
/// # Safety
/// `data` holds `len` initialized elements of that layout.
unsafe fn each_string_parts(
    data: usize,
    len: usize,
    stride: usize,
    (ptr_at, cap_at): (usize, usize),
    mut f: impl FnMut(usize, usize),
) {
    for i in 0..len {
        // SAFETY: as the caller guarantees: element `i` is at `data + stride i`, its string's parts at `ptr_at` and
        // `cap_at`.
        let (ptr, cap) = unsafe {
            let at = data + stride * i;
            (((at + ptr_at) as *const usize).read_unaligned(), ((at + cap_at) as *const usize).read_unaligned())
        };
        f(ptr, cap);
    }
}

/// JIT helper: a buffer (`bytes` at `align`) whose owner is given a new value is dropped: through the run's
/// record when the run holds it, else as the host's (allocated by the host library's allocator).
///
/// # Safety
/// As [`helper_vec_grow`]; `ptr` is a buffer of that layout (or dangling, with no bytes) that nothing uses
/// afterwards.
pub(crate) unsafe extern "C" fn helper_buffer_drop(ctx: *mut JitContext, ptr: usize, bytes: usize, align: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    if heap.live.contains_key(&ptr) {
        heap.free(ptr);
    } else if bytes > 0 {
        // SAFETY: a buffer of `bytes` at `align` from the host's allocator, with no other owner.
        unsafe { (heap.host.dealloc)(ptr as *mut u8, bytes, align) };
    }
}

/// JIT helper: each of the `len` strings at `data` (elements of `stride` bytes, a `String`'s pointer at `ptr_at`
/// and its capacity at `cap_at` in each) is dropped, as [`helper_buffer_drop`] drops a buffer: the elements of a
/// vector given a new value.
///
/// # Safety
/// As [`each_string_buffer`]; nothing uses the strings afterwards.
pub(crate) unsafe extern "C" fn helper_buffer_strings_drop(
    ctx: *mut JitContext,
    data: usize,
    len: usize,
    stride: usize,
    ptr_at: usize,
    cap_at: usize,
) {
    // SAFETY: as the caller guarantees; each is a `String`'s buffer of `cap` bytes, owned by the element alone.
    unsafe {
        each_string_parts(data, len, stride, (ptr_at, cap_at), |ptr, cap| helper_buffer_drop(ctx, ptr, cap, 1));
    }
}

/// JIT helper: a new box for a host struct (`size`, `align`). Returns it, or 0 with the fault recorded.
///
/// # Safety
/// As [`helper_vec_grow`].
pub(crate) unsafe extern "C" fn helper_struct_alloc(ctx: *mut JitContext, size: usize, align: usize) -> usize {
    // SAFETY: as the caller guarantees.
    let result = unsafe { run_heap(ctx) }.ok_or(Fault::Memory).and_then(|heap| heap.box_alloc(size, align));
    match result {
        Ok(ptr) => ptr,
        Err(fault) => {
            // SAFETY: as the caller guarantees.
            let ctx = unsafe { &mut *ctx };
            ctx.fault = fault as u32;
            if fault == Fault::Memory {
                ctx.fault_values[0] = size as u64;
            }
            0
        }
    }
}

/// JIT helper: the struct in the box at `ptr` is complete; `drop` is its drop shim.
///
/// # Safety
/// As [`helper_vec_grow`]; `drop` is a [`DropFn`] for the struct's type.
pub(crate) unsafe extern "C" fn helper_struct_ready(ctx: *mut JitContext, ptr: usize, drop: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    // SAFETY: as the caller guarantees, `drop` is a function of this signature.
    heap.box_ready(ptr, unsafe { std::mem::transmute::<usize, DropFn>(drop) });
}

/// JIT helper: the local owning the box at `ptr` went out of scope.
///
/// # Safety
/// As [`helper_vec_grow`]; nothing reads the struct afterwards.
pub(crate) unsafe extern "C" fn helper_struct_drop(ctx: *mut JitContext, ptr: usize) {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return };
    heap.box_drop(ptr);
}

/// JIT helper: the struct in the box at `ptr` (`size` bytes) becomes the hole's value at `dst`. Returns 0 when
/// `ptr` is not a complete box (not reached: the lowering moves only the snippet's own structs).
///
/// # Safety
/// As [`helper_vec_grow`]; `dst` is writable for `size` bytes; nothing reads the box afterwards.
pub(crate) unsafe extern "C" fn helper_struct_move_out(
    ctx: *mut JitContext,
    ptr: usize,
    dst: usize,
    size: usize,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return 0 };
    u32::from(heap.box_move_out(ptr, dst, size))
}

/// JIT helper: `place = value` of a host struct or enum in a place of the host's (a field through a `&mut`, or a
/// binding by value given a whole new value): the value at `dst` dropped, then the box's at `ptr` (`size` bytes) moved there, the box freed. Returns 0 when `ptr`
/// is not a complete box (not reached: the lowering writes only the run's own structs).
///
/// # Safety
/// As [`helper_vec_grow`]; `dst` is writable for `size` bytes and holds a complete value of the box's type, which
/// the host's place owns; nothing reads the box afterwards.
pub(crate) unsafe extern "C" fn helper_struct_replace(
    ctx: *mut JitContext,
    ptr: usize,
    dst: usize,
    size: usize,
) -> u32 {
    // SAFETY: as the caller guarantees.
    let Some(heap) = (unsafe { run_heap(ctx) }) else { return 0 };
    u32::from(heap.box_replace(ptr, dst, size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Bytes the test allocator holds (the tests in this module run one at a time through `LOCK`).
    static HELD: AtomicUsize = AtomicUsize::new(0);
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    unsafe extern "C" fn test_realloc(ptr: *mut u8, old_size: usize, align: usize, new_size: usize) -> *mut u8 {
        let new = std::alloc::Layout::from_size_align(new_size, align).expect("a layout");
        // SAFETY: as `__lacuna_realloc` in the instrumented host: `ptr` is null or a live buffer of `old_size`.
        let p = unsafe {
            if ptr.is_null() {
                std::alloc::alloc(new)
            } else {
                std::alloc::realloc(ptr, std::alloc::Layout::from_size_align_unchecked(old_size, align), new_size)
            }
        };
        HELD.fetch_add(new_size, Ordering::SeqCst);
        HELD.fetch_sub(if ptr.is_null() { 0 } else { old_size }, Ordering::SeqCst);
        p
    }

    unsafe extern "C" fn test_dealloc(ptr: *mut u8, size: usize, align: usize) {
        // SAFETY: `ptr` came from `test_realloc` with this size and alignment.
        unsafe { std::alloc::dealloc(ptr, std::alloc::Layout::from_size_align_unchecked(size, align)) };
        HELD.fetch_sub(size, Ordering::SeqCst);
    }

    unsafe extern "C" fn test_print(_: *const u8, _: usize, _: u32) {}

    fn host() -> HostFns {
        HostFns { realloc: test_realloc, dealloc: test_dealloc, print: test_print }
    }

    fn context(heap: &mut Heap) -> JitContext {
        JitContext { heap: heap as *mut Heap as u64, ..Default::default() }
    }

    /// Structs a drop shim was called on (the box test's shim counts them).
    static DROPPED: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn counting_drop(p: *mut u8) {
        // SAFETY: the test writes a `u64` into every box it completes.
        assert_eq!(unsafe { p.cast::<u64>().read() }, 7);
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn each_complete_box_is_dropped_once_and_a_moved_one_never() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        DROPPED.store(0, Ordering::SeqCst);
        let mut heap = Heap::new(host(), usize::MAX);
        let mut ctx = context(&mut heap);
        let mut moved_to = 0u64;
        // SAFETY: `ctx.heap` points to `heap`, alive for these calls; each box holds 8 bytes.
        unsafe {
            let boxes: Vec<usize> = (0..4).map(|_| helper_struct_alloc(&mut ctx, 8, 8)).collect();
            assert!(boxes.iter().all(|&b| b != 0));
            // Box 3 is left incomplete (its clone "panicked"): freed, never dropped.
            for &b in &boxes[..3] {
                (b as *mut u64).write(7);
                helper_struct_ready(&mut ctx, b, counting_drop as *const () as usize);
            }
            helper_struct_drop(&mut ctx, boxes[0]);
            assert_eq!(DROPPED.load(Ordering::SeqCst), 1);
            assert_eq!(helper_struct_move_out(&mut ctx, boxes[1], &mut moved_to as *mut u64 as usize, 8), 1);
            assert_eq!(helper_struct_move_out(&mut ctx, boxes[3], &mut moved_to as *mut u64 as usize, 8), 0);
            // Dropping or moving a box twice does nothing (the record is gone).
            helper_struct_drop(&mut ctx, boxes[0]);
            assert_eq!(helper_struct_move_out(&mut ctx, boxes[1], 0, 8), 0);
        }
        assert_eq!(moved_to, 7);
        assert_eq!(DROPPED.load(Ordering::SeqCst), 1);
        drop(heap);
        assert_eq!(DROPPED.load(Ordering::SeqCst), 2, "the box left at the end is dropped with the heap");
        assert_eq!(HELD.load(Ordering::SeqCst), before, "every box is freed");
    }

    #[test]
    fn a_replace_drops_the_old_value_in_place_and_moves_the_box_over_it() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        DROPPED.store(0, Ordering::SeqCst);
        let mut heap = Heap::new(host(), usize::MAX);
        let mut ctx = context(&mut heap);
        // The host's place, holding a complete value the shim checks (7), to be replaced by the box's (7 too, as the
        // shim asserts on every value it drops; the box's is told apart by a second word).
        let mut place = [7u64, 1];
        // SAFETY: `ctx.heap` points to `heap`, alive for these calls; each box holds 16 bytes; `place` is 16 bytes.
        unsafe {
            let incomplete = helper_struct_alloc(&mut ctx, 16, 8);
            let dst = place.as_mut_ptr() as usize;
            // A box that is not complete replaces nothing and drops nothing.
            assert_eq!(helper_struct_replace(&mut ctx, incomplete, dst, 16), 0);
            assert_eq!((place, DROPPED.load(Ordering::SeqCst)), ([7, 1], 0));
            let fresh = helper_struct_alloc(&mut ctx, 16, 8);
            (fresh as *mut [u64; 2]).write([7, 2]);
            helper_struct_ready(&mut ctx, fresh, counting_drop as *const () as usize);
            assert_eq!(helper_struct_replace(&mut ctx, fresh, dst, 16), 1);
            assert_eq!(DROPPED.load(Ordering::SeqCst), 1, "the old value is dropped where it was");
            assert_eq!(place, [7, 2], "the new value is moved over it");
            // The box is gone: a second replace from it does nothing.
            assert_eq!(helper_struct_replace(&mut ctx, fresh, dst, 16), 0);
        }
        drop(heap);
        assert_eq!(DROPPED.load(Ordering::SeqCst), 1, "the moved value is the place's, not dropped with the heap");
        assert_eq!(HELD.load(Ordering::SeqCst), before, "both boxes are freed");
    }

    #[test]
    fn buffers_the_snippet_still_owns_are_freed_and_a_released_one_is_not() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        let mut heap = Heap::new(host(), usize::MAX);
        let mut ctx = context(&mut heap);
        // SAFETY: `ctx.heap` points to `heap`, alive for these calls.
        let (kept, given) = unsafe {
            let a = helper_vec_grow(&mut ctx, 8, 0, 4, 8, 8, 1);
            let a = helper_vec_grow(&mut ctx, a, 4, 8, 8, 8, 1);
            let b = helper_vec_grow(&mut ctx, 8, 0, 16, 8, 8, 1);
            helper_vec_release(&mut ctx, b);
            (a, b)
        };
        assert!(kept != 0 && given != 0);
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 64 + 128);
        drop(heap);
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 128, "only the released buffer is left");
        // SAFETY: the released buffer is ours to free now, with the size it was grown to.
        unsafe { test_dealloc(given as *mut u8, 128, 8) };
    }

    #[test]
    fn an_adopted_buffer_is_freed_with_the_others_unless_released() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        let mut heap = Heap::new(host(), usize::MAX);
        let mut ctx = context(&mut heap);
        // Two `String` buffers a host function made with the same allocator.
        // SAFETY: fresh buffers of these sizes; `ctx.heap` points to `heap`.
        let (dropped, returned) = unsafe {
            let dropped = test_realloc(std::ptr::null_mut(), 0, 1, 10) as usize;
            let returned = test_realloc(std::ptr::null_mut(), 0, 1, 20) as usize;
            helper_vec_adopt(&mut ctx, dropped, 10, 1);
            helper_vec_adopt(&mut ctx, returned, 20, 1);
            // An empty `String`'s dangling pointer owns nothing.
            helper_vec_adopt(&mut ctx, 1, 0, 1);
            helper_vec_release(&mut ctx, returned);
            (dropped, returned)
        };
        assert_ne!(dropped, 0);
        drop(heap);
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 20, "only the released buffer is left");
        // SAFETY: the released buffer is ours to free now.
        unsafe { test_dealloc(returned as *mut u8, 20, 1) };
    }

    #[test]
    fn a_vectors_strings_are_freed_or_released_with_it() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        let mut heap = Heap::new(host(), usize::MAX);
        let mut ctx = context(&mut heap);
        // Two vectors of two strings each (24-byte elements, each string's pointer at byte 8).
        let mut dropped = [0usize; 6];
        let mut returned = [0usize; 6];
        // SAFETY: fresh buffers of these sizes, recorded in `heap` through `ctx`; the arrays hold the strings.
        unsafe {
            for (strings, size) in [(&mut dropped, 10), (&mut returned, 20)] {
                for i in 0..2 {
                    let buffer = test_realloc(std::ptr::null_mut(), 0, 1, size) as usize;
                    helper_vec_adopt(&mut ctx, buffer, size, 1);
                    strings[3 * i + 1] = buffer;
                }
            }
            helper_strings_free(&mut ctx, dropped.as_ptr() as usize, 2, 24, 8);
            helper_strings_release(&mut ctx, returned.as_ptr() as usize, 2, 24, 8);
        }
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 40, "the dropped vector's strings are gone");
        drop(heap);
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 40, "the returned vector's strings are the host's");
        for ptr in [returned[1], returned[4]] {
            // SAFETY: released buffers are ours to free now, with their sizes.
            unsafe { test_dealloc(ptr as *mut u8, 20, 1) };
        }
    }

    #[test]
    fn a_freed_buffer_is_gone_and_stops_counting_and_unknown_pointers_are_left_alone() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        let mut heap = Heap::new(host(), 100);
        let mut ctx = context(&mut heap);
        // SAFETY: `ctx.heap` points to `heap`; the freed buffer is not used afterwards.
        let again = unsafe {
            let a = helper_vec_grow(&mut ctx, 8, 0, 10, 8, 8, 1);
            helper_vec_free(&mut ctx, a);
            // A dangling empty buffer's pointer and an already freed one: nothing to do.
            helper_vec_free(&mut ctx, 8);
            helper_vec_free(&mut ctx, a);
            // The 80 bytes no longer count: another 80 fit the 100-byte budget.
            helper_vec_grow(&mut ctx, 8, 0, 10, 8, 8, 1)
        };
        assert_ne!(again, 0);
        assert_eq!(ctx.fault, 0);
        assert_eq!(HELD.load(Ordering::SeqCst) - before, 80);
        drop(heap);
        assert_eq!(HELD.load(Ordering::SeqCst), before);
    }

    #[test]
    fn growing_past_the_budget_or_isize_max_is_a_fault_and_keeps_the_old_buffer() {
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = HELD.load(Ordering::SeqCst);
        let mut heap = Heap::new(host(), 1000);
        let mut ctx = context(&mut heap);
        // SAFETY: as above.
        let (small, refused, overflow) = unsafe {
            let small = helper_vec_grow(&mut ctx, 8, 0, 100, 8, 8, 1);
            let refused = helper_vec_grow(&mut ctx, small, 100, 200, 8, 8, 1);
            let memory_fault = ctx.fault;
            ctx.fault = 0;
            let overflow = helper_vec_grow(&mut ctx, small, 100, usize::MAX / 4, 8, 8, 1);
            (small, (refused, memory_fault), (overflow, ctx.fault))
        };
        assert_ne!(small, 0);
        assert_eq!(refused, (0, Fault::Memory as u32));
        assert_eq!(overflow, (0, Fault::CapacityOverflow as u32));
        drop(heap);
        assert_eq!(HELD.load(Ordering::SeqCst), before, "the 800-byte buffer was still recorded, and freed");
    }
}
