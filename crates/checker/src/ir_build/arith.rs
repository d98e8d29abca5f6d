//! Operators: arithmetic, comparisons, logic and assignments.

use crate::ir_build::arith;
use ra_ap_hir::PathResolution;
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{BinOp, Place, Scalar, TExpr, TKind, TextMethod, Ty};
use ra_ap_syntax::ast;
use std::ops::Range;

impl<'a, 'db> Builder<'a, 'db> {
    /// A binary operator: arithmetic, comparison, logic, assignment.
    pub(super) fn bin_expr(
        &mut self,
        expr: &ast::Expr,
        b: &ast::BinExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let (Some(lhs), Some(rhs), Some(op)) = (b.lhs(), b.rhs(), b.op_kind()) else {
                return self.unsupported("an operator", expr.syntax());
            };
            let at = b.op_token().map_or(range.start, |t| self.token_at(&t));
            match op {
                ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated }) => {
                    if let Some(kind) =
                        self.text_comparison(if negated { TextMethod::Ne } else { TextMethod::Eq }, &lhs, &rhs)?
                    {
                        return Ok(TExpr { kind, ty, range });
                    }
                    if let Some(kind) = self.unit_variant_comparison(b, negated)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                    if let Some(kind) = self.struct_comparison(b, negated)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                    if let Some(kind) = self.option_comparison(b, negated)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                ast::BinaryOp::CmpOp(ast::CmpOp::Ord { ordering, strict }) => {
                    if let Some(kind) = self.unit_variant_ordering(b, ordering, strict)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                    if let Some(kind) = self.struct_ordering(b, ordering, strict)? {
                        return Ok(TExpr { kind, ty, range });
                    }
                }
                ast::BinaryOp::ArithOp(ast::ArithOp::Add) if ty == Ty::String => {
                    let left = Box::new(self.expr(&lhs)?);
                    let right = Box::new(self.text_operand(&rhs)?);
                    return Ok(TExpr { kind: TKind::Concat { left, right, at }, ty, range });
                }
                ast::BinaryOp::Assignment { op: Some(ast::ArithOp::Add) } => {
                    if let Some(seq) = self.text_seq(&lhs) {
                        let value = Box::new(self.text_operand(&rhs)?);
                        return Ok(TExpr { kind: TKind::StringPush { seq, value, at }, ty, range });
                    }
                }
                _ => {}
            }
            match op {
                ast::BinaryOp::Assignment { op } => {
                    if let ast::Expr::IndexExpr(ix) = &lhs {
                        let (Some(base), Some(index)) = (ix.base(), ix.index()) else {
                            return self.unsupported("an index expression", expr.syntax());
                        };
                        let Some(seq) = self.sequence(&base) else {
                            return self.unsupported("assignment into something other than a sequence", expr.syntax());
                        };
                        let index = self.expr(&index)?;
                        if index.s() != Scalar::Usize {
                            return self.unsupported("an index that is not a `usize`", expr.syntax());
                        }
                        let value = Box::new(self.expr(&rhs)?);
                        // Index faults at the `[` for a `Vec` (`IndexMut::index_mut`), at the place for a slice
                        // or an array.
                        let index_at = match (self.builtin_index(&seq, ix.syntax()), ix.l_brack_token()) {
                            (true, _) | (_, None) => self.range(lhs.syntax()).start,
                            (false, Some(b)) => self.token_at(&b),
                        };
                        let index = Box::new(index);
                        TKind::SeqStore { seq, index_at, index, part: None, op: op.map(arith), value }
                    } else if let Some((seq, index, index_at, part)) = match &lhs {
                        ast::Expr::FieldExpr(f) => self.tuple_part_place(f)?,
                        _ => None,
                    } {
                        // `v[i].1 += 1`, `x.1 += 1` of `for x in v.iter_mut()` over tuples: Rust evaluates the
                        // value, then the place.
                        let value = Box::new(self.expr(&rhs)?);
                        let index = Box::new(index);
                        TKind::SeqStore { seq, index_at, index, part: Some(part), op: op.map(arith), value }
                    } else if let ast::Expr::FieldExpr(f) = &lhs {
                        let place = match (self.host_field(f), self.elem_field(f)) {
                            (Some(i), _) => Place::HostField(i),
                            (None, Some(i)) => Place::ElemField(i),
                            (None, None) => {
                                return self.unsupported("assignment to a field of a struct", expr.syntax());
                            }
                        };
                        let value = Box::new(self.expr(&rhs)?);
                        TKind::Assign { place, op: op.map(arith), value }
                    } else if let Some((seq, index)) = match &lhs {
                        ast::Expr::PrefixExpr(d) if d.op_kind() == Some(ast::UnaryOp::Deref) => {
                            d.expr().and_then(|inner| self.elem_ref(&inner))
                        }
                        _ => None,
                    } {
                        // `*x = ..` / `*x op= ..` of `for x in v.iter_mut()`: the element at the loop's index
                        // (always in bounds: nothing but `x` reaches `v` while the loop runs).
                        let value = Box::new(self.expr(&rhs)?);
                        let index_at = self.range(lhs.syntax()).start;
                        let index = Box::new(self.index_local(index, self.range(lhs.syntax())));
                        TKind::SeqStore { seq, index_at, index, part: None, op: op.map(arith), value }
                    } else if let Some((map, key)) = match &lhs {
                        ast::Expr::PrefixExpr(d) if d.op_kind() == Some(ast::UnaryOp::Deref) => {
                            d.expr().and_then(|inner| self.map_slot(&inner, &self.range(lhs.syntax())))
                        }
                        _ => None,
                    } {
                        // `*e = ..` / `*e op= ..` of `let e = m.entry(k)..`: the key is there (the `let` made
                        // sure), so this changes its value in place.
                        let value = Box::new(self.expr(&rhs)?);
                        TKind::MapUpdate { map, key: Box::new(key), default: None, op: op.map(arith), value }
                    } else if let Some((map, key, default)) = match &lhs {
                        ast::Expr::PrefixExpr(d) if d.op_kind() == Some(ast::UnaryOp::Deref) => {
                            d.expr().map(|inner| self.map_entry(&inner)).transpose()?.flatten()
                        }
                        _ => None,
                    } {
                        // Primitive operands: the value is evaluated before the place.
                        let value = Box::new(self.expr(&rhs)?);
                        TKind::MapUpdate {
                            map,
                            key: Box::new(key),
                            default: default.map(Box::new),
                            op: op.map(arith),
                            value,
                        }
                    } else if let ast::Expr::PrefixExpr(deref) = &lhs {
                        let target = match deref.op_kind() {
                            Some(ast::UnaryOp::Deref) => deref.expr().and_then(|r| self.scalar_reference(&r)),
                            _ => None,
                        };
                        let Some((binding, _, true)) = target else {
                            return self.unsupported("assignment through something other than a `&mut`", expr.syntax());
                        };
                        let value = Box::new(self.expr(&rhs)?);
                        TKind::Assign { place: Place::Deref(binding), op: op.map(arith), value }
                    } else {
                        let ast::Expr::PathExpr(place) = &lhs else {
                            return self.unsupported("assignment to something other than a local", expr.syntax());
                        };
                        let Some(PathResolution::Local(local)) = place.path().and_then(|p| self.sema.resolve_path(&p))
                        else {
                            return self.unsupported("assignment to something other than a local", expr.syntax());
                        };
                        if op.is_none() {
                            if let Some(binding) = self.whole_binding(&lhs) {
                                let value = Box::new(self.expr(&rhs)?);
                                return Ok(TExpr {
                                    kind: TKind::Assign { place: Place::WholeBinding(binding), op: None, value },
                                    ty,
                                    range,
                                });
                            }
                        }
                        let place = self.local_ref(local, lhs.syntax())?;
                        let value = Box::new(self.expr(&rhs)?);
                        TKind::Assign { place: Place::Local(place), op: op.map(arith), value }
                    }
                }
                other => {
                    let op = match other {
                        ast::BinaryOp::ArithOp(a) => arith(a),
                        ast::BinaryOp::LogicOp(ast::LogicOp::And) => BinOp::And,
                        ast::BinaryOp::LogicOp(ast::LogicOp::Or) => BinOp::Or,
                        ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: false }) => BinOp::Eq,
                        ast::BinaryOp::CmpOp(ast::CmpOp::Eq { negated: true }) => BinOp::Ne,
                        ast::BinaryOp::CmpOp(ast::CmpOp::Ord { ordering, strict }) => match (ordering, strict) {
                            (ast::Ordering::Less, true) => BinOp::Lt,
                            (ast::Ordering::Less, false) => BinOp::Le,
                            (ast::Ordering::Greater, true) => BinOp::Gt,
                            (ast::Ordering::Greater, false) => BinOp::Ge,
                        },
                        ast::BinaryOp::Assignment { .. } => unreachable!("handled above"),
                    };
                    let (l, r) = (self.expr(&lhs)?, self.expr(&rhs)?);
                    TKind::Binary(op, Box::new(l), Box::new(r))
                }
            }
        };
        Ok(TExpr { kind, ty, range })
    }
}
