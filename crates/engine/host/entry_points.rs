// What every instrumented host library exports besides the host's own items: the hook installer, `main` as
// Lacuna calls it, and the functions JIT code reaches the host's std through (its allocator, its stdout, the
// layout of its `Vec`, `Option`s in its layout, map writers). Appended to the instrumented host as text
// (`lacuna_engine's instrument::ENTRY_POINTS`), so it is compiled with the host and sees its items;
// it is a file of its own so that editors, rustfmt and readers see it as Rust. The engine's tests compile it with
// the runtime under the workspace's unsafe lints (`runtime_lints`).
//
// Every function here is called by Lacuna (the engine, or JIT code it compiled), never by the host or a snippet:
// each one's `# Safety` says what its caller guarantees.

/// Installs the engine's hook for this library's holes.
///
/// # Safety
///
/// `hook` and `context` are the engine's, valid for the rest of the process (`lacuna::__private::install`).
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_install(hook: ::lacuna::__private::Hook, context: *const ()) {
    ::lacuna::__private::report_host_positions(::core::file!(), __LACUNA_POSITIONS);
    // SAFETY: as this function's caller guarantees.
    unsafe { ::lacuna::__private::install(hook, context) }
}
#[doc(hidden)]
#[no_mangle]
pub extern "C" fn __lacuna_main(stack_bytes: usize) -> i32 {
    ::lacuna::__private::run_main(main, stack_bytes)
}
// `Option<S>` in this rustc's layout, for the JIT's results (`lacuna_ir::option_writer_symbol`).
macro_rules! __lacuna_option_writers {
    ($($t:ty => $name:ident),*) => {$(
        #[doc(hidden)]
        #[no_mangle]
        #[allow(improper_ctypes_definitions)]
        /// Writes `Some(value)` (or `None` when `is_some` is 0) to `out` in this rustc's layout.
        ///
        /// # Safety
        ///
        /// `out` is valid for writes of the `Option` and holds nothing that needs dropping.
        pub unsafe extern "C" fn $name(out: *mut ::core::option::Option<$t>, is_some: u8, value: $t) {
            // SAFETY: as this function's caller guarantees.
            unsafe { ::core::ptr::write(out, if is_some != 0 { ::core::option::Option::Some(value) } else { ::core::option::Option::None }) }
        }
    )*};
}
__lacuna_option_writers!(
    i8 => __lacuna_option_write_i8, i16 => __lacuna_option_write_i16, i32 => __lacuna_option_write_i32,
    i64 => __lacuna_option_write_i64, isize => __lacuna_option_write_isize, u8 => __lacuna_option_write_u8,
    u16 => __lacuna_option_write_u16, u32 => __lacuna_option_write_u32, u64 => __lacuna_option_write_u64,
    usize => __lacuna_option_write_usize, f32 => __lacuna_option_write_f32, f64 => __lacuna_option_write_f64,
    bool => __lacuna_option_write_bool, char => __lacuna_option_write_char
);
/// Writes a `&str` hole value: text the JIT points to that outlives the hole (the host's, or a literal's, which
/// the JIT keeps for the process's life).
///
/// # Safety
///
/// `out` is valid for a write of a `&str`; `ptr` points to `len` bytes of UTF-8 that outlive every use the host
/// makes of the value (rustc's borrow check of the snippet says so).
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_write_str(out: *mut &'static str, ptr: *const u8, len: usize) {
    // SAFETY: the caller's guarantee.
    unsafe { ::core::ptr::write(out, ::core::str::from_utf8_unchecked(::core::slice::from_raw_parts(ptr, len))) }
}
/// Writes an `Option<&str>` hole value, as [`__lacuna_write_str`] writes its payload.
///
/// # Safety
///
/// As for [`__lacuna_write_str`] when `is_some` is non-zero; `out` is valid for a write of an `Option<&str>`.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_option_write_str(out: *mut Option<&'static str>, is_some: u8, ptr: *const u8, len: usize) {
    let value = match is_some {
        0 => ::core::option::Option::None,
        // SAFETY: the caller's guarantee (a `None`'s parts are zeros, never read).
        _ => ::core::option::Option::Some(unsafe {
            ::core::str::from_utf8_unchecked(::core::slice::from_raw_parts(ptr, len))
        }),
    };
    // SAFETY: `out` is valid for the write.
    unsafe { ::core::ptr::write(out, value) }
}
/// Grows, shrinks or allocates a buffer of the JIT's with this library's global allocator.
///
/// # Safety
///
/// `ptr` is null (with `old_size` 0) or a block this allocator gave with `old_size` bytes and alignment `align`.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_realloc(ptr: *mut u8, old_size: usize, align: usize, new_size: usize) -> *mut u8 {
    // Buffers of the JIT's vectors come from this library's global allocator, so the host's std can free the
    // ones it gets. Null when refused (or for a layout that cannot exist), which the JIT reports as a fault.
    let Ok(new) = ::std::alloc::Layout::from_size_align(new_size, align) else { return ::core::ptr::null_mut() };
    if new_size == 0 {
        return ::core::ptr::null_mut();
    }
    // SAFETY: `new` is a valid layout of non-zero size; for a reallocation, `ptr` came from this allocator with
    // `old_size` and `align` (the caller's guarantee), so that layout exists.
    unsafe {
        if ptr.is_null() || old_size == 0 {
            ::std::alloc::alloc(new)
        } else {
            ::std::alloc::realloc(ptr, ::std::alloc::Layout::from_size_align_unchecked(old_size, align), new_size)
        }
    }
}
/// Writes `len` bytes at `ptr` to this library's stdout, or its stderr when `stderr` is not 0.
///
/// # Safety
///
/// `ptr` is valid for reads of `len` bytes.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_print(ptr: *const u8, len: usize, stderr: u32) {
    // The JIT's `print!`/`println!` write through this library's std, in order with the host's own output. Errors
    // are ignored (a panic must not unwind into JIT code).
    use ::std::io::Write as _;
    // SAFETY: as this function's caller guarantees.
    let bytes = unsafe { ::core::slice::from_raw_parts(ptr, len) };
    let _ = if stderr != 0 { ::std::io::stderr().write_all(bytes) } else { ::std::io::stdout().write_all(bytes) };
}
/// Frees a buffer of the JIT's.
///
/// # Safety
///
/// `ptr` is a block this library's allocator gave with `size` bytes and alignment `align` (nothing when `size` is
/// 0).
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_dealloc(ptr: *mut u8, size: usize, align: usize) {
    if size != 0 {
        // SAFETY: as this function's caller guarantees; the layout existed when the block was allocated.
        unsafe { ::std::alloc::dealloc(ptr, ::std::alloc::Layout::from_size_align_unchecked(size, align)) }
    }
}
/// Writes to `out[0]` and `out[1]` the byte offsets of this std's `Vec` buffer pointer and length (`usize::MAX`
/// for either where it cannot tell).
///
/// # Safety
///
/// `out` is valid for writes of two `usize`s.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn __lacuna_vec_layout(out: *mut usize) {
    // Where this std's `Vec` keeps its buffer pointer and its length (private fields): read back from a known one.
    let mut v: ::std::vec::Vec<u64> = ::std::vec::Vec::with_capacity(5);
    v.extend([7u64, 8, 9]);
    let (ptr, len) = if ::core::mem::size_of::<::std::vec::Vec<u64>>() == 3 * ::core::mem::size_of::<usize>() {
        // SAFETY: the size check above: a `Vec<u64>` here is three words, and every bit pattern is a `usize`.
        let words: [usize; 3] = unsafe { ::core::mem::transmute_copy(&v) };
        let at =
            |x: usize| words.iter().position(|&w| w == x).map_or(usize::MAX, |i| i * ::core::mem::size_of::<usize>());
        (at(v.as_ptr() as usize), at(v.len()))
    } else {
        (usize::MAX, usize::MAX)
    };
    // SAFETY: as this function's caller guarantees.
    unsafe {
        *out = ptr;
        *out.add(1) = len;
    }
}
// The shims through which JIT code handles host structs by value (`__lacuna_shims_*` below, read by
// `codegen::StructShims`): drop always; clone, `==`, `Display` and `Debug` where the struct implements the trait,
// else 0. Which applies is decided by method resolution on the concrete type ("autoref specialization"): the
// `&Probe<T>` impls need the trait, the `Probe<T>` fallbacks do not.
#[doc(hidden)]
mod __lacuna_struct_shims {
    use ::lacuna::__private::{run_snippet, RawRun};
    pub struct Probe<T>(pub ::core::marker::PhantomData<T>);
    /// Drops the `T` at `p` in place.
    ///
    /// # Safety
    ///
    /// `p` points to a valid `T` that nothing uses or drops afterwards.
    pub unsafe extern "C" fn drop<T>(p: *mut u8) {
        // A panicking `Drop` must not unwind into JIT code (or out of an `extern "C"` function).
        // SAFETY: as this function's caller guarantees.
        let _ = ::std::panic::catch_unwind(::core::panic::AssertUnwindSafe(|| unsafe {
            ::core::ptr::drop_in_place(p.cast::<T>())
        }));
    }
    /// Runs `make` under the run's budgets and writes the `String` it made to `out` as (pointer, capacity, length),
    /// its ownership passing to the reader.
    ///
    /// # Safety
    ///
    /// `run` is the run record `run_snippet` requires, and `out` is valid for writes of three words.
    unsafe fn text(run: *mut RawRun, out: *mut [usize; 3], make: impl FnOnce() -> ::std::string::String) -> u32 {
        // SAFETY: as this function's caller guarantees.
        unsafe {
            run_snippet(run, move || {
                let mut s = ::core::mem::ManuallyDrop::new(make());
                ::core::ptr::write(out, [s.as_mut_ptr() as usize, s.capacity(), s.len()])
            })
        }
    }
    pub trait CloneYes {
        fn clone_shim(&self) -> usize;
    }
    impl<T: Clone> CloneYes for &Probe<T> {
        fn clone_shim(&self) -> usize {
            /// # Safety
            ///
            /// `run` is a run record; `src` points to a valid `T`; `out` is valid for writes of a `T`.
            unsafe extern "C" fn shim<T: Clone>(run: *mut RawRun, out: *mut u8, src: *const u8) -> u32 {
                // SAFETY: as this function's caller guarantees.
                unsafe { run_snippet(run, move || ::core::ptr::write(out.cast::<T>(), (*src.cast::<T>()).clone())) }
            }
            shim::<T> as usize
        }
    }
    pub trait CloneNo {
        fn clone_shim(&self) -> usize {
            0
        }
    }
    impl<T> CloneNo for Probe<T> {}
    pub trait EqYes {
        fn eq_shim(&self) -> usize;
    }
    impl<T: PartialEq> EqYes for &Probe<T> {
        fn eq_shim(&self) -> usize {
            /// # Safety
            ///
            /// `run` is a run record; `a` and `b` point to valid `T`s; `out` is valid for a write of a byte.
            unsafe extern "C" fn shim<T: PartialEq>(run: *mut RawRun, out: *mut u8, a: *const u8, b: *const u8) -> u32 {
                // SAFETY: as this function's caller guarantees.
                unsafe { run_snippet(run, move || *out = u8::from(*a.cast::<T>() == *b.cast::<T>())) }
            }
            shim::<T> as usize
        }
    }
    pub trait EqNo {
        fn eq_shim(&self) -> usize {
            0
        }
    }
    impl<T> EqNo for Probe<T> {}
    pub trait OrdYes {
        fn ord_shim(&self) -> usize;
    }
    impl<T: PartialOrd> OrdYes for &Probe<T> {
        fn ord_shim(&self) -> usize {
            /// # Safety
            ///
            /// `run` is a run record; `a` and `b` point to valid `T`s; `out` is valid for a write of a byte.
            unsafe extern "C" fn shim<T: PartialOrd>(
                run: *mut RawRun,
                out: *mut u8,
                a: *const u8,
                b: *const u8,
                op: u32,
            ) -> u32 {
                // SAFETY: as this function's caller guarantees.
                unsafe {
                    run_snippet(run, move || {
                        let (a, b) = (&*a.cast::<T>(), &*b.cast::<T>());
                        // The operator itself (an impl may write `lt` and the rest apart from `partial_cmp`).
                        *out = u8::from(match op {
                            0 => a < b,
                            1 => a <= b,
                            2 => a > b,
                            _ => a >= b,
                        })
                    })
                }
            }
            shim::<T> as usize
        }
    }
    pub trait OrdNo {
        fn ord_shim(&self) -> usize {
            0
        }
    }
    impl<T> OrdNo for Probe<T> {}
    pub trait DisplayYes {
        fn display_shim(&self) -> usize;
    }
    impl<T: ::core::fmt::Display> DisplayYes for &Probe<T> {
        fn display_shim(&self) -> usize {
            /// # Safety
            ///
            /// `run` is a run record; `p` points to a valid `T`; `out` is valid for writes of three words.
            unsafe extern "C" fn shim<T: ::core::fmt::Display>(
                run: *mut RawRun,
                out: *mut [usize; 3],
                p: *const u8,
                alternate: u32,
            ) -> u32 {
                // SAFETY: as this function's caller guarantees.
                let value = unsafe { &*p.cast::<T>() };
                // SAFETY: as this function's caller guarantees.
                unsafe {
                    text(run, out, move || if alternate != 0 { format!("{value:#}") } else { format!("{value}") })
                }
            }
            shim::<T> as usize
        }
    }
    pub trait DisplayNo {
        fn display_shim(&self) -> usize {
            0
        }
    }
    impl<T> DisplayNo for Probe<T> {}
    pub trait DebugYes {
        fn debug_shim(&self) -> usize;
    }
    impl<T: ::core::fmt::Debug> DebugYes for &Probe<T> {
        fn debug_shim(&self) -> usize {
            /// # Safety
            ///
            /// `run` is a run record; `p` points to a valid `T`; `out` is valid for writes of three words.
            unsafe extern "C" fn shim<T: ::core::fmt::Debug>(
                run: *mut RawRun,
                out: *mut [usize; 3],
                p: *const u8,
                alternate: u32,
            ) -> u32 {
                // SAFETY: as this function's caller guarantees.
                let value = unsafe { &*p.cast::<T>() };
                // SAFETY: as this function's caller guarantees.
                unsafe {
                    text(run, out, move || if alternate != 0 { format!("{value:#?}") } else { format!("{value:?}") })
                }
            }
            shim::<T> as usize
        }
    }
    pub trait DebugNo {
        fn debug_shim(&self) -> usize {
            0
        }
    }
    impl<T> DebugNo for Probe<T> {}
    // A map the JIT hands over: the host's own map built from its keys and values (`lacuna_jit`'s `rt::map`).
    pub trait Word: Sized {
        /// The value whose bits are the low bytes of `w`.
        ///
        /// # Safety
        ///
        /// Those bytes are a valid `Self` (the JIT wrote a value of this type there).
        unsafe fn from_word(w: u64) -> Self;
    }
    macro_rules! words { ($($t:ty),*) => {$(
        // SAFETY: as `from_word`'s caller guarantees; `Self` is at most 8 bytes.
        impl Word for $t { unsafe fn from_word(w: u64) -> Self { unsafe { ::core::mem::transmute_copy::<u64, $t>(&w) } } }
    )*} }
    words!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, bool, char);
    // A map's vector of strings (`BTreeMap<char, Vec<String>>`): the word is the address of `[count, address of
    // count [pointer, length] pairs]`, each pair UTF-8 text the JIT's map holds; the strings are copied.
    impl Word for ::std::vec::Vec<::std::string::String> {
        unsafe fn from_word(w: u64) -> Self {
            // SAFETY: as `from_word`'s caller guarantees: the JIT wrote such a list at `w`, live for the call.
            unsafe {
                let [count, items] = *(w as usize as *const [usize; 2]);
                (0..count)
                    .map(|i| {
                        let [data, len] = *(items as *const [usize; 2]).add(i);
                        let text = ::core::slice::from_raw_parts(data as *const u8, len);
                        ::std::string::String::from(::core::str::from_utf8_unchecked(text))
                    })
                    .collect()
            }
        }
    }
    pub trait KeyIn: Sized {
        /// The key the JIT passed as two words: text as (pointer, length), a scalar as its first word's bits.
        ///
        /// # Safety
        ///
        /// For text, `k[0]` points to `k[1]` bytes of UTF-8; for a scalar, `k[0]`'s bytes are a valid `Self`.
        unsafe fn from_key(k: [usize; 2]) -> Self;
    }
    impl KeyIn for ::std::string::String {
        unsafe fn from_key(k: [usize; 2]) -> Self {
            // SAFETY: as `from_key`'s caller guarantees.
            unsafe {
                ::std::string::String::from(::core::str::from_utf8_unchecked(::core::slice::from_raw_parts(
                    k[0] as *const u8,
                    k[1],
                )))
            }
        }
    }
    macro_rules! word_keys { ($($t:ty),*) => {$(
        // SAFETY: as `from_key`'s caller guarantees.
        impl KeyIn for $t { unsafe fn from_key(k: [usize; 2]) -> Self { unsafe { <$t as Word>::from_word(k[0] as u64) } } }
    )*} }
    word_keys!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool, char);
    pub trait FromEntries: Sized {
        /// The collection of `n` entries: `keys[i]` with `values[i]` (values unread for sets).
        ///
        /// # Safety
        ///
        /// `keys` (and `values`, for maps) are valid for reads of `n` elements, each as `KeyIn::from_key` and
        /// `Word::from_word` require.
        unsafe fn from_entries(n: usize, keys: *const [usize; 2], values: *const u64) -> Self;
    }
    impl<K: KeyIn + ::core::cmp::Eq + ::core::hash::Hash, V: Word> FromEntries for ::std::collections::HashMap<K, V> {
        unsafe fn from_entries(n: usize, keys: *const [usize; 2], values: *const u64) -> Self {
            let mut m = ::std::collections::HashMap::with_capacity(n);
            for i in 0..n {
                // SAFETY: as `from_entries`'s caller guarantees.
                unsafe { m.insert(K::from_key(*keys.add(i)), V::from_word(*values.add(i))) };
            }
            m
        }
    }
    impl<K: KeyIn + ::core::cmp::Ord, V: Word> FromEntries for ::std::collections::BTreeMap<K, V> {
        unsafe fn from_entries(n: usize, keys: *const [usize; 2], values: *const u64) -> Self {
            let mut m = ::std::collections::BTreeMap::new();
            for i in 0..n {
                // SAFETY: as `from_entries`'s caller guarantees.
                unsafe { m.insert(K::from_key(*keys.add(i)), V::from_word(*values.add(i))) };
            }
            m
        }
    }
    // A set: the map's keys (its values are all zero).
    impl<K: KeyIn + ::core::cmp::Eq + ::core::hash::Hash> FromEntries for ::std::collections::HashSet<K> {
        unsafe fn from_entries(n: usize, keys: *const [usize; 2], _: *const u64) -> Self {
            let mut s = ::std::collections::HashSet::with_capacity(n);
            for i in 0..n {
                // SAFETY: as `from_entries`'s caller guarantees.
                unsafe { s.insert(K::from_key(*keys.add(i))) };
            }
            s
        }
    }
    impl<K: KeyIn + ::core::cmp::Ord> FromEntries for ::std::collections::BTreeSet<K> {
        unsafe fn from_entries(n: usize, keys: *const [usize; 2], _: *const u64) -> Self {
            let mut s = ::std::collections::BTreeSet::new();
            for i in 0..n {
                // SAFETY: as `from_entries`'s caller guarantees.
                unsafe { s.insert(K::from_key(*keys.add(i))) };
            }
            s
        }
    }
    pub trait MapYes {
        fn map_writer(&self) -> usize;
    }
    impl<T: FromEntries> MapYes for &Probe<T> {
        fn map_writer(&self) -> usize {
            /// # Safety
            ///
            /// `out` is valid for writes of a `T`; the entries are as `FromEntries::from_entries` requires.
            unsafe extern "C" fn writer<T: FromEntries>(
                out: *mut u8,
                n: usize,
                keys: *const [usize; 2],
                values: *const u64,
            ) {
                // SAFETY: as this function's caller guarantees.
                unsafe { ::core::ptr::write(out.cast::<T>(), T::from_entries(n, keys, values)) }
            }
            writer::<T> as usize
        }
    }
    pub trait MapNo {
        fn map_writer(&self) -> usize {
            0
        }
    }
    impl<T> MapNo for Probe<T> {}
}
