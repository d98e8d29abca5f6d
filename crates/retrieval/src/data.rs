//! BrowseComp-Plus's files, as published: one JSON object per line.
//!
//! The queries are the decrypted release of `Tevatron/browsecomp-plus` (its README's decryption script writes
//! `decrypted.jsonl`); the corpus is `Tevatron/browsecomp-plus-corpus` with one `{"docid", "text", "url"}` object
//! per line (its parquet file, exported as JSON lines: see docs/bench.md).

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::RetrievalError;

/// A document a query names: its id (and, in the release, its text).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DocRef {
    pub docid: String,
    #[serde(default)]
    pub text: String,
}

/// One query with its answer and the documents judged for it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Query {
    pub query_id: String,
    pub query: String,
    pub answer: String,
    /// Documents that together suffice to answer the query (what evidence recall counts).
    #[serde(default)]
    pub evidence_docs: Vec<DocRef>,
    /// Documents that hold the answer itself.
    #[serde(default)]
    pub gold_docs: Vec<DocRef>,
    /// Mined hard negatives.
    #[serde(default)]
    pub negative_docs: Vec<DocRef>,
}

impl Query {
    pub fn evidence_ids(&self) -> Vec<&str> {
        self.evidence_docs.iter().map(|d| d.docid.as_str()).collect()
    }
}

/// A document of the corpus.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Document {
    pub docid: String,
    pub text: String,
    #[serde(default)]
    pub url: String,
}

fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>, RetrievalError> {
    let file =
        std::fs::File::open(path).map_err(|source| RetrievalError::Io { path: path.display().to_string(), source })?;
    Ok(std::io::BufReader::new(file))
}

/// Calls `each` with every line's object of a JSON-lines file (blank lines skipped), in order.
fn each_line<T: for<'de> Deserialize<'de>>(
    path: &Path,
    what: &str,
    mut each: impl FnMut(T) -> Result<(), RetrievalError>,
) -> Result<usize, RetrievalError> {
    let mut count = 0;
    for (n, line) in open(path)?.lines().enumerate() {
        let line = line.map_err(|source| RetrievalError::Io { path: path.display().to_string(), source })?;
        if line.trim().is_empty() {
            continue;
        }
        let value: T = serde_json::from_str(&line).map_err(|e| RetrievalError::Line {
            path: path.display().to_string(),
            line: n + 1,
            detail: format!("not {what}: {e}"),
        })?;
        each(value)?;
        count += 1;
    }
    Ok(count)
}

/// The queries of a decrypted BrowseComp-Plus file, in its order.
pub fn read_queries(path: &Path) -> Result<Vec<Query>, RetrievalError> {
    let mut queries = Vec::new();
    each_line(path, "a query (query_id, query, answer, evidence_docs, ..)", |q: Query| {
        queries.push(q);
        Ok(())
    })?;
    Ok(queries)
}

/// Streams the corpus's documents to `each`; the number read.
pub fn read_corpus(
    path: &Path,
    each: impl FnMut(Document) -> Result<(), RetrievalError>,
) -> Result<usize, RetrievalError> {
    each_line(path, "a document (docid, text, url)", each)
}
