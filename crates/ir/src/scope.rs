//! What execution needs to know about a hole beyond the verdict: the bindings visible there (the binding table)
//! and, for an accepted snippet, where it uses them. Plain data; the checker computes it with rust-analyzer.

/// A local variable (or `self`) visible at a hole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub name: String,
    /// Byte offset of the binding's declaration in the host: its identity across the unfilled and spliced texts
    /// (declarations precede the hole, so splicing does not move them).
    pub decl: usize,
    /// The type as Rust source valid at the hole, when it can be written there.
    pub ty: Option<String>,
    /// The type for people (always present).
    pub ty_display: String,
    /// Declared `mut`.
    pub mutable: bool,
    /// The type is `Copy`.
    pub copy: bool,
    /// The type is `&mut U` (an immutable binding of it can still be reborrowed mutably).
    pub mut_ref: bool,
    /// The method receiver `self`.
    pub is_self: bool,
    /// rustc's compile-time evaluation cannot know the value at the hole (a parameter, a `for` variable, an
    /// immutable binding initialized by a call), so its lints cannot fire on arithmetic over it.
    pub const_opaque: bool,
    /// The value rustc's compile-time evaluation knows at the hole, when the binding is immutable and initialized
    /// with an integer literal (possibly negated): `let limit: i64 = 6;`.
    pub const_value: Option<i128>,
    /// The binding is a callable whose type cannot be named where the snippet runs — a closure, a type parameter
    /// bounded by an `Fn` trait, an `impl Fn(..)` parameter — with the `Fn` trait it is called through.
    pub callable: Option<Callable>,
}

/// How a closure-like binding is called: the `Fn` trait (`FnMut(&str) -> usize`) its value is handed over as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callable {
    pub kind: FnKind,
    /// Parameters and return type, as written after the trait's name: `(i32, &str) -> bool`, `()`.
    pub signature: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnKind {
    Fn,
    FnMut,
    FnOnce,
}

impl Binding {
    /// For a binding JIT code calls as a host closure: the type of what its table slot points to, `&dyn Fn(..)`
    /// or `&mut dyn FnMut(..)` — a closure the entry hands over as a `dyn` reference ([`Binding::callable`] of an
    /// `Fn`, or of an `FnMut` the host declared `mut`), or a binding that is such a reference already — or
    /// `Option<Box<dyn FnOnce(..)>>` for an `FnOnce` closure the host hands over whole, which the call takes out.
    pub fn dyn_callable(&self) -> Option<String> {
        // `&(dyn Fn(&str) -> String + 'static)`, as rust-analyzer writes the type: the object's lifetime bound
        // does not change the reference's layout.
        let object = |ty: &str| -> Option<String> {
            for (reference, callable) in [("&", "Fn("), ("&mut ", "FnMut(")] {
                let Some(rest) = ty.strip_prefix(reference) else { continue };
                if rest.starts_with("dyn ") && rest[4..].starts_with(callable) {
                    return Some(ty.to_owned());
                }
                let Some(inner) = rest.strip_prefix("(dyn ").and_then(|r| r.strip_suffix(')')) else { continue };
                if !inner.starts_with(callable) {
                    continue;
                }
                let (signature, bound) = inner.rsplit_once(" + ")?;
                let lifetime = bound.strip_prefix('\'')?.chars().all(|c| c.is_alphanumeric() || c == '_');
                return lifetime.then(|| format!("{reference}dyn {signature}"));
            }
            None
        };
        let text = match (&self.callable, &self.ty) {
            (Some(c), _) if c.kind == FnKind::Fn => format!("&dyn {}", c.trait_text()),
            (Some(c), _) if c.kind == FnKind::FnMut && self.mutable => format!("&mut dyn {}", c.trait_text()),
            (Some(c), _) if c.kind == FnKind::FnOnce => format!("Option<Box<dyn {}>>", c.trait_text()),
            (Some(_), _) => return None,
            (None, Some(ty)) => object(ty)?,
            _ => return None,
        };
        // A lifetime or another bound cannot be named where the shim is declared.
        (!text.contains('\'') && !text.contains('+')).then_some(text)
    }
}

impl Callable {
    /// The trait as written in a bound or after `dyn`: `FnMut(u32) -> bool`.
    pub fn trait_text(&self) -> String {
        let name = match self.kind {
            FnKind::Fn => "Fn",
            FnKind::FnMut => "FnMut",
            FnKind::FnOnce => "FnOnce",
        };
        format!("{name}{}", self.signature)
    }
}

/// The bindings and context of one hole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HoleScope {
    /// Locals and `self` visible at the hole, in declaration order.
    pub bindings: Vec<Binding>,
    /// Type parameters in scope (of the enclosing function and impl), by name.
    pub type_params: Vec<String>,
    /// Const parameters are in scope (a snippet there cannot be compiled on its own yet).
    pub const_params: bool,
    /// `Self`, as Rust source, when the hole is inside an impl.
    pub self_type: Option<String>,
    /// Host offset just after the `{` of the innermost block around the hole: where an item can be declared
    /// that sees everything the hole sees except locals.
    pub item_position: Option<usize>,
    /// A local visible at the hole is not among `bindings` (one a macro declared, whose declaration is not in the
    /// host's text).
    pub unlisted_locals: bool,
}

/// One place an accepted snippet refers to a binding of its hole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingUse {
    /// Index into [`HoleScope::bindings`].
    pub binding: usize,
    /// Byte range in the snippet (for a format-string capture: the name inside the string).
    pub range: std::ops::Range<usize>,
    pub kind: UseKind,
    /// The outermost `move` closure (or `async move` block) of the snippet around the use, whose value captures
    /// the binding by value (moved, or copied for a `Copy` type), as its snippet range.
    pub moved_into: Option<std::ops::Range<usize>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UseKind {
    /// A path expression or method receiver: `x`, `self`.
    Path,
    /// A struct literal field shorthand: `Point { x }`.
    FieldShorthand,
    /// An implicit capture in a format string, `"{x}"`; `close` is the snippet offset of the format macro's
    /// closing delimiter and `comma` whether a `,` already precedes it.
    FormatCapture { close: usize, comma: bool },
}

/// What an accepted snippet refers to: its hole's bindings, and `Self`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnippetUses {
    pub uses: Vec<BindingUse>,
    /// Snippet ranges of the `Self` keyword.
    pub self_types: Vec<std::ops::Range<usize>>,
    /// Where a run-time budget check goes: every loop body, function body and closure body of the snippet.
    pub fuel_points: Vec<FuelPoint>,
    /// Bindings whose type in the program with the snippet in place differs from the host's alone (an unsuffixed
    /// literal the snippet settles: `let workers = 4;` is `usize` once the snippet divides a length by it), as
    /// (binding index, type as Rust source there).
    pub retyped: Vec<(usize, String)>,
    /// Fields of bindings the snippet names whose type holds a `Mutex` or `RwLock` (`state.log` in
    /// `state.log.lock()`): a fault with a guard of one held poisons it, and the host's next `lock().unwrap()`
    /// would panic, so the entry clears them when the snippet faults.
    pub lock_fields: Vec<FieldPlace>,
}

/// A field path from a binding, as the snippet wrote it: `state.inner.log` is binding `state`, fields
/// `["inner", "log"]` (tuple fields by their index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlace {
    pub binding: usize,
    pub fields: Vec<String>,
}

/// A place in a snippet where a run-time check goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuelPoint {
    /// Count fuel right after the `{` that ends at this snippet offset.
    After(usize),
    /// Count fuel around this expression (a closure body without braces).
    Wrap(std::ops::Range<usize>),
    /// The top of a `fmt` method of the snippet's (`Display`, `Debug`, ..), after the `{` that ends at `after`:
    /// while its thread panics it writes a placeholder instead of running. std formats a panic's message inside
    /// its panic machinery, where a second panic aborts the process; a snippet's `fmt` that panics there would
    /// take the host down.
    FormatGuard { after: usize, formatter: Option<String> },
    /// The receiver of an iterator method std steps in a loop of its own (`it.count()`, `(0..).max()`,
    /// `it.flatten()`): made a counting wrapper at the `.` at this offset, which takes the receiver by value
    /// (`by_ref: false`, the method takes `self`) or by `&mut` (the method takes `&mut self`), as the method does.
    TickingReceiver { dot: usize, by_ref: bool },
    /// An iterator argument a std function drains (`Vec::from_iter(it)`, `set.extend(it)`): wrapped whole.
    TickingArgument(std::ops::Range<usize>),
    /// A function other than a closure written in place given to an adapter that calls it until it says stop
    /// (`filter(char::is_numeric)`): wrapped in a closure that counts, taking the element by reference
    /// (`by_reference`, for `filter` and `skip_while`) or by value.
    TickingFunction { range: std::ops::Range<usize>, by_reference: bool },
    /// The top of a module the snippet declares, after the `{` that ends at this offset: [`TICKING_IMPORT`] goes
    /// there, as the entry's block has it, for the [`FuelPoint::TickingReceiver`]s and [`FuelPoint::Waiting`]s
    /// inside.
    TickingImport(usize),
    /// The name of a blocking wait of std's (`recv`, `lock`, `join`, `wait`, ...) starting at this offset: made its
    /// prelude twin by [`WAITING_PREFIX`] (`rx.__lacuna_waiting_recv()`), which waits in slices and looks at the
    /// run's time budget between them.
    Waiting(usize),
    /// A channel receiver stepped as an iterator by code that takes any iterator (a `for` loop, `v.extend(&rx)`,
    /// a generic function's argument): wrapped whole in [`WAITING_ARGUMENT`], an iterator that waits the same way.
    WaitingArgument(std::ops::Range<usize>),
    /// `thread::sleep` as the snippet names it (a path, called or used as a value): wrapped whole in [`SLEEPING`],
    /// which makes it the prelude's twin, a `fn(Duration)` that sleeps in slices and looks at the run's time budget
    /// between them.
    Sleeping(std::ops::Range<usize>),
}

/// The statement a fuel point becomes in rustc-path code: counts fuel, checks time, the stack and the interrupt
/// (a no-op outside a snippet's run).
pub const FUEL_TICK: &str = "::lacuna::__private::tick();";

/// What a [`FuelPoint::TickingReceiver`] inserts: a method of `lacuna::__private::TickingIter`, which code with
/// such points imports ([`TICKING_IMPORT`]).
pub fn ticking_receiver(by_ref: bool) -> &'static str {
    if by_ref {
        ".__lacuna_ticking_mut()"
    } else {
        ".__lacuna_ticking()"
    }
}

/// The call a [`FuelPoint::TickingArgument`] is wrapped in.
pub const TICKING_ARGUMENT: &str = "::lacuna::__private::ticking_into(";

/// The call a [`FuelPoint::TickingFunction`] is wrapped in.
pub fn ticking_function(by_reference: bool) -> &'static str {
    if by_reference {
        "::lacuna::__private::ticking_predicate("
    } else {
        "::lacuna::__private::ticking_function("
    }
}

/// The import the methods [`FuelPoint::TickingReceiver`] and [`FuelPoint::Waiting`] insert need, as an item of
/// the block the snippet is in.
pub const TICKING_IMPORT: &str = "#[allow(unused_imports)] use ::lacuna::__private::{TickingIter as _, \
                                  WaitingReceiver as _, WaitingIntoIter as _, WaitingSender as _, WaitingMutex as _, \
                                  WaitingRwLock as _, WaitingCondvar as _, WaitingJoin as _};";

/// What a [`FuelPoint::Waiting`] puts before a wait's name.
pub const WAITING_PREFIX: &str = "__lacuna_waiting_";

/// The call a [`FuelPoint::WaitingArgument`] is wrapped in.
pub const WAITING_ARGUMENT: &str = "::lacuna::__private::waiting_into(";

/// The call a [`FuelPoint::Sleeping`] is wrapped in.
pub const SLEEPING: &str = "::lacuna::__private::sleeping(";

/// The statement a [`FuelPoint::FormatGuard`] becomes: `formatter` is the `fmt` method's formatter parameter, if
/// it has a name.
pub fn format_guard(formatter: Option<&str>) -> String {
    let ret = match formatter {
        Some(f) => format!("::core::fmt::Formatter::write_str({f}, \"<not formatted while panicking>\")"),
        None => "::core::result::Result::Ok(())".to_owned(),
    };
    format!("if ::std::thread::panicking() {{ return {ret}; }}")
}

impl FuelPoint {
    /// What this point inserts, as (offset, closes, text): `closes` marks the text that ends a wrapping (it goes
    /// before an opening one at the same offset). The rustc path's edits and [`FuelPoint::apply_all`] both use it.
    pub fn insertions(&self) -> Vec<(usize, bool, String)> {
        let wrap = |range: &std::ops::Range<usize>, open: String, close: &str| {
            vec![(range.start, false, open), (range.end, true, close.to_owned())]
        };
        match self {
            FuelPoint::After(at) => vec![(*at, false, format!(" {FUEL_TICK}"))],
            FuelPoint::FormatGuard { after, formatter } => {
                vec![(*after, false, format!(" {}", format_guard(formatter.as_deref())))]
            }
            FuelPoint::Wrap(range) => wrap(range, format!("{{ {FUEL_TICK} "), " }"),
            FuelPoint::TickingReceiver { dot, by_ref } => vec![(*dot, false, ticking_receiver(*by_ref).to_owned())],
            FuelPoint::TickingArgument(range) => wrap(range, TICKING_ARGUMENT.to_owned(), ")"),
            FuelPoint::TickingFunction { range, by_reference } => {
                wrap(range, ticking_function(*by_reference).to_owned(), ")")
            }
            FuelPoint::TickingImport(at) => vec![(*at, false, format!(" {TICKING_IMPORT}"))],
            FuelPoint::Waiting(at) => vec![(*at, false, WAITING_PREFIX.to_owned())],
            FuelPoint::WaitingArgument(range) => wrap(range, WAITING_ARGUMENT.to_owned(), ")"),
            FuelPoint::Sleeping(range) => wrap(range, SLEEPING.to_owned(), ")"),
        }
    }

    /// Whether the code this point is in needs [`TICKING_IMPORT`] (it calls a method of one of its traits).
    pub fn needs_import(&self) -> bool {
        matches!(self, FuelPoint::TickingReceiver { .. } | FuelPoint::Waiting(_))
    }

    /// The same point with its offsets moved back by `by` (from a file's offsets to a snippet's, from a turn's to
    /// an item's).
    pub fn shifted(&self, by: usize) -> FuelPoint {
        let range = |r: &std::ops::Range<usize>| r.start - by..r.end - by;
        match self {
            FuelPoint::After(at) => FuelPoint::After(at - by),
            FuelPoint::Wrap(r) => FuelPoint::Wrap(range(r)),
            FuelPoint::FormatGuard { after, formatter } => {
                FuelPoint::FormatGuard { after: after - by, formatter: formatter.clone() }
            }
            FuelPoint::TickingReceiver { dot, by_ref } => FuelPoint::TickingReceiver { dot: dot - by, by_ref: *by_ref },
            FuelPoint::TickingArgument(r) => FuelPoint::TickingArgument(range(r)),
            FuelPoint::TickingFunction { range: r, by_reference } => {
                FuelPoint::TickingFunction { range: range(r), by_reference: *by_reference }
            }
            FuelPoint::TickingImport(at) => FuelPoint::TickingImport(at - by),
            FuelPoint::Waiting(at) => FuelPoint::Waiting(at - by),
            FuelPoint::WaitingArgument(r) => FuelPoint::WaitingArgument(range(r)),
            FuelPoint::Sleeping(r) => FuelPoint::Sleeping(range(r)),
        }
    }

    /// The offsets this point inserts at, lowest first.
    pub fn span(&self) -> std::ops::Range<usize> {
        let at = self.insertions().iter().map(|(at, _, _)| *at).collect::<Vec<_>>();
        at.iter().copied().min().unwrap_or(0)..at.iter().copied().max().unwrap_or(0)
    }

    /// `text` with `points` (offsets into it) made [`FUEL_TICK`] statements.
    pub fn apply_all(text: &str, points: &[FuelPoint]) -> String {
        let mut inserts: Vec<(usize, bool, String)> = points.iter().flat_map(FuelPoint::insertions).collect();
        inserts.sort_by_key(|(at, closes, _)| (*at, !*closes));
        let mut out = String::with_capacity(text.len() + inserts.len() * (FUEL_TICK.len() + 4));
        let mut from = 0;
        for (at, _, insert) in inserts {
            let at = at.min(text.len());
            out.push_str(&text[from..at]);
            out.push_str(&insert);
            from = at;
        }
        out.push_str(&text[from..]);
        out
    }
}
