//! The same methods over HTTP: `POST /` with one JSON-RPC request as the body (the answer is the body of the
//! response; a notification gets `204 No Content`), and `GET /health`. All requests share one connection space, so
//! `$/cancelRequest` from one HTTP request cancels another's id; a client that disconnects cancels its request.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::server::{Connection, Service};

#[derive(Clone)]
struct Shared {
    service: Arc<Service>,
    connection: Connection,
}

/// Serves on `listener` until the service shuts down (the `shutdown` method, or [`Service::begin_shutdown`]).
pub async fn serve(service: Arc<Service>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let limit = service.options().max_request_bytes;
    let shared = Shared { connection: service.connect(), service: service.clone() };
    let app = Router::new()
        .route("/", post(rpc))
        .route("/health", get(health))
        // Over the limit, the body is not read: the answer is the same JSON-RPC error as on stdio.
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared);
    let mut stop = service.shutdown_signal();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stop| *stop).await;
        })
        .await
}

async fn rpc(
    State(shared): State<Shared>,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let Ok(body) = body else {
        return (StatusCode::PAYLOAD_TOO_LARGE, Json(shared.service.too_large(None))).into_response();
    };
    let text = String::from_utf8_lossy(&body);
    // Dropped with the connection: the request's work is cancelled with it (see `Service::handle`).
    match shared.service.handle(shared.connection, &text).await {
        Some(response) => Json(response).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

async fn health(State(shared): State<Shared>) -> Json<serde_json::Value> {
    Json(shared.service.health())
}
