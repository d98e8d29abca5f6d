//! Garbage, truncated, huge and deeply nested snippets and hosts: the checker answers (a verdict or an input
//! error) and never panics; whatever it rejects comes with diagnostics inside the snippet or at the hole.

use std::sync::{Mutex, OnceLock};

use lacuna_checker::{
    Checker, CheckerError, CheckerOptions, ErrorKind, Location, PreparedHost, Verdict, MAX_SNIPPET_BYTES,
};
use proptest::prelude::*;

const HOST: &str = r#"
struct Point { x: i32, y: i32 }

fn main() {
    let xs: Vec<i32> = vec![3, 1, 2];
    let p = Point { x: 1, y: 2 };
    let name = String::from("n");
    let out: i32 = agent!("some number").unwrap();
    println!("{out} {} {} {}", xs.len(), p.x + p.y, name);
}
"#;

struct Fixture {
    checker: Checker,
    host: PreparedHost,
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut checker = Checker::new(CheckerOptions::default()).expect("checker starts");
        let host = checker.prepare("host.rs", HOST).expect("the fixture host compiles");
        Mutex::new(Fixture { checker, host })
    })
}

/// Checks a snippet under safe mode and asserts the verdict is well-formed.
fn check(snippet: &str) -> Result<Verdict, CheckerError> {
    check_under(snippet, &lacuna_checker::Policy::default())
}

/// [`check`] under `policy`.
fn check_under(snippet: &str, policy: &lacuna_checker::Policy) -> Result<Verdict, CheckerError> {
    let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let Fixture { checker, host } = &mut *f;
    let verdict = checker.check_under(host, 0, snippet, policy)?;
    let lines = snippet.split('\n').count() as u32;
    if !verdict.accepted {
        assert!(!verdict.diagnostics.is_empty(), "a rejection without diagnostics for {snippet:?}");
    }
    for d in &verdict.diagnostics {
        assert!(d.line >= 1 && d.column >= 1, "{d:?}");
        assert!((d.line, d.column) <= (d.end_line, d.end_column), "{d:?}");
        if d.location == Location::Snippet {
            assert!(d.end_line <= lines.max(1), "{d:?} beyond {lines} line(s) of {snippet:?}");
        }
    }
    Ok(verdict)
}

const TOKENS: &[&str] = &[
    "let", "mut", "x", "xs", "p", "name", "=", ";", "(", ")", "{", "}", "[", "]", "1", "2.0", "\"s\"", "'c'", "fn",
    "->", "=>", "match", "if", "else", "loop", "break", "return", "&", "&mut", "*", "+", "-", "!", ".", "::", ",", "|",
    "move", "'a", "r#\"", "/*", "*/", "//", "\n", "as", "i32", "String", "Vec", "<", ">", "?", "agent!", "\"", "#",
    "$", "unsafe", "impl", "struct", "'", "..", "...", "@", "\\",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.join(" "))
}

const VALID: &[&str] = &[
    "let mut v = xs.clone();\nv.sort();\nv[0] + p.x",
    "match xs.as_slice() {\n    [a, ..] => *a,\n    [] => 0,\n}",
    "name.len() as i32 + xs.iter().sum::<i32>()",
    "fn twice(n: i32) -> i32 { n * 2 }\ntwice(p.y)",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(snippet in "\\PC{0,200}") {
        check(&snippet).expect("a verdict, not an error");
    }

    #[test]
    fn token_soup_never_panics(snippet in token_soup()) {
        check(&snippet).expect("a verdict, not an error");
    }

    #[test]
    fn truncated_snippets_never_panic(which in 0..VALID.len(), cut in 0usize..200) {
        let full = VALID[which];
        let mut cut = cut.min(full.len());
        while !full.is_char_boundary(cut) {
            cut -= 1;
        }
        check(&full[..cut]).expect("a verdict, not an error");
    }

    #[test]
    fn garbage_hosts_are_input_errors_not_panics(host in "\\PC{0,300}") {
        let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
        // Most garbage does not parse or has no hole; whatever the answer, it comes back as a value.
        let _ = f.checker.prepare("garbage.rs", &host);
    }

    #[test]
    fn truncated_hosts_never_panic(cut in 0usize..HOST.len()) {
        let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
        let _ = f.checker.prepare("truncated.rs", &HOST[..cut]);
    }
}

#[test]
fn the_valid_snippets_are_accepted() {
    for snippet in VALID {
        let v = check(snippet).unwrap();
        assert!(v.accepted, "{snippet}: {:?}", v.diagnostics);
    }
}

#[test]
fn deep_nesting_is_judged_not_crashed() {
    for depth in [10, 300, 3_000] {
        let parens = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        let v = check(&parens).unwrap();
        // Safe mode inspects what rust-analyzer can take; deeper snippets are unverifiable to it.
        if depth <= 10 {
            assert!(v.accepted, "depth {depth}: {:?}", v.diagnostics);
        } else {
            assert_eq!(v.decided_by, lacuna_checker::DecidedBy::Policy);
            assert_eq!(v.diagnostics[0].kind.name(), "unverifiable");
        }
        // Without it, rustc decides: its own nesting limit rejects the deepest; the shallow ones are integers.
        let v = check_under(&parens, &lacuna_checker::Policy::unconfined()).unwrap();
        if depth <= 300 {
            assert!(v.accepted, "depth {depth}: {:?}", v.diagnostics);
        }
        let blocks = format!("{}1{}", "{".repeat(depth), "}".repeat(depth));
        check(&blocks).unwrap();
        let negations = format!("{}1", "-".repeat(depth));
        check(&negations).unwrap();
        let unclosed = "(".repeat(depth);
        assert!(!check(&unclosed).unwrap().accepted);
    }
}

/// Type inference of a 3,000-term integer sum takes rust-analyzer minutes (its trait solver is quadratic in the
/// pending `Add` obligations), inside one query salsa does not stop on a local request. The analysis budget stops
/// it: under safe mode the snippet is unverifiable, unconfined rustc decides alone, and the checker goes on.
#[test]
fn analysis_that_outlasts_its_budget_is_stopped_and_the_checker_goes_on() {
    let options = CheckerOptions { analysis_timeout: std::time::Duration::from_secs(2), ..CheckerOptions::default() };
    let mut checker = Checker::new(options).expect("checker starts");
    let host = checker.prepare("host.rs", HOST).expect("the fixture host compiles");
    let long_sum = format!("({}) - 3_000 + p.x", vec!["1"; 3_000].join(" + "));
    let started = std::time::Instant::now();
    let v = checker.check(&host, 0, &long_sum).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "not stopped: {:?}", started.elapsed());
    assert_eq!((v.accepted, v.decided_by), (false, lacuna_checker::DecidedBy::Policy));
    assert_eq!(v.diagnostics[0].kind.name(), "unverifiable");
    assert!(
        v.diagnostics[0].message.contains("did not finish analysing the snippet within 2 s"),
        "{:?}",
        v.diagnostics
    );
    // The session's database is whole after the stop: the next checks are decided as before.
    let v = checker.check(&host, 0, "p.x + xs.len() as i32").unwrap();
    assert!(v.accepted, "{:?}", v.diagnostics);
    let v = checker.check(&host, 0, "p.z").unwrap();
    assert_eq!(v.diagnostics[0].code.as_deref(), Some("E0609"), "{:?}", v.diagnostics);
    let v = checker.check_under(&host, 0, &long_sum, &lacuna_checker::Policy::unconfined()).unwrap();
    assert!(v.accepted, "{:?}", v.diagnostics);
    assert_eq!(v.decided_by, lacuna_checker::DecidedBy::Rustc);
}

#[test]
fn huge_snippets_are_refused_or_checked() {
    let too_big = "1".repeat(MAX_SNIPPET_BYTES + 1);
    match check(&too_big) {
        Err(CheckerError::SnippetTooLarge { bytes }) => assert_eq!(bytes, MAX_SNIPPET_BYTES + 1),
        other => panic!("expected SnippetTooLarge, got {other:?}"),
    }
    // A 1,000-term sum nests 1,000 deep in the syntax tree: rust-analyzer handles it on its analysis thread.
    let long_sum = vec!["1"; 1_000].join(" + ");
    assert!(check(&format!("({long_sum}) - 1_000 + p.x")).unwrap().accepted);
    // Past the token limit rust-analyzer is skipped: safe mode cannot inspect the snippet and rejects it;
    // unconfined, rustc alone decides.
    let many_lets: String = (0..4_000).map(|i| format!("let _v{i} = {i};\n")).collect();
    let v = check(&format!("{many_lets}p.y")).unwrap();
    assert_eq!((v.accepted, v.decided_by), (false, lacuna_checker::DecidedBy::Policy));
    assert_eq!(v.diagnostics[0].code.as_deref(), Some("L0109"));
    let v = check_under(&format!("{many_lets}p.y"), &lacuna_checker::Policy::unconfined()).unwrap();
    assert!(v.accepted, "{:?}", v.diagnostics);
    assert_eq!(v.decided_by, lacuna_checker::DecidedBy::Rustc);
}

#[test]
fn escaping_the_hole_is_rejected_even_when_rustc_would_compile_it() {
    let escape = "0 }).unwrap(); } fn injected() -> i32 { 5 } fn another() { let out: i32 = Ok::<i32, ()>({ 0";
    let v = check(escape).unwrap();
    assert!(!v.accepted);
    assert_eq!(v.diagnostics[0].kind, ErrorKind::SnippetEscapesHole.into());
}

/// Every testdata host is prepared, and each hole's type displayed, without an internal error (displaying a type
/// needs rust-analyzer's database attached to the thread: nested `dyn` types once panicked outside it).
#[test]
fn every_testdata_host_shows_its_hole_types() {
    let cases = lacuna_testdata::load_all().expect("testdata loads");
    let mut hosts: Vec<std::sync::Arc<str>> = cases.iter().map(|c| c.host.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let mut checker = Checker::new(CheckerOptions::default()).expect("checker starts");
    for host in hosts {
        let prepared = checker.prepare("host.rs", &host).unwrap_or_else(|e| panic!("{e}\n{host}"));
        assert_eq!(prepared.expected_types.len(), prepared.host.holes.len());
    }
}

/// A hole's type built from pieces people put in signatures: nested `dyn Fn`, boxes, references with lifetimes,
/// fn pointers, iterators, results.
fn hole_type() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("i32".to_string()),
        Just("String".to_string()),
        Just("&'static str".to_string()),
        Just("bool".to_string()),
        Just("u8".to_string()),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| format!("Vec<{t}>")),
            inner.clone().prop_map(|t| format!("Option<{t}>")),
            inner.clone().prop_map(|t| format!("Box<dyn Fn(i32) -> {t}>")),
            inner.clone().prop_map(|t| format!("Box<dyn Fn({t}) -> {t} + Send>")),
            inner.clone().prop_map(|t| format!("fn({t}) -> {t}")),
            inner.clone().prop_map(|t| format!("Box<dyn Iterator<Item = {t}>>")),
            inner.clone().prop_map(|t| format!("Result<{t}, Box<dyn std::error::Error>>")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a}, {b})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_hole_types_are_shown_not_crashed(ty in hole_type()) {
        let host = format!("fn main() {{\n    let v: {ty} = agent!(\"t\").unwrap();\n    let _ = &v;\n}}\n");
        let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
        let prepared = f.checker.prepare("host.rs", &host).unwrap_or_else(|e| panic!("{e}\n{host}"));
        prop_assert!(prepared.expected_types[0].is_some(), "no type shown for `{}`", ty);
    }
}

#[test]
fn a_curried_closure_hole_is_checked() {
    let host = "fn main() {\n    let adder: Box<dyn Fn(i32) -> Box<dyn Fn(i32) -> i32>> = agent!(\"a curried adder\").unwrap();\n    println!(\"{}\", adder(2)(3));\n}\n";
    let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let prepared = f.checker.prepare("host.rs", host).expect("the host prepares");
    let verdict = f.checker.check(&prepared, 0, "Box::new(|a| Box::new(move |b| a + b))").expect("a verdict");
    assert!(verdict.accepted, "{verdict:?}");
    assert!(verdict.expected_type.as_deref().is_some_and(|t| t.starts_with("Box<dyn Fn(i32) -> Box<dyn Fn(i32)")));
}

/// A host Lacuna generates (a session turn's) is prepared without rustc's check of the host alone. If it does
/// not compile after all — a bug in what generated it — nothing spliced into it is accepted; nor is anything when
/// the generator wrote a hole's type that is not the hole's.
#[test]
fn a_generated_host_that_does_not_compile_accepts_nothing() {
    use lacuna_checker::GeneratedHole;
    let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let checker = &mut f.checker;
    let broken =
        "fn label() -> u32 {\n    \"not a number\"\n}\n\nfn main() {\n    let turn = agent!(\"the next turn\");\n}\n";
    let prepared =
        checker.prepare_generated("generated.rs", broken, &[GeneratedHole::Inferred]).expect("prepared as generated");
    for snippet in ["1", "label()", "let x = 2;\nx + 1", "String::from(\"s\")"] {
        let verdict = checker.check(&prepared, 0, snippet).expect("checked");
        assert!(!verdict.accepted, "{snippet:?} accepted in a host that does not compile: {verdict:?}");
    }
    // Prepared as any other host, it is refused up front.
    assert!(matches!(checker.prepare("generated.rs", broken), Err(CheckerError::HostDoesNotCompile { .. })));

    // The hole's type written wrong (`String` for a hole of `u64`): neither a `String` nor a `u64` is accepted.
    let typed = "fn main() {\n    let n: Result<u64, lacuna::HoleError> = agent!(\"a number\");\n}\n";
    let wrong = checker
        .prepare_generated("generated.rs", typed, &[GeneratedHole::Typed("String".into())])
        .expect("prepared as generated");
    for snippet in ["5", "String::from(\"5\")"] {
        let verdict = checker.check(&wrong, 0, snippet).expect("checked");
        assert!(!verdict.accepted, "{snippet:?} accepted against a wrongly written type: {verdict:?}");
    }
    // Written right, the hole takes what fits it.
    let right = checker
        .prepare_generated("generated.rs", typed, &[GeneratedHole::Typed("u64".into())])
        .expect("prepared as generated");
    assert!(checker.check(&right, 0, "5").expect("checked").accepted);
    assert!(!checker.check(&right, 0, "\"5\"").expect("checked").accepted);
}

/// A snippet's macro that doubles at every step (2^16 expansions; rust-analyzer's analysis of what it makes takes
/// more than ten minutes) does not hold the checker: its expansion is measured first, the snippet is rejected
/// (safe mode could not inspect it; the diagnostic says why), and the next check runs normally.
#[test]
fn an_expansion_bomb_is_stopped_before_analysis() {
    let mut f = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let Fixture { checker, host } = &mut *f;
    let xs = vec!["x"; 16].join(" ");
    let bomb =
        format!("macro_rules! d {{ () => {{ 1i32 }}; (x $($t:tt)*) => {{ d!($($t)*) + d!($($t)*) }}; }}\nd!({xs})");
    let verdict = checker.check(host, 0, &bomb).expect("the check answers");
    assert!(!verdict.accepted, "{verdict:?}");
    assert!(
        verdict.diagnostics.iter().any(|d| d.message.contains("macros make more than")),
        "the rejection says the analysis was stopped: {:?}",
        verdict.diagnostics
    );
    let next = checker.check(host, 0, "xs.iter().sum::<i32>() + p.x").expect("the next check answers");
    assert!(next.accepted, "{next:?}");
}
