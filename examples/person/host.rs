//! Paper, appendix A: the richer the result type, the tighter the contract. A struct pins the shape of the
//! answer; a function type asks for an implementation, generated once and called many times.

#[derive(Debug, Clone, PartialEq)]
struct Person {
    name: String,
    born: u32,
    field: String,
}

fn main() {
    let turing: Person = agent!("info about Alan Turing").expect("a person");
    println!("{turing:?}");
    let to_roman: fn(u32) -> String = agent!("convert 1..3999 to Roman numerals").expect("a function");
    let romans: Vec<String> = (1..=5).map(to_roman).collect();
    println!("{romans:?}");
    println!("{}", to_roman(1912));
}
