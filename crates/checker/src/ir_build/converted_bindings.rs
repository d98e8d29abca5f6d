//! Converted bindings: a hole binding holding a vector or an array of numbers whose element type the snippet
//! settles (an unsuffixed literal's: the host alone holds `f64`s or `i32`s) is a snippet local holding a copy
//! converted to the snippet's type ([`lacuna_ir::Converted`]), as the rustc path gives the snippet one (`Retype`).

use ra_ap_hir::PathResolution;
use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use crate::ir_build::names::plain_number;
use crate::ir_build::Builder;
use lacuna_ir::{Converted, Elem, Scalar, TLocal, Ty};

/// The sequence a host binding's type (as written for the host alone) holds numbers in: its element type, and an
/// array's length. Only the types an unsuffixed literal gives (`i32`, `f64`) can be settled otherwise.
fn literal_sequence(ty: &str) -> Option<(Scalar, Option<u64>)> {
    let (elem, len) = match ty.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')) {
        Some(elem) => (elem, None),
        None => {
            let (elem, len) = ty.strip_prefix('[')?.strip_suffix(']')?.split_once(';')?;
            (elem.trim(), Some(len.trim().parse().ok()?))
        }
    };
    let elem = Scalar::from_name(elem).filter(|s| matches!(s, Scalar::I32 | Scalar::F64))?;
    Some((elem, len))
}

impl<'a, 'db> Builder<'a, 'db> {
    /// Makes each hole binding of numbers whose type the snippet settles (see the module's doc) a snippet local,
    /// before anything of the snippet is read, so that every use of it reads the copy. The local is not `mut`: a
    /// snippet that writes the binding runs on the rustc path, which writes it back.
    pub(crate) fn convert_settled_sequences(&mut self, block: &ast::BlockExpr) {
        // Most holes have no binding an unsuffixed literal could have typed: nothing to walk then.
        if !self.bindings.iter().any(|b| b.ty.as_deref().and_then(literal_sequence).is_some()) {
            return;
        }
        for path in block.syntax().descendants().filter_map(ast::PathExpr::cast) {
            let Some(PathResolution::Local(local)) = path.path().and_then(|p| self.sema.resolve_path(&p)) else {
                continue;
            };
            if self.local_ids.contains_key(&local) {
                continue;
            }
            let Some(binding) = self.binding_index(local) else { continue };
            let Some((from, array_len)) = self.bindings[binding].ty.as_deref().and_then(literal_sequence) else {
                continue;
            };
            if !self.retyped(binding, local, path.syntax()) {
                continue;
            }
            // The snippet's type: the same kind of sequence, of another number of the same kind.
            let ty = local.ty(self.db);
            let seen = match array_len {
                None => self.vec_elem(&ty),
                Some(n) => ty.as_array(self.db).filter(|(_, len)| *len as u64 == n).map(|(elem, _)| elem),
            };
            let Some(to) = seen.as_ref().and_then(Self::word).filter(|s| plain_number(*s)) else { continue };
            if to.is_float() != from.is_float() {
                continue;
            }
            let id = self.locals.len();
            self.locals.push(TLocal {
                name: local.name(self.db).as_str().to_owned(),
                ty: Ty::Vec(Elem::Scalar(to)),
                mutable: false,
                fixed_type: true,
                array_literal: array_len.is_some(),
            });
            self.local_ids.insert(local, id);
            self.converted.push(Converted { binding, local: id, from, array_len });
            self.note_binding(binding, Scalar::Unit);
            // Whether the host's values and the snippet's uses fit together is rustc's to say (as for a number).
            self.rustc_decides("a host binding whose type the snippet settles", path.syntax());
        }
    }
}
