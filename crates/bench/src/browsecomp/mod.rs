//! BrowseComp-Plus (the paper's Table 1): each query is one run of a host program whose hole researches it over
//! a fixed corpus, with `search(query, k)` and `get_document(docid)` in scope, and whose code may open holes of
//! its own. The runner reads the release's files ([`lacuna_retrieval`]), builds the BM25 index once, runs the host
//! per query under `lacuna run` (its model, trace and budgets), and records what Table 1 counts: the judge's
//! verdict on the answer, the recall of the query's evidence documents among those the tools returned, searches
//! and rounds (hole calls) per query, rejected generations and retries.
//!
//! ```toml
//! name = "browsecomp-plus"
//! kind = "browsecomp"
//! host = "browsecomp"                                   # the host cargo project
//! data = "../../shared/benchmarks/browsecomp-plus"      # decrypted.jsonl and corpus.jsonl
//! k = 5                                                 # what the task asks `search` for
//! time_limit_s = 600                                    # one query's wall clock
//! max_depth = 128                                       # holes nested in holes
//! ```

pub mod judge;
mod run;

use std::path::{Path, PathBuf};

use lacuna_retrieval::Query;
use serde::Deserialize;

use crate::BenchError;

pub use run::{run, run_query};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: String,
    kind: String,
    #[serde(default)]
    description: Option<String>,
    host: PathBuf,
    data: PathBuf,
    /// Where the index is built and kept (relative to this file); the user's cache directory by default.
    #[serde(default)]
    index: Option<PathBuf>,
    #[serde(default)]
    k: Option<usize>,
    #[serde(default)]
    time_limit_s: Option<u64>,
    #[serde(default)]
    max_depth: Option<u32>,
}

/// A retrieval suite, its paths resolved.
#[derive(Debug, Clone)]
pub struct RetrievalSuite {
    pub name: String,
    pub description: Option<String>,
    /// The host cargo project run once per query.
    pub host: PathBuf,
    /// The queries (`decrypted.jsonl`).
    pub queries: PathBuf,
    /// The corpus (`corpus.jsonl`).
    pub corpus: PathBuf,
    /// The directory the BM25 index is kept under (built once per corpus file).
    pub index_cache: PathBuf,
    pub k: usize,
    pub time_limit: std::time::Duration,
    pub max_depth: u32,
}

/// The file names a BrowseComp-Plus data directory holds.
pub const QUERIES_FILE: &str = "decrypted.jsonl";
pub const CORPUS_FILE: &str = "corpus.jsonl";

impl RetrievalSuite {
    /// Reads a suite file; `data` replaces the directory it names (`--data`).
    pub fn load(path: &Path, data: Option<&Path>) -> Result<RetrievalSuite, BenchError> {
        let file: SuiteFile = crate::suite::parse_file(path)?;
        if file.kind != "browsecomp" {
            return Err(BenchError::Suite(format!("{}: not a `browsecomp` suite", path.display())));
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let host = crate::suite::absolute(&base.join(&file.host));
        if !host.join("Cargo.toml").is_file() {
            return Err(BenchError::Suite(format!(
                "{}: the host {} is not a cargo project (a retrieval suite's host is run with `lacuna run`)",
                path.display(),
                host.display()
            )));
        }
        let data = crate::suite::absolute(&data.map(Path::to_path_buf).unwrap_or_else(|| base.join(&file.data)));
        for needed in [QUERIES_FILE, CORPUS_FILE] {
            if !data.join(needed).is_file() {
                return Err(BenchError::Suite(format!(
                    "{}: no {needed} in {} (BrowseComp-Plus is not bundled: docs/bench.md says how to download \
                     its queries and corpus into one directory; then pass --data DIR)",
                    path.display(),
                    data.display()
                )));
            }
        }
        let index_cache = match &file.index {
            Some(dir) => crate::suite::absolute(&base.join(dir)),
            None => default_cache(),
        };
        Ok(RetrievalSuite {
            name: file.name,
            description: file.description,
            host,
            queries: data.join(QUERIES_FILE),
            corpus: data.join(CORPUS_FILE),
            index_cache,
            k: file.k.unwrap_or(5).max(1),
            time_limit: std::time::Duration::from_secs(file.time_limit_s.unwrap_or(600).max(1)),
            max_depth: file.max_depth.unwrap_or(128),
        })
    }

    /// The suite's queries, in the file's order.
    pub fn queries(&self) -> Result<Vec<Query>, BenchError> {
        lacuna_retrieval::read_queries(&self.queries).map_err(|e| BenchError::Suite(e.to_string()))
    }
}

/// `$XDG_CACHE_HOME/lacuna/browsecomp`, else `~/.cache/lacuna/browsecomp`, else the temporary directory's.
fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("lacuna").join("browsecomp")
}

/// The oracle's reply for `query`: code that searches with the question, reads each evidence document and
/// answers with the known answer. It checks the harness (the host, the tools, the trace, recall and the judge),
/// not an agent: its recall is 1 when the corpus holds the evidence, and a judge should grade it correct.
pub fn oracle_reply(query: &Query, k: usize) -> String {
    let evidence: Vec<String> = query.evidence_ids().iter().map(|id| format!("{id:?}")).collect();
    format!(
        "=== reply\n\
         let hits = search({question:?}, {k});\n\
         let mut read = Vec::new();\n\
         for docid in [{evidence}] {{\n    \
             if let Some(document) = get_document(docid) {{\n        \
                 read.push(document.docid);\n    \
             }}\n\
         }}\n\
         format!(\n    \
             \"Explanation: {{}} search hit(s); read {{}}.\\nExact Answer: {{}}\\nConfidence: 100%\",\n    \
             hits.len(),\n    \
             read.join(\", \"),\n    \
             {answer:?}\n\
         )\n",
        question = query.query,
        evidence = evidence.join(", "),
        answer = query.answer,
    )
}
