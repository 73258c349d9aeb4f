//! The player's HTTP side: one POST per message, the answer as the body.
//!
//! Answers carry the headers ggp-base's players send (`Content-type: text/acl` and the CORS
//! headers browsers need for web-based game managers). A `GET /message` with the message
//! URL-encoded in the path is read too, as ggp-base does, and `OPTIONS` gets an empty answer
//! with the headers. A request that is not a message is answered with status 400 and a
//! sentence saying what is wrong; the server keeps serving.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::message::{MAX_MESSAGE, parse_message, percent_decode};
use crate::player::{AgentFactory, Player};

/// The content type of answers, as ggp-base writes it.
pub const CONTENT_TYPE: &str = "text/acl";

/// An answer with the protocol's headers.
pub fn reply(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST, GET, OPTIONS"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type"));
    h.insert("Access-Control-Allow-Age", HeaderValue::from_static("86400"));
    r
}

async fn handle<F: AgentFactory>(State(player): State<Arc<Player<F>>>, req: Request<Body>) -> Response {
    let received = Instant::now();
    let text = match *req.method() {
        Method::OPTIONS => return reply(StatusCode::OK, String::new()),
        Method::GET => percent_decode(req.uri().path().trim_start_matches('/')),
        Method::POST => match axum::body::to_bytes(req.into_body(), MAX_MESSAGE).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => return reply(StatusCode::BAD_REQUEST, format!("error: cannot read the request body: {e}")),
        },
        ref m => return reply(StatusCode::METHOD_NOT_ALLOWED, format!("error: method {m} (use POST)")),
    };
    match parse_message(&text) {
        Ok(msg) => reply(StatusCode::OK, player.handle(msg, received).await),
        Err(e) => {
            if player.config().verbose {
                eprintln!("ggp: unreadable request: {e}");
            }
            reply(StatusCode::BAD_REQUEST, format!("error: {e}"))
        }
    }
}

/// The HTTP routes of a player: every path and method goes to the message handler.
pub fn router<F: AgentFactory>(player: Arc<Player<F>>) -> Router {
    Router::new().fallback(handle::<F>).layer(DefaultBodyLimit::max(MAX_MESSAGE)).with_state(player)
}

/// Serves `player` on a bound listener until the process ends.
pub async fn serve<F: AgentFactory>(listener: tokio::net::TcpListener, player: Arc<Player<F>>) -> std::io::Result<()> {
    axum::serve(listener, router(player)).await
}

/// Binds `addr` and serves `player` on a runtime of its own (for front ends without one).
pub fn serve_blocking<F: AgentFactory>(addr: SocketAddr, player: Player<F>) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        serve(listener, Arc::new(player)).await
    })
}
