//! Lowering: from the checker's typed view of an accepted snippet ([`lacuna_ir`]) to the program the
//! JIT compiles, or [`Unsupported`] with the construct and where it is.
//!
//! Pure: no IO, no global state, no panics on any input. The JIT compiles exactly what passes here:
//! - scalar types up to 64 bits (no `i128`/`u128`), `bool`, `char`, `()`;
//! - operators with their operand types (arithmetic on integers and floats, bit operations and shifts on
//!   integers, comparisons, `&&`/`||`, `!` on `bool` and integers, `-` on signed integers and floats);
//! - casts between numeric types, `bool`/`char` to integers, `u8` to `char`;
//! - the methods in [`lacuna_ir`]'s list with the argument types Rust gives them;
//! - its own ownership rules for what it admits: every value is `Copy`, so the rules are that only `mut`
//!   locals (and `let mut` bindings of the hole) are assigned, and `break` with a value only targets `loop`.

use lacuna_ir::{Binding, Elem, TExpr, Ty, TypedSnippet};

mod accept;
mod ownership;
mod scan;
mod subset;

pub use accept::{accept_without_rustc, HostFacts};
use subset::{unsupported, Check};

pub use ownership::{move_sites, moved_locals};
pub use scan::may_fault;
pub use subset::owned_option;

/// Why a snippet does not go to the JIT.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{construct} (at snippet bytes {}..{})", range.start, range.end)]
pub struct Unsupported {
    pub construct: String,
    pub range: std::ops::Range<usize>,
}

impl Unsupported {
    /// `construct` at `range` of the snippet; its text (`what (at snippet bytes a..b)`) is how the lowering names
    /// a place in the snippet wherever it says why.
    pub fn at(construct: &str, range: &std::ops::Range<usize>) -> Unsupported {
        Unsupported { construct: construct.to_owned(), range: range.clone() }
    }
}

/// A snippet ready for the JIT: the typed tree, checked, and the facts codegen needs about bindings.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    pub snippet: TypedSnippet,
    /// Bindings the snippet assigns (their host place must be writable).
    pub written_bindings: Vec<usize>,
}

/// Checks `snippet` against the subset. `bindings` are the hole's (to know which are `mut`).
pub fn lower(snippet: TypedSnippet, bindings: &[Binding]) -> Result<Lowered, Unsupported> {
    let mut checker = Check {
        snippet: &snippet,
        bindings,
        written: Vec::new(),
        loops: Vec::new(),
        in_fn: None,
        deferred: Vec::new(),
        result_scrutinee: false,
        owned_option_here: false,
        let_value_here: false,
        result_made_here: false,
        result_tail: false,
        lent_here: false,
        owned_tail: false,
        owned_tuple: None,
        collect_tuple: None,
        option_tuple: None,
        collect_results: false,
    };
    checker.ty(&snippet.ty, 0..0)?;
    // The hole's value is written in rustc's layout: a scalar, or an `Option` of one (through the host's
    // conversion); a tuple's layout is rustc's choice.
    if matches!(snippet.ty, Ty::Tuple(_)) {
        return unsupported("a tuple as the hole's value", &(0..0));
    }
    // An `Option` is handed over through the host's writer for a scalar payload or text; a reference in one
    // would point into memory the snippet does not hand over.
    if matches!(&snippet.ty, Ty::Option(payload) if payload.scalar().is_none() && **payload != Ty::Str) {
        return unsupported(format!("an `{}` as the hole's value", snippet.ty.name()), &(0..0));
    }
    // Text the hole's value holds points where rustc's program would point: to the host's text (what rustc's
    // borrow check lets it), or to a literal, which the JIT keeps. A map the snippet builds keeps its own copy of
    // text it is given, which would not outlive the run.
    if snippet.ty.holds_text() && snippet_builds_a_map(&snippet) {
        return unsupported("text in the hole's value where the snippet builds a map", &(0..0));
    }
    // A `&str` would point into memory the snippet does not hand over.
    if snippet.ty == Ty::Vec(Elem::Str) {
        return unsupported("a vector of `&str` as the hole's value", &(0..0));
    }
    if matches!(snippet.ty, Ty::Vec(Elem::StructRef(_))) {
        return unsupported("a vector of references as the hole's value", &(0..0));
    }
    if matches!(snippet.ty, Ty::Result(..)) {
        return unsupported("a `Result` as the hole's value", &(0..0));
    }
    if matches!(snippet.ty, Ty::Slice(_)) {
        return unsupported("a slice as the hole's value", &(0..0));
    }
    if matches!(snippet.ty, Ty::StructRef(_)) {
        return unsupported("a reference as the hole's value", &(0..0));
    }
    if matches!(&snippet.ty, Ty::Map { key, .. } if **key == Ty::Str) {
        return unsupported("a map with borrowed keys as the hole's value", &(0..0));
    }
    if let Some(range) = ownership::struct_binding_moved(&snippet) {
        return unsupported("a host struct binding moved", &range);
    }
    for &(_, ty) in &snippet.bindings {
        checker.scalar(ty, 0..0)?;
    }
    for f in &snippet.fns {
        checker.in_fn = Some(f.ret.clone());
        checker.ty(&f.ret, 0..0)?;
        // Owned values cross calls as their parts: an argument moves into the callee (whose parameter is never
        // dropped before the run ends), a result moves out of it (a moved local is not dropped either). Borrowed
        // text returned is rustc's to judge (`ownership::check`).
        checker.result_tail = matches!(f.ret, Ty::Result(..));
        checker.block(&f.body)?;
    }
    checker.in_fn = None;
    checker.block(&snippet.body)?;
    let mut written_bindings = checker.written;
    // A binding the snippet owns is written back when it ends.
    for l in &snippet.lifted {
        if !written_bindings.contains(&l.binding) {
            written_bindings.push(l.binding);
        }
    }
    Ok(Lowered { snippet, written_bindings })
}

/// Whether the snippet makes a map or set anywhere (a local of one, or a value of one in passing).
fn snippet_builds_a_map(snippet: &TypedSnippet) -> bool {
    fn map(e: &TExpr) -> bool {
        matches!(e.ty, Ty::Map { .. }) || scan::children_any(e, map)
    }
    snippet.locals.iter().any(|l| matches!(l.ty, Ty::Map { .. }))
        || scan::block_any(&snippet.body, map)
        || snippet.fns.iter().any(|f| scan::block_any(&f.body, map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accept::{folded, Values};
    use lacuna_ir::{
        BinOp, Lit, LocalRef, Method, Place, Scalar, ScalarMethod, TBlock, TExpr, TFn, TKind, TLocal, TStmt, UnOp,
    };

    fn lit(v: u128, ty: Scalar) -> TExpr {
        TExpr { kind: TKind::Lit(Lit::Int(v)), ty: ty.into(), range: 0..1 }
    }

    fn snippet(stmts: Vec<TStmt>, tail: TExpr, locals: Vec<TLocal>) -> TypedSnippet {
        let ty = tail.ty.clone();
        TypedSnippet {
            body: TBlock { stmts, tail: Some(Box::new(tail)), ty: Some(ty.clone()), label: None },
            ty,
            locals,
            fns: Vec::new(),
            bindings: Vec::new(),
            retyped: Vec::new(),
            lifted: Vec::new(),
            converted: Vec::new(),
            references: None,
            owns_buffers: false,
            rustc_decides: None,
            fields: Vec::new(),
            seq_places: Vec::new(),
            elem_fields: Vec::new(),
            structs: Vec::new(),
            formats: Vec::new(),
            tuples: Vec::new(),
        }
    }

    fn local(name: &str, ty: Scalar, mutable: bool) -> TLocal {
        TLocal { name: name.into(), ty: ty.into(), mutable, fixed_type: false, array_literal: false }
    }

    #[test]
    fn assigning_an_immutable_local_is_outside_the_subset() {
        let assign = TExpr {
            kind: TKind::Assign {
                place: Place::Local(LocalRef::Snippet(0)),
                op: None,
                value: Box::new(lit(2, Scalar::I32)),
            },
            ty: Scalar::Unit.into(),
            range: 4..9,
        };
        let s = snippet(
            vec![TStmt::Let { local: 0, init: Some(lit(1, Scalar::I32)) }, TStmt::Expr(assign)],
            TExpr { kind: TKind::Local(LocalRef::Snippet(0)), ty: Scalar::I32.into(), range: 10..11 },
            vec![local("x", Scalar::I32, false)],
        );
        let e = lower(s.clone(), &[]).unwrap_err();
        assert_eq!(e.range, 4..9);
        let mut ok = s;
        ok.locals[0].mutable = true;
        assert!(lower(ok, &[]).is_ok());
    }

    #[test]
    fn wide_integers_and_mistyped_methods_are_outside_the_subset() {
        assert!(lower(snippet(vec![], lit(1, Scalar::I128), vec![]), &[]).is_err());
        let pow = TExpr {
            kind: TKind::Method {
                name: Method::Scalar(ScalarMethod::Pow),
                receiver: Box::new(lit(2, Scalar::I64)),
                args: vec![lit(3, Scalar::I64)],
            },
            ty: Scalar::I64.into(),
            range: 0..5,
        };
        assert!(lower(snippet(vec![], pow, vec![]), &[]).is_err(), "pow takes a u32");
        let pow = TExpr {
            kind: TKind::Method {
                name: Method::Scalar(ScalarMethod::Pow),
                receiver: Box::new(lit(2, Scalar::I64)),
                args: vec![lit(3, Scalar::U32)],
            },
            ty: Scalar::I64.into(),
            range: 0..5,
        };
        assert!(lower(snippet(vec![], pow, vec![]), &[]).is_ok());
    }

    #[test]
    fn break_with_a_value_only_leaves_loop_and_return_only_leaves_functions() {
        let brk = TExpr {
            kind: TKind::Break { label: None, value: Some(Box::new(lit(1, Scalar::I32))) },
            ty: Scalar::Never.into(),
            range: 2..9,
        };
        let body = TBlock { stmts: vec![TStmt::Expr(brk)], tail: None, ty: Some(Scalar::Unit.into()), label: None };
        let cond = TExpr { kind: TKind::Lit(Lit::Bool(true)), ty: Scalar::Bool.into(), range: 0..1 };
        let while_loop = TExpr {
            kind: TKind::While { label: None, cond: Box::new(cond), body: body.clone() },
            ty: Scalar::Unit.into(),
            range: 0..10,
        };
        assert!(lower(snippet(vec![], while_loop, vec![]), &[]).is_err());
        let plain_loop = TExpr { kind: TKind::Loop { label: None, body }, ty: Scalar::I32.into(), range: 0..10 };
        assert!(lower(snippet(vec![], plain_loop, vec![]), &[]).is_ok());
        let ret =
            TExpr { kind: TKind::Return(Some(Box::new(lit(1, Scalar::I32)))), ty: Scalar::Never.into(), range: 0..8 };
        assert!(lower(snippet(vec![], ret.clone(), vec![]), &[]).is_err());
        let mut in_fn = snippet(vec![], lit(0, Scalar::I32), vec![]);
        in_fn.fns.push(TFn {
            name: "f".into(),
            params: vec![],
            ret: Scalar::I32.into(),
            body: TBlock { stmts: vec![TStmt::Expr(ret)], tail: None, ty: Some(Scalar::Never.into()), label: None },
        });
        assert!(lower(in_fn, &[]).is_ok());
    }
    #[test]
    fn folding_gives_rustcs_constant_values_and_nothing_where_rustc_reports_a_panic() {
        let bin = |op, l: TExpr, r: TExpr| {
            let ty = l.ty.clone();
            TExpr { kind: TKind::Binary(op, Box::new(l), Box::new(r)), ty, range: 0..1 }
        };
        let cast = |x: TExpr, to: Scalar| TExpr { kind: TKind::Cast(Box::new(x)), ty: to.into(), range: 0..1 };
        let neg = |x: TExpr| {
            let ty = x.ty.clone();
            TExpr { kind: TKind::Unary(UnOp::Neg, Box::new(x)), ty, range: 0..1 }
        };
        let u8_ = Scalar::U8;
        let i32_ = Scalar::I32;
        assert_eq!(folded(&bin(BinOp::Add, lit(200, u8_), lit(100, u8_)), &Values::default()), None);
        assert_eq!(folded(&bin(BinOp::Add, lit(200, u8_), lit(55, u8_)), &Values::default()), Some(255));
        let step = bin(BinOp::Add, bin(BinOp::Div, lit(40, i32_), lit(8, i32_)), lit(1, i32_));
        assert_eq!(folded(&step, &Values::default()), Some(6));
        assert_eq!(folded(&cast(lit(300, i32_), u8_), &Values::default()), Some(44));
        assert_eq!(folded(&cast(neg(lit(1, i32_)), u8_), &Values::default()), Some(255));
        assert_eq!(
            folded(&bin(BinOp::Div, neg(lit(128, Scalar::I8)), neg(lit(1, Scalar::I8))), &Values::default()),
            None
        );
        assert_eq!(folded(&bin(BinOp::Rem, lit(7, i32_), lit(0, i32_)), &Values::default()), None);
        assert_eq!(
            folded(&bin(BinOp::Shl, lit(1, i32_), lit(31, i32_)), &Values::default()),
            Some(i128::from(i32::MIN))
        );
        assert_eq!(folded(&bin(BinOp::Shl, lit(1, u8_), lit(8, u8_)), &Values::default()), None);
        assert_eq!(folded(&bin(BinOp::Shr, neg(lit(8, i32_)), lit(1, i32_)), &Values::default()), Some(-4));
    }

    #[test]
    fn vectors_the_snippet_owns_are_in_the_subset_and_their_moves_are_checked() {
        let vec_ty = Ty::Vec(Elem::Scalar(Scalar::I64));
        let lit_vec = TExpr { kind: TKind::VecLit(vec![lit(1, Scalar::I64)]), ty: vec_ty.clone(), range: 0..9 };
        let facts = || HostFacts {
            raises_lints: false,
            hole_type_matches: true,
            opaque_bindings: vec![],
            binding_values: vec![],
        };
        let mut s = snippet(vec![], lit_vec.clone(), vec![]);
        s.owns_buffers = true;
        let lowered = lower(s, &[]).expect("a vector of scalars is in the subset");
        assert_eq!(accept_without_rustc(&lowered, facts()), Ok(()));
        // `let v = vec![1]; let w = v; v`: a use after a move is rustc's E0382.
        let read_v = TExpr { kind: TKind::Local(LocalRef::Snippet(0)), ty: vec_ty.clone(), range: 20..21 };
        let stmts =
            vec![TStmt::Let { local: 0, init: Some(lit_vec) }, TStmt::Let { local: 1, init: Some(read_v.clone()) }];
        let locals = vec![
            TLocal { name: "v".into(), ty: vec_ty.clone(), mutable: false, fixed_type: false, array_literal: false },
            TLocal { name: "w".into(), ty: vec_ty.clone(), mutable: false, fixed_type: false, array_literal: false },
        ];
        let mut s = snippet(stmts, read_v, locals);
        s.owns_buffers = true;
        let lowered = lower(s, &[]).expect("moves are in the subset");
        let why = accept_without_rustc(&lowered, facts()).unwrap_err();
        assert!(why.contains("`v` used where it may have been moved"), "{why}");
        // Elements of another type than the vector's are not.
        let mixed = TExpr { kind: TKind::VecLit(vec![lit(1, Scalar::I32)]), ty: vec_ty, range: 0..9 };
        assert!(lower(snippet(vec![], mixed, vec![]), &[]).is_err());
    }
}
