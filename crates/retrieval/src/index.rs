//! A BM25 index over a corpus (tantivy), built once per corpus file and kept on disk.
//!
//! Text is lower-cased, split on non-alphanumerics and Porter-stemmed (tantivy's `en_stem`), and a query is the bag
//! of its terms, each a should-clause scored by BM25 (k1 = 1.2, b = 0.75): the shape of the Lucene BM25 baseline
//! BrowseComp-Plus ships (Pyserini, which also drops stopwords and uses k1 = 0.9, b = 0.4), so rankings are close
//! to but not the same as the published BM25 runs'.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING};
use tantivy::{Index as Tantivy, IndexReader, IndexWriter, TantivyDocument, Term};

use crate::data::{read_corpus, Document};
use crate::RetrievalError;

/// How many words of a document a search hit shows (BrowseComp-Plus's search tool shows the first 512 tokens).
pub const SNIPPET_WORDS: usize = 512;

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub docid: String,
    pub score: f32,
    pub url: String,
    /// The document's first [`SNIPPET_WORDS`] words.
    pub snippet: String,
}

#[derive(Clone, Copy)]
struct Fields {
    docid: Field,
    text: Field,
    url: Field,
}

/// An open index.
pub struct Index {
    index: Tantivy,
    reader: IndexReader,
    fields: Fields,
    path: PathBuf,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let docid = b.add_text_field("docid", STRING | STORED);
    let text_indexing = TextFieldIndexing::default()
        .set_tokenizer("en_stem")
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let text = b.add_text_field("text", TextOptions::default().set_indexing_options(text_indexing).set_stored());
    let url = b.add_text_field("url", STORED);
    (b.build(), Fields { docid, text, url })
}

fn first_words(text: &str, n: usize) -> String {
    text.split_whitespace().take(n).collect::<Vec<_>>().join(" ")
}

impl Index {
    fn error(path: &Path, e: impl std::fmt::Display) -> RetrievalError {
        RetrievalError::Index { path: path.display().to_string(), detail: e.to_string() }
    }

    /// Builds the index of `corpus` at `dir` (which must not exist): into a scratch directory beside it first, moved
    /// into place only when complete, so an interrupted build leaves nothing half-made.
    pub fn build(corpus: &Path, dir: &Path) -> Result<Index, RetrievalError> {
        let scratch = dir.with_extension(format!("building-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&scratch);
        if let Err(e) = Index::write(corpus, &scratch) {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(e);
        }
        std::fs::rename(&scratch, dir)
            .map_err(|source| RetrievalError::Io { path: dir.display().to_string(), source })?;
        Index::open(dir)
    }

    fn write(corpus: &Path, scratch: &Path) -> Result<(), RetrievalError> {
        let scratch = scratch.to_owned();
        std::fs::create_dir_all(&scratch)
            .map_err(|source| RetrievalError::Io { path: scratch.display().to_string(), source })?;
        let (schema, fields) = schema();
        let index = Tantivy::create_in_dir(&scratch, schema).map_err(|e| Index::error(&scratch, e))?;
        let mut writer: IndexWriter = index.writer(100_000_000).map_err(|e| Index::error(&scratch, e))?;
        let mut seen = std::collections::HashSet::new();
        read_corpus(corpus, |doc: Document| {
            if !seen.insert(doc.docid.clone()) {
                return Err(RetrievalError::Index {
                    path: corpus.display().to_string(),
                    detail: format!("document id {} appears twice", doc.docid),
                });
            }
            let mut d = TantivyDocument::default();
            d.add_text(fields.docid, &doc.docid);
            d.add_text(fields.text, &doc.text);
            d.add_text(fields.url, &doc.url);
            writer.add_document(d).map(|_| ()).map_err(|e| Index::error(&scratch, e))
        })?;
        writer.commit().map_err(|e| Index::error(&scratch, e))?;
        writer.wait_merging_threads().map_err(|e| Index::error(&scratch, e))
    }

    pub fn open(dir: &Path) -> Result<Index, RetrievalError> {
        let index = Tantivy::open_in_dir(dir).map_err(|e| Index::error(dir, e))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(Index::error(dir, "it was built with another schema; delete it to build it again"));
        }
        let reader = index.reader().map_err(|e| Index::error(dir, e))?;
        Ok(Index { index, reader, fields, path: dir.to_owned() })
    }

    /// The index of `corpus` under `cache`: opened if it was built before from the same file (same path, size and
    /// modification time), else built.
    pub fn open_or_build(corpus: &Path, cache: &Path) -> Result<Index, RetrievalError> {
        let meta = std::fs::metadata(corpus)
            .map_err(|source| RetrievalError::Io { path: corpus.display().to_string(), source })?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::canonicalize(corpus).unwrap_or_else(|_| corpus.to_owned()).hash(&mut h);
        meta.len().hash(&mut h);
        meta.modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
            .hash(&mut h);
        let dir = cache.join(format!("bm25-{:016x}", h.finish()));
        if dir.join("meta.json").is_file() {
            return Index::open(&dir);
        }
        std::fs::create_dir_all(cache)
            .map_err(|source| RetrievalError::Io { path: cache.display().to_string(), source })?;
        let _ = std::fs::remove_dir_all(&dir);
        Index::build(corpus, &dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many documents the index holds.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn stored(&self, doc: &TantivyDocument, field: Field) -> String {
        doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_owned()
    }

    /// The `k` documents BM25 ranks highest for `query` (its words, each a should-clause), best first.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>, RetrievalError> {
        let mut tokenizer =
            self.index.tokenizer_for_field(self.fields.text).map_err(|e| Index::error(&self.path, e))?;
        let mut stream = tokenizer.token_stream(query);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        while let Some(token) = stream.next() {
            let term = Term::from_field_text(self.fields.text, &token.text);
            clauses.push((Occur::Should, Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))));
        }
        if clauses.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&BooleanQuery::new(clauses), &TopDocs::with_limit(k).order_by_score())
            .map_err(|e| Index::error(&self.path, e))?;
        let mut hits = Vec::new();
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address).map_err(|e| Index::error(&self.path, e))?;
            hits.push(Hit {
                docid: self.stored(&doc, self.fields.docid),
                score,
                url: self.stored(&doc, self.fields.url),
                snippet: first_words(&self.stored(&doc, self.fields.text), SNIPPET_WORDS),
            });
        }
        Ok(hits)
    }

    /// The document with id `docid`, whole.
    pub fn get_document(&self, docid: &str) -> Result<Option<Document>, RetrievalError> {
        let searcher = self.reader.searcher();
        let term = TermQuery::new(Term::from_field_text(self.fields.docid, docid), IndexRecordOption::Basic);
        let top = searcher
            .search(&term, &TopDocs::with_limit(1).order_by_score())
            .map_err(|e| Index::error(&self.path, e))?;
        let Some((_, address)) = top.into_iter().next() else { return Ok(None) };
        let doc: TantivyDocument = searcher.doc(address).map_err(|e| Index::error(&self.path, e))?;
        Ok(Some(Document {
            docid: self.stored(&doc, self.fields.docid),
            text: self.stored(&doc, self.fields.text),
            url: self.stored(&doc, self.fields.url),
        }))
    }
}
