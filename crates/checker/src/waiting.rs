//! Where a snippet's thread waits inside std for another thread (`lacuna_policy::Waiting`): each blocking call the
//! snippet writes is renamed to its twin in the prelude's `__wait` (a [`FuelPoint::Waiting`]), which waits in
//! slices and looks at the run's time budget between them; a channel receiver stepped by code that takes any
//! iterator (a `for` loop; a generic function's argument, `crate::iteration::arguments`) is handed over as the
//! prelude's waiting iterator (a [`FuelPoint::WaitingArgument`]). Safe mode denies the waits no twin covers
//! (`Barrier::wait`), a blocking call whose name no place in the snippet holds (a macro put it together), naming
//! the receiver's iterator types (the twin's are others), and the waits std would make unseen: `flatten`/`flat_map`
//! over receivers, and a host item typed with a receiver's iterator. A sleep (allowed by the `time` grant) is a wait
//! too: `thread::sleep` is made the prelude's twin (a [`FuelPoint::Sleeping`]), and the waits with a timeout
//! (`recv_timeout`, `Condvar::wait_timeout`) are renamed, so a timeout longer than the time budget ends with it.
//! Found by safe mode's own walk, as the iteration points are, so every wait it lets through is renamed.

use lacuna_ir::FuelPoint;
use lacuna_policy::{Flattening, ViolationKind, Waiting};
use ra_ap_ide_db::defs::Definition;
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::HasArgList;
use ra_ap_syntax::{ast, AstNode};

use crate::iteration::{Metering, Shape, Site};

/// What `name_ref` needs if it names one of std's blocking waits or a receiver's iterator type.
pub(crate) fn metering(site: Site<'_, '_>, name_ref: &ast::NameRef, def: Option<Definition<'_>>) -> Option<Metering> {
    let Site { db, file, .. } = site;
    let name = name_ref.text().to_string();
    let f = match def {
        Some(Definition::Function(f)) => f,
        Some(adt @ Definition::Adt(_)) => {
            let iterator = crate::policy::resolve::items(db, adt).iter().any(lacuna_policy::is_receiver_iterator_type);
            return iterator.then(|| Metering::Denied {
                kind: ViolationKind::UnboundedWait,
                message: format!(
                    "`{name}` is the type of a receiver's iterator, which waits for each element as a different type \
                     when the snippet runs (so the time budget can end the wait); name it as `impl Iterator<Item = \
                     ..>`"
                ),
                label: "a waiting iterator's type the budget changes".into(),
            });
        }
        _ => return None,
    };
    let items = crate::policy::resolve::items(db, Definition::Function(f));
    if let Some(flattening) = items.iter().find_map(lacuna_policy::flattening) {
        return flattened(site, name_ref, flattening);
    }
    if !items.iter().any(|item| item.krate.is_std()) && mentions_receiver_iterator(db, &f.ret_type(db), 0) {
        return Some(handed(&name, "returns"));
    }
    let kind = items.iter().find_map(lacuna_policy::waiting)?;
    if kind == Waiting::Sleep {
        return sleeping(site, name_ref);
    }
    let nowhere = || {
        Some(unbounded(format!(
            "`{name}` waits for another thread, and it is written where the snippet's text does not say (a macro's \
             expansion), where no time budget can end the wait"
        )))
    };
    let Some(at) = site.written(name_ref.syntax()) else {
        return nowhere();
    };
    // The name itself, where the prefix goes (not a larger node the name maps into).
    if file.text_range().contains_range(at) && file.covering_element(at).to_string() != name {
        return nowhere();
    }
    let renamed = Some(Metering::Point(FuelPoint::Waiting(usize::from(at.start()))));
    match (kind, Shape::of(name_ref)) {
        (Waiting::Renamed, _) | (Waiting::IntoIter, Shape::Method(_)) => renamed,
        (Waiting::IntoIter, Shape::PathCall(call)) => {
            let arg = call.arg_list()?.args().next()?;
            match site.written(arg.syntax()) {
                Some(r) => {
                    Some(Metering::Point(FuelPoint::WaitingArgument(usize::from(r.start())..usize::from(r.end()))))
                }
                None => nowhere(),
            }
        }
        (Waiting::IntoIter, Shape::Value) => Some(unbounded(format!(
            "`{name}` of a receiver is used as a value, where its iterator's waits cannot be bounded"
        ))),
        (Waiting::Unbounded { instead }, _) => Some(unbounded(format!(
            "`{name}` waits with no way to look at the time budget meanwhile, so a wait that does not end in time \
             would block the host; {instead}"
        ))),
        (Waiting::Sleep, _) => sleeping(site, name_ref),
    }
}

/// `thread::sleep` named by the snippet: the path, called or used as a value, is wrapped in the prelude's twin
/// (a `fn(Duration)` that sleeps in slices, looking at the time budget between them). An import is left alone
/// (each use of the name is judged); a path no place in the snippet's text holds (a macro put it together from
/// pieces) is denied.
fn sleeping(site: Site<'_, '_>, name_ref: &ast::NameRef) -> Option<Metering> {
    let path = name_ref.syntax().parent().and_then(ast::PathSegment::cast)?.parent_path();
    let parent = path.syntax().parent()?;
    if ast::UseTree::can_cast(parent.kind()) {
        return None;
    }
    let name = name_ref.text();
    let nowhere = || {
        Some(unbounded(format!(
            "`{name}` sleeps, and it is written where the snippet's text does not say (a macro put it together), \
             where no time budget can end the sleep; write `std::thread::sleep(..)` itself"
        )))
    };
    let Some(path_expr) = ast::PathExpr::cast(parent) else {
        return nowhere();
    };
    let Some(at) = site.written(path_expr.syntax()) else {
        return nowhere();
    };
    // The path itself, where the wrapper goes (in a macro's arguments or transcriber the file has only a token
    // tree there, and an expansion's text may space its tokens apart).
    let bare = |text: String| text.split_whitespace().collect::<String>();
    let file = site.file;
    if !file.text_range().contains_range(at)
        || bare(file.text().slice(at).to_string()) != bare(path_expr.syntax().to_string())
    {
        return nowhere();
    }
    Some(Metering::Point(FuelPoint::Sleeping(usize::from(at.start())..usize::from(at.end()))))
}

/// `flatten`/`flat_map` written as a method (by path they are denied as loops, `crate::iteration`): denied when
/// what it steps as iterators of their own are channel receivers, or of a type the snippet's generic code does not
/// know (its caller may hand receivers).
fn flattened(site: Site<'_, '_>, name_ref: &ast::NameRef, flattening: Flattening) -> Option<Metering> {
    let Site { sema, db, .. } = site;
    let Shape::Method(call) = Shape::of(name_ref) else {
        return None;
    };
    let stepped = match flattening {
        Flattening::Elements => {
            sema.type_of_expr(&call.receiver()?)?.adjusted().strip_references().iterator_item(db)?
        }
        Flattening::Results => {
            let function = call.arg_list()?.args().next()?;
            sema.type_of_expr(&function)?.original.as_callable(db)?.return_type()
        }
    };
    let (what, instead) = if iterates_waiting(db, &stepped) {
        (
            "channel receivers, whose iterators wait for each value",
            "step each receiver with `rx.iter()` (or `rx.try_iter()`) in a `flat_map` closure, or in a loop",
        )
    } else if is_unknown_type(db, &stepped) {
        (
            "of a type this generic code does not know (a caller may hand it channel receivers, whose iterators wait \
             for each value)",
            "give the elements a concrete type, or flatten where the caller knows it",
        )
    } else {
        return None;
    };
    let name = name_ref.text();
    Some(unbounded(format!(
        "`{name}` steps each element as an iterator of its own inside std, and here they are {what}: no time budget \
         could end such a wait; {instead}"
    )))
}

/// Denied: a host's item that hands the snippet a receiver's iterator (`mpsc::Iter`, `mpsc::IntoIter`), which waits
/// for each value inside std where no twin can be put.
fn handed(name: &str, how: &str) -> Metering {
    unbounded(format!(
        "`{name}` {how} a channel receiver's iterator (`mpsc::Iter` or `mpsc::IntoIter`), which waits for each value \
         inside std where no time budget can end the wait; ask the host for the receiver itself, or use what is \
         already there (`try_iter`)"
    ))
}

/// A wait no time budget could end, denied with `message`.
fn unbounded(message: String) -> Metering {
    Metering::Denied { kind: ViolationKind::UnboundedWait, message, label: "a wait no budget ends".into() }
}

/// What a host binding, field or static the snippet names needs: denied when its type holds a receiver's
/// iterator (see [`handed`]). The snippet's own bindings are left alone (`rx.iter()` is the twin when it runs).
pub(crate) fn host_value(site: Site<'_, '_>, name_ref: &ast::NameRef, def: Definition<'_>) -> Option<Metering> {
    let db = site.db;
    let ty = match def {
        Definition::Local(local) => {
            if local.sources(db).iter().any(|source| site.holds(source.file(), source.syntax())) {
                return None;
            }
            local.ty(db)
        }
        Definition::Field(field) => field.ty(db),
        Definition::Static(s) => s.ty(db),
        Definition::Const(c) => c.ty(db),
        _ => return None,
    };
    mentions_receiver_iterator(db, &ty, 0).then(|| handed(name_ref.text(), "is"))
}

/// Whether stepping a value of `ty` as an iterator waits on a channel: a receiver or a shared reference to one. (A
/// receiver's iterator is the twin when it runs: the snippet's `rx.iter()` is renamed, and a host's is denied where
/// the snippet names it.)
fn iterates_waiting(db: &RootDatabase, ty: &ra_ap_hir::Type<'_>) -> bool {
    let inner = match ty.as_reference() {
        Some((inner, ra_ap_hir::Mutability::Shared)) => inner,
        Some((_, ra_ap_hir::Mutability::Mut)) => return false,
        None => ty.clone(),
    };
    inner.as_adt().is_some_and(|adt| {
        crate::policy::resolve::items(db, Definition::Adt(adt)).iter().any(lacuna_policy::is_receiver)
    })
}

/// A type generic code does not know: a type parameter (`impl Trait` in argument position too), or an associated
/// type of one (`I::Item`), behind references or not.
fn is_unknown_type(db: &RootDatabase, ty: &ra_ap_hir::Type<'_>) -> bool {
    let ty = ty.strip_references();
    ty.as_type_param(db).is_some() || ty.as_associated_type_parent_trait(db).is_some()
}

/// Whether `ty` is or holds (as a type argument, an element, behind references) a receiver's iterator type.
fn mentions_receiver_iterator(db: &RootDatabase, ty: &ra_ap_hir::Type<'_>, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    let ty = ty.strip_references();
    if let Some(adt) = ty.as_adt() {
        if crate::policy::resolve::items(db, Definition::Adt(adt)).iter().any(lacuna_policy::is_receiver_iterator_type)
        {
            return true;
        }
    }
    let element = ty.as_slice().or_else(|| ty.as_array(db).map(|(element, _)| element));
    let arguments: Vec<_> = element.into_iter().chain(ty.type_arguments()).collect();
    arguments.iter().any(|arg| mentions_receiver_iterator(db, arg, depth + 1))
}

/// A `for` loop over a channel receiver (`for v in rx`, `for v in &rx`): its iterable handed over as the waiting
/// iterator.
pub(crate) fn for_loop(site: Site<'_, '_>, for_expr: &ast::ForExpr) -> Option<Metering> {
    let iterable = for_expr.iterable()?;
    if !is_receiver_value(site, &iterable) {
        return None;
    }
    Some(match site.written(iterable.syntax()) {
        Some(r) => Metering::Point(FuelPoint::WaitingArgument(usize::from(r.start())..usize::from(r.end()))),
        None => unbounded(
            "this loop waits on a channel for each element, and its iterable is written where the snippet's text \
             does not say (a macro's expansion), where no time budget can end the wait"
                .into(),
        ),
    })
}

/// Whether `expr` is a channel receiver or a shared reference to one (what `IntoIterator` is implemented for).
pub(crate) fn is_receiver_value(site: Site<'_, '_>, expr: &ast::Expr) -> bool {
    site.sema.type_of_expr(expr).is_some_and(|info| iterates_waiting(site.db, &info.original))
}
