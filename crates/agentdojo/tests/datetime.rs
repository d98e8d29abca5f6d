//! How the travel and workspace hosts read a date or time a model passes a tool (`hosts/office.rs`), against what
//! CPython answers for the same text (`testdata/agentdojo/datetime.cases`, written by
//! `scripts/agentdojo_datetime_cases.py`): the same date-time, or the same error's text. Where the port refuses
//! what Python reads (time zones, fractions of a second: a naive date-time to the second is all AgentDojo's data
//! and checks hold), the difference is the snapshot below, and nothing else may differ.

#[allow(dead_code)]
#[path = "../hosts/office.rs"]
mod office;

use expect_test::expect;
use office::DateTime;

#[test]
fn dates_and_times_read_as_python_reads_them() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/agentdojo/datetime.cases");
    let cases = std::fs::read_to_string(path).expect("testdata/agentdojo/datetime.cases");
    let mut differ = Vec::new();
    let mut count = 0;
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.splitn(3, '\t');
        let (Some(parser), Some(input), Some(expected)) = (fields.next(), fields.next(), fields.next()) else {
            panic!("a parser, a tab, an input, a tab, an answer: {line:?}");
        };
        let read = match parser {
            "iso" => DateTime::from_iso(input),
            "minute" => DateTime::strptime(input, true),
            "day" => DateTime::strptime(input, false),
            other => panic!("unknown parser {other}"),
        };
        let got = match read {
            Ok(t) => format!("= {t}"),
            Err(e) => format!("! {e}"),
        };
        if got != expected {
            differ.push(format!("{parser} {input:?}: Python {expected:?}, ours {got:?}"));
        }
        count += 1;
    }
    assert!(count > 100, "only {count} cases read from {path}");
    expect![[r#"
        iso "2024-05-15T10:00:00Z": Python "= 2024-05-15 10:00:00+00:00", ours "! time zones are not supported here (a naive date-time to the second): '2024-05-15T10:00:00Z'"
        iso "2024-05-15T10:00:00+02:00": Python "= 2024-05-15 10:00:00+02:00", ours "! time zones are not supported here (a naive date-time to the second): '2024-05-15T10:00:00+02:00'"
        iso "2024-05-15 10:00:00.5": Python "= 2024-05-15 10:00:00.500000", ours "! fractions of a second are not supported here (a naive date-time to the second): '2024-05-15 10:00:00.5'""#]].assert_eq(&differ.join("\n"));
}
