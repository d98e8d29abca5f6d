//! Where std iterates for a snippet: each call of an iterator method or draining function std steps in a loop of
//! its own (`lacuna_policy::Iteration`) gets a counting wrapper on the iterator it steps, a [`FuelPoint`], so the
//! loop counts fuel (and checks the clock and the stack) at every step as the snippet's own loops do. Safe mode
//! denies the forms where no wrapper can go: such a method named as a value or by path (`.map(Iterator::count)`,
//! `Iterator::max(it)`), and one whose text no place in the snippet holds (a macro's expansion put it together).
//! A call a `macro_rules!` of the snippet writes gets its wrapper in the transcriber, so every expansion has it.
//! The same judgement gives the checker's violations and the rustc path's points, so every
//! call safe mode lets through is counted.

use lacuna_ir::FuelPoint;
use lacuna_policy::{Iteration, ViolationKind};
use ra_ap_hir::{Access, HasSource, InFile, Semantics};
use ra_ap_ide_db::defs::Definition;
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::HasArgList;
use ra_ap_syntax::{ast, AstNode, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

/// What one name the snippet uses needs for its loops inside std to be counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Metering {
    /// A wrapper at this place, in the coordinates of the file the snippet is in.
    Point(FuelPoint),
    /// No wrapper can go where this is written: safe mode denies it.
    Denied { kind: ViolationKind, message: String, label: String },
}

/// Where `name_ref` (in the snippet at `snippet` of the file `root` is in, or in a macro expansion of it) needs a
/// count, if it names one of std's iterator methods or draining functions that loop. Offsets are the file's.
pub(crate) fn metering(site: Site<'_, '_>, name_ref: &ast::NameRef, def: Option<Definition<'_>>) -> Option<Metering> {
    let Site { db, file, .. } = site;
    let f = match def {
        Some(Definition::Function(f)) => f,
        Some(adt @ Definition::Adt(_)) => {
            let wrapped = crate::policy::resolve::items(db, adt).iter().any(lacuna_policy::wraps_receiver_type);
            return wrapped.then(|| Metering::Denied {
                kind: ViolationKind::UnmeteredLoop,
                message: format!(
                    "`{}` is the type of an adapter whose receiver counts fuel at every step when the snippet runs, so \
                     it is not this type then; name it as `impl Iterator<Item = ..>`",
                    name_ref.text()
                ),
                label: "an adapter's type the budget changes".into(),
            });
        }
        _ => return None,
    };
    let kind = crate::policy::resolve::items(db, Definition::Function(f))
        .iter()
        .find_map(lacuna_policy::iteration)
        .filter(|k| k.needs_count())?;
    let name = name_ref.text().to_string();
    let denied = |why: &str| {
        Some(Metering::Denied {
            kind: ViolationKind::UnmeteredLoop,
            message: format!(
                "`{name}` steps an iterator in a loop inside std, and {why}, where no budget can count it"
            ),
            label: "a loop no budget counts".into(),
        })
    };
    let written = |node: &SyntaxNode| site.written(node);
    let Some(at) = written(name_ref.syntax()) else {
        return denied("it is written where the snippet's text does not say (a macro's expansion)");
    };
    let shape = Shape::of(name_ref);
    match (kind, shape) {
        (Iteration::Lazy, _) => None,
        (Iteration::CallingAdapter { by_reference }, Shape::Method(call)) => {
            let function = call.arg_list()?.args().next()?;
            if is_closure(function.clone()) {
                // Each step runs a closure the snippet wrote, and its body counts.
                return None;
            }
            match written(function.syntax()) {
                Some(range) => Some(Metering::Point(FuelPoint::TickingFunction {
                    range: usize::from(range.start())..usize::from(range.end()),
                    by_reference,
                })),
                None => denied("the function it calls could not be found"),
            }
        }
        (Iteration::Consumer | Iteration::LoopingAdapter, Shape::Method(_)) => {
            let by_ref = match f.self_param(db)?.access(db) {
                Access::Owned => false,
                Access::Exclusive => true,
                Access::Shared => return None,
            };
            match dot_before(file, at, &name) {
                Some(dot) => Some(Metering::Point(FuelPoint::TickingReceiver { dot: usize::from(dot), by_ref })),
                None => denied("its receiver could not be found"),
            }
        }
        (Iteration::Consumer | Iteration::LoopingAdapter | Iteration::CallingAdapter { .. }, _) => {
            denied("it is named as a path, not called as a method (`it.{name}(..)`)")
        }
        // A receiver drained is handed over as a waiting iterator instead (`arguments`), which counts too.
        (Iteration::Drains, Shape::Method(call)) => {
            drained(site, call.arg_list()).unwrap_or_else(|| denied("its argument could not be found"))
        }
        (Iteration::Drains, Shape::PathCall(call)) => {
            drained(site, call.arg_list()).unwrap_or_else(|| denied("its argument could not be found"))
        }
        (Iteration::Drains, Shape::Value) => denied("it is used as a value, not called"),
    }
}

/// Where a name the snippet uses is judged: what every judgement of a loop or a wait inside std looks at.
#[derive(Clone, Copy)]
pub(crate) struct Site<'a, 'db> {
    pub(crate) sema: &'a Semantics<'db, RootDatabase>,
    pub(crate) db: &'db RootDatabase,
    /// The root of the file the snippet is in.
    pub(crate) file: &'a SyntaxNode,
    /// The snippet's text in that file.
    pub(crate) snippet: TextRange,
}

impl Site<'_, '_> {
    /// Where the snippet wrote `node`: itself, its tokens as a macro's arguments, or the transcriber of a
    /// `macro_rules!` it defines (a wrapper put there goes into every expansion). A node put together from both, or
    /// by a macro from elsewhere, has no such place.
    pub(crate) fn written(&self, node: &SyntaxNode) -> Option<TextRange> {
        let original = InFile::new(self.sema.hir_file_for(node), node).original_file_range_opt(self.db)?.0;
        self.in_snippet(original)
    }

    /// `range` if it is in the snippet's text.
    fn in_snippet(&self, original: ra_ap_hir::FileRange) -> Option<TextRange> {
        let file_id = self.sema.hir_file_for(self.file).file_id();
        (Some(original.file_id) == file_id && self.snippet.contains_range(original.range)).then_some(original.range)
    }

    /// Whether the syntax `node` of `file_id` (a definition's source) is in the snippet's text (or made by its
    /// macros).
    pub(crate) fn holds(&self, file_id: ra_ap_hir::HirFileId, node: &SyntaxNode) -> bool {
        InFile::new(file_id, node).original_file_range_opt(self.db).is_some_and(|(r, _)| self.in_snippet(r).is_some())
    }
}

/// How a name is used.
pub(crate) enum Shape {
    /// `recv.name(..)`.
    Method(ast::MethodCallExpr),
    /// `path::name(..)`.
    PathCall(ast::CallExpr),
    /// Anything else: a value (`.map(Iterator::count)`), an import.
    Value,
}

impl Shape {
    pub(crate) fn of(name_ref: &ast::NameRef) -> Shape {
        let parent = name_ref.syntax().parent();
        if let Some(call) = parent.clone().and_then(ast::MethodCallExpr::cast) {
            if call.name_ref().as_ref() == Some(name_ref) {
                return Shape::Method(call);
            }
        }
        let path_expr = parent
            .and_then(ast::PathSegment::cast)
            .map(|s| s.parent_path())
            .filter(|p| p.parent_path().is_none())
            .and_then(|p| p.syntax().parent())
            .and_then(ast::PathExpr::cast);
        if let Some(path_expr) = path_expr {
            if let Some(call) = path_expr.syntax().parent().and_then(ast::CallExpr::cast) {
                if call.expr().is_some_and(|callee| callee.syntax() == path_expr.syntax()) {
                    return Shape::PathCall(call);
                }
            }
        }
        Shape::Value
    }
}

fn is_closure(expr: ast::Expr) -> bool {
    match expr {
        ast::Expr::ClosureExpr(_) => true,
        ast::Expr::ParenExpr(p) => p.expr().is_some_and(is_closure),
        _ => false,
    }
}

/// The `.` before the method name `name` the snippet wrote at `at`, in the file.
fn dot_before(file: &SyntaxNode, at: TextRange, name: &str) -> Option<TextSize> {
    let token = match file.covering_element(at) {
        ra_ap_syntax::NodeOrToken::Token(t) => t,
        ra_ap_syntax::NodeOrToken::Node(n) => n.first_token()?,
    };
    if token.text() != name {
        return None;
    }
    let previous =
        std::iter::successors(token.prev_token(), SyntaxToken::prev_token).find(|t| !t.kind().is_trivia())?;
    (previous.kind() == SyntaxKind::DOT).then(|| previous.text_range().start())
}

/// The point wrapping the last argument of a draining call, where the snippet wrote it: none for a channel
/// receiver (`arguments` hands it over as a waiting iterator, which counts its steps).
fn drained(site: Site<'_, '_>, args: Option<ast::ArgList>) -> Option<Option<Metering>> {
    let last = args?.args().last()?;
    if crate::waiting::is_receiver_value(site, &last) {
        return Some(None);
    }
    let range = site.written(last.syntax())?;
    Some(Some(Metering::Point(FuelPoint::TickingArgument(usize::from(range.start())..usize::from(range.end())))))
}

/// The points for a call's arguments that code which takes any iterator steps (a parameter whose type is a type
/// parameter bounded by `Iterator` or `IntoIterator`): a channel receiver is handed over as a waiting iterator
/// (whatever the callee), and any other iterator given to a host's (or another crate's) function gets the counting
/// wrapper, since the host's code steps it where no budget counts. std's own functions are judged by name
/// ([`metering`]); the snippet's own count in their bodies.
pub(crate) fn arguments(site: Site<'_, '_>, name_ref: &ast::NameRef, def: Option<Definition<'_>>) -> Vec<Metering> {
    let Some(Definition::Function(f)) = def else {
        return Vec::new();
    };
    let db = site.db;
    let (args, params): (Vec<ast::Expr>, _) = match Shape::of(name_ref) {
        Shape::Method(call) => {
            (call.arg_list().map(|l| l.args().collect()).unwrap_or_default(), f.params_without_self(db))
        }
        Shape::PathCall(call) => {
            (call.arg_list().map(|l| l.args().collect()).unwrap_or_default(), f.assoc_fn_params(db))
        }
        Shape::Value => return Vec::new(),
    };
    let foreign = !crate::policy::resolve::crate_kind(db, f.module(db).krate(db)).is_std()
        && !f.source(db).is_some_and(|source| site.holds(source.file_id, source.value.syntax()));
    let mut out = Vec::new();
    for (arg, param) in args.iter().zip(params.iter()) {
        if !takes_any_iterator(db, param.ty()) {
            continue;
        }
        let receiver = crate::waiting::is_receiver_value(site, arg);
        if !receiver && !foreign {
            continue;
        }
        let Some(range) = site.written(arg.syntax()) else {
            out.push(Metering::Denied {
                kind: ViolationKind::UnmeteredLoop,
                message: format!(
                    "`{}` steps the iterator it is given where no budget counts, and the argument is written where \
                     the snippet's text does not say (a macro's expansion)",
                    name_ref.text()
                ),
                label: "a loop no budget counts".into(),
            });
            continue;
        };
        let range = usize::from(range.start())..usize::from(range.end());
        out.push(Metering::Point(if receiver {
            FuelPoint::WaitingArgument(range)
        } else {
            FuelPoint::TickingArgument(range)
        }));
    }
    out
}

/// Whether a parameter of this type takes any iterator: a type parameter (`impl Iterator` included) bounded by
/// core's `Iterator` or `IntoIterator`.
fn takes_any_iterator(db: &RootDatabase, ty: &ra_ap_hir::Type<'_>) -> bool {
    let Some(param) = ty.as_type_param(db) else {
        return false;
    };
    param.trait_bounds(db).into_iter().any(|t| {
        matches!(t.name(db).as_str(), "Iterator" | "IntoIterator")
            && crate::policy::resolve::crate_kind(db, t.module(db).krate(db)) == lacuna_policy::CrateKind::Core
    })
}

/// Every point the snippet at `snippet` needs, relative to `base`: what safe mode's walk finds
/// ([`crate::policy::resolve::Walker`] asks [`metering`] about every name it judges — in the snippet's text, in
/// macros' arguments, in its own macros' expansions), so the two cannot disagree about a call; and an import at
/// the top of each module the snippet declares, which the entry block's does not reach. What [`metering`] denies
/// gets no point (safe mode rejects the snippet).
pub(crate) fn points<'db>(
    sema: &Semantics<'db, RootDatabase>,
    db: &'db RootDatabase,
    file: &SyntaxNode,
    snippet: TextRange,
    base: usize,
) -> Vec<FuelPoint> {
    let root = match file.covering_element(snippet) {
        ra_ap_syntax::NodeOrToken::Node(n) => n,
        ra_ap_syntax::NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| file.clone()),
    };
    let policy = lacuna_policy::Policy::default();
    let mut walker = crate::policy::resolve::Walker::new(sema, db, &policy, snippet, file.clone());
    walker.walk(&root, None);
    let mut out: Vec<FuelPoint> = walker.points.iter().map(|point| point.shifted(base)).collect();
    if out.iter().any(FuelPoint::needs_import) {
        // A module the snippet declares does not see the entry block's import.
        for module in
            root.descendants().filter(|n| snippet.contains_range(n.text_range())).filter_map(ast::Module::cast)
        {
            if let Some(open) = module.item_list().and_then(|l| l.l_curly_token()) {
                out.push(FuelPoint::TickingImport(usize::from(open.text_range().end()) - base));
            }
        }
    }
    out
}
