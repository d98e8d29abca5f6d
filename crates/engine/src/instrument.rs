//! The host as Lacuna runs it. Each hole becomes a call to `lacuna::__private::enter` that hands Lacuna the hole's
//! binding table: one pointer per binding in scope, into the host's own frame. How each binding is passed is
//! settled once per host, by rustc: every binding starts with the most a snippet could need and is demoted where
//! the host's own code conflicts with it.
//!
//! ```text
//! movable  addr_of_mut!(x), and after the hole `if moved[i] { forget(x) }`: the snippet may take x (the host
//!          never uses it again, else rustc reports the forget as a move and x is demoted)
//! mutable  addr_of_mut!(x): the snippet may write x (x is `let mut`, not borrowed across the hole)
//! shared   addr_of!(x): the snippet may read x
//! absent   the host has x moved or exclusively borrowed at the hole; a snippet cannot use it there either
//! ```

use std::ops::Range;

use lacuna_checker::{LineIndex, PreparedHost, Rustc, RustcError, PRELUDE_INJECTION};
use lacuna_ir::{Binding, HoleScope};
use serde::Serialize;

use crate::ExecError;

/// How the host hands one binding to its hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostMode {
    Movable,
    Mutable,
    Shared,
    Absent,
}

/// One hole site of the instrumented host.
#[derive(Debug, Clone)]
pub struct SitePlan {
    /// 1-based hole number: the site id the host passes to Lacuna.
    pub site: u32,
    pub scope: Option<HoleScope>,
    /// One per binding of `scope`.
    pub modes: Vec<HostMode>,
    /// The hole is in async code (the host awaits it; a snippet there never takes a host binding).
    pub in_async: bool,
    /// The hole is in an `unsafe` block or `unsafe fn` ([`lacuna_checker::Hole::in_unsafe`]): the snippet's code runs
    /// in one in its library too.
    pub in_unsafe: bool,
}

impl SitePlan {
    pub fn bindings(&self) -> &[Binding] {
        self.scope.as_ref().map_or(&[], |s| &s.bindings)
    }
}

/// The host with its holes instrumented, ready to be compiled as a library Lacuna loads.
#[derive(Debug, Clone)]
pub struct Instrumented {
    pub text: String,
    /// For a host built as a `dylib` snippet libraries link to: the crate they are made from.
    pub mirror: Option<Mirror>,
    pub sites: Vec<SitePlan>,
    /// The host functions and methods the JIT can call (each through its exported shim).
    pub host_fns: Vec<lacuna_checker::ScalarFn>,
    /// (host offset where a replaced hole ends, instrumented offset where its replacement ends), in order.
    anchors: Vec<(usize, usize)>,
}

/// The crate a snippet library is, minus its entry, when the host is a `dylib` it links to: the host's module
/// tree with every item re-exported from the host (see [`lacuna_checker::export`]).
#[derive(Debug, Clone)]
pub struct Mirror {
    /// With the prelude's injection.
    pub text: String,
    /// Per site, in order.
    pub sites: Vec<MirrorSite>,
}

/// Where a hole's entry goes in the mirror, and what it declares first: per block around the hole, an opening
/// brace and the block's `use`s, the import of its moved items and copies of its functions and macros.
#[derive(Debug, Clone)]
pub struct MirrorSite {
    pub at: usize,
    pub prefix: String,
    /// How many blocks `prefix` opens.
    pub blocks: usize,
}

impl Instrumented {
    /// Where a host offset outside every hole is in the instrumented text.
    pub fn offset(&self, host_offset: usize) -> usize {
        match self.anchors.iter().rev().find(|(host_end, _)| *host_end <= host_offset) {
            Some((host_end, inst_end)) => inst_end + (host_offset - host_end),
            None => host_offset,
        }
    }
}

/// `__LACUNA_POSITIONS`, read by `__lacuna_install`: where the host's own text resumes after each hole, as (line,
/// column) in the instrumented text and in the host's, so a panic in host code after a hole on the same line is
/// reported at the host's position (a hole's replacement is longer than `agent!(..)`).
fn positions(host: &str, instrumented: &str, anchors: &[(usize, usize)]) -> String {
    // 1-based line and column (in chars), as panic locations count them.
    let (instrumented, host) = (LineIndex::new(instrumented), LineIndex::new(host));
    let rows: Vec<String> = anchors
        .iter()
        .map(|&(host_end, inst_end)| {
            let (inst_line, inst_col) = instrumented.line_col(inst_end);
            let (host_line, host_col) = host.line_col(host_end);
            format!("({inst_line}, {inst_col}, {host_line}, {host_col})")
        })
        .collect();
    format!("\n#[doc(hidden)]\nstatic __LACUNA_POSITIONS: &[(u32, u32, u32, u32)] = &[{}];\n", rows.join(", "))
}

/// What the library exports besides the host's own items: the hook installer and `main` as Lacuna calls it.
pub const ENTRY_POINTS: &str = include_str!("../host/entry_points.rs");

/// The shims of one plain host struct (see `__lacuna_struct_shims` in [`ENTRY_POINTS`]): `[size, align, drop,
/// clone, eq, display, debug, ord]` (`ord` applies `<`, `<=`, `>` or `>=`).
fn struct_shims(name: &str, paths: &TypePaths) -> String {
    let path = paths.qualify(name);
    format!(
        "\n#[doc(hidden)]\n#[no_mangle]\npub unsafe extern \"C\" fn {symbol}(out: *mut [usize; 8]) {{\n    \
         #[allow(unused_imports)]\n    use __lacuna_struct_shims::*;\n    \
         let probe = &&__lacuna_struct_shims::Probe::<{path}>(::core::marker::PhantomData);\n    \
         let shims = [::core::mem::size_of::<{path}>(), ::core::mem::align_of::<{path}>(), \
         __lacuna_struct_shims::drop::<{path}> as usize, probe.clone_shim(), probe.eq_shim(), probe.display_shim(), probe.debug_shim(), probe.ord_shim()];\n    \
         unsafe {{ ::core::ptr::write(out, shims) }}\n}}\n",
        symbol = lacuna_ir::struct_shims_symbol(&lacuna_ir::struct_size_symbol(name)),
    )
}

/// How JIT code tells a plain host enum's variants apart and reaches their fields, whatever layout rustc chose:
/// `__lacuna_variant_*` gives a value's variant index, `__lacuna_field_*` the address of a field (numbered across
/// all variants in order) or null for another variant.
fn enum_shims(e: &lacuna_checker::EnumOutline, paths: &TypePaths) -> String {
    use lacuna_checker::VariantFields;
    let size = lacuna_ir::struct_size_symbol(&e.name);
    let name = &paths.qualify(&e.name);
    let mut variant_arms = String::new();
    let mut field_arms = String::new();
    let mut unit_arms = String::new();
    let mut field = 0;
    for (index, (v, fields)) in e.variants.iter().enumerate() {
        let any = match fields {
            VariantFields::Unit => format!("{name}::{v}"),
            VariantFields::Tuple(_) => format!("{name}::{v}(..)"),
            VariantFields::Record(_) => format!("{name}::{v} {{ .. }}"),
        };
        variant_arms.push_str(&format!("{any} => {index}, "));
        match fields {
            VariantFields::Unit => {
                unit_arms.push_str(&format!("{index} => {name}::{v}, "));
            }
            VariantFields::Tuple(n) => {
                for i in 0..*n {
                    let skip = "_, ".repeat(i);
                    field_arms
                        .push_str(&format!("({name}::{v}({skip}x, ..), {field}) => x as *const _ as *const u8, "));
                    field += 1;
                }
            }
            VariantFields::Record(names) => {
                for f in names {
                    field_arms
                        .push_str(&format!("({name}::{v} {{ {f}: x, .. }}, {field}) => x as *const _ as *const u8, "));
                    field += 1;
                }
            }
        }
    }
    format!(
        "\n#[doc(hidden)]\n#[no_mangle]\npub static {size}: usize = ::core::mem::size_of::<{name}>();\n{shims}\
         \n#[doc(hidden)]\n#[no_mangle]\n#[allow(unreachable_patterns)]\npub unsafe extern \"C\" fn {variant}(p: *const u8) -> u32 {{\n    \
         match unsafe {{ &*p.cast::<{name}>() }} {{ {variant_arms}}}\n}}\n\
         \n#[doc(hidden)]\n#[no_mangle]\n#[allow(unreachable_patterns)]\npub unsafe extern \"C\" fn {field_fn}(p: *const u8, i: u32) -> *const u8 {{\n    \
         match (unsafe {{ &*p.cast::<{name}>() }}, i) {{ {field_arms}_ => ::core::ptr::null() }}\n}}\n\
         \n#[doc(hidden)]\n#[no_mangle]\n#[allow(unreachable_code, unused_variables)]\npub unsafe extern \"C\" fn {unit_fn}(out: *mut u8, i: u32) -> u32 {{\n    \
         let value: {name} = match i {{ {unit_arms}_ => return 0 }};\n    \
         // SAFETY: the caller gives `out` valid for a write of one `{name}`, at its alignment.\n    \
         unsafe {{ ::core::ptr::write(out.cast::<{name}>(), value) }};\n    1\n}}\n",
        shims = struct_shims(&e.name, paths),
        variant = lacuna_ir::enum_variant_symbol(&size),
        field_fn = lacuna_ir::enum_field_symbol(&size),
        unit_fn = lacuna_ir::enum_unit_symbol(&size),
    )
}

/// `lacuna::__private::HoldsLocks` for a host type that can hold a lock ([`lacuna_checker::LockHolder`]): each
/// field walked, those of the variant a value is for an enum.
fn lock_holder_impl(holder: &lacuna_checker::LockHolder) -> String {
    use lacuna_checker::{LockHolderShape, VariantFields};
    let name = &holder.name;
    let walk = |place: &str| format!("(&::lacuna::__private::Locks({place})).walk_locks(seen); ");
    let body = match &holder.shape {
        // Walked by `__lacuna_static_locks` instead.
        LockHolderShape::Static => return String::new(),
        LockHolderShape::Struct(VariantFields::Unit) => String::new(),
        LockHolderShape::Struct(VariantFields::Tuple(n)) => (0..*n).map(|i| walk(&format!("&self.{i}"))).collect(),
        LockHolderShape::Struct(VariantFields::Record(fields)) => {
            fields.iter().map(|f| walk(&format!("&self.{f}"))).collect()
        }
        LockHolderShape::Enum(variants) => {
            let arms: String = variants
                .iter()
                .map(|(v, fields)| match fields {
                    VariantFields::Unit => format!("{name}::{v} => {{}} "),
                    VariantFields::Tuple(n) => {
                        let names: Vec<String> = (0..*n).map(|i| format!("__lacuna_f{i}")).collect();
                        let walks: String = names.iter().map(|f| walk(f)).collect();
                        format!("{name}::{v}({}) => {{ {walks}}} ", names.join(", "))
                    }
                    VariantFields::Record(fields) => {
                        let walks: String = fields.iter().map(|f| walk(f)).collect();
                        format!("{name}::{v} {{ {} }} => {{ {walks}}} ", fields.join(", "))
                    }
                })
                .collect();
            format!("#[allow(unreachable_patterns)] match self {{ {arms}_ => {{}} }}")
        }
    };
    format!(
        "\n{cfgs}#[doc(hidden)]\nimpl ::lacuna::__private::HoldsLocks for {name} {{\n    \
         #[allow(unused_variables)]\n    fn walk(&self, seen: &mut ::lacuna::__private::Seen) {{\n        \
         #[allow(unused_imports)]\n        use ::lacuna::__private::{{WalkLocks as _, WalkNone as _}};\n        \
         {body}\n    }}\n}}\n",
        cfgs = holder.cfgs.iter().map(|c| format!("{c}\n")).collect::<String>(),
    )
}

/// The function a hole's site walks the host's statics' locks with: before the snippet runs, to record which are
/// poisoned already (the host's own doing, which stays), and after it, to clear the others (a host
/// function can hand a snippet `&'static` to one, so what the snippet names is no guide).
const STATIC_LOCKS: &str = "__lacuna_static_locks";

fn static_locks(holders: &[lacuna_checker::LockHolder]) -> String {
    let walks: String = holders
        .iter()
        .filter(|h| h.shape == lacuna_checker::LockHolderShape::Static)
        .map(|h| {
            format!(
                "    {}{{ (&::lacuna::__private::Locks(&crate::{})).walk_locks(seen); }}\n",
                h.cfgs.join(" "),
                h.name
            )
        })
        .collect();
    format!(
        "\n#[doc(hidden)]\n#[allow(dead_code)]\nfn {STATIC_LOCKS}(seen: &mut ::lacuna::__private::Seen) {{\n    \
         #[allow(unused_imports)]\n    use ::lacuna::__private::{{WalkLocks as _, WalkNone as _}};\n{walks}}}\n"
    )
}

fn map_writer(site: u32, glue: &str) -> String {
    format!(
        "\n#[doc(hidden)]\n#[no_mangle]\npub extern \"C\" fn {symbol}() -> usize {{\n    \
         #[allow(unused_imports)]\n    use __lacuna_struct_shims::*;\n    \
         (&&__lacuna_struct_shims::Probe::<{glue}>(::core::marker::PhantomData)).map_writer()\n}}\n",
        symbol = lacuna_ir::map_writer_symbol(site),
    )
}

const MAX_ROUNDS: u32 = 24;

/// The shims through which JIT code calls host functions and methods ([`lacuna_checker::ScalarFn::symbol`]):
/// `(run, out, [self pointer,] args..) -> status`, the call made under `lacuna::__private::run_call` (a panic
/// is status 1 with `run`'s fault filled in). A `&str` argument comes as pointer and length; a `String` result
/// is written as `[pointer, capacity, length]` (the buffer is the JIT's from then on), an `Option<T>` as a `u8`
/// tag at offset 0 and the payload at offset 8 (as a `Result`'s, [`write_payload`]).
fn shim(f: &lacuna_checker::ScalarFn, paths: &TypePaths) -> String {
    let symbol = f.symbol();
    let returns_scalar = f.returns_scalar();
    // The types as the crate root names them; the symbols keep the names.
    let f = &lacuna_checker::ScalarFn {
        method_of: f.method_of.as_ref().map(|(ty, m)| (paths.qualify(ty), *m)),
        params: f.params.iter().map(|p| paths.qualify(p)).collect(),
        ret: paths.qualify(&f.ret),
        ..f.clone()
    };
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, t) in f.params.iter().enumerate() {
        if t == "&str" {
            params.push(format!("__lacuna_a{i}: *const u8, __lacuna_a{i}_len: usize"));
            args.push(format!(
                "unsafe {{ ::core::str::from_utf8_unchecked(::core::slice::from_raw_parts(__lacuna_a{i}, __lacuna_a{i}_len)) }}"
            ));
        } else if let Some(elem) =
            t.strip_prefix("&mut [").or_else(|| t.strip_prefix("&[")).and_then(|r| r.strip_suffix(']'))
        {
            // A slice of scalars the JIT lends: pointer and length (an empty one's pointer may be any value).
            let (m, from) = match t.starts_with("&mut ") {
                true => ("mut", "from_raw_parts_mut"),
                false => ("const", "from_raw_parts"),
            };
            params.push(format!("__lacuna_a{i}: *{m} {elem}, __lacuna_a{i}_len: usize"));
            args.push(format!(
                "unsafe {{ ::core::slice::{from}(if __lacuna_a{i}_len == 0 {{ ::core::ptr::NonNull::<{elem}>::dangling().as_ptr() }} else {{ __lacuna_a{i} as *mut {elem} }}, __lacuna_a{i}_len) }}"
            ));
        } else if let Some(s) = t.strip_prefix("&mut ") {
            // A scalar place the JIT lends for the call: the host's slot, where a `&mut` binding points, or a
            // stack slot of the JIT's.
            params.push(format!("__lacuna_a{i}: *mut {s}"));
            args.push(format!("unsafe {{ &mut *__lacuna_a{i} }}"));
        } else if let Some(s) = t.strip_prefix('&') {
            params.push(format!("__lacuna_a{i}: *const {s}"));
            args.push(format!("unsafe {{ &*__lacuna_a{i} }}"));
        } else {
            params.push(format!("__lacuna_a{i}: {t}"));
            args.push(format!("__lacuna_a{i}"));
        }
    }
    // A view of a map binding: its body, over the map where the table points and the argument (if any).
    if let (Some(map_type), Some(body)) = (&f.viewed, &f.made) {
        params.insert(0, format!("__lacuna_this: *const {map_type}"));
        let key = args.first().map(|a| format!("let __lacuna_k = {a}; ")).unwrap_or_default();
        args = vec![format!(
            "{{ let __lacuna_m: &{map_type} = unsafe {{ &*__lacuna_this }}; {key}let __lacuna_r: {ret} = {body}; __lacuna_r }}",
            ret = f.ret,
        )];
    }
    let callee = match (&f.callable, &f.method_of) {
        // An `FnOnce` host closure: taken out of the box the table points to (rustc's check of the snippet lets it
        // be called once).
        (Some(dyn_type), _) if dyn_type.starts_with("Option<") => {
            params.insert(0, format!("__lacuna_this: *mut {dyn_type}"));
            "((*__lacuna_this).take().expect(\"an `FnOnce` closure called once\"))".to_owned()
        }
        // A host closure: called through the reference the table points to.
        (Some(dyn_type), _) => {
            params.insert(0, format!("__lacuna_this: *mut {dyn_type}"));
            "(*__lacuna_this)".to_owned()
        }
        (None, None) => format!("crate::{}", f.path()),
        (None, Some((ty, _))) => {
            params.insert(0, format!("__lacuna_this: *mut {ty}"));
            format!("(*__lacuna_this).{}", f.name)
        }
    };
    let call = match f.viewed {
        Some(_) => args.join(""),
        None => format!("{callee}({})", args.join(", ")),
    };
    // A `String`, a `Vec<&T>` or a `Vec` of scalars (a map's keys): its buffer is the JIT's from then on.
    let scalar_vec = f.ret.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')).is_some_and(|e| {
        lacuna_ir::Scalar::from_name(e)
            .is_some_and(|s| !matches!(s, lacuna_ir::Scalar::Unit | lacuna_ir::Scalar::Never))
    });
    // (A map view's entries, `Vec<(&str, u32)>`, too.)
    let entries = f.viewed.is_some() && f.ret.starts_with("Vec<(");
    let (out, write) = if f.ret == "String" || f.ret.starts_with("Vec<&") || scalar_vec || entries {
        let write = format!(
            "let mut __lacuna_s = ::core::mem::ManuallyDrop::new({call}); ::core::ptr::write(__lacuna_out,              [__lacuna_s.as_mut_ptr() as usize, __lacuna_s.capacity(), __lacuna_s.len()])"
        );
        ("[usize; 3]".to_owned(), write)
    } else if let Some((ok, err)) = result_payloads(&f.ret) {
        let write = format!(
            "match {call} {{ ::core::result::Result::Ok(__lacuna_v) => {{ ::core::ptr::write(__lacuna_out, 1); {} }} \
             ::core::result::Result::Err(__lacuna_v) => {{ ::core::ptr::write(__lacuna_out, 0); {} }} }}",
            write_payload(ok),
            write_payload(err),
        );
        ("u8".to_owned(), write)
    } else if let Some(inner) = f.ret.strip_prefix("Option<").and_then(|r| r.strip_suffix('>')) {
        let write = format!(
            "match {call} {{ Some(__lacuna_v) => {{ ::core::ptr::write(__lacuna_out, 1); {} }} \
             None => ::core::ptr::write(__lacuna_out, 0) }}",
            write_payload(inner),
        );
        ("u8".to_owned(), write)
    } else if returns_scalar {
        (f.ret.clone(), format!("::core::ptr::write(__lacuna_out, {call})"))
    } else {
        // A plain host type by value, written as a `Result`'s payload is (the JIT moves it into a box).
        ("u8".to_owned(), format!("let __lacuna_v = {call}; {}", write_payload(&f.ret)))
    };
    // A method the host does not declare (a map view): added here, with its shim, so that one that does not
    // compile is dropped with it.
    let made = match (&f.made, &f.method_of) {
        (Some(body), Some((ty, _))) => format!(
            "\n#[doc(hidden)]\nimpl {ty} {{ #[allow(dead_code)] pub fn {name}(&self) -> {ret} {{ {body} }} }}\n",
            name = f.name,
            ret = f.ret,
        ),
        _ => String::new(),
    };
    let unwrap_failed = match result_payloads(&f.ret) {
        Some((ok, err)) => {
            // `unwrap_err`'s only where the `Ok` value is surely `Debug` (the JIT takes no other): a shim that does
            // not compile would cost the host function's other shims a round.
            let unwrap_err = match lacuna_ir::Scalar::from_name(ok).is_some() || ok == "String" {
                true => unwrap_failed_shim(&lacuna_ir::unwrap_err_failed_symbol(&symbol), ok),
                false => String::new(),
            };
            unwrap_failed_shim(&lacuna_ir::unwrap_failed_symbol(&symbol), err) + &unwrap_err
        }
        None => String::new(),
    };
    made + &unwrap_failed + &format!(
        "\n#[doc(hidden)]\n#[no_mangle]\n#[allow(improper_ctypes_definitions, private_interfaces)]\n\
         pub unsafe extern \"C\" fn {symbol}(\
         __lacuna_run: *mut ::lacuna::__private::RawRun, __lacuna_out: *mut {out}{sep}{params}) -> u32 {{\n    \
         let mut __lacuna_call = ::core::option::Option::Some(move || unsafe {{ {write} }});\n    \
         unsafe {{ ::lacuna::__private::run_call(__lacuna_run, &mut || {{ if let ::core::option::Option::Some(__lacuna_f) = __lacuna_call.take() {{ __lacuna_f() }} }}) }}\n}}\n",
        sep = if params.is_empty() { "" } else { ", " },
        params = params.join(", "),
    )
}

/// The views of a box of `kind` ([`lacuna_ir::AnyBox`]) for each of `targets` (plain host types, by name) and each
/// scalar: `is::<T>()`, and `downcast_ref::<T>()` (a scalar's copied out), as shims over the box JIT code points to.
fn any_views(kind: lacuna_ir::AnyBox, targets: &[String], paths: &TypePaths) -> Vec<lacuna_checker::ScalarFn> {
    use lacuna_ir::{AnyBox, AnyView};
    let scalars = lacuna_checker::SHIM_SCALARS.iter().map(|s| (s.to_string(), true));
    let mut out = Vec::new();
    for (target, scalar) in targets.iter().map(|t| (t.clone(), false)).chain(scalars) {
        let path = paths.qualify(&target);
        let views = [
            (AnyView::Is, format!("(**__lacuna_m).is::<{path}>()"), "bool".to_owned()),
            match scalar {
                true => (
                    AnyView::DowncastRef,
                    format!("(**__lacuna_m).downcast_ref::<{path}>().copied()"),
                    format!("Option<{target}>"),
                ),
                false => (
                    AnyView::DowncastRef,
                    format!("(**__lacuna_m).downcast_ref::<{path}>()"),
                    format!("Option<&{target}>"),
                ),
            },
        ];
        for (view, body, ret) in views {
            out.push(lacuna_checker::ScalarFn {
                name: AnyBox::view_name(view, &target),
                module: None,
                method_of: None,
                params: Vec::new(),
                ret,
                made: Some(body),
                callable: None,
                viewed: Some(kind.alias().to_owned()),
            });
        }
    }
    out
}

/// The payload types of a `Result<T, E>` result ([`lacuna_checker::ScalarFn::ret`]).
fn result_payloads(ret: &str) -> Option<(&str, &str)> {
    ret.strip_prefix("Result<")?.strip_suffix('>')?.split_once(", ")
}

/// Writes a `Result`'s payload `__lacuna_v` of type `ty` at offset 8 of `__lacuna_out` (unaligned: a host
/// struct's alignment can exceed 8): a `String` as [pointer, capacity, length] (its buffer is the JIT's from then
/// on), a value of a plain type moved there (the JIT moves it on into a box), `()` not at all.
fn write_payload(ty: &str) -> String {
    match ty {
        "()" => "let () = __lacuna_v;".to_owned(),
        // A `String`'s or a vector's buffer: the JIT's from then on.
        t if t == "String" || t.starts_with("Vec<") => {
            "let mut __lacuna_s = ::core::mem::ManuallyDrop::new(__lacuna_v); \
             ::core::ptr::write_unaligned(__lacuna_out.add(8).cast::<[usize; 3]>(), \
             [__lacuna_s.as_mut_ptr() as usize, __lacuna_s.capacity(), __lacuna_s.len()])"
                .to_owned()
        }
        _ => format!("::core::ptr::write_unaligned(__lacuna_out.add(8).cast::<{ty}>(), __lacuna_v)"),
    }
}

/// The shim `name` that panics as `Result::<_, E>::expect(message)` does with the error of type `payload`
/// (`unwrap` is `expect` with std's fixed message), or as `expect_err(message)` with the `Ok` value: reading the
/// payload where JIT code keeps it: a plain type at its address (a `&T` too: the JIT holds the referent's
/// address), a `String` as [pointer, capacity, length], a scalar as itself. The payload stays the JIT's: it is only
/// formatted (a `String` through a `ManuallyDrop` that never frees it).
fn unwrap_failed_shim(name: &str, payload: &str) -> String {
    let read = match payload {
        "()" => "&()".to_owned(),
        "String" => "::core::mem::ManuallyDrop::new({ let __lacuna_w = __lacuna_err.cast::<[usize; 3]>().read(); \
             ::std::string::String::from_raw_parts(__lacuna_w[0] as *mut u8, __lacuna_w[2], __lacuna_w[1]) })"
            .to_owned(),
        v if v.starts_with("Vec<") => format!(
            "::core::mem::ManuallyDrop::new({{ let __lacuna_w = __lacuna_err.cast::<[usize; 3]>().read(); \
             ::std::vec::Vec::from_raw_parts(__lacuna_w[0] as *mut {}, __lacuna_w[2], __lacuna_w[1]) }})",
            &v["Vec<".len()..v.len() - 1]
        ),
        _ => format!("&*__lacuna_err.cast::<{}>()", payload.trim_start_matches('&')),
    };
    format!(
        "\n#[doc(hidden)]\n#[no_mangle]\n#[allow(improper_ctypes_definitions)]\n\
         pub unsafe extern \"C\" fn {name}(__lacuna_run: *mut ::lacuna::__private::RawRun, \
         __lacuna_err: *const u8, __lacuna_m: *const u8, __lacuna_m_len: usize) -> u32 {{\n    \
         let __lacuna_msg = unsafe {{ ::core::str::from_utf8_unchecked(::core::slice::from_raw_parts(__lacuna_m, __lacuna_m_len)) }};\n    \
         let __lacuna_e = unsafe {{ {read} }};\n    \
         unsafe {{ ::lacuna::__private::run_call(__lacuna_run, &mut || ::core::panic!(\"{{}}: {{:?}}\", __lacuna_msg, &*__lacuna_e)) }}\n}}\n",
    )
}

/// What an instrumented host is built as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostLibrary {
    /// A `dylib` snippet libraries link to, exported for them (see [`lacuna_checker::export`]): it fails where the
    /// export does not compile.
    Exported,
    /// A library of its own: snippet libraries hold a copy of the host.
    Standalone,
}

/// Instruments every hole of `prepared`, asking rustc (`-Z no-codegen`) until the host compiles.
pub fn instrument(prepared: &PreparedHost, rustc: &Rustc, library: HostLibrary) -> Result<Instrumented, ExecError> {
    let check = |text: &str| -> Result<Tried<()>, ExecError> {
        let errors = rustc
            .errors(text)
            .map_err(|e| ExecError::Instrument { detail: e.to_string() })?
            .ok_or_else(|| ExecError::Instrument { detail: "rustc did not finish checking the host".into() })?;
        Ok(if errors.is_empty() { Tried::Compiled(()) } else { Tried::Errors(errors) })
    };
    Ok(instrument_with(prepared, library, check)?.0)
}

/// What one round's instrumented host came to.
pub enum Tried<T> {
    /// It compiled (and this is what the attempt made of it: a library).
    Compiled(T),
    /// rustc's errors, with spans in the instrumented text: the next round leaves out what they implicate.
    Errors(Vec<RustcError>),
}

/// [`instrument`], with each round's text handed to `attempt`: a build, say, so a host that compiles as first
/// rendered (the usual case) is compiled once, not checked and then compiled.
pub fn instrument_with<T>(
    prepared: &PreparedHost,
    library: HostLibrary,
    mut attempt: impl FnMut(&str) -> Result<Tried<T>, ExecError>,
) -> Result<(Instrumented, T), ExecError> {
    let outline = &prepared.host.outline;
    let export = (library == HostLibrary::Exported).then_some(&outline.export);
    let edits = export.as_ref().map(|e| &e.edits[..]);
    let mut sites: Vec<SitePlan> = prepared
        .host
        .holes
        .iter()
        .enumerate()
        .map(|(i, hole)| {
            let scope = prepared.scopes[i].clone();
            let modes = scope
                .as_ref()
                .map(|s| s.bindings.iter().map(|b| initial_mode(b, hole.in_async)).collect())
                .unwrap_or_default();
            SitePlan { site: hole.number as u32, scope, modes, in_async: hole.in_async, in_unsafe: hole.in_unsafe }
        })
        .collect();
    let mut host_fns = outline.scalar_fns.clone();
    // The host closures the holes see that JIT code can call: a shim for each type of them.
    for binding in prepared.scopes.iter().flatten().flat_map(|s| &s.bindings) {
        let Some(f) = binding.dyn_callable().as_deref().and_then(lacuna_checker::callable_fn) else { continue };
        if !host_fns.iter().any(|g| g.symbol() == f.symbol()) {
            host_fns.push(f);
        }
    }
    let mut fields = outline.struct_fields.clone();
    let mut structs = outline.plain_structs.clone();
    let mut enums = outline.plain_enums.clone();
    let mut atomics = outline.named.atomic_statics.clone();
    // The types declared in blocks around holes: only the exported host can name them (in the modules it moves
    // them to); a standalone one does without them and whatever names them.
    let paths = if export.is_some() { outline.named.block_types.clone() } else { Vec::new() };
    if export.is_none() {
        let block = TypePaths(&outline.named.block_types);
        atomics.retain(|(name, path)| name == path);
        fields.retain(|f| !block.mentions(&f.ty_name));
        structs.retain(|s| !block.mentions(s));
        enums.retain(|e| !block.mentions(&e.name));
        // (A block's functions are at paths only the export makes.)
        let block_fn = |f: &lacuna_checker::ScalarFn| {
            outline.named.block_fns.iter().any(|(name, path)| *name == f.name && Some(path) == Some(&f.path()))
        };
        host_fns.retain(|f| {
            let self_ty = f.method_of.as_ref().map(|(ty, _)| ty.as_str()).unwrap_or_default();
            !block.mentions(self_ty)
                && !block.mentions(&f.ret)
                && !f.params.iter().any(|p| block.mentions(p))
                && !block_fn(f)
        });
    }
    let mut tuples = outline.tuple_types.clone();
    // The maps the holes see as bindings: the views JIT code reads them through, a shim each per map type, and
    // the layout of the entries' tuple type.
    for binding in prepared.scopes.iter().flatten().flat_map(|s| &s.bindings) {
        let Some(map_type) = binding.ty.as_deref().and_then(lacuna_checker::viewed_map) else { continue };
        for f in lacuna_checker::map_binding_views(map_type) {
            if !host_fns.iter().any(|g| g.symbol() == f.symbol()) {
                host_fns.push(f);
            }
        }
        if let Some(t) = lacuna_checker::map_iter_tuple(map_type).filter(|t| !tuples.contains(t)) {
            tuples.push(t);
        }
    }
    // Host values behind `Box<dyn Any>` the holes see: each kind of box as a struct without fields (by its alias),
    // and its views for every plain host type and scalar a snippet may look for in one.
    let any_kinds: Vec<lacuna_ir::AnyBox> = lacuna_ir::AnyBox::ALL
        .into_iter()
        .filter(|k| {
            prepared
                .scopes
                .iter()
                .flatten()
                .flat_map(|s| &s.bindings)
                .any(|b| b.ty.as_deref().is_some_and(|t| lacuna_ir::AnyBox::mentioned_in(t).contains(k)))
        })
        .collect();
    for kind in &any_kinds {
        let targets: Vec<String> = structs.iter().cloned().chain(enums.iter().map(|e| e.name.clone())).collect();
        for f in any_views(*kind, &targets, &TypePaths(&paths)) {
            if !host_fns.iter().any(|g| g.symbol() == f.symbol()) {
                host_fns.push(f);
            }
        }
        structs.push(kind.alias().to_owned());
    }
    // Boxed trait objects of the host's traits the holes see (`Vec<Box<dyn Shape>>`): each as a struct without
    // fields (by its alias), its trait's `&self` methods shims of the alias's; the methods of traits no hole sees
    // in a box are not exported.
    let seen = |name: &str| {
        let written = format!("Box<dyn {name}>");
        prepared
            .scopes
            .iter()
            .flatten()
            .flat_map(|s| &s.bindings)
            .any(|b| b.ty.as_deref().is_some_and(|t| t.replace(" + 'static", "").contains(&written)))
    };
    let dyn_traits: Vec<&String> = outline.named.dyn_traits.iter().filter(|name| seen(name)).collect();
    host_fns.retain(|f| match &f.method_of {
        Some((ty, _)) if ty.starts_with(lacuna_ir::DYN_BOX_PREFIX) => {
            dyn_traits.iter().any(|t| lacuna_ir::dyn_box_alias(t) == *ty)
        }
        _ => true,
    });
    structs.extend(dyn_traits.iter().map(|t| lacuna_ir::dyn_box_alias(t)));
    // A type in a module has fields the crate root reaches only in the exported host (every field `pub`).
    let mut lock_holders: Vec<_> =
        outline.lock_holders.iter().filter(|h| export.is_some() || !h.in_module).cloned().collect();
    // Holes whose value may be a map or set the JIT builds: a writer each (dropped, all of them, if one does not compile).
    let mut writers: Vec<(u32, String)> = sites
        .iter()
        .enumerate()
        .filter_map(|(i, site)| {
            let glue = prepared.glue_type(i)?;
            let generic = site.scope.as_ref().is_some_and(|s| !s.type_params.is_empty());
            let collection = glue.contains("Map<") || glue.contains("Set<");
            (collection && !generic && !glue.contains('\'')).then(|| (site.site, glue.to_owned()))
        })
        .collect();
    for _ in 0..MAX_ROUNDS {
        let exported = Exported {
            host_fns: &host_fns,
            fields: &fields,
            structs: &structs,
            tuples: &tuples,
            enums: &enums,
            atomics: &atomics,
            writers: &writers,
            lock_holders: &lock_holders,
            paths: TypePaths(&paths),
        };
        let rendered = render(prepared, edits, &sites, &exported);
        let errors = match attempt(&rendered.text)? {
            Tried::Compiled(made) => {
                let mut instrumented =
                    Instrumented { text: rendered.text, mirror: None, sites, host_fns, anchors: rendered.anchors };
                if let Some(export) = export {
                    instrumented.mirror = Some(mirror(&prepared.host.text, export, &instrumented));
                }
                return Ok((instrumented, made));
            }
            Tried::Errors(errors) => errors,
        };
        // A walk for locks that does not compile (a name the syntax cannot tell apart): faults leave those types'
        // locks as the field paths the snippet names reach them.
        if errors.iter().flat_map(|e| &e.spans).any(|span| span.start >= rendered.locks_at) {
            lock_holders.clear();
            continue;
        }
        if errors.iter().flat_map(|e| &e.spans).any(|span| span.start >= rendered.writers_at) {
            writers.clear();
            continue;
        }
        // Field offsets or struct sizes that do not compile (a name the syntax cannot tell apart): the JIT does
        // without them.
        if errors.iter().flat_map(|e| &e.spans).any(|span| span.start >= rendered.fields_at) {
            fields.clear();
            structs.clear();
            tuples.clear();
            enums.clear();
            atomics.clear();
            continue;
        }
        // A shim that does not compile (a function the syntax cannot tell is special) costs only the JIT's calls
        // of that function: it is dropped (all of them, when an error cannot be placed in one).
        let in_shims: Vec<_> =
            errors.iter().flat_map(|e| &e.spans).filter(|span| span.end > rendered.shims_at).collect();
        if !in_shims.is_empty() {
            let failing: Vec<usize> = rendered
                .shims
                .iter()
                .enumerate()
                .filter(|(_, r)| in_shims.iter().any(|span| r.start <= span.start && span.end <= r.end))
                .map(|(i, _)| i)
                .collect();
            if failing.is_empty() {
                host_fns.clear();
            } else {
                host_fns =
                    host_fns.into_iter().enumerate().filter(|(i, _)| !failing.contains(i)).map(|(_, f)| f).collect();
            }
            continue;
        }
        // Each implicated binding is demoted one step per round (several errors often name the same one): the
        // one an error points at when its primary span is in an entry (`log` when a closure in the table holds it
        // borrowed), else every entry its spans touch.
        let mut implicated = std::collections::BTreeSet::new();
        for error in &errors {
            let in_entries = |spans: &[Range<usize>]| -> Vec<(usize, usize)> {
                let mut out = Vec::new();
                for span in spans {
                    for (site, binding, range) in &rendered.entries {
                        if range.start <= span.start && span.end <= range.end {
                            out.push((*site, *binding));
                        }
                    }
                }
                out
            };
            // A use of a value an earlier hole's entry may have moved (E0382): that entry is what gives way (it
            // hands the binding over by reference instead), not the later use.
            let moved_by: Vec<Range<usize>> = match error.code.as_deref() {
                Some("E0382") => error.spans.iter().filter(|s| !error.primary.contains(s)).cloned().collect(),
                _ => Vec::new(),
            };
            let pointed = match in_entries(&moved_by) {
                earlier if !earlier.is_empty() => earlier,
                _ => in_entries(&error.primary),
            };
            implicated.extend(if pointed.is_empty() { in_entries(&error.spans) } else { pointed });
        }
        let mut demoted = false;
        for (site, binding) in implicated {
            let mode = sites[site].modes[binding];
            let next = demote(mode, &sites[site].bindings()[binding]);
            demoted |= next != mode;
            sites[site].modes[binding] = next;
        }
        if !demoted {
            return Err(ExecError::Instrument { detail: describe(&errors) });
        }
    }
    Err(ExecError::Instrument { detail: format!("no binding table compiled after {MAX_ROUNDS} rounds") })
}

/// How a host closure (a closure, a type parameter bounded by an `Fn` trait, an `impl Fn(..)` parameter: types the
/// snippet's entry cannot name) is handed to the snippet: as a `dyn` value of its `Fn` trait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClosurePass {
    /// `&dyn Fn(..)`: the snippet gets a copy of the reference.
    Shared(String),
    /// `&mut dyn FnMut(..)` (the host declared the binding `mut`).
    Mutable(String),
    /// `Option<Box<dyn FnOnce(..) + '_>>`, which the snippet takes the closure out of when it calls it; only when
    /// the host does not use the closure after the hole (else nothing is handed over).
    Once(String),
}

impl ClosurePass {
    /// The type of the host's local that holds the closure for the entry.
    pub(crate) fn host_type(&self) -> String {
        match self {
            ClosurePass::Shared(t) => format!("&dyn {t}"),
            ClosurePass::Mutable(t) => format!("&mut dyn {t}"),
            ClosurePass::Once(t) => {
                format!("::core::option::Option<::std::boxed::Box<dyn {t} + '_>>")
            }
        }
    }

    /// The type the snippet sees the binding as.
    pub(crate) fn snippet_type(&self) -> String {
        match self {
            ClosurePass::Shared(t) => format!("&dyn {t}"),
            ClosurePass::Mutable(t) => format!("&mut dyn {t}"),
            ClosurePass::Once(t) => format!("::std::boxed::Box<dyn {t}>"),
        }
    }
}

/// See [`ClosurePass`]. An `FnMut` the host did not declare `mut` cannot be called through, so it is not handed
/// over.
pub(crate) fn closure_as_dyn(binding: &Binding) -> Option<ClosurePass> {
    let callable = binding.callable.as_ref()?;
    let text = callable.trait_text();
    match callable.kind {
        lacuna_ir::FnKind::Fn => Some(ClosurePass::Shared(text)),
        lacuna_ir::FnKind::FnMut if binding.mutable => Some(ClosurePass::Mutable(text)),
        lacuna_ir::FnKind::FnMut => None,
        lacuna_ir::FnKind::FnOnce => Some(ClosurePass::Once(text)),
    }
}

/// The most a snippet could need of a binding. In async code a snippet never takes a host binding: the hole's
/// future may be dropped while the snippet holds it, and the host's future would then drop it too.
///
/// A host closure goes over as a `dyn` reference the host holds in a local (see [`ClosurePass`]); in async code that
/// local would live across the hole's await and make the host's future neither `Send` nor `Sync`-safe to move, so
/// closures are not handed to snippets there.
fn initial_mode(binding: &Binding, in_async: bool) -> HostMode {
    if in_async && closure_as_dyn(binding).is_some() {
        return HostMode::Absent;
    }
    match (binding.copy, binding.mutable) {
        (false, true) if in_async => HostMode::Mutable,
        (false, false) if in_async => HostMode::Shared,
        (false, _) => HostMode::Movable,
        (true, true) => HostMode::Mutable,
        (true, false) => HostMode::Shared,
    }
}

fn demote(mode: HostMode, binding: &Binding) -> HostMode {
    match mode {
        HostMode::Movable if binding.mutable => HostMode::Mutable,
        HostMode::Movable | HostMode::Mutable => HostMode::Shared,
        HostMode::Shared | HostMode::Absent => HostMode::Absent,
    }
}

fn describe(errors: &[RustcError]) -> String {
    errors
        .iter()
        .take(5)
        .map(|e| format!("{}{}", e.code.as_deref().map(|c| format!("[{c}] ")).unwrap_or_default(), e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

struct Rendered {
    text: String,
    /// (site index, binding index, range of the text that passes it) for every passed binding.
    entries: Vec<(usize, usize, Range<usize>)>,
    anchors: Vec<(usize, usize)>,
    /// Where the shims start.
    shims_at: usize,
    /// Where each of `host_fns`' shims is.
    shims: Vec<std::ops::Range<usize>>,
    /// Where the field offsets start (after the shims).
    fields_at: usize,
    /// Where the map writers start (after the field offsets).
    writers_at: usize,
    /// Where the walks for locks start (last).
    locks_at: usize,
}

/// The mirror, with each site's declarations of the blocks around it made from the instrumented host (a copied
/// function's holes are instrumented as the host's are).
fn mirror(host: &str, export: &lacuna_checker::export::Export, instrumented: &Instrumented) -> Mirror {
    let sites = export
        .sites
        .iter()
        .map(|site| {
            let mut prefix = String::new();
            for block in &site.blocks {
                prefix.push_str("{ ");
                if let Some(import) = &block.import {
                    prefix.push_str(import);
                    prefix.push('\n');
                }
                for range in &block.copied {
                    let (start, end) = (instrumented.offset(range.start), instrumented.offset(range.end));
                    let copy = instrumented.text.get(start..end).unwrap_or(&host[range.clone()]);
                    prefix.push_str(copy);
                    prefix.push('\n');
                }
            }
            MirrorSite { at: site.mirror_at, prefix, blocks: site.blocks.len() }
        })
        .collect();
    Mirror { text: format!("{}{PRELUDE_INJECTION}", export.mirror), sites }
}

#[allow(clippy::too_many_arguments)]
/// What the instrumented host exports for JIT code besides its entry points, as one round of
/// [`instrument_with`] has it.
struct Exported<'a> {
    host_fns: &'a [lacuna_checker::ScalarFn],
    fields: &'a [lacuna_checker::StructField],
    structs: &'a [String],
    tuples: &'a [lacuna_ir::TupleElem],
    enums: &'a [lacuna_checker::EnumOutline],
    atomics: &'a [(String, String)],
    writers: &'a [(u32, String)],
    lock_holders: &'a [lacuna_checker::LockHolder],
    paths: TypePaths<'a>,
}

/// The paths by which the instrumented host's crate root names the plain types declared in blocks around holes
/// (`Reading` is `__lacuna_block_0::Reading`; [`lacuna_checker::NamedItems::block_types`]). Symbols keep the
/// names, which no other type of the host has.
struct TypePaths<'a>(&'a [(String, String)]);

impl TypePaths<'_> {
    /// `ty` (a type as written: `Option<&Reading>`) with each block type's name, as a whole identifier not already
    /// after `::`, replaced by its path.
    fn qualify(&self, ty: &str) -> String {
        if self.0.is_empty() {
            return ty.to_owned();
        }
        let mut out = String::with_capacity(ty.len());
        let mut rest = ty;
        while let Some(start) = rest.find(|c: char| c.is_alphanumeric() || c == '_') {
            out.push_str(&rest[..start]);
            let len = rest[start..].find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len() - start);
            let word = &rest[start..start + len];
            match self.0.iter().find(|(name, _)| name == word) {
                Some((_, path)) if !out.ends_with("::") => out.push_str(path),
                _ => out.push_str(word),
            }
            rest = &rest[start + len..];
        }
        out.push_str(rest);
        out
    }

    /// `ty` names one of the block types.
    fn mentions(&self, ty: &str) -> bool {
        self.qualify(ty) != ty
    }
}

fn render(
    prepared: &PreparedHost,
    export: Option<&[lacuna_checker::export::HostEdit]>,
    sites: &[SitePlan],
    exported: &Exported,
) -> Rendered {
    let Exported { host_fns, fields, structs, tuples, enums, atomics, writers, lock_holders, ref paths } = *exported;
    let host = &prepared.host;
    let statics = lock_holders.iter().any(|h| h.shape == lacuna_checker::LockHolderShape::Static);
    let mut text = String::with_capacity(host.text.len() + 512 * sites.len() + 1024);
    let mut entries = Vec::new();
    let mut anchors = Vec::new();
    let mut at = 0;
    let mut pending = export.unwrap_or_default().iter().peekable();
    // The host's text up to `limit` with the export's edits in it, each followed by an anchor.
    let mut copy_until = |text: &mut String, anchors: &mut Vec<(usize, usize)>, at: &mut usize, limit: usize| {
        while let Some(edit) = pending.next_if(|e| {
            e.range.start < limit || (e.range.is_empty() && e.range.start == limit && limit == host.text.len())
        }) {
            if edit.range.start < *at {
                continue;
            }
            text.push_str(&host.text[*at..edit.range.start]);
            text.push_str(&edit.text);
            *at = edit.range.end;
            anchors.push((*at, text.len()));
        }
        text.push_str(&host.text[*at..limit]);
        *at = limit;
    };
    for (index, (hole, plan)) in host.holes.iter().zip(sites).enumerate() {
        copy_until(&mut text, &mut anchors, &mut at, hole.range.start);
        let bindings = plan.bindings();
        let ty = prepared.glue_type(index).map(|t| format!("::<{t}>")).unwrap_or_default();
        // The task is evaluated first, by reference (the host keeps its value), before any binding is handed over.
        let task = hole.task_range.clone().map_or("\"\"", |r| &host.text[r]);
        text.push_str(&format!("{{ let __lacuna_task = ::lacuna::__private::task_text(&({task})); "));
        if statics {
            text.push_str(&format!(
                "let mut __lacuna_static_locks = ::lacuna::__private::Seen::record(); \
                 crate::{STATIC_LOCKS}(&mut __lacuna_static_locks); "
            ));
        }
        if !hole.in_async {
            text.push_str(&format!("let mut __lacuna_moved = [0u8; {}]; ", bindings.len()));
        }
        // A closure's type cannot be written in the snippet's entry: it gets the closure as a `dyn` reference.
        for (i, (binding, mode)) in bindings.iter().zip(&plan.modes).enumerate() {
            let Some(pass) = closure_as_dyn(binding) else { continue };
            let value = match (&pass, mode) {
                (_, HostMode::Absent) => continue,
                (ClosurePass::Shared(_), _) => format!("&{}", binding.name),
                (ClosurePass::Mutable(_), _) => format!("&mut {}", binding.name),
                (ClosurePass::Once(_), HostMode::Movable) => {
                    format!("::core::option::Option::Some(::std::boxed::Box::new({}))", binding.name)
                }
                (ClosurePass::Once(_), _) => continue,
            };
            let start = text.len();
            text.push_str(&format!("let mut __lacuna_dyn_{i}: {} = {value}; ", pass.host_type()));
            entries.push((index, i, start..text.len()));
        }
        // In async code the hole is a future the host awaits in place (its snippet may await); its table goes by
        // value, so the host's future holds no borrowed temporary across the await.
        let (enter, table_open) = match hole.in_async {
            false => ("enter", "&["),
            true => ("enter_async", "["),
        };
        let ty = match (hole.in_async, prepared.glue_type(index)) {
            (true, Some(t)) => format!("::<{t}, {}>", bindings.len()),
            (true, None) => String::new(),
            (false, _) => ty,
        };
        text.push_str(&format!("let __lacuna_value = ::lacuna::__private::{enter}{ty}({}, {table_open}", plan.site));
        for (i, (binding, mode)) in bindings.iter().zip(&plan.modes).enumerate() {
            let start = text.len();
            let name = &binding.name;
            match mode {
                HostMode::Absent => text.push_str("::core::ptr::null_mut::<()>()"),
                HostMode::Shared | HostMode::Mutable
                    if matches!(closure_as_dyn(binding), Some(ClosurePass::Once(_))) =>
                {
                    text.push_str("::core::ptr::null_mut::<()>()")
                }
                _ if closure_as_dyn(binding).is_some() => {
                    text.push_str(&format!("::core::ptr::addr_of_mut!(__lacuna_dyn_{i}) as *mut ()"))
                }
                HostMode::Movable | HostMode::Mutable if binding.mutable => {
                    text.push_str(&format!("::core::ptr::addr_of_mut!({name}) as *mut ()"))
                }
                _ => text.push_str(&format!("::core::ptr::addr_of!({name}) as *mut ()")),
            }
            if *mode != HostMode::Absent {
                entries.push((index, i, start..text.len()));
            }
            text.push_str(", ");
        }
        let type_names: Vec<String> = plan
            .scope
            .as_ref()
            .map(|s| s.type_params.iter().map(|p| format!("::core::any::type_name::<{p}>()")).collect())
            .unwrap_or_default();
        match hole.in_async {
            false => text.push_str(&format!("], &mut __lacuna_moved, &[{}], &__lacuna_task); ", type_names.join(", "))),
            true => text.push_str(&format!("], &[{}], &__lacuna_task).await; ", type_names.join(", "))),
        }
        for (i, (binding, mode)) in bindings.iter().zip(&plan.modes).enumerate() {
            if *mode == HostMode::Movable && closure_as_dyn(binding).is_none() {
                let start = text.len();
                text.push_str(&format!("if __lacuna_moved[{i}] != 0 {{ ::core::mem::forget({}); }} ", binding.name));
                entries.push((index, i, start..text.len()));
            }
        }
        if statics {
            text.push_str(&format!(
                "crate::{STATIC_LOCKS}(&mut ::lacuna::__private::Seen::clearing(&__lacuna_static_locks)); "
            ));
        }
        text.push_str("__lacuna_value }");
        at = hole.range.end;
        anchors.push((at, text.len()));
    }
    copy_until(&mut text, &mut anchors, &mut at, host.text.len());
    text.push_str(PRELUDE_INJECTION);
    text.push_str(ENTRY_POINTS);
    text.push_str(&positions(&host.text, &text, &anchors));
    let shims_at = text.len();
    let mut shim_ranges = Vec::new();
    for f in host_fns {
        let start = text.len();
        text.push_str(&shim(f, paths));
        shim_ranges.push(start..text.len());
    }
    // The offsets of the host structs' scalar and `String` fields, for JIT code that reads and writes them in
    // place, and the structs' sizes, for JIT code that steps through slices of them.
    let fields_at = text.len();
    // A host with a `Drop` impl gets no shims: JIT code drops the values it owns later than rustc would (at the
    // end of the run), which only a `Drop` with effects could tell.
    let shims = !host.text.contains("Drop for");
    for name in structs {
        if let Some(name) = name.strip_prefix(lacuna_ir::DYN_BOX_PREFIX) {
            text.push_str(&format!(
                "\n#[doc(hidden)]\n#[allow(non_camel_case_types)]\npub type {} = ::std::boxed::Box<dyn crate::{name}>;\n",
                lacuna_ir::dyn_box_alias(name),
            ));
        }
        if let Some(kind) = lacuna_ir::AnyBox::ALL.into_iter().find(|k| k.alias() == name) {
            text.push_str(&format!(
                "\n#[doc(hidden)]\n#[allow(non_camel_case_types)]\npub type {} = {};\n",
                kind.alias(),
                kind.source()
            ));
        }
        text.push_str(&format!(
            "\n#[doc(hidden)]\n#[no_mangle]\npub static {}: usize = ::core::mem::size_of::<{}>();\n",
            lacuna_ir::struct_size_symbol(name),
            paths.qualify(name),
        ));
        if shims {
            text.push_str(&struct_shims(name, paths));
        }
    }
    if shims {
        for e in enums {
            text.push_str(&enum_shims(e, paths));
        }
    }
    // The layouts rustc gave the tuple types the host writes: size, alignment, each part's offset.
    for t in tuples {
        let ty = t.static_name();
        let mut layout = vec![format!("::core::mem::size_of::<{ty}>()"), format!("::core::mem::align_of::<{ty}>()")];
        layout.extend((0..t.parts().len()).map(|i| format!("::core::mem::offset_of!({ty}, {i})")));
        layout.resize(2 + lacuna_ir::TupleElem::MAX, "0".to_owned());
        text.push_str(&format!(
            "\n#[doc(hidden)]\n#[no_mangle]\npub static {}: [usize; {}] = [{}];\n",
            lacuna_ir::tuple_layout_symbol(t),
            2 + lacuna_ir::TupleElem::MAX,
            layout.join(", "),
        ));
    }
    for f in fields {
        let ty = paths.qualify(&f.ty_name);
        text.push_str(&format!(
            "\n#[doc(hidden)]\n#[no_mangle]\npub static {}: usize = ::core::mem::offset_of!({ty}, {});\n",
            f.symbol(),
            f.field
        ));
        // Where an `Option` field's payload is, whatever niche rustc chose: the field matched as std's `Option`.
        if f.option {
            text.push_str(&format!(
                "\n#[doc(hidden)]\n#[no_mangle]\npub unsafe extern \"C\" fn {}(p: *const u8) -> *const u8 {{\n    \
                 match unsafe {{ &(*p.cast::<{}>()).{} }} {{\n        \
                 ::core::option::Option::Some(x) => x as *const _ as *const u8,\n        \
                 ::core::option::Option::None => ::core::ptr::null(),\n    }}\n}}\n",
                f.option_symbol(),
                ty,
                f.field
            ));
        }
    }
    // The addresses of the host's atomic statics, for JIT code that acts on them in place.
    for (name, path) in atomics {
        text.push_str(&format!(
            "\n#[doc(hidden)]\n#[no_mangle]\npub extern \"C\" fn {}() -> *const u8 {{ &{path} as *const _ as *const u8 }}\n",
            lacuna_ir::atomic_static_symbol(name),
        ));
    }
    let writers_at = text.len();
    for (site, glue) in writers {
        text.push_str(&map_writer(*site, glue));
    }
    let locks_at = text.len();
    for holder in lock_holders {
        text.push_str(&lock_holder_impl(holder));
    }
    if statics {
        text.push_str(&static_locks(lock_holders));
    }
    Rendered { text, entries, anchors, shims_at, shims: shim_ranges, fields_at, writers_at, locks_at }
}

#[cfg(test)]
mod entry_point_tests {
    use lacuna_ir::symbol::{HOST_DEALLOC, HOST_PRINT, HOST_REALLOC, HOST_VEC_LAYOUT, OPTION_STR_WRITER, STR_WRITER};
    use lacuna_ir::{option_writer_symbol, Scalar};

    /// The names the JIT and the loader look up are the ones the entry points define.
    #[test]
    fn entry_points_define_the_symbols_the_jit_looks_up() {
        let defines = |name: &str| {
            super::ENTRY_POINTS.contains(&format!("fn {name}(")) || super::ENTRY_POINTS.contains(&format!("=> {name}"))
        };
        for name in [HOST_REALLOC, HOST_DEALLOC, HOST_PRINT, HOST_VEC_LAYOUT, STR_WRITER, OPTION_STR_WRITER] {
            assert!(defines(name), "{name} is not defined by host/entry_points.rs");
        }
        for s in [Scalar::I8, Scalar::U64, Scalar::Usize, Scalar::F32, Scalar::Bool, Scalar::Char] {
            let name = option_writer_symbol(s);
            assert!(defines(&name), "{name} is not defined by host/entry_points.rs");
        }
    }
}

#[cfg(test)]
mod type_path_tests {
    use super::TypePaths;

    #[test]
    fn block_types_are_named_by_their_paths_as_whole_identifiers() {
        let paths = [("Item".to_owned(), "__lacuna_block_0::Item".to_owned())];
        let paths = TypePaths(&paths);
        assert_eq!(paths.qualify("Option<&Item>"), "Option<&__lacuna_block_0::Item>");
        assert_eq!(paths.qualify("Result<Item, String>"), "Result<__lacuna_block_0::Item, String>");
        // Other names that contain it, and a path already written, stay as they are.
        assert_eq!(paths.qualify("Vec<Items>"), "Vec<Items>");
        assert_eq!(paths.qualify("shop::Item"), "shop::Item");
        assert!(paths.mentions("Vec<&Item>"));
        assert!(!paths.mentions("ItemKind"));
        assert_eq!(TypePaths(&[]).qualify("Item"), "Item");
    }
}
