//! Methods of scalars and `Option`s, with and without closures.

use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{
    CheckedMethod, Lit, Method, OptionClosureMethod, OptionMethod, Scalar, ScalarMethod, TExpr, TKind, TPat, Ty,
};

impl Check<'_> {
    /// A method of a scalar or of an `Option` of one ([`TKind::Method`]).
    pub(super) fn method(
        &mut self,
        e: &TExpr,
        name: Method,
        receiver: &TExpr,
        args: &[TExpr],
    ) -> Result<(), Unsupported> {
        // `unwrap`, `unwrap_or`, `unwrap_or_default`, `is_some` and `is_none` may read an `Option<String>` (the
        // first three move it).
        self.owned_option_here = matches!(
            name,
            Method::Option(
                OptionMethod::Unwrap
                    | OptionMethod::UnwrapOr
                    | OptionMethod::UnwrapOrDefault
                    | OptionMethod::IsSome
                    | OptionMethod::IsNone
            )
        );
        self.expr(receiver)?;
        for a in args {
            self.expr(a)?;
        }
        if let Ty::Option(payload) = &receiver.ty {
            let arg = |i: usize| args.get(i).map(|a| &a.ty);
            let scalar = payload.scalar().is_some();
            let ok = match (name, args.len()) {
                (Method::Option(OptionMethod::Unwrap), 0) => e.ty == **payload,
                (Method::Option(OptionMethod::UnwrapOrDefault), 0) => {
                    (scalar || **payload == Ty::String) && e.ty == **payload
                }
                (Method::Option(OptionMethod::IsSome | OptionMethod::IsNone), 0) => e.s() == Scalar::Bool,
                (Method::Option(OptionMethod::UnwrapOr), 1) => arg(0) == Some(&**payload),
                (Method::Option(OptionMethod::Or | OptionMethod::Xor), 1) => scalar && arg(0) == Some(&receiver.ty),
                _ => false,
            };
            return if ok { Ok(()) } else { unsupported(format!("the method `{name}` of an `Option`"), &e.range) };
        }
        let t = receiver.s();
        let arg = |i: usize| args.get(i).map(|a| a.s());
        let ok = match (name, args.len()) {
            (Method::Checked(CheckedMethod::ToDigit), _) => {
                // A literal radix in 2..=36: the radix assertion (whose message varies across toolchains)
                // cannot fire.
                let literal_radix = matches!(args.first().map(|a| &a.kind), Some(TKind::Lit(Lit::Int(2..=36))));
                t == Scalar::Char && arg(0) == Some(Scalar::U32) && literal_radix && e.ty == Ty::option(Scalar::U32)
            }
            (Method::Checked(_), _) => e.ty == Ty::option(t) && t.is_int() && arg(0) == Some(t),
            (Method::Option(_), _) => false,
            (Method::Char(m), 0) => {
                t == Scalar::Char && e.ty == Ty::Scalar(if m.maps() { Scalar::Char } else { Scalar::Bool })
            }
            (Method::Char(_), _) => false,
            (Method::Scalar(m), n) => {
                use ScalarMethod::*;
                match (m, n) {
                    (Abs | Signum, 0) => t.is_signed() || t.is_float(),
                    (IsPositive | IsNegative, 0) => t.is_signed(),
                    (CountOnes, 0) => t.is_int(),
                    (Sqrt | Floor | Ceil, 0) => t.is_float(),
                    (Pow, 1) => t.is_int() && arg(0) == Some(Scalar::U32),
                    (Min | Max, 1) => (t.is_int() || t.is_float()) && arg(0) == Some(t),
                    (WrappingAdd | WrappingSub | WrappingMul, 1) => t.is_int() && arg(0) == Some(t),
                    (SaturatingAdd | SaturatingSub | SaturatingMul | AbsDiff, 1) => t.is_int() && arg(0) == Some(t),
                    (WrappingNeg | LeadingZeros | TrailingZeros | CountZeros, 0) => t.is_int(),
                    (UnsignedAbs, 0) => t.is_signed() && t.is_int(),
                    (IsPowerOfTwo, 0) => t.is_int() && !t.is_signed(),
                    (Trunc | Round | Fract, 0) => t.is_float(),
                    (IsNan | IsFinite | IsInfinite, 0) => t.is_float() && e.ty == Ty::Scalar(Scalar::Bool),
                    (Powi, 1) => t.is_float() && arg(0) == Some(Scalar::I32),
                    _ => false,
                }
            }
        };
        if ok {
            Ok(())
        } else if matches!(name, Method::Checked(_)) {
            unsupported(format!("the method `{name}`"), &e.range)
        } else {
            unsupported(format!("the method `{name}` on `{t:?}`"), &e.range)
        }
    }

    /// An `Option` method with a closure written in place ([`TKind::OptionClosure`]).
    pub(super) fn option_closure(
        &mut self,
        e: &TExpr,
        method: OptionClosureMethod,
        receiver: &TExpr,
        param: &Option<TPat>,
        body: &TExpr,
    ) -> Result<(), Unsupported> {
        // `unwrap_or_else` may take an `Option<String>` (moving it).
        self.owned_option_here = method == OptionClosureMethod::UnwrapOrElse;
        self.expr(receiver)?;
        let Ty::Option(payload) = &receiver.ty else {
            return unsupported("a closure method of something other than an `Option`", &e.range);
        };
        let takes_payload = method != OptionClosureMethod::UnwrapOrElse;
        match (param, takes_payload) {
            (Some(p), true) => self.pat(p, payload, &e.range)?,
            (None, false) => {}
            _ => return unsupported("a closure with the wrong parameters", &e.range),
        }
        self.closure_body(body)?;
        let ok = match method {
            // A scalar, or a new `String` the `Option` owns (`o.map(|b| b.title.clone())`).
            OptionClosureMethod::Map => {
                matches!((&e.ty, &body.ty), (Ty::Option(r), Ty::Scalar(_) | Ty::String) if **r == body.ty)
            }
            OptionClosureMethod::AndThen => body.ty == e.ty && matches!(e.ty, Ty::Option(_)),
            OptionClosureMethod::Filter => body.ty == Ty::Scalar(Scalar::Bool) && e.ty == receiver.ty,
            OptionClosureMethod::IsSomeAnd | OptionClosureMethod::IsNoneOr => {
                body.ty == Ty::Scalar(Scalar::Bool) && e.s() == Scalar::Bool
            }
            OptionClosureMethod::UnwrapOrElse => {
                (payload.scalar().is_some() || **payload == Ty::String) && body.ty == **payload && e.ty == body.ty
            }
        };
        if ok {
            Ok(())
        } else {
            unsupported(format!("`{method}` with this closure"), &e.range)
        }
    }
}
