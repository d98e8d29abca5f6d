//! A session turn's parts (pure syntax): the items it declares, which stay in scope for later turns, and where its
//! final expression is.

use ra_ap_syntax::{ast, ast::HasAttrs, ast::HasName, AstNode, Edition, SourceFile};

/// An item a turn declares, with what a later declaration of the same thing replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnItem {
    /// A later item with the same key replaces this one.
    pub key: ItemKey,
    pub text: String,
    /// Byte range in the turn.
    pub range: std::ops::Range<usize>,
    /// The text as it runs, when it differs: with the wrappers that count the loops std runs over its iterators
    /// (they need the turn's analysis, which a later turn's host does not repeat).
    pub metered: Option<String>,
}

/// What an item declares, by namespace: a later item with the same key replaces an earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKey {
    /// `fn helper`.
    Fn(String),
    /// Structs, enums, unions, aliases and traits share one namespace: a struct replaces an enum of the same name.
    Type(String),
    /// Consts and statics.
    Value(String),
    /// `macro_rules!`.
    Macro(String),
    /// An impl, by its header with whitespace normalized (`impl Shape for Point`).
    Impl(String),
    /// Anything else (`use std::fmt;`), by its whole text with whitespace normalized.
    Other(String),
}

impl ItemKey {
    /// The name it declares (types, functions, values, macros), for finding what a redefinition invalidates.
    pub fn name(&self) -> Option<&str> {
        match self {
            ItemKey::Fn(name) | ItemKey::Type(name) | ItemKey::Value(name) | ItemKey::Macro(name) => Some(name),
            ItemKey::Impl(_) | ItemKey::Other(_) => None,
        }
    }
}

impl std::fmt::Display for ItemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ItemKey::Fn(name) => write!(f, "fn {name}"),
            ItemKey::Type(name) => write!(f, "type {name}"),
            ItemKey::Value(name) => write!(f, "value {name}"),
            ItemKey::Macro(name) => write!(f, "macro {name}"),
            ItemKey::Impl(header) | ItemKey::Other(header) => f.write_str(header),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnParts {
    pub items: Vec<TurnItem>,
    /// The final expression's byte range in the turn, if it ends in one.
    pub tail: Option<std::ops::Range<usize>>,
}

const PREFIX: &str = "fn __lacuna_turn() {\n";

/// The turn's items and final expression; `None` if it does not parse as a block body (the checker says why).
pub fn split_turn(turn: &str) -> Option<TurnParts> {
    let text = format!("{PREFIX}{turn}\n}}");
    let parse = SourceFile::parse(&text, Edition::Edition2021);
    if !parse.errors().is_empty() {
        return None;
    }
    let body = parse.tree().syntax().descendants().find_map(ast::Fn::cast)?.body()?;
    let stmts = body.stmt_list()?;
    let local = |node: &ra_ap_syntax::SyntaxNode| {
        let r = node.text_range();
        usize::from(r.start()) - PREFIX.len()..usize::from(r.end()) - PREFIX.len()
    };
    let mut items = Vec::new();
    for stmt in stmts.statements() {
        let ast::Stmt::Item(item) = stmt else { continue };
        let text = |n: Option<ast::Name>| n.map(|n| n.text().to_string());
        let key = match &item {
            ast::Item::Fn(f) => ItemKey::Fn(text(f.name())?),
            ast::Item::Struct(s) => ItemKey::Type(text(s.name())?),
            ast::Item::Enum(e) => ItemKey::Type(text(e.name())?),
            ast::Item::Union(u) => ItemKey::Type(text(u.name())?),
            ast::Item::TypeAlias(t) => ItemKey::Type(text(t.name())?),
            ast::Item::Trait(t) => ItemKey::Type(text(t.name())?),
            ast::Item::Const(c) => ItemKey::Value(text(c.name())?),
            ast::Item::Static(s) => ItemKey::Value(text(s.name())?),
            ast::Item::MacroRules(m) => ItemKey::Macro(text(m.name())?),
            ast::Item::Impl(i) => {
                let header = i.syntax().text().to_string();
                ItemKey::Impl(
                    header.split('{').next().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" "),
                )
            }
            other => ItemKey::Other(other.syntax().text().to_string().split_whitespace().collect::<Vec<_>>().join(" ")),
        };
        let range = local(item.syntax());
        items.push(TurnItem { key, text: turn[range.clone()].to_owned(), range, metered: None });
    }
    let tail = stmts.tail_expr().map(|e| local(e.syntax()));
    Some(TurnParts { items, tail })
}

/// `items` (items a turn declared, as written) with a [`lacuna_ir::FUEL_TICK`] at the top of every loop,
/// function and closure body, as a snippet's own code gets: a session's run host declares them so, and the turn's
/// budgets (fuel, time, stack) hold inside the functions it declared, on its thread and every thread it starts.
/// Called outside a turn's run (by host code), the ticks count nothing.
pub fn with_fuel_points(items: &str) -> String {
    let parse = SourceFile::parse(items, Edition::Edition2021);
    let root = parse.tree().syntax().clone();
    let points = crate::fuel::points(&root, root.text_range(), 0);
    lacuna_ir::FuelPoint::apply_all(items, &points)
}

/// A program's crate-level attributes (`#![allow(..)]`), as written: what a session opened on the program keeps
/// at the top of every host it generates.
pub fn crate_attributes(program: &str) -> Vec<String> {
    let parse = SourceFile::parse(program, Edition::Edition2021);
    parse
        .tree()
        .attrs()
        .filter(|attr| attr.excl_token().is_some())
        .map(|attr| attr.syntax().text().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn items_and_the_final_expression() {
        let turn = "fn area(w: u32, h: u32) -> u32 { w * h }\nstruct P { x: i32 }\nimpl P {\n    fn get(&self) -> i32 { self.x }\n}\nuse std::fmt;\nlet a = area(2, 3);\na + 1";
        let parts = split_turn(turn).unwrap();
        let shown: Vec<String> =
            parts.items.iter().map(|i| format!("{} | {:?} | {:?}", i.key, i.key.name(), i.range)).collect();
        expect![[r#"
            fn area | Some("area") | 0..40
            type P | Some("P") | 41..60
            impl P | None | 61..107
            use std::fmt; | None | 108..121"#]]
        .assert_eq(&shown.join("\n"));
        assert_eq!(&turn[parts.tail.unwrap()], "a + 1");
        assert_eq!(split_turn("let x = ;"), None);
        assert_eq!(split_turn("let x = 1;").unwrap().tail, None);
    }
}
