//! Sessions: turns whose `let`s, functions, types and impls stay in scope for every later turn, as in a REPL.
//!
//! A session is its items (the latest declaration of each) and its locals (name, type as source, and the live
//! value, boxed in the runtime's store between turns: `lacuna::__session`). A turn is checked as the snippet of a
//! hole in a generated host that declares those items and locals ([`Session::check_host`]: the turn's own text,
//! so diagnostics are in its coordinates; its value's type is whatever it settles). An accepted turn runs as the
//! snippet of a second generated host ([`Session::run_host`]) whose `main` takes the locals out of the store,
//! reaches the hole, and keeps them again — with the turn's new locals, which the snippet hands back as a tuple
//! beside its value. The runner checks that snippet too, so nothing runs that rustc did not accept.
//!
//! Both hosts declare only the locals the turn names (the others stay in the store untouched), so a turn's cost
//! does not grow with the locals the session holds. A session's run hosts are one lineage, compiled incrementally
//! (see [`crate::build::Lineage`]), so a turn's build does not grow with items earlier turns declared.
//!
//! A rejected turn changes nothing. A turn that faults keeps the earlier locals as the fault left them and adds
//! nothing. A local whose type cannot be written (a closure) does not outlive its turn; redefining a type drops
//! the locals whose types name it (never reinterpreted as the new one).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use lacuna_checker::turn::{split_turn, ItemKey, TurnItem, TurnParts};
use lacuna_checker::GeneratedHole;
use lacuna_ir::FuelPoint;
use serde::Serialize;

mod nested;

pub use nested::NestedRun;

use crate::build::Lineage;
use crate::load::LoadedHost;
use crate::runner::Generated;
use crate::{Engine, ExecError, ExecPath, TurnTimings};

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// A local that lives between turns.
#[derive(Debug, Clone, Serialize)]
pub struct SessionLocal {
    pub name: String,
    /// As Rust source.
    pub ty: String,
    #[serde(skip)]
    slot: u32,
}

pub struct Session {
    id: u64,
    items: Vec<TurnItem>,
    /// The crate-level attributes of the program the session was opened on (`#![allow(..)]`), atop every host.
    attributes: String,
    locals: Vec<SessionLocal>,
    next_slot: u32,
    /// The latest host loaded for it: the runtime's store is reached through it when the session closes.
    last_host: Option<Arc<LoadedHost>>,
    turns: u32,
    transcript: Vec<TranscriptTurn>,
    /// Its run hosts' lineage: each turn's host is the session's items plus a small `main`, which rustc compiles
    /// incrementally (it reuses the code of the items no turn since changed). Sessions opened on one host program
    /// share one (a process serving many tasks on one host reuses the program's code from session to session);
    /// a session from nothing has its own, forgotten when it closes.
    lineage: Lineage,
    /// Whether the lineage is this session's alone.
    own_lineage: bool,
    /// Set by whoever asked for the turn in progress to stop it ([`Session::set_interrupt`]).
    interrupt: Option<Arc<AtomicBool>>,
    /// Locals the next turns may not reach ([`Session::set_hidden`]).
    hidden: Vec<String>,
}

/// A turn that ran (or faulted: it may have changed locals), as a transcript keeps it: replaying the snippets in
/// order rebuilds the session without a model.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct TranscriptTurn {
    /// The task, when a model wrote the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub snippet: String,
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The code that ran in the holes the turn's code opened (`agent!` inside a model-written turn), so that a
    /// replay runs the same code without asking a model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nested: Vec<NestedRun>,
}

/// What a turn did.
#[derive(Debug, Clone, Serialize)]
pub struct TurnOutcome {
    pub accepted: bool,
    /// The final expression's value as `Debug` text (`null` without one, or for a type without `Debug`).
    pub value: Option<String>,
    /// Its type, for people.
    pub value_type: Option<String>,
    pub stdout: String,
    /// Rendered as `lacuna check` renders them.
    pub diagnostics: Vec<String>,
    /// Each diagnostic's kind: rustc's code where it has one (`E0308`), else the checker's name for it.
    pub kinds: Vec<String>,
    /// Each rejected attempt's diagnostic kinds, in order: the turn's own when it was rejected as written; for a
    /// turn a model wrote, every attempt's (`["no-code"]` for a reply with no code in it).
    pub rejections: Vec<Vec<String>>,
    pub attempts: u32,
    pub path: Option<ExecPath>,
    /// Why it did not run on the JIT, when it ran on the rustc path.
    pub not_jit: Option<String>,
    pub error: Option<String>,
    /// Locals of this turn that do not outlive it, and earlier ones a redefinition dropped, with why.
    pub dropped: Vec<String>,
    /// When the turn faulted: the earlier locals it used, which keep whatever it left in them (it may have
    /// changed them before the fault; what it consumed is in `dropped`).
    pub may_have_changed: Vec<String>,
    pub timings_ms: TurnTimings,
    /// Tokens the model took for the turn's attempts, when its provider reports them.
    pub tokens: Option<u64>,
}

impl TurnOutcome {
    /// A turn that has not run (yet): nothing accepted, nothing said.
    fn pending(attempts: u32) -> TurnOutcome {
        TurnOutcome {
            accepted: false,
            value: None,
            value_type: None,
            stdout: String::new(),
            diagnostics: Vec::new(),
            kinds: Vec::new(),
            rejections: Vec::new(),
            attempts,
            path: None,
            not_jit: None,
            error: None,
            dropped: Vec::new(),
            may_have_changed: Vec::new(),
            timings_ms: TurnTimings::default(),
            tokens: None,
        }
    }

    fn failed(error: String, attempts: u32) -> TurnOutcome {
        TurnOutcome { error: Some(error), ..TurnOutcome::pending(attempts) }
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session whose first turn already has a host program's items in scope (its functions, types and impls
    /// are the session's tools; its `main` is left out and does not run). `None` if the text does not parse.
    pub fn from_host(text: &str) -> Option<Session> {
        let parts = split_turn(text)?;
        let mut session = Session::new();
        session.items = parts.items.into_iter().filter(|i| i.key != ItemKey::Fn("main".into())).collect();
        session.lineage = Lineage::of(text);
        session.own_lineage = false;
        session.attributes = lacuna_checker::turn::crate_attributes(text).iter().map(|a| format!("{a}\n")).collect();
        Some(session)
    }

    pub fn new() -> Session {
        let id = NEXT_SESSION.fetch_add(1, Ordering::Relaxed);
        Session {
            id,
            items: Vec::new(),
            attributes: String::new(),
            locals: Vec::new(),
            next_slot: 0,
            last_host: None,
            turns: 0,
            transcript: Vec::new(),
            lineage: Lineage::of(&format!("session {id}")),
            own_lineage: true,
            interrupt: None,
            hidden: Vec::new(),
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// From now on, a turn that finds `interrupt` set before it runs stops (a running rustc check is killed) with
    /// [`lacuna_checker::CheckerError::Cancelled`], and changes nothing; a model-written turn asks no more
    /// attempts. A turn that has started running stops where it is, as a fault ("cancelled"): what it changed
    /// before stays, as for any fault. `None`: turns nobody stops.
    pub fn set_interrupt(&mut self, interrupt: Option<Arc<AtomicBool>>) {
        self.interrupt = interrupt;
    }

    /// From now on, turns may not reach these locals: they are not declared where a turn is checked (a turn that
    /// names one is rejected, E0425, as for any name not in scope), a model is not told of them, and a turn that
    /// declares a local of the same name (which would replace it) is rejected. The locals stay in the session for
    /// turns that may reach them (after `set_hidden(Vec::new())`): a benchmark keeps the user's phone out of the
    /// agent's turns this way, and acts on it in its own.
    pub fn set_hidden(&mut self, names: Vec<String>) {
        self.hidden = names;
    }

    /// The locals the next turn may reach.
    fn reachable(&self) -> Vec<SessionLocal> {
        self.locals.iter().filter(|l| !self.hidden.contains(&l.name)).cloned().collect()
    }

    fn interrupted(&self) -> Result<(), ExecError> {
        match self.interrupt.as_ref().is_some_and(|i| i.load(Ordering::Relaxed)) {
            true => Err(ExecError::Checker(lacuna_checker::CheckerError::Cancelled)),
            false => Ok(()),
        }
    }

    /// The turns that ran, in order (see [`TranscriptTurn`]).
    pub fn transcript(&self) -> &[TranscriptTurn] {
        &self.transcript
    }

    /// Turns that ran.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The locals in scope for the next turn.
    pub fn locals(&self) -> &[SessionLocal] {
        &self.locals
    }

    /// The items in scope for the next turn, as declared.
    pub fn items(&self) -> impl Iterator<Item = &str> {
        self.items.iter().map(|i| i.text.as_str())
    }

    /// What a model is told about the next turn: the session's items and locals, and the task.
    fn request(&self, task: &str) -> crate::HoleRequest {
        let locals = self.reachable();
        let text = Session::check_host(&self.attributes, &self.items, &locals);
        let items: String = self.items.iter().map(|i| format!("{}\n", i.text)).collect();
        crate::HoleRequest {
            kind: crate::RequestKind::SessionTurn,
            host: "session".into(),
            site: 1,
            line: text.lines().count() as u32 - 1,
            column: 5,
            depth: 0,
            task: task.to_owned(),
            model: None,
            expected_type: None,
            enclosing_source: text.replace("agent!(\"the next turn\")", crate::HOLE_MARKER),
            bindings: locals
                .iter()
                .map(|l| crate::BindingInfo { name: l.name.clone(), ty: l.ty.clone(), mutable: true, available: true })
                .collect(),
            signatures: lacuna_checker::prompt_signatures(&items),
        }
    }

    /// The host a turn is checked in: the items, the locals (never run), and a hole whose type the turn settles.
    fn check_host(attributes: &str, items: &[TurnItem], locals: &[SessionLocal]) -> String {
        let mut text = format!("#![allow(unused)]\n{attributes}");
        for item in items {
            text.push_str(&item.text);
            text.push('\n');
        }
        text.push_str("fn main() {\n");
        for local in locals {
            text.push_str(&format!("    let mut {}: {} = ::lacuna::__private::placeholder();\n", local.name, local.ty));
        }
        text.push_str("    let __lacuna_turn = agent!(\"the next turn\");\n}\n");
        text
    }

    /// The turn checked as written in its check host: the verdict, its diagnostics rendered in the turn's
    /// coordinates, and (accepted) the types of its locals and value.
    #[allow(clippy::type_complexity)]
    fn check_turn(checker: &mut lacuna_checker::Checker, check_text: &str, turn: &str) -> Result<Checked, ExecError> {
        // Generated from accepted items and the locals' types; rustc checks it with the turn in place.
        let prepared = checker.prepare_generated("session.rs", check_text, &[GeneratedHole::Inferred])?;
        // The turn's hole is the last one (a host's items may hold holes of their own).
        let hole = prepared.host.holes.len() - 1;
        let verdict = checker.check(&prepared, hole, turn)?;
        let rendered: Vec<String> = verdict
            .diagnostics
            .iter()
            .map(|d| lacuna_checker::render::render_plain(&prepared, "turn.rs", turn, d))
            .collect();
        let types = if verdict.accepted { Some(checker.turn_types(&prepared, hole, turn)?) } else { None };
        // The turn's items run as the run host's own items, outside the snippet the turn becomes: the wrappers
        // that count std's loops over their iterators go into their text here (`TurnItem::metered`).
        let metering = if verdict.accepted {
            let uses = checker.snippet_uses(&prepared, hole, turn)?;
            uses.fuel_points.into_iter().filter(is_metering).collect()
        } else {
            Vec::new()
        };
        Ok((verdict, rendered, types, metering))
    }

    /// The host a turn runs in: `main` takes the locals out of the store, reaches the hole (typed: the value and
    /// the new locals), shows the value, and keeps the locals again.
    fn run_host(
        &self,
        items: &[TurnItem],
        before: &[SessionLocal],
        moved: &[String],
        value: Option<&str>,
        new: &[SessionLocal],
    ) -> String {
        let id = self.id;
        let mut text = format!("#![allow(unused)]\n{}{}\n", self.attributes, lacuna_ir::TICKING_IMPORT);
        // The items are the turns' own code: they run under the turn's budgets.
        for item in items {
            text.push_str(&lacuna_checker::turn::with_fuel_points(item.metered.as_deref().unwrap_or(&item.text)));
            text.push('\n');
        }
        text.push_str(SHOW);
        text.push_str("fn main() {\n");
        for local in before {
            text.push_str(&format!(
                "    let mut {name}: {ty} = unsafe {{ ::lacuna::__session::take::<{ty}>({id}, {slot}) }};\n",
                name = local.name,
                ty = local.ty,
                slot = local.slot
            ));
        }
        let new_names: Vec<&str> = new.iter().map(|l| l.name.as_str()).collect();
        let hole_type = run_hole_type(value, new);
        text.push_str(&format!(
            "    let __lacuna_turn: ::core::result::Result<{hole_type}, ::lacuna::HoleError> = agent!(\"the turn\");\n"
        ));
        // An earlier local the turn moves is the turn's: it is not kept, however the turn ends.
        let keep = |locals: &[SessionLocal], text: &mut String, indent: &str| {
            for local in locals.iter().filter(|l| !moved.contains(&l.name)) {
                text.push_str(&format!(
                    "{indent}::lacuna::__session::keep::<{}>({id}, {}, {});\n",
                    local.ty, local.slot, local.name
                ));
            }
        };
        // Earlier locals a new one shadows are dropped when the turn succeeds.
        let kept_before: Vec<SessionLocal> =
            before.iter().filter(|l| !new_names.contains(&l.name.as_str())).cloned().collect();
        text.push_str("    match __lacuna_turn {\n");
        match new.is_empty() {
            true => text.push_str("        Ok(__lacuna_value) => {\n"),
            false => text.push_str(&format!("        Ok((__lacuna_value, {})) => {{\n", tuple(&new_names))),
        }
        if value.is_some() {
            text.push_str("            __lacuna_show!(&__lacuna_value);\n");
        }
        keep(&kept_before, &mut text, "            ");
        keep(new, &mut text, "            ");
        text.push_str("        }\n        Err(_) => {\n");
        keep(before, &mut text, "            ");
        text.push_str("        }\n    }\n}\n");
        text
    }
}

/// The type of the run host's hole: the turn's value, and its new locals beside it. Without new locals the hole's
/// value is the turn's own (a scalar one can run on the JIT).
fn run_hole_type(value: Option<&str>, new: &[SessionLocal]) -> String {
    let new_types: Vec<&str> = new.iter().map(|l| l.ty.as_str()).collect();
    match new.is_empty() {
        true => value.unwrap_or("()").to_owned(),
        false => format!("({}, {})", value.unwrap_or("()"), tuple(&new_types)),
    }
}

/// The generated host's way to show a value: `Debug` text when the type has it (autoref specialization), and
/// where the engine reads it (`__lacuna_turn_shown`).
const SHOW: &str = r#"
static __LACUNA_SHOWN: ::std::sync::Mutex<::core::option::Option<::std::string::String>> = ::std::sync::Mutex::new(None);
struct __LacunaShow<'a, T>(&'a T);
trait __LacunaDebug { fn __lacuna_text(&self) -> ::core::option::Option<::std::string::String>; }
impl<T: ::core::fmt::Debug> __LacunaDebug for &&__LacunaShow<'_, T> {
    fn __lacuna_text(&self) -> ::core::option::Option<::std::string::String> { Some(format!("{:?}", self.0)) }
}
trait __LacunaPlain { fn __lacuna_text(&self) -> ::core::option::Option<::std::string::String>; }
impl<T> __LacunaPlain for &__LacunaShow<'_, T> {
    fn __lacuna_text(&self) -> ::core::option::Option<::std::string::String> { None }
}
macro_rules! __lacuna_show { ($v:expr) => {
    *__LACUNA_SHOWN.lock().unwrap_or_else(|e| e.into_inner()) = (&&&__LacunaShow($v)).__lacuna_text()
}; }
/// Copies the shown text into `buf` (up to `cap` bytes); returns its whole length, or `usize::MAX` for none.
#[no_mangle]
pub extern "C" fn __lacuna_turn_shown(buf: *mut u8, cap: usize) -> usize {
    match __LACUNA_SHOWN.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        None => usize::MAX,
        Some(text) => {
            unsafe { ::core::ptr::copy_nonoverlapping(text.as_ptr(), buf, text.len().min(cap)) };
            text.len()
        }
    }
}
"#;

/// What a turn is checked against, before anything of it is checked: its parts, what it replaces, and the host
/// that checks it as written.
struct TurnPlan {
    parts: Option<TurnParts>,
    /// Earlier locals whose types name a type the turn redeclares: they go.
    stale: Vec<SessionLocal>,
    live: Vec<SessionLocal>,
    /// Earlier items the turn does not redeclare.
    kept_items: Vec<TurnItem>,
    /// The live locals the turn names: only those are declared in its hosts (a turn cannot reach a local it does
    /// not name, macros being hygienic), so the hosts grow with what a turn uses, not with the session.
    used: Vec<SessionLocal>,
    check_text: String,
}

impl TurnPlan {
    fn new(session: &Session, turn: &str) -> TurnPlan {
        // A turn nested past what a syntax tree may hold on this thread is not split (the check rejects it).
        let parts = match lacuna_checker::beyond_syntax_limits(turn) {
            None => split_turn(turn),
            Some(_) => None,
        };
        // What the turn redeclares replaces the earlier declaration; locals whose types name a replaced type go.
        let redeclared: Vec<&TurnItem> = match &parts {
            Some(parts) => {
                session.items.iter().filter(|old| parts.items.iter().any(|new| new.key == old.key)).collect()
            }
            None => Vec::new(),
        };
        let replaced_types: Vec<&str> = redeclared
            .iter()
            .filter_map(|i| match &i.key {
                ItemKey::Type(name) => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let (stale, live): (Vec<SessionLocal>, Vec<SessionLocal>) =
            session.locals.iter().cloned().partition(|l| replaced_types.iter().any(|t| mentions(&l.ty, t)));
        let kept_items: Vec<TurnItem> =
            session.items.iter().filter(|old| !redeclared.iter().any(|r| r.key == old.key)).cloned().collect();
        // Checked where it will run: the earlier items stay (what the turn redeclares in its block shadows them
        // there; earlier items that call a redeclared function call the new one once it runs), but an impl it
        // redeclares would be a duplicate.
        let check_items: Vec<TurnItem> = session
            .items
            .iter()
            .filter(|old| !(matches!(old.key, ItemKey::Impl(_)) && redeclared.iter().any(|r| r.key == old.key)))
            .cloned()
            .collect();
        let used: Vec<SessionLocal> =
            live.iter().filter(|l| mentions(turn, &l.name) && !session.hidden.contains(&l.name)).cloned().collect();
        let check_text = Session::check_host(&session.attributes, &check_items, &used);
        TurnPlan { parts, stale, live, kept_items, used, check_text }
    }
}

/// What an accepted turn leaves behind: its new locals (in slots of the session's store), its value's type, and
/// the session's items with its own.
struct Leaves {
    new_locals: Vec<SessionLocal>,
    /// The names of every local the turn declares, whether or not it outlives the turn.
    declared: Vec<String>,
    /// The final value's type as Rust, when it can be written.
    value_source: Option<String>,
    items: Vec<TurnItem>,
    next_slot: u32,
}

impl Leaves {
    fn of(
        session: &Session,
        plan: &TurnPlan,
        parts: &TurnParts,
        types: &lacuna_checker::TurnTypes,
        metering: &[FuelPoint],
        outcome: &mut TurnOutcome,
    ) -> Leaves {
        let mut new_locals = Vec::new();
        for (name, ty) in &types.locals {
            match ty.as_ref().and_then(|t| t.source.clone()) {
                Some(ty) => new_locals.push(SessionLocal { name: name.clone(), ty, slot: 0 }),
                None => outcome.dropped.push(format!(
                    "`{name}` ({}) does not outlive this turn: its type cannot be written",
                    ty.as_ref().map_or("a type rust-analyzer could not tell".to_owned(), |t| t.display.clone())
                )),
            }
        }
        let value_type = parts.tail.as_ref().and_then(|_| types.tail.clone());
        outcome.value_type = value_type.as_ref().map(|t| t.display.clone());
        let mut next_slot = session.next_slot;
        for local in &mut new_locals {
            local.slot = next_slot;
            next_slot += 1;
        }
        let mut items = plan.kept_items.clone();
        items.extend(parts.items.iter().map(|item| {
            let inside: Vec<FuelPoint> = metering.iter().filter_map(|p| shifted_into(p, &item.range)).collect();
            let metered = (!inside.is_empty()).then(|| FuelPoint::apply_all(&item.text, &inside));
            TurnItem { metered, ..item.clone() }
        }));
        Leaves {
            new_locals,
            declared: types.locals.iter().map(|(name, _)| name.clone()).collect(),
            value_source: value_type.and_then(|t| t.source),
            items,
            next_slot,
        }
    }
}

/// A turn's check: its verdict, its diagnostics as rendered, the types of what it leaves (when accepted) and the
/// points where its code's iterators count fuel inside std (turn offsets).
type Checked = (lacuna_checker::Verdict, Vec<String>, Option<lacuna_checker::TurnTypes>, Vec<FuelPoint>);

/// Whether `point` counts a loop std runs (the points the snippet's text gets beside the syntactic ones).
fn is_metering(point: &FuelPoint) -> bool {
    match point {
        FuelPoint::TickingReceiver { .. }
        | FuelPoint::TickingArgument(_)
        | FuelPoint::TickingFunction { .. }
        | FuelPoint::TickingImport(_)
        | FuelPoint::Waiting(_)
        | FuelPoint::WaitingArgument(_)
        | FuelPoint::Sleeping(_) => true,
        FuelPoint::After(_) | FuelPoint::Wrap(_) | FuelPoint::FormatGuard { .. } => false,
    }
}

/// `point` (turn offsets) relative to an item at `range` of the turn, if it is inside it.
fn shifted_into(point: &FuelPoint, range: &std::ops::Range<usize>) -> Option<FuelPoint> {
    let span = point.span();
    (range.start <= span.start && span.end <= range.end).then(|| point.shifted(range.start))
}

/// A turn's handover run: the host it ran in, what it printed, the run's report, and what it consumed.
struct Ran {
    host: Arc<LoadedHost>,
    stdout: String,
    report: crate::RunReport,
    leaves: Leaves,
    /// Earlier locals the turn moved (consumed).
    moved_before: Vec<String>,
    /// Locals the handover found moved, in the order found (they do not outlive the turn).
    moved_away: Vec<String>,
    host_compile_ms: f64,
    run_ms: f64,
    /// The code the holes the turn's code opened ran, in the order they were asked.
    nested: Vec<NestedRun>,
}

impl Engine {
    /// One turn of `session`: check it against everything earlier turns left in scope, run it if accepted, and
    /// keep what it declared. The turn's stdout is captured.
    pub fn session_turn(&self, session: &mut Session, turn: &str) -> Result<TurnOutcome, ExecError> {
        self.session_turn_with(session, turn, None)
    }

    /// A transcript's turn again (a replay): its code, and for the holes that code opens the code they ran, in the
    /// order they were asked; a nested hole the transcript holds no code for is an `Err` in the turn.
    pub fn session_replay(&self, session: &mut Session, turn: &TranscriptTurn) -> Result<TurnOutcome, ExecError> {
        let recorded: Arc<dyn crate::SnippetSource> = Arc::new(nested::Replay::new(&turn.nested));
        let mut outcome = self.session_turn_with(session, &turn.snippet, Some(recorded))?;
        if let (true, Some(entry)) = (outcome.accepted, session.transcript.last_mut()) {
            entry.task = turn.task.clone();
        }
        outcome.attempts = 1;
        Ok(outcome)
    }

    /// A turn whose code may open holes of its own (`agent!` inside it): `model` writes them, each checked
    /// against its own scope and type as any nested hole is. Without a model such a hole is an `Err`.
    fn session_turn_with(
        &self,
        session: &mut Session,
        turn: &str,
        model: Option<Arc<dyn crate::SnippetSource>>,
    ) -> Result<TurnOutcome, ExecError> {
        let started = Instant::now();
        let mut timings = TurnTimings::default();
        let mut outcome = TurnOutcome::pending(1);
        let plan = TurnPlan::new(session, turn);
        let check_started = Instant::now();
        let (verdict, rendered, types, metering) = self.check_as_written(session, &plan, turn)?;
        timings.check = ms(check_started);
        outcome.diagnostics = rendered;
        outcome.kinds = verdict.diagnostics.iter().map(kind_of).collect();
        if verdict.accepted && plan.parts.is_none() {
            // rustc alone accepted a turn too large to split into its items and value (safe mode is off).
            let why = lacuna_checker::beyond_syntax_limits(turn).unwrap_or_else(|| "it does not parse".into());
            outcome.diagnostics.push(format!("error: the turn cannot be split into its items and value: {why}"));
            outcome.kinds.push("unverifiable".into());
        }
        let (Some(types), Some(parts)) = (types, plan.parts.as_ref()) else {
            // Rejected as written: one rejected attempt (a model-written turn lists all of its own).
            outcome.rejections = vec![outcome.kinds.clone()];
            outcome.timings_ms = finish(timings, started);
            return Ok(outcome);
        };
        if let Some((name, _)) = types.locals.iter().find(|(name, _)| session.hidden.contains(name)) {
            // It would replace a local the turn may not reach.
            outcome.diagnostics.push(format!(
                "error: `{name}` is a local this turn may not reach, and a `let {name}` here would replace it: name \
                 the local otherwise"
            ));
            outcome.kinds.push("hidden-local".into());
            outcome.rejections = vec![outcome.kinds.clone()];
            outcome.timings_ms = finish(timings, started);
            return Ok(outcome);
        }
        let leaves = Leaves::of(session, &plan, parts, &types, &metering, &mut outcome);
        let ran = self.run_handover(session, turn, &plan, parts, leaves, model)?;
        timings.host_compile += ran.host_compile_ms;
        timings.run += ran.run_ms;
        outcome.dropped.extend(
            ran.moved_away.iter().map(|name| format!("`{name}` does not outlive this turn: the turn moved it")),
        );
        self.keep(session, turn, plan, ran, &mut outcome);
        outcome.timings_ms = finish(timings, started);
        Ok(outcome)
    }

    /// The turn as written, checked where it will run: its verdict, rendered diagnostics, and (accepted) the
    /// types of what it leaves behind. Nothing has run: a turn stopped here changes nothing.
    fn check_as_written(&self, session: &Session, plan: &TurnPlan, turn: &str) -> Result<Checked, ExecError> {
        session.interrupted()?;
        let interrupt = session.interrupt.clone();
        let checked = self
            .with_checker(|checker| -> Result<_, ExecError> {
                checker.set_interrupt(interrupt);
                let checked = Session::check_turn(checker, &plan.check_text, turn);
                checker.set_interrupt(None);
                checked
            })
            .ok_or_else(|| ExecError::Internal { detail: "the engine is closed".into() })??;
        session.interrupted()?;
        Ok(checked)
    }

    /// Runs the turn as a handover snippet in a host that moves its locals into the session's store (the runner
    /// checks the snippet again, and decides the path). A new local the turn moved away (into its final value,
    /// say) cannot be handed over, nor kept an earlier local the turn moved (consumed it): rustc says so, and it
    /// is left out, until the handover is accepted as it stands.
    fn run_handover(
        &self,
        session: &Session,
        turn: &str,
        plan: &TurnPlan,
        parts: &TurnParts,
        mut leaves: Leaves,
        model: Option<Arc<dyn crate::SnippetSource>>,
    ) -> Result<Ran, ExecError> {
        let (mut host_compile_ms, mut run_ms) = (0.0, 0.0);
        let mut moved_before: Vec<String> = Vec::new();
        let mut moved_away: Vec<String> = Vec::new();
        loop {
            let snippet =
                handover(turn, &parts.items, parts.tail.clone(), leaves.value_source.is_some(), &leaves.new_locals);
            let run_text = session.run_host(
                &leaves.items,
                &plan.used,
                &moved_before,
                leaves.value_source.as_deref(),
                &leaves.new_locals,
            );
            let compile_started = Instant::now();
            let holes = [GeneratedHole::Typed(run_hole_type(leaves.value_source.as_deref(), &leaves.new_locals))];
            let generated = Generated { lineage: &session.lineage, holes: &holes };
            let host = self.load_in("session.rs", &run_text, &BTreeMap::new(), Some(generated))?;
            host_compile_ms += ms(compile_started);
            let run_started = Instant::now();
            let hole = host.prepared.host.holes.len() as u32;
            // A cancel now stops the turn where it is (a fault: what it changed stays, as for any fault).
            let given = crate::GivenSnippets(BTreeMap::from([(hole, snippet)]));
            let turn_source = Arc::new(nested::TurnSource::new(given, model.clone()));
            let source: Arc<dyn crate::SnippetSource> = turn_source.clone();
            let (stdout, report) =
                crate::capture::stdout(|| self.run_cancellable(&host, source, session.interrupt.clone()))
                    .map_err(|e| ExecError::Internal { detail: format!("cannot capture the turn's output: {e}") })?;
            let report = report?;
            run_ms += ms(run_started);
            // The turn's own hole (the holes its code opened come after it).
            let moved: Vec<String> = report
                .sites
                .iter()
                .find(|s| s.site == hole)
                .filter(|s| s.accepted == Some(false))
                .map(|s| s.diagnostics.iter().filter_map(|d| moved_name(&d.message)).collect())
                .unwrap_or_default();
            let before = leaves.new_locals.len() + moved_before.len();
            leaves.new_locals.retain(|l| !moved.contains(&l.name));
            for name in &moved {
                // Not a local of the turn's own that shadows an earlier one of the same name.
                let earlier = plan.used.iter().any(|l| &l.name == name) && !leaves.declared.contains(name);
                if earlier && !moved_before.contains(name) {
                    moved_before.push(name.clone());
                }
            }
            if leaves.new_locals.len() + moved_before.len() == before {
                let nested = turn_source.ran();
                return Ok(Ran {
                    host,
                    stdout,
                    report,
                    leaves,
                    moved_before,
                    moved_away,
                    host_compile_ms,
                    run_ms,
                    nested,
                });
            }
            moved_away.extend(moved);
        }
    }

    /// What the session keeps of a turn that ran: everything it declared when it ran to the end; when it
    /// faulted, that it ran (a replay must run it too) and what it consumed.
    fn keep(&self, session: &mut Session, turn: &str, plan: TurnPlan, ran: Ran, outcome: &mut TurnOutcome) {
        let Ran { host, stdout, report, leaves, moved_before, nested, .. } = ran;
        outcome.stdout = stdout;
        session.last_host = Some(host.clone());
        // The turn's own hole, the host's last; the holes the turn's code opened are numbered after it.
        let turn_site = host.prepared.host.holes.len() as u32;
        let site = report.sites.iter().find(|s| s.site == turn_site);
        outcome.path = site.and_then(|s| s.path);
        outcome.not_jit = site.and_then(|s| s.not_jit.clone());
        outcome.error = site.and_then(|s| s.error.clone());
        if site.is_some_and(|s| s.accepted == Some(false)) {
            // Accepted as written, rejected as handed over (a new local moved into the final value, say).
            outcome.diagnostics =
                site.map(|s| s.diagnostics.iter().map(|d| d.message.clone()).collect()).unwrap_or_default();
            outcome.kinds = site.map(|s| s.diagnostics.iter().map(kind_of).collect()).unwrap_or_default();
        }
        if site.is_some_and(|s| s.outcome == Some(crate::Outcome::Ok)) {
            outcome.accepted = true;
            outcome.value = shown(&host);
            // Earlier locals a new one shadows are gone; so are those a redefined type made stale.
            let new_names: Vec<&str> = leaves.new_locals.iter().map(|l| l.name.as_str()).collect();
            let mut locals: Vec<SessionLocal> = plan
                .live
                .into_iter()
                .filter(|l| !new_names.contains(&l.name.as_str()) && !moved_before.contains(&l.name))
                .collect();
            locals.extend(leaves.new_locals);
            for local in plan.stale {
                forget(&host, session.id, local.slot);
                outcome
                    .dropped
                    .push(format!("`{}` ({}) was dropped: the turn redefined a type it names", local.name, local.ty));
            }
            session.locals = locals;
            session.items = leaves.items;
            session.next_slot = leaves.next_slot;
            session.turns += 1;
            session.transcript.push(TranscriptTurn {
                task: None,
                snippet: turn.to_owned(),
                value: outcome.value.clone(),
                error: None,
                nested,
            });
            return;
        }
        outcome.accepted = site.is_some_and(|s| s.accepted == Some(true));
        // A fault may have changed earlier locals: a replay must run it too.
        if outcome.accepted {
            // What the turn moved is gone whether or not it got to the end.
            session.locals.retain(|l| !moved_before.contains(&l.name));
            outcome.may_have_changed = self
                .locals_used(&plan.check_text, turn)
                .into_iter()
                .filter(|name| session.locals.iter().any(|l| &l.name == name))
                .collect();
            session.transcript.push(TranscriptTurn {
                task: None,
                snippet: turn.to_owned(),
                value: None,
                error: outcome.error.clone(),
                nested,
            });
        }
    }

    /// The session locals a turn refers to (as bindings of its hole in the check host), in order, once each.
    fn locals_used(&self, check_text: &str, turn: &str) -> Vec<String> {
        self.with_checker(|checker| -> Option<Vec<String>> {
            let prepared = checker.prepare_generated("session.rs", check_text, &[GeneratedHole::Inferred]).ok()?;
            let hole = prepared.host.holes.len().checked_sub(1)?;
            let scope = prepared.scopes.get(hole)?.clone()?;
            let uses = checker.snippet_uses(&prepared, hole, turn).ok()?;
            let mut names: Vec<String> = Vec::new();
            for used in &uses.uses {
                if let Some(binding) = scope.bindings.get(used.binding) {
                    if !names.contains(&binding.name) {
                        names.push(binding.name.clone());
                    }
                }
            }
            Some(names)
        })
        .flatten()
        .unwrap_or_default()
    }

    /// A turn a model writes for `task`: its rejected attempts' diagnostics go back to it, up to `max_attempts`;
    /// the first accepted attempt runs (a fault is the turn's error, not asked again).
    pub fn session_task(
        &self,
        session: &mut Session,
        task: &str,
        source: Arc<dyn crate::SnippetSource>,
        max_attempts: u32,
    ) -> Result<TurnOutcome, ExecError> {
        let started = Instant::now();
        let request = session.request(task);
        let mut attempts: Vec<crate::Attempt> = Vec::new();
        let mut model_ms = 0.0;
        let mut last: Option<TurnOutcome> = None;
        let mut rejections: Vec<Vec<String>> = Vec::new();
        let mut tokens: Option<u64> = None;
        for _ in 0..max_attempts.max(1) {
            session.interrupted()?;
            let proposal = match source.propose(&request, &attempts) {
                Ok(Some(proposal)) => proposal,
                Ok(None) => break,
                Err(e) => return Ok(TurnOutcome::failed(format!("model error: {e}"), attempts.len() as u32)),
            };
            model_ms += proposal.model_ms;
            if let Some(n) = proposal.tokens {
                *tokens.get_or_insert(0) += n;
            }
            let snippet = match proposal.snippet {
                Ok(snippet) => snippet,
                Err(why) => {
                    rejections.push(vec!["no-code".to_owned()]);
                    attempts.push(crate::Attempt {
                        snippet: None,
                        accepted: false,
                        diagnostics: vec![why],
                        runtime_error: None,
                    });
                    continue;
                }
            };
            let outcome = self.session_turn_with(session, &snippet, Some(source.clone()))?;
            let rejected = !outcome.accepted && outcome.error.is_none();
            if rejected {
                rejections.push(outcome.kinds.clone());
            }
            attempts.push(crate::Attempt {
                snippet: Some(snippet),
                accepted: !rejected,
                diagnostics: outcome.diagnostics.clone(),
                runtime_error: outcome.error.clone(),
            });
            last = Some(outcome);
            if !rejected {
                break;
            }
        }
        let mut outcome = last.unwrap_or_else(|| TurnOutcome::failed("the model gave no snippet".into(), 0));
        if outcome.accepted {
            if let Some(entry) = session.transcript.last_mut() {
                entry.task = Some(task.to_owned());
            }
        }
        outcome.attempts = attempts.len() as u32;
        outcome.rejections = rejections;
        outcome.tokens = tokens;
        outcome.timings_ms.model = model_ms;
        outcome.timings_ms.total = ms(started);
        Ok(outcome)
    }

    /// Drops every value the session keeps, and the incremental state of its own builds.
    pub fn close_session(&self, session: Session) {
        if session.own_lineage {
            self.forget_lineage(&session.lineage);
        }
        if let Some(host) = &session.last_host {
            if let Some(close) = host.symbol("lacuna_session_close") {
                // SAFETY: the runtime exports `lacuna_session_close` with this signature (prelude/session.rs).
                let close: extern "C" fn(u64) = unsafe { std::mem::transmute(close) };
                close(session.id);
            }
        }
    }
}

/// The snippet that runs a turn and hands back its value and new locals: the turn with its items blanked out
/// (they are the host's now; positions stay), and its final expression wrapped.
fn handover(
    turn: &str,
    items: &[TurnItem],
    tail: Option<std::ops::Range<usize>>,
    value: bool,
    new: &[SessionLocal],
) -> String {
    let mut text: Vec<u8> = turn.as_bytes().to_vec();
    for item in items {
        for b in &mut text[item.range.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    let mut text = String::from_utf8_lossy(&text).into_owned();
    let locals: Vec<&str> = new.iter().map(|l| l.name.as_str()).collect();
    let locals = tuple(&locals);
    if new.is_empty() {
        // The hole's value is the turn's own (see `Session::run_host`).
        if let (Some(tail), false) = (tail, value) {
            text.replace_range(tail.clone(), &format!("{{ let _ = {}; }}", &turn[tail]));
        }
        return text;
    }
    match (tail, value) {
        (Some(tail), true) => {
            text.replace_range(tail.clone(), &format!("({}, {locals})", &turn[tail]));
        }
        (Some(tail), false) => {
            text.replace_range(tail.clone(), &format!("{{ let _ = {}; ((), {locals}) }}", &turn[tail]));
        }
        (None, _) => {
            text.push_str(&format!("\n((), {locals})"));
        }
    }
    text
}

/// A tuple of these (types, names or values): `()`, `(a,)`, `(a, b)`.
fn tuple(parts: &[&str]) -> String {
    match parts {
        [] => "()".to_owned(),
        [one] => format!("({one},)"),
        many => format!("({})", many.join(", ")),
    }
}

/// How a diagnostic's kind is counted: rustc's code where it has one, else the checker's name.
fn kind_of(d: &lacuna_checker::Diagnostic) -> String {
    d.code_or_kind().to_owned()
}

/// The local a "use of (partially) moved value: `x`" diagnostic names.
fn moved_name(message: &str) -> Option<String> {
    let rest = [
        "use of moved value: `",
        "borrow of moved value: `",
        "use of partially moved value: `",
        "borrow of partially moved value: `",
    ]
    .iter()
    .find_map(|prefix| message.strip_prefix(prefix))?;
    Some(rest.split('`').next()?.to_owned())
}

/// Whether `text` has `name` as a whole word anywhere (code, strings, comments). For a turn and a local: more
/// than the turn's uses of it, never fewer (`format!("{name}")` names it inside a string). For a type (as source)
/// and a type's name: whether it names that type as a whole path segment.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == name)
}

fn shown(host: &LoadedHost) -> Option<String> {
    let address = host.symbol("__lacuna_turn_shown")?;
    // SAFETY: the turn's host defines `__lacuna_turn_shown` with this signature (`SHOW`).
    let read: extern "C" fn(*mut u8, usize) -> usize = unsafe { std::mem::transmute(address) };
    // Its length first, then the text (whole, however long).
    let len = read(std::ptr::null_mut(), 0);
    if len == usize::MAX {
        return None;
    }
    let mut buffer = vec![0u8; len];
    read(buffer.as_mut_ptr(), len);
    Some(String::from_utf8_lossy(&buffer).into_owned())
}

fn forget(host: &LoadedHost, session: u64, slot: u32) {
    if let Some(address) = host.symbol("lacuna_session_forget") {
        // SAFETY: the runtime exports `lacuna_session_forget` with this signature (prelude/session.rs).
        let forget: extern "C" fn(u64, u32) = unsafe { std::mem::transmute(address) };
        forget(session, slot);
    }
}

fn finish(timings: TurnTimings, started: Instant) -> TurnTimings {
    TurnTimings { total: ms(started), ..timings }
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}
