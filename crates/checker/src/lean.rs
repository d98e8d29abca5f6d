//! The program rustc checks an accepted snippet in: the spliced program with the bodies of the host's other
//! functions emptied, so that rustc's check of it does not grow with the program.
//!
//! A function body is type- and borrow-checked against the signatures of the items it uses, never their bodies —
//! except where a body decides a type someone else sees: an opaque type (`-> impl Trait`, `async fn`), whose hidden
//! type and auto traits come from the body; a `const fn`, which constant evaluation runs; items declared inside a
//! body (an `impl` there holds for the whole crate). So with those bodies kept, a body replaced by `loop {}` (which
//! has every type) leaves rustc's verdict on the hole's function as it was; every other function's verdict is the
//! host's, which compiles (rustc checked the host alone when it was prepared; a host Lacuna generates, which it did
//! not, is never made lean). What the snippet could change outside its function is kept out by what the lean program
//! is used for: not when the snippet declares an `impl` or derives one (a new impl can make inference elsewhere
//! ambiguous), invokes a macro other than std's expression macros (it could expand to one), or sits in a function
//! whose own type is opaque (its callers see the snippet's auto traits).
//!
//! Emptied bodies keep their length (`{loop{}` and blanks, line breaks kept), so every offset rustc reports is the
//! spliced program's. The lean program's acceptance is final; its rejection is not: the whole program is checked
//! then (so a host the emptying would break, say one that denies unused variables, costs a second run, never a
//! wrong verdict).

use ra_ap_syntax::{ast, ast::HasAttrs, ast::HasName, AstNode, SourceFile, SyntaxKind};

/// Which bodies of a host can be emptied, and which of its holes' functions allow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Lean {
    /// The bodies to empty, `{ .. }` with braces, in host coordinates, in text order.
    pub bodies: Vec<std::ops::Range<usize>>,
    /// Per hole: whether its function's type is its own (not opaque), so its callers see nothing of the snippet.
    pub hole_allows: Vec<bool>,
    /// Names the host gives macros of its own (`macro_rules!`, `macro`) or imports under (`use`): a call by such a
    /// name is not known to be std's.
    shadowed: Vec<String>,
}

/// Attributes that change nothing of how a function's body is read.
const INERT_ATTRIBUTES: &[&str] = &[
    "allow",
    "warn",
    "deny",
    "forbid",
    "expect",
    "doc",
    "inline",
    "must_use",
    "cold",
    "track_caller",
    "cfg",
    "test",
    "ignore",
    "should_panic",
    "deprecated",
];

/// Whether a macro of this name is one of std's that expand to an expression of their arguments (never to an
/// item), or Lacuna's hole, and the host does not define or import another of that name (`shadowed`).
fn expression_macro(name: &str, shadowed: &[String]) -> bool {
    (lacuna_policy::STD_EXPRESSION_MACROS.contains(&name)
        || matches!(name, "agent" | "concat" | "stringify" | "line" | "column" | "file"))
        && !shadowed.iter().any(|s| s == name)
}

/// The shortest body worth emptying: `{loop{}}`.
const EMPTIED: &str = "{loop{}";

impl Lean {
    /// What of `file` can be emptied, given its holes (`holes`) and each hole's function (`hole_functions`).
    pub(crate) fn of(
        file: &SourceFile,
        holes: &[std::ops::Range<usize>],
        hole_functions: &[std::ops::Range<usize>],
    ) -> Lean {
        let shadowed = shadowing_names(file);
        let mut bodies = Vec::new();
        let mut hole_allows = vec![false; holes.len()];
        for f in file.syntax().descendants().filter_map(ast::Fn::cast) {
            let range = f.syntax().text_range();
            let range = usize::from(range.start())..usize::from(range.end());
            for (i, hole_fn) in hole_functions.iter().enumerate() {
                if *hole_fn == range {
                    hole_allows[i] = !opaque(&f);
                }
            }
            let holds_hole = holes.iter().any(|h| range.start <= h.start && h.end <= range.end);
            if holds_hole || !is_item(&f) || !emptiable(&f, &shadowed) {
                continue;
            }
            if let Some(body) = f.body() {
                let r = body.syntax().text_range();
                if usize::from(r.len()) > EMPTIED.len() + 1 {
                    bodies.push(usize::from(r.start())..usize::from(r.end()));
                }
            }
        }
        bodies.sort_by_key(|b| b.start);
        Lean { bodies, hole_allows, shadowed }
    }

    /// The lean program for `text` (a spliced program), whose host offsets `to_spliced` maps; `None` when the
    /// snippet in `hole` or its function rules it out.
    pub(crate) fn text(
        &self,
        text: &str,
        hole: usize,
        snippet: &str,
        to_spliced: impl Fn(usize) -> usize,
    ) -> Option<String> {
        if self.bodies.is_empty()
            || !self.hole_allows.get(hole).copied().unwrap_or(false)
            || !snippet_allows(snippet, &self.shadowed)
        {
            return None;
        }
        let mut lean = String::with_capacity(text.len());
        let mut at = 0;
        for body in &self.bodies {
            let (start, end) = (to_spliced(body.start), to_spliced(body.end));
            lean.push_str(&text[at..start]);
            lean.push_str(EMPTIED);
            blank(&mut lean, &text[start + EMPTIED.len()..end - 1]);
            lean.push('}');
            at = end;
        }
        lean.push_str(&text[at..]);
        Some(lean)
    }
}

/// `text` as blanks: line breaks kept, every other byte a space.
fn blank(out: &mut String, text: &str) {
    const SPACES: &str = "                                                                ";
    let spaces = |out: &mut String, mut n: usize| {
        while n > 0 {
            let k = n.min(SPACES.len());
            out.push_str(&SPACES[..k]);
            n -= k;
        }
    };
    let mut rest = text;
    while let Some(at) = rest.find('\n') {
        spaces(out, at);
        out.push('\n');
        rest = &rest[at + 1..];
    }
    spaces(out, rest.len());
}

/// The names `file` defines macros by, or imports anything under.
fn shadowing_names(file: &SourceFile) -> Vec<String> {
    let mut names: Vec<String> = file
        .syntax()
        .descendants()
        .filter_map(|n| {
            if let Some(m) = ast::MacroRules::cast(n.clone()) {
                m.name().map(|n| n.text().to_string())
            } else if let Some(m) = ast::MacroDef::cast(n.clone()) {
                m.name().map(|n| n.text().to_string())
            } else if let Some(rename) = ast::Rename::cast(n.clone()) {
                rename.name().map(|n| n.text().to_string())
            } else {
                let tree = ast::UseTree::cast(n)?;
                if tree.use_tree_list().is_some() || tree.star_token().is_some() {
                    return None;
                }
                tree.path()?.segment()?.name_ref().map(|n| n.text().to_string())
            }
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether `f`'s type hides something its body decides: `async`, or `impl Trait` in its return type.
fn opaque(f: &ast::Fn) -> bool {
    f.async_token().is_some()
        || f.ret_type().is_some_and(|r| r.syntax().descendants_with_tokens().any(|t| t.kind() == SyntaxKind::IMPL_KW))
}

/// Whether `f` is an item of a module, an impl or a trait (not declared inside a body).
fn is_item(f: &ast::Fn) -> bool {
    f.syntax().parent().is_some_and(|p| {
        matches!(p.kind(), SyntaxKind::SOURCE_FILE | SyntaxKind::ITEM_LIST | SyntaxKind::ASSOC_ITEM_LIST)
    })
}

/// Whether emptying `f`'s body leaves every other body's verdict as it was.
fn emptiable(f: &ast::Fn, shadowed: &[String]) -> bool {
    if opaque(f) || f.const_token().is_some() {
        return false;
    }
    let inert = f
        .attrs()
        .all(|a| a.path().and_then(|p| p.as_single_name_ref()).is_some_and(|n| INERT_ATTRIBUTES.contains(&n.text())));
    let Some(body) = f.body() else { return false };
    inert
        && body.syntax().descendants().all(|n| match ast::Item::cast(n.clone()) {
            None => true,
            Some(ast::Item::MacroCall(call)) => call
                .path()
                .and_then(|p| p.segment())
                .and_then(|s| s.name_ref())
                .is_some_and(|n| expression_macro(n.text(), shadowed)),
            Some(_) => false,
        })
}

/// Whether a snippet leaves everything outside its function as it was: no `impl`, no derive, no macro but
/// std's expression macros.
fn snippet_allows(snippet: &str, shadowed: &[String]) -> bool {
    let lexed = ra_ap_parser::LexedStr::new(ra_ap_parser::Edition::Edition2021, snippet);
    let tokens: Vec<(SyntaxKind, &str)> =
        (0..lexed.len()).map(|i| (lexed.kind(i), lexed.text(i))).filter(|(k, _)| !k.is_trivia()).collect();
    !lexed.errors().any(|_| true)
        && tokens.iter().enumerate().all(|(i, (kind, text))| match kind {
            SyntaxKind::IMPL_KW => false,
            SyntaxKind::IDENT if *text == "derive" => false,
            SyntaxKind::IDENT => {
                tokens.get(i + 1).is_none_or(|(k, _)| *k != SyntaxKind::BANG) || expression_macro(text, shadowed)
            }
            _ => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn lean(text: &str, snippet: &str) -> Option<String> {
        let file = SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021).tree();
        let at = text.find("agent!(\"x\")").expect("a hole");
        let hole = at..at + 11;
        let f = file
            .syntax()
            .descendants()
            .filter_map(ast::Fn::cast)
            .filter(|f| {
                f.syntax()
                    .text_range()
                    .contains_range(ra_ap_syntax::TextRange::new((at as u32).into(), (at as u32).into()))
            })
            .last()
            .map(|f| usize::from(f.syntax().text_range().start())..usize::from(f.syntax().text_range().end()))
            .expect("a function around the hole");
        let lean = Lean::of(&file, std::slice::from_ref(&hole), &[f]);
        let out = lean.text(text, 0, snippet, |o| o)?;
        assert_eq!(out.len(), text.len());
        Some(out)
    }

    const HOST: &str = "struct S;\nimpl S {\n    fn total(&self) -> u32 {\n        let v = vec![1, 2];\n        v.iter().sum()\n    }\n    fn items(&self) -> impl Iterator<Item = u32> {\n        0..3\n    }\n}\n\
const fn limit() -> u32 {\n    7 * 6\n}\nfn local() -> u32 {\n    struct T;\n    impl T { fn f() {} }\n    1\n}\n#[tokio::main]\nfn attr() {\n    println!(\"hi\");\n}\n\
fn main() {\n    let s = S;\n    let _ = agent!(\"x\");\n}\n";

    #[test]
    fn bodies_that_decide_no_type_outside_are_emptied() {
        expect![[r#"
            struct S;
            impl S {
                fn total(&self) -> u32 {loop{}

                }
                fn items(&self) -> impl Iterator<Item = u32> {
                    0..3
                }
            }
            const fn limit() -> u32 {
                7 * 6
            }
            fn local() -> u32 {
                struct T;
                impl T { fn f() {} }
                1
            }
            #[tokio::main]
            fn attr() {
                println!("hi");
            }
            fn main() {
                let s = S;
                let _ = agent!("x");
            }
        "#]]
        .assert_eq(
            &lean(HOST, "s.total()").expect("lean").lines().map(|l| format!("{}\n", l.trim_end())).collect::<String>(),
        );
    }

    #[test]
    fn snippets_that_could_reach_outside_their_function_get_the_whole_program() {
        assert!(lean(HOST, "s.total() + limit()").is_some());
        assert!(lean(HOST, "format!(\"{}\", s.total()).len() as u32").is_some());
        assert!(lean(HOST, "trait Tr { fn t(&self) -> u32; }\nimpl Tr for S { fn t(&self) -> u32 { 1 } }\n0").is_none());
        assert!(lean(HOST, "#[derive(Clone)] struct U;\n0").is_none());
        assert!(lean(HOST, "macro_rules! m { () => { 1 } }\nm!()").is_none());
        assert!(lean(HOST, "some_dep::make!(S)").is_none());
        // A host's own `vec!` may make anything.
        let shadowing = format!("macro_rules! vec {{ () => {{ impl S {{}} }} }}\n{HOST}fn plain() -> u32 {{\n    let x = 1;\n    x + 1\n}}\n");
        let l = lean(&shadowing, "s.total()").expect("lean");
        assert!(l.contains("let v = vec![1, 2];") && !l.contains("x + 1"));
        assert!(lean(&shadowing, "vec![1u32].len() as u32").is_none());
        let opaque = HOST.replace(
            "fn main() {\n    let s = S;\n    let _ = agent!",
            "async fn main() {\n    let s = S;\n    let _ = agent!",
        );
        assert!(lean(&opaque, "s.total()").is_none());
    }
}
