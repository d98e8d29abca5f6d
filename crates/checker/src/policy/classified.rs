//! `Classified::map`: its closure must be a pure computation of its argument, so classified content reaches no
//! effect and no hosted model. A closure given to `map`/`map_ref` (in the snippet, or around it when the snippet
//! fills a hole written inside such a closure) may not capture anything from outside itself, print, call a host
//! function or method, use a capability or any other `lacuna` item but `Classified`, or hold a hole for a model
//! the policy does not mark local. It must be written in place (a closure expression), so it can be read.

use lacuna_policy::{CrateKind, Grant, ItemKind, Policy, ViolationKind};
use ra_ap_hir::{PathResolution, Semantics};
use ra_ap_ide_db::defs::{Definition, NameRefClass};
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::{AstToken, HasArgList};
use ra_ap_syntax::{ast, AstNode, NodeOrToken, SyntaxKind, SyntaxNode, TextRange};

use super::resolve::items;
use super::Violation;

/// The methods whose closure is checked.
const MAP_METHODS: &[&str] = &["map", "map_ref"];

pub(crate) fn violations(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    policy: &Policy,
    snippet: TextRange,
    root: &SyntaxNode,
) -> Vec<Violation> {
    if policy.is_unconfined() {
        return Vec::new();
    }
    let mut out = Vec::new();
    // (the closure whose inside may be named, the text checked)
    let mut scopes: Vec<(TextRange, TextRange)> = Vec::new();
    // A hole written inside a map closure: the whole snippet is part of that closure.
    for closure in root.ancestors().filter_map(ast::ClosureExpr::cast) {
        if is_map_argument(sema, db, closure.syntax()) {
            scopes.push((closure.syntax().text_range(), snippet));
        }
    }
    for node in root.descendants().filter(|n| snippet.contains_range(n.text_range())) {
        let args = if let Some(call) = ast::MethodCallExpr::cast(node.clone()) {
            // Only a call named `map`/`map_ref` can be one (resolving every method call would double the cost).
            if !call.name_ref().is_some_and(|n| MAP_METHODS.contains(&n.text())) {
                continue;
            }
            let resolved = sema.resolve_method_call(&call);
            if !resolved.is_some_and(|f| is_map(db, Definition::Function(f))) {
                continue;
            }
            call.arg_list()
        } else if let Some(call) = ast::CallExpr::cast(node.clone()) {
            let named_map = match call.expr() {
                Some(ast::Expr::PathExpr(p)) => p
                    .path()
                    .and_then(|p| p.segment())
                    .and_then(|s| s.name_ref())
                    .is_some_and(|n| MAP_METHODS.contains(&n.text())),
                _ => false,
            };
            if !named_map {
                continue;
            }
            let callee = match call.expr() {
                Some(ast::Expr::PathExpr(p)) => p.path().and_then(|p| sema.resolve_path(&p)),
                _ => None,
            };
            if !matches!(callee, Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) if is_map(db, Definition::Function(f)))
            {
                continue;
            }
            call.arg_list()
        } else {
            continue;
        };
        for arg in args.into_iter().flat_map(|a| a.args()) {
            match arg {
                ast::Expr::ClosureExpr(c) => scopes.push((c.syntax().text_range(), c.syntax().text_range())),
                // `Classified::map(doc, f)`: the receiver.
                ast::Expr::PathExpr(_) | ast::Expr::RefExpr(_) | ast::Expr::MethodCallExpr(_)
                    if is_classified_value(sema, &arg) => {}
                other => out.push(leak(
                    other.syntax().text_range(),
                    "`Classified::map` takes a closure written in place, so safe mode can check it is pure".into(),
                    "not a closure expression".into(),
                )),
            }
        }
    }
    for (inside, checked) in scopes {
        let Some(node) = covering(root, checked) else { continue };
        check_pure(sema, db, policy, inside, checked, &node, &mut out);
    }
    out
}

fn covering(root: &SyntaxNode, range: TextRange) -> Option<SyntaxNode> {
    let top = root.ancestors().last().unwrap_or_else(|| root.clone());
    match top.covering_element(range) {
        NodeOrToken::Node(n) => Some(n),
        NodeOrToken::Token(t) => t.parent(),
    }
}

fn is_classified_value(sema: &Semantics<'_, RootDatabase>, expr: &ast::Expr) -> bool {
    sema.type_of_expr(expr).and_then(|t| t.original.strip_references().as_adt()).is_some_and(|adt| {
        let db = sema.db;
        adt.name(db).as_str() == "Classified"
    })
}

fn is_map(db: &RootDatabase, def: Definition<'_>) -> bool {
    items(db, def).iter().any(|i| {
        i.krate == CrateKind::Lacuna
            && i.owner.as_deref() == Some("Classified")
            && MAP_METHODS.contains(&i.name.as_str())
    })
}

/// Whether `closure` is an argument of a `Classified::map` call.
fn is_map_argument(sema: &Semantics<'_, RootDatabase>, db: &RootDatabase, closure: &SyntaxNode) -> bool {
    let Some(call) = closure.parent().filter(|p| p.kind() == SyntaxKind::ARG_LIST).and_then(|l| l.parent()) else {
        return false;
    };
    if let Some(call) = ast::MethodCallExpr::cast(call.clone()) {
        return sema.resolve_method_call(&call).is_some_and(|f| is_map(db, Definition::Function(f)));
    }
    if let Some(call) = ast::CallExpr::cast(call) {
        if let Some(ast::Expr::PathExpr(p)) = call.expr() {
            return matches!(p.path().and_then(|p| sema.resolve_path(&p)),
                Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) if is_map(db, Definition::Function(f)));
        }
    }
    false
}

fn leak(range: TextRange, message: String, label: String) -> Violation {
    Violation {
        kind: ViolationKind::ClassifiedLeak,
        range: usize::from(range.start())..usize::from(range.end()),
        message,
        label,
        grant: None,
    }
}

fn check_pure(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    policy: &Policy,
    inside: TextRange,
    checked: TextRange,
    node: &SyntaxNode,
    out: &mut Vec<Violation>,
) {
    // What a pure closure may use of std: what safe mode allows with no grants at all.
    let pure = Policy::default().without(Grant::Stdout);
    let local = |range: TextRange, name: &str, l: ra_ap_hir::Local<'_>, out: &mut Vec<Violation>| {
        let source = l.primary_source(db).source;
        let defined = source.value.as_ref().either(|p| p.syntax().text_range(), |s| s.syntax().text_range());
        if source.file_id.is_macro() || !inside.contains_range(defined) {
            out.push(leak(
                range,
                format!(
                    "the closure given to `Classified::map` uses `{name}` from outside it, a way out for the content"
                ),
                "captured from outside the closure".into(),
            ));
        }
    };
    // A name in the closure, reported at `range` (the name, or the macro call it was written in).
    let name_ref_at = |name_ref: &ast::NameRef, range: TextRange, out: &mut Vec<Violation>| {
        let name = name_ref.text().to_string();
        match NameRefClass::classify(sema, name_ref) {
            Some(NameRefClass::Definition(Definition::Local(l), _)) => local(range, &name, l, out),
            Some(NameRefClass::Definition(def, _)) => judge(db, policy, &pure, def, range, &name, inside, out),
            _ => {}
        }
    };
    for element in node.descendants_with_tokens() {
        let range = element.text_range();
        if !checked.contains_range(range) {
            continue;
        }
        match element {
            NodeOrToken::Node(n) => {
                if let Some(name_ref) = ast::NameRef::cast(n.clone()) {
                    name_ref_at(&name_ref, range, out);
                } else if let Some(call) = ast::MacroCall::cast(n.clone()) {
                    hole(sema, policy, &call, out);
                } else if let Some(f) = operator(sema, &n) {
                    judge(db, policy, &pure, Definition::Function(f), range, "this operator", inside, out);
                }
            }
            NodeOrToken::Token(token) => {
                if token.parent().is_none_or(|p| p.kind() != SyntaxKind::TOKEN_TREE) {
                    continue;
                }
                if token.kind() == SyntaxKind::STRING {
                    // Implicit captures in a format string: `format!("{secret}")`.
                    let Some(string) = ast::String::cast(token.clone()) else { continue };
                    for (_, resolution) in sema.as_format_args_parts(&string).unwrap_or_default() {
                        if let Some(either::Either::Left(PathResolution::Local(l))) = resolution {
                            local(range, l.name(db).as_str(), l, out);
                        }
                    }
                } else if token.kind() == SyntaxKind::IDENT {
                    for descended in sema.descend_into_macros(token.clone()) {
                        if descended == token {
                            continue;
                        }
                        if let Some(name_ref) = descended.parent().and_then(ast::NameRef::cast) {
                            name_ref_at(&name_ref, range, out);
                        }
                    }
                }
            }
        }
    }
}

fn operator(sema: &Semantics<'_, RootDatabase>, node: &SyntaxNode) -> Option<ra_ap_hir::Function> {
    if let Some(e) = ast::BinExpr::cast(node.clone()) {
        sema.resolve_bin_expr(&e)
    } else if let Some(e) = ast::PrefixExpr::cast(node.clone()) {
        sema.resolve_prefix_expr(&e)
    } else if let Some(e) = ast::IndexExpr::cast(node.clone()) {
        sema.resolve_index_expr(&e)
    } else {
        None
    }
}

/// Whether `def` is an item declared inside the closure (whose body this pass checks too).
fn declared_inside(db: &RootDatabase, def: Definition<'_>, inside: TextRange) -> bool {
    use ra_ap_hir::HasSource;
    let source = match def {
        Definition::Function(f) => f.source(db).map(|s| (s.file_id.is_macro(), s.value.syntax().text_range())),
        Definition::Adt(a) => a.source(db).map(|s| (s.file_id.is_macro(), s.value.syntax().text_range())),
        Definition::Const(c) => c.source(db).map(|s| (s.file_id.is_macro(), s.value.syntax().text_range())),
        _ => None,
    };
    source.is_some_and(|(in_macro, range)| !in_macro && inside.contains_range(range))
}

#[allow(clippy::too_many_arguments)]
fn judge(
    db: &RootDatabase,
    policy: &Policy,
    pure: &Policy,
    def: Definition<'_>,
    range: TextRange,
    written: &str,
    inside: TextRange,
    out: &mut Vec<Violation>,
) {
    if declared_inside(db, def, inside) {
        return;
    }
    for item in items(db, def) {
        let why = match &item.krate {
            CrateKind::Host if matches!(item.kind, ItemKind::Function | ItemKind::Static | ItemKind::Macro) => {
                Some("calls into the host, whose functions may have effects")
            }
            CrateKind::Lacuna if item.name == "agent" && item.kind == ItemKind::Macro => None,
            CrateKind::Lacuna if item.owner.as_deref() != Some("Classified") && item.name != "Classified" => {
                Some("uses Lacuna's capabilities or runtime")
            }
            // What the snippet's policy denies anyway is reported as that; what it grants (printing, the clock)
            // a pure closure still may not use.
            _ if policy.judge(&item).is_ok() && pure.judge(&item).is_err() => {
                Some("has an effect (printing, the clock)")
            }
            _ => None,
        };
        if let Some(why) = why {
            out.push(leak(
                range,
                format!("`{written}` in a closure given to `Classified::map` {why}: a way out for the content"),
                why.into(),
            ));
            return;
        }
    }
}

/// A hole inside a map closure must name a model the policy marks local: its task may carry the content.
fn hole(sema: &Semantics<'_, RootDatabase>, policy: &Policy, call: &ast::MacroCall, out: &mut Vec<Violation>) {
    let is_agent = sema.resolve_macro_call(call).is_some_and(|m| {
        let db = sema.db;
        m.name(db).as_str() == "agent"
            && m.module(db).krate(db).display_name(db).is_some_and(|n| n.to_string() == "lacuna")
    });
    if !is_agent {
        return;
    }
    let tokens: Vec<_> = call
        .token_tree()
        .map(|tt| tt.syntax().children_with_tokens().filter(|t| !t.kind().is_trivia()).collect())
        .unwrap_or_default();
    // `agent!(model, task)`: `(`, the model's name, `,`, ...
    let model = match tokens.as_slice() {
        [_, NodeOrToken::Token(name), NodeOrToken::Token(comma), ..]
            if name.kind() == SyntaxKind::IDENT && comma.kind() == SyntaxKind::COMMA =>
        {
            Some(name.text().to_owned())
        }
        _ => None,
    };
    if model.as_deref().is_some_and(|m| policy.is_local_model(m)) {
        return;
    }
    let message = match &model {
        Some(m) => format!(
            "a hole inside `Classified::map` is routed to `{m}`, which `[policy] local-models` does not mark local"
        ),
        None => "a hole inside `Classified::map` must name a model marked local (`agent!(local, ..)`): its task could \
                 carry the content to a hosted model"
            .to_owned(),
    };
    out.push(leak(call.syntax().text_range(), message, "not a local model".into()));
}
