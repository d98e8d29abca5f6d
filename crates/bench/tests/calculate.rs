//! τ²'s `calculate` as the hosts port it (`suites/tau2/python.rs`) against what Python answers for the same
//! expressions (`testdata/tau2/calculate.cases`, written by `scripts/calculate_cases.py`): the same text for every
//! result and every error.

#[path = "../../../suites/tau2/python.rs"]
mod python;

#[test]
fn calculate_answers_as_python_does() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/tau2/calculate.cases");
    let cases = std::fs::read_to_string(path).expect("testdata/tau2/calculate.cases");
    let mut wrong = Vec::new();
    let mut count = 0;
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let (expression, expected) = line.split_once('\t').expect("an expression, a tab, an answer");
        let got = match python::calculate(expression) {
            Ok(text) => format!("= {text}"),
            Err(error) => format!("! {error}"),
        };
        if got != expected {
            wrong.push(format!("{expression:?}: Python {expected:?}, ours {got:?}"));
        }
        count += 1;
    }
    assert!(count > 50, "only {count} cases read from {path}");
    assert!(wrong.is_empty(), "{} of {count} differ:\n{}", wrong.len(), wrong.join("\n"));
}
