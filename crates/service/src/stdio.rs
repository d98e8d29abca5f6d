//! JSON-RPC over stdin/stdout: one message per line each way. Requests are answered as they finish (not in
//! order); the service stops at the end of its input (after answering what it read) or on `shutdown`.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::protocol::Response;
use crate::server::{Admission, Service};

/// Serves `input` until it ends or the service shuts down, writing responses to `output`.
pub async fn serve<R, W>(service: Arc<Service>, input: R, mut output: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let connection = service.connect();
    let (sender, mut responses) = tokio::sync::mpsc::unbounded_channel::<Response>();
    let writer = tokio::spawn(async move {
        while let Some(response) = responses.recv().await {
            let mut line = serde_json::to_vec(&response).unwrap_or_else(|_| b"{}".to_vec());
            line.push(b'\n');
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let mut input = tokio::io::BufReader::new(input);
    let mut shutdown = service.shutdown_signal();
    let mut tasks = tokio::task::JoinSet::new();
    let limit = service.options().max_request_bytes;
    loop {
        let line = tokio::select! {
            line = read_line(&mut input, limit) => line?,
            _ = shutdown.wait_for(|stop| *stop) => break,
        };
        let line = match line {
            Line::End => break,
            Line::TooLong(bytes) => {
                let _ = sender.send(service.too_large(Some(bytes)));
                continue;
            }
            Line::Text(text) if text.trim().is_empty() => continue,
            Line::Text(text) => text,
        };
        // Admitted here, in the order lines arrive, so a `$/cancelRequest` on the next line finds its request
        // even if that request's task has not started.
        let call = match service.admit(connection, &line) {
            Admission::Answered(response) => {
                if let Some(response) = response {
                    let _ = sender.send(response);
                }
                continue;
            }
            Admission::Call(call) => call,
        };
        let (service, sender) = (service.clone(), sender.clone());
        tasks.spawn(async move {
            if let Some(response) = service.serve(connection, call).await {
                let _ = sender.send(response);
            }
        });
    }
    // What was read is answered (as cancelled, if the service is shutting down).
    while tasks.join_next().await.is_some() {}
    drop(sender);
    writer.await.map_err(std::io::Error::other)?
}

enum Line {
    Text(String),
    /// A line longer than the limit (its length so far), skipped to its end.
    TooLong(usize),
    End,
}

/// The next line, without holding more than `limit` bytes of it.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(input: &mut R, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(match (line.is_empty(), skipped) {
                (true, 0) => Line::End,
                (_, 0) => Line::Text(String::from_utf8_lossy(&line).into_owned()),
                _ => Line::TooLong(skipped),
            });
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        if skipped > 0 || line.len() + chunk.len() > limit {
            skipped += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let consumed = done.unwrap_or(buffer.len());
        input.consume(consumed);
        if done.is_some() {
            return Ok(if skipped > 0 {
                Line::TooLong(skipped)
            } else {
                Line::Text(String::from_utf8_lossy(&line).into_owned())
            });
        }
    }
}
