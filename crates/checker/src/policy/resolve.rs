//! The allowlist over resolved items: every name, method call, operator and macro call in the snippet (and in
//! what its own macros expand to) is resolved by rust-analyzer and judged by `lacuna_policy` by where the item is
//! *defined*, so aliases, glob imports, re-exports and fn items used as values change nothing.

use lacuna_policy::{CrateKind, Item, ItemKind, Policy, ViolationKind};
use ra_ap_hir::{AsAssocItem, AssocItemContainer, HasSource, Module, Semantics};
use ra_ap_ide_db::defs::{Definition, NameRefClass};
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, TextRange};

use super::Violation;

/// Macro expansions one snippet may need before safe mode gives up (and rejects).
const MAX_EXPANSIONS: usize = 256;

pub(crate) struct Walker<'a, 'db> {
    pub sema: &'a Semantics<'db, RootDatabase>,
    pub db: &'db RootDatabase,
    pub policy: &'a Policy,
    /// The snippet's text in the host file.
    pub snippet: TextRange,
    /// The root of the file the snippet is in.
    file: SyntaxNode,
    pub out: Vec<Violation>,
    /// Where the loops std runs over the snippet's iterators get their counting wrappers (`crate::iteration`),
    /// in the file's offsets: found by the same walk that judges, so every call it lets through has its point.
    pub points: Vec<lacuna_ir::FuelPoint>,
    expansions: usize,
    /// Paths already reported (`std::fs` in `std::fs::read`): a longer path through them is not reported again.
    denied_paths: Vec<TextRange>,
}

impl<'a, 'db> Walker<'a, 'db> {
    pub fn new(
        sema: &'a Semantics<'db, RootDatabase>,
        db: &'db RootDatabase,
        policy: &'a Policy,
        snippet: TextRange,
        file: SyntaxNode,
    ) -> Self {
        Walker {
            sema,
            db,
            policy,
            snippet,
            file,
            out: Vec::new(),
            points: Vec::new(),
            expansions: 0,
            denied_paths: Vec::new(),
        }
    }

    /// Judges everything `root` uses. `origin` is `None` for the snippet itself (positions are its own, and only
    /// what lies in the snippet counts) and the outermost macro call for an expansion (reported there).
    pub fn walk(&mut self, root: &SyntaxNode, origin: Option<TextRange>) {
        let range = if origin.is_none() { Some(self.snippet) } else { None };
        for element in root.descendants_with_tokens() {
            if range.is_some_and(|r| !r.contains_range(element.text_range())) {
                continue;
            }
            match element {
                ra_ap_syntax::NodeOrToken::Node(node) => self.node(&node, origin),
                ra_ap_syntax::NodeOrToken::Token(token) => {
                    // An identifier in a macro's arguments: judge what it means in the expansion.
                    if !matches!(token.kind(), SyntaxKind::IDENT | SyntaxKind::SELF_KW)
                        || token.parent().is_none_or(|p| p.kind() != SyntaxKind::TOKEN_TREE)
                    {
                        continue;
                    }
                    let at = origin.unwrap_or(token.text_range());
                    for descended in self.sema.descend_into_macros(token.clone()) {
                        if descended == token {
                            continue;
                        }
                        if let Some(name_ref) = descended.parent().and_then(ast::NameRef::cast) {
                            // A macro called in a trusted macro's arguments: the snippet's own is expanded.
                            if let Some(call) = super::classified::macro_called(&name_ref) {
                                self.macro_call(&call, at);
                            }
                            self.name_ref(&name_ref, at);
                        }
                    }
                }
            }
        }
    }

    fn node(&mut self, node: &SyntaxNode, origin: Option<TextRange>) {
        let at = origin.unwrap_or(node.text_range());
        if let Some((message, label)) =
            ast::Expr::cast(node.clone()).and_then(|e| crate::cycles::shared(self.site(), &e))
        {
            self.push(ViolationKind::HostTakeover, at, message, label);
        }
        if let Some(name_ref) = ast::NameRef::cast(node.clone()) {
            self.name_ref(&name_ref, at);
        } else if let Some(for_expr) = ast::ForExpr::cast(node.clone()) {
            if let Some(m) = crate::waiting::for_loop(self.site(), &for_expr) {
                self.metered(m, at);
            }
        } else if let Some(call) = ast::MacroCall::cast(node.clone()) {
            self.macro_call(&call, at);
        } else {
            let operator = if let Some(e) = ast::BinExpr::cast(node.clone()) {
                self.sema.resolve_bin_expr(&e)
            } else if let Some(e) = ast::PrefixExpr::cast(node.clone()) {
                self.sema.resolve_prefix_expr(&e)
            } else if let Some(e) = ast::IndexExpr::cast(node.clone()) {
                self.sema.resolve_index_expr(&e)
            } else if let Some(e) = ast::TryExpr::cast(node.clone()) {
                self.sema.resolve_try_expr(&e)
            } else if let Some(e) = ast::AwaitExpr::cast(node.clone()) {
                self.sema.resolve_await_to_poll(&e)
            } else {
                None
            };
            if let Some(f) = operator {
                self.definition(Definition::Function(f), at, "this operator");
            }
        }
    }

    fn name_ref(&mut self, name_ref: &ast::NameRef, at: TextRange) {
        let written = name_ref.text().to_string();
        let path = name_ref.syntax().parent().and_then(ast::PathSegment::cast).map(|s| s.parent_path());
        if let Some(path) = &path {
            let through_denied = std::iter::successors(path.qualifier(), |q| q.qualifier())
                .any(|q| self.denied_paths.contains(&q.syntax().text_range()));
            if through_denied {
                return;
            }
        }
        // A loop inside std where no count can go (`crate::iteration`); one that can go is the rustc path's.
        // A wait inside std that no budget would end (`crate::waiting`): renamed to one that looks, or denied.
        let class = NameRefClass::classify(self.sema, name_ref);
        let def = match &class {
            Some(NameRefClass::Definition(def @ (Definition::Function(_) | Definition::Adt(_)), _)) => Some(*def),
            _ => None,
        };
        let site = self.site();
        let metering = crate::iteration::metering(site, name_ref, def)
            .into_iter()
            .chain(crate::waiting::metering(site, name_ref, def))
            .chain(crate::iteration::arguments(site, name_ref, def))
            .chain(match &class {
                Some(NameRefClass::Definition(value, _)) => crate::waiting::host_value(site, name_ref, *value),
                _ => None,
            })
            .collect::<Vec<_>>();
        for m in metering {
            self.metered(m, at);
        }
        if let Some(NameRefClass::Definition(value, _)) = &class {
            if let Some((message, label)) = crate::cycles::thread_local(self.site(), name_ref, *value) {
                self.push(ViolationKind::HostTakeover, at, message, label);
            }
        }
        match class {
            // A module as a path's qualifier (`process` in `std::process::exit`) is judged through the item the
            // path ends at, which says more; a module the path ends at (`use std::fs as f;`) is judged itself.
            Some(NameRefClass::Definition(Definition::Module(_), _))
                if path.as_ref().is_some_and(|p| p.parent_path().is_some()) => {}
            Some(NameRefClass::Definition(def, _)) => {
                let before = self.out.len();
                self.definition(def, at, &format!("`{written}`"));
                if self.out.len() > before {
                    self.denied_paths.extend(path.map(|p| p.syntax().text_range()));
                }
            }
            Some(NameRefClass::FieldShorthand { .. }) => {}
            Some(NameRefClass::ExternCrateShorthand { krate, .. }) => {
                self.definition(Definition::Crate(krate), at, &format!("`{written}`"))
            }
            None => self.unresolved(at, &format!("`{written}`")),
        }
    }

    /// Where the names of the snippet this walk judges are.
    fn site(&self) -> crate::iteration::Site<'_, 'db> {
        crate::iteration::Site { sema: self.sema, db: self.db, file: &self.file, snippet: self.snippet }
    }

    fn metered(&mut self, metering: crate::iteration::Metering, at: TextRange) {
        match metering {
            crate::iteration::Metering::Denied { kind, message, label } => self.push(kind, at, message, label),
            crate::iteration::Metering::Point(point) if !self.points.contains(&point) => self.points.push(point),
            crate::iteration::Metering::Point(_) => {}
        }
    }

    fn macro_call(&mut self, call: &ast::MacroCall, at: TextRange) {
        let written = call.path().map(|p| p.syntax().text().to_string()).unwrap_or_default();
        let Some(mac) = self.sema.resolve_macro_call(call) else {
            self.unresolved(at, &format!("the macro `{written}!`"));
            return;
        };
        // Judged through the path's name ref too; here only: is it the snippet's own (then its expansion is
        // walked like the snippet) or a trusted one (std's allowlisted macros, the host's)?
        if !written_in_snippet(self.db, self.sema.hir_file_for(&self.file), self.snippet, mac) {
            return;
        }
        self.expansions += 1;
        if self.expansions > MAX_EXPANSIONS {
            self.push(
                ViolationKind::Unverifiable,
                at,
                format!("the snippet's macros expand more than {MAX_EXPANSIONS} times"),
                "expands too far".into(),
            );
            return;
        }
        let Some(expansion) = self.sema.expand_macro_call(call) else {
            self.push(
                ViolationKind::Unverifiable,
                at,
                format!("`{written}!` could not be expanded, so safe mode cannot judge it"),
                "not expanded".into(),
            );
            return;
        };
        for v in super::syntax::violations(&expansion.value, None, Some(at)) {
            self.out.push(v);
        }
        self.walk(&expansion.value, Some(at));
    }

    fn definition(&mut self, def: Definition<'_>, at: TextRange, written: &str) {
        // A value that holds one of the host's own handles to the world (a `File`, a `TcpStream`, a `Child`):
        // its methods, the traits it implements and generic code would all reach it, so it is not used at all.
        let held = match def {
            Definition::Local(local) => Some(local.ty(self.db)),
            Definition::Field(field) => Some(field.ty(self.db)),
            _ => None,
        };
        if let Some((item, what)) = held.and_then(|ty| self.handle_in(&ty, 0)) {
            let reaches = format!("reaches {what}");
            self.out.push(Violation {
                kind: ViolationKind::AmbientAuthority,
                range: span(at),
                message: format!(
                    "{written} holds a `{}`, a handle to {what} the host opened; safe mode denies using it (its \
                     methods, traits and generic code would all reach it)",
                    item.display()
                ),
                label: reaches,
                grant: None,
                allow: None,
            });
        }
        for item in items(self.db, def) {
            if let Err(denial) = self.policy.judge(&item) {
                let path = item.display();
                let reaches = match denial.kind {
                    ViolationKind::HostTakeover => format!("takes over {}", denial.what),
                    _ => format!("reaches {}", denial.what),
                };
                let message = if written.trim_matches('`') == path {
                    format!("{written} {reaches}, which safe mode denies")
                } else {
                    format!("{written} is `{path}`, which {reaches}; safe mode denies it")
                };
                self.out.push(Violation {
                    kind: denial.kind,
                    range: span(at),
                    message,
                    label: reaches,
                    grant: denial.grant,
                    allow: denial.allow,
                });
            }
        }
    }

    /// The first type in `ty` (through references and type arguments) that safe mode denies outright — not one a
    /// grant could allow (a host's `Duration` is a value, not the clock) — and what it reaches.
    fn handle_in(&self, ty: &ra_ap_hir::Type<'_>, depth: usize) -> Option<(Item, &'static str)> {
        if depth > 6 {
            return None;
        }
        let ty = ty.strip_references();
        if let Some(adt) = ty.as_adt() {
            for item in items(self.db, Definition::Adt(adt)) {
                if let Err(denial) = self.policy.judge(&item) {
                    if denial.grant.is_none() && denial.kind == ViolationKind::AmbientAuthority {
                        return Some((item, denial.what));
                    }
                }
            }
        }
        let arguments: Vec<ra_ap_hir::Type<'_>> = ty.type_arguments().collect();
        arguments.iter().find_map(|arg| self.handle_in(arg, depth + 1))
    }

    fn unresolved(&mut self, at: TextRange, written: &str) {
        self.push(
            ViolationKind::Unresolved,
            at,
            format!("safe mode could not resolve {written}, so it cannot tell what it reaches"),
            "not resolved".into(),
        );
    }

    fn push(&mut self, kind: ViolationKind, at: TextRange, message: String, label: String) {
        self.out.push(Violation { kind, range: span(at), message, label, grant: None, allow: None });
    }
}

/// Whether `mac` is defined by the snippet at `snippet` of `file` (in its text, or by one of its macros'
/// expansions).
pub(crate) fn written_in_snippet(
    db: &RootDatabase,
    file: ra_ap_hir::HirFileId,
    snippet: TextRange,
    mac: ra_ap_hir::Macro,
) -> bool {
    let Some(source) = mac.source(db) else { return true };
    if source.file_id.is_macro() {
        return true;
    }
    let krate = mac.module(db).krate(db);
    // The snippet is in the host crate's root file, or a lifted snippet in its module's (`crate::lifted`); a module
    // of the host read as a file of its own (`crate::apart`) has offsets of its own.
    crate_kind(db, krate) == CrateKind::Host
        && source.file_id == file
        && snippet.contains_range(source.value.either(|m| m.syntax().text_range(), |f| f.syntax().text_range()))
}

fn span(r: TextRange) -> std::ops::Range<usize> {
    usize::from(r.start())..usize::from(r.end())
}

pub(crate) fn crate_kind(db: &RootDatabase, krate: ra_ap_hir::Crate) -> CrateKind {
    // A cargo project's host package's library (beside the binary) is host code; other crates are dependencies.
    if krate.origin(db).is_local() {
        return CrateKind::Host;
    }
    match krate.display_name(db) {
        Some(name) => CrateKind::from_name(&name.to_string()),
        None => CrateKind::Other(String::new()),
    }
}

/// The crate of `module` and the names of the modules from the crate root down to it.
fn module_path(db: &RootDatabase, module: Module) -> (CrateKind, Vec<String>) {
    let krate = crate_kind(db, module.krate(db));
    let names =
        module.path_to_root(db).into_iter().rev().filter_map(|m| m.name(db)).map(|n| n.as_str().to_owned()).collect();
    (krate, names)
}

/// What safe mode judges for a definition: nothing for locals, fields and the like; the item itself otherwise;
/// for a method of a trait impl, both the trait's method and the impl's (a `Write` method is fine, the one
/// `std::fs` implements for `File` is the filesystem).
pub(crate) fn items(db: &RootDatabase, def: Definition<'_>) -> Vec<Item> {
    let item = |module: Module, owner: Option<String>, name: String, kind: ItemKind| {
        let (krate, modules) = module_path(db, module);
        Item { krate, modules, owner, name, kind }
    };
    let assoc = |assoc: Option<ra_ap_hir::AssocItem>, module: Module, name: String, kind: ItemKind| -> Vec<Item> {
        match assoc.map(|a| a.container(db)) {
            None => vec![item(module, None, name, kind)],
            Some(AssocItemContainer::Trait(t)) => {
                vec![item(t.module(db), Some(t.name(db).as_str().to_owned()), name, kind)]
            }
            Some(AssocItemContainer::Impl(i)) => {
                let self_ty = i.self_ty(db).strip_references();
                let owner = self_ty
                    .as_adt()
                    .map(|a| a.name(db).as_str().to_owned())
                    .or_else(|| self_ty.as_builtin().map(|b| b.name().as_str().to_owned()));
                let mut out = vec![item(i.module(db), owner, name.clone(), kind)];
                if let Some(t) = i.trait_(db) {
                    out.push(item(t.module(db), Some(t.name(db).as_str().to_owned()), name, kind));
                }
                out
            }
        }
    };
    match def {
        Definition::Module(m) => {
            let (krate, modules) = module_path(db, m);
            let name = modules.last().cloned().unwrap_or_default();
            vec![Item { krate, modules, owner: None, name, kind: ItemKind::Module }]
        }
        Definition::Crate(c) => {
            vec![Item {
                krate: crate_kind(db, c),
                modules: Vec::new(),
                owner: None,
                name: String::new(),
                kind: ItemKind::Module,
            }]
        }
        Definition::ExternCrateDecl(d) => match d.resolved_crate(db) {
            Some(c) => items(db, Definition::Crate(c)),
            None => Vec::new(),
        },
        Definition::Function(f) => {
            assoc(f.as_assoc_item(db), f.module(db), f.name(db).as_str().to_owned(), ItemKind::Function)
        }
        Definition::Const(c) => match c.name(db) {
            Some(name) => assoc(c.as_assoc_item(db), c.module(db), name.as_str().to_owned(), ItemKind::Const),
            None => Vec::new(),
        },
        Definition::TypeAlias(t) => {
            assoc(t.as_assoc_item(db), t.module(db), t.name(db).as_str().to_owned(), ItemKind::Type)
        }
        Definition::Adt(a) => vec![item(a.module(db), None, a.name(db).as_str().to_owned(), ItemKind::Type)],
        Definition::Trait(t) => vec![item(t.module(db), None, t.name(db).as_str().to_owned(), ItemKind::Trait)],
        Definition::Macro(m) => vec![item(m.module(db), None, m.name(db).as_str().to_owned(), ItemKind::Macro)],
        Definition::Static(s) => vec![item(s.module(db), None, s.name(db).as_str().to_owned(), ItemKind::Static)],
        Definition::EnumVariant(v) => {
            let parent = v.parent_enum(db);
            vec![item(
                parent.module(db),
                Some(parent.name(db).as_str().to_owned()),
                v.name(db).as_str().to_owned(),
                ItemKind::Variant,
            )]
        }
        // Values and names that carry no authority of their own: what they hold was judged where it was made.
        Definition::Field(_)
        | Definition::TupleField(_)
        | Definition::SelfType(_)
        | Definition::GenericParam(_)
        | Definition::Local(_)
        | Definition::Label(_)
        | Definition::DeriveHelper(_)
        | Definition::BuiltinType(_)
        | Definition::BuiltinLifetime(_)
        | Definition::BuiltinAttr(_)
        | Definition::ToolModule(_)
        | Definition::InlineAsmRegOrRegClass(_)
        | Definition::InlineAsmOperand(_) => Vec::new(),
    }
}
