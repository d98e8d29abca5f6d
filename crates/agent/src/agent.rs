//! The model as a source of snippets: prompts from the hole, code from the reply, attempts up to a limit, named
//! models per hole (`agent!(planner, "..")`), traces and a summary.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use lacuna_hole::{Attempt, AttemptRecord, AttemptTimings, HoleRequest, Outcome, Proposal, SnippetSource};
use serde::Serialize;

use crate::extract::extract_code;
use crate::llm::Llm;
use crate::prompt::PromptTemplate;
use crate::AgentError;

/// How the agent runs.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// Attempts per hole call (at least 1): each rejected attempt's diagnostics go into the next prompt.
    pub max_attempts: u32,
    /// Ask again after an accepted snippet faults at run time. Off by default: with it, code that ran (and may
    /// have had effects) can be followed by more code, so "rejected code never runs" weakens to "ill-typed code
    /// never runs".
    pub retry_after_fault: bool,
    pub template: PromptTemplate,
    /// Per hole site (1-based), a template replacing `template`.
    pub site_templates: BTreeMap<u32, PromptTemplate>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            max_attempts: 3,
            retry_after_fault: false,
            template: PromptTemplate::default(),
            site_templates: BTreeMap::new(),
        }
    }
}

/// Fills holes with a model's code.
pub struct Agent {
    default_model: Arc<dyn Llm>,
    named: HashMap<String, Arc<dyn Llm>>,
    options: AgentOptions,
    trace: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
    summary: Mutex<Summary>,
}

/// What a run of the agent amounted to.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Hole calls that asked the model at least once.
    pub holes: u32,
    pub attempts: u32,
    /// Attempts rejected by the checker or without code.
    pub rejected: u32,
    /// Attempts accepted (and run).
    pub accepted: u32,
    /// Accepted attempts that faulted or ran out of a budget.
    pub runtime_faults: u32,
    pub model_errors: u32,
    /// Summed over attempts.
    pub timings_ms: AttemptTimings,
}

impl Summary {
    pub fn rejection_rate(&self) -> f64 {
        if self.attempts == 0 {
            0.0
        } else {
            f64::from(self.rejected) / f64::from(self.attempts)
        }
    }

    /// Attempts beyond the first, per hole call.
    pub fn retries_per_hole(&self) -> f64 {
        if self.holes == 0 {
            0.0
        } else {
            f64::from(self.attempts - self.holes.min(self.attempts)) / f64::from(self.holes)
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = &self.timings_ms;
        write!(
            f,
            "{} hole call(s), {} attempt(s), {} rejected ({:.0}%), {:.2} retries per hole; {} accepted, {} runtime \
             fault(s), {} model error(s); time: model {:.0} ms, check {:.0} ms, lower {:.0} ms, compile {:.0} ms, \
             run {:.0} ms",
            self.holes,
            self.attempts,
            self.rejected,
            100.0 * self.rejection_rate(),
            self.retries_per_hole(),
            self.accepted,
            self.runtime_faults,
            self.model_errors,
            t.model,
            t.check,
            t.lower,
            t.compile,
            t.run
        )
    }
}

impl Agent {
    pub fn new(default_model: Arc<dyn Llm>, options: AgentOptions) -> Agent {
        Agent { default_model, named: HashMap::new(), options, trace: None, summary: Mutex::new(Summary::default()) }
    }

    /// A model for `agent!(name, "..")` holes.
    pub fn with_named_model(mut self, name: &str, model: Arc<dyn Llm>) -> Agent {
        self.named.insert(name.to_owned(), model);
        self
    }

    /// Appends one JSON line per attempt to `path` (created, or truncated).
    pub fn with_trace(mut self, path: &Path) -> Result<Agent, AgentError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| AgentError::io(dir, e))?;
        }
        let file = std::fs::File::create(path).map_err(|e| AgentError::io(path, e))?;
        self.trace = Some(Mutex::new(std::io::BufWriter::new(file)));
        Ok(self)
    }

    pub fn summary(&self) -> Summary {
        self.summary.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn model_for(&self, hole: &HoleRequest) -> Result<&Arc<dyn Llm>, String> {
        match &hole.model {
            None => Ok(&self.default_model),
            Some(name) => self.named.get(name).ok_or_else(|| {
                format!("no model named `{name}` is configured; add a [models.{name}] table to lacuna.toml")
            }),
        }
    }
}

impl SnippetSource for Agent {
    fn propose(&self, hole: &HoleRequest, attempts: &[Attempt]) -> Result<Option<Proposal>, String> {
        if attempts.len() as u32 >= self.options.max_attempts.max(1) {
            return Ok(None);
        }
        let model = self.model_for(hole)?;
        let template = self.options.site_templates.get(&hole.site).unwrap_or(&self.options.template);
        let request = template.request(hole, attempts);
        let started = Instant::now();
        let crate::llm::Reply { text: reply, tokens } = model.reply(&request).map_err(|e| e.to_string())?;
        let model_ms = started.elapsed().as_secs_f64() * 1e3;
        let snippet = extract_code(&reply);
        let trace = serde_json::json!({
            "model": model.describe(),
            "prompt": request,
            "reply": reply,
            "tokens": tokens,
        });
        Ok(Some(Proposal { snippet, model_ms, tokens, trace }))
    }

    fn retry_after_fault(&self) -> bool {
        self.options.retry_after_fault
    }

    fn record(&self, record: &AttemptRecord) {
        {
            let mut s = self.summary.lock().unwrap_or_else(|p| p.into_inner());
            if record.attempt == 1 {
                s.holes += 1;
            }
            if record.snippet.is_none() && record.outcome == Outcome::Model {
                s.model_errors += 1;
            } else {
                s.attempts += 1;
                if record.accepted {
                    s.accepted += 1;
                } else {
                    s.rejected += 1;
                }
                if record.outcome.is_fault() {
                    s.runtime_faults += 1;
                }
            }
            s.timings_ms.add(&record.timings_ms);
        }
        if let Some(trace) = &self.trace {
            let mut out = trace.lock().unwrap_or_else(|p| p.into_inner());
            // A trace that cannot be written must not take the run down; the summary still counts.
            if let Ok(line) = serde_json::to_string(record) {
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        }
    }
}
