//! Holes a turn's code opens (`agent!` inside a model-written turn, paper §3.3): the turn's model writes them, and
//! the transcript keeps the code they ran so that a replay (a saved transcript, a worker restored after a crash)
//! runs the same code without asking a model again.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::{Attempt, AttemptRecord, GivenSnippets, HoleRequest, Proposal, SnippetSource, NO_SNIPPET};

/// The code one call of a nested hole ran (an accepted attempt: it ran, to its end or to a fault).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestedRun {
    /// The hole's site id (nested holes are numbered after the turn host's own).
    pub site: u32,
    pub snippet: String,
}

/// Where a turn's snippets come from: the turn's own code for its hole; every hole that code opens goes to
/// `nested` (the turn's model, or a replay), or is an `Err` without one. It keeps, in the order they were asked,
/// the nested attempts that were accepted.
pub(super) struct TurnSource {
    turn: GivenSnippets,
    nested: Option<std::sync::Arc<dyn SnippetSource>>,
    /// Every nested proposal in the order asked, and whether it was accepted (known once it is recorded).
    asked: Mutex<Vec<(NestedRun, bool)>>,
}

impl TurnSource {
    pub(super) fn new(turn: GivenSnippets, nested: Option<std::sync::Arc<dyn SnippetSource>>) -> TurnSource {
        TurnSource { turn, nested, asked: Mutex::new(Vec::new()) }
    }

    fn is_turns(&self, site: u32) -> bool {
        self.turn.0.contains_key(&site)
    }

    /// The nested code that ran, in the order it was asked for.
    pub(super) fn ran(&self) -> Vec<NestedRun> {
        let asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked.iter().filter(|(_, accepted)| *accepted).map(|(run, _)| run.clone()).collect()
    }
}

impl SnippetSource for TurnSource {
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String> {
        if self.is_turns(hole.site) {
            return self.turn.propose(hole, attempts);
        }
        let Some(nested) = &self.nested else { return Err(NO_SNIPPET.to_owned()) };
        let proposal = nested.propose(hole, attempts)?;
        if let Some(Proposal { snippet: Ok(snippet), .. }) = &proposal {
            let run = NestedRun { site: hole.site, snippet: snippet.clone() };
            self.asked.lock().unwrap_or_else(|e| e.into_inner()).push((run, false));
        }
        Ok(proposal)
    }

    // Never: the turn's own hole has one snippet (a model-written turn's attempts are `session_task`'s), and a
    // retry there would turn its fault into a rejection. Nested holes in a session are not retried after a fault
    // either.

    fn record(&self, record: &AttemptRecord) {
        if self.is_turns(record.site) {
            return;
        }
        if let (true, Some(snippet)) = (record.accepted, &record.snippet) {
            let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
            let earliest = asked
                .iter_mut()
                .find(|(run, accepted)| !accepted && run.site == record.site && &run.snippet == snippet);
            if let Some((_, accepted)) = earliest {
                *accepted = true;
            }
        }
        if let Some(nested) = &self.nested {
            nested.record(record);
        }
    }
}

/// A transcript's nested code handed out again: each site's in the order it was first asked for, one attempt
/// each.
pub(super) struct Replay {
    queues: Mutex<BTreeMap<u32, VecDeque<String>>>,
}

impl Replay {
    pub(super) fn new(runs: &[NestedRun]) -> Replay {
        let mut queues: BTreeMap<u32, VecDeque<String>> = BTreeMap::new();
        for run in runs {
            queues.entry(run.site).or_default().push_back(run.snippet.clone());
        }
        Replay { queues: Mutex::new(queues) }
    }
}

impl SnippetSource for Replay {
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String> {
        if !attempts.is_empty() {
            return Ok(None);
        }
        let next =
            self.queues.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&hole.site).and_then(VecDeque::pop_front);
        let snippet = next.ok_or_else(|| {
            format!(
                "the transcript holds no more code for the nested hole at site {} (the replay took another path)",
                hole.site
            )
        })?;
        Ok(Some(Proposal { snippet: Ok(snippet), model_ms: 0.0, tokens: None, trace: serde_json::Value::Null }))
    }
}
