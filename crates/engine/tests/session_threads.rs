//! Sessions on several threads of one engine, as the service runs them, and a host's crate-level attributes in
//! its sessions. Apart from `session_hosts.rs`: a turn's stdout is captured at the process's descriptor, where
//! the test harness's own lines from tests running beside it would land.

use lacuna_engine::Session;

#[allow(dead_code)] // not every test uses every helper
mod common;
use common::{engine, turn};
mod shop;
use shop::HOST;

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
