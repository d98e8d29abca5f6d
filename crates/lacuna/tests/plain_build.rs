//! A project that depends on `lacuna` and is built and run by plain cargo: every kind of place a hole can stand
//! compiles (functions, `&mut self` methods, closures, generic and `async` functions, any type from context), and
//! each hole evaluates to an error that says how to have it filled.

// A hole's parameters are its snippet's to use: rustc, not seeing the snippet, calls them unused.
#![allow(unused_variables)]

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use lacuna::prelude::*;

#[derive(Debug, Clone, PartialEq)]
struct Issue {
    title: String,
    author: u32,
}

struct Directory {
    names: HashMap<u32, String>,
}

impl Directory {
    async fn display_name(&self, id: u32) -> Option<String> {
        self.names.get(&id).cloned()
    }
}

struct Triage {
    seen: Vec<Issue>,
}

impl Triage {
    fn label(&mut self, issue: &Issue) -> Result<&'static str, HoleError> {
        self.seen.push(issue.clone());
        agent!("one of bug, feature or question for the issue")
    }
}

fn titles(issues: &[Issue]) -> Result<Vec<String>, HoleError> {
    agent!("the titles of the issues, longest first")
}

fn largest<T: Ord + Clone>(items: &[T]) -> Result<T, HoleError> {
    agent!(fast, "the largest item")
}

async fn enrich(dir: &Directory, issue: &Issue) -> Result<String, HoleError> {
    let _ = dir.display_name(issue.author).await;
    agent!("the issue's title followed by its author's display name")
}

/// Polls a future that never waits (holes and the directory here are ready at once) to its end.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("the future waited"),
    }
}

fn assert_unfilled<T: std::fmt::Debug>(result: Result<T, HoleError>) {
    match result {
        Err(e @ HoleError::Model { .. }) => {
            let text = e.to_string();
            assert!(text.contains("lacuna run"), "the error does not say how to fill the hole: {text}");
        }
        other => panic!("a hole in a plain build evaluated to {other:?}"),
    }
}

#[test]
fn holes_compile_in_a_plain_build_and_say_how_to_fill_them() {
    let issue = Issue { title: "Crash on empty input".into(), author: 7 };
    let dir = Directory { names: HashMap::from([(7, "Ada".to_string())]) };
    let mut triage = Triage { seen: Vec::new() };

    assert_unfilled(triage.label(&issue));
    assert_eq!(triage.seen, vec![issue.clone()], "the method's own code ran around the hole");
    assert_unfilled(titles(std::slice::from_ref(&issue)));
    assert_unfilled(largest(&[3, 1, 2]));
    assert_unfilled(ready(enrich(&dir, &issue)));

    let count =
        |issues: &[Issue]| -> Result<usize, HoleError> { agent!(format!("how many of {} issues", issues.len())) };
    assert_unfilled(count(&[]));
    let task = String::from("a yes or no answer");
    let answer: Result<bool, HoleError> = agent!(&task);
    assert_unfilled(answer);
    assert_eq!(task, "a yes or no answer", "the task is borrowed, not taken");
}
