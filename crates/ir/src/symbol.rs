//! The names of the symbols an instrumented host library exports for JIT code: shims of host functions and
//! methods, field offsets, struct sizes, and per-type shim tables. The instrumenting side (which defines them)
//! and the JIT (which looks them up) both name them through these functions, so the two always agree.

/// The symbol of the shim for function `name` of top-level module `module`.
pub fn module_shim_symbol(module: &str, name: &str) -> String {
    format!("__lacuna_host_modfn_{}{module}_{name}", module.len())
}

/// The symbol of the shim for host function `name`, or for method `name` of type `self_ty` (the type's name is
/// length-prefixed, so no two pairs share a symbol).
pub fn shim_symbol(self_ty: Option<&str>, name: &str) -> String {
    match self_ty {
        None => format!("__lacuna_host_fn_{name}"),
        Some(ty) => format!("__lacuna_host_method_{}{ty}_{name}", ty.len()),
    }
}

/// The exported `usize` static holding the offset of `field` in struct `ty`.
pub fn field_offset_symbol(ty: &str, field: &str) -> String {
    format!("__lacuna_offset_{}{ty}_{field}", ty.len())
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
