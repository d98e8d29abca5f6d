//! Locals, the hole's bindings and places: reading, writing and declaring values, and dropping what a local owns.

use crate::abi::Fault;
use crate::codegen::{clif, flat, CodegenError, Gen, Vals, R};
use crate::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{types, MemFlags, Type, Value};
use cranelift_frontend::Variable;
use lacuna_ir::{BinOp, Elem, LocalRef, Place, Scalar, TExpr, Ty};

impl<'a, 'b> Gen<'a, 'b> {
    pub(super) fn binding_ptr(&mut self, index: usize) -> Value {
        self.b.ins().load(types::I64, MemFlags::trusted(), self.table, (index * 8) as i32)
    }

    pub(super) fn read(&mut self, local: LocalRef, ty: &Ty) -> Vals {
        match local {
            LocalRef::Snippet(id) => {
                let vars = self.vars.get(&id).cloned().unwrap_or_default();
                vars.into_iter().map(|v| self.b.use_var(v)).collect()
            }
            // A host struct binding is its place; a reference to one, where it points.
            LocalRef::Binding(i) if matches!(ty, Ty::Struct(_)) => vec![self.binding_ptr(i)],
            LocalRef::Binding(i) if matches!(ty, Ty::StructRef(_)) => vec![self.referent(i)],
            // Other bindings are scalars; one the snippet settled to another number type
            // ([`lacuna_ir::TypedSnippet::retyped`]) is read as the host's type, then converted as `as` does.
            LocalRef::Binding(i) => {
                let Some(seen) = ty.scalar() else { return Vec::new() };
                let held = self.held_type(i).unwrap_or(seen);
                match clif(held) {
                    Some(t) => {
                        let p = self.binding_ptr(i);
                        let v = self.b.ins().load(t, MemFlags::trusted(), p, 0);
                        vec![self.cast(v, held, seen)]
                    }
                    None => Vec::new(),
                }
            }
        }
    }

    /// The type the host's slot of binding `i` holds, when the snippet reads it as another number type.
    fn held_type(&self, i: usize) -> Option<Scalar> {
        self.snippet.retyped.iter().find(|(b, _)| *b == i).map(|(_, t)| *t)
    }

    /// Where the hole binding `r: &S` / `&mut S` points.
    pub(super) fn referent(&mut self, binding: usize) -> Value {
        let p = self.binding_ptr(binding);
        self.b.ins().load(types::I64, MemFlags::trusted(), p, 0)
    }

    /// Where a host struct's field is.
    pub(super) fn field_address(&mut self, field: usize) -> Value {
        let f = &self.snippet.fields[field];
        let (binding, through_ref) = (f.binding, f.through_ref);
        let base = if through_ref { self.referent(binding) } else { self.binding_ptr(binding) };
        let offset = self.field_offsets.get(field).copied().unwrap_or(0);
        self.b.ins().iadd_imm(base, i64::from(offset))
    }

    /// Where a field written through a `&mut` loop variable is ([`Place::ElemField`]).
    fn elem_field_address(&mut self, field: usize) -> Option<Value> {
        let f = self.snippet.elem_fields.get(field)?;
        let offset = *self.statics.get(&f.symbol)?;
        let base = *self.read(LocalRef::Snippet(f.local), &Ty::Scalar(Scalar::Unit)).first()?;
        Some(self.b.ins().iadd_imm(base, i64::from(offset)))
    }

    pub(super) fn read_place(&mut self, place: Place, ty: Scalar) -> Option<Value> {
        match place {
            Place::ElemField(field) => {
                let t = clif(ty)?;
                let address = self.elem_field_address(field)?;
                Some(self.b.ins().load(t, MemFlags::trusted(), address, 0))
            }
            Place::HostField(field) => {
                let t = clif(ty)?;
                let address = self.field_address(field);
                Some(self.b.ins().load(t, MemFlags::trusted(), address, 0))
            }
            Place::Local(local) => self.read(local, &Ty::Scalar(ty)).first().copied(),
            Place::Deref(binding) => {
                let t = clif(ty)?;
                let target = self.referent(binding);
                Some(self.b.ins().load(t, MemFlags::trusted(), target, 0))
            }
            // A whole struct is only lent, a whole `String` or vector only assigned: never read as a scalar.
            Place::Elem { .. } | Place::WholeBinding(_) => None,
        }
    }

    pub(super) fn place_ty(&self, place: Place) -> Scalar {
        match place {
            Place::Local(local) => self.local_ty(local).s(),
            // The binding's listed type is what it points to.
            Place::Deref(binding) => self.local_ty(LocalRef::Binding(binding)).s(),
            Place::HostField(field) => self.snippet.fields[field].ty,
            Place::ElemField(field) => self.snippet.elem_fields[field].ty,
            Place::Elem { .. } | Place::WholeBinding(_) => Scalar::Unit,
        }
    }

    pub(super) fn write(&mut self, local: LocalRef, values: Vals) {
        match local {
            LocalRef::Snippet(id) => {
                let vars = self.vars.get(&id).cloned().unwrap_or_default();
                if vars.len() == values.len() {
                    for (var, v) in vars.into_iter().zip(values) {
                        self.b.def_var(var, v);
                    }
                    self.set_flag(id, true);
                }
            }
            LocalRef::Binding(i) => {
                if let Some(&v) = values.first() {
                    // A retyped number goes back as the host's type, converted as `as` does.
                    let v = match (self.held_type(i), self.local_ty(local).scalar()) {
                        (Some(held), Some(seen)) => self.cast(v, seen, held),
                        _ => v,
                    };
                    let p = self.binding_ptr(i);
                    self.b.ins().store(MemFlags::trusted(), v, p, 0);
                }
            }
        }
    }

    /// Fresh variables for a snippet local, holding `values` (zeros when there are none yet).
    pub(super) fn declare(&mut self, local: usize, values: Vals) {
        let empty = values.is_empty();
        let ts = flat(&self.snippet.locals[local].ty);
        let values = self.fill(values, &ts);
        let mut vars = Vec::new();
        for (t, v) in ts.into_iter().zip(values) {
            let var = self.b.declare_var(t);
            self.b.def_var(var, v);
            vars.push(var);
        }
        self.vars.insert(local, vars);
        // `let x;` declares a local that holds nothing yet.
        self.set_flag(local, !empty);
    }

    pub(super) fn local_ty(&self, local: LocalRef) -> Ty {
        match local {
            LocalRef::Snippet(id) => self.snippet.locals[id].ty.clone(),
            LocalRef::Binding(i) => {
                Ty::Scalar(self.snippet.bindings.iter().find(|(b, _)| *b == i).map(|(_, t)| *t).unwrap_or(Scalar::Unit))
            }
        }
    }

    /// Frees the buffer of a `Vec`/`String`/`Option<String>` local, or drops a host struct or map the run made,
    /// where it still owns its value ([`Gen::when_owned`]): at the end of its scope, on a jump out of it, or before
    /// it is assigned a new value.
    pub(super) fn drop_local(&mut self, local: usize) -> R<()> {
        let Some(ty) = self.snippet.locals.get(local).map(|l| l.ty.clone()) else { return Ok(()) };
        let droppable = matches!(ty, Ty::Struct(_) | Ty::Map { .. } | Ty::Vec(_) | Ty::String)
            || lacuna_lowering::owned_option(&ty);
        if !droppable || !self.has_heap {
            return Ok(());
        }
        self.when_owned(local, |g| g.drop_value(local, &ty))
    }

    fn drop_value(&mut self, local: usize, ty: &Ty) -> R<()> {
        let vars = self.vars.get(&local).cloned().unwrap_or_default();
        match (ty, &vars[..]) {
            (Ty::Struct(_) | Ty::Map { .. }, &[var]) => {
                let ptr = self.b.use_var(var);
                let f = if matches!(ty, Ty::Map { .. }) {
                    self.helper(Helper::MapFree)
                } else {
                    self.helper(Helper::StructDrop)
                };
                self.b.ins().call(f, &[self.ctx, ptr]);
                Ok(())
            }
            // An `Option<String>`: its text, if any; an `Option<S>`: its host struct's box, if any (`None`'s parts
            // are zeros, which free nothing).
            (Ty::Option(payload), [_, ptr, ..]) if lacuna_lowering::owned_option(ty) => {
                if let Some(helper) = super::result::payload_drop(payload) {
                    let ptr = self.b.use_var(*ptr);
                    let f = self.helper(helper);
                    self.b.ins().call(f, &[self.ctx, ptr]);
                }
                Ok(())
            }
            (Ty::Vec(_) | Ty::String, &[ptr, _, len]) => {
                let ptr = self.b.use_var(ptr);
                let elem = match ty {
                    Ty::Vec(elem) => Some(*elem),
                    _ => None,
                };
                self.drop_buffer(elem, ptr, len)
            }
            _ => Ok(()),
        }
    }

    /// Frees a vector's buffer at `ptr` holding `len` elements of `elem` (`None`: a `String`'s), with the text
    /// each element owns.
    pub(super) fn drop_buffer(&mut self, elem: Option<Elem>, ptr: Value, len: Variable) -> R<()> {
        if let Some(elem) = elem.filter(|e| e.owns_buffer()) {
            let len = self.b.use_var(len);
            self.element_strings(Helper::StringsFree, elem, ptr, len)?;
        }
        let free = self.helper(Helper::VecFree);
        self.b.ins().call(free, &[self.ctx, ptr]);
        Ok(())
    }

    /// A variable of type `t` holding `v`.
    pub(super) fn var(&mut self, t: Type, v: Value) -> Variable {
        let var = self.b.declare_var(t);
        self.b.def_var(var, v);
        var
    }

    pub(super) fn int_const(&mut self, t: Type, v: i64) -> Value {
        self.b.ins().iconst(t, v)
    }

    /// `values` as `ts` asks: zeros where a diverging or unit expression left none.
    pub(super) fn fill(&mut self, values: Vals, ts: &[Type]) -> Vals {
        if values.len() == ts.len() {
            return values;
        }
        ts.iter().map(|&t| self.zero(t)).collect()
    }

    pub(super) fn zero(&mut self, t: Type) -> Value {
        if t == types::F64 {
            self.b.ins().f64const(0.0)
        } else if t == types::F32 {
            self.b.ins().f32const(0.0)
        } else {
            self.b.ins().iconst(t, 0)
        }
    }

    pub(super) fn return_ok(&mut self, value: Vals, ret: &Ty) {
        self.store_fuel();
        let mut values = vec![self.b.ins().iconst(types::I32, 0)];
        let value = self.fill(value, &flat(ret));
        values.extend(value);
        self.b.ins().return_(&values);
    }

    /// `place = value` or `place op= value` of a scalar place ([`TKind::Assign`]).
    /// The host struct (type `id`) at `target` dropped there, and the one in the run's box `boxed` moved over it
    /// (never faults: the lowering writes only the run's own complete structs).
    fn replace_struct(&mut self, id: usize, boxed: Value, target: Value, at: usize) -> R<()> {
        let size = self.int_const(types::I64, self.shims_of(id)?.size as i64);
        let f = self.helper(Helper::StructReplace);
        let call = self.b.ins().call(f, &[self.ctx, boxed, target, size]);
        let moved = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm(IntCC::Equal, moved, 0);
        self.fault_if(failed, Fault::Memory, at);
        Ok(())
    }

    pub(super) fn assign(&mut self, e: &TExpr, place: &Place, op: &Option<BinOp>, value: &TExpr) -> R<Vals> {
        let at = e.range.start;
        // A host struct or enum field written whole: the new value (a box of the run's) is made first, then the
        // old one is dropped in the field and the new one moved over it.
        if let Place::ElemField(field) = place {
            if let Some(id) = self.snippet.elem_fields.get(*field).and_then(|f| f.held) {
                let boxed = self.one(value)?;
                let target = self.elem_field_address(*field).ok_or_else(|| CodegenError("a field's place".into()))?;
                self.replace_struct(id, boxed, target, at)?;
                return Ok(Vec::new());
            }
        }
        // A host struct or enum binding given a new value: as a field is, in the host's place.
        if let (Place::WholeBinding(binding), Ty::Struct(id)) = (place, &value.ty) {
            let boxed = self.one(value)?;
            let target = self.binding_ptr(*binding);
            self.replace_struct(*id, boxed, target, at)?;
            return Ok(Vec::new());
        }
        if let Place::WholeBinding(binding) = place {
            let new = self.expr(value)?;
            self.replace_binding(*binding, &value.ty, new)?;
            return Ok(Vec::new());
        }
        let value: Option<Value> = {
            let v = self.opt(value)?;
            let v = match (op, v) {
                (Some(op), Some(v)) => {
                    let ty = self.place_ty(*place);
                    let current = self.read_place(*place, ty).ok_or_else(|| CodegenError("assignment".into()))?;
                    Some(self.binary(*op, ty, value.s(), current, v, at))
                }
                (_, v) => v,
            };
            match place {
                Place::Elem { .. } => return Err(CodegenError("assignment to a whole struct".into())),
                Place::WholeBinding(_) => unreachable!("assigned above"),
                Place::Local(local) => self.write(*local, v.into_iter().collect()),
                Place::Deref(binding) => {
                    if let Some(v) = v {
                        let target = self.referent(*binding);
                        self.b.ins().store(MemFlags::trusted(), v, target, 0);
                    }
                }
                Place::HostField(field) => {
                    if let Some(v) = v {
                        let target = self.field_address(*field);
                        self.b.ins().store(MemFlags::trusted(), v, target, 0);
                    }
                }
                Place::ElemField(field) => {
                    if let Some(v) = v {
                        let target =
                            self.elem_field_address(*field).ok_or_else(|| CodegenError("a field's place".into()))?;
                        self.b.ins().store(MemFlags::trusted(), v, target, 0);
                    }
                }
            }
            None
        };
        Ok(value.into_iter().collect())
    }
}
