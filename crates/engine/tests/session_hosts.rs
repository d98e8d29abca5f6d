//! Sessions opened on a host program, as `lacuna repl host.rs` and the bench's tasks open them: the host's modules
//! are the session's tools. Two sessions of one host in one engine build hosts of the same lineage (one crate id,
//! compiled incrementally), so this is where the libraries of one session could meet the other's: each keeps its
//! own values, and turns on both paths see their own session's.

use lacuna_engine::{ExecPath, Session};

mod common;
use common::{engine, locals, turn};

mod shop;
use shop::HOST;

#[test]
fn two_sessions_of_one_host_keep_their_own_values() {
    let engine = engine();
    let mut a = Session::from_host(HOST).expect("the host parses");
    let mut b = Session::from_host(HOST).expect("the host parses");

    let a1 = turn(&engine, &mut a, "let shop = String::from(\"Corner\");\nlet mut cart = Cart::default();\ncart.add(\"tea\", 450).expect(\"tea has a price\");\ncart.total()");
    assert_eq!(a1.value.as_deref(), Some("450"), "{a1:?}");
    let b1 = turn(
        &engine,
        &mut b,
        "let mut cart = Cart::default();\ncart.add(\"milk\", 120).unwrap();\nlet budget = 1000;\ncart.total()",
    );
    assert_eq!(b1.value.as_deref(), Some("120"), "{b1:?}");
    assert_eq!(locals(&b), ["cart: Cart", "budget: i32"]);

    // Each session's next turn sees its own cart, on the rustc path (borrowed `&str`s from a method, a closure).
    let a2 = turn(
        &engine,
        &mut a,
        "if let Err(e) = cart.add(\"scones\", 325) {\n    println!(\"could not add: {e}\");\n}\nlet names = cart.names().join(\" + \");\nnames",
    );
    assert_eq!(a2.value.as_deref(), Some("\"tea + scones\""), "{a2:?}");
    // `names` went into the value, so it does not outlive the turn (as in one program).
    assert!(a2.dropped.iter().any(|d| d.contains("`names`")), "{a2:?}");
    let b2 = turn(&engine, &mut b, "let left = budget as u64 - cart.total();\nprintln!(\"{left} cents left\");\nleft");
    assert_eq!(b2.value.as_deref(), Some("880"), "{b2:?}");
    assert_eq!(b2.stdout, "880 cents left\n");

    // A local named only inside a format string is the local.
    let a3 = turn(&engine, &mut a, "format!(\"{shop}: {}\", cart.total())");
    assert_eq!(a3.value.as_deref(), Some("\"Corner: 775\""), "{a3:?}");

    // A turn that names none of the locals leaves them as they were; the next one finds them.
    let a4 = turn(&engine, &mut a, "let n = 6 * 7;\nn");
    assert_eq!(a4.value.as_deref(), Some("42"), "{a4:?}");
    // A turn with no new locals whose value is a scalar runs on the JIT, against the values its host holds.
    let jit = turn(&engine, &mut a, "n * 2 + 1");
    assert_eq!((jit.value.as_deref(), jit.path), (Some("85"), Some(ExecPath::Jit)), "{jit:?}");
    let a5 = turn(&engine, &mut a, "(cart.total(), n, shop.len())");
    assert_eq!(a5.value.as_deref(), Some("(775, 42, 6)"), "{a5:?}");

    // The host's static is one for the process (both sessions' hosts are one crate, loaded once per turn).
    let a6 = turn(&engine, &mut a, "cart.checkout()");
    let b3 = turn(&engine, &mut b, "let receipt = cart.checkout();\n(receipt, cart.total())");
    let first: u32 = a6.value.as_deref().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{a6:?}"));
    assert!(first >= 1, "{a6:?}");
    assert!(b3.accepted && b3.value.is_some(), "{b3:?}");
    let a7 = turn(&engine, &mut a, "cart.total()");
    assert_eq!(a7.value.as_deref(), Some("0"), "{a7:?}");

    // A fault in one session leaves the other's values alone.
    let b4 = turn(&engine, &mut b, "cart.add(\"air\", 0).unwrap()");
    assert!(b4.error.as_deref().is_some_and(|e| e.contains("air has no price")), "{b4:?}");
    let a8 = turn(&engine, &mut a, "cart.add(\"jam\", 280).unwrap();\ncart.names().len()");
    assert_eq!(a8.value.as_deref(), Some("1"), "{a8:?}");
    let b5 = turn(&engine, &mut b, "(budget, cart.total())");
    assert_eq!(b5.value.as_deref(), Some("(1000, 0)"), "{b5:?}");

    engine.close_session(a);
    engine.close_session(b);
}
