//! What the API test files share: one HTTP request to the server under test, and a game's
//! stream of server-sent events.
//!
//! Each test file is its own crate and uses only part of this module.
#![allow(dead_code, reason = "each test crate uses its own part of the shared helpers")]

use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One request with `Connection: close`; the status and the body.
pub async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// [`request`] with a JSON body (none for `null`) and a JSON answer.
pub async fn json_request(addr: SocketAddr, method: &str, path: &str, body: Value) -> (u16, Value) {
    let body = if body.is_null() { String::new() } else { body.to_string() };
    let (status, text) = request(addr, method, path, &body).await;
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")))
}

/// A stream of server-sent events, read from a chunked response.
pub struct Events {
    stream: TcpStream,
    raw: Vec<u8>,
    body: String,
}

impl Events {
    /// The events of game `id`.
    pub async fn open(addr: SocketAddr, id: &str) -> Events {
        Events::at(addr, &format!("/api/game/{id}/events")).await
    }

    /// The events at `path`, once the answer's head says they are a stream of events.
    pub async fn at(addr: SocketAddr, path: &str) -> Events {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(req.as_bytes()).await.unwrap();
        let mut events = Events { stream, raw: Vec::new(), body: String::new() };
        while !events.raw.windows(4).any(|w| w == b"\r\n\r\n") {
            events.fill().await;
        }
        let at = events.raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&events.raw[..at]).to_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        events.raw.drain(..at + 4);
        events
    }

    async fn fill(&mut self) {
        let mut buf = [0u8; 8192];
        let n = self.stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the event stream ended");
        self.raw.extend_from_slice(&buf[..n]);
    }

    /// Moves whole chunks from `raw` to `body`.
    fn dechunk(&mut self) {
        while let Some(end) = self.raw.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(std::str::from_utf8(&self.raw[..end]).unwrap().trim(), 16).unwrap();
            if self.raw.len() < end + 2 + size + 2 {
                return;
            }
            self.body.push_str(std::str::from_utf8(&self.raw[end + 2..end + 2 + size]).unwrap());
            self.raw.drain(..end + 2 + size + 2);
        }
    }

    /// The next event: its name and data.
    pub async fn next(&mut self) -> (String, String) {
        loop {
            self.dechunk();
            if let Some(end) = self.body.find("\n\n") {
                let block: String = self.body.drain(..end + 2).collect();
                let mut name = String::from("message");
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                return (name, data);
            }
            self.fill().await;
        }
    }

    /// The next state event for which `done` holds, counting the info events passed.
    pub async fn state_where(&mut self, done: impl Fn(&Value) -> bool) -> (Value, usize) {
        let mut infos = 0;
        loop {
            let (name, data) = self.next().await;
            let value: Value = serde_json::from_str(&data).unwrap();
            match name.as_str() {
                "state" if done(&value) => return (value, infos),
                "info" => {
                    assert!(value["nodes"].is_u64(), "{value}");
                    infos += 1;
                }
                _ => {}
            }
        }
    }
}
