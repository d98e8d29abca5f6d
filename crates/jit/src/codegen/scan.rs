//! What compiling a snippet needs to know before generating code: the host functions it calls, whether it allocates, the host statics it reads.

use crate::codegen::{CodegenError, HostAbi};
use lacuna_ir::{
    Child, Elem, IterChain, IterSource, Part, Seq, SeqKind, SeqMethod, Sink, Stage, TExpr, TKind, TupleElem, Ty,
    TypedSnippet,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A host function or method the snippet calls, by its shim's symbol: (name, has a receiver, parameter types).
pub(super) type HostCalls = BTreeMap<String, (String, bool, Vec<Ty>)>;

/// Calls `f` on every expression of the snippet (its body and its functions'), outer ones first.
pub(super) fn each_expr<'a>(snippet: &'a TypedSnippet, f: &mut dyn FnMut(&'a TExpr)) {
    fn in_child<'a>(c: Child<'a>, f: &mut dyn FnMut(&'a TExpr)) {
        match c {
            Child::Expr(e) => {
                f(e);
                e.each_child(&mut |c| in_child(c, f));
            }
            Child::Block(b) => b.each_child(&mut |c| in_child(c, f)),
        }
    }
    in_child(Child::Block(&snippet.body), f);
    for function in &snippet.fns {
        in_child(Child::Block(&function.body), f);
    }
}

/// The host functions and methods the snippet calls.
pub(super) fn host_calls(snippet: &TypedSnippet) -> HostCalls {
    let mut out = HostCalls::new();
    each_expr(snippet, &mut |e| {
        if let TKind::HostCall { name, symbol, receiver, args } = &e.kind {
            let params = args.iter().map(|a| a.ty.clone()).collect();
            out.insert(symbol.clone(), (name.clone(), receiver.is_some(), params));
        }
        // `(run, err, message)`: the error's address in the out parameter's place.
        if let TKind::UnwrapFailed { symbol, .. } = &e.kind {
            out.insert(symbol.clone(), ("unwrap".to_owned(), false, vec![Ty::Str]));
        }
    });
    out
}

/// The snippet allocates or prints: it builds vectors or strings, grows the host's, or prints through the host.
pub(super) fn allocates(snippet: &TypedSnippet) -> bool {
    let mut found = snippet.owns_buffers || !snippet.converted.is_empty();
    each_expr(snippet, &mut |e| {
        found |= match &e.kind {
            TKind::SeqMethod { name, .. } => matches!(name, SeqMethod::Push | SeqMethod::Join),
            // A sort's keys are kept in a buffer while it runs.
            TKind::SeqWithClosure { name, .. } => name.sorts(),
            TKind::SortBy { .. } => true,
            TKind::HostCall { .. } => matches!(e.ty, Ty::String | Ty::Vec(_)) || e.ty.owns(),
            TKind::StructClone(_) | TKind::StructLit { .. } | TKind::UnitVariant { .. } | TKind::MapNew => true,
            TKind::StringPush { .. }
            | TKind::Concat { .. }
            | TKind::Format(_)
            | TKind::Print { .. }
            | TKind::VecLit(_)
            | TKind::VecRepeat { .. }
            | TKind::SeqClone(_)
            | TKind::TextMethod { .. }
            | TKind::Consume { sink: Sink::Collect { .. }, .. } => true,
            _ => false,
        };
    });
    found
}

/// The values of the host library's `usize` statics the snippet needs: the offsets of the struct fields it
/// reads in place and the sizes of the structs it steps through (`instrument::render` exports them).
pub(super) fn host_statics(snippet: &TypedSnippet, host: &HostAbi<'_>) -> Result<HashMap<String, i32>, CodegenError> {
    let mut symbols: Vec<&str> = snippet.structs.iter().map(String::as_str).collect();
    symbols.extend(snippet.fields.iter().map(|f| f.symbol.as_str()));
    symbols.extend(snippet.seq_places.iter().flat_map(|p| p.path.iter().map(String::as_str)));
    symbols.extend(snippet.elem_fields.iter().map(|f| f.symbol.as_str()));
    each_expr(snippet, &mut |e| match &e.kind {
        TKind::RefField { symbol, .. } => symbols.push(symbol),
        TKind::StructLit { fields, .. } => symbols.extend(fields.iter().map(|(symbol, _)| symbol.as_str())),
        _ => {}
    });
    let mut out = HashMap::new();
    for symbol in symbols {
        let address = host.exported(symbol)?;
        // SAFETY: the instrumented host declares this symbol as a `usize` static (`instrument::render`), and the
        // host library stays loaded.
        let value = unsafe { *address.cast::<usize>() };
        let value = i32::try_from(value).map_err(|_| CodegenError(format!("`{symbol}` out of range")))?;
        out.insert(symbol.to_owned(), value);
    }
    Ok(out)
}

/// Where rustc put a tuple element's parts ([`lacuna_ir::Elem::Tuple`]), as the host exports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TupleLayout {
    pub size: u32,
    pub align: u32,
    /// Each part's byte offset, in the tuple's order.
    pub offsets: Vec<i32>,
}

impl TupleLayout {
    /// A layout for a tuple element only the snippet's own vectors hold: the parts in order, each at its
    /// alignment (a `String` as std's three words, a `&str` as two).
    fn private(t: TupleElem) -> TupleLayout {
        let (mut size, mut align, mut offsets) = (0u32, 1u32, Vec::new());
        for part in t.parts() {
            let (part_size, part_align) = match part {
                Part::Scalar(s) => {
                    let bytes = super::clif(*s).map_or(0, |t| t.bytes());
                    (bytes, bytes.max(1))
                }
                Part::String => (24, 8),
                Part::Str => (16, 8),
            };
            size = size.next_multiple_of(part_align);
            offsets.push(size as i32);
            size += part_size;
            align = align.max(part_align);
        }
        TupleLayout { size: size.next_multiple_of(align), align, offsets }
    }
}

/// The tuple elements of sequences whose values come from the host or go to it: those of the hole's bindings
/// and of host structs' fields, of host calls' arguments and results, and of the snippet's value. Only these
/// need the layout rustc gave the host.
fn tuples_the_host_sees(snippet: &TypedSnippet) -> HashSet<TupleElem> {
    fn in_ty(ty: &Ty, out: &mut HashSet<TupleElem>) {
        match ty {
            Ty::Vec(Elem::Tuple(t)) => {
                out.insert(*t);
            }
            Ty::Option(inner) => in_ty(inner, out),
            Ty::Result(ok, err) => {
                in_ty(ok, out);
                in_ty(err, out);
            }
            Ty::Tuple(parts) => parts.iter().for_each(|p| in_ty(p, out)),
            Ty::Map { key, .. } => in_ty(key, out),
            _ => {}
        }
    }
    fn in_seq(seq: &Seq, out: &mut HashSet<TupleElem>) {
        if let (false, Elem::Tuple(t)) = (seq.kind == SeqKind::Local, seq.elem) {
            out.insert(t);
        }
    }
    fn in_source(source: &IterSource, out: &mut HashSet<TupleElem>) {
        match source {
            IterSource::Seq(seq) | IterSource::Runs { seq, .. } => in_seq(seq, out),
            IterSource::Chain { first, second, .. } => {
                in_source(first, out);
                in_source(second, out);
            }
            IterSource::Range { .. } | IterSource::Chars(_) | IterSource::Pieces { .. } => {}
        }
    }
    fn in_chain(chain: &IterChain, out: &mut HashSet<TupleElem>) {
        in_source(&chain.source, out);
        for (stage, _) in &chain.stages {
            match stage {
                Stage::Zip(other) => in_source(other, out),
                Stage::FlatMap(f) => in_chain(&f.inner, out),
                _ => {}
            }
        }
    }
    let mut out = HashSet::new();
    in_ty(&snippet.ty, &mut out);
    each_expr(snippet, &mut |e| match &e.kind {
        TKind::HostCall { args, .. } => {
            in_ty(&e.ty, &mut out);
            args.iter().for_each(|a| in_ty(&a.ty, &mut out));
        }
        TKind::ForSeq { seq, .. }
        | TKind::SeqLen(seq)
        | TKind::SeqIndex { seq, .. }
        | TKind::SeqSum(seq)
        | TKind::SeqMethod { seq, .. }
        | TKind::SeqWithClosure { seq, .. }
        | TKind::SortBy { seq, .. }
        | TKind::SeqStore { seq, .. }
        | TKind::TextOf(seq)
        | TKind::SliceOf { seq, .. }
        | TKind::SubSlice { seq, .. }
        | TKind::SeqClone(seq) => in_seq(seq, &mut out),
        TKind::Consume { chain, .. } | TKind::ForIter { chain, .. } => in_chain(chain, &mut out),
        // Host fields, `Option` fields and struct literals hold scalars and text; anything else a value of the
        // host's reaches the snippet through is a sequence or a call, above.
        _ => {}
    });
    out
}

/// The layouts of the snippet's tuple elements, from the statics the instrumented host exports for the tuple
/// types it writes (`instrument::render`).
pub(super) fn host_tuples(
    snippet: &TypedSnippet,
    host: &HostAbi<'_>,
) -> Result<HashMap<TupleElem, TupleLayout>, CodegenError> {
    const WORDS: usize = 2 + TupleElem::MAX;
    let mut out = HashMap::new();
    let shared = tuples_the_host_sees(snippet);
    for t in &snippet.tuples {
        let symbol = lacuna_ir::tuple_layout_symbol(t);
        let Some(address) = (host.symbol)(&symbol) else {
            // A tuple type no value of the host's ever holds (the host never writes it, so it exports no
            // layout) lives only in the snippet's own vectors: any layout serves, as long as it is this one
            // everywhere.
            if shared.contains(t) {
                return Err(CodegenError(format!("the host does not export the layout of `{}`", t.name())));
            }
            out.insert(*t, TupleLayout::private(*t));
            continue;
        };
        // SAFETY: the instrumented host declares this symbol as a `[usize; 2 + TupleElem::MAX]` static
        // (`instrument::render`), and the host library stays loaded.
        let words = unsafe { *address.cast::<[usize; WORDS]>() };
        let small = |w: usize| u32::try_from(w).map_err(|_| CodegenError(format!("`{symbol}` out of range")));
        let offsets =
            words[2..2 + t.parts().len()].iter().map(|&w| small(w).map(|w| w as i32)).collect::<Result<_, _>>()?;
        out.insert(*t, TupleLayout { size: small(words[0])?, align: small(words[1])?, offsets });
    }
    Ok(out)
}
