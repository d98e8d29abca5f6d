//! The host's types that can hold a lock: top-level structs and enums whose fields hold a `Mutex` or `RwLock`,
//! directly, inside std's containers, or inside another such type. The instrumented host implements
//! `lacuna::__private::HoldsLocks` for each, so that after a snippet faults every lock reachable from the bindings
//! it used is cleared of the poison its panic left (however the snippet reached it: a field, a method that returns
//! one, an index, an iterator). Pure syntax: a type named here that holds no lock costs only an empty walk.

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericParams, HasModuleItem, HasName};
use ra_ap_syntax::{AstNode, SourceFile};

use crate::outline::VariantFields;

/// A type the instrumented host walks for locks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    pub name: String,
    /// The item's `#[cfg(..)]` attributes, as written: the impl exists where the type does.
    pub cfgs: Vec<String>,
    pub shape: LockHolderShape,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockHolderShape {
    Struct(VariantFields),
    /// Each variant, in declaration order.
    Enum(Vec<(String, VariantFields)>),
}

/// Words in a field's type that can mean a lock is inside.
const LOCKS: &[&str] = &["Mutex", "RwLock"];

/// The top-level structs and enums of `file` without generic parameters whose fields' types name a lock or
/// another such type (a fixpoint over names).
pub(crate) fn lock_holders(file: &SourceFile) -> Vec<LockHolder> {
    // Every candidate with the words its fields' types use.
    let mut candidates: Vec<(LockHolder, Vec<String>)> = Vec::new();
    for item in file.items() {
        let (name, attrs, generics, shape, types): (_, Vec<ast::Attr>, _, _, Vec<ast::Type>) = match &item {
            ast::Item::Struct(st) => {
                let (shape, types) = fields_of(st.field_list());
                (st.name(), st.attrs().collect(), st.generic_param_list(), LockHolderShape::Struct(shape), types)
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
                (en.name(), en.attrs().collect(), en.generic_param_list(), LockHolderShape::Enum(variants), types)
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
        let cfgs = attrs
            .iter()
            .map(|a| a.syntax().to_string())
            .filter(|a| a.split_whitespace().collect::<String>().starts_with("#[cfg("))
            .collect();
        candidates.push((LockHolder { name: name.text().to_string(), cfgs, shape }, words));
    }
    let mut holds: Vec<bool> =
        candidates.iter().map(|(_, words)| words.iter().any(|w| LOCKS.contains(&w.as_str()))).collect();
    loop {
        let names: Vec<&str> =
            candidates.iter().zip(&holds).filter(|(_, h)| **h).map(|((c, _), _)| c.name.as_str()).collect();
        let next: Vec<bool> = candidates
            .iter()
            .zip(&holds)
            .map(|((_, words), h)| *h || words.iter().any(|w| names.contains(&w.as_str())))
            .collect();
        if next == holds {
            break;
        }
        holds = next;
    }
    // A name declared twice (under different `cfg`s, say) is left out: which one a path means is not syntax.
    let unique = |name: &str| candidates.iter().filter(|(c, _)| c.name == name).count() == 1;
    candidates.iter().zip(holds).filter(|((c, _), h)| *h && unique(&c.name)).map(|((c, _), _)| c.clone()).collect()
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
                    struct Plain { n: u32 }\nstruct G<T> { m: Mutex<T> }\n#[cfg(unix)] struct D { l: std::sync::RwLock<()> }\n\
                    mod m { pub struct Inner { m: Mutex<u8> } }\n";
        let file = SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021).tree();
        let found: Vec<String> =
            lock_holders(&file).iter().map(|h| format!("{}{} {:?}", h.cfgs.join(" "), h.name, h.shape)).collect();
        expect_test::expect![[r##"
            [
                "A Struct(Record([\"m\"]))",
                "B Struct(Tuple(2))",
                "C Enum([(\"X\", Tuple(1)), (\"Y\", Record([\"s\"])), (\"Z\", Unit)])",
                "#[cfg(unix)]D Struct(Record([\"l\"]))",
            ]
        "##]]
        .assert_debug_eq(&found);
    }
}
