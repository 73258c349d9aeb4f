//! What the API test files share: one HTTP request to the server under test.
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
