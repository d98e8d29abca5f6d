//! The prompt (paper §3.1): a system instruction, the expected type written as Rust, the enclosing source with the
//! hole marked, the bindings in scope, the program's item signatures and the task; on a retry, the previous
//! attempt and what was wrong with it.

use lacuna_hole::{Attempt, HoleRequest, RequestKind, HOLE_MARKER};

use crate::llm::{ChatRequest, Message};

/// The default system instruction.
pub const DEFAULT_SYSTEM: &str = "\
You fill typed holes in Rust programs. You are shown a Rust program with one hole, the type the hole must \
produce, the variables in scope there, and a task. Reply with Rust code that, placed at the hole, computes a value \
of that type.

Your code is compiled exactly at the hole before any of it runs, as if the programmer had typed it there: use only \
names in scope (the variables listed, the program's functions and types, std), and follow Rust's type and \
ownership rules. If it does not compile you get the compiler's errors and another try.

Write the body of a block: statements, then a final expression of the required type. Do not wrap the value in \
`Ok(..)`, and do not leave the hole with `return`, `?`, `break` or `continue`. Print progress with `println!` when \
it helps the user. The program's functions are your tools: call them.

Your code may contain holes itself: `agent!(\"subtask\")` (or `agent!(format!(..))`) is an expression of type \
`Result<U, lacuna::HoleError>` whose code is written later, for that smaller task, seeing everything in scope at \
that point, your locals included. Use it to split work you cannot finish directly.

Reply with exactly one ```rust code block.";

/// The parts of a prompt a run can replace, per run and per hole site.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptTemplate {
    pub system: String,
    /// Extra text for the model (project context, conventions), shown before the task.
    pub context: Option<String>,
}

impl Default for PromptTemplate {
    fn default() -> Self {
        PromptTemplate { system: DEFAULT_SYSTEM.to_owned(), context: None }
    }
}

impl PromptTemplate {
    /// The request for `hole` after `attempts` (the previous replies and what was wrong with them).
    pub fn request(&self, hole: &HoleRequest, attempts: &[Attempt]) -> ChatRequest {
        let mut messages = vec![Message::user(self.first_message(hole))];
        for attempt in attempts {
            messages.push(Message::assistant(match &attempt.snippet {
                Some(code) => format!("```rust\n{code}\n```"),
                None => "(no code)".to_owned(),
            }));
            messages.push(Message::user(feedback(attempt)));
        }
        ChatRequest { system: self.system.clone(), messages }
    }

    fn first_message(&self, hole: &HoleRequest) -> String {
        let mut text = String::new();
        text.push_str(&format!("Task: {}\n\n", hole.task.trim()));
        match (hole.kind, &hole.expected_type) {
            (RequestKind::SessionTurn, _) => text.push_str(
                "This is one turn of a session, as at a REPL: its `let`s, functions and types stay in scope for later \
                 turns, and its final expression, if any, is its value (of any type).\n\n",
            ),
            (RequestKind::Hole, Some(ty)) => text.push_str(&format!("The hole's value must have type `{ty}`.\n\n")),
            (RequestKind::Hole, None) => text.push_str("The hole's type is inferred from how the program uses it.\n\n"),
        }
        let (usable, unusable): (Vec<_>, Vec<_>) = hole.bindings.iter().partition(|b| b.available);
        if usable.is_empty() {
            text.push_str("No local variables are in scope at the hole.\n\n");
        } else {
            text.push_str("Variables in scope at the hole:\n");
            for b in usable {
                let mutable = if b.mutable { "mut " } else { "" };
                text.push_str(&format!("- `{mutable}{}: {}`\n", b.name, b.ty));
            }
            for b in unusable {
                text.push_str(&format!(
                    "- `{}: {}` (moved or borrowed by the program here: do not use)\n",
                    b.name, b.ty
                ));
            }
            text.push('\n');
        }
        if !hole.signatures.is_empty() {
            text.push_str("The program defines:\n");
            for s in &hole.signatures {
                text.push_str(&format!("- `{s}`\n"));
            }
            text.push('\n');
        }
        if let Some(context) = &self.context {
            text.push_str(context.trim());
            text.push_str("\n\n");
        }
        text.push_str(&format!(
            "The program ({}), with the hole marked `{HOLE_MARKER}` at line {}:\n```rust\n{}\n```\n\nReply with the \
             code for the hole in one ```rust block.",
            hole.host,
            hole.line,
            hole.enclosing_source.trim_end()
        ));
        text
    }
}

/// What the model is told after an attempt that did not work.
fn feedback(attempt: &Attempt) -> String {
    if let Some(error) = &attempt.runtime_error {
        return format!(
            "That code compiled and ran, but failed: {error}\nWrite corrected code for the same hole, in one ```rust \
             block."
        );
    }
    if attempt.snippet.is_none() {
        return format!("{}\nReply with the code for the hole in one ```rust block.", attempt.diagnostics.join("\n"));
    }
    format!(
        "The compiler rejected that code; none of it ran:\n\n{}\n\nWrite corrected code for the same hole, in one \
         ```rust block.",
        attempt.diagnostics.join("\n\n")
    )
}
