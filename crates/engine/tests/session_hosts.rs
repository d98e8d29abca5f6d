//! Sessions opened on a host program, as `lacuna repl host.rs` and the bench's tasks open them: the host's modules
//! are the session's tools. Two sessions of one host in one engine build hosts of the same lineage (one crate id,
//! compiled incrementally), so this is where the libraries of one session could meet the other's: each keeps its
//! own values, and turns on both paths see their own session's.

use lacuna_engine::{ExecPath, Session};

mod common;
use common::{engine, locals, turn};

const HOST: &str = r#"
mod shop {
    use std::sync::atomic::{AtomicU32, Ordering};

    static RECEIPTS: AtomicU32 = AtomicU32::new(0);

    #[derive(Debug, Clone, PartialEq)]
    pub struct Item {
        pub name: String,
        pub cents: u64,
    }

    #[derive(Debug, Default)]
    pub struct Cart {
        items: Vec<Item>,
    }

    impl Cart {
        pub fn add(&mut self, name: &str, cents: u64) -> Result<usize, String> {
            if cents == 0 {
                return Err(format!("{name} has no price"));
            }
            self.items.push(Item { name: name.to_string(), cents });
            Ok(self.items.len())
        }

        pub fn total(&self) -> u64 {
            self.items.iter().map(|i| i.cents).sum()
        }

        pub fn names(&self) -> Vec<&str> {
            self.items.iter().map(|i| i.name.as_str()).collect()
        }

        pub fn checkout(&mut self) -> u32 {
            self.items.clear();
            RECEIPTS.fetch_add(1, Ordering::SeqCst) + 1
        }
    }
}

use shop::Cart;

fn main() {
    let mut cart = Cart::default();
    let r: Result<u64, lacuna::HoleError> = agent!("what the customer asks");
    println!("{:?}", r);
}
"#;

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

/// As the service runs them: sessions on one engine, turns from different threads at once. Two sessions of one
/// host share a lineage (their builds take turns: they share rustc's incremental state), two from nothing have
/// one each; every session sees only its own values, whatever the other threads build and run meanwhile.
#[test]
fn sessions_on_several_threads_keep_their_own_values() {
    let engine = engine();
    std::thread::scope(|scope| {
        let engine = &engine;
        let mut threads = Vec::new();
        for (who, from_host) in [("ann", true), ("bob", true), ("cat", false), ("dan", false)] {
            threads.push(scope.spawn(move || {
                let mut session = match from_host {
                    true => Session::from_host(HOST).expect("the host parses"),
                    false => Session::new(),
                };
                let opened = match from_host {
                    true => format!("let mut cart = Cart::default();\ncart.add(\"{who}'s tea\", 300).unwrap()"),
                    false => format!(
                        "let mut cart: Vec<(String, u64)> = vec![(\"{who}'s tea\".to_string(), 300)];\ncart.len()"
                    ),
                };
                let first = turn(engine, &mut session, &opened);
                assert_eq!(first.value.as_deref(), Some("1"), "{who}: {first:?}");
                // A function of the session's own, then turns that use it and the cart.
                let helper = turn(
                    engine,
                    &mut session,
                    "fn with_tax(cents: u64) -> u64 {\n    cents + cents / 10\n}\nwith_tax(100)",
                );
                assert_eq!(helper.value.as_deref(), Some("110"), "{who}: {helper:?}");
                for (i, cents) in [120u64, 80, 45].into_iter().enumerate() {
                    let add = match from_host {
                        true => format!("cart.add(\"{who} {i}\", {cents}).unwrap()"),
                        false => format!("cart.push((\"{who} {i}\".to_string(), {cents}));\ncart.len()"),
                    };
                    let added = turn(engine, &mut session, &add);
                    assert_eq!(added.value, Some((i + 2).to_string()), "{who}: {added:?}");
                }
                let total = match from_host {
                    true => "with_tax(cart.total())",
                    false => "with_tax(cart.iter().map(|(_, c)| c).sum())",
                };
                let total = turn(engine, &mut session, total);
                assert_eq!(total.value.as_deref(), Some("599"), "{who}: {total:?}");
                let names = match from_host {
                    true => "cart.names()[0].to_string()",
                    false => "cart[0].0.clone()",
                };
                let first_name = turn(engine, &mut session, names);
                assert_eq!(first_name.value, Some(format!("\"{who}'s tea\"")), "{who}: {first_name:?}");
                engine.close_session(session);
            }));
        }
        for thread in threads {
            thread.join().expect("a session thread panicked");
        }
    });
}

/// A host's crate-level attributes hold in its sessions as in the program: here one that lets a literal wrap.
#[test]
fn a_session_keeps_its_host_crate_attributes() {
    let engine = engine();
    let host = "#![allow(overflowing_literals)]\n\nfn wrap(x: u8) -> u8 {\n    x\n}\n\nfn main() {\n    let r: Result<u8, lacuna::HoleError> = agent!(\"a byte\");\n}\n";
    let mut session = Session::from_host(host).expect("the host parses");
    let wrapped = turn(&engine, &mut session, "let b: u8 = 256;\nwrap(b)");
    assert_eq!((wrapped.accepted, wrapped.value.as_deref()), (true, Some("0")), "{wrapped:?}");
    engine.close_session(session);
    // Without the attribute the same turn is rejected, as rustc rejects the literal in a program.
    let mut plain = Session::new();
    let rejected = turn(&engine, &mut plain, "let b: u8 = 256;\nb");
    assert!(!rejected.accepted, "{rejected:?}");
    engine.close_session(plain);
}
