//! Where a snippet's thread waits inside std for another thread (`lacuna_policy::Waiting`): each blocking call the
//! snippet writes is renamed to its twin in the prelude's `__wait` (a [`FuelPoint::Waiting`]), which waits in
//! slices and looks at the run's time budget between them; a channel receiver stepped by code that takes any
//! iterator (a `for` loop; a generic function's argument, `crate::iteration::arguments`) is handed over as the
//! prelude's waiting iterator (a [`FuelPoint::WaitingArgument`]). Safe mode denies the waits no twin covers
//! (`Barrier::wait`), a blocking call whose name no place in the snippet holds (a macro put it together), and naming
//! the receiver's iterator types (the twin's are others). Found by safe mode's own walk, as the iteration points
//! are, so every wait it lets through is renamed.

use lacuna_ir::FuelPoint;
use lacuna_policy::{ViolationKind, Waiting};
use ra_ap_hir::Semantics;
use ra_ap_ide_db::defs::Definition;
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::HasArgList;
use ra_ap_syntax::{ast, AstNode, SyntaxNode, TextRange};

use crate::iteration::{written, Metering, Shape};

/// What `name_ref` needs if it names one of std's blocking waits or a receiver's iterator type.
pub(crate) fn metering(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    root: &SyntaxNode,
    snippet: TextRange,
    name_ref: &ast::NameRef,
    def: Option<Definition<'_>>,
) -> Option<Metering> {
    let name = name_ref.text().to_string();
    let denied = |message: String, label: &str| {
        Some(Metering::Denied { kind: ViolationKind::UnboundedWait, message, label: label.to_owned() })
    };
    let f = match def {
        Some(Definition::Function(f)) => f,
        Some(adt @ Definition::Adt(_)) => {
            let iterator = crate::policy::resolve::items(db, adt).iter().any(lacuna_policy::is_receiver_iterator_type);
            return if iterator {
                denied(
                    format!(
                        "`{name}` is the type of a receiver's iterator, which waits for each element as a different \
                         type when the snippet runs (so the time budget can end the wait); name it as \
                         `impl Iterator<Item = ..>`"
                    ),
                    "a waiting iterator's type the budget changes",
                )
            } else {
                None
            };
        }
        _ => return None,
    };
    let kind = crate::policy::resolve::items(db, Definition::Function(f)).iter().find_map(lacuna_policy::waiting)?;
    let file = root.ancestors().last().unwrap_or_else(|| root.clone());
    let nowhere = || {
        denied(
            format!(
                "`{name}` waits for another thread, and it is written where the snippet's text does not say (a \
                 macro's expansion), where no time budget can end the wait"
            ),
            "a wait no budget ends",
        )
    };
    let Some(at) = written(sema, db, &file, snippet, name_ref.syntax()) else {
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
            match written(sema, db, &file, snippet, arg.syntax()) {
                Some(r) => {
                    Some(Metering::Point(FuelPoint::WaitingArgument(usize::from(r.start())..usize::from(r.end()))))
                }
                None => nowhere(),
            }
        }
        (Waiting::IntoIter, Shape::Value) => denied(
            format!("`{name}` of a receiver is used as a value, where its iterator's waits cannot be bounded"),
            "a wait no budget ends",
        ),
        (Waiting::Unbounded, _) => denied(
            format!(
                "`{name}` waits for other threads with no way to look at the time budget meanwhile, so a wait that \
                 never ends would block the host; use a channel or a `Condvar`"
            ),
            "a wait no budget ends",
        ),
    }
}

/// A `for` loop over a channel receiver (`for v in rx`, `for v in &rx`): its iterable handed over as the waiting
/// iterator.
pub(crate) fn for_loop(
    sema: &Semantics<'_, RootDatabase>,
    db: &RootDatabase,
    root: &SyntaxNode,
    snippet: TextRange,
    for_expr: &ast::ForExpr,
) -> Option<Metering> {
    let iterable = for_expr.iterable()?;
    if !is_receiver_value(sema, db, &iterable) {
        return None;
    }
    let file = root.ancestors().last().unwrap_or_else(|| root.clone());
    Some(match written(sema, db, &file, snippet, iterable.syntax()) {
        Some(r) => Metering::Point(FuelPoint::WaitingArgument(usize::from(r.start())..usize::from(r.end()))),
        None => Metering::Denied {
            kind: ViolationKind::UnboundedWait,
            message: "this loop waits on a channel for each element, and its iterable is written where the \
                      snippet's text does not say (a macro's expansion), where no time budget can end the wait"
                .into(),
            label: "a wait no budget ends".into(),
        },
    })
}

/// Whether `expr` is a channel receiver or a shared reference to one (what `IntoIterator` is implemented for).
pub(crate) fn is_receiver_value(sema: &Semantics<'_, RootDatabase>, db: &RootDatabase, expr: &ast::Expr) -> bool {
    let Some(info) = sema.type_of_expr(expr) else {
        return false;
    };
    let ty = info.original;
    let inner = match ty.as_reference() {
        Some((inner, ra_ap_hir::Mutability::Shared)) => inner,
        Some((_, ra_ap_hir::Mutability::Mut)) => return false,
        None => ty,
    };
    inner.as_adt().is_some_and(|adt| {
        crate::policy::resolve::items(db, Definition::Adt(adt)).iter().any(lacuna_policy::is_receiver)
    })
}
