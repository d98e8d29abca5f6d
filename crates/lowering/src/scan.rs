//! Facts about IR trees that both the subset check and the acceptance use.

use lacuna_ir::{
    BinOp, Child, IterChain, IterSource, Lit, Receiver, SeqMethod, Sink, Stage, TBlock, TExpr, TKind, TextMethod, UnOp,
};

/// Whether evaluating `e` may fault (conservatively: only what plainly cannot — reads, comparisons, logic, casts,
/// float arithmetic, integer division by a literal other than 0 and -1 — is fault-free).
pub fn may_fault(e: &TExpr) -> bool {
    let here = match &e.kind {
        TKind::Lit(_)
        | TKind::Local(_)
        | TKind::RefField { .. }
        | TKind::OptionField { .. }
        | TKind::OptionRef(_)
        | TKind::Field(..)
        | TKind::Cast(_)
        | TKind::TextOf(_)
        | TKind::SliceOf { .. } => false,
        TKind::Unary(UnOp::Not, _) => false,
        // A sequence's length and emptiness are read, never computed.
        TKind::SeqLen(_) | TKind::SeqMethod { name: SeqMethod::IsEmpty, .. } => false,
        TKind::Unary(UnOp::Neg, x) => !x.s().is_float(),
        TKind::Binary(op, l, r) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::Shr => !l.s().is_float(),
            BinOp::Div | BinOp::Rem => {
                let safe_divisor = matches!(r.kind, TKind::Lit(Lit::Int(n)) if n >= 1);
                !l.s().is_float() && !safe_divisor
            }
            _ => false,
        },
        TKind::TextMethod { name, .. } => {
            use TextMethod::*;
            !matches!(name, Len | IsEmpty | Contains | StartsWith | EndsWith | Eq | Ne | StripPrefix | StripSuffix)
        }
        TKind::Block(b) => !b.stmts.is_empty() || b.label.is_some(),
        TKind::If { .. } => false,
        _ => true,
    };
    here || children_any(e, may_fault)
}

/// Whether a closure of the iterator chain `e` assigns a variable or calls a `&mut self` method.
pub(crate) fn closures_write(e: &TExpr) -> bool {
    fn writes(e: &TExpr) -> bool {
        let here = match &e.kind {
            TKind::Assign { .. }
            | TKind::SeqStore { .. }
            | TKind::StringPush { .. }
            | TKind::SeqWithClosure { .. }
            | TKind::SortBy { .. } => true,
            TKind::HostCall { receiver: Some(Receiver::Binding(r)), .. } => r.mutable,
            TKind::SeqMethod { name, .. } => name.mutates(),
            _ => false,
        };
        here || children_any(e, writes)
    }
    let (chain, sink) = match &e.kind {
        TKind::Consume { chain, sink } => (chain, Some(sink)),
        TKind::ForIter { chain, .. } => (chain, None),
        _ => return false,
    };
    // (A `flat_map`'s inner chains are not looked into: counted as writing.)
    if chain.stages.iter().any(|(s, _)| matches!(s, Stage::FlatMap(_))) {
        return true;
    }
    let stage_closures = chain.stages.iter().filter_map(|(stage, _)| match stage {
        Stage::Map(c) | Stage::Filter(c) | Stage::FilterMap(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => Some(c),
        _ => None,
    });
    let sink_closures: Vec<&lacuna_ir::Closure> = match sink {
        Some(
            Sink::Any(c)
            | Sink::All(c)
            | Sink::Position(c)
            | Sink::Find(c)
            | Sink::MaxByKey(c)
            | Sink::MinByKey(c)
            | Sink::Fold { closure: c, .. },
        ) => vec![c],
        Some(Sink::MaxBy(keys) | Sink::MinBy(keys)) => keys.iter().map(|k| &k.key).collect(),
        _ => Vec::new(),
    };
    stage_closures.chain(sink_closures).any(|c| writes(&c.body))
}

/// Whether `f` holds for an expression inside `e` (not `e` itself).
pub(crate) fn children_any(e: &TExpr, f: fn(&TExpr) -> bool) -> bool {
    let mut found = false;
    e.each_child(&mut |c| {
        found |= match c {
            Child::Expr(c) => f(c),
            Child::Block(b) => block_any(b, f),
        }
    });
    found
}

/// Whether `f` holds for an expression inside `b`.
pub(crate) fn block_any(b: &TBlock, f: fn(&TExpr) -> bool) -> bool {
    let mut found = false;
    b.each_child(&mut |c| {
        found |= match c {
            Child::Expr(c) => f(c),
            Child::Block(b) => block_any(b, f),
        }
    });
    found
}

/// Whether an iterator reads two sequences (through `zip` or `chain`).
pub(crate) fn reads_two_sequences(chain: &IterChain) -> bool {
    fn sequences(source: &IterSource) -> usize {
        match source {
            IterSource::Seq(_) => 1,
            IterSource::Chain { first, second, .. } => sequences(first) + sequences(second),
            _ => 0,
        }
    }
    let zipped = chain.stages.iter().map(|(stage, _)| match stage {
        Stage::Zip(other) => sequences(other),
        Stage::FlatMap(fm) => sequences(&fm.inner.source) + 1,
        _ => 0,
    });
    sequences(&chain.source) + zipped.sum::<usize>() > 1
}
