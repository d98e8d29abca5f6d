//! The runtime helpers generated code may call, as one closed vocabulary: each [`Helper`] is one row naming its
//! symbol, its address in this library and its Cranelift signature, so a helper cannot exist without a signature
//! and a signature cannot drift from its function's row.

use cranelift_codegen::ir::{types, Type};

use crate::rt::{heap, map, num, seq, text};

/// The width of the elements a per-width helper works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Width {
    W8,
    W16,
    W32,
    W64,
}

impl Width {
    /// The width of elements of `bytes` bytes (1, 2, 4 or 8).
    pub(crate) fn of_bytes(bytes: u32) -> Option<Width> {
        match bytes {
            1 => Some(Width::W8),
            2 => Some(Width::W16),
            4 => Some(Width::W32),
            8 => Some(Width::W64),
            _ => None,
        }
    }
}

/// The helpers' rows: `Variant => "symbol", address, (params) -> (results)`, the types written as `P` (a pointer),
/// `I8`, `I32`, `I64`, `F32`, `F64`.
macro_rules! helpers {
    ($($variant:ident => $symbol:literal, $address:expr, ($($param:ident),*) -> ($($ret:ident),*);)*) => {
        /// A runtime helper generated code calls (see the module's rows).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Helper {
            $($variant,)*
        }

        impl Helper {
            /// Every helper, in the rows' order.
            pub(crate) const ALL: &'static [Helper] = &[$(Helper::$variant,)*];

            /// The symbol generated code imports it by.
            pub(crate) fn symbol(self) -> &'static str {
                match self {
                    $(Helper::$variant => $symbol,)*
                }
            }

            /// Its address in this library.
            pub(crate) fn address(self) -> *const u8 {
                match self {
                    $(Helper::$variant => $address as *const u8,)*
                }
            }

            /// Its parameters and results, with `ptr` the target's pointer type.
            pub(crate) fn signature(self, ptr: Type) -> (Vec<Type>, Vec<Type>) {
                match self {
                    $(Helper::$variant => (
                        vec![$(helpers!(@ty $param, ptr)),*],
                        vec![$(helpers!(@ty $ret, ptr)),*],
                    ),)*
                }
            }
        }
    };
    (@ty P, $ptr:ident) => { $ptr };
    (@ty I8, $ptr:ident) => { types::I8 };
    (@ty I32, $ptr:ident) => { types::I32 };
    (@ty I64, $ptr:ident) => { types::I64 };
    (@ty F32, $ptr:ident) => { types::F32 };
    (@ty F64, $ptr:ident) => { types::F64 };
}

helpers! {
    FmodF64 => "lacuna_fmod_f64", num::helper_fmod_f64, (F64, F64) -> (F64);
    FmodF32 => "lacuna_fmod_f32", num::helper_fmod_f32, (F32, F32) -> (F32);
    FminF64 => "lacuna_fmin_f64", num::helper_fmin_f64, (F64, F64) -> (F64);
    FmaxF64 => "lacuna_fmax_f64", num::helper_fmax_f64, (F64, F64) -> (F64);
    FminF32 => "lacuna_fmin_f32", num::helper_fmin_f32, (F32, F32) -> (F32);
    FmaxF32 => "lacuna_fmax_f32", num::helper_fmax_f32, (F32, F32) -> (F32);
    SignumF64 => "lacuna_signum_f64", num::helper_signum_f64, (F64) -> (F64);
    SignumF32 => "lacuna_signum_f32", num::helper_signum_f32, (F32) -> (F32);
    Pow => "lacuna_pow", num::helper_pow, (I64, I32, I32, I32, P) -> (I64);
    PowiF64 => "lacuna_powi_f64", num::helper_powi_f64, (F64, I32) -> (F64);
    PowiF32 => "lacuna_powi_f32", num::helper_powi_f32, (F32, I32) -> (F32);
    SortI8 => "lacuna_sort_i8", seq::helper_sort::<i8>, (P, I64) -> ();
    SortI16 => "lacuna_sort_i16", seq::helper_sort::<i16>, (P, I64) -> ();
    SortI32 => "lacuna_sort_i32", seq::helper_sort::<i32>, (P, I64) -> ();
    SortI64 => "lacuna_sort_i64", seq::helper_sort::<i64>, (P, I64) -> ();
    SortU8 => "lacuna_sort_u8", seq::helper_sort::<u8>, (P, I64) -> ();
    SortU16 => "lacuna_sort_u16", seq::helper_sort::<u16>, (P, I64) -> ();
    SortU32 => "lacuna_sort_u32", seq::helper_sort::<u32>, (P, I64) -> ();
    SortU64 => "lacuna_sort_u64", seq::helper_sort::<u64>, (P, I64) -> ();
    Reverse8 => "lacuna_reverse_8", seq::helper_reverse::<u8>, (P, I64) -> ();
    Reverse16 => "lacuna_reverse_16", seq::helper_reverse::<u16>, (P, I64) -> ();
    Reverse32 => "lacuna_reverse_32", seq::helper_reverse::<u32>, (P, I64) -> ();
    Reverse64 => "lacuna_reverse_64", seq::helper_reverse::<u64>, (P, I64) -> ();
    Dedup8 => "lacuna_dedup_8", seq::helper_dedup::<u8>, (P, I64) -> (I64);
    Dedup16 => "lacuna_dedup_16", seq::helper_dedup::<u16>, (P, I64) -> (I64);
    Dedup32 => "lacuna_dedup_32", seq::helper_dedup::<u32>, (P, I64) -> (I64);
    Dedup64 => "lacuna_dedup_64", seq::helper_dedup::<u64>, (P, I64) -> (I64);
    VecGrow => "lacuna_vec_grow", heap::helper_vec_grow, (P, P, I64, I64, I64, I64, I64) -> (P);
    VecRelease => "lacuna_vec_release", heap::helper_vec_release, (P, P) -> ();
    VecAdopt => "lacuna_vec_adopt", heap::helper_vec_adopt, (P, P, I64, I64) -> ();
    VecFree => "lacuna_vec_free", heap::helper_vec_free, (P, P) -> ();
    HostBufferAdopt => "lacuna_host_buffer_adopt", heap::helper_host_buffer_adopt, (P, P, I64, I64) -> ();
    HostStringsAdopt => "lacuna_host_strings_adopt", heap::helper_host_strings_adopt, (P, P, P, P, P, P) -> ();
    BufferDrop => "lacuna_buffer_drop", heap::helper_buffer_drop, (P, P, I64, I64) -> ();
    BufferStringsDrop => "lacuna_buffer_strings_drop", heap::helper_buffer_strings_drop, (P, P, P, P, P, P) -> ();
    StringsRelease => "lacuna_strings_release", heap::helper_strings_release, (P, P, P, P, P) -> ();
    StringsFree => "lacuna_strings_free", heap::helper_strings_free, (P, P, P, P, P) -> ();
    StringDrop => "lacuna_string_drop", heap::helper_string_drop, (P, P, P) -> ();
    StringsClone => "lacuna_strings_clone", heap::helper_strings_clone, (P, P, P, P, P) -> (P);
    Copy => "lacuna_copy", seq::helper_copy, (P, P, I64) -> ();
    FillBytes => "lacuna_fill_bytes", seq::helper_fill_bytes, (P, I8, I64) -> ();
    Fmt => "lacuna_fmt", text::helper_fmt, (P, P, I32, I64, I64, P) -> (I32);
    PushChar => "lacuna_push_char", text::helper_push_char, (P, P, I32) -> (I32);
    PushStr => "lacuna_push_str", text::helper_push_str, (P, P, P, I64) -> (I32);
    BytesEq => "lacuna_bytes_eq", text::helper_bytes_eq, (P, I64, P, I64) -> (I8);
    StrSlice => "lacuna_str_slice", text::helper_str_slice, (P, P, I64, I64, I64, P) -> (I32);
    PanicMessage => "lacuna_panic_message", text::helper_panic_message, (P, P, I64) -> ();
    Print => "lacuna_print", text::helper_print, (P, P, I32) -> ();
    Trim => "lacuna_trim", text::helper_trim, (P, I64, I32, P, I64, P) -> ();
    Parse => "lacuna_parse", text::helper_parse, (P, I64, I32, P) -> (I32);
    CharOp => "lacuna_char_op", text::helper_char_op, (I32, I32) -> (I32);
    NextChar => "lacuna_next_char", text::helper_next_char, (P, P, I32) -> (I32);
    NextPiece => "lacuna_next_piece", text::helper_next_piece, (P, P, I32, P, P) -> (I32);
    KeyedSort => "lacuna_keyed_sort", seq::helper_keyed_sort, (P, P, P, P, P, P) -> ();
    StringsSort => "lacuna_strings_sort", seq::helper_sort_strings, (P, P, P, P) -> ();
    StrsSort => "lacuna_strs_sort", seq::helper_sort_strs, (P, P) -> ();
    DedupTexts => "lacuna_dedup_texts", heap::helper_dedup_texts, (P, P, P, P, P, P, I8) -> (P);
    TextsContain => "lacuna_texts_contain", seq::helper_texts_contain, (P, P, P, P, P, P, P) -> (I8);
    ElementsReverse => "lacuna_elements_reverse", seq::helper_reverse_elements, (P, P, P) -> ();
    Find => "lacuna_find", text::helper_find, (P, I64, P, I64, I32, I32) -> (I8);
    Position => "lacuna_position", text::helper_position, (P, I64, P, I64, I32, I32) -> (I64);
    Transform => "lacuna_transform", text::helper_transform, (P, P, P, I64, I32, I64) -> (I32);
    Replace => "lacuna_replace", text::helper_replace, (P, P, P, I64, P, I64, I32, P, I64) -> (I32);
    StructAlloc => "lacuna_struct_alloc", heap::helper_struct_alloc, (P, I64, I64) -> (P);
    StructReady => "lacuna_struct_ready", heap::helper_struct_ready, (P, P, P) -> ();
    StructDrop => "lacuna_struct_drop", heap::helper_struct_drop, (P, P) -> ();
    StructMoveOut => "lacuna_struct_move_out", heap::helper_struct_move_out, (P, P, P, I64) -> (I32);
    StructReplace => "lacuna_struct_replace", heap::helper_struct_replace, (P, P, P, I64) -> (I32);
    MapNew => "lacuna_map_new", map::helper_map_new, (P) -> (P);
    MapFind => "lacuna_map_find", map::helper_map_find, (P, P, I64, I64) -> (P);
    MapSlot => "lacuna_map_slot", map::helper_map_slot, (P, P, P, I64, I64, I64) -> (P);
    MapPush => "lacuna_map_push", map::helper_map_push, (P, P, P, I64, I64, P, I64) -> ();
    MapChange => "lacuna_map_change", map::helper_map_change, (P, P, P, I64, I64, I64, I32, P) -> (I8);
    MapLen => "lacuna_map_len", map::helper_map_len, (P) -> (I64);
    MapEntries => "lacuna_map_entries", map::helper_map_entries, (P, I32) -> (P);
    MapFree => "lacuna_map_free", map::helper_map_free, (P, P) -> ();
    MapGive => "lacuna_map_give", map::helper_map_give, (P, P, P, P) -> ();
}

impl Helper {
    /// `sort`/`sort_unstable` of integers of `bytes` bytes (`signed` or not; `char` sorts as `u32`, `bool` as `u8`).
    pub(crate) fn sort(signed: bool, width: Width) -> Helper {
        match (signed, width) {
            (true, Width::W8) => Helper::SortI8,
            (true, Width::W16) => Helper::SortI16,
            (true, Width::W32) => Helper::SortI32,
            (true, Width::W64) => Helper::SortI64,
            (false, Width::W8) => Helper::SortU8,
            (false, Width::W16) => Helper::SortU16,
            (false, Width::W32) => Helper::SortU32,
            (false, Width::W64) => Helper::SortU64,
        }
    }

    /// `reverse` of elements of this width.
    pub(crate) fn reverse(width: Width) -> Helper {
        match width {
            Width::W8 => Helper::Reverse8,
            Width::W16 => Helper::Reverse16,
            Width::W32 => Helper::Reverse32,
            Width::W64 => Helper::Reverse64,
        }
    }

    /// `dedup` of elements of this width.
    pub(crate) fn dedup(width: Width) -> Helper {
        match width {
            Width::W8 => Helper::Dedup8,
            Width::W16 => Helper::Dedup16,
            Width::W32 => Helper::Dedup32,
            Width::W64 => Helper::Dedup64,
        }
    }

    /// Float remainder, min, max, signum and `powi` for `f32` (`single`) or `f64`.
    pub(crate) fn float(op: FloatOp, single: bool) -> Helper {
        match (op, single) {
            (FloatOp::Rem, true) => Helper::FmodF32,
            (FloatOp::Rem, false) => Helper::FmodF64,
            (FloatOp::Min, true) => Helper::FminF32,
            (FloatOp::Min, false) => Helper::FminF64,
            (FloatOp::Max, true) => Helper::FmaxF32,
            (FloatOp::Max, false) => Helper::FmaxF64,
            (FloatOp::Signum, true) => Helper::SignumF32,
            (FloatOp::Signum, false) => Helper::SignumF64,
            (FloatOp::Powi, true) => Helper::PowiF32,
            (FloatOp::Powi, false) => Helper::PowiF64,
        }
    }
}

/// The float operations that go through a helper ([`Helper::float`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Rem,
    Min,
    Max,
    Signum,
    Powi,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_distinct_and_named_for_lacuna() {
        let mut seen = std::collections::HashSet::new();
        for h in Helper::ALL {
            assert!(h.symbol().starts_with("lacuna_"), "{h:?}");
            assert!(seen.insert(h.symbol()), "two helpers named {}", h.symbol());
        }
    }
}
