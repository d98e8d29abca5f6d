use lacuna::{agent, HoleError};

/// The host's tool: the network, but only its status page.
pub struct StatusPage {
    client: net::Client,
}

impl StatusPage {
    pub fn fetch(&self) -> String {
        self.client.get("127.0.0.1:9", "/status").unwrap_or_else(|e| format!("unreachable: {e}"))
    }
}

fn summarize(text: &str, client: &net::Client, status: &StatusPage) -> Result<String, HoleError> {
    agent!("summarize the text")
}

fn main() {
    let status = StatusPage { client: net::Client::new() };
    let client = net::Client::new();
    println!("{:?}", summarize("Hello, world. Hello!", &client, &status));
}
