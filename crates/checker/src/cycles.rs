//! Values a snippet could keep alive past its hole without `mem::forget` (`lacuna_policy::cycles`): an `Rc` or
//! `Arc` can hold itself, and a `thread_local!`'s value lives until its thread ends — the main thread's, for good.
//! A lock guard or a `RefCell` borrow kept alive there stays held after the hole: the host's own next `lock()`
//! blocks, its `borrow_mut()` panics. So an `Rc`/`Arc` the snippet makes, and a thread-local it declares, may not
//! hold anything that can be or hide one: a guard or borrow, a reference, a type with a lifetime, a trait object,
//! a generic type. Judged on rust-analyzer's types of the snippet's calls and the thread-locals it names.

use std::collections::HashSet;

use ra_ap_hir::Adt;
use ra_ap_ide_db::defs::Definition;
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast;

use crate::iteration::Site;

/// What a call of the snippet's that makes (or hands it) an `Rc`/`Arc` is denied for, if its content can hold a
/// borrow: the message, and the label.
pub(crate) fn shared(site: Site<'_, '_>, expr: &ast::Expr) -> Option<(String, String)> {
    if !matches!(expr, ast::Expr::CallExpr(_) | ast::Expr::MethodCallExpr(_)) {
        return None;
    }
    let ty = site.sema.type_of_expr(expr)?.original;
    let adt = ty.as_adt()?;
    if !crate::policy::resolve::items(site.db, Definition::Adt(adt)).iter().any(lacuna_policy::is_shared_owner) {
        return None;
    }
    let content = ty.type_arguments().next()?;
    let what = holds(site.db, &content, true, &mut HashSet::new(), 0)?;
    let owner = adt.name(site.db).as_str().to_owned();
    Some((
        format!(
            "this makes an `{owner}` of a value that holds {what}: `{owner}`s can hold themselves in a cycle that is \
             never dropped, and a lock guard or `RefCell` borrow kept alive in one would stay held after the hole \
             (the host's next `lock()` would block, its `borrow_mut()` panic); share owned data, and keep guards and \
             borrows in locals"
        ),
        format!("an `{owner}` that could keep a borrow alive"),
    ))
}

/// What naming a snippet's `thread_local!` is denied for, if its value can hold a guard or borrow.
pub(crate) fn thread_local(
    site: Site<'_, '_>,
    name_ref: &ast::NameRef,
    def: Definition<'_>,
) -> Option<(String, String)> {
    let ty = match def {
        Definition::Static(s) => s.ty(site.db),
        Definition::Const(c) => c.ty(site.db),
        _ => return None,
    };
    let adt = ty.as_adt()?;
    if !crate::policy::resolve::items(site.db, Definition::Adt(adt)).iter().any(lacuna_policy::is_thread_local) {
        return None;
    }
    let content = ty.type_arguments().next()?;
    // A thread-local's value is `'static`: references in it borrow nothing of the host's locals.
    let what = holds(site.db, &content, false, &mut HashSet::new(), 0)?;
    Some((
        format!(
            "`{}` is a thread-local whose value holds {what}: it lives until its thread ends (the main thread's, \
             never), and a lock guard kept in it would stay held after the hole; keep guards in locals",
            name_ref.text()
        ),
        "a thread-local that could keep a guard alive".into(),
    ))
}

/// What in `ty` can be or hide a lock guard or a `RefCell` borrow, if anything: the types std and the host declare
/// are entered through their type arguments, the host's and the snippet's own also through their fields.
fn holds(
    db: &RootDatabase,
    ty: &ra_ap_hir::Type<'_>,
    references: bool,
    seen: &mut HashSet<Adt>,
    depth: u32,
) -> Option<&'static str> {
    if depth > 32 {
        return None;
    }
    if let Some((inner, _)) = ty.as_reference() {
        return if references { Some("a reference") } else { holds(db, &inner, references, seen, depth + 1) };
    }
    if ty.as_dyn_trait().is_some() {
        return Some("a trait object (which can hide one)");
    }
    if ty.as_type_param(db).is_some() || ty.as_associated_type_parent_trait(db).is_some() {
        return Some("a value of a generic type (which can be one)");
    }
    if let Some(adt) = ty.as_adt() {
        let items = crate::policy::resolve::items(db, Definition::Adt(adt));
        if items.iter().any(lacuna_policy::is_borrow_guard) {
            return Some("a lock guard or a `RefCell` borrow");
        }
        if references && adt.lifetime(db).is_some() {
            return Some("a value of a type with a lifetime (which can hold a borrow)");
        }
        let declared_here = items.iter().any(|item| !item.krate.is_std());
        if declared_here && seen.insert(adt) {
            let fields: Vec<ra_ap_hir::Type<'_>> = match adt {
                Adt::Enum(e) => e.variants(db).into_iter().flat_map(|v| v.fields(db)).map(|f| f.ty(db)).collect(),
                Adt::Struct(_) | Adt::Union(_) => ty.fields(db).into_iter().map(|(_, t)| t).collect(),
            };
            for field in &fields {
                if let Some(what) = holds(db, field, references, seen, depth + 1) {
                    return Some(what);
                }
            }
        }
    }
    let element = ty.as_slice().or_else(|| ty.as_array(db).map(|(element, _)| element));
    let arguments: Vec<_> = element.into_iter().chain(ty.type_arguments()).collect();
    arguments.iter().find_map(|arg| holds(db, arg, references, seen, depth + 1))
}
