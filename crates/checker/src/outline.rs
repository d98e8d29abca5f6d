//! What stages need to know of a host's items, from one parse of it ([`HostOutline`]): the items as a prompt
//! lists them (functions as signatures, no bodies; types in full; `impl` blocks with their methods'
//! signatures), which host functions and structs JIT code may reach, and the host as a `dylib` ([`Export`]).
//! Pure syntax.

use lacuna_ir::symbol::{field_offset_symbol, module_shim_symbol, shim_symbol};
use ra_ap_syntax::ast::{self, HasAttrs, HasGenericParams, HasModuleItem, HasName, HasVisibility};
use ra_ap_syntax::{AstNode, Edition, SourceFile, SyntaxKind};

use crate::export::{export, Export};

/// Everything later stages read of a host's items, from one parse of its text ([`crate::Host::parse`]).
#[derive(Debug, Clone)]
pub struct HostOutline {
    /// What a prompt lists ([`prompt_signatures`]).
    pub signatures: Vec<String>,
    /// Host functions JIT code may call through shims.
    pub scalar_fns: Vec<ScalarFn>,
    /// Struct fields JIT code may reach in place.
    pub struct_fields: Vec<StructField>,
    /// Structs JIT code steps through slices of.
    pub plain_structs: Vec<String>,
    pub plain_enums: Vec<EnumOutline>,
    /// Items JIT code reaches by name that only some hosts can name where they are.
    pub named: NamedItems,
    /// Tuple types the host writes whose layout JIT code can use ([`tuple_types`]).
    pub tuple_types: Vec<lacuna_ir::TupleElem>,
    /// Types the instrumented host walks for locks after a snippet faults ([`crate::locks`]).
    pub lock_holders: Vec<crate::locks::LockHolder>,
    /// The host defines `fn main` at top level.
    pub has_main: bool,
    /// The host raises lint levels somewhere (a `deny` or `forbid` anywhere, in attributes or macros): a warning
    /// in a snippet could then be an error.
    pub raises_lints: bool,
    /// The host as a `dylib` and its mirror, for every hole.
    pub export: Export,
}

impl HostOutline {
    /// The outline of the host `text`, parsed as `file`, with holes at `holes`.
    pub(crate) fn of(text: &str, file: &SourceFile, holes: &[std::ops::Range<usize>]) -> HostOutline {
        let export = export(text, file, holes);
        let plain = PlainTypes::of(file, &export.block_items);
        HostOutline {
            signatures: prompt_signatures_of(text, file),
            scalar_fns: scalar_fns(file, &plain, &block_fns(file, &export.block_items)),
            struct_fields: struct_fields(&plain.structs),
            plain_structs: plain.structs.iter().map(|(name, _)| name.clone()).collect(),
            plain_enums: plain.enums.clone(),
            named: NamedItems {
                block_types: plain.block.clone(),
                atomic_statics: atomic_statics(file, &export.block_items),
                block_fns: block_fns(file, &export.block_items),
                dyn_traits: dyn_traits(file).iter().filter_map(|t| Some(t.name()?.text().to_string())).collect(),
            },
            tuple_types: tuple_types(file),
            lock_holders: crate::locks::lock_holders(file),
            has_main: file
                .items()
                .any(|item| matches!(item, ast::Item::Fn(f) if f.name().is_some_and(|n| n.text() == "main"))),
            raises_lints: file
                .syntax()
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .any(|t| t.kind() == SyntaxKind::IDENT && matches!(t.text(), "deny" | "forbid")),
            export,
        }
    }
}

/// Signatures of the items `file` defines (at top level, in `mod`s and in `impl`/`trait` blocks), in source
/// order. A file that does not parse yields what parsed.
fn signatures(file: &SourceFile) -> Vec<String> {
    let mut out = Vec::new();
    items(file.items(), &mut out);
    out
}

/// What a prompt lists for a host: its own items' signatures and the parts of the prelude it hands holes —
/// the capabilities' methods when it makes capabilities, `Classified`'s when it uses `Classified` (constructors
/// that need the host's authority are not listed). For items Lacuna writes (a session's); a host's are in its
/// [`HostOutline`].
pub fn prompt_signatures(text: &str) -> Vec<String> {
    prompt_signatures_of(text, &SourceFile::parse(text, Edition::Edition2021).tree())
}

fn prompt_signatures_of(text: &str, file: &SourceFile) -> Vec<String> {
    const CAPABILITIES: &[&str] = &[
        "Dir",
        "Net",
        "Env",
        "Clock",
        "with_dir",
        "with_net",
        "with_env",
        "with_clock",
        "open_ambient",
        "from_ambient",
    ];
    let mut out = signatures(file);
    if CAPABILITIES.iter().any(|c| text.contains(c)) && text.contains("cap") {
        out.extend(capability_signatures());
    }
    if text.contains("Classified") {
        out.extend(classified_signatures());
    }
    out
}

/// `Classified`'s methods a snippet may call.
pub fn classified_signatures() -> Vec<String> {
    let file = SourceFile::parse(CLASSIFIED_SOURCE, Edition::Edition2021).tree();
    file.items()
        .filter_map(|item| match item {
            ast::Item::Impl(i) if i.trait_().is_none() => Some(i),
            _ => None,
        })
        .filter_map(|i| {
            let list = i.assoc_item_list()?;
            let header = header_before(i.syntax(), Some(list.syntax().clone()));
            let methods: Vec<String> = list
                .assoc_items()
                .filter_map(|a| match a {
                    ast::AssocItem::Fn(f) if f.name().is_some_and(|n| n.text() != "declassify") => {
                        Some(format!("{};", fn_signature(&f)))
                    }
                    _ => None,
                })
                .collect();
            Some(format!("{header} {{ {} }} (its closures must be pure; `Debug` shows nothing)", methods.join(" ")))
        })
        .collect()
}

const CLASSIFIED_SOURCE: &str = include_str!("../prelude/classified.rs");

/// The public surface of `lacuna::cap` a snippet may use, each capability's methods and the error type, as one
/// `mod lacuna::cap { .. }` entry (the way the outline shows a module).
pub fn capability_signatures() -> Vec<String> {
    const HOST_ONLY: &[&str] = &["open_ambient", "from_ambient"];
    let file = SourceFile::parse(CAP_SOURCE, Edition::Edition2021).tree();
    let Some(cap) = file.items().find_map(|item| match item {
        ast::Item::Module(m) if m.name().is_some_and(|n| n.text() == "cap") => m.item_list(),
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in cap.items() {
        match item {
            ast::Item::Enum(e) if e.visibility().is_some() => {
                out.push(header_before(e.syntax(), None));
            }
            ast::Item::Impl(i) => {
                let Some(list) = i.assoc_item_list() else { continue };
                let header = header_before(i.syntax(), Some(list.syntax().clone()));
                if header.contains("'static") || header.contains("fmt::") {
                    continue;
                }
                let methods: Vec<String> = list
                    .assoc_items()
                    .filter_map(|a| match a {
                        ast::AssocItem::Fn(f) if f.visibility().is_some() || i.trait_().is_some() => {
                            let name = f.name()?.text().to_string();
                            (!HOST_ONLY.contains(&name.as_str())).then(|| format!("{};", fn_signature(&f)))
                        }
                        _ => None,
                    })
                    .collect();
                if !methods.is_empty() {
                    out.push(format!("{header} {{ {} }}", methods.join(" ")));
                }
            }
            _ => {}
        }
    }
    vec![format!("mod lacuna::cap {{ {} }}", out.join("; "))]
}

const CAP_SOURCE: &str = include_str!("../prelude/cap.rs");

/// A host function — at top level or `pub` in a top-level `mod` — or a method of a top-level inherent `impl`
/// taking `&self` or `&mut self`, whose other parameters are scalars spelled as primitive types or `&str`, and
/// whose result is a scalar, `()`, `String` or `Option` of a scalar: the JIT can call it through a shim the
/// instrumented host exports ([`ScalarFn::symbol`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalarFn {
    pub name: String,
    /// The `mod` it is declared in (`None` at top level).
    pub module: Option<String>,
    /// For a method: the `impl`'s type (a plain name) and whether the receiver is `&mut self`.
    pub method_of: Option<(String, bool)>,
    /// Parameter types, as written (`i64`, `bool`, `&str`, ...).
    pub params: Vec<String>,
    /// The result type, `()` when there is none.
    pub ret: String,
    /// A method the instrumented host adds to the type for JIT code (the host does not declare it): its body.
    /// The map views ([`map_view_symbol`]) are such methods.
    pub made: Option<String>,
    /// A host closure rather than a function: the type of the reference the hole's table points to
    /// (`&dyn Fn(&str) -> String`, [`lacuna_ir::Binding::dyn_callable`]), called through it.
    pub callable: Option<String>,
    /// A view of a hole binding that is a std map of this type (`HashMap<String, u32>`, as the binding's type is
    /// written; [`crate::MapBindingView`]) rather than a function: `made` is its body, reading the map as
    /// `__lacuna_m` and its argument as `__lacuna_k`.
    pub viewed: Option<String>,
}

/// The name of the method the instrumented host adds to a plain struct for JIT code to read its map field
/// `field` through: `values` (its values, as a `Vec<&V>`, in the map's own order) or `len`.
pub fn map_view_method(view: &str, field: &str) -> String {
    format!("__lacuna_{view}_{field}")
}

/// The symbol of the shim for map view `view` of `field` of struct `ty` ([`map_view_method`]).
pub fn map_view_symbol(ty: &str, view: &str, field: &str) -> String {
    shim_symbol(Some(ty), &map_view_method(view, field))
}

impl ScalarFn {
    /// Its result is a scalar or `()`, written to the shim's out parameter as itself.
    pub fn returns_scalar(&self) -> bool {
        self.ret == "()" || SHIM_SCALARS.contains(&self.ret.as_str())
    }

    /// The symbol of its shim: `(run, out, [self pointer,] args..) -> status`.
    pub fn symbol(&self) -> String {
        if let Some(dyn_type) = &self.callable {
            return lacuna_ir::callable_shim_symbol(dyn_type);
        }
        if let Some(map_type) = &self.viewed {
            return lacuna_ir::map_binding_view_symbol(map_type, &self.name);
        }
        match &self.module {
            Some(m) => module_shim_symbol(m, &self.name),
            None => shim_symbol(self.method_of.as_ref().map(|(ty, _)| ty.as_str()), &self.name),
        }
    }

    /// The path the host's own code calls it by, from the crate root.
    pub fn path(&self) -> String {
        match &self.module {
            Some(m) => format!("{m}::{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A named field of a sized type in a top-level struct (no generics, not `repr(packed)`): the instrumented host
/// exports its offset ([`StructField::symbol`]) so JIT code can read and write it in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructField {
    pub ty_name: String,
    pub field: String,
    /// The field's type is written `Option<..>`: the host also exports a shim that finds its payload
    /// ([`StructField::option_symbol`]; a host whose `Option` is not std's fails to compile it, and the JIT does
    /// without the fields).
    pub option: bool,
}

impl StructField {
    pub fn symbol(&self) -> String {
        field_offset_symbol(&self.ty_name, &self.field)
    }

    /// The shim giving the address of the payload of an `Option` field, or null.
    pub fn option_symbol(&self) -> String {
        lacuna_ir::option_field_symbol(&self.ty_name, &self.field)
    }
}

/// `Option<T>` as written (`Option`, `std::option::Option`, `core::option::Option`, with a leading `::` or not).
fn is_option(ty: &ast::Type) -> bool {
    let ast::Type::PathType(p) = ty else { return false };
    let Some(path) = p.path() else { return false };
    let text: String = path.syntax().text().to_string().chars().filter(|c| !c.is_whitespace()).collect();
    let head = text.split('<').next().unwrap_or_default().trim_start_matches("::");
    matches!(head, "Option" | "std::option::Option" | "core::option::Option") && text.contains('<')
}

/// A field of a plain struct: its name (a tuple struct's by its position, `0`, `1`, ..) and its type as written.
type FieldItem = (String, Option<ast::Type>);

/// Host items JIT code reaches by their names (which the symbols the instrumented host exports for them carry),
/// each with the path the exported host's crate root names it by. A block's item is moved to a module of its own
/// by the export ([`crate::export::BlockItem`]), so only an exported host can name it, and it is listed only
/// under a name no other item of its kind in the host has, so that the name alone says which item it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamedItems {
    /// The plain structs and enums declared in a block around a hole ([`PlainTypes`]).
    pub block_types: Vec<(String, String)>,
    /// The statics of std's atomic types (not `static mut`): top-level ones (their path their name) and those
    /// declared in a block around a hole. The instrumented host exports each one's address
    /// ([`lacuna_ir::atomic_static_symbol`]) for JIT code to act on in place.
    pub atomic_statics: Vec<(String, String)>,
    /// The functions declared in a block around a hole (a helper in `main`), each under a name no other function
    /// of the host has: the instrumented host exports a shim for those with a signature JIT code can call, as
    /// for a module's `pub` functions (the block's module in the module's place).
    pub block_fns: Vec<(String, String)>,
    /// The host's top-level traits without generics, whose `Box<dyn Trait>` values JIT code reaches in place and
    /// whose `&self` methods it calls through shims ([`lacuna_ir::dyn_box_alias`]).
    pub dyn_traits: Vec<String>,
}

/// The plain structs and enums of a host, which JIT code reaches in place and holds by value through the shims
/// the instrumented host exports for each: those declared at the top level, and those declared in a block around
/// a hole (moved to a module of their own by the export, [`crate::export::BlockType`]) under a name no other
/// type, trait or alias of the host has anywhere, so that the name alone, which the exported symbols carry, says
/// which type it is.
pub(crate) struct PlainTypes {
    pub structs: Vec<(String, Vec<FieldItem>)>,
    pub enums: Vec<EnumOutline>,
    /// The block types among them: name and path in the exported host.
    pub block: Vec<(String, String)>,
}

impl PlainTypes {
    fn of(file: &SourceFile, moved: &[crate::export::BlockItem]) -> PlainTypes {
        let mut structs: Vec<_> = file
            .items()
            .filter_map(|item| match item {
                ast::Item::Struct(st) => plain_struct(&st),
                _ => None,
            })
            .collect();
        let mut enums: Vec<_> = file
            .items()
            .filter_map(|item| match item {
                ast::Item::Enum(en) => plain_enum(&en),
                _ => None,
            })
            .collect();
        let mut block = Vec::new();
        let declared: Vec<String> = file
            .syntax()
            .descendants()
            .filter_map(|n| match ast::Item::cast(n)? {
                ast::Item::Struct(x) => x.name(),
                ast::Item::Enum(x) => x.name(),
                ast::Item::Union(x) => x.name(),
                ast::Item::Trait(x) => x.name(),
                ast::Item::TypeAlias(x) => x.name(),
                _ => None,
            })
            .map(|n| n.text().to_string())
            .collect();
        for moved in moved {
            if declared.iter().filter(|n| **n == moved.name).count() != 1 {
                continue;
            }
            let range =
                ra_ap_syntax::TextRange::new((moved.range.start as u32).into(), (moved.range.end as u32).into());
            let Some(item) =
                file.syntax().descendants().filter_map(ast::Item::cast).find(|i| i.syntax().text_range() == range)
            else {
                continue;
            };
            let admitted = match item {
                ast::Item::Struct(st) => plain_struct(&st).map(|s| structs.push(s)).is_some(),
                ast::Item::Enum(en) => plain_enum(&en).map(|e| enums.push(e)).is_some(),
                _ => false,
            };
            if admitted {
                block.push((moved.name.clone(), moved.path.clone()));
            }
        }
        PlainTypes { structs, enums, block }
    }

    /// The names of the structs and enums.
    fn names(&self) -> Vec<String> {
        self.structs.iter().map(|(name, _)| name.clone()).chain(self.enums.iter().map(|e| e.name.clone())).collect()
    }
}

/// A struct with fields (named, or by position: `struct LoanError(pub String)`), no generics and no
/// `repr(packed)`: JIT code reaches its fields in place (see [`struct_fields`]) and steps through slices of it by
/// its size ([`lacuna_ir::symbol::struct_size_symbol`]).
fn plain_struct(st: &ast::Struct) -> Option<(String, Vec<FieldItem>)> {
    let packed = st.attrs().any(|a| a.syntax().to_string().contains("packed"));
    if packed || st.generic_param_list().is_some() {
        return None;
    }
    let fields: Vec<FieldItem> = match st.field_list()? {
        ast::FieldList::RecordFieldList(fields) => {
            fields.fields().filter_map(|f| Some((f.name()?.text().to_string(), f.ty()))).collect()
        }
        ast::FieldList::TupleFieldList(fields) => {
            fields.fields().enumerate().map(|(i, f)| (i.to_string(), f.ty())).collect()
        }
    };
    sized_fields(&fields).then(|| Some((st.name()?.text().to_string(), fields))).flatten()
}

/// No field is unsized, as far as its syntax tells (a struct that ends in `str`, a slice or a `dyn` has no size
/// to export, nor offsets for `offset_of!`).
fn sized_fields(fields: &[FieldItem]) -> bool {
    fields.iter().all(|(_, ty)| match ty {
        Some(ast::Type::SliceType(_) | ast::Type::DynTraitType(_)) => false,
        Some(ast::Type::PathType(p)) => !matches!(p.syntax().to_string().trim(), "str" | "Path" | "OsStr"),
        _ => true,
    })
}

/// A top-level enum of the host without generics: its name and its variants in declaration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumOutline {
    pub name: String,
    pub variants: Vec<(String, VariantFields)>,
}

/// The fields of an enum variant, as a pattern must name them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantFields {
    Unit,
    /// `V(a, b)`: how many.
    Tuple(usize),
    /// `V { a, b }`: their names.
    Record(Vec<String>),
}

/// See [`NamedItems::atomic_statics`]. Pure syntax: the type's last segment names one of std's atomics; the
/// checker confirms the type with rust-analyzer before JIT code uses one.
fn atomic_statics(file: &SourceFile, moved: &[crate::export::BlockItem]) -> Vec<(String, String)> {
    const ATOMICS: &[&str] = &[
        "AtomicBool",
        "AtomicI8",
        "AtomicI16",
        "AtomicI32",
        "AtomicI64",
        "AtomicIsize",
        "AtomicU8",
        "AtomicU16",
        "AtomicU32",
        "AtomicU64",
        "AtomicUsize",
    ];
    let atomic = |s: &ast::Static| -> Option<String> {
        if s.mut_token().is_some() || s.attrs().next().is_some() {
            return None;
        }
        let Some(ast::Type::PathType(ty)) = s.ty() else { return None };
        let last = ty.path()?.segment()?.name_ref()?.text().to_string();
        ATOMICS.contains(&last.as_str()).then(|| s.name()).flatten().map(|n| n.text().to_string())
    };
    let mut out: Vec<(String, String)> = file
        .items()
        .filter_map(|item| match item {
            ast::Item::Static(s) => atomic(&s).map(|name| (name.clone(), name)),
            _ => None,
        })
        .collect();
    let statics: Vec<String> = file
        .syntax()
        .descendants()
        .filter_map(ast::Static::cast)
        .filter_map(|s| Some(s.name()?.text().to_string()))
        .collect();
    for item in moved {
        if statics.iter().filter(|n| **n == item.name).count() != 1 {
            continue;
        }
        let range = ra_ap_syntax::TextRange::new((item.range.start as u32).into(), (item.range.end as u32).into());
        let found =
            file.syntax().descendants().filter_map(ast::Static::cast).find(|s| s.syntax().text_range() == range);
        if found.as_ref().and_then(atomic).is_some() {
            out.push((item.name.clone(), item.path.clone()));
        }
    }
    out
}

/// A name alone (`Shape`, `Rect`): no path, no generic arguments.
fn plain_name(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The host's top-level traits a `dyn` type can be made of and named from the crate root: no generics, no
/// `where` clause, not `unsafe` or `auto`.
fn dyn_traits(file: &SourceFile) -> Vec<ast::Trait> {
    file.items()
        .filter_map(|item| match item {
            ast::Item::Trait(t)
                if t.generic_param_list().is_none()
                    && t.where_clause().is_none()
                    && t.unsafe_token().is_none()
                    && t.auto_token().is_none() =>
            {
                Some(t)
            }
            _ => None,
        })
        .collect()
}

/// The functions among the items the export moves out of blocks around holes ([`NamedItems::block_fns`]), under
/// a name no other function or method of the host has: name and path in the exported host.
fn block_fns(file: &SourceFile, moved: &[crate::export::BlockItem]) -> Vec<(String, String)> {
    let fns: Vec<String> = file
        .syntax()
        .descendants()
        .filter_map(ast::Fn::cast)
        .filter_map(|f| Some(f.name()?.text().to_string()))
        .collect();
    moved
        .iter()
        .filter(|item| fns.iter().filter(|n| **n == item.name).count() == 1)
        .filter(|item| {
            let range = ra_ap_syntax::TextRange::new((item.range.start as u32).into(), (item.range.end as u32).into());
            file.syntax().descendants().filter_map(ast::Fn::cast).any(|f| f.syntax().text_range() == range)
        })
        .map(|item| (item.name.clone(), item.path.clone()))
        .collect()
}

/// An enum without generics (see [`EnumOutline`]).
fn plain_enum(en: &ast::Enum) -> Option<EnumOutline> {
    let (Some(name), Some(list), None) = (en.name(), en.variant_list(), en.generic_param_list()) else {
        return None;
    };
    let mut variants = Vec::new();
    for v in list.variants() {
        let Some(vname) = v.name() else { continue };
        let fields = match v.field_list() {
            None => VariantFields::Unit,
            Some(ast::FieldList::TupleFieldList(t)) => VariantFields::Tuple(t.fields().count()),
            Some(ast::FieldList::RecordFieldList(r)) => {
                VariantFields::Record(r.fields().filter_map(|f| f.name()).map(|n| n.text().to_string()).collect())
            }
        };
        variants.push((vname.text().to_string(), fields));
    }
    Some(EnumOutline { name: name.text().to_string(), variants })
}

/// The tuple types written anywhere in the host (a parameter's `&[(&str, i64)]`, a hole's `Vec<(String, f64)>`)
/// whose parts are scalars of at most 64 bits, `String` or `&str`: the instrumented host exports the layout
/// rustc gives each ([`lacuna_ir::tuple_layout_symbol`]), so JIT code reads and writes sequences of them in place.
/// Pure syntax: `String` is std's unless the host shadows it, in which case the layout does not compile and the
/// JIT does without it.
fn tuple_types(file: &SourceFile) -> Vec<lacuna_ir::TupleElem> {
    use lacuna_ir::{Part, Scalar};
    let part = |t: ast::Type| -> Option<Part> {
        match t {
            ast::Type::PathType(p) => match p.syntax().to_string().trim() {
                "String" => Some(Part::String),
                name => Scalar::from_name(name)
                    .filter(|s| !matches!(s, Scalar::I128 | Scalar::U128 | Scalar::Unit | Scalar::Never))
                    .map(Part::Scalar),
            },
            ast::Type::RefType(r) if r.mut_token().is_none() => {
                matches!(r.ty(), Some(ast::Type::PathType(p)) if p.syntax().to_string().trim() == "str")
                    .then_some(Part::Str)
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    for tuple in file.syntax().descendants().filter_map(ast::TupleType::cast) {
        let parts: Option<Vec<Part>> = tuple.fields().map(part).collect();
        if let Some(t) = parts.as_deref().and_then(lacuna_ir::TupleElem::new) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The scalar and `String` fields of the plain structs (see [`StructField`]).
fn struct_fields(structs: &[(String, Vec<FieldItem>)]) -> Vec<StructField> {
    let mut out = Vec::new();
    for (ty_name, fields) in structs {
        // Every field (the struct's are sized): scalars and text read in place, vectors and structs reached
        // through it.
        for (field, ty) in fields {
            let Some(ty) = ty else { continue };
            out.push(StructField { ty_name: ty_name.clone(), field: field.clone(), option: is_option(ty) });
        }
    }
    out
}

/// The shim of a host closure of type `dyn_type` (`&dyn Fn(&str, u32) -> String`, `&mut dyn FnMut(u32)`,
/// `Option<Box<dyn FnOnce(bool) -> String>>`): parameters that are scalars a shim passes or `&str`; a result that
/// is a scalar, `String` or `()`, or an `Option` or `Result` of those (written as a host function's are). `None`
/// for any other signature.
pub fn callable_fn(dyn_type: &str) -> Option<ScalarFn> {
    let once = || dyn_type.strip_prefix("Option<Box<dyn FnOnce(")?.strip_suffix(">>");
    let signature =
        dyn_type.strip_prefix("&dyn Fn(").or_else(|| dyn_type.strip_prefix("&mut dyn FnMut(")).or_else(once)?;
    let (params, ret) = signature.split_once(')')?;
    let ret = match ret.trim() {
        "" => "()".to_owned(),
        r => r.strip_prefix("->")?.trim().to_owned(),
    };
    let plain = |t: &str| SHIM_SCALARS.contains(&t) || t == "String" || t == "()";
    let returns = plain(&ret)
        || ret.strip_prefix("Option<").and_then(|r| r.strip_suffix('>')).is_some_and(|t| plain(t) && t != "()")
        || ret
            .strip_prefix("Result<")
            .and_then(|r| r.strip_suffix('>'))
            .and_then(|r| r.split_once(", "))
            .is_some_and(|(ok, err)| plain(ok) && plain(err));
    let params: Vec<String> = params.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect();
    let passes = params.iter().all(|p| SHIM_SCALARS.contains(&p.as_str()) || p == "&str");
    (returns && passes).then(|| ScalarFn {
        name: "call".to_owned(),
        module: None,
        method_of: None,
        params,
        ret,
        made: None,
        callable: Some(dyn_type.to_owned()),
        viewed: None,
    })
}

/// Scalar types a shim passes by value through `extern "C"` (128-bit integers have no stable C ABI).
pub const SHIM_SCALARS: &[&str] =
    &["i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64", "bool", "char"];

/// The top-level functions of `file` with scalar parameters (simple names) and a scalar or `()` result: no
/// generics, `self`, `async`, `unsafe`, `const`, `extern` or patterns in parameters. Pure syntax; the JIT's typed
/// view checks the real types with rust-analyzer before it calls one.
fn scalar_fns(file: &SourceFile, plain: &PlainTypes, block_fns: &[(String, String)]) -> Vec<ScalarFn> {
    let scalar = |ty: &Option<ast::Type>| match ty {
        Some(ast::Type::PathType(p)) => {
            let text = p.syntax().to_string();
            SHIM_SCALARS.contains(&text.trim()).then(|| text.trim().to_owned())
        }
        _ => None,
    };
    // `&str` as a parameter (passed as pointer and length), and `&S` / `&mut S` of a scalar (passed as the
    // address of the place the caller lends).
    // `&Vec<T>` / `&mut Vec<T>` of a scalar or `String` (passed as the address of the vector the caller lends).
    let vector = |r: &ast::RefType| -> Option<String> {
        let Some(ast::Type::PathType(p)) = r.ty() else { return None };
        let text: String = p.syntax().to_string().split_whitespace().collect();
        let elem = text.strip_prefix("Vec<")?.strip_suffix('>')?;
        (SHIM_SCALARS.contains(&elem) || elem == "String").then(|| {
            let m = if r.mut_token().is_some() { "&mut " } else { "&" };
            format!("{m}Vec<{elem}>")
        })
    };
    // The plain structs and enums, which a parameter may borrow (`&Order`, `&mut Cart`) and a result may borrow
    // (`Option<&Item>`).
    let plain_types = plain.names();
    // `&S` / `&mut S` of a plain type (passed as the address of the struct the caller lends).
    let borrowed = |r: &ast::RefType| -> Option<String> {
        let Some(ast::Type::PathType(p)) = r.ty() else { return None };
        let name = p.syntax().to_string();
        let m = if r.mut_token().is_some() { "&mut " } else { "&" };
        plain_types.contains(&name).then(|| format!("{m}{name}"))
    };
    // `&[T]` / `&mut [T]` of a scalar (passed as pointer and length).
    let slice = |r: &ast::RefType| -> Option<String> {
        let Some(ast::Type::SliceType(s)) = r.ty() else { return None };
        let m = if r.mut_token().is_some() { "&mut " } else { "&" };
        scalar(&s.ty()).map(|e| format!("{m}[{e}]"))
    };
    let param = |ty: Option<ast::Type>| match &ty {
        Some(ast::Type::RefType(r)) if r.lifetime().is_none() && slice(r).is_some() => slice(r),
        Some(ast::Type::RefType(r)) if r.lifetime().is_none() && vector(r).is_some() => vector(r),
        Some(ast::Type::RefType(r)) if r.lifetime().is_none() && borrowed(r).is_some() => borrowed(r),
        Some(ast::Type::RefType(r)) if r.mut_token().is_none() && r.lifetime().is_none() => match r.ty() {
            Some(ast::Type::PathType(p)) if p.syntax().to_string().trim() == "str" => Some("&str".to_owned()),
            inner => scalar(&inner).map(|s| format!("&{s}")),
        },
        Some(ast::Type::RefType(r)) if r.lifetime().is_none() => scalar(&r.ty()).map(|s| format!("&mut {s}")),
        _ => scalar(&ty),
    };
    // `String`, `Option<S>`, `Option<String>`, `Option<&T>` of a plain type and a plain type as results (written
    // for the JIT in a fixed layout).
    let result = |ty: Option<ast::Type>| {
        let text = ty.as_ref().map(|t| t.syntax().to_string().split_whitespace().collect::<String>());
        match text.as_deref() {
            Some("String") => Some("String".to_owned()),
            Some(t) if t.starts_with("Option<") && t.ends_with('>') => {
                let inner = &t["Option<".len()..t.len() - 1];
                let borrowed = inner.strip_prefix('&').is_some_and(|n| plain_types.iter().any(|p| p == n));
                // A plain type by value: moved out to the JIT, which boxes it, as a `Result`'s payload.
                let owned = plain_types.iter().any(|p| p == inner);
                (SHIM_SCALARS.contains(&inner) || inner == "String" || borrowed || owned)
                    .then(|| format!("Option<{inner}>"))
            }
            // `Result<T, E>` of scalars, `()`, `String`, vectors of scalars, and plain types by value or shared
            // reference (a tag and the payload).
            Some(t) if t.starts_with("Result<") && t.ends_with('>') => {
                let (ok, err) = t["Result<".len()..t.len() - 1].split_once(',')?;
                let payload = |p: &str| {
                    let plain = |n: &str| plain_types.iter().any(|t| t == n);
                    let scalar_vec = p
                        .strip_prefix("Vec<")
                        .and_then(|r| r.strip_suffix('>'))
                        .is_some_and(|e| SHIM_SCALARS.contains(&e));
                    SHIM_SCALARS.contains(&p)
                        || p == "()"
                        || p == "String"
                        || scalar_vec
                        || plain(p)
                        || p.strip_prefix('&').is_some_and(plain)
                };
                (payload(ok) && payload(err)).then(|| format!("Result<{ok}, {err}>"))
            }
            // A plain type by value (moved out to the JIT, which boxes it).
            Some(t) if plain_types.iter().any(|p| p == t) => Some(t.to_owned()),
            // `Vec<&T>` of a plain type (written as a `String` is: pointer, capacity, length).
            Some(t) if t.starts_with("Vec<&") && t.ends_with('>') => {
                let inner = &t["Vec<&".len()..t.len() - 1];
                plain_types.iter().any(|p| p == inner).then(|| format!("Vec<&{inner}>"))
            }
            // `Vec<S>` of a scalar (the same three words; the buffer is the JIT's from then on).
            Some(t) if t.starts_with("Vec<") && t.ends_with('>') => {
                let inner = &t["Vec<".len()..t.len() - 1];
                SHIM_SCALARS.contains(&inner).then(|| format!("Vec<{inner}>"))
            }
            _ => scalar(&ty),
        }
    };
    // Top-level functions, `pub` functions of top-level modules, and methods of inherent impls of a plainly named
    // type: top-level ones, and those in blocks of a block type's ([`PlainTypes`]).
    let mut fns: Vec<(ast::Fn, Option<String>, Option<String>)> = Vec::new();
    let block_impls = file.syntax().descendants().filter_map(ast::Impl::cast).filter(|imp| {
        let in_block = imp.syntax().parent().is_some_and(|p| p.kind() == SyntaxKind::STMT_LIST);
        let self_ty = imp.self_ty().map(|t| t.syntax().to_string());
        in_block && plain.block.iter().any(|(name, _)| Some(name) == self_ty.as_ref())
    });
    // Functions of blocks around holes ([`NamedItems::block_fns`]): called by their path in the exported host.
    for f in file.syntax().descendants().filter_map(ast::Fn::cast) {
        let in_block = f.syntax().parent().is_some_and(|p| p.kind() == SyntaxKind::STMT_LIST);
        let name = f.name().map(|n| n.text().to_string());
        let Some((_, path)) = block_fns.iter().find(|(n, _)| Some(n) == name.as_ref()).filter(|_| in_block) else {
            continue;
        };
        let module = path.rsplit_once("::").map(|(m, _)| m.to_owned());
        fns.push((f, None, module));
    }
    // The `&self` methods of top-level traits, called on a `Box<dyn Trait>` (the type's alias in the impl's
    // place); a required method has no body.
    let mut trait_fns = Vec::new();
    for t in dyn_traits(file) {
        let Some(name) = t.name() else { continue };
        for assoc in t.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
            if let ast::AssocItem::Fn(f) = assoc {
                if f.param_list().and_then(|l| l.self_param()).is_some_and(|p| p.mut_token().is_none()) {
                    trait_fns.push(f.syntax().text_range());
                    fns.push((f, Some(lacuna_ir::dyn_box_alias(name.text())), None));
                }
            }
        }
    }
    // Each type's methods by name, over all its impls: the symbol of a method's shim carries the type's name and
    // the method's, so a trait's method goes without a shim where another impl of the type has one of that name
    // (an inherent method keeps its own).
    let mut impl_methods: Vec<(String, String)> = Vec::new();
    let mut trait_impl_fns = Vec::new();
    // The traits declared at the top level, by name (an impl of std's `Clone` gets no shims: JIT code reaches
    // those through the type's own shims).
    let host_traits: Vec<String> = file
        .items()
        .filter_map(|item| match item {
            ast::Item::Trait(t) => Some(t.name()?.text().to_string()),
            _ => None,
        })
        .collect();
    for item in file.items().chain(block_impls.map(ast::Item::Impl)) {
        match item {
            ast::Item::Fn(f) => fns.push((f, None, None)),
            ast::Item::Module(m) => {
                let (Some(name), Some(list)) = (m.name(), m.item_list()) else { continue };
                if m.attrs().next().is_some() {
                    continue;
                }
                for inner in list.items() {
                    if let ast::Item::Fn(f) = inner {
                        // Exactly `pub` (not `pub(crate)`): callable from the crate root.
                        if f.visibility().is_some_and(|v| v.syntax().to_string() == "pub") {
                            fns.push((f, None, Some(name.text().to_string())));
                        }
                    }
                }
            }
            // An inherent impl, or an impl of a top-level trait of the host's (`impl Shape for Rect`), whose methods
            // the shim calls by method syntax at the crate root, where that trait is in scope.
            ast::Item::Impl(imp)
                if imp.trait_().is_none_or(|t| host_traits.contains(&t.syntax().to_string()))
                    && imp.generic_param_list().is_none()
                    && imp.where_clause().is_none()
                    && imp.unsafe_token().is_none()
                    && imp.attrs().next().is_none() =>
            {
                let Some(ast::Type::PathType(ty)) = imp.self_ty() else { continue };
                let ty = ty.syntax().to_string();
                if !plain_name(&ty) {
                    continue;
                }
                for assoc in imp.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
                    if let ast::AssocItem::Fn(f) = assoc {
                        let method = f.param_list().and_then(|l| l.self_param()).is_some();
                        if imp.trait_().is_some() && !method {
                            continue;
                        }
                        if let Some(name) = f.name() {
                            impl_methods.push((ty.clone(), name.text().to_string()));
                        }
                        if imp.trait_().is_some() {
                            trait_impl_fns.push(f.syntax().text_range());
                        }
                        fns.push((f, Some(ty.clone()), None));
                    }
                }
            }
            _ => {}
        }
    }
    let block_names: Vec<String> = plain.block.iter().map(|(n, _)| n.clone()).collect();
    fns.into_iter()
        .filter_map(|(f, self_ty, module)| {
            let name = f.name()?.text().to_string();
            let of_trait = trait_impl_fns.contains(&f.syntax().text_range());
            if let (Some(ty), true) = (&self_ty, of_trait) {
                if impl_methods.iter().filter(|(t, n)| t == ty && *n == name).count() > 1 {
                    return None;
                }
            }
            // Attributes (`#[cfg(..)]`, `#[test]`) may make the function absent or special: no shim.
            let plain = f.attrs().next().is_none()
                && f.generic_param_list().is_none()
                && f.where_clause().is_none()
                && f.async_token().is_none()
                && f.unsafe_token().is_none()
                && f.const_token().is_none()
                && f.abi().is_none()
                && (f.body().is_some() || trait_fns.contains(&f.syntax().text_range()))
                && name != "main";
            let list = f.param_list()?;
            if !plain {
                return None;
            }
            let block_type = |ty: &String| block_names.contains(ty);
            let (method_of, module) = match (self_ty, list.self_param()) {
                (None, None) => (None, module),
                // An associated function of a top-level type (`Line::new(..)`): called by its path, `Type::name`,
                // as a module's function is (the type in the module's place), its `Self` the type.
                (Some(ty), None) if !block_type(&ty) => (None, Some(ty)),
                // `&self` / `&mut self` without an explicit type or lifetime.
                (Some(ty), Some(this))
                    if this.amp_token().is_some() && this.lifetime().is_none() && this.ty().is_none() =>
                {
                    (Some((ty, this.mut_token().is_some())), module)
                }
                _ => return None,
            };
            // `-> Self` of an associated function: the type by name.
            let self_ty_name = module
                .clone()
                .filter(|_| method_of.is_none() && plain_types.iter().any(|t| Some(t) == module.as_ref()));
            let params = list
                .params()
                .map(|p| match p.pat() {
                    Some(ast::Pat::IdentPat(pat)) if pat.ref_token().is_none() => param(p.ty()),
                    _ => None,
                })
                .collect::<Option<Vec<String>>>()?;
            let ret = match f.ret_type() {
                None => "()".to_owned(),
                Some(r) => match r.ty() {
                    Some(ast::Type::TupleType(t)) if t.fields().next().is_none() => "()".to_owned(),
                    Some(ast::Type::PathType(p)) if p.syntax().to_string() == "Self" => self_ty_name.clone()?,
                    ty => result(ty)?,
                },
            };
            Some(ScalarFn { name, module, method_of, params, ret, made: None, callable: None, viewed: None })
        })
        .chain(map_views(plain))
        .collect()
}

/// For each `HashMap<K, V>` or `BTreeMap<K, V>` field of a plain struct, methods the instrumented host adds for JIT
/// code, each in the map's own iteration order (so JIT code iterates as rustc's program would): the keys, copied out
/// for a scalar `K` or as `&str`s for `String` keys; and where the values are of a plain type `V`, the values as a
/// `Vec<&V>` and the length.
fn map_views(plain: &PlainTypes) -> Vec<ScalarFn> {
    let plain_types = plain.names();
    let mut out = Vec::new();
    for (ty_name, fields) in &plain.structs {
        for (name, ty) in fields.clone() {
            let Some(ty) = ty else { continue };
            let text: String = ty.syntax().to_string().split_whitespace().collect();
            // `HashMap<..>`, `collections::HashMap<..>`, `std::collections::HashMap<..>`: the last segment.
            let generic_at = text.find('<').unwrap_or(text.len());
            let text = match text[..generic_at].rfind("::") {
                Some(i) => text[i + 2..].to_owned(),
                None => text,
            };
            let Some(args) = ["HashMap<", "BTreeMap<"]
                .iter()
                .find_map(|m| text.strip_prefix(m))
                .and_then(|rest| rest.strip_suffix('>'))
            else {
                continue;
            };
            // `K,V` with no generics inside: the value type is the last plain name.
            let parts: Vec<&str> = args.split(',').collect();
            let [key, value] = parts[..] else { continue };
            let field = name;
            let method_of = Some((ty_name.clone(), false));
            // Scalar keys: copied out, in the map's own order.
            if SHIM_SCALARS.contains(&key) {
                out.push(ScalarFn {
                    name: map_view_method("keys", &field),
                    module: None,
                    method_of: method_of.clone(),
                    params: Vec::new(),
                    ret: format!("Vec<{key}>"),
                    made: Some(format!("self.{field}.keys().copied().collect()")),
                    callable: None,
                    viewed: None,
                });
            }
            // `String` keys: their text, read in place (pointer and length each), in the map's own order.
            if key == "String" {
                out.push(ScalarFn {
                    name: map_view_method("keys", &field),
                    module: None,
                    method_of: method_of.clone(),
                    params: Vec::new(),
                    ret: "Vec<&str>".to_owned(),
                    made: Some(format!("self.{field}.keys().map(|k| k.as_str()).collect()")),
                    callable: None,
                    viewed: None,
                });
            }
            if !plain_types.iter().any(|p| p == value) {
                continue;
            }
            out.push(ScalarFn {
                name: map_view_method("values", &field),
                module: None,
                method_of: method_of.clone(),
                params: Vec::new(),
                ret: format!("Vec<&{value}>"),
                made: Some(format!("self.{field}.values().collect()")),
                callable: None,
                viewed: None,
            });
            out.push(ScalarFn {
                name: map_view_method("len", &field),
                module: None,
                method_of,
                params: Vec::new(),
                ret: "usize".to_owned(),
                made: Some(format!("self.{field}.len()")),
                callable: None,
                viewed: None,
            });
        }
    }
    out
}

fn items(list: impl Iterator<Item = ast::Item>, out: &mut Vec<String>) {
    for item in list {
        match item {
            ast::Item::Fn(f) => out.push(fn_signature(&f)),
            ast::Item::Struct(_)
            | ast::Item::Enum(_)
            | ast::Item::Union(_)
            | ast::Item::TypeAlias(_)
            | ast::Item::Const(_)
            | ast::Item::Static(_) => out.push(squeeze(&item.syntax().to_string())),
            ast::Item::Impl(i) => {
                let header = header_before(i.syntax(), i.assoc_item_list().map(|l| l.syntax().clone()));
                out.push(format!("{header} {{ {} }}", assoc_signatures(i.assoc_item_list())));
            }
            ast::Item::Trait(t) => {
                let header = header_before(t.syntax(), t.assoc_item_list().map(|l| l.syntax().clone()));
                out.push(format!("{header} {{ {} }}", assoc_signatures(t.assoc_item_list())));
            }
            ast::Item::Module(m) => {
                if let (Some(name), Some(list)) = (m.name(), m.item_list()) {
                    let mut inner = Vec::new();
                    items(list.items(), &mut inner);
                    let visibility = m.visibility().map(|v| format!("{v} ")).unwrap_or_default();
                    out.push(format!("{visibility}mod {name} {{ {} }}", inner.join("; ")));
                }
            }
            _ => {}
        }
    }
}

fn assoc_signatures(list: Option<ast::AssocItemList>) -> String {
    let Some(list) = list else { return String::new() };
    list.assoc_items()
        .map(|item| match item {
            ast::AssocItem::Fn(f) => format!("{};", fn_signature(&f)),
            other => squeeze(&other.syntax().to_string()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `pub fn name<T>(args) -> R where ..` without attributes, doc comments or body.
fn fn_signature(f: &ast::Fn) -> String {
    header_before(f.syntax(), f.body().map(|b| b.syntax().clone())).trim_end_matches(';').to_owned()
}

/// The item's text from its first non-attribute, non-comment token up to `end` (or all of it), on one line.
fn header_before(node: &ra_ap_syntax::SyntaxNode, end: Option<ra_ap_syntax::SyntaxNode>) -> String {
    let start = node
        .children_with_tokens()
        .find(|c| {
            !matches!(
                c.kind(),
                ra_ap_syntax::SyntaxKind::ATTR
                    | ra_ap_syntax::SyntaxKind::COMMENT
                    | ra_ap_syntax::SyntaxKind::WHITESPACE
            )
        })
        .map_or(node.text_range().start(), |c| c.text_range().start());
    let stop = end.map_or(node.text_range().end(), |e| e.text_range().start());
    let text = node.text().to_string();
    let base = node.text_range().start();
    let (from, to) = (usize::from(start - base), usize::from(stop - base));
    squeeze(text.get(from..to.max(from)).unwrap_or(""))
}

/// Whitespace runs (newlines included) as one space; no comments.
fn squeeze(text: &str) -> String {
    let without_comments: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    without_comments.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(text: &str) -> HostOutline {
        HostOutline::of(text, &SourceFile::parse(text, Edition::Edition2021).tree(), &[])
    }

    #[test]
    fn main_and_lint_levels_are_read_from_the_syntax() {
        let plain = outline(
            "fn main() { let denylist = 1; }
mod m { fn main() {} }",
        );
        assert!(plain.has_main && !plain.raises_lints);
        assert!(
            !outline(
                "mod m { pub fn main() {} }
fn mainly() {}"
            )
            .has_main
        );
        assert!(
            outline(
                "#![deny(warnings)]
fn main() {}"
            )
            .raises_lints
        );
        assert!(
            outline(
                "macro_rules! strict { () => { #[forbid(unused)] fn f() {} } }
fn main() {}"
            )
            .raises_lints
        );
    }

    #[test]
    fn scalar_fns_are_plain_functions_over_scalars_and_text() {
        let text = "fn is_prime(n: i64) -> bool { n > 1 }\nfn log(x: f64) { }\nfn unit(a: u8, b: char) -> () {}\n\
                    fn g<T>(x: T) -> T { x }\nfn s(x: &str) -> usize { 0 }\nfn w(x: i128) -> i64 { 0 }\n\
                    fn main() {}\nmod m { pub fn inner(x: i64) -> i64 { x } fn private(x: i64) -> i64 { x } \
                    pub(crate) fn c(x: i64) -> i64 { x } }\nunsafe fn u(x: i64) {}\n\
                    fn pat((a, b): (i64, i64)) -> i64 { a }\nfn up(s: &str) -> String { s.into() }\n\
                    fn find(s: &str) -> Option<u32> { None }\nfn named<'a>(s: &'a str) -> u8 { 0 }\n\
                    fn owned(s: String) -> u8 { 0 }\nfn vec() -> Option<Vec<u8>> { None }\n\
                    fn lookup(s: &str) -> Result<u32, String> { Ok(0) }\nfn bytes() -> Result<Vec<u8>, String> { Ok(vec![]) }\n\
                    fn bump(c: &mut u32, by: u32) {}\nfn cap(l: &u64, x: u64) -> u64 { x }\nfn wide(c: &mut i128) {}\n\
                    fn held<'a>(c: &'a mut u32) {}\nfn many(v: &mut Vec<u32>) {}\nfn seen(v: &Vec<String>) -> usize { 0 }\n\
                    fn nested(v: &mut Vec<Vec<u32>>) {}\nfn pairs() -> Result<Vec<(u8, u8)>, String> { Ok(vec![]) }\n";
        let found: Vec<(String, Option<String>, Vec<String>, String)> = outline(text)
            .scalar_fns
            .into_iter()
            .inspect(|f| assert_eq!(f.method_of, None))
            .map(|f| (f.name, f.module, f.params, f.ret))
            .collect();
        let own = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            found,
            vec![
                ("is_prime".into(), None, own(&["i64"]), "bool".into()),
                ("log".into(), None, own(&["f64"]), "()".into()),
                ("unit".into(), None, own(&["u8", "char"]), "()".into()),
                ("s".into(), None, own(&["&str"]), "usize".into()),
                ("inner".into(), Some("m".into()), own(&["i64"]), "i64".into()),
                ("up".into(), None, own(&["&str"]), "String".into()),
                ("find".into(), None, own(&["&str"]), "Option<u32>".into()),
                ("lookup".into(), None, own(&["&str"]), "Result<u32, String>".into()),
                ("bytes".into(), None, own(&[]), "Result<Vec<u8>, String>".into()),
                ("bump".into(), None, own(&["&mut u32", "u32"]), "()".into()),
                ("cap".into(), None, own(&["&u64", "u64"]), "u64".into()),
                ("many".into(), None, own(&["&mut Vec<u32>"]), "()".into()),
                ("seen".into(), None, own(&["&Vec<String>"]), "usize".into()),
            ]
        );
        let inner = outline(text).scalar_fns.into_iter().find(|f| f.name == "inner").expect("found above");
        assert_eq!((inner.symbol().as_str(), inner.path().as_str()), ("__lacuna_host_modfn_1m_inner", "m::inner"));
    }
    #[test]
    fn scalar_methods_take_a_reference_receiver_and_associated_functions_are_called_by_path() {
        let text = "struct C { n: u32 }\nimpl C {\n    fn get(&self) -> u32 { self.n }\n    \
                    pub fn bump(&mut self, by: u32) -> u32 { self.n += by; self.n }\n    fn new() -> C { C { n: 0 } }\n    \
                    fn empty() -> Self { C { n: 0 } }\n    \
                    fn take(self) -> u32 { self.n }\n    fn name(&self) -> String { String::new() }\n}\n\
                    impl Clone for C { fn clone(&self) -> C { C { n: self.n } } }\n\
                    impl<T> W<T> { fn get(&self) -> u32 { 0 } }\n";
        type Found = (String, Option<(String, bool)>, String);
        let found: Vec<Found> =
            outline(text).scalar_fns.into_iter().map(|f| (f.symbol(), f.method_of, f.ret)).collect();
        assert_eq!(
            found,
            vec![
                ("__lacuna_host_method_1C_get".into(), Some(("C".into(), false)), "u32".into()),
                ("__lacuna_host_method_1C_bump".into(), Some(("C".into(), true)), "u32".into()),
                // Associated functions: `C::new`, `C::empty` (its `Self` by name).
                ("__lacuna_host_modfn_1C_new".into(), None, "C".into()),
                ("__lacuna_host_modfn_1C_empty".into(), None, "C".into()),
                ("__lacuna_host_method_1C_name".into(), Some(("C".into(), false)), "String".into()),
            ]
        );
        let new = outline(text).scalar_fns.into_iter().find(|f| f.name == "new").expect("found above");
        assert_eq!(new.path(), "C::new");
    }

    #[test]
    fn host_closures_with_scalar_and_text_signatures_get_shims() {
        let f = super::callable_fn("&dyn Fn(&str, u32) -> String").expect("a shim");
        assert_eq!((f.params, f.ret), (vec!["&str".to_owned(), "u32".to_owned()], "String".to_owned()));
        assert_eq!(super::callable_fn("&dyn Fn(i64)").map(|f| f.ret), Some("()".to_owned()));
        assert!(super::callable_fn("&dyn Fn(Vec<u8>) -> usize").is_none());
        let ret = |t: &str| super::callable_fn(t).map(|f| f.ret);
        assert_eq!(ret("&dyn Fn(&str) -> Option<String>").as_deref(), Some("Option<String>"));
        assert_eq!(ret("&mut dyn FnMut(&str) -> Result<u32, String>").as_deref(), Some("Result<u32, String>"));
        assert_eq!(ret("&mut dyn FnMut(u8) -> bool").as_deref(), Some("bool"));
        assert!(super::callable_fn("&dyn Fn(u8) -> Option<()>").is_none());
        assert!(super::callable_fn("&dyn Fn(u8) -> Result<Vec<u8>, String>").is_none());
        assert!(super::callable_fn("&dyn FnMut(u8) -> bool").is_none());
        let binding = |ty: &str| lacuna_ir::Binding {
            name: "f".into(),
            decl: 0,
            ty: Some(ty.into()),
            ty_display: ty.into(),
            mutable: false,
            copy: true,
            mut_ref: false,
            is_self: false,
            const_opaque: true,
            const_value: None,
            callable: None,
        };
        let object = binding("&(dyn Fn(&str) -> String + 'static)");
        assert_eq!(object.dyn_callable().as_deref(), Some("&dyn Fn(&str) -> String"));
        assert_eq!(binding("&dyn Fn(u8) -> u8").dyn_callable().as_deref(), Some("&dyn Fn(u8) -> u8"));
        assert_eq!(binding("&(dyn Fn(u8) -> u8 + Send)").dyn_callable(), None);
        assert_eq!(binding("&mut dyn FnMut(u8)").dyn_callable().as_deref(), Some("&mut dyn FnMut(u8)"));
        assert_eq!(binding("&mut (dyn FnMut(u8) + 'a)").dyn_callable().as_deref(), Some("&mut dyn FnMut(u8)"));
        assert_eq!(binding("&dyn FnMut(u8)").dyn_callable(), None);
        let closure = |kind, mutable| lacuna_ir::Binding {
            ty: None,
            mutable,
            callable: Some(lacuna_ir::Callable { kind, signature: "(u8) -> u8".into() }),
            ..binding("")
        };
        let fn_mut = closure(lacuna_ir::FnKind::FnMut, true);
        assert_eq!(fn_mut.dyn_callable().as_deref(), Some("&mut dyn FnMut(u8) -> u8"));
        // An `FnMut` the host did not declare `mut` is not handed over; an `FnOnce` goes over whole, in a box.
        assert_eq!(closure(lacuna_ir::FnKind::FnMut, false).dyn_callable(), None);
        let once = closure(lacuna_ir::FnKind::FnOnce, false).dyn_callable();
        assert_eq!(once.as_deref(), Some("Option<Box<dyn FnOnce(u8) -> u8>>"));
        let shim = super::callable_fn(&once.expect("a type")).expect("a shim");
        assert_eq!((shim.params, shim.ret), (vec!["u8".to_owned()], "u8".to_owned()));
        assert!(super::callable_fn("Option<Box<dyn FnOnce(u8) -> u8>").is_none());
    }

    #[test]
    fn tuple_types_are_those_written_with_scalar_and_text_parts() {
        let text = "fn f(order: &[(&str, i64)]) -> Vec<(String, f64)> { let _: (u8, (i32, i32), Vec<u8>) = todo!(); \
                    let _: Option<(&'a str, char)> = None; let _: (&mut str, u8); let _: (i128, u8); Vec::new() }";
        let names: Vec<String> = outline(text).tuple_types.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["(&str, i64)", "(String, f64)", "(i32, i32)", "(&str, char)"]);
    }

    #[test]
    fn struct_fields_are_the_sized_fields_of_plain_top_level_structs() {
        let text = "#[derive(Debug)]\nstruct Item { name: String, price: u32, pub count: i64, tags: Vec<String>, \
                    holder: Option<String>, at: std::option::Option<u8> }\n\
                    struct Named { len: usize, name: str }\n\
                    struct W<T> { x: T, n: u8 }\n#[repr(packed)]\nstruct P { a: u8 }\nstruct T(u8);\n";
        let found: Vec<String> = outline(text).struct_fields.into_iter().map(|f| f.symbol()).collect();
        assert_eq!(
            found,
            vec![
                "__lacuna_offset_4Item_name",
                "__lacuna_offset_4Item_price",
                "__lacuna_offset_4Item_count",
                "__lacuna_offset_4Item_tags",
                "__lacuna_offset_4Item_holder",
                "__lacuna_offset_4Item_at",
                "__lacuna_offset_1T_0",
            ]
        );
        let options: Vec<String> =
            outline(text).struct_fields.iter().filter(|f| f.option).map(|f| f.option_symbol()).collect();
        assert_eq!(options, ["__lacuna_some_4Item_holder", "__lacuna_some_4Item_at"]);
        assert_eq!(outline(text).plain_structs, vec!["Item", "T"]);
    }

    #[test]
    fn block_types_around_a_hole_are_plain_under_a_name_no_other_type_has() {
        let text = "fn other() { struct Item { n: u8 } }\n\
                    mod shop { pub fn run() { enum Kind { A, B } struct Item { k: Kind } struct Unit; \
                    impl Item { fn kind(&self) -> Kind { Kind::A } } struct Row { n: u32 } { agent!(\"x\") } } }\n\
                    fn main() { struct Seen<T> { t: T } }\n";
        let hole = text.find("agent!").unwrap();
        let hole = hole..hole + "agent!(\"x\")".len();
        let outline = HostOutline::of(text, &SourceFile::parse(text, Edition::Edition2021).tree(), &[hole]);
        // `Item` is declared twice, `Unit` has no fields, `Seen` is generic and not around the hole. (The block of
        // the hole is numbered first; the items are in its enclosing one.)
        assert_eq!(
            outline.named.block_types,
            [
                ("Kind".to_owned(), "shop::__lacuna_block_1::Kind".to_owned()),
                ("Row".to_owned(), "shop::__lacuna_block_1::Row".to_owned()),
            ]
        );
        assert_eq!(outline.plain_structs, ["Row"]);
        assert_eq!(outline.plain_enums.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["Kind"]);
        // `Item`'s method is no block type's, so it gets no shim.
        assert!(outline.scalar_fns.iter().all(|f| f.name != "kind"));
    }

    #[test]
    fn block_functions_around_a_hole_get_shims_by_their_path() {
        let text = "fn other() { fn twice(n: u32) -> u32 { n * 2 } }\n\
                    fn main() { fn mean(xs: &[f64]) -> f64 { 0.0 } fn twice(n: u32) -> u32 { n } \
                    fn tag<T>(t: T) -> T { t } { let _ = agent!(\"x\"); } }\n";
        let hole = text.find("agent!").unwrap();
        let hole = hole..hole + "agent!(\"x\")".len();
        let outline = HostOutline::of(text, &SourceFile::parse(text, Edition::Edition2021).tree(), &[hole]);
        // `twice` is declared twice; `tag` is generic (listed, but no shim).
        assert_eq!(
            outline.named.block_fns,
            [
                ("mean".to_owned(), "__lacuna_block_1::mean".to_owned()),
                ("tag".to_owned(), "__lacuna_block_1::tag".to_owned())
            ]
        );
        let shims: Vec<(String, String)> =
            outline.scalar_fns.iter().filter(|f| f.module.is_some()).map(|f| (f.path(), f.symbol())).collect();
        assert_eq!(
            shims,
            [("__lacuna_block_1::mean".to_owned(), lacuna_ir::module_shim_symbol("__lacuna_block_1", "mean"))]
        );
    }

    #[test]
    fn shared_methods_of_top_level_traits_are_shims_of_the_boxed_object() {
        let text = "trait Tool { fn name(&self) -> String; fn cost(&self) -> u32 { 1 } fn tune(&mut self, by: u32); \
                    fn make() -> u32 { 0 } fn pair(&self, other: &Self) -> bool { true } }\n\
                    trait Gen<T> { fn get(&self) -> u32; }\nfn main() { trait Inner { fn f(&self) -> u8; } }\n";
        let outline = outline(text);
        assert_eq!(outline.named.dyn_traits, ["Tool"]);
        let methods: Vec<(String, Option<(String, bool)>)> =
            outline.scalar_fns.into_iter().map(|f| (f.name, f.method_of)).collect();
        let of_tool = |name: &str| (name.to_owned(), Some(("__lacuna_dyn_Tool".to_owned(), false)));
        // `&mut self`, no receiver, or a `&Self` parameter: not called on a shared box.
        assert_eq!(methods, [of_tool("name"), of_tool("cost")]);
    }

    #[test]
    fn methods_of_trait_impls_get_shims_unless_another_impl_has_the_name() {
        let text = "trait Priced { fn cost(&self) -> u64; fn label(&self) -> String; fn make() -> u8; }\n\
                    struct Book { c: u64 }\nimpl Book { fn label(&self) -> String { String::new() } }\n\
                    impl Priced for Book { fn cost(&self) -> u64 { self.c } fn label(&self) -> String { String::new() } \
                    fn make() -> u8 { 0 } }\nimpl std::fmt::Display for Book { fn fmt(&self, f: &mut std::fmt::Formatter) \
                    -> std::fmt::Result { Ok(()) } }\n";
        let methods: Vec<(String, Option<(String, bool)>)> = outline(text)
            .scalar_fns
            .into_iter()
            .filter(|f| f.method_of.as_ref().is_some_and(|(t, _)| t == "Book"))
            .map(|f| (f.name, f.method_of))
            .collect();
        let of_book = |name: &str| (name.to_owned(), Some(("Book".to_owned(), false)));
        // The inherent `label` keeps its shim; the trait's `label` shares its name, `make` has no receiver, and
        // `Display` is std's.
        assert_eq!(methods, [of_book("label"), of_book("cost")]);
    }

    use expect_test::expect;

    #[test]
    fn map_fields_get_key_and_value_views_the_host_adds() {
        let text = "use std::collections::HashMap;\nstruct Book { year: u32 }\n\
                    struct Library { books: HashMap<u32, Book>, by_title: std::collections::BTreeMap<String, Book>, \
                    counts: HashMap<u32, u64>, pairs: HashMap<(u8, u8), Book> }\n";
        let views: Vec<(String, String, Option<String>)> = outline(text)
            .scalar_fns
            .into_iter()
            .filter(|f| f.made.is_some())
            .map(|f| (f.symbol(), f.ret, f.made))
            .collect();
        let made = |s: &str| Some(s.to_owned());
        assert_eq!(
            views,
            vec![
                (
                    map_view_symbol("Library", "keys", "books"),
                    "Vec<u32>".into(),
                    made("self.books.keys().copied().collect()")
                ),
                (
                    map_view_symbol("Library", "values", "books"),
                    "Vec<&Book>".into(),
                    made("self.books.values().collect()")
                ),
                (map_view_symbol("Library", "len", "books"), "usize".into(), made("self.books.len()")),
                (
                    map_view_symbol("Library", "keys", "by_title"),
                    "Vec<&str>".into(),
                    made("self.by_title.keys().map(|k| k.as_str()).collect()")
                ),
                (
                    map_view_symbol("Library", "values", "by_title"),
                    "Vec<&Book>".into(),
                    made("self.by_title.values().collect()")
                ),
                (map_view_symbol("Library", "len", "by_title"), "usize".into(), made("self.by_title.len()")),
                (
                    map_view_symbol("Library", "keys", "counts"),
                    "Vec<u32>".into(),
                    made("self.counts.keys().copied().collect()")
                ),
            ]
        );
    }

    #[test]
    fn capabilities_are_listed_by_their_methods_without_constructors() {
        let listed = capability_signatures().join("\n");
        assert!(listed.contains("pub fn read_to_string(&self, path: &str) -> Result<String, CapError>;"), "{listed}");
        assert!(listed.starts_with("mod lacuna::cap { pub enum CapError {"), "{listed}");
        for host_only in ["open_ambient", "from_ambient", "ambient_authority", "with_dir", "fmt("] {
            assert!(!listed.contains(host_only), "{host_only} in {listed}");
        }
        assert_eq!(prompt_signatures("fn main() {}"), vec!["fn main()".to_owned()]);
        let authority_only = prompt_signatures("fn main() { let a = lacuna::cap::ambient_authority(); }");
        assert_eq!(authority_only.len(), 1, "{authority_only:?}");
        let classified = prompt_signatures("fn main() { let c = Classified::new(1); }").join("\n");
        assert!(classified.contains("pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Classified<U>;"), "{classified}");
        assert!(!classified.contains("declassify") && !classified.contains("withheld_panics"), "{classified}");
    }

    #[test]
    fn functions_lose_their_bodies_and_types_stay_whole() {
        let text = r#"
use std::collections::HashMap;
/// Remembers things.
#[derive(Debug, Clone)]
pub struct Memory {
    entries: HashMap<String, String>, // by key
}
enum Shape { Circle(f64), Square(f64) }
impl Memory {
    pub fn get(&self, key: &str) -> Option<String> { self.entries.get(key).cloned() }
    fn clear(&mut self) { self.entries.clear() }
}
fn search<T: AsRef<str>>(query: T) -> Vec<(String, String)>
where
    T: Clone,
{
    Vec::new()
}
mod tools { pub fn send_email(to: &str, subject: &str, body: &str) {} }
fn main() { let x = 1; }
"#;
        expect![[r#"
            #[derive(Debug, Clone)] pub struct Memory { entries: HashMap<String, String>, }
            enum Shape { Circle(f64), Square(f64) }
            impl Memory { pub fn get(&self, key: &str) -> Option<String>; fn clear(&mut self); }
            fn search<T: AsRef<str>>(query: T) -> Vec<(String, String)> where T: Clone,
            mod tools { pub fn send_email(to: &str, subject: &str, body: &str) }
            fn main()"#]]
        .assert_eq(&signatures(&SourceFile::parse(text, Edition::Edition2021).tree()).join("\n"));
    }
}
