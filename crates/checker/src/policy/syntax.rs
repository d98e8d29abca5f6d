//! Denials that need no name resolution, checked on the parse tree before any compiler sees the snippet:
//! `unsafe`, `extern`, `static mut`, linkage and `#[path]` attributes, out-of-line modules, the macros that read
//! the build machine or emit assembly, and the known soundness-hole shapes. Token trees (macro arguments,
//! `macro_rules!` bodies) are scanned too, so a rule cannot be dodged by routing code through a macro.

use lacuna_policy::ViolationKind;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, SyntaxToken, TextRange};

use super::Violation;

/// Attribute names that link symbols into the host, change how it is linked, or pick its allocator.
const LINKAGE_ATTRS: &[&str] = &[
    "no_mangle",
    "export_name",
    "link",
    "link_name",
    "link_section",
    "link_ordinal",
    "linkage",
    "used",
    "global_allocator",
    "naked",
    "target_feature",
    "instruction_set",
    "ffi_pure",
    "ffi_const",
];

/// Macro names denied wherever they appear (even inside another macro's arguments or a `macro_rules!` body).
fn denied_macro(name: &str) -> Option<(ViolationKind, &'static str)> {
    match name {
        "include" | "include_str" | "include_bytes" => {
            Some((ViolationKind::CompileTimeRead, "reads a file at compile time"))
        }
        "env" | "option_env" => Some((ViolationKind::CompileTimeRead, "reads an environment variable at compile time")),
        "asm" | "global_asm" | "naked_asm" | "llvm_asm" => Some((ViolationKind::ForeignCode, "emits machine code")),
        _ => None,
    }
}

/// Every syntax-level violation in `root` within `range` (the snippet's text); `None` takes all of `root` (a
/// macro expansion, whose violations are reported at `origin`).
pub(crate) fn violations(root: &SyntaxNode, range: Option<TextRange>, origin: Option<TextRange>) -> Vec<Violation> {
    let mut out = Vec::new();
    let inside = |r: TextRange| range.is_none_or(|range| range.contains_range(r));
    let at = |r: TextRange| {
        let r = origin.unwrap_or(r);
        usize::from(r.start())..usize::from(r.end())
    };
    let mut push = |kind, r: TextRange, message: String, label: &str| {
        out.push(Violation { kind, range: at(r), message, label: label.to_owned(), grant: None, allow: None });
    };
    for element in root.descendants_with_tokens() {
        if !inside(element.text_range()) {
            continue;
        }
        match element {
            ra_ap_syntax::NodeOrToken::Token(token) => match token.kind() {
                SyntaxKind::UNSAFE_KW => push(
                    ViolationKind::UnsafeCode,
                    token.text_range(),
                    "`unsafe` code is not allowed in a snippet".into(),
                    "unsafe",
                ),
                SyntaxKind::EXTERN_KW => push(
                    ViolationKind::ForeignCode,
                    token.text_range(),
                    "`extern` is not allowed in a snippet: no foreign functions, crates or ABIs".into(),
                    "extern",
                ),
                SyntaxKind::STATIC_KW if next_significant(&token).is_some_and(|t| t.kind() == SyntaxKind::MUT_KW) => {
                    push(
                        ViolationKind::UnsafeCode,
                        token.text_range(),
                        "`static mut` is not allowed in a snippet".into(),
                        "mutable static",
                    )
                }
                SyntaxKind::IDENT if token.parent().is_some_and(|p| p.kind() == SyntaxKind::TOKEN_TREE) => {
                    let name = token.text();
                    let bang = next_significant(&token).is_some_and(|t| t.kind() == SyntaxKind::BANG);
                    if let (true, Some((kind, what))) = (bang, denied_macro(name)) {
                        push(kind, token.text_range(), format!("`{name}!` {what}, which a snippet may not"), what);
                    } else if LINKAGE_ATTRS.contains(&name) && after_attr_open(&token) {
                        push(
                            ViolationKind::ForeignCode,
                            token.text_range(),
                            format!("`#[{name}]` is not allowed in a snippet: it changes how the host is linked"),
                            "linkage attribute",
                        );
                    }
                }
                _ => {}
            },
            ra_ap_syntax::NodeOrToken::Node(node) => {
                if let Some(attr) = ast::Attr::cast(node.clone()) {
                    for token in attr.syntax().descendants_with_tokens().filter_map(|e| e.into_token()) {
                        if token.kind() != SyntaxKind::IDENT {
                            continue;
                        }
                        if LINKAGE_ATTRS.contains(&token.text()) {
                            push(
                                ViolationKind::ForeignCode,
                                token.text_range(),
                                format!(
                                    "`#[{}]` is not allowed in a snippet: it changes how the host is linked",
                                    token.text()
                                ),
                                "linkage attribute",
                            );
                        } else if token.text() == "path" {
                            push(
                                ViolationKind::CompileTimeRead,
                                token.text_range(),
                                "`#[path]` reads a file at compile time, which a snippet may not".into(),
                                "reads a file",
                            );
                        }
                    }
                } else if let Some(module) = ast::Module::cast(node.clone()) {
                    if module.item_list().is_none() {
                        push(
                            ViolationKind::CompileTimeRead,
                            module.syntax().text_range(),
                            "`mod name;` reads a file at compile time; write the module inline: `mod name { .. }`"
                                .into(),
                            "reads a file",
                        );
                    }
                } else if let Some(call) = ast::MacroCall::cast(node.clone()) {
                    let name = call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref());
                    if let Some((kind, what)) = name.as_ref().and_then(|n| denied_macro(n.text())) {
                        let name = name.expect("matched above");
                        push(
                            kind,
                            name.syntax().text_range(),
                            format!("`{}!` {what}, which a snippet may not", name.text()),
                            what,
                        );
                    }
                } else if let Some((range, message, label)) = super::soundness::shape(&node) {
                    push(ViolationKind::SoundnessHole, range, message, label);
                }
            }
        }
    }
    out
}

fn next_significant(token: &SyntaxToken) -> Option<SyntaxToken> {
    std::iter::successors(token.next_token(), |t| t.next_token()).find(|t| !t.kind().is_trivia())
}

fn prev_significant(token: &SyntaxToken) -> Option<SyntaxToken> {
    std::iter::successors(token.prev_token(), |t| t.prev_token()).find(|t| !t.kind().is_trivia())
}

/// Whether `token` follows `#[`, `#![` or sits inside an attribute's argument list written in a token tree.
fn after_attr_open(token: &SyntaxToken) -> bool {
    let Some(open) = prev_significant(token) else { return false };
    match open.kind() {
        SyntaxKind::L_BRACK => {
            prev_significant(&open).is_some_and(|t| matches!(t.kind(), SyntaxKind::POUND | SyntaxKind::BANG))
        }
        // `#[cfg_attr(all(), no_mangle)]` and `#[unsafe(no_mangle)]` inside a macro body.
        SyntaxKind::COMMA | SyntaxKind::L_PAREN => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(snippet: &str) -> Vec<&'static str> {
        let text = format!("fn main() {{ let _x = {{ {snippet} }}; }}");
        let file = ra_ap_syntax::SourceFile::parse(&text, ra_ap_syntax::Edition::Edition2021).tree();
        violations(file.syntax(), None, None).iter().map(|v| v.kind.name()).collect()
    }

    #[test]
    fn denied_shapes() {
        assert_eq!(kinds("unsafe { 1 }"), ["unsafe-code"]);
        assert_eq!(kinds(r#"extern "C" { fn system(c: *const u8) -> i32; } 0"#), ["foreign-code"]);
        assert_eq!(kinds("static mut N: i32 = 0; 1"), ["unsafe-code"]);
        assert_eq!(kinds("#[no_mangle] fn f() {} 1"), ["foreign-code"]);
        assert_eq!(kinds("#[cfg_attr(all(), export_name = \"main\")] fn f() {} 1"), ["foreign-code"]);
        assert_eq!(kinds("#[path = \"/etc/passwd\"] mod m; 1"), ["compile-time-read", "compile-time-read"]);
        assert_eq!(kinds("include_str!(\"/etc/hostname\")"), ["compile-time-read"]);
        assert_eq!(kinds("format!(\"{}\", env!(\"HOME\"))"), ["compile-time-read"]);
        assert_eq!(kinds("macro_rules! m { () => { include_bytes!(\"/x\") } } 1"), ["compile-time-read"]);
        assert_eq!(kinds("fn f<'a, 'b>(_: &'a &'b (), v: &'b i32) -> &'a i32 { v } 1"), ["soundness-hole"]);
        // The implied bound through any wrapper.
        for ty in ["Option<&'b ()>", "[&'b (); 1]", "(&'b (),)", "Vec<&'b ()>", "Box<dyn Fn() + 'b>", "(&'b ())"] {
            let snippet = format!("fn f<'a, 'b>(_: &'a {ty}, v: &'b i32) -> &'a i32 {{ v }} 1");
            assert_eq!(kinds(&snippet), ["soundness-hole"], "{ty}");
        }
    }

    #[test]
    fn ordinary_code_passes() {
        assert!(kinds("let path = \"a/b\"; let env = 3; let link = vec![1]; #[derive(Debug)] struct S; fn f(x: &&i32) -> i32 { **x } f(&&env) + link.len() as i32").is_empty());
        assert!(kinds("fn g<'a>(x: &'a &'a str) -> usize { x.len() } g(&\"s\")").is_empty());
        assert!(kinds("fn h<'a>(x: &'a Option<&'static str>, f: &'a dyn for<'x> Fn(&'x str) -> usize) -> usize { x.map_or(0, |s| f(s)) } 1").is_empty());
        assert!(
            kinds("fn k<'a, 'b>(x: &'a str, y: &'b str) -> &'a str { if y.is_empty() { x } else { x } } 1").is_empty()
        );
    }
}
