//! Paper, appendix F.2: a sub-agent with isolated context is a function that wraps a hole. Its hole sees the
//! function's parameters and the program's items, not the caller's locals: the first reply reaches for the
//! caller's `secret`, is rejected (E0425) without running, and the retry stays inside the function's scope.

fn sub_agent(prompt: &str) -> Result<String, lacuna::HoleError> {
    agent!(prompt)
}

fn main() {
    let secret = "hunter2";
    let greeting = sub_agent("say hello in French").expect("a greeting");
    println!("{greeting}");
    println!("the secret is still {} characters long", secret.len());
}
