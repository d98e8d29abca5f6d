//! `Classified`: its content reaches no effect and no hosted model. The rule judges what code can run on the
//! content, not how a call is spelled:
//!
//! - **Entry points.** `Classified::map` and `map_ref` are only *called*, wherever the call is written (the
//!   snippet's text, a macro's arguments, what the snippet's own macros expand to), and their function argument
//!   is a closure written in place or a fn the snippet declares. A method name cannot be renamed, so only name
//!   references spelled `map`, `map_ref` or `new` are resolved to find them.
//! - **What the snippet wraps.** `Classified::new` in a snippet wraps plain data only (no `&mut`, no interior
//!   mutability, no function or trait object, no capability): a value the snippet also holds a handle to would
//!   reach the closure `zip` hands both contents to.
//! - **Pure code.** The closure, every fn of the snippet it names (transitively) and, once the snippet uses
//!   `map` at all, every method of the snippet's trait impls (std calls them unseen: `Display`, `Clone`, `Deref`,
//!   operators, `Iterator::next`, `Ord` in a sort) are *pure*: they capture nothing from outside, use no static
//!   or const with interior mutability (`thread_local!`, a `Mutex`), print nothing, start no thread, call no host
//!   function, use no capability or other `lacuna` item but `Classified`, and hold no hole but one for a model
//!   the policy marks local.
//! - **A hole inside a host's map closure**: the whole snippet is pure code, and the host's locals outside that
//!   closure are out of reach.

use std::collections::HashSet;

use lacuna_policy::{CrateKind, Grant, ItemKind, Policy, ViolationKind};
use ra_ap_hir::{HirFileId, PathResolution, Semantics};
use ra_ap_ide_db::defs::{Definition, NameRefClass};
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::{AstToken, HasArgList};
use ra_ap_syntax::{ast, AstNode, NodeOrToken, SyntaxKind, SyntaxNode, TextRange};

use super::resolve::{items, written_in_snippet};
use super::Violation;

/// The methods whose function argument runs on the content.
const MAP_METHODS: &[&str] = &["map", "map_ref"];

/// Macro expansions one pass follows before it stops (the allowlist pass reports the snippet as unverifiable).
const MAX_EXPANSIONS: usize = 256;

pub(crate) fn violations<'db>(
    sema: &Semantics<'db, RootDatabase>,
    db: &'db RootDatabase,
    policy: &Policy,
    snippet: TextRange,
    root: &SyntaxNode,
) -> Vec<Violation> {
    if policy.is_unconfined() {
        return Vec::new();
    }
    let mut pass = Pass {
        sema,
        db,
        policy,
        pure: Policy::default().without(Grant::Stdout),
        snippet,
        file: sema.hir_file_for(root),
        out: Vec::new(),
        roots: Vec::new(),
        impl_fns: Vec::new(),
        seen: HashSet::new(),
        expansions: 0,
    };
    pass.walk(root, Some(snippet), None, Mode::Scan);
    // A hole written inside a host's map closure: the whole snippet is part of that closure.
    for closure in root.ancestors().filter_map(ast::ClosureExpr::cast) {
        if is_map_argument(sema, db, closure.syntax()) {
            pass.roots.push(Root {
                node: root.clone(),
                at: None,
                kind: RootKind::Region(closure.syntax().text_range()),
            });
        }
    }
    if !pass.roots.is_empty() {
        let impl_fns = std::mem::take(&mut pass.impl_fns);
        pass.roots.extend(impl_fns);
    }
    while let Some(root) = pass.roots.pop() {
        pass.check(root);
    }
    pass.out
}

struct Pass<'a, 'db> {
    sema: &'a Semantics<'db, RootDatabase>,
    db: &'db RootDatabase,
    policy: &'a Policy,
    /// What pure code may use of std: what safe mode allows with no grants at all.
    pure: Policy,
    snippet: TextRange,
    /// The file the snippet is spliced into.
    file: HirFileId,
    out: Vec<Violation>,
    /// Pure code still to check.
    roots: Vec<Root>,
    /// The methods of the snippet's trait impls: pure code once the snippet maps at all.
    impl_fns: Vec<Root>,
    /// Roots already queued, by file and range.
    seen: HashSet<(HirFileId, TextRange)>,
    expansions: usize,
}

/// Code that runs on the content.
struct Root {
    node: SyntaxNode,
    /// Where to report what is found in it: `None` for code in the snippet's text (at the node), the macro call
    /// in the snippet for code in an expansion.
    at: Option<TextRange>,
    kind: RootKind,
}

enum RootKind {
    /// A closure given to `map`/`map_ref`.
    Closure,
    /// A fn of the snippet's: one that pure code names, or a trait impl's method.
    Fn,
    /// The snippet, filling a hole inside the host's map closure at this range.
    Region(TextRange),
}

#[derive(Clone, Copy)]
enum Mode {
    /// Finding the entry points and the snippet's trait impls.
    Scan,
    /// Judging pure code; inside a host's map closure at this range, locals from outside it are captures.
    Pure { region: Option<TextRange> },
}

impl<'db> Pass<'_, 'db> {
    /// Visits every name, operator and macro call in `node` (those within `filter`, if given), the expansions of
    /// the snippet's own macros and what identifiers in trusted macros' arguments mean in theirs.
    fn walk(&mut self, node: &SyntaxNode, filter: Option<TextRange>, at: Option<TextRange>, mode: Mode) {
        for element in node.descendants_with_tokens() {
            if filter.is_some_and(|r| !r.contains_range(element.text_range())) {
                continue;
            }
            match element {
                NodeOrToken::Node(n) => {
                    let here = at.unwrap_or(n.text_range());
                    if let Some(name_ref) = ast::NameRef::cast(n.clone()) {
                        self.name_ref(&name_ref, here, mode);
                    } else if let Some(call) = ast::MacroCall::cast(n.clone()) {
                        self.macro_call(&call, here, mode);
                    } else if let Some(imp) = ast::Impl::cast(n.clone()) {
                        if matches!(mode, Mode::Scan) && imp.trait_().is_some() {
                            self.impl_fns(&imp, at);
                        }
                    } else if let (Mode::Pure { .. }, Some(f)) = (mode, operator(self.sema, &n)) {
                        self.judge(Definition::Function(f), here, "this operator", mode);
                    }
                }
                NodeOrToken::Token(token) => {
                    if token.parent().is_none_or(|p| p.kind() != SyntaxKind::TOKEN_TREE) {
                        continue;
                    }
                    let here = at.unwrap_or(token.text_range());
                    if let (Mode::Pure { region: Some(inside) }, SyntaxKind::STRING) = (mode, token.kind()) {
                        // Implicit captures in a format string: `format!("{secret}")`.
                        let Some(string) = ast::String::cast(token.clone()) else { continue };
                        for (_, resolution) in self.sema.as_format_args_parts(&string).unwrap_or_default() {
                            if let Some(either::Either::Left(PathResolution::Local(l))) = resolution {
                                self.local(here, l.name(self.db).as_str(), l, inside);
                            }
                        }
                        continue;
                    }
                    let wanted = match mode {
                        Mode::Scan => {
                            token.kind() == SyntaxKind::IDENT && (is_entry_name(token.text()) || names_macro(&token))
                        }
                        Mode::Pure { .. } => token.kind() == SyntaxKind::IDENT || token.kind().is_punct(),
                    };
                    if !wanted {
                        continue;
                    }
                    for descended in self.sema.descend_into_macros(token.clone()) {
                        if descended == token {
                            continue;
                        }
                        let Some(parent) = descended.parent() else { continue };
                        if let Some(name_ref) = ast::NameRef::cast(parent.clone()) {
                            if let Some(call) = macro_called(&name_ref) {
                                self.macro_call(&call, here, mode);
                            }
                            self.name_ref(&name_ref, here, mode);
                        } else if let (Mode::Pure { .. }, Some(f)) = (mode, operator(self.sema, &parent)) {
                            self.judge(Definition::Function(f), here, "this operator", mode);
                        }
                    }
                }
            }
        }
    }

    fn name_ref(&mut self, name_ref: &ast::NameRef, at: TextRange, mode: Mode) {
        if matches!(mode, Mode::Scan) && !is_entry_name(name_ref.text()) {
            return;
        }
        let written = name_ref.text().to_string();
        let def = match NameRefClass::classify(self.sema, name_ref) {
            Some(NameRefClass::Definition(def, _)) => def,
            _ => return,
        };
        match mode {
            Mode::Scan => match def {
                Definition::Function(f) if is_map(self.db, def) => self.map_use(name_ref, f, at),
                Definition::Function(_) if is_classified_fn(self.db, def, "new") => self.new_use(name_ref, at),
                _ => {}
            },
            Mode::Pure { region } => match def {
                Definition::Local(l) => {
                    if let Some(inside) = region {
                        self.local(at, &written, l, inside);
                    }
                }
                def => self.judge(def, at, &format!("`{written}`"), mode),
            },
        }
    }

    fn macro_call(&mut self, call: &ast::MacroCall, at: TextRange, mode: Mode) {
        let Some(mac) = self.sema.resolve_macro_call(call) else { return };
        if matches!(mode, Mode::Pure { .. }) {
            self.hole(call, mac, at);
        }
        if !written_in_snippet(self.db, self.file, self.snippet, mac) || self.expansions >= MAX_EXPANSIONS {
            return;
        }
        self.expansions += 1;
        if let Some(expansion) = self.sema.expand_macro_call(call) {
            self.walk(&expansion.value, None, Some(at), mode);
        }
    }

    /// A use of `map`/`map_ref`: a call, and its function argument pure code.
    fn map_use(&mut self, name_ref: &ast::NameRef, map: ra_ap_hir::Function, at: TextRange) {
        let name = map.name(self.db).as_str().to_owned();
        let parent = name_ref.syntax().parent();
        let argument = if let Some(call) = parent.clone().and_then(ast::MethodCallExpr::cast) {
            Some(call.arg_list().and_then(|l| l.args().next()))
        } else {
            // `Classified::map(doc, f)`: the path is the callee of a call; the function is the second argument.
            parent
                .and_then(ast::PathSegment::cast)
                .map(|s| s.parent_path())
                .filter(|p| p.parent_path().is_none())
                .and_then(|p| p.syntax().parent())
                .and_then(ast::PathExpr::cast)
                .and_then(|p| {
                    let call = p.syntax().parent().and_then(ast::CallExpr::cast)?;
                    (call.expr()?.syntax() == p.syntax()).then(|| call.arg_list().and_then(|l| l.args().nth(1)))
                })
        };
        let Some(argument) = argument else {
            self.leak(
                at,
                format!(
                    "`Classified::{name}` is only called in place: as a value it could reach code safe mode does \
                     not see"
                ),
                "used as a value".into(),
            );
            return;
        };
        match argument {
            None => {}
            Some(ast::Expr::ClosureExpr(c)) => self.queue(c.syntax(), at, RootKind::Closure),
            Some(ast::Expr::PathExpr(p)) => {
                let resolved = p.path().and_then(|p| self.sema.resolve_path(&p));
                match resolved {
                    Some(PathResolution::Def(ra_ap_hir::ModuleDef::Function(f))) => {
                        let written = format!("`{}`", p.syntax().text());
                        self.judge(Definition::Function(f), at, &written, Mode::Pure { region: None });
                    }
                    _ => self.not_in_place(&name, at),
                }
            }
            Some(_) => self.not_in_place(&name, at),
        }
    }

    fn not_in_place(&mut self, name: &str, at: TextRange) {
        self.leak(
            at,
            format!(
                "`Classified::{name}` takes a closure written in place or a fn of the snippet's, so safe mode can \
                 check it is pure"
            ),
            "not a closure expression".into(),
        );
    }

    /// A use of `Classified::new`: what it wraps must be plain data.
    fn new_use(&mut self, name_ref: &ast::NameRef, at: TextRange) {
        let path_expr = name_ref.syntax().ancestors().take(4).find_map(ast::PathExpr::cast).map(ast::Expr::PathExpr);
        let content = path_expr
            .and_then(|e| self.sema.type_of_expr(&e))
            .and_then(|t| t.original.as_callable(self.db))
            .and_then(|c| c.params().into_iter().next())
            .map(|p| p.ty().clone());
        let why = match content {
            None => Some("a value safe mode cannot type".to_owned()),
            Some(ty) => plain(self.db, &ty, &mut HashSet::new(), 0).err(),
        };
        if let Some(why) = why {
            self.leak(
                at,
                format!(
                    "a snippet wraps only plain data in `Classified::new`; this wraps {why}, which the closure `zip` \
                     hands it to could reach from outside"
                ),
                format!("wraps {why}"),
            );
        }
    }

    /// The methods of a trait impl of the snippet's.
    fn impl_fns(&mut self, imp: &ast::Impl, at: Option<TextRange>) {
        for item in imp.assoc_item_list().into_iter().flat_map(|l| l.assoc_items()) {
            if let ast::AssocItem::Fn(f) = item {
                self.impl_fns.push(Root { node: f.syntax().clone(), at, kind: RootKind::Fn });
            }
        }
    }

    fn queue(&mut self, node: &SyntaxNode, at: TextRange, kind: RootKind) {
        let file = self.sema.hir_file_for(node);
        let at = if file == self.file && self.snippet.contains_range(node.text_range()) { None } else { Some(at) };
        self.roots.push(Root { node: node.clone(), at, kind });
    }

    fn check(&mut self, root: Root) {
        let file = self.sema.hir_file_for(&root.node);
        if !self.seen.insert((file, root.node.text_range())) {
            return;
        }
        match root.kind {
            RootKind::Closure => {
                let expr = ast::Expr::cast(root.node.clone());
                let closure = expr.and_then(|e| self.sema.type_of_expr(&e)).and_then(|t| t.original.as_closure());
                for capture in closure.map(|c| c.captured_items(self.db)).unwrap_or_default() {
                    let name = capture.local().name(self.db).as_str().to_owned();
                    self.leak(
                        root.at.unwrap_or(root.node.text_range()),
                        format!(
                            "the closure given to `Classified::map` uses `{name}` from outside it, a way out for \
                             the content"
                        ),
                        "captured from outside the closure".into(),
                    );
                }
                self.walk(&root.node, None, root.at, Mode::Pure { region: None });
            }
            RootKind::Fn => self.walk(&root.node, None, root.at, Mode::Pure { region: None }),
            RootKind::Region(inside) => {
                self.walk(&root.node, Some(self.snippet), None, Mode::Pure { region: Some(inside) })
            }
        }
    }

    fn local(&mut self, at: TextRange, name: &str, l: ra_ap_hir::Local<'_>, inside: TextRange) {
        let source = l.primary_source(self.db).source;
        let defined = source.value.as_ref().either(|p| p.syntax().text_range(), |s| s.syntax().text_range());
        if source.file_id.is_macro() || !inside.contains_range(defined) {
            self.leak(
                at,
                format!(
                    "the closure given to `Classified::map` uses `{name}` from outside it, a way out for the content"
                ),
                "captured from outside the closure".into(),
            );
        }
    }

    /// Whether `f` is the snippet's own (written in it, or made by one of its macros): pure code may call it,
    /// and then it is pure code too.
    fn own_fn(&self, f: ra_ap_hir::Function) -> Option<(SyntaxNode, Option<TextRange>)> {
        let source = self.sema.source(f)?;
        let node = source.value.syntax().clone();
        if source.file_id == self.file {
            return self.snippet.contains_range(node.text_range()).then_some((node, None));
        }
        let original = self.sema.original_range_opt(&node)?;
        (HirFileId::from(original.file_id) == self.file && self.snippet.contains_range(original.range))
            .then_some((node, Some(original.range)))
    }

    fn judge(&mut self, def: Definition<'_>, at: TextRange, written: &str, mode: Mode) {
        match def {
            Definition::Function(f) => {
                if let Some((node, own_at)) = self.own_fn(f) {
                    self.roots.push(Root { node, at: own_at, kind: RootKind::Fn });
                    return;
                }
            }
            Definition::Static(s) => {
                if let Err(why) = plain(self.db, &s.ty(self.db), &mut HashSet::new(), 0) {
                    return self.stash(at, written, &why);
                }
            }
            Definition::Const(c) => {
                if let Err(why) = plain(self.db, &c.ty(self.db), &mut HashSet::new(), 0) {
                    return self.stash(at, written, &why);
                }
            }
            Definition::Macro(m) if written_in_snippet(self.db, self.file, self.snippet, m) => return,
            Definition::Local(_) => return,
            _ => {}
        }
        let _ = mode;
        for item in items(self.db, def) {
            let why = match &item.krate {
                CrateKind::Host if matches!(item.kind, ItemKind::Function | ItemKind::Macro) => {
                    Some("calls into the host, whose functions may have effects")
                }
                CrateKind::Lacuna if item.name == "agent" && item.kind == ItemKind::Macro => None,
                CrateKind::Lacuna if item.owner.as_deref() != Some("Classified") && item.name != "Classified" => {
                    Some("uses Lacuna's capabilities or runtime")
                }
                CrateKind::Std | CrateKind::Core | CrateKind::Alloc
                    if item.modules.iter().any(|m| m == "thread")
                        && (item.name == "scope" || item.name.starts_with("spawn")) =>
                {
                    Some("starts a thread, whose panic message would carry the content past the withholding")
                }
                // What the snippet's policy denies anyway is reported as that; what it grants (printing, the
                // clock) pure code still may not use.
                _ if self.policy.judge(&item).is_ok() && self.pure.judge(&item).is_err() => {
                    Some("has an effect (printing, the clock)")
                }
                _ => None,
            };
            if let Some(why) = why {
                self.leak(
                    at,
                    format!("{written} in code that runs on classified content {why}: a way out for the content"),
                    why.into(),
                );
                return;
            }
        }
    }

    fn stash(&mut self, at: TextRange, written: &str, why: &str) {
        self.leak(
            at,
            format!(
                "{written} in code that runs on classified content holds {why}: a place to keep the content for \
                 code outside to read"
            ),
            format!("holds {why}"),
        );
    }

    /// A hole inside pure code must name a model the policy marks local: its task may carry the content.
    fn hole(&mut self, call: &ast::MacroCall, mac: ra_ap_hir::Macro, at: TextRange) {
        let db = self.db;
        let is_agent = mac.name(db).as_str() == "agent"
            && mac.module(db).krate(db).display_name(db).is_some_and(|n| n.to_string() == "lacuna");
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
        if model.as_deref().is_some_and(|m| self.policy.is_local_model(m)) {
            return;
        }
        let message = match &model {
            Some(m) => format!(
                "a hole inside `Classified::map` is routed to `{m}`, which `[policy] local-models` does not mark local"
            ),
            None => "a hole inside `Classified::map` must name a model marked local (`agent!(local, ..)`): its task \
                     could carry the content to a hosted model"
                .to_owned(),
        };
        self.leak(at, message, "not a local model".into());
    }

    fn leak(&mut self, range: TextRange, message: String, label: String) {
        self.out.push(Violation {
            kind: ViolationKind::ClassifiedLeak,
            range: usize::from(range.start())..usize::from(range.end()),
            message,
            label,
            grant: None,
            allow: None,
        });
    }
}

/// Whether `token` is followed by `!`: it names a macro called in another macro's arguments.
pub(crate) fn names_macro(token: &ra_ap_syntax::SyntaxToken) -> bool {
    std::iter::successors(token.next_token(), |t| t.next_token())
        .find(|t| !t.kind().is_trivia())
        .is_some_and(|t| t.kind() == SyntaxKind::BANG)
}

/// The macro call whose name `name_ref` is (in an expansion, where a macro's arguments are parsed).
pub(crate) fn macro_called(name_ref: &ast::NameRef) -> Option<ast::MacroCall> {
    let path = name_ref.syntax().parent().and_then(ast::PathSegment::cast)?.parent_path();
    let call = path.syntax().parent().and_then(ast::MacroCall::cast)?;
    (call.path()?.syntax() == path.syntax()).then_some(call)
}

fn is_entry_name(name: &str) -> bool {
    MAP_METHODS.contains(&name) || name == "new"
}

/// Whether `ty` is plain data: values, strings, std's containers of them and structs and enums of them — nothing
/// that shares a place (`&mut`, `Cell`, `RefCell`, `Mutex`, atomics, `OnceLock`, thread-locals), calls code
/// (fn pointers, closures, trait objects) or holds authority (capabilities, channels, handles). Otherwise, what
/// it holds.
fn plain(
    db: &RootDatabase,
    ty: &ra_ap_hir::Type<'_>,
    seen: &mut HashSet<ra_ap_hir::Adt>,
    depth: usize,
) -> Result<(), String> {
    if depth > 12 {
        return Err("a type nested too deep to judge".into());
    }
    if ty.is_unknown() {
        return Err("a value safe mode cannot type".into());
    }
    if ty.is_scalar() || ty.is_str() || ty.is_unit() || ty.is_never() {
        return Ok(());
    }
    if let Some((inner, mutability)) = ty.as_reference() {
        if mutability == ra_ap_hir::Mutability::Mut {
            return Err("a `&mut` reference".into());
        }
        return plain(db, &inner, seen, depth + 1);
    }
    if ty.is_raw_ptr() {
        return Err("a raw pointer".into());
    }
    if ty.is_fn() || ty.is_closure() {
        return Err("a function".into());
    }
    if ty.as_dyn_trait().is_some() || ty.as_impl_traits(db).is_some() {
        return Err("a trait object".into());
    }
    if let Some(element) = ty.as_slice().or_else(|| ty.as_array(db).map(|(e, _)| e)) {
        return plain(db, &element, seen, depth + 1);
    }
    if ty.is_tuple() {
        return ty.tuple_fields(db).iter().try_for_each(|f| plain(db, f, seen, depth + 1));
    }
    if ty.as_type_param(db).is_some() {
        return Ok(());
    }
    let Some(adt) = ty.as_adt() else {
        return Err("a value of a kind safe mode does not take for plain data".into());
    };
    let name = adt.name(db).as_str().to_owned();
    let item = items(db, Definition::Adt(adt)).into_iter().next();
    let arguments: Vec<_> = ty.type_arguments().collect();
    match item.map(|i| i.krate) {
        Some(CrateKind::Std | CrateKind::Core | CrateKind::Alloc) => {
            if !PLAIN_STD.contains(&name.as_str()) {
                return Err(format!("a `{name}`"));
            }
        }
        Some(CrateKind::Lacuna) if name == "Classified" => {}
        Some(CrateKind::Lacuna) => return Err(format!("a `{name}` (a capability or part of the runtime)")),
        _ => {
            if seen.insert(adt) {
                let fields: Vec<_> = match adt {
                    ra_ap_hir::Adt::Enum(e) => {
                        e.variants(db).into_iter().flat_map(|v| v.fields(db)).map(|f| f.ty(db)).collect()
                    }
                    _ => ty.fields(db).into_iter().map(|(_, t)| t).collect(),
                };
                for field in fields {
                    plain(db, &field, seen, depth + 1).map_err(|why| format!("{why} (in `{name}`)"))?;
                }
            }
        }
    }
    arguments.iter().try_for_each(|a| plain(db, a, seen, depth + 1))
}

/// std's types that hold plain data when their type arguments do.
const PLAIN_STD: &[&str] = &[
    "String",
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "Option",
    "Result",
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "BTreeMap",
    "BTreeSet",
    "HashMap",
    "HashSet",
    "RandomState",
    "PhantomData",
    "Duration",
    "Ordering",
    "Range",
    "RangeInclusive",
    "Wrapping",
    "Saturating",
    "Reverse",
    "NonZero",
    "Path",
    "PathBuf",
    "OsString",
    "OsStr",
    "Global",
];

fn is_classified_fn(db: &RootDatabase, def: Definition<'_>, name: &str) -> bool {
    items(db, def)
        .iter()
        .any(|i| i.krate == CrateKind::Lacuna && i.owner.as_deref() == Some("Classified") && i.name == name)
}

fn is_map(db: &RootDatabase, def: Definition<'_>) -> bool {
    MAP_METHODS.iter().any(|m| is_classified_fn(db, def, m))
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
