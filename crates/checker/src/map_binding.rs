//! Views of a hole binding that is one of std's maps (`let scores: HashMap<String, u32>` in the function holding
//! the hole): what JIT code reads of such a map, each through a shim the instrumented host exports per map type
//! ([`views`]). The map stays the host's and is never copied; a view copies numbers out, and gives text as
//! `&str`s pointing into the map, which nothing can change while the snippet reads them (rustc's borrow check).
//! Pure syntax over the binding's type as written: a type the crate root cannot name makes shims that do not
//! compile, which the instrumenter drops, and the JIT then has no symbol to call (the snippet runs on rustc).

use crate::outline::ScalarFn;

/// A view of a map binding. Closed: each is a shim ([`views`]) and a typed-view method (`ir_build`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapBindingView {
    /// `m.keys()`: the keys in the map's own order, as a vector the run owns.
    Keys,
    /// `m.values()`: the values in the map's own order.
    Values,
    /// `m.iter()` (and `&m` looped over): the entries in the map's own order, as a vector of `(key, value)`
    /// tuples at the layout rustc gives that tuple type ([`iter_tuple`]; the host exports it).
    Iter,
    Len,
    IsEmpty,
    /// `m.contains_key(k)`.
    ContainsKey,
    /// `m.get(k)`: an `Option` of the value (a number copied, text in place).
    Get,
}

impl MapBindingView {
    pub const ALL: [MapBindingView; 7] = [
        MapBindingView::Keys,
        MapBindingView::Values,
        MapBindingView::Iter,
        MapBindingView::Len,
        MapBindingView::IsEmpty,
        MapBindingView::ContainsKey,
        MapBindingView::Get,
    ];

    /// The std method it is.
    pub fn name(self) -> &'static str {
        match self {
            MapBindingView::Keys => "keys",
            MapBindingView::Values => "values",
            MapBindingView::Iter => "iter",
            MapBindingView::Len => "len",
            MapBindingView::IsEmpty => "is_empty",
            MapBindingView::ContainsKey => "contains_key",
            MapBindingView::Get => "get",
        }
    }

    /// `keys()`, `values()` and `iter()`: the views that give the map's items, read as sequences.
    pub fn gives_items(self) -> bool {
        matches!(self, MapBindingView::Keys | MapBindingView::Values | MapBindingView::Iter)
    }

    pub fn from_name(name: &str) -> Option<MapBindingView> {
        MapBindingView::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// A key or value type a view handles: a number (of a type shims pass) or text (`String`, `&str`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapPart {
    Scalar(String),
    Text,
}

/// `HashMap<K, V>` / `BTreeMap<K, V>` (any path to them) with `K` and `V` each a number or text: `(K, V)`.
pub fn map_parts(map_type: &str) -> Option<(MapPart, MapPart)> {
    let text: String = map_type.split_whitespace().collect::<Vec<_>>().join(" ");
    let generic_at = text.find('<')?;
    let name = text[..generic_at].rsplit("::").next()?;
    if name != "HashMap" && name != "BTreeMap" {
        return None;
    }
    let args = text[generic_at + 1..].strip_suffix('>')?;
    let (key, value) = args.split_once(", ")?;
    let part = |t: &str| match t {
        "String" | "std::string::String" | "&str" => Some(MapPart::Text),
        s if crate::outline::SHIM_SCALARS.contains(&s) => Some(MapPart::Scalar(s.to_owned())),
        _ => None,
    };
    Some((part(key)?, part(value)?))
}

impl MapPart {
    /// As a part of a tuple: a number of its type, text as a `&str`.
    pub fn tuple_part(&self) -> Option<lacuna_ir::Part> {
        match self {
            MapPart::Scalar(s) => lacuna_ir::Scalar::from_name(s).map(lacuna_ir::Part::Scalar),
            MapPart::Text => Some(lacuna_ir::Part::Str),
        }
    }

    /// An entry's part, from the `&K` or `&V` `iter()` gives (`x`): the number, or the text as a `&str`.
    fn entry_part(&self, x: &str) -> String {
        match self {
            MapPart::Scalar(_) => format!("*{x}"),
            MapPart::Text => format!("::core::convert::AsRef::<str>::as_ref({x})"),
        }
    }
}

/// The tuple type of the entries the `iter` view of a map of type `map_type` gives: `(&str, u32)` for a
/// `HashMap<String, u32>`. The instrumented host exports its layout.
pub fn iter_tuple(map_type: &str) -> Option<lacuna_ir::TupleElem> {
    let (key, value) = map_parts(map_type)?;
    lacuna_ir::TupleElem::new(&[key.tuple_part()?, value.tuple_part()?])
}

/// The map a binding of type `binding_type` holds or points to (`&HashMap<..>`, `&mut BTreeMap<..>`), as written.
pub fn viewed_map(binding_type: &str) -> Option<&str> {
    let ty = binding_type.strip_prefix("&mut ").or_else(|| binding_type.strip_prefix('&')).unwrap_or(binding_type);
    map_parts(ty).map(|_| ty)
}

/// The shims of the views of a map binding of type `map_type` (as the binding's type is written, without the
/// `&`/`&mut` of a reference binding); none when its keys or values are neither numbers nor text.
pub fn views(map_type: &str) -> Vec<ScalarFn> {
    let Some((key, value)) = map_parts(map_type) else { return Vec::new() };
    // What `__lacuna_k` is in a body, and how a method taking `&Q` is given it.
    let (param, key_arg) = match &key {
        MapPart::Scalar(s) => (s.clone(), "&__lacuna_k"),
        MapPart::Text => ("&str".to_owned(), "__lacuna_k"),
    };
    let as_text = "::core::convert::AsRef::<str>::as_ref";
    let collected = |of: &str, part: &MapPart| match part {
        MapPart::Scalar(s) => (format!("__lacuna_m.{of}().copied().collect()"), format!("Vec<{s}>")),
        MapPart::Text => (format!("__lacuna_m.{of}().map(|x| {as_text}(x)).collect()"), "Vec<&str>".to_owned()),
    };
    MapBindingView::ALL
        .into_iter()
        .map(|view| {
            let (body, ret, params) = match view {
                MapBindingView::Keys => {
                    let (body, ret) = collected("keys", &key);
                    (body, ret, Vec::new())
                }
                MapBindingView::Values => {
                    let (body, ret) = collected("values", &value);
                    (body, ret, Vec::new())
                }
                MapBindingView::Iter => {
                    let entry = format!("({}, {})", key.entry_part("k"), value.entry_part("v"));
                    let tuple = iter_tuple(map_type).map(|t| t.name()).unwrap_or_default();
                    (format!("__lacuna_m.iter().map(|(k, v)| {entry}).collect()"), format!("Vec<{tuple}>"), Vec::new())
                }
                MapBindingView::Len => ("__lacuna_m.len()".to_owned(), "usize".to_owned(), Vec::new()),
                MapBindingView::IsEmpty => ("__lacuna_m.is_empty()".to_owned(), "bool".to_owned(), Vec::new()),
                MapBindingView::ContainsKey => {
                    (format!("__lacuna_m.contains_key({key_arg})"), "bool".to_owned(), vec![param.clone()])
                }
                MapBindingView::Get => match &value {
                    MapPart::Scalar(s) => {
                        (format!("__lacuna_m.get({key_arg}).copied()"), format!("Option<{s}>"), vec![param.clone()])
                    }
                    MapPart::Text => (
                        format!("__lacuna_m.get({key_arg}).map(|x| {as_text}(x))"),
                        "Option<&str>".to_owned(),
                        vec![param.clone()],
                    ),
                },
            };
            ScalarFn {
                name: view.name().to_owned(),
                module: None,
                method_of: None,
                params,
                ret,
                made: Some(body),
                callable: None,
                viewed: Some(map_type.to_owned()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_of_numbers_and_text_get_every_view() {
        assert_eq!(map_parts("HashMap<String, u32>"), Some((MapPart::Text, MapPart::Scalar("u32".into()))));
        assert_eq!(
            map_parts("std::collections::BTreeMap<u32, &str>"),
            Some((MapPart::Scalar("u32".into()), MapPart::Text))
        );
        let shims = views("HashMap<String, u32>");
        let made: Vec<(&str, &str, &str)> =
            shims.iter().map(|f| (f.name.as_str(), f.ret.as_str(), f.made.as_deref().unwrap_or_default())).collect();
        expect_test::expect![[r#"
            [
                (
                    "keys",
                    "Vec<&str>",
                    "__lacuna_m.keys().map(|x| ::core::convert::AsRef::<str>::as_ref(x)).collect()",
                ),
                (
                    "values",
                    "Vec<u32>",
                    "__lacuna_m.values().copied().collect()",
                ),
                (
                    "iter",
                    "Vec<(&str, u32)>",
                    "__lacuna_m.iter().map(|(k, v)| (::core::convert::AsRef::<str>::as_ref(k), *v)).collect()",
                ),
                (
                    "len",
                    "usize",
                    "__lacuna_m.len()",
                ),
                (
                    "is_empty",
                    "bool",
                    "__lacuna_m.is_empty()",
                ),
                (
                    "contains_key",
                    "bool",
                    "__lacuna_m.contains_key(__lacuna_k)",
                ),
                (
                    "get",
                    "Option<u32>",
                    "__lacuna_m.get(__lacuna_k).copied()",
                ),
            ]
        "#]]
        .assert_debug_eq(&made);
        assert_eq!(shims[5].params, ["&str"]);
        assert_ne!(shims[0].symbol(), views("HashMap<String, u64>")[0].symbol());
    }

    #[test]
    fn other_maps_and_types_get_none() {
        for ty in
            ["HashMap<String, Vec<u32>>", "HashSet<u32>", "HashMap<(u8, u8), u32>", "Vec<u32>", "HashMap<u128, u8>"]
        {
            assert!(views(ty).is_empty(), "{ty}");
        }
    }
}
