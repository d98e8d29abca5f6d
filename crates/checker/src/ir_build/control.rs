//! Blocks, statements, `let`, labels and constants.

use ra_ap_hir::AsAssocItem;
use ra_ap_syntax::ast;
use ra_ap_syntax::ast::HasLoopBody;
use ra_ap_syntax::ast::RangeItem;
use ra_ap_syntax::AstNode;

use crate::ir_build::{Builder, Result};
use lacuna_ir::{Arm, Lit, Scalar, TBlock, TExpr, TKind, TLocal, TPat, TStmt, Ty, UnOp};
use std::ops::Range;

impl<'a, 'db> Builder<'a, 'db> {
    /// The snippet's block (the `{ .. }` Lacuna spliced in).
    pub fn block(&mut self, block: &ast::BlockExpr) -> Result<TBlock> {
        if block.modifier().is_some_and(|m| !matches!(m, ast::BlockModifier::Label(_))) {
            return self.unsupported("an async, unsafe, const or try block", block.syntax());
        }
        let label = block.label().and_then(|l| l.lifetime()).map(|l| l.text().to_string());
        let Some(list) = block.stmt_list() else { return Ok(TBlock::default()) };
        let mut stmts = Vec::new();
        self.stmts(list.statements(), &mut stmts)?;
        let tail = match list.tail_expr() {
            Some(e) => Some(Box::new(self.expr(&e)?)),
            None => None,
        };
        let ty = match self.sema.type_of_expr(&ast::Expr::BlockExpr(block.clone())) {
            Some(info) => Some(self.ty(&info.original, block.syntax())?),
            None => None,
        };
        Ok(TBlock { stmts, tail, ty, label })
    }

    /// A list of statements, into `stmts`: functions (and impls' methods) declared first, then each in turn.
    fn stmts(&mut self, list: impl Iterator<Item = ast::Stmt> + Clone, stmts: &mut Vec<TStmt>) -> Result<()> {
        // Functions first, and the methods of the snippet's impls: a call may come before the declaration.
        for stmt in list.clone() {
            match stmt {
                ast::Stmt::Item(ast::Item::Fn(f)) => self.declare_fn(&f)?,
                ast::Stmt::ExprStmt(e) => {
                    if let Some((expansion, _)) = e.expr().and_then(|e| self.snippet_macro_stmts(&e)) {
                        for f in expansion.statements().filter_map(|s| match s {
                            ast::Stmt::Item(ast::Item::Fn(f)) => Some(f),
                            _ => None,
                        }) {
                            self.declare_fn(&f)?;
                        }
                    }
                }
                ast::Stmt::Item(ast::Item::Impl(imp)) => {
                    for f in self.impl_fns(&imp)? {
                        self.declare_fn(&f)?;
                    }
                }
                _ => {}
            }
        }
        for stmt in list {
            // What `move` closures in the statement copy and no expression of it placed (`let f = move || ..;`):
            // copied before it.
            let (moves, at) = (self.move_copies.len(), stmts.len());
            let syntax = stmt.syntax().clone();
            self.stmt(stmt, stmts)?;
            let copies = self.place_move_copies(moves, &syntax)?;
            stmts.splice(at..at, copies);
        }
        Ok(())
    }

    /// One statement, into `stmts`.
    fn stmt(&mut self, stmt: ast::Stmt, stmts: &mut Vec<TStmt>) -> Result<()> {
        match stmt {
            ast::Stmt::LetStmt(let_stmt) => match self.map_slot_let(&let_stmt)? {
                Some(slot) => stmts.extend(slot),
                // A reborrow of a binding under another name: nothing to run.
                None if self.reborrow_let(&let_stmt) => {}
                None => stmts.push(self.let_stmt(&let_stmt)?),
            },
            ast::Stmt::ExprStmt(e) => match e.expr().map(|expr| (self.snippet_macro_stmts(&expr), expr)) {
                // A macro of the snippet's that expands to statements (`bump!(n, 2);`): them, in place.
                Some((Some((expansion, call)), _)) => {
                    self.snippet_macro_calls.push(call);
                    let built = self.macro_stmts(&expansion, stmts);
                    self.snippet_macro_calls.pop();
                    built?;
                }
                Some((None, expr)) => {
                    let e = self.expr(&expr)?;
                    stmts.push(TStmt::Expr(Self::discarded(e)));
                }
                None => return self.unsupported("an empty statement", e.syntax()),
            },
            ast::Stmt::Item(ast::Item::Fn(f)) => self.define_fn(&f)?,
            // An impl's methods are the snippet's functions (a call resolves to them statically); a trait is
            // only name resolution. Its default methods are never built: a call to one, which rust-analyzer
            // resolves to the trait's own declaration, is outside the subset.
            // Whether they are well-formed (coherence, overlap, object safety, what an impl leaves out, a trait
            // named as a type) is rustc's check, much of which rust-analyzer does not do: rustc decides.
            ast::Stmt::Item(ast::Item::Impl(imp)) => {
                self.rustc_decides("an impl of the snippet's", imp.syntax());
                for f in self.impl_fns(&imp)? {
                    self.define_fn(&f)?;
                }
            }
            ast::Stmt::Item(ast::Item::Trait(t)) => {
                self.rustc_decides("a trait of the snippet's", t.syntax());
                self.snippet_trait(&t)?;
            }
            // A macro is expanded where it is called (`Builder::snippet_macro`). rustc checks its rules where
            // rust-analyzer does not (what may follow an `$x:expr`), so rustc decides.
            ast::Stmt::Item(ast::Item::MacroRules(m)) => {
                self.rustc_decides("a `macro_rules!` of the snippet's", m.syntax());
            }
            // Only name resolution, which rust-analyzer has done.
            ast::Stmt::Item(ast::Item::Use(_)) => {}
            // A constant is computed where it is used; its value is also evaluated here once, as rustc evaluates
            // every constant (so the subset's lint checks see its arithmetic even when it is unused).
            ast::Stmt::Item(ast::Item::Const(c)) => {
                let def = self.sema.to_def(&c);
                match def.map(|d| self.const_body(d)).transpose()?.flatten() {
                    Some(body) => {
                        let value = self.expr(&body)?;
                        self.expanding_consts.pop();
                        stmts.push(TStmt::Expr(value));
                    }
                    None => return self.unsupported("a constant outside the subset", c.syntax()),
                }
            }
            ast::Stmt::Item(item) => return self.unsupported("an item other than a function", item.syntax()),
        }
        Ok(())
    }

    /// The statements a snippet macro's call expands to, and the value it ends with (discarded: the call is a
    /// statement).
    fn macro_stmts(&mut self, expansion: &ast::MacroStmts, stmts: &mut Vec<TStmt>) -> Result<()> {
        self.stmts(expansion.statements(), stmts)?;
        if let Some(tail) = expansion.expr() {
            let e = self.expr(&tail)?;
            stmts.push(TStmt::Expr(Self::discarded(e)));
        }
        Ok(())
    }

    /// A value a statement discards (`tool();`, `let _ = tool();`): a host call's `Result` as a `match` whose one
    /// arm takes nothing, so its payload is dropped where the statement ends, as Rust drops the temporary.
    fn discarded(e: TExpr) -> TExpr {
        if !matches!(e.ty, Ty::Result(..)) {
            return e;
        }
        let range = e.range.clone();
        let unit = Ty::Scalar(Scalar::Unit);
        let body = TExpr { kind: TKind::Lit(Lit::Unit), ty: unit.clone(), range: range.clone() };
        let arms = vec![Arm { pat: TPat::Wild, guard: None, body }];
        TExpr { kind: TKind::Match { scrutinee: Box::new(e), arms }, ty: unit, range }
    }

    pub(super) fn let_stmt(&mut self, stmt: &ast::LetStmt) -> Result<TStmt> {
        let simple = match stmt.pat() {
            Some(ast::Pat::IdentPat(p))
                if stmt.let_else().is_none() && self.sema.resolve_bind_pat_to_const(&p).is_none() =>
            {
                Some(p)
            }
            _ => None,
        };
        // `let f = |x| ..;`: the closure is inlined where `f` is called; a `move` closure reads the copies it takes
        // here, placed before this statement (`Builder::place_move_copies`). Whether its captures' borrows work out
        // is rustc's check.
        if let (Some(pat), Some(ast::Expr::ClosureExpr(c))) = (&simple, stmt.initializer()) {
            if stmt.ty().is_some() {
                return self.unsupported("a typed closure local", stmt.syntax());
            }
            let closure = self.closure_with(&ast::Expr::ClosureExpr(c), None)?;
            let Some(local) = self.sema.to_def(pat) else {
                return self.unsupported("an unresolved binding", pat.syntax());
            };
            self.borrows("a closure kept in a local", stmt.syntax());
            self.closure_locals.insert(local, closure);
            let unit =
                TExpr { kind: TKind::Lit(Lit::Unit), ty: Ty::Scalar(Scalar::Unit), range: self.range(stmt.syntax()) };
            return Ok(TStmt::Expr(unit));
        }
        let Some(pat) = simple else {
            // `let (a, b) = t;`, `let Some(x) = o else { .. };`
            let (Some(pat), Some(init)) = (stmt.pat(), stmt.initializer()) else {
                return self.unsupported("a `let` pattern without a value", stmt.syntax());
            };
            let init = self.expr(&init)?;
            let result = matches!(init.ty, Ty::Result(..));
            if result && matches!(pat, ast::Pat::WildcardPat(_)) && stmt.let_else().is_none() && stmt.ty().is_none() {
                return Ok(TStmt::Expr(Self::discarded(init)));
            }
            for ident in pat.syntax().descendants().filter_map(ast::IdentPat::cast) {
                self.note_reference_local(&ident);
            }
            let pat = self.pat(&pat)?;
            let otherwise = match stmt.let_else() {
                Some(e) => match e.block_expr() {
                    Some(b) => Some(self.block(&b)?),
                    None => return self.unsupported("`let .. else`", stmt.syntax()),
                },
                None => None,
            };
            return Ok(TStmt::LetPat { pat, init, otherwise });
        };
        // `let counts = [0; 26];`: an array the snippet names, held as a vector (`Builder::named_array`).
        if let (Some(init), None) = (stmt.initializer(), stmt.let_else()) {
            if let Some(stmt) = self.named_array(&pat, &init)? {
                self.note_reference_local(&pat);
                return Ok(stmt);
            }
        }
        let init = match stmt.initializer() {
            Some(init) => Some(self.expr(&init)?),
            None => None,
        };
        let local = self.declare_local(&pat)?;
        self.note_reference_local(&pat);
        let suffixed = |e: &ast::Expr| match e {
            ast::Expr::Literal(l) => match l.kind() {
                ast::LiteralKind::IntNumber(n) => n.suffix().is_some(),
                ast::LiteralKind::FloatNumber(f) => f.suffix().is_some(),
                _ => false,
            },
            _ => false,
        };
        self.locals[local].fixed_type = stmt.ty().is_some() || stmt.initializer().is_some_and(|e| suffixed(&e));
        Ok(TStmt::Let { local, init })
    }

    pub(super) fn label(l: Option<ast::Lifetime>) -> Option<String> {
        l.map(|l| l.text().to_string())
    }

    /// `MAX`, `MIN` and `BITS` of a primitive integer type, as literals of the expression's type.
    /// The body of a constant declared in the host file or the snippet whose value is plain arithmetic: literals,
    /// operators, casts, parentheses and other such constants. Pushes `c` on `expanding_consts` (the caller pops it
    /// after building the body); a constant that refers to itself is outside the subset.
    pub(super) fn const_body(&mut self, c: ra_ap_hir::Const) -> Result<Option<ast::Expr>> {
        let Some(source) = self.sema.source(c) else { return Ok(None) };
        if c.as_assoc_item(self.db).is_some() || source.file_id.macro_file().is_some() {
            return Ok(None);
        }
        let Some(body) = source.value.body() else { return Ok(None) };
        if self.expanding_consts.contains(&c) {
            return self.unsupported("a constant defined by itself", body.syntax());
        }
        let plain = body.syntax().descendants().all(|n| {
            ast::Expr::cast(n.clone()).is_none_or(|e| {
                matches!(
                    e,
                    ast::Expr::Literal(_)
                        | ast::Expr::BinExpr(_)
                        | ast::Expr::PrefixExpr(_)
                        | ast::Expr::CastExpr(_)
                        | ast::Expr::ParenExpr(_)
                        | ast::Expr::PathExpr(_)
                )
            })
        });
        if !plain {
            return Ok(None);
        }
        self.expanding_consts.push(c);
        Ok(Some(body))
    }

    pub(super) fn primitive_const(&self, c: ra_ap_hir::Const, ty: &Ty) -> Option<TKind> {
        let ra_ap_hir::AssocItemContainer::Impl(imp) = c.as_assoc_item(self.db)?.container(self.db) else {
            return None;
        };
        let owner = imp.self_ty(self.db).as_builtin().and_then(|b| Scalar::from_name(b.name().as_str()))?;
        let name = c.name(self.db)?;
        if owner.is_float() {
            // `f64::INFINITY`, `f32::MAX`, ..: the value as the literal's `f64` (exact for both types).
            let wide = owner == Scalar::F64;
            let value = match name.as_str() {
                "INFINITY" => f64::INFINITY,
                "NEG_INFINITY" => f64::NEG_INFINITY,
                "NAN" => f64::NAN,
                "MAX" if wide => f64::MAX,
                "MIN" if wide => f64::MIN,
                "EPSILON" if wide => f64::EPSILON,
                "MIN_POSITIVE" if wide => f64::MIN_POSITIVE,
                "MAX" => f64::from(f32::MAX),
                "MIN" => f64::from(f32::MIN),
                "EPSILON" => f64::from(f32::EPSILON),
                "MIN_POSITIVE" => f64::from(f32::MIN_POSITIVE),
                _ => return None,
            };
            return (ty == &Ty::Scalar(owner)).then_some(TKind::Lit(Lit::Float(value)));
        }
        let bits = owner.int_bits().filter(|b| *b <= 64)?;
        let lit = |v: u128| TKind::Lit(Lit::Int(v));
        Some(match (name.as_str(), owner.is_signed()) {
            ("BITS", _) if ty == &Ty::Scalar(Scalar::U32) => lit(u128::from(bits)),
            ("MAX", true) if ty == &Ty::Scalar(owner) => lit((1u128 << (bits - 1)) - 1),
            ("MAX", false) if ty == &Ty::Scalar(owner) => lit((1u128 << bits) - 1),
            ("MIN", false) if ty == &Ty::Scalar(owner) => lit(0),
            ("MIN", true) if ty == &Ty::Scalar(owner) => {
                TKind::Unary(UnOp::Neg, Box::new(TExpr { kind: lit(1u128 << (bits - 1)), ty: ty.clone(), range: 0..0 }))
            }
            _ => return None,
        })
    }
}

impl<'a, 'db> Builder<'a, 'db> {
    /// `if`, `if let` (a `match`) and `else`.
    pub(super) fn if_expr(&mut self, expr: &ast::Expr, i: &ast::IfExpr, ty: Ty, range: Range<usize>) -> Result<TExpr> {
        let kind = {
            let Some(cond) = i.condition() else { return self.unsupported("`if`", expr.syntax()) };
            let Some(then) = i.then_branch() else { return self.unsupported("`if`", expr.syntax()) };
            if let ast::Expr::LetExpr(l) = &cond {
                // `if let P = e { A } else { B }` is `match e { P => A, _ => B }`.
                let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                    return self.unsupported("`if let`", expr.syntax());
                };
                let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                let scrutinee = Box::new(scrutinee);
                let pat = self.scrutinee_pat(&pat, parse_result)?;
                let then_ty = self.expr_type(&ast::Expr::BlockExpr(then.clone()))?;
                let body =
                    TExpr { ty: then_ty, range: self.range(then.syntax()), kind: TKind::Block(self.block(&then)?) };
                let otherwise = match i.else_branch() {
                    Some(ast::ElseBranch::Block(b)) => TExpr {
                        ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                        range: self.range(b.syntax()),
                        kind: TKind::Block(self.block(&b)?),
                    },
                    Some(ast::ElseBranch::IfExpr(e)) => self.expr(&ast::Expr::IfExpr(e))?,
                    None => TExpr { ty: Ty::Scalar(Scalar::Unit), range: range.clone(), kind: TKind::Lit(Lit::Unit) },
                };
                let arms = vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: otherwise }];
                return Ok(TExpr { kind: TKind::Match { scrutinee, arms }, ty, range });
            }
            if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                return self.unsupported("a `let` chain", expr.syntax());
            }
            let otherwise = match i.else_branch() {
                Some(ast::ElseBranch::Block(b)) => Some(Box::new(TExpr {
                    ty: self.expr_type(&ast::Expr::BlockExpr(b.clone()))?,
                    range: self.range(b.syntax()),
                    kind: TKind::Block(self.block(&b)?),
                })),
                Some(ast::ElseBranch::IfExpr(e)) => Some(Box::new(self.expr(&ast::Expr::IfExpr(e))?)),
                None => None,
            };
            TKind::If { cond: Box::new(self.expr(&cond)?), then: self.block(&then)?, otherwise }
        };
        Ok(TExpr { kind, ty, range })
    }

    /// `while` and `while let` (a `loop` around a `match`).
    pub(super) fn while_expr(
        &mut self,
        expr: &ast::Expr,
        w: &ast::WhileExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let Some(cond) = w.condition() else { return self.unsupported("`while`", expr.syntax()) };
            let Some(body) = w.loop_body() else { return self.unsupported("`while`", expr.syntax()) };
            let label = Self::label(w.label().and_then(|l| l.lifetime()));
            if let ast::Expr::LetExpr(l) = &cond {
                // `while let P = e { body }` is `loop { match e { P => body, _ => break } }`.
                let (Some(pat), Some(scrutinee)) = (l.pat(), l.expr()) else {
                    return self.unsupported("`while let`", expr.syntax());
                };
                let (scrutinee, parse_result) = self.scrutinee(&scrutinee)?;
                let scrutinee = Box::new(scrutinee);
                let pat = self.scrutinee_pat(&pat, parse_result)?;
                let unit = Ty::Scalar(Scalar::Unit);
                let body = TExpr {
                    ty: unit.clone(),
                    range: self.range(body.syntax()),
                    kind: TKind::Block(self.block(&body)?),
                };
                let leave = TExpr {
                    ty: Ty::Scalar(Scalar::Never),
                    range: range.clone(),
                    kind: TKind::Break { label: label.clone(), value: None },
                };
                let arms = vec![Arm { pat, guard: None, body }, Arm { pat: TPat::Wild, guard: None, body: leave }];
                let step = TExpr { kind: TKind::Match { scrutinee, arms }, ty: unit.clone(), range: range.clone() };
                let body = TBlock { stmts: vec![TStmt::Expr(step)], tail: None, ty: Some(unit), label: None };
                return Ok(TExpr { kind: TKind::Loop { label, body }, ty, range });
            }
            if cond.syntax().descendants().any(|n| ast::LetExpr::can_cast(n.kind())) {
                return self.unsupported("a `let` chain", expr.syntax());
            }
            TKind::While { label, cond: Box::new(self.expr(&cond)?), body: self.block(&body)? }
        };
        Ok(TExpr { kind, ty, range })
    }

    /// `for` over a range (sequences and iterator chains were taken before).
    pub(super) fn for_expr(
        &mut self,
        expr: &ast::Expr,
        f: &ast::ForExpr,
        ty: Ty,
        range: Range<usize>,
    ) -> Result<TExpr> {
        let kind = {
            let (
                Some(pat @ (ast::Pat::IdentPat(_) | ast::Pat::WildcardPat(_))),
                Some(ast::Expr::RangeExpr(range_expr)),
                Some(body),
            ) = (f.pat(), f.iterable(), f.loop_body())
            else {
                return self.unsupported("`for` over something other than an integer range", expr.syntax());
            };
            let (Some(start), Some(end)) = (range_expr.start(), range_expr.end()) else {
                return self.unsupported("an open range", expr.syntax());
            };
            let inclusive = range_expr.op_kind() == Some(ast::RangeOp::Inclusive);
            let (start, end) = (self.expr(&start)?, self.expr(&end)?);
            if !start.s().is_int() {
                return self.unsupported("`for` over a range of non-integers", expr.syntax());
            }
            let var = match &pat {
                ast::Pat::IdentPat(pat) => self.declare_local(pat)?,
                // `for _ in ..`: the counter in a local no name reaches.
                _ => {
                    let name = format!("<for at {}>", range.start);
                    self.locals.push(TLocal {
                        name,
                        ty: start.ty.clone(),
                        mutable: false,
                        fixed_type: true,
                        array_literal: false,
                    });
                    self.locals.len() - 1
                }
            };
            let label = Self::label(f.label().and_then(|l| l.lifetime()));
            TKind::For { label, var, start: Box::new(start), end: Box::new(end), inclusive, body: self.block(&body)? }
        };
        Ok(TExpr { kind, ty, range })
    }
}
