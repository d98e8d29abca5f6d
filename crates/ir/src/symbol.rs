//! The names of the symbols an instrumented host library exports for JIT code: shims of host functions and
//! methods, field offsets, struct sizes, and per-type shim tables. The instrumenting side (which defines them)
//! and the JIT (which looks them up) both name them through these functions, so the two always agree. The fixed
//! entry points are defined in the engine's `host/entry_points.rs`, which a test holds to these names.

use crate::Scalar;

/// The host library's allocator for JIT buffers: `unsafe extern "C" fn(ptr, old_size, align, new_size) -> ptr`.
pub const HOST_REALLOC: &str = "__lacuna_realloc";
/// The host library's deallocator: `unsafe extern "C" fn(ptr, size, align)`.
pub const HOST_DEALLOC: &str = "__lacuna_dealloc";
/// The host library's stdout and stderr: `unsafe extern "C" fn(ptr, len, stderr)`.
pub const HOST_PRINT: &str = "__lacuna_print";
/// Where the host's std keeps a `Vec`'s buffer pointer and length: `unsafe extern "C" fn(out: *mut usize)`.
pub const HOST_VEC_LAYOUT: &str = "__lacuna_vec_layout";

/// The function that writes a `&str` the hole's value is in the host's layout: `(out, ptr, len)`.
pub const STR_WRITER: &str = "__lacuna_write_str";
/// The function that writes an `Option<&str>` the hole's value is in the host's layout: `(out, is_some, ptr, len)`.
pub const OPTION_STR_WRITER: &str = "__lacuna_option_write_str";

/// The function that writes an `Option<S>` in the host's layout: `(out, is_some, value)`.
pub fn option_writer_symbol(s: Scalar) -> String {
    format!("__lacuna_option_write_{}", s.name())
}

/// The function the host exports for hole `site` whose type is a map or set: the address of the writer that
/// builds the host's own map from the JIT's entries (0 when the type has none).
pub fn map_writer_symbol(site: u32) -> String {
    format!("__lacuna_map_writer_{site}")
}

/// The symbol of the shim for function `name` of module `module` (a top-level module, or the path of the module
/// a block's items move to: `shop::__lacuna_block_1`, its `:`s written `_3a`).
pub fn module_shim_symbol(module: &str, name: &str) -> String {
    format!("__lacuna_host_modfn_{}{}_{name}", module.len(), module.replace(':', "_3a"))
}

/// The symbol of the shim for host function `name`, or for method `name` of type `self_ty` (the type's name is
/// length-prefixed, so no two pairs share a symbol).
pub fn shim_symbol(self_ty: Option<&str>, name: &str) -> String {
    match self_ty {
        None => format!("__lacuna_host_fn_{name}"),
        Some(ty) => format!("__lacuna_host_method_{}{ty}_{name}", ty.len()),
    }
}

/// The function the instrumented host exports for a static `name` of an atomic type: `extern "C" fn() -> *const
/// u8`, the static's address.
pub fn atomic_static_symbol(name: &str) -> String {
    format!("__lacuna_atomic_{}{name}", name.len())
}

/// The exported `usize` static holding the offset of `field` in struct `ty`.
pub fn field_offset_symbol(ty: &str, field: &str) -> String {
    format!("__lacuna_offset_{}{ty}_{field}", ty.len())
}

/// The function the instrumented host exports for a field of type `Option<T>` of struct `ty`: given the struct's
/// address, the address of the `Some` payload, or null for `None`.
pub fn option_field_symbol(ty: &str, field: &str) -> String {
    format!("__lacuna_some_{}{ty}_{field}", ty.len())
}

/// The exported `[usize; 2 + TupleElem::MAX]` static holding the layout rustc gave the tuple type `ty`: its
/// size, its alignment, then each part's offset. The name is made of the type's spelling with every byte that
/// cannot be in a symbol written as `_` and two hex digits.
pub fn tuple_layout_symbol(ty: &crate::TupleElem) -> String {
    mangled("__lacuna_tuple_", &ty.name())
}

/// The symbol of the shim through which JIT code calls a host closure of type `dyn_type` (`&dyn Fn(&str) ->
/// String`, [`crate::Binding::dyn_callable`]), spelled as [`tuple_layout_symbol`] spells its type.
pub fn callable_shim_symbol(dyn_type: &str) -> String {
    mangled("__lacuna_callable_", dyn_type)
}

/// The symbol of the shim through which JIT code reads a hole binding that is a std map of type `map_type`
/// (`HashMap<String, u32>`, as the binding's type is written) through the view `view` (`keys`, `get`, ..).
pub fn map_binding_view_symbol(map_type: &str, view: &str) -> String {
    mangled(&format!("__lacuna_map_{view}_"), map_type)
}

/// `prefix`, then `text` with every byte that cannot be in a symbol written as `_` and two hex digits.
fn mangled(prefix: &str, text: &str) -> String {
    let mut out = String::from(prefix);
    for b in text.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => out.push(char::from(b)),
            _ => out.push_str(&format!("_{b:02x}")),
        }
    }
    out
}

/// The exported `usize` static holding the size of struct `ty`.
pub fn struct_size_symbol(ty: &str) -> String {
    format!("__lacuna_size_{}{ty}", ty.len())
}

/// The function the instrumented host exports for a struct whose size is exported as `size_symbol`
/// ([`struct_size_symbol`]): it fills in the struct's size, alignment and the shims through which JIT code
/// drops, clones, compares and formats values of it.
pub fn struct_shims_symbol(size_symbol: &str) -> String {
    size_symbol.replacen("__lacuna_size_", "__lacuna_shims_", 1)
}

/// The function the instrumented host exports for an enum whose size is exported as `size_symbol`: which variant
/// a value is (its index in declaration order).
pub fn enum_variant_symbol(size_symbol: &str) -> String {
    size_symbol.replacen("__lacuna_size_", "__lacuna_variant_", 1)
}

/// The function the instrumented host exports for an enum whose size is exported as `size_symbol`: the address of
/// field `i` of a value's variant (`i` counts the fields of all variants in order), or null when the value is
/// another variant.
pub fn enum_field_symbol(size_symbol: &str) -> String {
    size_symbol.replacen("__lacuna_size_", "__lacuna_field_", 1)
}

/// The function the instrumented host exports for an enum whose size is exported as `size_symbol`: `(out, i) ->
/// written` writes unit variant `i` (its index in declaration order) at `out` and says 1, or says 0 when variant `i`
/// has fields.
pub fn enum_unit_symbol(size_symbol: &str) -> String {
    size_symbol.replacen("__lacuna_size_", "__lacuna_unit_", 1)
}

/// The shim the instrumented host exports next to the one for a host function returning `Result<T, E>`
/// (`shim_symbol`): `(run, err, message, message_len) -> status`, which panics as `Result::expect(message)`
/// does on `Err(*err)` (std's `unwrap` is `expect` with its fixed message).
pub fn unwrap_failed_symbol(shim_symbol: &str) -> String {
    format!("{shim_symbol}__unwrap_failed")
}

/// The shim next to [`unwrap_failed_symbol`]'s that panics as `Result::expect_err(message)` does on `Ok(*ok)`
/// (`unwrap_err` is `expect_err` with std's fixed message): `(run, ok, message, message_len) -> status`.
pub fn unwrap_err_failed_symbol(shim_symbol: &str) -> String {
    format!("{shim_symbol}__unwrap_err_failed")
}

/// The type alias the instrumented host declares for `Box<dyn Trait>` of its top-level trait `name`: JIT code
/// treats it as a host struct without fields, whose size and drop come from the host's shims as any host
/// struct's do, and calls the trait's `&self` methods on it through shims named as methods of the alias
/// ([`shim_symbol`]).
pub fn dyn_box_alias(name: &str) -> String {
    format!("{DYN_BOX_PREFIX}{name}")
}

/// How every [`dyn_box_alias`] starts.
pub const DYN_BOX_PREFIX: &str = "__lacuna_dyn_";

/// std's `Box<dyn Any>`, with the auto traits its object type adds: host values of any type behind one type,
/// which JIT code reaches in place (an element of the host's `Vec<Box<dyn Any>>`) and looks into only through the
/// views the instrumented host exports ([`AnyBox::view_symbol`]). The instrumented host names each by an alias
/// ([`AnyBox::alias`]), which JIT code treats as a host struct without fields: its size, drop and `Debug` come
/// from the host's shims as any host struct's do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyBox {
    /// `Box<dyn Any>`.
    Plain,
    /// `Box<dyn Any + Send>`.
    Send,
    /// `Box<dyn Any + Send + Sync>`.
    SendSync,
}

/// What a view of an [`AnyBox`] asks of the value in it, for one target type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyView {
    /// `is::<T>()`: a `bool`.
    Is,
    /// `downcast_ref::<T>()`: `Option<&T>` (of a scalar, the number itself).
    DowncastRef,
}

impl AnyBox {
    pub const ALL: [AnyBox; 3] = [AnyBox::Plain, AnyBox::Send, AnyBox::SendSync];

    /// The type alias the instrumented host declares at its crate root for it.
    pub fn alias(self) -> &'static str {
        match self {
            AnyBox::Plain => "__lacuna_AnyBox",
            AnyBox::Send => "__lacuna_AnySendBox",
            AnyBox::SendSync => "__lacuna_AnySendSyncBox",
        }
    }

    /// The type as Rust source valid anywhere.
    pub fn source(self) -> &'static str {
        match self {
            AnyBox::Plain => "::std::boxed::Box<dyn ::core::any::Any>",
            AnyBox::Send => "::std::boxed::Box<dyn ::core::any::Any + ::core::marker::Send>",
            AnyBox::SendSync => "::std::boxed::Box<dyn ::core::any::Any + ::core::marker::Send + ::core::marker::Sync>",
        }
    }

    /// The kinds a type as written mentions (`Vec<Box<dyn Any + Send>>`; a `'static` bound is ignored). Pure
    /// syntax: a host trait named `Any` matches too, which costs only shims nobody calls.
    pub fn mentioned_in(ty: &str) -> Vec<AnyBox> {
        let text = ty.replace(" + 'static", "");
        let mut out = Vec::new();
        for kind in AnyBox::ALL {
            let written = match kind {
                AnyBox::Plain => "Box<dyn Any>",
                AnyBox::Send => "Box<dyn Any + Send>",
                AnyBox::SendSync => "Box<dyn Any + Send + Sync>",
            };
            if text.contains(written) {
                out.push(kind);
            }
        }
        out
    }

    /// The name of the view `view` for target type `target` (a host type's name, or a scalar's).
    pub fn view_name(view: AnyView, target: &str) -> String {
        match view {
            AnyView::Is => format!("is_{target}"),
            AnyView::DowncastRef => format!("downcast_ref_{target}"),
        }
    }

    /// The symbol of the shim of view `view` for `target`: `(run, out, &Box<dyn Any>) -> status`.
    pub fn view_symbol(self, view: AnyView, target: &str) -> String {
        map_binding_view_symbol(self.alias(), &AnyBox::view_name(view, target))
    }
}

#[cfg(test)]
mod tests {
    use super::{AnyBox, AnyView};

    #[test]
    fn any_boxes_are_found_in_types_as_written() {
        assert_eq!(AnyBox::mentioned_in("Vec<Box<dyn Any>>"), vec![AnyBox::Plain]);
        assert_eq!(AnyBox::mentioned_in("Vec<Box<dyn Any + Send + 'static>>"), vec![AnyBox::Send]);
        assert_eq!(
            AnyBox::mentioned_in("(Box<dyn Any + Send + Sync>, Box<dyn Any>)"),
            vec![AnyBox::Plain, AnyBox::SendSync]
        );
        assert!(AnyBox::mentioned_in("Box<dyn Anything>").is_empty());
        assert!(AnyBox::mentioned_in("&dyn Any").is_empty());
    }

    #[test]
    fn any_views_have_one_symbol_per_kind_view_and_target() {
        let mut symbols: Vec<String> = AnyBox::ALL
            .into_iter()
            .flat_map(|k| {
                [AnyView::Is, AnyView::DowncastRef]
                    .into_iter()
                    .flat_map(move |v| ["Order", "u32"].map(|t| k.view_symbol(v, t)))
            })
            .collect();
        assert!(symbols.iter().all(|s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')));
        let all = symbols.len();
        symbols.sort();
        symbols.dedup();
        assert_eq!(symbols.len(), all);
    }
}
