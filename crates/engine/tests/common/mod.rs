//! What the session tests share: an engine, a turn that must not fail to run, and the locals as `name: type`.

use lacuna_checker::{Checker, CheckerOptions};
use lacuna_engine::{Engine, RunOptions, Session, TurnOutcome};

pub fn engine() -> Engine {
    let checker = Checker::new(CheckerOptions::default()).expect("checker starts");
    Engine::new(checker, RunOptions::default()).expect("engine starts")
}

pub fn turn(engine: &Engine, session: &mut Session, text: &str) -> TurnOutcome {
    engine.session_turn(session, text).unwrap_or_else(|e| panic!("turn `{text}` failed to run: {e}"))
}

pub fn locals(session: &Session) -> Vec<String> {
    session.locals().iter().map(|l| format!("{}: {}", l.name, l.ty)).collect()
}
