//! Comparisons written as closures (`sort_by(|a, b| ..)`): read as the keys they compare ([`SortKey`]).

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Closure, KeyOrder, SortKey, Ty};

/// How the keys a comparison chain joins are evaluated: every time (`then(..)`'s argument), or only when the
/// comparisons before it found the sides equal (`then_with(|| ..)`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Eager {
    Always,
    OnTies,
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `|a, b| CMP` where `CMP` compares one expression of `a` with the same expression of `b` (or the other way
    /// round, descending): `x.cmp(&y)` by `Ord`, `x.total_cmp(&y)` of floats, `x.partial_cmp(&y).unwrap()` (or
    /// `.expect("..")`), chained by `then(CMP)` and `then_with(|| CMP)`, any of them `.reverse()`d.
    pub(super) fn comparison(&mut self, arg: &ast::Expr) -> Result<Vec<SortKey>> {
        let unsupported = |b: &Self| b.unsupported("a comparison other than keys of each side compared", arg.syntax());
        let ast::Expr::ClosureExpr(c) = arg else { return unsupported(self) };
        let params: Vec<ast::Param> = c.param_list().into_iter().flat_map(|l| l.params()).collect();
        let [Some(ast::Pat::IdentPat(a)), Some(ast::Pat::IdentPat(b))] =
            [params[..].first(), params[..].get(1)].map(|p| p.and_then(|p| p.pat()))
        else {
            return unsupported(self);
        };
        let (Some(body), 2) = (c.body(), params.len()) else { return unsupported(self) };
        let mut keys = Vec::new();
        let mut partial_keys = 0;
        self.comparison_chain(&body, (&a, &b), false, Eager::Always, &mut keys, &mut partial_keys)?;
        // With NaNs under two `unwrap`s, which panics first depends on the order std's sort compares in.
        if partial_keys > 1 {
            return self.unsupported("a comparison that unwraps `partial_cmp` twice", arg.syntax());
        }
        Ok(keys)
    }

    fn comparison_chain(
        &mut self,
        e: &ast::Expr,
        params: (&ast::IdentPat, &ast::IdentPat),
        reversed: bool,
        eager: Eager,
        keys: &mut Vec<SortKey>,
        partial_keys: &mut usize,
    ) -> Result<()> {
        let unsupported = |b: &Self| b.unsupported("a comparison other than keys of each side compared", e.syntax());
        let e = match e {
            ast::Expr::ParenExpr(p) => p.expr(),
            ast::Expr::BlockExpr(b) if b.stmt_list().is_some_and(|l| l.statements().next().is_none()) => {
                b.stmt_list().and_then(|l| l.tail_expr())
            }
            _ => Some(e.clone()),
        };
        let Some(ast::Expr::MethodCallExpr(m)) = e else { return unsupported(self) };
        let name = m.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
        let args: Vec<ast::Expr> = m.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let Some(receiver) = m.receiver() else { return unsupported(self) };
        // `cmp` and `partial_cmp` of `core`'s traits (a `String`'s impl is `alloc`'s); the rest `core`'s own.
        let resolved = self.sema.resolve_method_call(&m);
        let known = resolved.is_some_and(|f| match name.as_str() {
            "cmp" => self.core_trait_of(f).as_deref() == Some("Ord"),
            _ => self.fn_crate(f).as_deref() == Some("core"),
        });
        if !known {
            return unsupported(self);
        }
        match (name.as_str(), args.as_slice()) {
            ("reverse", []) => self.comparison_chain(&receiver, params, !reversed, eager, keys, partial_keys),
            ("then", [next]) => {
                self.comparison_chain(&receiver, params, reversed, eager, keys, partial_keys)?;
                self.comparison_chain(next, params, reversed, eager, keys, partial_keys)
            }
            ("then_with", [ast::Expr::ClosureExpr(next)]) => {
                let (Some(body), true) = (next.body(), next.param_list().is_none_or(|l| l.params().next().is_none()))
                else {
                    return unsupported(self);
                };
                self.comparison_chain(&receiver, params, reversed, eager, keys, partial_keys)?;
                self.comparison_chain(&body, params, reversed, Eager::OnTies, keys, partial_keys)
            }
            ("unwrap" | "expect", _) => {
                let message = match args.as_slice() {
                    [] => "called `Option::unwrap()` on a `None` value".to_owned(),
                    [ast::Expr::Literal(lit)] => {
                        let tokens = lit.syntax().descendants_with_tokens().filter_map(|t| t.into_token());
                        match Self::plain_message(tokens) {
                            Some(message) => message,
                            None => return unsupported(self),
                        }
                    }
                    _ => return unsupported(self),
                };
                let ast::Expr::MethodCallExpr(inner) = &receiver else { return unsupported(self) };
                let partial_cmp = inner.name_ref().is_some_and(|n| n.text() == "partial_cmp")
                    && self.sema.resolve_method_call(inner).and_then(|f| self.core_trait_of(f)).as_deref()
                        == Some("PartialOrd");
                if !partial_cmp {
                    return unsupported(self);
                }
                // A NaN's panic is exact only where every comparison evaluates this key.
                if eager == Eager::OnTies {
                    return self.unsupported("`partial_cmp(..).unwrap()` inside `then_with`", m.syntax());
                }
                *partial_keys += 1;
                let at = m.name_ref().map_or(0, |n| self.range(n.syntax()).start);
                let order = KeyOrder::Partial { message, at };
                self.compared_key(inner, params, reversed, order, keys)
            }
            ("cmp" | "total_cmp", [_]) => {
                let order = if name == "cmp" { KeyOrder::Ord } else { KeyOrder::Total };
                self.compared_key(&m, params, reversed, order, keys)
            }
            _ => unsupported(self),
        }
    }

    /// `x.cmp(&y)` (or `total_cmp`, `partial_cmp`) where `x` and `y` are the same expression of the two
    /// parameters: the key, ascending when `x` is of the first.
    fn compared_key(
        &mut self,
        cmp: &ast::MethodCallExpr,
        (a, b): (&ast::IdentPat, &ast::IdentPat),
        reversed: bool,
        order: KeyOrder,
        keys: &mut Vec<SortKey>,
    ) -> Result<()> {
        let unsupported = |b: &Self| b.unsupported("a comparison other than keys of each side compared", cmp.syntax());
        let args: Vec<ast::Expr> = cmp.arg_list().into_iter().flat_map(|l| l.args()).collect();
        let (Some(left), [right]) = (cmp.receiver(), args.as_slice()) else { return unsupported(self) };
        let right = match right {
            ast::Expr::RefExpr(r) if r.mut_token().is_none() => r.expr().unwrap_or_else(|| right.clone()),
            other => other.clone(),
        };
        let (Some(a_name), Some(b_name)) = (a.name(), b.name()) else { return unsupported(self) };
        let (a_name, b_name) = (a_name.text().to_string(), b_name.text().to_string());
        // The two sides are the same tokens but for the parameter: `a.x` and `b.x` (ascending), or the other way
        // round (descending).
        let tokens = |e: &ast::Expr, from: &str, to: &str| -> Vec<String> {
            e.syntax()
                .descendants_with_tokens()
                .filter_map(|t| t.into_token())
                .filter(|t| !t.kind().is_trivia())
                .map(|t| if t.text() == from { to.to_owned() } else { t.text().to_string() })
                .collect()
        };
        let mentions = |e: &ast::Expr, name: &str| tokens(e, "", "").iter().any(|t| t == name);
        let (param, descending) = if !mentions(&left, &b_name)
            && !mentions(&right, &a_name)
            && tokens(&left, &a_name, &b_name) == tokens(&right, "", "")
        {
            (a, false)
        } else if !mentions(&left, &a_name)
            && !mentions(&right, &b_name)
            && tokens(&left, &b_name, &a_name) == tokens(&right, "", "")
        {
            (b, true)
        } else {
            return unsupported(self);
        };
        let param = self.pat(&ast::Pat::IdentPat(param.clone()))?;
        // Text is compared where it is (a `String` field or element read in place).
        let body = Box::new(match self.expr_type(&left)? {
            Ty::String | Ty::Str => self.text_operand(&left)?,
            _ => self.expr(&left)?,
        });
        // `partial_cmp` of anything but floats is never `None`: it orders as `cmp`.
        let float = body.ty.scalar().is_some_and(|s| s.is_float());
        let order = match order {
            KeyOrder::Partial { .. } if !float => KeyOrder::Ord,
            order => order,
        };
        keys.push(SortKey { key: Closure { params: vec![param], body }, descending: descending != reversed, order });
        Ok(())
    }
}
