//! A stable text form of a snippet's IR, for tests: every expression as `(head operands..):type`, names resolved
//! to `l<n>` (a snippet local), `b<n>` (a hole binding) and `f<n>` (a snippet function), blocks indented. Ranges
//! are left out, so moving code inside a snippet changes nothing here; what the builder or the lowering decides
//! does.

use std::fmt::Write as _;

use crate::{
    BinOp, Closure, Elem, FmtPiece, FmtSpec, IterChain, IterSource, Lit, LocalRef, ParseThen, Pieces, Place, Seq,
    SeqKind, Sink, Stage, TBlock, TExpr, TKind, TPat, TStmt, TypedSnippet, UnOp,
};

/// The IR of `snippet` as text.
pub fn dump(snippet: &TypedSnippet) -> String {
    let mut d = Dumper { out: String::new(), indent: 0 };
    d.header(snippet);
    for (i, f) in snippet.fns.iter().enumerate() {
        let params: Vec<String> = f.params.iter().map(|p| format!("l{p}")).collect();
        d.line(&format!("fn f{i} {}({}) -> {}", f.name, params.join(", "), f.ret.name()));
        d.block_body(&f.body);
    }
    d.line(&format!("body -> {}", snippet.ty.name()));
    d.block_body(&snippet.body);
    d.out
}

struct Dumper {
    out: String,
    indent: usize,
}

impl Dumper {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn header(&mut self, s: &TypedSnippet) {
        for (i, l) in s.locals.iter().enumerate() {
            let mut flags = String::new();
            if l.mutable {
                flags.push_str(" mut");
            }
            if l.array_literal {
                flags.push_str(" array-literal");
            }
            self.line(&format!("local l{i} {}: {}{flags}", l.name, l.ty.name()));
        }
        for (b, ty) in &s.bindings {
            match s.retyped.iter().find(|(r, _)| r == b) {
                Some((_, held)) => self.line(&format!("binding b{b}: {} (the host's {})", ty.name(), held.name())),
                None => self.line(&format!("binding b{b}: {}", ty.name())),
            }
        }
        for l in &s.lifted {
            self.line(&format!("binding b{} owned by the snippet as l{}", l.binding, l.local));
        }
        for c in &s.converted {
            let array = c.array_len.map(|n| format!(" (an array of {n})")).unwrap_or_default();
            self.line(&format!(
                "binding b{} copied as l{} from the host's {}{array}",
                c.binding,
                c.local,
                c.from.name()
            ));
        }
        for (i, f) in s.fields.iter().enumerate() {
            let access = match (f.through_ref, f.mutable_ref) {
                (false, _) => "",
                (true, false) => " through &",
                (true, true) => " through &mut",
            };
            self.line(&format!("field #{i} {} of b{}{access}: {}", f.symbol, f.binding, f.ty.name()));
        }
        for (i, symbol) in s.structs.iter().enumerate() {
            self.line(&format!("struct s{i} {symbol}"));
        }
        let mut notes = Vec::new();
        if s.references.is_some() {
            notes.push("references".to_owned());
        }
        if s.owns_buffers {
            notes.push("owns-buffers".to_owned());
        }
        if let Some(u) = &s.rustc_decides {
            notes.push(format!("rustc-decides({})", u.construct));
        }
        if !notes.is_empty() {
            self.line(&notes.join(" "));
        }
    }

    /// A block's statements and tail, one level in.
    fn block_body(&mut self, b: &TBlock) {
        self.indent += 1;
        if let Some(label) = &b.label {
            self.line(&format!("label {label}"));
        }
        for stmt in &b.stmts {
            match stmt {
                TStmt::Let { local, init: Some(init) } => {
                    let init = self.expr(init);
                    self.line(&format!("let l{local} = {init}"));
                }
                TStmt::Let { local, init: None } => self.line(&format!("let l{local}")),
                TStmt::LetPat { pat, init, otherwise } => {
                    let (pat, init) = (self.pat(pat), self.expr(init));
                    match otherwise {
                        None => self.line(&format!("let {pat} = {init}")),
                        Some(b) => {
                            self.line(&format!("let {pat} = {init} else"));
                            self.block_body(b);
                        }
                    }
                }
                TStmt::Expr(e) => {
                    let e = self.expr(e);
                    self.line(&format!("{e};"));
                }
            }
        }
        if let Some(tail) = &b.tail {
            let tail = self.expr(tail);
            self.line(&tail);
        }
        self.indent -= 1;
    }

    /// A block inside an expression: `{ .. }` on lines of its own.
    fn block(&mut self, b: &TBlock) -> String {
        let mut inner = Dumper { out: String::new(), indent: self.indent + 1 };
        inner.block_body(b);
        let close = "  ".repeat(self.indent + 1);
        format!("{{\n{}{close}}}", inner.out)
    }

    /// Each of `es`, after a space.
    fn exprs(&mut self, es: &[TExpr]) -> String {
        es.iter().map(|e| format!(" {}", self.expr(e))).collect()
    }

    fn closure(&mut self, c: &Closure) -> String {
        let params: Vec<String> = c.params.iter().map(|p| self.pat(p)).collect();
        format!("(|{}| {})", params.join(", "), self.expr(&c.body))
    }

    /// The keys of a comparison, each as `(order [descending] closure)`.
    fn sort_keys(&mut self, keys: &[crate::SortKey]) -> Vec<String> {
        keys.iter()
            .map(|k| {
                let order = match &k.order {
                    crate::KeyOrder::Ord => "cmp".to_owned(),
                    crate::KeyOrder::Total => "total_cmp".to_owned(),
                    crate::KeyOrder::Partial { message, at } => format!("partial_cmp@{at} {message:?}"),
                };
                let descending = if k.descending { " descending" } else { "" };
                format!("({order}{descending} {})", self.closure(&k.key))
            })
            .collect()
    }

    fn expr(&mut self, e: &TExpr) -> String {
        let head = self.kind(e);
        format!("{head}:{}", e.ty.name())
    }

    fn kind(&mut self, e: &TExpr) -> String {
        match &e.kind {
            TKind::Lit(lit) => lit_text(lit),
            TKind::Local(l) => local(*l),
            TKind::Unary(op, x) => format!("({} {})", unop(*op), self.expr(x)),
            TKind::Binary(op, l, r) => format!("({} {} {})", binop(*op), self.expr(l), self.expr(r)),
            TKind::Cast(x) => format!("(as {})", self.expr(x)),
            TKind::Deref(b) => format!("(deref b{b})"),
            TKind::AddrOf { place, mutable } => {
                let place = place_text(place);
                format!("(addr-of{} {place})", if *mutable { " mut" } else { "" })
            }
            TKind::HostField(f) => format!("(field #{f})"),
            TKind::RefField { base, symbol, stored } => {
                format!("(ref-field {symbol} {} {})", elem(stored), self.expr(base))
            }
            TKind::OptionField { base, symbol } => format!("(option-field {symbol} {})", self.expr(base)),
            TKind::OptionRef(o) => format!("(option-ref {})", self.expr(o)),
            TKind::StructClone(x) => format!("(struct-clone {})", self.expr(x)),
            TKind::UnitVariant { id, index } => format!("(unit-variant #{id} {index})"),
            TKind::StructLit { id, fields, base } => {
                let mut parts: Vec<String> =
                    fields.iter().map(|(symbol, v)| format!("{symbol}={}", self.expr(v))).collect();
                if let Some(b) = base {
                    parts.push(format!("..{}", self.expr(b)));
                }
                format!("(struct s{id} {})", parts.join(" "))
            }
            TKind::MapNew => "(map-new)".to_owned(),
            TKind::MapEntries { map, view } => format!("(map.{view} l{map})"),
            TKind::MapMethod { map, name, args, .. } => format!("(map.{name} l{map}{})", self.exprs(args)),
            TKind::MapUpdate { map, key, default, op, value } => {
                let default = default.as_ref().map_or("default".to_owned(), |d| self.expr(d));
                let op = op.map_or("=".to_owned(), |op| format!("{}=", binop(op)));
                format!("(entry l{map} {} or {default} {op} {})", self.expr(key), self.expr(value))
            }
            TKind::MapPush { map, key, value } => {
                format!("(entry l{map} {} or default .push {})", self.expr(key), self.expr(value))
            }
            TKind::StructOrd { left, right, op } => {
                format!("(struct{} {} {})", binop(*op), self.expr(left), self.expr(right))
            }
            TKind::StructEq { left, right, negated } => {
                format!("({} {} {})", if *negated { "struct!=" } else { "struct==" }, self.expr(left), self.expr(right))
            }
            TKind::Assign { place, op, value } => {
                let op = op.map_or("=".to_owned(), |op| format!("{}=", binop(op)));
                format!("({op} {} {})", place_text(place), self.expr(value))
            }
            TKind::PanicFormatted(message) => format!("(panic {})", self.expr(message)),
            TKind::MemReplace { place, value: None } => format!("(mem.take {})", place_text(place)),
            TKind::MemReplace { place, value: Some(v) } => {
                format!("(mem.replace {} {})", place_text(place), self.expr(v))
            }
            TKind::Block(b) => self.block(b),
            TKind::If { cond, then, otherwise } => {
                let cond = self.expr(cond);
                let then = self.block(then);
                match otherwise {
                    Some(o) => format!("(if {cond} {then} else {})", self.expr(o)),
                    None => format!("(if {cond} {then})"),
                }
            }
            TKind::While { label, cond, body } => {
                format!("(while{} {} {})", label_text(label), self.expr(cond), self.block(body))
            }
            TKind::Loop { label, body } => format!("(loop{} {})", label_text(label), self.block(body)),
            TKind::For { label, var, start, end, inclusive, body } => {
                let range = if *inclusive { "..=" } else { ".." };
                let (start, end) = (self.expr(start), self.expr(end));
                format!("(for{} l{var} in {start}{range}{end} {})", label_text(label), self.block(body))
            }
            TKind::Break { label, value } => {
                let value = value.as_ref().map(|v| format!(" {}", self.expr(v))).unwrap_or_default();
                format!("(break{}{value})", label_text(label))
            }
            TKind::Continue { label } => format!("(continue{})", label_text(label)),
            TKind::Call { function, args } => format!("(call f{function}{})", self.exprs(args)),
            TKind::Atomic { symbol, method, value, scalar } => {
                let value = value.as_ref().map(|v| format!(" {}", self.expr(v))).unwrap_or_default();
                format!("(atomic {method} {symbol}:{}{value})", scalar.name())
            }
            TKind::UnwrapFailed { symbol, message, payload, at } => {
                format!("(unwrap-failed {symbol} {message:?} {} @{at})", self.expr(payload))
            }
            TKind::HostCall { name, symbol, receiver, args } => {
                let receiver = match receiver {
                    Some(crate::Receiver::Binding(r)) => {
                        let how = match (r.through_ref, r.mutable) {
                            (_, true) => "&mut ",
                            (true, false) => "&",
                            (false, false) => "",
                        };
                        format!(" self={how}b{}", r.binding)
                    }
                    Some(crate::Receiver::InPlace(this)) => format!(" self={}", self.expr(this)),
                    None => String::new(),
                };
                format!("(host-call {name} {symbol}{receiver}{})", self.exprs(args))
            }
            TKind::ForSeq { label, var, seq, body } => {
                format!("(for{} l{var} in {} {})", label_text(label), seq_text(seq), self.block(body))
            }
            TKind::SeqLen(seq) => format!("(len {})", seq_text(seq)),
            TKind::SeqIndex { seq, index } => format!("(index {} {})", seq_text(seq), self.expr(index)),
            TKind::SeqSum(seq) => format!("(sum {})", seq_text(seq)),
            TKind::SeqMethod { seq, name, args, .. } => format!("(seq.{name} {}{})", seq_text(seq), self.exprs(args)),
            TKind::SeqWithClosure { seq, name, closure, descending } => {
                let order = if *descending { " descending" } else { "" };
                format!("(seq.{name}{order} {} {})", seq_text(seq), self.closure(closure))
            }
            TKind::SortBy { seq, unstable, keys } => {
                let keys = self.sort_keys(keys);
                let name = if *unstable { "sort_unstable_by" } else { "sort_by" };
                format!("(seq.{name} {} {})", seq_text(seq), keys.join(" "))
            }
            TKind::SeqStore { seq, index, part, op, value, .. } => {
                let op = op.map_or("=".to_owned(), |op| format!("{}=", binop(op)));
                let part = part.map_or(String::new(), |p| format!(" .{p}"));
                format!("(store{op} {} {}{part} {})", seq_text(seq), self.expr(index), self.expr(value))
            }
            TKind::Return(value) => match value {
                Some(v) => format!("(return {})", self.expr(v)),
                None => "(return)".to_owned(),
            },
            TKind::Method { name, receiver, args } => format!("(.{name} {}{})", self.expr(receiver), self.exprs(args)),
            TKind::Some(x) => format!("(Some {})", self.expr(x)),
            TKind::ResultOf { ok, value } => format!("({} {})", if *ok { "Ok" } else { "Err" }, self.expr(value)),
            TKind::None => "None".to_owned(),
            TKind::Tuple(xs) => format!("(tuple{})", self.exprs(xs)),
            TKind::Field(x, i) => format!("(.{i} {})", self.expr(x)),
            TKind::Match { scrutinee, arms } => {
                let mut text = format!("(match {}", self.expr(scrutinee));
                let pad = "  ".repeat(self.indent + 1);
                for arm in arms {
                    let guard = arm.guard.as_ref().map(|g| format!(" if {}", self.expr(g))).unwrap_or_default();
                    let _ = write!(text, "\n{pad}{}{guard} => {}", self.pat(&arm.pat), self.expr(&arm.body));
                }
                text.push(')');
                text
            }
            TKind::OptionClosure { method, receiver, param, body } => {
                let param = param.as_ref().map(|p| self.pat(p)).unwrap_or_default();
                format!("(option.{method} {} (|{param}| {}))", self.expr(receiver), self.expr(body))
            }
            TKind::Panic { receiver, message } => match receiver {
                Some(r) => format!("(expect {} {message:?})", self.expr(r)),
                None => format!("(panic {message:?})"),
            },
            TKind::Consume { chain, sink } => {
                let chain = self.chain(chain);
                format!("(consume {chain} {})", self.sink(sink))
            }
            TKind::TextOf(seq) => format!("(text {})", seq_text(seq)),
            TKind::SliceOf { seq, mutable } => {
                format!("(slice{} {})", if *mutable { " mut" } else { "" }, seq_text(seq))
            }
            TKind::SubSlice { seq, start, end } => {
                let start = start.as_ref().map(|x| self.expr(x)).unwrap_or_default();
                let end = end.as_ref().map(|x| self.expr(x)).unwrap_or_default();
                format!("(slice {} {start}..{end})", seq_text(seq))
            }
            TKind::TextMethod { name, receiver, args } => {
                format!("(text.{name} {}{})", self.expr(receiver), self.exprs(args))
            }
            TKind::StringPush { seq, value, .. } => format!("(push-text {} {})", seq_text(seq), self.expr(value)),
            TKind::Concat { left, right, .. } => format!("(concat {} {})", self.expr(left), self.expr(right)),
            TKind::Format(pieces) => format!("(format{})", self.pieces(pieces)),
            TKind::Print { pieces, stderr } => {
                format!("({}{})", if *stderr { "eprint" } else { "print" }, self.pieces(pieces))
            }
            TKind::Parse { text, target, then, .. } => {
                format!("(parse {} {} {})", target.name(), self.expr(text), self.then(then))
            }
            TKind::TryConvert { value, target, then, .. } => {
                format!("(try-into {} {} {})", target.name(), self.expr(value), self.then(then))
            }
            TKind::SeqClone(seq) => format!("(seq-clone {})", seq_text(seq)),
            TKind::VecLit(xs) => format!("(vec{})", self.exprs(xs)),
            TKind::VecRepeat { value, count } => format!("(vec-repeat {} {})", self.expr(value), self.expr(count)),
            TKind::ForIter { label, pat, chain, body } => {
                let pat = self.pat(pat);
                let chain = self.chain(chain);
                format!("(for{} {pat} in {chain} {})", label_text(label), self.block(body))
            }
        }
    }

    fn then(&mut self, then: &ParseThen) -> String {
        match then {
            ParseThen::Unwrap => "unwrap".to_owned(),
            ParseThen::Expect(m) => format!("expect {m:?}"),
            ParseThen::UnwrapOr(v) => format!("unwrap-or {}", self.expr(v)),
            ParseThen::UnwrapOrDefault => "unwrap-or-default".to_owned(),
            ParseThen::Ok => "ok".to_owned(),
            ParseThen::IsOk => "is-ok".to_owned(),
            ParseThen::IsErr => "is-err".to_owned(),
        }
    }

    fn pieces(&mut self, pieces: &[FmtPiece]) -> String {
        let parts: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                FmtPiece::Lit(text) => format!("{text:?}"),
                FmtPiece::Arg { value, spec } => {
                    let spec = if *spec == FmtSpec::default() { String::new() } else { format!("{spec:?}") };
                    format!("{{{}{spec}}}", self.expr(value))
                }
            })
            .collect();
        parts.iter().map(|p| format!(" {p}")).collect()
    }

    fn source(&mut self, source: &IterSource) -> String {
        match source {
            IterSource::Range { start, end, inclusive } => {
                let start = self.expr(start);
                let end = end.as_ref().map(|e| self.expr(e)).unwrap_or_default();
                format!("{start}{}{end}", if *inclusive { "..=" } else { ".." })
            }
            IterSource::Seq(seq) => format!("(iter {})", seq_text(seq)),
            IterSource::Runs { seq, size, chunks, .. } => {
                let size = self.expr(size);
                format!("({} {} {size})", if *chunks { "chunks" } else { "windows" }, seq_text(seq))
            }
            IterSource::Chars(text) => format!("(chars {})", self.expr(text)),
            IterSource::Pieces { text, how } => {
                let how = match how {
                    Pieces::Whitespace => "split-whitespace".to_owned(),
                    Pieces::Lines => "lines".to_owned(),
                    Pieces::Split(p) => format!("split {}", self.expr(p)),
                };
                format!("({how} {})", self.expr(text))
            }
            IterSource::Chain { first, first_rev, second, second_rev } => {
                let rev = |r: bool| if r { " rev" } else { "" };
                let (first, second) = (self.source(first), self.source(second));
                format!("(chain {first}{} {second}{})", rev(*first_rev), rev(*second_rev))
            }
        }
    }

    fn chain(&mut self, chain: &IterChain) -> String {
        let mut text = self.source(&chain.source);
        for (stage, ty) in &chain.stages {
            let stage = match stage {
                Stage::Map(c) => format!("map {}", self.closure(c)),
                Stage::Filter(c) => format!("filter {}", self.closure(c)),
                Stage::FilterMap(c) => format!("filter_map {}", self.closure(c)),
                Stage::TakeWhile(c) => format!("take_while {}", self.closure(c)),
                Stage::SkipWhile(c) => format!("skip_while {}", self.closure(c)),
                Stage::Enumerate => "enumerate".to_owned(),
                Stage::Rev => "rev".to_owned(),
                Stage::Take(n) => format!("take {}", self.expr(n)),
                Stage::Skip(n) => format!("skip {}", self.expr(n)),
                Stage::Zip(other) => format!("zip {}", self.source(other)),
                Stage::FlatMap(fm) => {
                    let params: Vec<String> = fm.params.iter().map(|p| self.pat(p)).collect();
                    format!("flat_map |{}| {}", params.join(", "), self.chain(&fm.inner))
                }
            };
            let _ = write!(text, " .{stage}:{}", ty.name());
        }
        text
    }

    fn sink(&mut self, sink: &Sink) -> String {
        match sink {
            Sink::Sum { .. } => "sum".to_owned(),
            Sink::Product { .. } => "product".to_owned(),
            Sink::Count => "count".to_owned(),
            Sink::Max => "max".to_owned(),
            Sink::Min => "min".to_owned(),
            Sink::Last => "last".to_owned(),
            Sink::Next => "next".to_owned(),
            Sink::Any(c) => format!("any {}", self.closure(c)),
            Sink::All(c) => format!("all {}", self.closure(c)),
            Sink::Position(c) => format!("position {}", self.closure(c)),
            Sink::Find(c) => format!("find {}", self.closure(c)),
            Sink::MaxByKey(c) => format!("max_by_key {}", self.closure(c)),
            Sink::MinByKey(c) => format!("min_by_key {}", self.closure(c)),
            Sink::MaxBy(keys) => format!("max_by {}", self.sort_keys(keys).join(" ")),
            Sink::MinBy(keys) => format!("min_by {}", self.sort_keys(keys).join(" ")),
            Sink::Fold { init, closure } => format!("fold {} {}", self.expr(init), self.closure(closure)),
            Sink::Collect { .. } => "collect".to_owned(),
        }
    }

    fn pat(&mut self, pat: &TPat) -> String {
        match pat {
            TPat::Wild => "_".to_owned(),
            TPat::Bind(l) => format!("l{l}"),
            TPat::Lit { lit, negative } => format!("{}{}", if *negative { "-" } else { "" }, lit_text(lit)),
            TPat::Range { lo, hi, inclusive } => {
                let end = |e: &Option<(Lit, bool)>| {
                    e.as_ref()
                        .map(|(l, neg)| format!("{}{}", if *neg { "-" } else { "" }, lit_text(l)))
                        .unwrap_or_default()
                };
                format!("{}{}{}", end(lo), if *inclusive { "..=" } else { ".." }, end(hi))
            }
            TPat::Or(alts) => alts.iter().map(|a| self.pat(a)).collect::<Vec<_>>().join(" | "),
            TPat::Some(p) => format!("Some({})", self.pat(p)),
            TPat::Ok(p) => format!("Ok({})", self.pat(p)),
            TPat::Err(p) => format!("Err({})", self.pat(p)),
            TPat::None => "None".to_owned(),
            TPat::Tuple(ps) => format!("({})", ps.iter().map(|p| self.pat(p)).collect::<Vec<_>>().join(", ")),
            TPat::Variant { adt, index, fields } => {
                let fields: Vec<String> =
                    fields.iter().map(|f| format!("#{}:{}={}", f.number, f.ty.name(), self.pat(&f.pat))).collect();
                format!("s{adt}::{index}{{{}}}", fields.join(", "))
            }
        }
    }
}

fn local(l: LocalRef) -> String {
    match l {
        LocalRef::Binding(b) => format!("b{b}"),
        LocalRef::Snippet(l) => format!("l{l}"),
    }
}

fn lit_text(lit: &Lit) -> String {
    match lit {
        Lit::Int(n) => n.to_string(),
        Lit::Float(x) => format!("{x:?}"),
        Lit::Bool(b) => b.to_string(),
        Lit::Char(c) => format!("{c:?}"),
        Lit::Unit => "()".to_owned(),
        Lit::Str(s) => format!("{s:?}"),
    }
}

fn label_text(label: &Option<String>) -> String {
    label.as_ref().map(|l| format!(" {l}")).unwrap_or_default()
}

fn place_text(place: &Place) -> String {
    match place {
        Place::Local(l) => local(*l),
        Place::Deref(b) => format!("(deref b{b})"),
        Place::HostField(f) => format!("(field #{f})"),
        Place::ElemField(f) => format!("(elem-field #{f})"),
        Place::Elem { local: l, root, .. } => format!("(elem l{l} of b{root})"),
        Place::WholeBinding(b) => format!("(whole b{b})"),
    }
}

fn seq_text(seq: &Seq) -> String {
    let owner = match seq.kind {
        SeqKind::Local => format!("l{}", seq.binding),
        SeqKind::SliceLocal => format!("l{}[..]", seq.binding),
        SeqKind::Vec => format!("b{}", seq.binding),
        SeqKind::RefVec => format!("*b{}", seq.binding),
        SeqKind::Slice => format!("b{}[..]", seq.binding),
        SeqKind::Array(n) => format!("b{}[..{n}]", seq.binding),
        SeqKind::Field => format!("(place #{})", seq.binding),
    };
    format!("{owner}<{}>{}", elem(&seq.elem), if seq.writable { " mut" } else { "" })
}

fn elem(e: &Elem) -> String {
    match e {
        Elem::Scalar(s) => s.name().to_owned(),
        Elem::String => "String".to_owned(),
        Elem::Str => "&str".to_owned(),
        Elem::Struct(i) => format!("s{i}"),
        Elem::StructRef(i) => format!("&s{i}"),
        Elem::Tuple(t) => t.name(),
    }
}

fn unop(op: UnOp) -> &'static str {
    match op {
        UnOp::Neg => "neg",
        UnOp::Not => "not",
    }
}

fn binop(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}
