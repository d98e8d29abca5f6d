//! A turn that consumes an earlier local. Its own test binary: sessions capture the process's stdout while a turn
//! runs, so two sessions' tests in one binary would swallow each other's harness output.

use lacuna_engine::Session;

mod common;
use common::{engine, locals, turn};

#[test]
fn a_turn_that_consumes_an_earlier_local_ends_it() {
    let engine = engine();
    let mut session = Session::new();
    let t1 =
        turn(&engine, &mut session, "let words = vec![\"a\".to_string(), \"b\".to_string()];\nlet items = vec![1, 2];");
    assert!(t1.accepted, "{t1:?}");
    // `words` is consumed by `into_iter`: the turn runs, and `words` is gone afterwards, as in one program.
    let t2 = turn(&engine, &mut session, "let first = words.into_iter().next().unwrap();\nfirst.len()");
    assert!(t2.accepted && t2.error.is_none(), "{t2:?}");
    assert_eq!(t2.value.as_deref(), Some("1"));
    assert!(t2.dropped.iter().any(|d| d.contains("`words`")), "{t2:?}");
    assert_eq!(locals(&session), ["items: Vec<i32>", "first: String"]);
    let gone = turn(&engine, &mut session, "words.len()");
    assert!(!gone.accepted && gone.diagnostics.iter().any(|d| d.contains("E0425")), "{gone:?}");
    // A turn that consumes a local and then faults: the local is gone too (its value went into the turn).
    let fault = turn(
        &engine,
        &mut session,
        "let total: i32 = items.into_iter().sum();\nif total > 0 {\n    panic!(\"boom\");\n}\ntotal",
    );
    assert!(fault.accepted && fault.error.as_deref().is_some_and(|e| e.contains("boom")), "{fault:?}");
    assert!(fault.may_have_changed.is_empty(), "`items` is consumed, not changed: {fault:?}");
    assert_eq!(locals(&session), ["first: String"]);
    let after = turn(&engine, &mut session, "first.clone() + \"!\"");
    assert_eq!(after.value.as_deref(), Some("\"a!\""), "{after:?}");
}
