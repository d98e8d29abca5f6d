//! Where a snippet's code counts fuel (and checks its stack and the clock): the top of every loop body,
//! function body and closure body it writes — in its parsed code, and in the token trees the parser leaves
//! unparsed: the arguments of std's expression macros (`vec![..]`, `format!(..)`, `assert!(..)`) and of the
//! snippet's own macros, and the transcribers of its `macro_rules!`, so a loop or a recursive fn written there
//! counts too.

use std::collections::HashSet;

use lacuna_ir::FuelPoint;
use ra_ap_syntax::ast::HasLoopBody;
use ra_ap_syntax::{ast, AstNode, NodeOrToken, SyntaxKind, SyntaxNode, SyntaxToken, TextRange};

/// Every fuel point in `root` within `range`, as offsets relative to `base`.
pub(crate) fn points(root: &SyntaxNode, range: TextRange, base: usize) -> Vec<FuelPoint> {
    let inside = |n: &SyntaxNode| range.contains_range(n.text_range());
    // The snippet's own macros, but not one whose matcher spells a loop or fn: a tick in its arguments would
    // stop them matching.
    let own_macros: HashSet<String> = root
        .descendants()
        .filter(inside)
        .filter_map(ast::MacroRules::cast)
        .filter(|m| !m.token_tree().is_some_and(|tt| matcher_spells_code(tt.syntax())))
        .filter_map(|m| ast::HasName::name(&m).map(|n| n.text().to_string()))
        .collect();
    let mut out = Vec::new();
    for node in root.descendants().filter(inside) {
        out.extend(node_point(&node, base));
        out.extend(format_guard(&node, base));
        if let Some(call) = ast::MacroCall::cast(node.clone()) {
            let name = call.path().and_then(|p| p.segment()).and_then(|s| s.name_ref()).map(|n| n.text().to_string());
            if name
                .is_some_and(|n| lacuna_policy::STD_EXPRESSION_MACROS.contains(&n.as_str()) || own_macros.contains(&n))
            {
                if let Some(tt) = call.token_tree() {
                    token_tree(tt.syntax(), base, &mut out);
                }
            }
        } else if let Some(rules) = ast::MacroRules::cast(node.clone()) {
            // Only the transcribers (after `=>`): a matcher's tokens are a pattern, not code.
            let Some(tt) = rules.token_tree() else { continue };
            for transcriber in transcribers(tt.syntax()) {
                token_tree(&transcriber, base, &mut out);
            }
        }
    }
    out
}

/// The groups of a `macro_rules!` body, each with whether it is a transcriber (it follows `=>`; in a token
/// tree that is `=` then `>`).
fn rule_groups(rules: &SyntaxNode) -> Vec<(SyntaxNode, bool)> {
    let mut out = Vec::new();
    let mut previous: Option<SyntaxKind> = None;
    let mut after_arrow = false;
    for child in rules.children_with_tokens().filter(|c| !c.kind().is_trivia()) {
        match &child {
            NodeOrToken::Token(t) => {
                if t.kind() == SyntaxKind::R_ANGLE && previous == Some(SyntaxKind::EQ)
                    || t.kind() == SyntaxKind::FAT_ARROW
                {
                    after_arrow = true;
                } else if t.kind() != SyntaxKind::EQ {
                    after_arrow = false;
                }
                previous = Some(t.kind());
            }
            NodeOrToken::Node(group) => {
                out.push((group.clone(), after_arrow));
                after_arrow = false;
                previous = None;
            }
        }
    }
    out
}

fn transcribers(rules: &SyntaxNode) -> impl Iterator<Item = SyntaxNode> {
    rule_groups(rules).into_iter().filter(|(_, t)| *t).map(|(g, _)| g)
}

/// Whether a `macro_rules!` body has a matcher with `loop`, `while`, `for` or `fn` in it.
fn matcher_spells_code(rules: &SyntaxNode) -> bool {
    rule_groups(rules).iter().filter(|(_, transcriber)| !transcriber).any(|(group, _)| {
        group
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .any(|t| matches!(t.text(), "loop" | "while" | "for" | "fn"))
    })
}

/// std's formatting traits, whose `fmt` std may call while it builds a panic's message.
const FORMAT_TRAITS: &[&str] =
    &["Display", "Debug", "LowerHex", "UpperHex", "Octal", "Binary", "LowerExp", "UpperExp", "Pointer"];

/// The guard at the top of a `fmt` method of an impl of a formatting trait.
fn format_guard(node: &SyntaxNode, base: usize) -> Option<FuelPoint> {
    let f = ast::Fn::cast(node.clone())?;
    if ast::HasName::name(&f)?.text() != "fmt" {
        return None;
    }
    let imp = f.syntax().ancestors().nth(2).and_then(ast::Impl::cast)?;
    let trait_name = match imp.trait_()? {
        ast::Type::PathType(p) => p.path()?.segment()?.name_ref()?.text().to_string(),
        _ => return None,
    };
    if !FORMAT_TRAITS.contains(&trait_name.as_str()) {
        return None;
    }
    let open = f.body()?.stmt_list()?.l_curly_token()?;
    let formatter = f.param_list()?.params().next().and_then(|p| match p.pat()? {
        ast::Pat::IdentPat(i) if i.ref_token().is_none() => ast::HasName::name(&i).map(|n| n.text().to_string()),
        _ => None,
    });
    Some(FuelPoint::FormatGuard { after: usize::from(open.text_range().end()) - base, formatter })
}

/// The fuel point of one parsed construct.
pub(crate) fn node_point(node: &SyntaxNode, base: usize) -> Option<FuelPoint> {
    let rel = |r: TextRange| usize::from(r.start()) - base..usize::from(r.end()) - base;
    let after_curly = |list: Option<ast::StmtList>| {
        list.and_then(|l| l.l_curly_token()).map(|c| FuelPoint::After(usize::from(c.text_range().end()) - base))
    };
    if let Some(expr) = ast::LoopExpr::cast(node.clone()) {
        after_curly(expr.loop_body().and_then(|b| b.stmt_list()))
    } else if let Some(expr) = ast::WhileExpr::cast(node.clone()) {
        after_curly(expr.loop_body().and_then(|b| b.stmt_list()))
    } else if let Some(expr) = ast::ForExpr::cast(node.clone()) {
        after_curly(expr.loop_body().and_then(|b| b.stmt_list()))
    } else if let Some(f) = ast::Fn::cast(node.clone()) {
        after_curly(f.body().and_then(|b| b.stmt_list()))
    } else if let Some(closure) = ast::ClosureExpr::cast(node.clone()) {
        match closure.body() {
            Some(ast::Expr::BlockExpr(block)) if block.modifier().is_none() => after_curly(block.stmt_list()),
            Some(body) => Some(FuelPoint::Wrap(rel(body.syntax().text_range()))),
            None => None,
        }
    } else {
        None
    }
}

/// Fuel points in an unparsed token tree (and the trees inside it): after the `{` of the body that follows
/// `loop`, `while ..`, `for .. in ..` and `fn name(..) ..`. `for<'a>` and `impl .. for ..` are not loops; a
/// bodiless `fn ..;` has no body.
fn token_tree(tt: &SyntaxNode, base: usize, out: &mut Vec<FuelPoint>) {
    let children: Vec<NodeOrToken<SyntaxNode, SyntaxToken>> =
        tt.children_with_tokens().filter(|c| !c.kind().is_trivia()).collect();
    let mut impl_open = false;
    for (i, child) in children.iter().enumerate() {
        match child {
            NodeOrToken::Node(group) => token_tree(group, base, out),
            NodeOrToken::Token(token) => {
                let word = token.text();
                let next = children.get(i + 1);
                let starts_body = match word {
                    "impl" => {
                        impl_open = true;
                        false
                    }
                    ";" => {
                        impl_open = false;
                        false
                    }
                    "loop" | "while" => true,
                    "for" => {
                        let hrtb = next.is_some_and(|n| n.kind() == SyntaxKind::L_ANGLE);
                        !hrtb && !std::mem::take(&mut impl_open)
                    }
                    // `fn name` or, in a transcriber, `fn $name`.
                    "fn" => next
                        .and_then(|n| n.as_token())
                        .is_some_and(|n| matches!(n.kind(), SyntaxKind::IDENT | SyntaxKind::DOLLAR)),
                    _ => false,
                };
                if !starts_body {
                    continue;
                }
                // The first `{ .. }` group after the keyword at this level, before any `;`.
                let body = children[i + 1..]
                    .iter()
                    .take_while(|c| c.as_token().is_none_or(|t| t.kind() != SyntaxKind::SEMICOLON))
                    .filter_map(|c| c.as_node())
                    .find(|g| g.first_token().is_some_and(|t| t.kind() == SyntaxKind::L_CURLY));
                if let Some(open) = body.and_then(|g| g.first_token()) {
                    out.push(FuelPoint::After(usize::from(open.text_range().end()) - base));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instrumented(snippet: &str) -> String {
        let text = format!("fn main() {{ let _x = {{ {snippet} }}; }}");
        let file = ra_ap_syntax::SourceFile::parse(&text, ra_ap_syntax::Edition::Edition2021).tree();
        let start = text.find(snippet).unwrap();
        let range = TextRange::new((start as u32).into(), ((start + snippet.len()) as u32).into());
        let points = points(file.syntax(), range, start);
        lacuna_ir::FuelPoint::apply_all(snippet, &points).replace(lacuna_ir::FUEL_TICK, "T;")
    }

    #[test]
    fn loops_in_macro_arguments_and_transcribers_count() {
        expect_test::expect![[r#"
            let v = vec![{ let mut i = 0; loop { T; i += 1; if i > 3 { break i } } }];
                        println!("{}", { let mut n = 0; while n < 3 { T; n += 1 } n });
                        macro_rules! spin { ($f:ident, $n:expr) => {{ fn $f(k: u64) -> u64 { T; if k == 0 { 0 } else { $f(k - 1) } } for _ in 0..$n { T; $f(3); } }}; }
                        spin!(go, 2);
                        impl Clone for Q where for<'a> &'a Q: Copy { fn clone(&self) -> Q { T; Q } }
                        v.len()"#]]
        .assert_eq(&instrumented(
            r#"let v = vec![{ let mut i = 0; loop { i += 1; if i > 3 { break i } } }];
            println!("{}", { let mut n = 0; while n < 3 { n += 1 } n });
            macro_rules! spin { ($f:ident, $n:expr) => {{ fn $f(k: u64) -> u64 { if k == 0 { 0 } else { $f(k - 1) } } for _ in 0..$n { $f(3); } }}; }
            spin!(go, 2);
            impl Clone for Q where for<'a> &'a Q: Copy { fn clone(&self) -> Q { Q } }
            v.len()"#,
        ));
    }

    #[test]
    fn matchers_and_unknown_macros_are_left_alone() {
        let text = "macro_rules! m { (loop { $e:expr }) => { $e }; } other_dsl! { loop { x } } m!(loop { 1 })";
        assert_eq!(instrumented(text), text);
    }
}
