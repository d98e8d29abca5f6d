//! A client that talks to the network, as an HTTP client crate would.

use std::io::{Read, Write};
use std::net::TcpStream;

pub struct Client {
    pub user_agent: String,
}

impl Client {
    pub fn new() -> Client {
        Client { user_agent: "net/0.1".into() }
    }

    /// The body the server at `addr` answers `path` with.
    pub fn get(&self, addr: &str, path: &str) -> std::io::Result<String> {
        let mut stream = TcpStream::connect(addr)?;
        write!(stream, "GET {path} HTTP/1.0\r\nUser-Agent: {}\r\n\r\n", self.user_agent)?;
        let mut body = String::new();
        stream.read_to_string(&mut body)?;
        Ok(body)
    }
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}
