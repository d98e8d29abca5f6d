//! A session turn's parts (pure syntax): the items it declares, which stay in scope for later turns, and where its
//! final expression is.

use ra_ap_syntax::{ast, ast::HasAttrs, ast::HasName, AstNode, Edition, SourceFile};

/// An item a turn declares, with what a later declaration of the same thing replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnItem {
    /// `fn helper`, `type Point`, `impl Shape for Point`, `use std::fmt`: a later item with the same key replaces
    /// this one (types share one namespace: a struct replaces an enum of the same name).
    pub key: String,
    /// The name it declares (types and functions), for finding what a redefinition invalidates.
    pub name: Option<String>,
    pub text: String,
    /// Byte range in the turn.
    pub range: std::ops::Range<usize>,
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
        let named =
            |kind: &str, n: Option<ast::Name>| n.map(|n| (format!("{kind} {}", n.text()), Some(n.text().to_string())));
        let (key, name) = match &item {
            ast::Item::Fn(f) => named("fn", f.name()),
            ast::Item::Struct(s) => named("type", s.name()),
            ast::Item::Enum(e) => named("type", e.name()),
            ast::Item::Union(u) => named("type", u.name()),
            ast::Item::TypeAlias(t) => named("type", t.name()),
            ast::Item::Trait(t) => named("type", t.name()),
            ast::Item::Const(c) => named("value", c.name()),
            ast::Item::Static(s) => named("value", s.name()),
            ast::Item::MacroRules(m) => named("macro", m.name()),
            ast::Item::Impl(i) => {
                let header = i.syntax().text().to_string();
                let header =
                    header.split('{').next().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
                Some((header, None))
            }
            other => Some((other.syntax().text().to_string().split_whitespace().collect::<Vec<_>>().join(" "), None)),
        }?;
        let range = local(item.syntax());
        items.push(TurnItem { key, name, text: turn[range.clone()].to_owned(), range });
    }
    let tail = stmts.tail_expr().map(|e| local(e.syntax()));
    Some(TurnParts { items, tail })
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
            parts.items.iter().map(|i| format!("{} | {:?} | {:?}", i.key, i.name, i.range)).collect();
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
