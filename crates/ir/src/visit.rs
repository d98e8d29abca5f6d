//! The direct parts of expressions, blocks and chains, in evaluation order.

use crate::{FmtPiece, IterChain, ParseThen, Sink, Stage, TBlock, TExpr, TKind, TStmt};

/// A direct part of an expression.
pub enum Child<'a> {
    Expr(&'a TExpr),
    Block(&'a TBlock),
}

impl IterChain {
    /// Calls `f` for the source's bounds and each adaptor's argument or closure body, in order.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        self.source.each_child(f);
        for (stage, _) in &self.stages {
            match stage {
                Stage::Map(c) | Stage::Filter(c) | Stage::FilterMap(c) | Stage::TakeWhile(c) | Stage::SkipWhile(c) => {
                    f(Child::Expr(&c.body))
                }
                Stage::Take(n) | Stage::Skip(n) => f(Child::Expr(n)),
                Stage::Zip(other) => other.each_child(f),
                Stage::FlatMap(fm) => fm.inner.each_child(f),
                Stage::Enumerate | Stage::Rev => {}
            }
        }
    }
}

impl TBlock {
    /// Calls `f` for each direct part: the statements' expressions and `let .. else` blocks, then the tail.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        for stmt in &self.stmts {
            match stmt {
                TStmt::Let { init, .. } => {
                    if let Some(init) = init {
                        f(Child::Expr(init));
                    }
                }
                TStmt::LetPat { init, otherwise, .. } => {
                    f(Child::Expr(init));
                    if let Some(b) = otherwise {
                        f(Child::Block(b));
                    }
                }
                TStmt::Expr(e) => f(Child::Expr(e)),
            }
        }
        if let Some(t) = &self.tail {
            f(Child::Expr(t));
        }
    }
}

impl TExpr {
    /// Calls `f` for each direct sub-expression and sub-block.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(Child<'a>)) {
        match &self.kind {
            TKind::Lit(_)
            | TKind::Local(_)
            | TKind::Deref(_)
            | TKind::AddrOf { .. }
            | TKind::HostField(_)
            | TKind::Continue { .. }
            | TKind::UnitVariant { .. }
            | TKind::SeqClone(_) => {}
            TKind::Unary(_, x)
            | TKind::Cast(x)
            | TKind::RefField { base: x, .. }
            | TKind::OptionField { base: x, .. }
            | TKind::OptionRef(x)
            | TKind::StructClone(x) => f(Child::Expr(x)),
            TKind::Binary(_, l, r)
            | TKind::StructEq { left: l, right: r, .. }
            | TKind::StructOrd { left: l, right: r, .. } => {
                f(Child::Expr(l));
                f(Child::Expr(r));
            }
            TKind::Assign { value, .. } => f(Child::Expr(value)),
            TKind::MemReplace { value, .. } => value.iter().for_each(|v| f(Child::Expr(v))),
            TKind::PanicFormatted(message) => f(Child::Expr(message)),
            TKind::Block(b) => f(Child::Block(b)),
            TKind::If { cond, then, otherwise } => {
                f(Child::Expr(cond));
                f(Child::Block(then));
                if let Some(o) = otherwise {
                    f(Child::Expr(o));
                }
            }
            TKind::While { cond, body, .. } => {
                f(Child::Expr(cond));
                f(Child::Block(body));
            }
            TKind::Loop { body, .. } => f(Child::Block(body)),
            TKind::For { start, end, body, .. } => {
                f(Child::Expr(start));
                f(Child::Expr(end));
                f(Child::Block(body));
            }
            TKind::ForSeq { body, .. } => f(Child::Block(body)),
            TKind::Break { value, .. } | TKind::Return(value) => {
                if let Some(v) = value {
                    f(Child::Expr(v));
                }
            }
            TKind::Call { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::HostCall { receiver, args, .. } => {
                if let Some(crate::Receiver::InPlace(this)) = receiver {
                    f(Child::Expr(this));
                }
                args.iter().for_each(|a| f(Child::Expr(a)));
            }
            TKind::UnwrapFailed { payload, .. } => f(Child::Expr(payload)),
            TKind::Atomic { value, .. } => {
                if let Some(v) = value {
                    f(Child::Expr(v));
                }
            }
            TKind::StructLit { fields, base, .. } => {
                fields.iter().for_each(|(_, v)| f(Child::Expr(v)));
                if let Some(b) = base {
                    f(Child::Expr(b));
                }
            }
            TKind::MapNew | TKind::MapEntries { .. } => {}
            TKind::MapMethod { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::MapPush { key, value, .. } => {
                f(Child::Expr(key));
                f(Child::Expr(value));
            }
            TKind::MapUpdate { key, default, value, .. } => {
                f(Child::Expr(value));
                f(Child::Expr(key));
                if let Some(d) = default {
                    f(Child::Expr(d));
                }
            }
            TKind::SeqLen(_) | TKind::SeqSum(_) => {}
            TKind::SeqMethod { args, .. } => args.iter().for_each(|a| f(Child::Expr(a))),
            TKind::SeqWithClosure { closure, .. } => f(Child::Expr(&closure.body)),
            TKind::SortBy { keys, .. } => keys.iter().for_each(|k| f(Child::Expr(&k.key.body))),
            TKind::SeqIndex { index, .. } => f(Child::Expr(index)),
            TKind::SeqStore { index, value, .. } => {
                f(Child::Expr(index));
                f(Child::Expr(value));
            }
            TKind::Method { receiver, args, .. } => {
                f(Child::Expr(receiver));
                args.iter().for_each(|a| f(Child::Expr(a)));
            }
            TKind::Some(x) | TKind::ResultOf { value: x, .. } | TKind::Field(x, _) => f(Child::Expr(x)),
            TKind::None => {}
            TKind::Tuple(xs) | TKind::VecLit(xs) => xs.iter().for_each(|x| f(Child::Expr(x))),
            TKind::TextOf(_) | TKind::SliceOf { .. } => {}
            TKind::SubSlice { start, end, .. } => {
                start.iter().chain(end.iter()).for_each(|x| f(Child::Expr(x)));
            }
            TKind::VecRepeat { value, count } => {
                f(Child::Expr(value));
                f(Child::Expr(count));
            }
            TKind::TextMethod { receiver, args, .. } => {
                f(Child::Expr(receiver));
                args.iter().for_each(|a| f(Child::Expr(a)));
            }
            TKind::StringPush { value, .. } => f(Child::Expr(value)),
            TKind::TryConvert { value: text, then, .. } | TKind::Parse { text, then, .. } => {
                f(Child::Expr(text));
                if let ParseThen::UnwrapOr(v) = then {
                    f(Child::Expr(v));
                }
            }
            TKind::Concat { left, right, .. } => {
                f(Child::Expr(left));
                f(Child::Expr(right));
            }
            TKind::Format(pieces) | TKind::Print { pieces, .. } => {
                for p in pieces {
                    if let FmtPiece::Arg { value, .. } = p {
                        f(Child::Expr(value));
                    }
                }
            }
            TKind::Match { scrutinee, arms } => {
                f(Child::Expr(scrutinee));
                for arm in arms {
                    if let Some(g) = &arm.guard {
                        f(Child::Expr(g));
                    }
                    f(Child::Expr(&arm.body));
                }
            }
            TKind::OptionClosure { receiver, body, .. } => {
                f(Child::Expr(receiver));
                f(Child::Expr(body));
            }
            TKind::Panic { receiver, .. } => {
                if let Some(r) = receiver {
                    f(Child::Expr(r));
                }
            }
            TKind::Consume { chain, sink } => {
                chain.each_child(f);
                match sink {
                    Sink::Any(c)
                    | Sink::All(c)
                    | Sink::Position(c)
                    | Sink::Find(c)
                    | Sink::MaxByKey(c)
                    | Sink::MinByKey(c) => f(Child::Expr(&c.body)),
                    Sink::MaxBy(keys) | Sink::MinBy(keys) => keys.iter().for_each(|k| f(Child::Expr(&k.key.body))),
                    Sink::Fold { init, closure } => {
                        f(Child::Expr(init));
                        f(Child::Expr(&closure.body));
                    }
                    Sink::Sum { .. }
                    | Sink::Product { .. }
                    | Sink::Count
                    | Sink::Max
                    | Sink::Min
                    | Sink::Last
                    | Sink::Next
                    | Sink::Collect { .. } => {}
                }
            }
            TKind::ForIter { chain, body, .. } => {
                chain.each_child(f);
                f(Child::Block(body));
            }
        }
    }
}
