//! The agent's two tools over the corpus's BM25 index, and the log of what they were asked and returned (what the
//! harness reads back: searches per query, and the documents retrieved for evidence recall).
//!
//! The index is opened once, by `main`, before the hole; it lives in this module's private state, so a snippet
//! reaches it only through `search` and `get_document`.

// The tools are called by the hole's code, which a plain `cargo build` of this crate does not have.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use lacuna_retrieval::Index;
use serde_json::{json, Value};

/// Most hits one search returns, whatever `k` asks for.
pub const MAX_K: usize = 50;

/// One search hit: a document's id, its URL, its BM25 score and its first words.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub docid: String,
    pub url: String,
    pub score: f32,
    /// The document's first 512 words.
    pub snippet: String,
}

/// A whole document of the corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub docid: String,
    pub url: String,
    pub text: String,
}

static INDEX: OnceLock<Index> = OnceLock::new();
static LOG: Mutex<Vec<Value>> = Mutex::new(Vec::new());

/// Opens the index the tools search.
pub(crate) fn open(dir: &Path) -> Result<(), String> {
    let index = Index::open(dir).map_err(|e| e.to_string())?;
    INDEX.set(index).map_err(|_| "the index is already open".to_owned())
}

fn log(entry: Value) {
    LOG.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
}

/// Every tool call so far, in order: `{"search": query, "k": k, "hits": [docid, ..]}` or `{"get_document": docid,
/// "found": bool}` (with `"error"` when the index failed).
pub(crate) fn calls() -> Vec<Value> {
    LOG.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The `k` documents that best match `query` (BM25 over their text; at most 50), best first.
pub fn search(query: &str, k: usize) -> Vec<Hit> {
    let k = k.min(MAX_K);
    let Some(index) = INDEX.get() else {
        log(json!({"search": query, "k": k, "hits": [], "error": "the index is not open"}));
        return Vec::new();
    };
    match index.search(query, k) {
        Ok(hits) => {
            let hits: Vec<Hit> = hits
                .into_iter()
                .map(|h| Hit { docid: h.docid, url: h.url, score: h.score, snippet: h.snippet })
                .collect();
            log(json!({"search": query, "k": k, "hits": hits.iter().map(|h| &h.docid).collect::<Vec<_>>()}));
            hits
        }
        Err(e) => {
            log(json!({"search": query, "k": k, "hits": [], "error": e.to_string()}));
            Vec::new()
        }
    }
}

/// The document with this id, if the corpus has one.
pub fn get_document(docid: &str) -> Option<Document> {
    let found = INDEX.get().map(|index| index.get_document(docid));
    let document = match found {
        Some(Ok(document)) => document,
        Some(Err(e)) => {
            log(json!({"get_document": docid, "found": false, "error": e.to_string()}));
            return None;
        }
        None => {
            log(json!({"get_document": docid, "found": false, "error": "the index is not open"}));
            return None;
        }
    };
    log(json!({"get_document": docid, "found": document.is_some()}));
    document.map(|d| Document { docid: d.docid, url: d.url, text: d.text })
}
