//! The grader: a judge model reads the question, the agent's response and the correct answer, and says whether the
//! response's final answer is the correct one — BrowseComp's grading (the one BrowseComp-Plus uses): the judge
//! extracts the response's final answer, explains, and ends with `correct: yes` or `correct: no`; the reply is
//! read as BrowseComp's evaluation reads it (the first `correct:` line).

use lacuna_agent::{ChatRequest, Message};
use serde::{Deserialize, Serialize};

use crate::tau2::judge::Judge;

/// How the judge graded one response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    pub correct: bool,
    /// The final answer the judge read out of the response (`None` when it found none).
    pub extracted: Option<String>,
    pub reasoning: String,
}

const SYSTEM: &str = "You grade answers to research questions against their known correct answers.";

/// The grading instructions, in BrowseComp's shape (its fields, its criteria, its `yes`/`no` verdict).
fn prompt(question: &str, response: &str, correct_answer: &str) -> String {
    format!(
        "Decide whether the [response] below answers the [question] correctly, judged only against the \
         [correct_answer], which is precise and unambiguous.\n\n\
         [question]: {question}\n\n\
         [response]: {response}\n\n\
         [correct_answer]: {correct_answer}\n\n\
         Reply with exactly these four fields, each on its own line:\n\n\
         extracted_final_answer: the final, exact answer the [response] gives, copied from it; write None if it \
         gives no final answer.\n\n\
         reasoning: why extracted_final_answer does or does not match [correct_answer]. Look only at meaningful \
         differences between the two; do not discuss the question's background, do not try to solve it, and do \
         not argue for an answer other than [correct_answer].\n\n\
         correct: yes if extracted_final_answer matches [correct_answer], or for a numerical answer lies within a \
         small margin of it; no otherwise (any inconsistency, ambiguity, non-equivalence, or a wrong answer).\n\n\
         confidence: the confidence score between 0% and 100% the [response] states; 100 if it states none."
    )
}

pub fn request(question: &str, response: &str, correct_answer: &str) -> ChatRequest {
    ChatRequest { system: SYSTEM.to_owned(), messages: vec![Message::user(prompt(question, response, correct_answer))] }
}

/// The value of a `field:` line of `reply` (the first one), trimmed.
fn field<'r>(reply: &'r str, name: &str) -> Option<&'r str> {
    reply.lines().find_map(|line| {
        let line = line.trim().trim_start_matches(['*', '#', ' ']);
        let (key, value) = line.split_once(':')?;
        key.trim().trim_matches('*').eq_ignore_ascii_case(name).then(|| value.trim().trim_matches('*').trim())
    })
}

/// Reads the judge's reply: its `correct:` field is `yes` or `no` (as BrowseComp's own evaluation matches it).
pub fn parse(reply: &str) -> Result<Grade, String> {
    let verdict =
        field(reply, "correct").ok_or_else(|| format!("the judge's reply has no `correct:` line: {reply:?}"))?;
    let word: String = verdict.chars().take_while(char::is_ascii_alphabetic).collect();
    let correct = match word.to_ascii_lowercase().as_str() {
        "yes" => true,
        "no" => false,
        _ => return Err(format!("the judge's `correct:` is neither yes nor no: {reply:?}")),
    };
    let extracted =
        field(reply, "extracted_final_answer").filter(|a| !a.eq_ignore_ascii_case("none")).map(str::to_owned);
    let reasoning = field(reply, "reasoning").unwrap_or_default().to_owned();
    Ok(Grade { correct, extracted, reasoning })
}

/// Asks `judge` to grade `response`; the grade and the tokens the judge took, when its provider says.
pub fn grade(
    judge: &Judge,
    question: &str,
    response: &str,
    correct_answer: &str,
) -> Result<(Grade, Option<u64>), String> {
    let reply =
        judge.0.reply(&request(question, response, correct_answer)).map_err(|e| format!("the judge model: {e}"))?;
    Ok((parse(&reply.text)?, reply.tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_the_correct_line() {
        let reply = "extracted_final_answer: Bergen\n\nreasoning: The response names Bergen, as the correct answer \
                     does.\n\ncorrect: yes\n\nconfidence: 80%";
        let grade = parse(reply).unwrap();
        assert!(grade.correct);
        assert_eq!(grade.extracted.as_deref(), Some("Bergen"));
        assert!(grade.reasoning.starts_with("The response names Bergen"));
        // Markdown emphasis and capitals, as models write them; `None` is no answer.
        let wrong = parse("**extracted_final_answer:** None\n**correct:** No, it gives none").unwrap();
        assert!(!wrong.correct && wrong.extracted.is_none());
        assert!(parse("The answer is right.").unwrap_err().contains("no `correct:` line"));
        assert!(parse("correct: maybe").unwrap_err().contains("neither yes nor no"));
    }

    #[test]
    fn the_request_holds_question_response_and_answer() {
        let request = request("Which city?", "Exact Answer: Oslo", "Bergen");
        let text = &request.messages[0].content;
        for part in ["[question]: Which city?", "[response]: Exact Answer: Oslo", "[correct_answer]: Bergen"] {
            assert!(text.contains(part), "{text}");
        }
    }
}
