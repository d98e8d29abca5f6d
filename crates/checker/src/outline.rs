//! The host's items as a prompt lists them: functions as signatures (no bodies), types in full, `impl` blocks
//! with their methods' signatures. Pure syntax.

use ra_ap_syntax::ast::{self, HasModuleItem, HasName, HasVisibility};
use ra_ap_syntax::{AstNode, Edition, SourceFile};

/// Signatures of the items `text` defines (at top level, in `mod`s and in `impl`/`trait` blocks), in source
/// order. A file that does not parse yields what parsed.
pub fn signatures(text: &str) -> Vec<String> {
    let file = SourceFile::parse(text, Edition::Edition2021).tree();
    let mut out = Vec::new();
    items(file.items(), &mut out);
    out
}

/// Whether `text` parses as the body of a block (statements and an optional final expression) without syntax
/// errors. Tells code from prose in a model's unfenced reply.
pub fn parses_as_block_body(text: &str) -> bool {
    let wrapped = format!("fn __lacuna_probe() {{\n{text}\n}}\n");
    let parse = SourceFile::parse(&wrapped, Edition::Edition2021);
    parse.errors().is_empty() && parse.tree().items().count() == 1
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
    use expect_test::expect;

    #[test]
    fn code_parses_and_prose_does_not() {
        assert!(parses_as_block_body("let x = 1;\nx + 1"));
        assert!(parses_as_block_body("xs.iter().filter(|x| **x > 2).count()"));
        assert!(!parses_as_block_body("Sure! Here is the code you asked for."));
        assert!(!parses_as_block_body("} fn evil() {"));
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
        .assert_eq(&signatures(text).join("\n"));
    }
}
