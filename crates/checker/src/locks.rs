//! The host's types that can hold a lock — structs and enums of its module tree whose fields hold a `Mutex` or
//! `RwLock`, directly, inside std's containers, or inside another such type — and its statics of such types. The
//! instrumented host implements `lacuna::__private::HoldsLocks` for each type and walks the statics, so that after
//! a snippet faults every lock reachable from the bindings it used or from a static is cleared of the poison its
//! fault left, however the snippet reached it (a field, a method that returns one, an index, an iterator). Pure
//! syntax: a type named here that holds no lock costs only an empty walk.

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericParams, HasModuleItem, HasName};
use ra_ap_syntax::{AstNode, SourceFile};

use crate::outline::VariantFields;

/// A type the instrumented host walks for locks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    /// The type's path from the crate root (`Cache`, `store::Shard`).
    pub name: String,
    /// Declared inside a module: its fields are reachable from the crate root only where the host is exported
    /// (every field `pub`).
    pub in_module: bool,
    /// The `#[cfg(..)]` attributes of the item and of the modules around it, as written: the impl exists where
    /// the type does.
    pub cfgs: Vec<String>,
    pub shape: LockHolderShape,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockHolderShape {
    Struct(VariantFields),
    /// Each variant, in declaration order.
    Enum(Vec<(String, VariantFields)>),
    /// A `static` (not `mut`) of the host: walked as a value after every fault, whatever the snippet named (a
    /// host function can hand out `&'static` to it).
    Static,
}

/// Words in a field's type that can mean a lock is inside.
const LOCKS: &[&str] = &["Mutex", "RwLock"];

/// The structs and enums of `file`'s module tree (inline modules, not items inside functions) without generic
/// parameters whose fields' types name a lock or another such type (a fixpoint over names, so a type of the same
/// name elsewhere counts too: a walk too many costs nothing).
pub(crate) fn lock_holders(file: &SourceFile) -> Vec<LockHolder> {
    // Every candidate with the words its fields' types use.
    let mut candidates: Vec<(LockHolder, Vec<String>)> = Vec::new();
    collect(file.items(), "", &[], &mut candidates);
    let simple = |path: &str| path.rsplit("::").next().unwrap_or(path).to_owned();
    let mut holds: Vec<bool> =
        candidates.iter().map(|(_, words)| words.iter().any(|w| LOCKS.contains(&w.as_str()))).collect();
    loop {
        let names: Vec<String> =
            candidates.iter().zip(&holds).filter(|(_, h)| **h).map(|((c, _), _)| simple(&c.name)).collect();
        let next: Vec<bool> = candidates
            .iter()
            .zip(&holds)
            .map(|((_, words), h)| *h || words.iter().any(|w| names.contains(w)))
            .collect();
        if next == holds {
            break;
        }
        holds = next;
    }
    // A path declared twice (under different `cfg`s, say) is left out: which one it means is not syntax.
    let unique = |name: &str| candidates.iter().filter(|(c, _)| c.name == name).count() == 1;
    candidates.iter().zip(holds).filter(|((c, _), h)| *h && unique(&c.name)).map(|((c, _), _)| c.clone()).collect()
}

/// The candidates among `items` of the module at `module` (`a::b::`, empty at the root) under `cfgs`.
fn collect(
    items: ast::AstChildren<ast::Item>,
    module: &str,
    cfgs: &[String],
    out: &mut Vec<(LockHolder, Vec<String>)>,
) {
    let cfgs_of = |attrs: ast::AstChildren<ast::Attr>| -> Vec<String> {
        let mut all = cfgs.to_vec();
        all.extend(
            attrs
                .map(|a| a.syntax().to_string())
                .filter(|a| a.split_whitespace().collect::<String>().starts_with("#[cfg(")),
        );
        all
    };
    for item in items {
        let (name, attrs, generics, shape, types) = match &item {
            ast::Item::Module(m) => {
                let (Some(name), Some(list)) = (m.name(), m.item_list()) else { continue };
                // A `#[path]` module is another file's; a raw name would need its `r#` in the path.
                let has_path = m.attrs().any(|a| a.syntax().to_string().contains("path"));
                if !has_path && !name.text().starts_with("r#") {
                    collect(list.items(), &format!("{module}{}::", name.text()), &cfgs_of(m.attrs()), out);
                }
                continue;
            }
            // A packed struct's fields cannot be borrowed in place.
            ast::Item::Struct(st) if st.attrs().any(|a| a.syntax().to_string().contains("packed")) => continue,
            ast::Item::Struct(st) => {
                let (shape, types) = fields_of(st.field_list());
                (st.name(), st.attrs(), st.generic_param_list(), LockHolderShape::Struct(shape), types)
            }
            ast::Item::Static(st) if st.mut_token().is_none() => {
                let ty: Vec<ast::Type> = st.ty().into_iter().collect();
                (st.name(), st.attrs(), None, LockHolderShape::Static, ty)
            }
            ast::Item::Enum(en) => {
                let mut variants = Vec::new();
                let mut types = Vec::new();
                for v in en.variant_list().into_iter().flat_map(|l| l.variants()) {
                    let Some(vname) = v.name() else { continue };
                    let (shape, t) = fields_of(v.field_list());
                    variants.push((vname.text().to_string(), shape));
                    types.extend(t);
                }
                (en.name(), en.attrs(), en.generic_param_list(), LockHolderShape::Enum(variants), types)
            }
            _ => continue,
        };
        let (Some(name), None) = (name, generics) else { continue };
        let words = types
            .iter()
            .flat_map(|t| {
                t.syntax()
                    .to_string()
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        let holder = LockHolder {
            name: format!("{module}{}", name.text()),
            in_module: !module.is_empty(),
            cfgs: cfgs_of(attrs),
            shape,
        };
        out.push((holder, words));
    }
}

fn fields_of(list: Option<ast::FieldList>) -> (VariantFields, Vec<ast::Type>) {
    match list {
        None => (VariantFields::Unit, Vec::new()),
        Some(ast::FieldList::TupleFieldList(t)) => {
            (VariantFields::Tuple(t.fields().count()), t.fields().filter_map(|f| f.ty()).collect())
        }
        Some(ast::FieldList::RecordFieldList(r)) => (
            VariantFields::Record(r.fields().filter_map(|f| f.name()).map(|n| n.text().to_string()).collect()),
            r.fields().filter_map(|f| f.ty()).collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_that_reach_a_lock_by_name_through_each_other() {
        let text = "use std::sync::*;\nstruct A { m: Mutex<u8> }\nstruct B(Vec<A>, String);\nenum C { X(Option<Box<B>>), Y { s: String }, Z }\n\
                    struct Plain { n: u32 }\nstruct G<T> { m: Mutex<T> }\n#[repr(C, packed)] struct P { m: Mutex<u8> }\n#[cfg(unix)] struct D { l: std::sync::RwLock<()> }\n\
                    #[cfg(test)] mod m { pub struct Inner { m: Mutex<u8> } mod n { struct Outer(super::Inner); } }\n\
                    static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());\nstatic mut RAW: Mutex<u8> = Mutex::new(0);\n\
                    pub static SHARDS: [A; 0] = [];\nstatic N: u32 = 0;\n";
        let file = SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021).tree();
        let found: Vec<String> =
            lock_holders(&file).iter().map(|h| format!("{}{} {:?}", h.cfgs.join(""), h.name, h.shape)).collect();
        expect_test::expect![[r##"
            [
                "A Struct(Record([\"m\"]))",
                "B Struct(Tuple(2))",
                "C Enum([(\"X\", Tuple(1)), (\"Y\", Record([\"s\"])), (\"Z\", Unit)])",
                "#[cfg(unix)]D Struct(Record([\"l\"]))",
                "#[cfg(test)]m::Inner Struct(Record([\"m\"]))",
                "#[cfg(test)]m::n::Outer Struct(Tuple(1))",
                "LOG Static",
                "SHARDS Static",
            ]
        "##]]
        .assert_debug_eq(&found);
    }
}
