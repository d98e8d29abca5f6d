//! One check of a snippet at a hole, as a sequence of stages over one splice:
//!
//! ```text
//! begin (normalize, splice) ─► fast stage: parse, block intact, safe mode's syntax rules, rust-analyzer's errors
//!                           ─► safe mode's resolved-item rules ─► [Fast: stop here if rust-analyzer is clean]
//!                           ─► rustc's word ─► control flow stays in the hole ─► deferred violations
//! ```
//!
//! A check stopped before rustc is a [`PendingCheck`]: the same splice and analysis answer the JIT's questions
//! (the typed view, the binding uses) and, when needed, rustc's confirmation, without a second splice or a second
//! walk of safe mode's rules.

use std::time::Instant;

use lacuna_ir::SnippetUses;

use crate::analysis;
use crate::host::{self, Spliced};
use crate::line_index::LineIndex;
use crate::rustc::RustcOutcome;
use crate::{
    dedup, is_baseline, lexical_size, map_ra, map_rustc, map_violation, ms, normalize, policy, rustc_names_it, Checker,
    CheckerError, DecidedBy, Diagnostic, ErrorKind, Location, Policy, PreparedHost, Severity, Timings, Verdict,
    ViolationKind, MAX_RA_NESTING, MAX_RA_TOKENS, MAX_SNIPPET_BYTES,
};

/// The answer of the fast stage ([`Checker::precheck`]). Made once per check and matched at once: its size is no
/// cost worth a box.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Precheck {
    /// A rejection; or rustc's verdict where rust-analyzer's view was incomplete (its errors were no verdict, or it
    /// failed), an acceptance possibly.
    Decided(Verdict),
    /// rust-analyzer found no error and only rustc can confirm: [`Checker::confirm`] gives the verdict.
    Pending(PendingCheck),
}

/// A check under way: the snippet spliced into its hole once, and what the stages so far found.
#[derive(Debug)]
pub struct PendingCheck {
    hole: usize,
    /// Normalized.
    snippet: String,
    spliced: Spliced,
    /// The snippet lifted out of its hole ([`crate::lifted`]), while rust-analyzer reads it there: what the stages
    /// before rustc ask of the snippet, they ask of this splice ([`PendingCheck::view`]).
    lifted: Option<Spliced>,
    snippet_index: LineIndex,
    expected_type: Option<String>,
    /// Safe mode's policy; `None` when unconfined or not asked ([`Checker::check_with_rustc_only`]).
    policy: Option<Policy>,
    /// Violations that only rustc's acceptance makes final: an item safe mode could not resolve is usually an
    /// error rustc names better; if rustc accepts, safe mode still rejects.
    deferred: Vec<policy::Violation>,
    timings: Timings,
    /// What happened on the way that is not a diagnostic (a failure inside rust-analyzer).
    notes: Vec<String>,
    started: Instant,
    /// Whether rustc may judge the snippet in the lean program ([`crate::lean`]); not for the rustc-only reference.
    lean: bool,
}

impl PendingCheck {
    /// The hole it checks (0-based).
    pub fn hole(&self) -> usize {
        self.hole
    }

    /// The snippet, normalized.
    pub fn snippet(&self) -> &str {
        &self.snippet
    }

    /// Where the check's time went so far (parse, rust-analyzer, safe mode's allowlist; whether it read the
    /// snippet lifted).
    pub fn timings(&self) -> &Timings {
        &self.timings
    }

    /// The splice rust-analyzer reads the snippet in: lifted, or in its hole.
    fn view(&self) -> &Spliced {
        self.lifted.as_ref().unwrap_or(&self.spliced)
    }

    /// A range of [`PendingCheck::view`] in the splice's offsets (the snippet's own coordinates are the same in
    /// both; anything outside the snippet is at its start).
    fn out_of_view(&self, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let (Some(lifted), Some(here)) =
            (self.lifted.as_ref().and_then(Spliced::snippet_range), self.spliced.snippet_range())
        else {
            return range;
        };
        if range.start < lifted.start || range.end > lifted.end {
            return here.start..here.start;
        }
        range.start - lifted.start + here.start..range.end - lifted.start + here.start
    }

    fn verdict(mut self, accepted: bool, decided_by: DecidedBy, diagnostics: Vec<Diagnostic>) -> Verdict {
        self.timings.check = ms(self.started.elapsed());
        Verdict {
            accepted,
            decided_by,
            expected_type: self.expected_type,
            diagnostics,
            timings: self.timings,
            notes: self.notes,
        }
    }

    fn reject(self, decided_by: DecidedBy, diagnostics: Vec<Diagnostic>) -> Verdict {
        self.verdict(false, decided_by, diagnostics)
    }

    fn policy_reject(self, prepared: &PreparedHost, violations: &[policy::Violation]) -> Verdict {
        let diagnostics = violations
            .iter()
            .map(|v| map_violation(v, &self.spliced, &prepared.host, self.hole, &self.snippet_index, prepared))
            .collect();
        self.reject(DecidedBy::Policy, dedup(diagnostics))
    }

    /// A violation for what safe mode could not inspect, at the snippet's start.
    fn unverifiable(&self, message: String) -> policy::Violation {
        let start = self.spliced.snippet_range().expect("a spliced host has a snippet").start;
        policy::Violation {
            kind: ViolationKind::Unverifiable,
            range: start..start,
            message,
            label: "not inspected".into(),
            grant: None,
            allow: None,
        }
    }

    /// An error about the whole snippet, spanning it.
    fn whole_snippet(&self, kind: ErrorKind, message: String) -> Diagnostic {
        Diagnostic::whole_snippet(kind, message, self.snippet_index.line_col(self.snippet.len()))
    }
}

/// How far a check goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// rust-analyzer, then rustc.
    Full,
    /// rustc alone (the reference the fast path is tested against).
    RustcOnly,
    /// rust-analyzer and Lacuna's rules; stop where rustc would be asked.
    Fast,
}

/// What the fast stage left for rustc.
enum Fast {
    Decided(Verdict),
    /// rust-analyzer analysed the spliced program and found no error of the snippet's: the only state in which the
    /// fast path may hand the decision back (the JIT subset's own acceptance builds on it).
    Clean(PendingCheck),
    /// Its errors are no verdict, it failed, or the snippet does not parse: rustc decides here.
    Unclean(PendingCheck),
}

impl Checker {
    /// Checks `snippet` in hole `hole` (0-based index into the host's holes) under the checker's policy.
    pub fn check(&mut self, prepared: &PreparedHost, hole: usize, snippet: &str) -> Result<Verdict, CheckerError> {
        // Shared, not copied: the checker's own policy applies to every plain check.
        let policy = std::sync::Arc::clone(&self.policy);
        self.check_under(prepared, hole, snippet, &policy)
    }

    /// [`Checker::check`] under `policy` (a hole site's own, or a nested hole's narrowed one).
    pub fn check_under(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
        policy: &Policy,
    ) -> Result<Verdict, CheckerError> {
        let checked = self.check_inner(prepared, hole, snippet, Stage::Full, Some(policy))?;
        self.decide(prepared, checked)
    }

    /// The policy [`Checker::check`] applies.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The fast part of [`Checker::check`]: a rejection when the parser, rust-analyzer or Lacuna's rules reject
    /// the snippet; [`Precheck::Pending`] when rust-analyzer found no error and only rustc can confirm. Where
    /// rust-analyzer's view is incomplete (its errors are no verdict, or it failed), rustc decides right here.
    /// Lets a caller start work that pays off only for accepted snippets while rustc checks, and lets the JIT
    /// subset add its own checks to a clean rust-analyzer analysis.
    pub fn precheck(&mut self, prepared: &PreparedHost, hole: usize, snippet: &str) -> Result<Precheck, CheckerError> {
        let policy = std::sync::Arc::clone(&self.policy);
        self.precheck_under(prepared, hole, snippet, &policy)
    }

    /// [`Checker::precheck`] under `policy`.
    pub fn precheck_under(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
        policy: &Policy,
    ) -> Result<Precheck, CheckerError> {
        self.check_inner(prepared, hole, snippet, Stage::Fast, Some(policy))
    }

    /// rustc's verdict alone, without rust-analyzer and without safe mode: the reference the fast path is tested
    /// against. Never use it to decide whether a snippet may run.
    pub fn check_with_rustc_only(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
    ) -> Result<Verdict, CheckerError> {
        let checked = self.check_inner(prepared, hole, snippet, Stage::RustcOnly, None)?;
        self.decide(prepared, checked)
    }

    /// The verdict of a check, rustc's where the fast stage left it pending.
    fn decide(&mut self, prepared: &PreparedHost, checked: Precheck) -> Result<Verdict, CheckerError> {
        match checked {
            Precheck::Decided(verdict) => Ok(verdict),
            Precheck::Pending(pending) => self.confirm(prepared, pending),
        }
    }

    /// rustc's word on a check the fast stage left pending, and what only it makes final.
    pub fn confirm(&mut self, prepared: &PreparedHost, mut pending: PendingCheck) -> Result<Verdict, CheckerError> {
        let started = Instant::now();
        let outcome = self.rustc_judge(prepared, &pending)?;
        pending.timings.rustc = Some(ms(started.elapsed()));
        let diagnostics = match outcome {
            RustcOutcome::TimedOut => vec![pending.whole_snippet(
                ErrorKind::CheckTimeout,
                format!("rustc did not finish checking the snippet within {} s", self.rustc_timeout().as_secs()),
            )],
            RustcOutcome::Crashed { status } => vec![pending.whole_snippet(
                ErrorKind::CompilerCrash,
                format!("rustc crashed while checking the snippet ({status}), so it cannot be accepted"),
            )],
            RustcOutcome::Finished { errors } => dedup(
                errors
                    .iter()
                    .map(|e| map_rustc(e, &pending.spliced, &prepared.host, pending.hole, &pending.snippet_index))
                    .collect(),
            ),
        };
        if !diagnostics.is_empty() {
            return Ok(pending.verdict(false, DecidedBy::Rustc, diagnostics));
        }
        // rustc accepts a snippet that returns from the host function or breaks out of a host loop; Lacuna does
        // not (checked last, so real errors are reported first).
        let in_async = prepared.host.holes.get(pending.hole).is_some_and(|h| h.in_async);
        if let Some(escape) = self.control_escape(&pending, in_async) {
            return Ok(pending.reject(DecidedBy::Lacuna, vec![escape]));
        }
        if !pending.deferred.is_empty() {
            let deferred = std::mem::take(&mut pending.deferred);
            return Ok(pending.policy_reject(prepared, &deferred));
        }
        // A hole whose type the snippet settles: say which type it settled.
        if prepared.inferred[pending.hole] {
            let range = pending.spliced.snippet_range().expect("a spliced host has a snippet");
            let settled = self.with_ra(Some(&pending.spliced), move |ra| Ok(ra.expr_type(range)))?;
            pending.expected_type = Some(format!("{} (inferred from the snippet)", settled.as_deref().unwrap_or("_")));
        }
        Ok(pending.verdict(true, DecidedBy::Rustc, Vec::new()))
    }

    /// rustc's outcome for a pending check: in the lean program where the snippet allows it, and if rustc rejects
    /// it there, in the whole program (whose verdict is the one that counts; see [`crate::lean`]).
    fn rustc_judge(&mut self, prepared: &PreparedHost, pending: &PendingCheck) -> Result<RustcOutcome, CheckerError> {
        let lean = pending.lean.then(|| {
            let spliced = &pending.spliced;
            prepared.host.lean.text(&spliced.text, pending.hole, &pending.snippet, |at| spliced.spliced_offset(at))
        });
        if let Some(lean) = lean.flatten() {
            let outcome = self.rustc_check(&lean)?;
            if matches!(&outcome, RustcOutcome::Finished { errors } if errors.is_empty()) {
                return Ok(outcome);
            }
        }
        self.rustc_check(&pending.spliced.text)
    }

    /// Where an (accepted, or pending) snippet refers to the hole's bindings and to `Self`: what execution needs
    /// to run it against the binding table. Empty when rust-analyzer could not place the hole.
    pub fn snippet_uses_in(
        &mut self,
        prepared: &PreparedHost,
        check: &PendingCheck,
    ) -> Result<SnippetUses, CheckerError> {
        let Some(scope) = prepared.scopes[check.hole].clone() else { return Ok(SnippetUses::default()) };
        let range = check.view().snippet_range().expect("a spliced host has a snippet");
        self.with_ra(Some(check.view()), move |ra| Ok(ra.snippet_uses(range, &scope.bindings)))
    }

    /// The typed view of a pending snippet for the JIT, or why it is outside the JIT's subset.
    pub fn typed_snippet_in(
        &mut self,
        prepared: &PreparedHost,
        check: &PendingCheck,
    ) -> Result<Result<lacuna_ir::TypedSnippet, lacuna_ir::Unsupported>, CheckerError> {
        let Some(scope) = prepared.scopes[check.hole].clone() else {
            return Ok(Err(lacuna_ir::Unsupported {
                construct: "a hole rust-analyzer could not place".into(),
                range: 0..0,
            }));
        };
        let (depth, tokens) = lexical_size(&check.snippet);
        if depth > MAX_RA_NESTING || tokens > MAX_RA_TOKENS {
            return Ok(Err(lacuna_ir::Unsupported { construct: "a very large snippet".into(), range: 0..0 }));
        }
        let block = check.view().block_range().expect("a spliced host has a snippet");
        let named = prepared.host.outline.named.clone();
        self.with_ra(Some(check.view()), move |ra| Ok(ra.typed_snippet(block, &scope.bindings, &named)))
    }

    /// Begins a check: the snippet spliced into its hole, once. What a caller asks of the snippet afterwards
    /// ([`Checker::typed_snippet_in`], [`Checker::snippet_uses_in`]) is asked of this splice.
    pub fn begin_check(
        &self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
        policy: Option<&Policy>,
    ) -> Result<PendingCheck, CheckerError> {
        let host = &prepared.host;
        if hole >= host.holes.len() {
            return Err(CheckerError::NoSuchHole { name: host.name.clone(), hole: hole + 1, count: host.holes.len() });
        }
        let snippet = normalize(snippet);
        if snippet.len() > MAX_SNIPPET_BYTES {
            return Err(CheckerError::SnippetTooLarge { bytes: snippet.len() });
        }
        let spliced = host.splice(hole, &snippet, prepared.glue_type(hole));
        let lifted = prepared.lifts[hole]
            .as_ref()
            .filter(|lift| lift.takes(&snippet))
            .map(|lift| Spliced::lifted(host, lift, &snippet));
        Ok(PendingCheck {
            hole,
            snippet_index: LineIndex::new(&snippet),
            snippet,
            spliced,
            lifted,
            expected_type: prepared.expected_types[hole].clone(),
            policy: policy.filter(|p| !p.is_unconfined()).cloned(),
            deferred: Vec::new(),
            timings: Timings::default(),
            notes: Vec::new(),
            started: Instant::now(),
            lean: true,
        })
    }

    fn check_inner(
        &mut self,
        prepared: &PreparedHost,
        hole: usize,
        snippet: &str,
        stage: Stage,
        policy: Option<&Policy>,
    ) -> Result<Precheck, CheckerError> {
        let mut pending = self.begin_check(prepared, hole, snippet, policy)?;
        pending.lean = stage != Stage::RustcOnly;
        match self.fast_stage(prepared, pending, stage != Stage::RustcOnly) {
            Fast::Decided(verdict) => Ok(Precheck::Decided(verdict)),
            // With deferred violations the answer is a rejection either way (rustc's, or safe mode's): never let
            // a caller accept on the fast path.
            Fast::Clean(pending) if stage == Stage::Fast && pending.deferred.is_empty() => {
                Ok(Precheck::Pending(pending))
            }
            Fast::Clean(pending) | Fast::Unclean(pending) => self.confirm(prepared, pending).map(Precheck::Decided),
        }
    }

    /// Everything before rustc: the parse, the block, safe mode's syntax rules, rust-analyzer's errors (when
    /// `semantic`), safe mode's resolved-item rules. Syntax trees are built on the analysis thread only: deep trees
    /// need its stack, to build and to drop. Beyond the size limits rust-analyzer is not asked at all, and rustc
    /// decides alone.
    fn fast_stage(&mut self, prepared: &PreparedHost, pending: PendingCheck, semantic: bool) -> Fast {
        let (depth, tokens) = lexical_size(&pending.snippet);
        if depth > MAX_RA_NESTING || tokens > MAX_RA_TOKENS {
            if pending.policy.is_none() {
                return Fast::Unclean(pending);
            }
            let message = format!(
                "the snippet nests {depth} levels deep in {tokens} tokens; safe mode inspects snippets up to \
                 {MAX_RA_NESTING} levels and {MAX_RA_TOKENS} tokens"
            );
            let violation = pending.unverifiable(message);
            return Fast::Decided(pending.policy_reject(prepared, &[violation]));
        }
        let (pending, clean) = match self.analyse_stage(prepared, pending, semantic) {
            Ok(analysed) => analysed,
            Err(verdict) => return Fast::Decided(verdict),
        };
        let pending = match self.boundary_stage(prepared, pending) {
            Ok(pending) => pending,
            Err(verdict) => return Fast::Decided(verdict),
        };
        let pending = match self.resolve_stage(prepared, pending) {
            Ok(pending) => pending,
            Err(verdict) => return Fast::Decided(verdict),
        };
        if clean {
            Fast::Clean(pending)
        } else {
            Fast::Unclean(pending)
        }
    }

    /// rust-analyzer's parse and analysis of the spliced program, with safe mode's syntax rules. `Ok` carries
    /// whether it found the snippet clean; `Err` is a verdict (once per check: its size costs nothing).
    #[allow(clippy::result_large_err)]
    fn analyse_stage(
        &mut self,
        prepared: &PreparedHost,
        mut pending: PendingCheck,
        semantic: bool,
    ) -> Result<(PendingCheck, bool), Verdict> {
        let policy = pending.policy.clone();
        if let Some(lifted) = pending.lifted.take().filter(|_| semantic) {
            // Clean lifted is clean in the hole; anything else is asked again in the hole, whose answer it is.
            let block = lifted.block_range().expect("a lifted splice has a snippet");
            let policy = policy.clone();
            let analysed = self.with_ra(Some(&lifted), move |ra| Ok(ra.analyse(block, true, policy.as_ref())));
            if let Ok(analysed) = analysed {
                pending.timings.parse += ms(analysed.parse);
                pending.timings.rust_analyzer += ms(analysed.analysis);
                if matches!(&analysed.outcome, analysis::Outcome::Errors(errors) if errors.is_empty()) {
                    pending.timings.lifted = true;
                    pending.lifted = Some(lifted);
                    return Ok((pending, true));
                }
            }
        }
        let block = pending.spliced.block_range().expect("a spliced host has a snippet");
        let analysed = self.with_ra(Some(&pending.spliced), move |ra| Ok(ra.analyse(block, semantic, policy.as_ref())));
        let analysed = match analysed {
            Ok(analysed) => analysed,
            Err(e) => {
                // rust-analyzer failing (a panic inside it) is no verdict: rustc decides alone.
                pending.notes.push(format!("{e}; rustc decided alone"));
                return self.syntax_rules_alone(prepared, pending).map(|pending| (pending, false));
            }
        };
        pending.timings.parse += ms(analysed.parse);
        pending.timings.rust_analyzer += ms(analysed.analysis);
        match analysed.outcome {
            // rustc's parser names what is wrong (an error code for many mistakes rust-analyzer calls a syntax
            // error): rustc rejects it too, and decides. Safe mode could not inspect a snippet that does not parse,
            // so the answer is a rejection either way.
            analysis::Outcome::SyntaxErrors => {
                if pending.policy.take().is_some() {
                    let message = "the snippet does not parse, so safe mode could not inspect it";
                    let violation = pending.unverifiable(message.into());
                    pending.deferred.push(violation);
                }
                Ok((pending, false))
            }
            analysis::Outcome::EscapesHole => {
                let diagnostic = pending.whole_snippet(
                    ErrorKind::SnippetEscapesHole,
                    "the snippet closes the hole's block early; a snippet is statements followed by a final \
                     expression, with balanced delimiters"
                        .into(),
                );
                Err(pending.reject(DecidedBy::Lacuna, vec![diagnostic]))
            }
            analysis::Outcome::Errors(errors) => {
                let (spliced, host, hole) = (&pending.spliced, &prepared.host, pending.hole);
                let new: Vec<&analysis::RaDiagnostic> =
                    errors.iter().filter(|d| !is_baseline(d, spliced, &prepared.baseline)).collect();
                let mapped: Vec<Diagnostic> =
                    new.iter().map(|d| map_ra(d, spliced, host, hole, &pending.snippet_index)).collect();
                // "Type annotations needed" alone is often rust-analyzer's echo of something it did not resolve (a
                // path it does not report); rustc names the real cause, or accepts.
                let only_unknown_types = mapped.iter().all(|d| d.kind == ErrorKind::TypeAnnotationsNeeded.into());
                let rustc_names = new.iter().any(|d| rustc_names_it(d, &spliced.text));
                if !mapped.is_empty() && !only_unknown_types && !rustc_names {
                    return Err(pending.reject(DecidedBy::RustAnalyzer, dedup(mapped)));
                }
                let clean = mapped.is_empty();
                Ok((pending, clean))
            }
            analysis::Outcome::Policy(violations) => Err(pending.policy_reject(prepared, &violations)),
            analysis::Outcome::NotAsked => Ok((pending, false)),
        }
    }

    /// rust-analyzer failed somewhere: safe mode's syntax rules alone, on a fresh parse; then rustc may still
    /// reject the snippet for what it is (safe mode rejects it if rustc accepts).
    #[allow(clippy::result_large_err)]
    fn syntax_rules_alone(
        &mut self,
        prepared: &PreparedHost,
        mut pending: PendingCheck,
    ) -> Result<PendingCheck, Verdict> {
        let Some(policy) = pending.policy.clone() else { return Ok(pending) };
        let text = pending.spliced.text.clone();
        let block = pending.spliced.block_range().expect("a spliced host has a snippet");
        match self.with_ra(None, move |ra| Ok(ra.syntax_violations(&text, block, Some(&policy)))) {
            Ok(v) if v.is_empty() => {
                let violation = pending
                    .unverifiable("rust-analyzer failed on this snippet, so safe mode could not inspect it".into());
                pending.deferred.push(violation);
                Ok(pending)
            }
            Ok(v) => Err(pending.policy_reject(prepared, &v)),
            Err(_) => {
                let message = "the snippet could not be parsed for inspection, so safe mode rejects it";
                let violation = pending.unverifiable(message.into());
                Err(pending.policy_reject(prepared, &[violation]))
            }
        }
    }

    /// For a hole in a package's binary checked as a module of its library: what the binary, as the crate cargo
    /// makes it, could not reach of the library or do to its types, which rustc on the one crate would allow
    /// ([`crate::boundary`]). Safe mode or not: this is rustc's word on the package as cargo builds it.
    #[allow(clippy::result_large_err)]
    fn boundary_stage(&mut self, prepared: &PreparedHost, pending: PendingCheck) -> Result<PendingCheck, Verdict> {
        if !pending.spliced.text.contains(crate::boundary::BINARY_MODULE) {
            return Ok(pending);
        }
        let range = pending.spliced.snippet_range().expect("a spliced host has a snippet");
        let crossings = match self.with_ra(Some(&pending.spliced), move |ra| Ok(ra.boundary_crossings(range))) {
            Ok(crossings) if !crossings.is_empty() => crossings,
            // rust-analyzer failing here leaves the decision to the stages after it, rustc last: a false accept
            // is then one of privacy, not of soundness, and rustc's check of the one crate still holds.
            _ => return Ok(pending),
        };
        let diagnostics = crossings
            .iter()
            .map(|c| {
                let (location, (line, column), (end_line, end_column), note) = crate::locate(
                    c.range.start().into(),
                    c.range.end().into(),
                    &pending.spliced,
                    &prepared.host,
                    pending.hole,
                    &pending.snippet_index,
                );
                Diagnostic {
                    severity: Severity::Error,
                    code: Some(c.code.to_owned()),
                    kind: crate::diagnostic::kind_for_code(c.code).map_or(crate::DiagnosticKind::Other, Into::into),
                    message: c.message.clone(),
                    label: Some(c.label.clone()),
                    notes: note.into_iter().chain([c.note.to_owned()]).collect(),
                    location,
                    line,
                    column,
                    end_line,
                    end_column,
                }
            })
            .collect();
        Err(pending.reject(DecidedBy::RustAnalyzer, diagnostics))
    }

    /// Safe mode's resolved-item rules: every name, operator and macro call of the snippet resolved and judged.
    #[allow(clippy::result_large_err)]
    fn resolve_stage(&mut self, prepared: &PreparedHost, mut pending: PendingCheck) -> Result<PendingCheck, Verdict> {
        let Some(policy) = pending.policy.clone() else { return Ok(pending) };
        let range = pending.view().snippet_range().expect("a spliced host has a snippet");
        let started = Instant::now();
        let view = pending.view();
        let violations = self.with_ra(Some(view), move |ra| Ok(ra.policy_violations(range, &policy))).map(|v| {
            v.into_iter()
                .map(|v| policy::Violation { range: pending.out_of_view(v.range.clone()), ..v })
                .collect::<Vec<_>>()
        });
        pending.timings.policy = Some(ms(started.elapsed()));
        match violations {
            Ok(v) if v.iter().all(|v| v.kind == ViolationKind::Unresolved) => {
                pending.deferred.extend(v);
                Ok(pending)
            }
            Ok(v) => Err(pending.policy_reject(prepared, &v)),
            Err(e) => {
                let violation = pending.unverifiable(format!("safe mode could not inspect the snippet ({e})"));
                Err(pending.policy_reject(prepared, &[violation]))
            }
        }
    }

    /// The diagnostic for control flow that leaves the hole (`return`, `?`, `break` to a host loop), if any.
    fn control_escape(&mut self, pending: &PendingCheck, in_async: bool) -> Option<Diagnostic> {
        let owned = pending.snippet.clone();
        let (range, what, advice) = self.with_ra(None, move |_| Ok(host::control_escape(&owned, in_async))).ok()??;
        let (line, column) = pending.snippet_index.line_col(range.start);
        let (end_line, end_column) = pending.snippet_index.line_col(range.end);
        Some(Diagnostic {
            severity: Severity::Error,
            code: None,
            kind: ErrorKind::ControlEscapesHole.into(),
            message: format!("{what}; {advice}"),
            label: Some("leaves the hole".into()),
            notes: Vec::new(),
            location: Location::Snippet,
            line,
            column,
            end_line,
            end_column,
        })
    }
}
