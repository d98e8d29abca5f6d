//! Paper, appendix F.1: chain of reasoning. One hole's output is the next hole's task; each has its own type, so
//! the compiler keeps the chain coherent.

#[derive(Debug, PartialEq)]
enum Answer {
    Yes,
    No,
}

fn main() {
    let task = "is 2^31 - 1 prime";
    let polished: String = agent!(format!("polish this prompt: {task}")).expect("a prompt");
    println!("polished: {polished}");
    let answer: Answer = agent!(polished).expect("an answer");
    println!("answer: {answer:?}");
}
