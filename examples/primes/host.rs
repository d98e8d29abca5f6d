//! The paper's first example: a hole that must produce the primes of `xs`.

fn main() {
    let xs: Vec<i64> = vec![0, 1, 2, 4, 7, 9, 10];
    let primes: Vec<i64> = agent!("filter the prime numbers from xs").unwrap();
    println!("{primes:?}");
}
