//! A snippet checked lifted out of its hole: as the body of a function of its own, in a module of its own after
//! the host, whose parameters are the hole's bindings.
//!
//! rust-analyzer infers a function body as one query. With the snippet in its hole, every check changes the
//! function around it, so rust-analyzer infers that whole function again (with its `vec![..]`s, its maps, the
//! other holes' code) and lowers every body of the file again: for a host of a few kilobytes that is most of a
//! check. Lifted, the host file is the same text for every check of every hole —
//!
//! ```text
//! <the host, every hole unfilled>
//! mod __lacuna_lifted;                         // the file `__lacuna_lifted.rs`:
//!                                              //   use super::*;
//!                                              //   fn __lacuna_hole(total: u64, mut orders: Vec<Order>)
//!                                              //       -> Result<T, HoleError> { Ok::<T, HoleError>({ snippet }) }
//! ```
//!
//! — so what rust-analyzer made of it stays, and a check infers the snippet alone.
//!
//! It is the same question only where the two places see the same names with the same types, so a hole is lifted
//! only when (all syntactic, or rust-analyzer's own view of the unfilled host):
//! - it is in a plain function at the crate root, or a method of an inherent `impl` there of a type without
//!   generics (lifted into an `impl` of the same type, with the same receiver: `self` and `Self` mean the same in
//!   both), with no generics of its own, not `const` or `async`, no attributes but lint levels and docs; outside
//!   any closure; and that function declares no item (a block's items are in scope at the hole and nowhere else);
//!   no macro is defined after the function starts (`macro_rules!` is in scope textually, and the module comes
//!   last);
//! - its type is known and written without a reference, and every local visible at it is a binding of the hole
//!   (none a macro declared), so that each is a parameter or a name the snippet must not say;
//! - the snippet says neither `super` nor (outside a method) `self` or `Self`, which name different modules in
//!   the two places; nor the name of a binding no parameter stands for (a closure, a type that cannot be written:
//!   lifted, that name would resolve to something else, or nothing); nor the name of an *unsettled* binding, one
//!   whose type the code before the hole does not settle alone (a `Vec::new()` the host pushes to later, an
//!   unsuffixed `let n = 4;` the snippet could make a `usize`). In the hole rustc knows only what precedes it (a
//!   method call on a type it does not know yet is an error) and a literal's type is the snippet's to settle; a
//!   parameter's type is fixed. Settled is: written (a parameter, a `let` with a type), or the same when
//!   rust-analyzer reads the host cut off right after the hole, where each number in a binding's type is first
//!   asked to be another number type ([`cut_after`]: a number the code before fixed stays, an open one moves).
//!
//! Then the lifted check answers as the hole would: a snippet rust-analyzer finds clean lifted is clean in its hole.
//! Anything else — an error, a syntax error, a violation of safe mode's syntax rules — and the snippet is checked
//! in its hole as ever, so diagnostics are always the hole's. rustc always judges the snippet in its hole.

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericParams};
use ra_ap_syntax::{AstNode, Edition, SourceFile, SyntaxKind, SyntaxNode, T};

use crate::host::Host;
use lacuna_ir::HoleScope;

/// The module a lifted snippet is in, and its file below the host's.
pub(crate) const MODULE: &str = "__lacuna_lifted";
pub(crate) const MODULE_PATH: &str = "__lacuna_lifted.rs";
const FUNCTION: &str = "__lacuna_hole";

/// How a hole's snippets are checked lifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lift {
    /// The hole's bindings as parameters: `total: u64, mut orders: Vec<Order>`.
    params: String,
    /// Per parameter: where its pattern (`mut total`) starts in `params`, and its binding's declaration.
    decls: Vec<(usize, usize)>,
    /// The hole's `T`.
    ty: String,
    /// For a method's hole: the `impl` the lifted function goes in (`Warehouse`), and its receiver.
    method: Option<(String, Option<String>)>,
    /// Names a snippet checked lifted must not mention: the bindings whose type the code before the hole does not
    /// settle alone, and those no parameter can stand for (a closure, `self`, a type that cannot be written).
    hidden: Vec<String>,
}

/// Where a hole that might be lifted is: the function around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Site {
    /// The function's whole range, and where its body's `{` is.
    function: std::ops::Range<usize>,
    body_open: usize,
    /// Declarations whose type is written: the function's parameters and `let`s with a type.
    typed_decls: Vec<usize>,
    /// The function is a method of an inherent `impl` at the root: its receiver as written (`&mut self`), if any.
    method: Option<Option<String>>,
}

/// The site of hole `hole` when its host and place allow lifting (the first list above).
pub(crate) fn site(host: &Host, hole: usize) -> Option<Site> {
    let hole = &host.holes[hole];
    // A package checked with its binary as a module is judged in place: the boundary stage reads the snippet
    // there, in the library's holes too.
    let package = host.text.contains(crate::boundary::BINARY_MODULE);
    if hole.in_async || package || host.text.contains(MODULE) || host.text.contains(FUNCTION) {
        return None;
    }
    let file = SourceFile::parse(&host.text, Edition::Edition2021).tree();
    let token = file.syntax().token_at_offset((hole.range.start as u32).into()).right_biased()?;
    let function = token.parent_ancestors().find_map(ast::Fn::cast)?;
    let parent = function.syntax().parent()?;
    let is_root = |n: &SyntaxNode| n.kind() == SyntaxKind::SOURCE_FILE;
    // A method of an inherent impl of a type with no generics: lifted into an impl of the same type.
    let inherent = parent
        .parent()
        .and_then(ast::Impl::cast)
        .filter(|i| i.syntax().parent().is_some_and(|p| is_root(&p)))
        .filter(|i| i.trait_().is_none() && i.generic_param_list().is_none() && i.where_clause().is_none());
    let at_root = is_root(&parent) || inherent.is_some();
    let receiver = function.param_list().and_then(|p| p.self_param());
    let body = function.body()?;
    let plain = function.generic_param_list().is_none()
        && function.where_clause().is_none()
        && receiver.as_ref().is_none_or(|r| inherent.is_some() && r.colon_token().is_none())
        && function.const_token().is_none()
        && function.async_token().is_none()
        && function.attrs().all(|a| {
            a.path().is_some_and(|p| matches!(p.syntax().text().to_string().as_str(), "allow" | "warn" | "doc"))
        });
    let in_closure = token
        .parent_ancestors()
        .take_while(|n| n != function.syntax())
        .any(|n| matches!(n.kind(), SyntaxKind::CLOSURE_EXPR | SyntaxKind::CONST | SyntaxKind::STATIC));
    if !at_root || !plain || in_closure || declares_items(body.syntax()) {
        return None;
    }
    let start = usize::from(function.syntax().text_range().start());
    let later_macros = file.syntax().descendants().any(|n| {
        matches!(n.kind(), SyntaxKind::MACRO_RULES | SyntaxKind::MACRO_DEF)
            && usize::from(n.text_range().start()) >= start
    });
    if later_macros {
        return None;
    }
    let range = function.syntax().text_range();
    let mut typed_decls: Vec<usize> = receiver.iter().map(|r| usize::from(r.syntax().text_range().start())).collect();
    for param in function.param_list().into_iter().flat_map(|l| l.params()) {
        if let Some(pat) = param.pat() {
            typed_decls.extend(binding_decls(pat.syntax()));
        }
    }
    for stmt in body.syntax().descendants().filter_map(ast::LetStmt::cast) {
        if let (Some(pat), Some(ty)) = (stmt.pat(), stmt.ty()) {
            if !ty.syntax().descendants().any(|n| n.kind() == SyntaxKind::INFER_TYPE) {
                typed_decls.extend(binding_decls(pat.syntax()));
            }
        }
    }
    Some(Site {
        function: usize::from(range.start())..usize::from(range.end()),
        body_open: usize::from(body.syntax().text_range().start()),
        typed_decls,
        method: inherent.map(|_| receiver.map(|r| r.syntax().text().to_string())),
    })
}

/// Whether a function body declares an item (a `use`, a `fn`, a type, an impl, an item-position macro call): its
/// names are in scope at a hole in it, and nowhere else.
fn declares_items(body: &SyntaxNode) -> bool {
    body.descendants().filter_map(ast::Item::cast).any(|item| match item {
        // `println!(..)` as a statement is an expression; a macro call where an item goes may expand to items.
        ast::Item::MacroCall(call) => call.syntax().parent().is_none_or(|p| p.kind() != SyntaxKind::MACRO_EXPR),
        _ => true,
    })
}

/// Where the names a pattern binds are declared (what rust-analyzer calls a local's declaration: its `IdentPat`).
fn binding_decls(pat: &SyntaxNode) -> Vec<usize> {
    pat.descendants_with_tokens()
        .filter_map(|e| e.into_node())
        .filter_map(ast::IdentPat::cast)
        .map(|p| usize::from(p.syntax().text_range().start()))
        .collect()
}

/// What rust-analyzer reads to learn which bindings the code before hole `hole` settles alone: the host cut off
/// right after the hole's call, its open delimiters closed, and the call in a block that first asks each binding
/// whose type has a number in it to be another number type (`let _: &Vec<i8> = &scores;`). A binding whose type
/// the code before the hole fixed keeps it (the request is an error); one still open (an unsuffixed literal's)
/// takes the other. `scope` is the unfilled host's. Returns the text (without the prelude), where the hole's call is
/// in it, and how far the offsets after the function moved back.
pub(crate) fn cut_after(host: &Host, hole: usize, site: &Site, scope: &HoleScope) -> (String, usize, isize) {
    let hole = &host.holes[hole];
    let file = SourceFile::parse(&host.text, Edition::Edition2021).tree();
    let mut open: Vec<&'static str> = Vec::new();
    let first = file.syntax().token_at_offset((site.body_open as u32).into()).right_biased();
    for token in std::iter::successors(first, |t| t.next_token()) {
        if usize::from(token.text_range().start()) >= hole.range.start {
            break;
        }
        match token.kind() {
            T!['{'] => open.push("}"),
            T!['('] => open.push(")"),
            T!['['] => open.push("]"),
            T!['}'] | T![')'] | T![']'] => {
                open.pop();
            }
            _ => {}
        }
    }
    let mut text = String::with_capacity(host.text.len());
    text.push_str(&host.text[..hole.range.start]);
    text.push_str("{ ");
    for b in &scope.bindings {
        if let Some(other) = b.ty.as_deref().and_then(other_numbers) {
            text.push_str(&format!("let _: &{other} = &{}; ", b.name));
        }
    }
    let call = text.len();
    text.push_str(&host.text[hole.range.clone()]);
    text.push_str(" }");
    for close in open.iter().rev() {
        text.push(' ');
        text.push_str(close);
    }
    let kept = text.len();
    text.push_str(&host.text[site.function.end..]);
    (text, call, site.function.end as isize - kept as isize)
}

/// `ty` (as written) with every number type in it another of its kind (`i8` for an integer, `i16` for `i8`, `f32`
/// for `f64` and back), if it has any.
fn other_numbers(ty: &str) -> Option<String> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(ty.len());
    let mut changed = false;
    let mut rest = ty;
    while let Some(start) = rest.find(|c: char| is_word(c)) {
        out.push_str(&rest[..start]);
        let len = rest[start..].find(|c: char| !is_word(c)).unwrap_or(rest.len() - start);
        let word = &rest[start..start + len];
        let other = match word {
            "i8" => "i16",
            "f64" => "f32",
            "f32" => "f64",
            w if NUMBERS.contains(&w) => "i8",
            w => w,
        };
        changed |= other != word;
        out.push_str(other);
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

impl Lift {
    /// The lift of a hole at `site` with scope `scope` and type `ty` (as written at the hole), if every binding can be
    /// a parameter; `cut` is the scope rust-analyzer sees with the host cut off after the hole ([`cut_after`]).
    pub(crate) fn of(site: &Site, scope: &HoleScope, cut: Option<&HoleScope>, ty: &str) -> Option<Lift> {
        let writable = |t: &str| !t.contains('\'') && !t.contains("impl ") && !t.contains('{');
        if !writable(ty) || ty.contains('&') {
            return None;
        }
        if !scope.type_params.is_empty() || scope.const_params || scope.unlisted_locals {
            return None;
        }
        let method = match (&site.method, &scope.self_type) {
            (None, None) => None,
            (Some(receiver), Some(self_type)) if writable(self_type) => Some((self_type.clone(), receiver.clone())),
            _ => return None,
        };
        let mut params = String::new();
        let mut decls = Vec::new();
        let mut hidden = Vec::new();
        if let Some((_, Some(receiver))) = &method {
            let b = scope.bindings.iter().find(|b| b.is_self)?;
            decls.push((0, b.decl));
            params.push_str(receiver);
        }
        for (i, b) in scope.bindings.iter().enumerate() {
            if b.is_self && method.as_ref().is_some_and(|(_, r)| r.is_some()) {
                continue;
            }
            let keyword = SyntaxKind::from_keyword(&b.name, Edition::Edition2021).is_some();
            let twice = scope.bindings[..i].iter().any(|o| o.name == b.name);
            let bty = match b.ty.as_deref().filter(|t| writable(t)) {
                Some(t) if !b.is_self && b.callable.is_none() && !keyword && !twice => t,
                // No parameter: a snippet that names it is checked in the hole (a snippet that does not, sees
                // nothing of it there either).
                _ if keyword || b.name.is_empty() => return None,
                _ => {
                    hidden.push(b.name.clone());
                    continue;
                }
            };
            if !params.is_empty() {
                params.push_str(", ");
            }
            // Where rust-analyzer says the parameter is declared: its pattern, `mut` included.
            decls.push((params.len(), b.decl));
            if b.mutable {
                params.push_str("mut ");
            }
            params.push_str(&b.name);
            params.push_str(": ");
            params.push_str(bty);
            let written = site.typed_decls.contains(&b.decl);
            let alone = cut
                .and_then(|c| c.bindings.iter().find(|o| o.decl == b.decl && o.name == b.name))
                .is_some_and(|o| o.ty.as_deref() == Some(bty));
            if !written && !alone {
                hidden.push(b.name.clone());
            }
        }
        Some(Lift { params, decls, ty: ty.to_owned(), method, hidden })
    }

    /// Whether `snippet` can be checked lifted (the last condition above).
    pub(crate) fn takes(&self, snippet: &str) -> bool {
        // In a method's lifted impl, `self` and `Self` are what they are in the hole.
        let context: &[&str] = if self.method.is_some() { &["super"] } else { &["self", "Self", "super"] };
        let mut words = context.iter().copied().chain(self.hidden.iter().map(String::as_str));
        !words.any(|word| mentions(snippet, word))
    }

    /// The lifted module's items around `snippet`, with where the snippet starts in them and each parameter's name.
    pub(crate) fn module_text(&self, snippet: &str) -> (String, usize, Vec<(usize, usize)>) {
        let ty = &self.ty;
        let mut text = String::from("\nuse super::*;\n");
        if let Some((self_type, _)) = &self.method {
            text.push_str(&format!("impl {self_type} {{\n"));
        }
        text.push_str(&format!("fn {FUNCTION}("));
        let params_at = text.len();
        text.push_str(&self.params);
        text.push_str(&format!(") -> ::core::result::Result<{ty}, ::lacuna::HoleError> {{\n"));
        text.push_str(&crate::host::snippet_open(Some(ty)));
        let snippet_at = text.len();
        text.push_str(snippet);
        text.push_str(crate::host::SNIPPET_CLOSE);
        text.push_str("\n}\n");
        if self.method.is_some() {
            text.push_str("}\n");
        }
        let aliases = self.decls.iter().map(|&(at, decl)| (params_at + at, decl)).collect();
        (text, snippet_at, aliases)
    }
}

/// The module whose view types are written from, for code at `module`: a lifted snippet's types are written as at
/// its hole, the crate's root (what its bindings' types were written from), not from the lifted module.
pub(crate) fn hole_module(db: &dyn ra_ap_hir::db::HirDatabase, module: ra_ap_hir::Module) -> ra_ap_hir::Module {
    let lifted = module.path_to_root(db).iter().any(|m| m.name(db).is_some_and(|n| n.as_str() == MODULE));
    if lifted {
        module.krate(db).root_module(db)
    } else {
        module
    }
}

/// Whether `text` has `word` as a whole word (in code, strings or comments alike: a mention too many only costs a
/// check in the hole).
fn mentions(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_word)
            && !text[at + word.len()..].chars().next().is_some_and(is_word)
    })
}

const NUMBERS: [&str; 14] =
    ["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64"];

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Host {
        Host::parse("host.rs", text).expect("host parses")
    }

    #[test]
    fn only_plain_functions_at_the_root_without_items_are_sites() {
        let lifted = |text: &str| site(&host(text), 0).is_some();
        assert!(lifted("fn main() { let n: u8 = agent!(\"t\").unwrap(); }"));
        assert!(lifted(
            "#[allow(unused)]\nfn main() { let v = vec![1]; println!(\"{}\", agent!(\"t\").unwrap_or(0)); }"
        ));
        assert!(!lifted("fn f<T>(x: T) -> u8 { agent!(\"t\").unwrap() }"));
        assert!(lifted("struct S; impl S { fn f(&self) -> u8 { agent!(\"t\").unwrap() } }"));
        assert!(lifted("struct S; impl S { fn new() -> S { agent!(\"t\").unwrap() } }"));
        assert!(!lifted("struct S; impl std::fmt::Debug for S { fn fmt(&self, _: &mut std::fmt::Formatter) -> std::fmt::Result { agent!(\"t\").unwrap() } }"));
        assert!(!lifted("struct S<T>(T); impl<T> S<T> { fn f(&self) -> u8 { agent!(\"t\").unwrap() } }"));
        assert!(!lifted("struct S; impl S { fn f(self: Box<Self>) -> u8 { agent!(\"t\").unwrap() } }"));
        assert!(!lifted("mod m { fn f() -> u8 { agent!(\"t\").unwrap() } }"));
        assert!(!lifted("fn main() { use std::fmt::Write; let n: u8 = agent!(\"t\").unwrap(); }"));
        assert!(!lifted("fn main() { fn helper() {} let n: u8 = agent!(\"t\").unwrap(); }"));
        assert!(!lifted("fn main() { let f = || agent!(\"t\"); }"));
        assert!(!lifted("async fn main() { let n: u8 = agent!(\"t\").unwrap(); }"));
        assert!(!lifted("fn main() { let n: u8 = agent!(\"t\").unwrap(); }\nmacro_rules! m { () => {} }"));
        assert!(lifted("macro_rules! m { () => {} }\nfn main() { let n: u8 = agent!(\"t\").unwrap(); }"));
    }

    #[test]
    fn the_cut_host_closes_what_is_open_at_the_hole() {
        let h = host("fn main() {\n    let v = vec![1];\n    if true {\n        println!(\"{}\", agent!(\"t\").unwrap_or(0));\n        v.len();\n    }\n}\nfn g() {}\n");
        let s = site(&h, 0).unwrap();
        let scope = HoleScope {
            bindings: vec![lacuna_ir::Binding {
                name: "v".into(),
                decl: 20,
                ty: Some("Vec<i32>".into()),
                ty_display: "Vec<i32>".into(),
                mutable: false,
                copy: false,
                mut_ref: false,
                is_self: false,
                const_opaque: false,
                const_value: None,
                callable: None,
            }],
            ..HoleScope::default()
        };
        let (text, call, moved) = cut_after(&h, 0, &s, &scope);
        assert_eq!(
            text,
            "fn main() {\n    let v = vec![1];\n    if true {\n        println!(\"{}\", { let _: &Vec<i8> = &v; \
             agent!(\"t\") } ) } }\nfn g() {}\n"
        );
        assert_eq!(&text[call..call + 6], "agent!");
        assert_eq!(h.text.find("fn g").unwrap() as isize - moved, text.find("fn g").unwrap() as isize);
    }

    #[test]
    fn whole_words_are_mentions() {
        assert!(mentions("self.x", "self"));
        assert!(mentions("a + n", "n"));
        assert!(!mentions("myself + n2", "self"));
        assert!(!mentions("n2", "n"));
        assert_eq!(
            other_numbers("HashMap<String, Vec<(u32, f64)>>").as_deref(),
            Some("HashMap<String, Vec<(i8, f32)>>")
        );
        assert_eq!(other_numbers("i8").as_deref(), Some("i16"));
        assert_eq!(other_numbers("Vec<Order>"), None);
    }
}
