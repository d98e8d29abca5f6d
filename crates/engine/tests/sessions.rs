//! Sessions as a REPL user has them: every turn sees what earlier turns declared and left behind, with the values
//! later turns changed; a rejected turn changes nothing; a faulting turn keeps what was there.

use lacuna_engine::Session;

mod common;
use common::{engine, locals, turn};

#[test]
fn turns_keep_functions_types_and_values_for_later_turns() {
    let engine = engine();
    let mut session = Session::new();

    // 1: a function, a type with an impl, and values.
    let t1 = turn(
        &engine,
        &mut session,
        "fn area(w: u32, h: u32) -> u32 { w * h }\n#[derive(Debug, Clone)]\nstruct Room { name: String, w: u32, h: u32 }\nimpl Room {\n    fn size(&self) -> u32 { area(self.w, self.h) }\n}\nlet mut rooms = vec![Room { name: \"hall\".to_string(), w: 3, h: 4 }];\nlet total = rooms.len();\nprintln!(\"{} room(s)\", total);\ntotal * 10",
    );
    assert!(t1.accepted, "{t1:?}");
    assert_eq!(t1.value.as_deref(), Some("10"), "{t1:?}");
    assert_eq!(t1.stdout, "1 room(s)\n");
    assert_eq!(locals(&session), ["rooms: Vec<Room>", "total: usize"]);

    // 2: changes a value turn 1 left.
    let t2 = turn(&engine, &mut session, "rooms.push(Room { name: \"kitchen\".into(), w: 5, h: 2 });\nrooms.len()");
    assert!(t2.accepted, "{t2:?}");
    assert_eq!(t2.value.as_deref(), Some("2"));

    // 3: uses turn 1's function and method on the value turn 2 changed; `sizes` goes into the value, so it does
    // not outlive the turn (as in one program), but `doors` does.
    let t3 = turn(
        &engine,
        &mut session,
        "let sizes: Vec<u32> = rooms.iter().map(|r| r.size()).collect();\nlet doors = 3;\n(sizes, area(2, 2))",
    );
    assert!(t3.accepted, "{t3:?}");
    assert_eq!(t3.value.as_deref(), Some("([12, 10], 4)"));
    assert!(t3.dropped.iter().any(|d| d.contains("`sizes`")), "{t3:?}");

    // A field of a new local moved into the value: the local is partially moved, so it does not outlive the turn
    // either.
    let partial = turn(
        &engine,
        &mut session,
        "let first = rooms[0].clone();\nlet label = \"big\".to_string();\n(label, first.name)",
    );
    assert!(partial.accepted, "{partial:?}");
    assert_eq!(partial.value.as_deref(), Some("(\"big\", \"hall\")"));
    assert!(partial.dropped.iter().any(|d| d.contains("`first`")), "{partial:?}");

    // A rejected turn changes nothing.
    let rejected = turn(&engine, &mut session, "let n: u32 = rooms;\nn");
    assert!(!rejected.accepted);
    assert!(rejected.diagnostics.iter().any(|d| d.contains("E0308")), "{rejected:?}");
    assert_eq!(locals(&session), ["rooms: Vec<Room>", "total: usize", "doors: i32"]);

    // A redefinition: later turns see the new function.
    let t4 = turn(&engine, &mut session, "fn area(w: u32, h: u32) -> u32 { w * h * 2 }\narea(1, 1)");
    assert!(t4.accepted, "{t4:?}");
    assert_eq!(t4.value.as_deref(), Some("2"));
    let t5 = turn(&engine, &mut session, "rooms.iter().map(|r| r.size()).sum::<u32>()");
    assert_eq!(t5.value.as_deref(), Some("44"), "{t5:?}");

    // A fault: an error value; what was there stays (with what the turn changed before it faulted).
    let t6 = turn(&engine, &mut session, "rooms.pop();\nlet i = rooms.len() + 3;\nrooms[i].name.clone()");
    assert!(t6.error.as_deref().is_some_and(|e| e.contains("index out of bounds")), "{t6:?}");
    // It says which earlier locals it reached before the fault (`doors` and `total` it did not touch).
    assert_eq!(t6.may_have_changed, ["rooms"], "{t6:?}");
    let t7 = turn(&engine, &mut session, "rooms.len()");
    assert_eq!(t7.value.as_deref(), Some("1"), "{t7:?}");
    assert_eq!(locals(&session), ["rooms: Vec<Room>", "total: usize", "doors: i32"]);

    // Shadowing replaces a local, with another type if it likes.
    let t8 = turn(&engine, &mut session, "let total = format!(\"{} rooms\", rooms.len());");
    assert!(t8.accepted, "{t8:?}");
    assert_eq!(t8.value, None);
    assert_eq!(locals(&session), ["rooms: Vec<Room>", "doors: i32", "total: String"]);
    engine.close_session(session);
}

/// A function a turn declares runs as the session host's own item, outside the snippet later turns become: the
/// loops std runs over its iterators still count (the turn's analysis put the counting wrappers in its text), so a
/// later turn that hands it an endless iterator runs out of fuel instead of hanging the session, and the session
/// goes on. The second runs on the JIT path: the session's functions it calls count fuel from a pool of their own.
#[test]
fn waits_in_a_turns_functions_end_at_the_time_budget_in_later_turns() {
    let checker = lacuna_checker::Checker::new(lacuna_checker::CheckerOptions::default()).expect("checker starts");
    let mut options = lacuna_engine::RunOptions::default();
    options.budgets.time_ms = 1_000;
    let engine = lacuna_engine::Engine::new(checker, options).expect("engine starts");
    let mut session = Session::new();
    let declared = turn(
        &engine,
        &mut session,
        "use std::sync::mpsc;\n\
         fn collect(close: bool) -> i64 {\n    let (tx, rx) = mpsc::channel::<i64>();\n    tx.send(4).unwrap();\n    \
         if close {\n        drop(tx);\n        rx.iter().sum()\n    } else {\n        let total: i64 = rx.iter().sum();\n        \
         drop(tx);\n        total\n    }\n}\n\
         fn relock(m: &std::sync::Mutex<i64>) -> i64 {\n    let a = m.lock().unwrap();\n    *a + *m.lock().unwrap()\n}\n\
         collect(true)",
    );
    assert_eq!(declared.value.as_deref(), Some("4"), "{declared:?}");
    let forgotten = turn(&engine, &mut session, "collect(false)");
    assert!(forgotten.error.as_deref().is_some_and(|e| e.contains("time")), "{forgotten:?}");
    let relocked = turn(&engine, &mut session, "relock(&std::sync::Mutex::new(1))");
    assert!(relocked.error.as_deref().is_some_and(|e| e.contains("time")), "{relocked:?}");
    let after = turn(&engine, &mut session, "collect(true) + 1");
    assert_eq!(after.value.as_deref(), Some("5"), "{after:?}");
}

#[test]
fn loops_inside_std_in_a_turns_functions_count_in_later_turns() {
    let checker = lacuna_checker::Checker::new(lacuna_checker::CheckerOptions::default()).expect("checker starts");
    let mut options = lacuna_engine::RunOptions::default();
    options.budgets.fuel = 5_000_000;
    options.budgets.time_ms = 5_000;
    let engine = lacuna_engine::Engine::new(checker, options).expect("engine starts");
    let mut session = Session::new();
    let declared = turn(
        &engine,
        &mut session,
        "fn biggest(it: impl Iterator<Item = i64>) -> i64 {\n    it.max().unwrap_or(0)\n}\n\
         fn first_digit(text: &str) -> Option<char> {\n    text.chars().cycle().find(char::is_ascii_digit)\n}\n\
         biggest([3, 9, 4].into_iter())",
    );
    assert_eq!(declared.value.as_deref(), Some("9"), "{declared:?}");
    let endless = turn(&engine, &mut session, "biggest(std::iter::repeat(1))");
    assert!(endless.error.as_deref().is_some_and(|e| e.contains("fuel")), "{endless:?}");
    let cycled = turn(&engine, &mut session, "first_digit(\"no digits here\")");
    assert!(cycled.error.as_deref().is_some_and(|e| e.contains("fuel")), "{cycled:?}");
    assert_eq!(cycled.path, Some(lacuna_engine::ExecPath::Jit), "{cycled:?}");
    let after = turn(&engine, &mut session, "biggest([5, 2].into_iter()) + first_digit(\"a1\").map_or(0, |_| 1)");
    assert_eq!(after.value.as_deref(), Some("6"), "{after:?}");
}
