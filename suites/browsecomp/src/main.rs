//! BrowseComp-Plus as a Lacuna host: one query, one hole. The hole's code researches the question with the two
//! tools in scope (`search` and `get_document`, nothing else of the corpus), and may open holes of its own for
//! what it found: the paper's "searches, reads results, and either answers or recurses".
//!
//! `lacuna bench suites/browsecomp-plus.toml` runs this program once per query, as
//! `lacuna run --manifest-path suites/browsecomp/Cargo.toml --model M -- --index DIR --question FILE --out FILE`;
//! it writes the hole's answer (or its error) and every tool call to `--out` as one JSON object.

mod corpus;

use std::path::PathBuf;
use std::process::ExitCode;

// The hole's scope: its code calls the tools and names their types (the host itself does neither).
#[allow(unused_imports)]
use corpus::{get_document, search, Document, Hit};
use lacuna::{agent, HoleError};

/// What one run is given.
struct Args {
    index: PathBuf,
    question: PathBuf,
    out: PathBuf,
    k: usize,
}

const USAGE: &str = "usage: browsecomp --index DIR --question FILE --out FILE [--k N]";

fn args() -> Result<Args, String> {
    let (mut index, mut question, mut out, mut k) = (None, None, None, 5);
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let value = given.next().ok_or_else(|| format!("{flag} needs a value; {USAGE}"))?;
        match flag.as_str() {
            "--index" => index = Some(PathBuf::from(value)),
            "--question" => question = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--k" => k = value.parse().map_err(|_| format!("--k takes a number, not `{value}`"))?,
            _ => return Err(format!("unknown argument `{flag}`; {USAGE}")),
        }
    }
    match (index, question, out) {
        (Some(index), Some(question), Some(out)) => Ok(Args { index, question, out, k }),
        _ => Err(USAGE.to_owned()),
    }
}

/// The agent: the question in, the response out. Its code may search, read, and call `agent!` again.
fn research(question: &str, k: usize) -> Result<String, HoleError> {
    agent!(format!(
        "Answer this question by researching a fixed corpus of web documents.\n\n\
         The corpus is reached through two functions in scope, and nothing else:\n\
         - `search(query: &str, k: usize) -> Vec<Hit>`: the k documents that best match the query (BM25 over their \
         text), best first; use k = {k}. A `Hit` has `docid: String`, `url: String`, `score: f32` and `snippet: \
         String` (the document's first 512 words).\n\
         - `get_document(docid: &str) -> Option<Document>`: a whole document (`docid`, `url`, `text`).\n\n\
         Your code sees what these return; you do not, until you hand it on: to read what you found and decide \
         what to do next, put it into the task of a hole of your own, `agent!(format!(\"...\"))`, which returns \
         `Result<String, lacuna::HoleError>` and whose code may search again. The value of your code is your \
         response, a `String`, in this format:\n\
         Explanation: your explanation for your final answer\n\
         Exact Answer: your succinct, final answer\n\
         Confidence: your confidence score between 0% and 100% for your answer\n\n\
         Question: {question}"
    ))
}

fn main() -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let question = match std::fs::read_to_string(&args.question) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("reading the question {}: {e}", args.question.display());
            return ExitCode::from(2);
        }
    };
    if let Err(why) = corpus::open(&args.index) {
        eprintln!("opening the index: {why}");
        return ExitCode::from(2);
    }
    let answer = research(question.trim(), args.k);
    let (answer, error) = match answer {
        Ok(answer) => (Some(answer), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let out = serde_json::json!({"answer": answer, "error": error, "calls": corpus::calls()});
    if let Err(e) = std::fs::write(&args.out, out.to_string()) {
        eprintln!("writing {}: {e}", args.out.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
