//! BrowseComp-Plus's files in their published shape, written here (the real data is not on this machine), read,
//! indexed and searched.

use std::path::Path;

use expect_test::expect;
use lacuna_retrieval::{evidence_recall, read_queries, Index, RetrievalError};

/// A corpus in the release's shape: `{"docid", "text", "url"}` per line, as documents of the web are.
const CORPUS: &str = r#"{"docid": "6021", "text": "The Falcons of Mount Erebus is a 1998 novel by the Norwegian writer Ingrid Halvorsen. It follows a glaciologist who winters at an Antarctic station.", "url": "https://example.org/falcons"}
{"docid": "118", "text": "Ingrid Halvorsen (born 1961 in Tromsø) is a Norwegian novelist. Her debut, published in 1994, won the Brage Prize; she later taught creative writing in Bergen.", "url": "https://example.org/halvorsen"}
{"docid": "77", "text": "Mount Erebus is the second-highest volcano in Antarctica and the southernmost active volcano on Earth.", "url": "https://example.org/erebus"}
{"docid": "9034", "text": "Falcons are birds of prey in the genus Falco. Peregrine falcons are the fastest birds when diving.", "url": "https://example.org/falco"}

{"docid": "500", "text": "The Brage Prize is a Norwegian literature prize awarded annually since 1992.", "url": "https://example.org/brage"}
"#;

/// A decrypted query in the release's shape.
const QUERIES: &str = r#"{"query_id": "784", "query": "A novel about a glaciologist wintering near a volcano was written by an author whose debut won a national prize. In which city did the author later teach?", "answer": "Bergen", "evidence_docs": [{"docid": "6021", "text": "…"}, {"docid": "118", "text": "…"}], "gold_docs": [{"docid": "118", "text": "…"}], "negative_docs": [{"docid": "9034", "text": "…"}]}
{"query_id": "785", "query": "Which volcano is the southernmost active one?", "answer": "Mount Erebus", "evidence_docs": [{"docid": "77"}]}
"#;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn queries_are_read_with_their_answers_and_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let queries = read_queries(&write(dir.path(), "decrypted.jsonl", QUERIES)).unwrap();
    assert_eq!(queries.len(), 2);
    assert_eq!(queries[0].query_id, "784");
    assert_eq!(queries[0].answer, "Bergen");
    assert_eq!(queries[0].evidence_ids(), ["6021", "118"]);
    assert_eq!(queries[0].gold_docs[0].docid, "118");
    assert_eq!(queries[1].evidence_ids(), ["77"]);
    assert!(queries[1].gold_docs.is_empty());
}

#[test]
fn bm25_ranks_the_documents_that_share_the_query_words_first_and_documents_are_fetched_whole() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write(dir.path(), "corpus.jsonl", CORPUS);
    let index = Index::open_or_build(&corpus, &dir.path().join("cache")).unwrap();
    assert_eq!(index.len(), 5);
    let ids = |query: &str, k: usize| -> Vec<String> {
        index.search(query, k).unwrap().into_iter().map(|h| h.docid).collect()
    };
    // Stemmed: "wintering glaciologists" finds "winters" and "glaciologist"; "novels" finds "novel" (not
    // "novelist", another stem). The shorter of two documents that share only "Norwegian" ranks higher.
    assert_eq!(ids("wintering glaciologists", 5), ["6021"]);
    expect![[r#"["6021", "500", "118"]"#]].assert_eq(&format!("{:?}", ids("Norwegian novels", 5)));
    expect![[r#"["77", "6021"]"#]].assert_eq(&format!("{:?}", ids("southernmost active volcano Erebus", 2)));
    assert_eq!(ids("Brage Prize", 1), ["500"]);
    assert!(ids("zeppelin", 5).is_empty(), "no document shares a word");
    assert!(ids("", 5).is_empty() && ids("?!", 5).is_empty(), "nothing to search for");
    assert_eq!(ids("falcons", 10).len(), 2);
    // What a model might type: quotes, colons, operators — words, not query syntax.
    assert_eq!(ids("\"Mount Erebus\" AND text:volcano OR (", 1), ["77"]);

    let hit = &index.search("Brage Prize", 1).unwrap()[0];
    assert_eq!(hit.url, "https://example.org/brage");
    assert!(hit.snippet.starts_with("The Brage Prize is") && hit.score > 0.0);
    let doc = index.get_document("118").unwrap().expect("document 118");
    assert!(doc.text.contains("taught creative writing in Bergen"));
    assert_eq!(doc.url, "https://example.org/halvorsen");
    assert_eq!(index.get_document("999").unwrap(), None);

    // Opened again from the cache, not rebuilt: the same directory.
    let again = Index::open_or_build(&corpus, &dir.path().join("cache")).unwrap();
    assert_eq!(again.path(), index.path());
}

#[test]
fn evidence_recall_counts_the_evidence_among_what_was_retrieved() {
    assert_eq!(evidence_recall(&["6021", "118"], ["118", "77", "118"]), 0.5);
    assert_eq!(evidence_recall(&["6021", "118"], ["6021", "118"]), 1.0);
    assert_eq!(evidence_recall(&["6021"], []), 0.0);
    assert_eq!(evidence_recall(&[], ["1"]), 1.0);
}

#[test]
fn bad_files_say_where_and_what() {
    let dir = tempfile::tempdir().unwrap();
    let missing = read_queries(&dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(missing, RetrievalError::Io { .. }), "{missing}");
    let bad =
        write(dir.path(), "q.jsonl", "{\"query_id\": \"1\", \"query\": \"q\", \"answer\": \"a\"}\n{\"query_id\": 2}\n");
    let e = read_queries(&bad).unwrap_err().to_string();
    assert!(e.contains("q.jsonl:2:") && e.contains("not a query"), "{e}");
    let twice =
        write(dir.path(), "c.jsonl", "{\"docid\": \"1\", \"text\": \"a\"}\n{\"docid\": \"1\", \"text\": \"b\"}\n");
    let e = Index::open_or_build(&twice, &dir.path().join("cache")).err().expect("a duplicate id").to_string();
    assert!(e.contains("document id 1 appears twice"), "{e}");
    // Nothing half-built is left to be taken for an index.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("cache")).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}
