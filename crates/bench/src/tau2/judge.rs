//! τ²'s `NL_ASSERTION` basis: a judge model reads the conversation and grades each of the task's natural-language
//! assertions ("Agent detects that user is actually a Silver member.") as met or not, one by one, answering in
//! JSON as τ²'s judge does (`{"results": [{"expectedOutcome", "reasoning", "metExpectation"}]}`).

use std::sync::Arc;

use lacuna_agent::{ChatRequest, Llm, Message};
use serde::{Deserialize, Serialize};

use super::user::GREETING;

/// The model that grades assertions (`--judge-model`).
#[derive(Clone)]
pub struct Judge(pub Arc<dyn Llm>);

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Judge({})", self.0.describe())
    }
}

/// One assertion as the judge graded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NlCheck {
    pub assertion: String,
    pub met: bool,
    pub reasoning: String,
}

const SYSTEM: &str = "You grade a test run of a customer service agent. You are given the conversation between \
the agent and a customer, and a list of expected outcomes. Decide for each expected outcome, on its own, whether \
the agent met it in this conversation.\n\nAnswer with a JSON object and nothing else:\n{\n  \"results\": [\n    {\n      \
\"expectedOutcome\": \"<the expected outcome, repeated from the input>\",\n      \"reasoning\": \"<a short \
explanation>\",\n      \"metExpectation\": true or false\n    }\n  ]\n}\nwith one result per expected outcome, in \
the order given.";

/// What the judge is asked: the conversation (the agent's greeting, then each customer message and the agent's
/// reply) and the assertions.
pub fn request(assertions: &[String], conversation: &[(String, String)]) -> ChatRequest {
    let mut text = format!("Conversation:\nagent: {GREETING}\n");
    for (said, replied) in conversation {
        text.push_str(&format!("customer: {said}\nagent: {replied}\n"));
    }
    text.push_str("\nExpected outcomes:\n");
    for (k, assertion) in assertions.iter().enumerate() {
        text.push_str(&format!("{}. {assertion}\n", k + 1));
    }
    ChatRequest { system: SYSTEM.to_owned(), messages: vec![Message::user(text)] }
}

#[derive(Deserialize)]
struct Results {
    results: Vec<Graded>,
}

#[derive(Deserialize)]
struct Graded {
    #[serde(rename = "metExpectation")]
    met: bool,
    #[serde(default)]
    reasoning: String,
}

/// Reads the judge's reply: one result per assertion, in order. An unreadable reply is an error that says why,
/// and the task stops on it (counted unsolved) rather than passing or failing by a guess.
pub fn parse(assertions: &[String], reply: &str) -> Result<Vec<NlCheck>, String> {
    let start = reply.find('{').ok_or_else(|| format!("the judge's reply has no JSON object: {reply:?}"))?;
    let end = reply
        .rfind('}')
        .filter(|e| *e > start)
        .ok_or_else(|| format!("the judge's reply has no JSON object: {reply:?}"))?;
    let results: Results = serde_json::from_str(&reply[start..=end])
        .map_err(|e| format!("the judge's reply is not `{{\"results\": [..]}}` ({e}): {reply:?}"))?;
    if results.results.len() != assertions.len() {
        return Err(format!(
            "the judge graded {} outcome(s) of {}: {reply:?}",
            results.results.len(),
            assertions.len()
        ));
    }
    Ok(assertions
        .iter()
        .zip(results.results)
        .map(|(assertion, graded)| NlCheck {
            assertion: assertion.clone(),
            met: graded.met,
            reasoning: graded.reasoning,
        })
        .collect())
}

/// Grades `assertions` on the conversation: the checks, and the tokens the judge took when its provider says.
pub fn grade(
    judge: &Judge,
    assertions: &[String],
    conversation: &[(String, String)],
) -> Result<(Vec<NlCheck>, Option<u64>), String> {
    let reply = judge.0.reply(&request(assertions, conversation)).map_err(|e| format!("the judge model: {e}"))?;
    Ok((parse(assertions, &reply.text)?, reply.tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_in_order_and_bad_ones_say_why() {
        let assertions = vec!["Agent says 4.".to_owned(), "Agent is polite.".to_owned()];
        let reply = "Here you go:\n```json\n{\"results\": [{\"expectedOutcome\": \"Agent says 4.\", \"reasoning\": \
                     \"it did\", \"metExpectation\": true}, {\"expectedOutcome\": \"Agent is polite.\", \
                     \"reasoning\": \"curt\", \"metExpectation\": false}]}\n```";
        let checks = parse(&assertions, reply).unwrap();
        assert_eq!(checks.iter().map(|c| c.met).collect::<Vec<_>>(), [true, false]);
        assert_eq!(checks[1].reasoning, "curt");
        assert!(parse(&assertions, "yes").unwrap_err().contains("no JSON object"));
        assert!(parse(&assertions, "{\"results\": [{\"metExpectation\": true}]}")
            .unwrap_err()
            .contains("1 outcome(s) of 2"));
        assert!(parse(&assertions, "{\"verdict\": true}").unwrap_err().contains("results"));
    }

    #[test]
    fn the_request_holds_the_conversation_and_numbered_outcomes() {
        let request = request(&["A.".into(), "B.".into()], &[("hi".into(), "hello".into())]);
        let text = &request.messages[0].content;
        assert!(text.contains("customer: hi\nagent: hello\n"), "{text}");
        assert!(text.ends_with("1. A.\n2. B.\n"), "{text}");
    }
}
