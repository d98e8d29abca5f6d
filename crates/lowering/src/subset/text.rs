//! Text methods.

use crate::subset::{unsupported, Check};
use crate::Unsupported;
use lacuna_ir::{Scalar, TExpr, TextMethod, Ty};

impl Check<'_> {
    /// A method of text ([`TKind::TextMethod`]).
    pub(super) fn text_method(
        &mut self,
        e: &TExpr,
        name: TextMethod,
        receiver: &TExpr,
        args: &[TExpr],
    ) -> Result<(), Unsupported> {
        self.expr(receiver)?;
        for a in args {
            self.expr(a)?;
        }
        let text = |t: &Ty| matches!(t, Ty::Str | Ty::String);
        let ok = text(&receiver.ty)
            && match (name, args) {
                (TextMethod::Len, []) => e.ty == Ty::Scalar(Scalar::Usize),
                (TextMethod::IsEmpty, []) => e.ty == Ty::Scalar(Scalar::Bool),
                (TextMethod::ToString | TextMethod::ToOwned | TextMethod::Clone | TextMethod::Into, []) => text(&e.ty),
                (TextMethod::AsStr | TextMethod::Trim | TextMethod::TrimStart | TextMethod::TrimEnd, []) => {
                    e.ty == Ty::Str
                }
                (TextMethod::Slice, [a, b]) => {
                    a.ty == Ty::Scalar(Scalar::Usize) && b.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::Str
                }
                (TextMethod::SliceFrom | TextMethod::SliceTo, [a]) => {
                    a.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::Str
                }
                (TextMethod::SliceAll, []) => e.ty == Ty::Str,
                // `trim_matches` of a `char` only (a text pattern cannot search from both ends: E0277).
                (TextMethod::TrimMatches, [pattern]) => pattern.ty == Ty::Scalar(Scalar::Char) && e.ty == Ty::Str,
                (TextMethod::TrimStartMatches | TextMethod::TrimEndMatches, [pattern]) => {
                    matches!(pattern.ty, Ty::Scalar(Scalar::Char) | Ty::Str) && e.ty == Ty::Str
                }
                (TextMethod::ToUppercase | TextMethod::ToLowercase, []) => e.ty == Ty::String,
                (TextMethod::Repeat, [n]) => n.ty == Ty::Scalar(Scalar::Usize) && e.ty == Ty::String,
                (TextMethod::Replace, [pattern, to]) => {
                    (text(&pattern.ty) || pattern.ty == Ty::Scalar(Scalar::Char)) && text(&to.ty) && e.ty == Ty::String
                }
                (TextMethod::Contains | TextMethod::StartsWith | TextMethod::EndsWith, [pattern]) => {
                    (text(&pattern.ty) || pattern.ty == Ty::Scalar(Scalar::Char)) && e.ty == Ty::Scalar(Scalar::Bool)
                }
                (TextMethod::StripPrefix | TextMethod::StripSuffix, [pattern]) => {
                    (text(&pattern.ty) || pattern.ty == Ty::Scalar(Scalar::Char))
                        && e.ty == Ty::Option(Box::new(Ty::Str))
                }
                (TextMethod::Find | TextMethod::Rfind, [pattern]) => {
                    (text(&pattern.ty) || pattern.ty == Ty::Scalar(Scalar::Char)) && e.ty == Ty::option(Scalar::Usize)
                }
                (TextMethod::Eq | TextMethod::Ne, [other]) => text(&other.ty) && e.ty == Ty::Scalar(Scalar::Bool),
                _ => false,
            };
        if ok {
            Ok(())
        } else {
            unsupported(format!("the text method `{name}`"), &e.range)
        }
    }
}
