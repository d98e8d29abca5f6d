//! The line between a package's binary and its library, where the two are checked as one crate
//! (`lacuna_project::flatten_package`: the binary is the library's module `__lacuna_bin`). Cargo compiles them as
//! two crates, so code in the binary reaches only what the library exports; in the one crate it could also reach
//! the library's `pub(crate)` and root-private items and implement on its types what coherence forbids another
//! crate. rustc judges the one crate, so for a hole in the binary these are checked here, on rust-analyzer's
//! resolution of everything the snippet names (in its macros' arguments too), with rustc's codes for what the two
//! crates would make rustc say: E0603 (private item), E0616 (private field), E0624 (private method), E0116
//! (inherent impl of a foreign type), E0117 (foreign trait for a foreign type), E0433 (a path from `crate`, or a
//! `super` out of the binary, in the binary; the library naming itself by the package's name, or the binary).
//!
//! Conservative where it cannot tell: a foreign trait implemented for a library type is refused even where the
//! orphan rule would allow it through a local type parameter.

use ra_ap_hir::{AsAssocItem, Module, Semantics, Visibility};
use ra_ap_ide_db::defs::{Definition, NameRefClass};
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, TextRange};

/// The module the binary is in the one crate.
pub(crate) const BINARY_MODULE: &str = lacuna_project::flatten::BINARY_MODULE;

/// What the binary cannot do to its library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Crossing {
    pub range: TextRange,
    /// rustc's code for it.
    pub code: &'static str,
    pub message: String,
    pub label: String,
    /// Why: which of the two crates cargo makes the snippet is in.
    pub note: &'static str,
}

const BINARY_NOTE: &str = "note: the package's binary is a crate of its own: it reaches what its library exports \
                           (`pub`), as `cargo build` compiles it";
const LIBRARY_NOTE: &str = "note: the package's library is a crate of its own: its binary is not in it, and it \
                            names itself `crate`, as `cargo build` compiles it";

/// Everything the snippet at `range` under `root` does that the binary, as its own crate, could not: empty when
/// the snippet is not in a package's binary module.
pub(crate) fn crossings(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    range: TextRange,
    root: &SyntaxNode,
) -> Vec<Crossing> {
    let Some(here) = sema.scope(root).map(|s| s.module()) else { return Vec::new() };
    let Some(binary) = binary_module(db, here) else { return Vec::new() };
    let in_binary = |module: Module| module.path_to_root(db).contains(&binary);
    if !in_binary(here) {
        return library_crossings(sema, db, range, root, binary);
    }
    let mut out = Vec::new();
    let library_item =
        |def: &Definition<'_>| def.module(db).is_some_and(|m| m.krate(db) == binary.krate(db) && !in_binary(m));
    let judge = |def: Definition<'_>, at: TextRange, out: &mut Vec<Crossing>| {
        // The library's name (`extern crate self as <library>`) is how the binary names it: no crossing.
        if matches!(def, Definition::ExternCrateDecl(_) | Definition::Crate(_)) || !library_item(&def) {
            return;
        }
        if let Definition::Module(m) = def {
            if m.is_crate_root(db) {
                return;
            }
        }
        if matches!(def.visibility(db), None | Some(Visibility::Public)) {
            return;
        }
        let name = def.name(db).map(|n| n.as_str().to_owned()).unwrap_or_default();
        let (code, message) = match def {
            Definition::Field(field) => {
                let owner = match field.parent_def(db) {
                    ra_ap_hir::Variant::Struct(s) => format!("struct `{}`", s.name(db).as_str()),
                    ra_ap_hir::Variant::Union(u) => format!("union `{}`", u.name(db).as_str()),
                    ra_ap_hir::Variant::EnumVariant(v) => format!("variant `{}`", v.name(db).as_str()),
                };
                ("E0616", format!("field `{name}` of {owner} is private"))
            }
            Definition::Function(f) if f.as_assoc_item(db).is_some() && f.self_param(db).is_some() => {
                ("E0624", format!("method `{name}` is private"))
            }
            _ => ("E0603", format!("{} `{name}` is private", what(&def))),
        };
        out.push(Crossing {
            range: at,
            code,
            message,
            label: "private to the package's library".into(),
            note: BINARY_NOTE,
        });
    };

    names(sema, range, root, &mut |def, at, _| judge(def, at, &mut out));
    // Paths as written, and those the snippet writes in macros' arguments (reported where they are written).
    let mut paths: Vec<(ast::Path, TextRange)> = root
        .descendants()
        .filter_map(ast::Path::cast)
        .filter(|p| range.contains_range(p.syntax().text_range()))
        .map(|p| {
            let at = p.syntax().text_range();
            (p, at)
        })
        .collect();
    for token in root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        let in_tree = token.parent().is_some_and(|p| p.kind() == SyntaxKind::TOKEN_TREE);
        if !in_tree || !range.contains_range(token.text_range()) {
            continue;
        }
        if !matches!(token.kind(), SyntaxKind::IDENT | SyntaxKind::CRATE_KW | SyntaxKind::SUPER_KW) {
            continue;
        }
        // `crate::` (`$crate::`) in any token tree, a `macro_rules!` of the snippet's included: refused as written.
        let followed_by_path = token.next_token().is_some_and(|t| t.kind() == SyntaxKind::COLON2 || t.text() == ":");
        if token.kind() == SyntaxKind::CRATE_KW && followed_by_path {
            out.push(Crossing {
                range: token.text_range(),
                code: "E0433",
                message: "failed to resolve: `crate` in a hole of the package's binary: Lacuna checks the binary as \
                          a module of its library, where it would name the library"
                    .into(),
                label: "write the path from this module (`self::`) or from the items in scope".into(),
                note: BINARY_NOTE,
            });
            continue;
        }
        for descended in sema.descend_into_macros(token.clone()) {
            let path = descended.parent_ancestors().find_map(ast::PathSegment::cast).map(|s| s.parent_path());
            if let Some(path) = path.filter(|_| descended != token) {
                paths.push((path, token.text_range()));
            }
        }
    }
    let outside = binary.krate(db).dependencies(db).first().map(|d| d.krate.root_module(db));
    for (path, at) in paths {
        let Some(segment) = path.segment() else { continue };
        match segment.kind() {
            // `crate` is the library's root in the one crate, the binary's in cargo's: a path from it means
            // something else here, or nothing. So does a `super` that climbs out of the binary.
            Some(ast::PathSegmentKind::CrateKw | ast::PathSegmentKind::SuperKw) => {
                let escapes = match segment.kind() {
                    Some(ast::PathSegmentKind::CrateKw) => path.qualifier().is_none(),
                    _ => matches!(
                        sema.resolve_path(&path),
                        Some(ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Module(m))) if !in_binary(m)
                    ),
                };
                if escapes {
                    out.push(Crossing {
                        range: if at == path.syntax().text_range() { segment.syntax().text_range() } else { at },
                        code: "E0433",
                        message: format!(
                            "failed to resolve: `{}` in a hole of the package's binary: Lacuna checks the binary as a \
                             module of its library, where it would name the library",
                            segment.syntax().text()
                        ),
                        label: "write the path from this module (`self::`) or from the items in scope".into(),
                        note: BINARY_NOTE,
                    });
                }
            }
            // A path into the library names what the library exports there: not a `pub(crate)` item, not a
            // private `use` of the module (`order_desk::desk::Cents` where `desk` imports `Cents` for itself).
            _ => {
                let (Some(outside), Some(qualifier), Some(name)) = (outside, path.qualifier(), segment.name_ref())
                else {
                    continue;
                };
                let Some(ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Module(module))) =
                    sema.resolve_path(&qualifier)
                else {
                    continue;
                };
                if module.krate(db) != binary.krate(db) || in_binary(module) {
                    continue;
                }
                let written = name.text();
                let exported = module.scope(db, Some(outside)).iter().any(|(n, _)| n.as_str() == &*written);
                let declared = module.scope(db, None).iter().any(|(n, _)| n.as_str() == &*written);
                if declared && !exported {
                    out.push(Crossing {
                        range: if at == path.syntax().text_range() { name.syntax().text_range() } else { at },
                        code: "E0603",
                        message: format!("`{written}` is private"),
                        label: "private to the package's library".into(),
                        note: BINARY_NOTE,
                    });
                }
            }
        }
    }
    out.sort_by_key(|c| c.range.start());
    for imp in root.descendants().filter_map(ast::Impl::cast) {
        if range.contains_range(imp.syntax().text_range()) {
            out.extend(impl_crossing(sema, db, &imp, &library_item, &in_binary));
        }
    }
    out.dedup_by(|a, b| a.range == b.range && a.code == b.code);
    out
}

/// A snippet in the library: the binary is not there for it (its module, its items, the crate's `main` that runs
/// it), and neither is the library's own name, which only the binary's `extern crate self` alias gives it.
fn library_crossings(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    range: TextRange,
    root: &SyntaxNode,
    binary: Module,
) -> Vec<Crossing> {
    let krate = binary.krate(db);
    let mut out = Vec::new();
    names(sema, range, root, &mut |def, at, written| {
        let name = def.name(db).map(|n| n.as_str().to_owned()).unwrap_or_default();
        let keyword = matches!(written, "crate" | "self" | "super" | "Self");
        let crossing = match def {
            Definition::ExternCrateDecl(d) => d.resolved_crate(db) == Some(krate),
            // The root by a name, not by `crate`: the alias.
            Definition::Crate(c) => c == krate && !keyword,
            Definition::Module(m) if m.is_crate_root(db) => m.krate(db) == krate && !keyword,
            Definition::Module(m) if m == binary => true,
            Definition::Function(f) if f.module(db).is_crate_root(db) && name == "main" => {
                f.as_assoc_item(db).is_none()
            }
            _ => def.module(db).is_some_and(|m| m.path_to_root(db).contains(&binary)),
        };
        if crossing {
            out.push(Crossing {
                range: at,
                code: "E0433",
                message: format!("failed to resolve: `{}` is not in the package's library", written_or(written, &name)),
                label: "the library does not see its binary, nor itself by its package's name".into(),
                note: LIBRARY_NOTE,
            });
        }
    });
    out.dedup_by(|a, b| a.range == b.range);
    out
}

/// Every name the snippet at `range` uses, resolved, with where it is written (for a name in a macro's arguments,
/// what it means in the expansion).
fn names<'db>(
    sema: &Semantics<'db, RootDatabase>,
    range: TextRange,
    root: &SyntaxNode,
    f: &mut dyn FnMut(Definition<'db>, TextRange, &str),
) {
    for element in root.descendants_with_tokens() {
        if !range.contains_range(element.text_range()) {
            continue;
        }
        match element {
            ra_ap_syntax::NodeOrToken::Node(node) => {
                if let Some(name_ref) = ast::NameRef::cast(node) {
                    if let Some(def) = classify(sema, &name_ref) {
                        f(def, name_ref.syntax().text_range(), name_ref.text());
                    }
                }
            }
            ra_ap_syntax::NodeOrToken::Token(token) => {
                if token.kind() != SyntaxKind::IDENT
                    || token.parent().is_none_or(|p| p.kind() != SyntaxKind::TOKEN_TREE)
                {
                    continue;
                }
                for descended in sema.descend_into_macros(token.clone()) {
                    if descended == token {
                        continue;
                    }
                    if let Some(def) = descended.parent().and_then(ast::NameRef::cast).and_then(|n| classify(sema, &n))
                    {
                        f(def, token.text_range(), token.text());
                    }
                }
            }
        }
    }
}

/// The package's binary module of the crate `module` is in, if the crate has one.
fn binary_module(db: &RootDatabase, module: Module) -> Option<Module> {
    module.krate(db).root_module(db).children(db).find(|m| m.name(db).is_some_and(|n| n.as_str() == BINARY_MODULE))
}

fn classify<'db>(sema: &Semantics<'db, RootDatabase>, name_ref: &ast::NameRef) -> Option<Definition<'db>> {
    match NameRefClass::classify(sema, name_ref)? {
        NameRefClass::Definition(def, _) => Some(def),
        NameRefClass::FieldShorthand { field_ref, .. } => Some(Definition::Field(field_ref)),
        NameRefClass::ExternCrateShorthand { .. } => None,
    }
}

/// An impl in the snippet for a type of the library: inherent (E0116), or of a trait not the binary's (E0117).
fn impl_crossing(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    imp: &ast::Impl,
    library_item: &dyn Fn(&Definition<'_>) -> bool,
    in_binary: &dyn Fn(Module) -> bool,
) -> Option<Crossing> {
    let self_ty = imp.self_ty()?;
    let adt = sema.resolve_type(&self_ty)?.as_adt()?;
    if !library_item(&Definition::Adt(adt)) {
        return None;
    }
    let at = self_ty.syntax().text_range();
    let name = adt.name(db).as_str().to_owned();
    match imp.trait_() {
        None => Some(Crossing {
            range: at,
            code: "E0116",
            message: "cannot define inherent `impl` for a type outside of the crate where the type is defined".into(),
            label: format!("`{name}` is the package library's; the binary is another crate"),
            note: BINARY_NOTE,
        }),
        Some(_) => {
            let def = sema.to_def(imp)?;
            let trait_ = def.trait_(db)?;
            if in_binary(trait_.module(db)) {
                return None;
            }
            Some(Crossing {
                range: at,
                code: "E0117",
                message: "only traits defined in the current crate can be implemented for types defined outside of \
                          the crate"
                    .into(),
                label: format!("`{name}` is the package library's, and so is not local to the binary"),
                note: BINARY_NOTE,
            })
        }
    }
}

fn written_or<'a>(written: &'a str, name: &'a str) -> &'a str {
    if written.is_empty() {
        name
    } else {
        written
    }
}

/// How rustc names an item's kind in "is private".
fn what(def: &Definition<'_>) -> &'static str {
    match def {
        Definition::Function(_) => "function",
        Definition::Adt(ra_ap_hir::Adt::Struct(_)) => "struct",
        Definition::Adt(ra_ap_hir::Adt::Enum(_)) => "enum",
        Definition::Adt(ra_ap_hir::Adt::Union(_)) => "union",
        Definition::Const(_) => "constant",
        Definition::Static(_) => "static",
        Definition::Trait(_) => "trait",
        Definition::TypeAlias(_) => "type alias",
        Definition::Module(_) => "module",
        Definition::Macro(_) => "macro",
        Definition::EnumVariant(_) => "variant",
        _ => "item",
    }
}
