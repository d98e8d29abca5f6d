//! BrowseComp-Plus on Lacuna's side: its published files and a BM25 index over its corpus.
//!
//! - [`data`]: the queries as the decrypted release has them (`query_id`, `query`, `answer`, `evidence_docs`,
//!   `gold_docs`, `negative_docs`) and the corpus (`docid`, `text`, `url`), one JSON object per line.
//! - [`index`]: a BM25 index (tantivy) built once per corpus file and cached, with the two tools a retrieval host
//!   hands its holes: `search(query, k)` and `get_document(docid)`.
//! - [`evidence_recall`]: the share of a query's evidence documents among those an agent retrieved.

pub mod data;
pub mod index;

pub use data::{read_corpus, read_queries, DocRef, Document, Query};
pub use index::{Hit, Index, SNIPPET_WORDS};

/// Why data could not be read or an index built or searched.
#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    #[error("reading {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}:{line}: {detail}")]
    Line { path: String, line: usize, detail: String },
    #[error("the index at {path}: {detail}")]
    Index { path: String, detail: String },
}

/// The share of `evidence` (a query's evidence document ids) among `retrieved` (the ids an agent's searches
/// returned or its `get_document` calls fetched): 1 when the query lists no evidence.
pub fn evidence_recall<'a>(evidence: &[&str], retrieved: impl IntoIterator<Item = &'a str>) -> f64 {
    let wanted: std::collections::BTreeSet<&str> = evidence.iter().copied().collect();
    if wanted.is_empty() {
        return 1.0;
    }
    let retrieved: std::collections::BTreeSet<&str> = retrieved.into_iter().collect();
    wanted.intersection(&retrieved).count() as f64 / wanted.len() as f64
}
