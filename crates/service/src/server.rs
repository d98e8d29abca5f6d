//! The service behind both transports: a message in, at most one response out. Requests run concurrently; each
//! can be cancelled (`$/cancelRequest`, or the transport dropping it) and has a time limit.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::methods::{self, Method};
use crate::pool::{CheckJob, CheckPool};
use crate::protocol::{self, ErrorCode, Id, Request, Response, RpcError};
use crate::run::RunCommand;

#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// A request (a line, a body) larger than this is refused unread.
    pub max_request_bytes: usize,
    /// How long one request may take before it is answered with a timeout error.
    pub request_timeout: Duration,
    pub run: RunCommand,
}

/// Which client connection a request came on: ids are only unique per connection.
pub type Connection = u64;

pub struct Service {
    pool: CheckPool,
    sessions: Arc<crate::sessions::Sessions>,
    options: ServiceOptions,
    started: Instant,
    /// Requests being worked on, by connection and id: what cancels them.
    in_flight: Mutex<HashMap<(Connection, Id), Arc<Cancel>>>,
    next_connection: AtomicU64,
    shutdown: tokio::sync::watch::Sender<bool>,
    served: AtomicU64,
}

/// What [`Service::admit`] made of a message.
pub enum Admission {
    /// Nothing more to do: the response (an error, or none for a notification).
    Answered(Option<Response>),
    /// A request to [`Service::serve`]; registered, so a cancel that names it from now on reaches it.
    Call(Call),
}

/// An admitted request.
pub struct Call {
    id: Option<Id>,
    method: Method,
    params: Value,
    cancel: Arc<Cancel>,
}

/// A request's cancellation: the flag workers read, and a wake-up for the task waiting on them.
#[derive(Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    notify: tokio::sync::Notify,
}

impl Cancel {
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
        self.notify.notify_waiters();
    }

    async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            if self.flag.load(Ordering::Relaxed) {
                return;
            }
            notified.await;
        }
    }
}

impl Service {
    pub fn new(pool: CheckPool, sessions: crate::sessions::Sessions, options: ServiceOptions) -> Service {
        Service {
            pool,
            sessions: Arc::new(sessions),
            options,
            started: Instant::now(),
            in_flight: Mutex::new(HashMap::new()),
            next_connection: AtomicU64::new(1),
            shutdown: tokio::sync::watch::channel(false).0,
            served: AtomicU64::new(0),
        }
    }

    pub fn options(&self) -> &ServiceOptions {
        &self.options
    }

    /// A new connection's number.
    pub fn connect(&self) -> Connection {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Becomes true once `shutdown` was asked for (or [`Service::begin_shutdown`] called).
    pub fn shutdown_signal(&self) -> tokio::sync::watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// Stops taking requests: every one in flight is answered as cancelled, and the sessions are closed.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
        let sessions = self.sessions.clone();
        std::thread::spawn(move || sessions.close_all());
        for cancel in self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).values() {
            cancel.cancel();
        }
    }

    /// One message (a line, a body): the response to send, if any (notifications get none).
    pub async fn handle(&self, connection: Connection, text: &str) -> Option<Response> {
        match self.admit(connection, text) {
            Admission::Answered(response) => response,
            Admission::Call(call) => self.serve(connection, call).await,
        }
    }

    /// The part of handling a message that must happen in the order messages arrive: parsing it, registering a
    /// request so that a `$/cancelRequest` read after it finds it, and acting on a cancel. A transport that works
    /// on several messages at once admits each before it reads the next, then [`Service::serve`]s the call.
    pub fn admit(&self, connection: Connection, text: &str) -> Admission {
        if text.len() > self.options.max_request_bytes {
            return Admission::Answered(Some(self.too_large(Some(text.len()))));
        }
        let request = match protocol::parse(text) {
            Ok(request) => request,
            Err(response) => return Admission::Answered(Some(*response)),
        };
        if *self.shutdown.borrow() {
            return Admission::Answered(request.id.map(|id| {
                Response::error(Some(id), ErrorCode::RequestCancelled.with("the service is shutting down"))
            }));
        }
        let Request { id, method, params } = request;
        let method = match Method::from_name(&method) {
            Ok(method) => method,
            Err(error) => return Admission::Answered(id.map(|id| Response::error(Some(id), error))),
        };
        if method == Method::CancelRequest {
            // A notification, as LSP sends it; sent as a request (with an id), it is answered too.
            let cancelled = methods::params::<methods::CancelParams>(method, params).map(|params| {
                let cancel =
                    self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).get(&(connection, params.id)).cloned();
                if let Some(cancel) = &cancel {
                    cancel.cancel();
                }
                json!({"cancelled": cancel.is_some()})
            });
            return Admission::Answered(id.map(|id| match cancelled {
                Ok(result) => Response::result(Some(id), result),
                Err(error) => Response::error(Some(id), error),
            }));
        }
        let cancel = Arc::new(Cancel::default());
        if let Some(id) = &id {
            self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).insert((connection, id.clone()), cancel.clone());
        }
        Admission::Call(Call { id, method, params, cancel })
    }

    /// Works on an admitted request: its response, if it has an id.
    pub async fn serve(&self, connection: Connection, call: Call) -> Option<Response> {
        let Call { id, method, params, cancel } = call;
        // However this ends — answered, or dropped by its transport (an HTTP client went away) — the work is
        // cancelled and the request forgotten.
        let _forget = InFlight { service: self, key: id.clone().map(|id| (connection, id)), cancel: cancel.clone() };
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(self.options.request_timeout, self.call(method, params, &cancel)) => match outcome {
                Ok(outcome) => outcome,
                Err(_) => {
                    cancel.cancel();
                    Err(ErrorCode::Timeout.with(format!(
                        "the request took longer than {} ms; the limit is `lacuna serve --request-timeout-ms`",
                        self.options.request_timeout.as_millis()
                    )))
                }
            },
            _ = cancel.cancelled() => Err(ErrorCode::RequestCancelled.with("the request was cancelled")),
        };
        self.served.fetch_add(1, Ordering::Relaxed);
        // Only a valid `shutdown` shuts down; one with bad params is answered with why, and nothing stops.
        if method == Method::Shutdown && outcome.is_ok() {
            self.begin_shutdown();
        }
        id.map(|id| match outcome {
            Ok(result) => Response::result(Some(id), result),
            Err(error) => Response::error(Some(id), error),
        })
    }

    /// The error for a message over the size limit (of `bytes`, when known).
    pub fn too_large(&self, bytes: Option<usize>) -> Response {
        let size = bytes.map_or("more bytes than the limit".to_owned(), |b| format!("{b} bytes"));
        Response::error(
            None,
            ErrorCode::RequestTooLarge.with(format!(
                "the request has {size}; the limit is {} bytes (`lacuna serve --max-request-bytes`)",
                self.options.max_request_bytes
            )),
        )
    }

    async fn call(&self, method: Method, params: Value, cancel: &Cancel) -> Result<Value, RpcError> {
        match method {
            Method::Check => self.check(methods::params(method, params)?, cancel).await,
            Method::Run => crate::run::run(&self.options.run, methods::params(method, params)?).await,
            Method::Health => {
                methods::params::<Empty>(method, params)?;
                Ok(self.health())
            }
            Method::Shutdown => {
                methods::params::<Empty>(method, params)?;
                Ok(json!({}))
            }
            Method::CancelRequest => Ok(Value::Null),
            Method::SessionOpen => self.blocking(method, params, cancel, |s, p, _| s.open(p)).await,
            Method::SessionTurn => self.blocking(method, params, cancel, |s, p, cancel| s.turn(p, cancel)).await,
            Method::SessionState => self.blocking(method, params, cancel, |s, p, _| s.state(p)).await,
            Method::SessionClose => self.blocking(method, params, cancel, |s, p, _| s.close(p)).await,
            Method::SessionSave => self.blocking(method, params, cancel, |s, p, _| s.save(p)).await,
        }
    }

    /// A sessions call on a blocking thread (turns check, compile and run), with the request's cancellation flag.
    async fn blocking<P: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        method: Method,
        params: Value,
        cancel: &Cancel,
        call: fn(&crate::sessions::Sessions, P, Arc<AtomicBool>) -> Result<Value, RpcError>,
    ) -> Result<Value, RpcError> {
        let params: P = methods::params(method, params)?;
        let sessions = self.sessions.clone();
        let flag = cancel.flag.clone();
        tokio::task::spawn_blocking(move || call(&sessions, params, flag))
            .await
            .map_err(|_| ErrorCode::Internal.with("the session call failed inside the service (a Lacuna bug)"))?
    }

    pub fn health(&self) -> Value {
        json!({
            "status": if *self.shutdown.borrow() { "shutting-down" } else { "ok" },
            "workers": self.pool.workers(),
            "checks_queued_or_running": self.pool.load(),
            "requests_in_flight": self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).len(),
            "requests_served": self.served.load(Ordering::Relaxed),
            "sessions": self.sessions.count(),
            "uptime_ms": self.started.elapsed().as_millis() as u64,
            "version": env!("CARGO_PKG_VERSION"),
        })
    }

    async fn check(&self, params: methods::CheckParams, cancel: &Cancel) -> Result<Value, RpcError> {
        let (name, path, text) = match (&params.host, params.host_text) {
            (Some(_), Some(_)) => {
                return Err(ErrorCode::InvalidParams.with("give either \"host\" (a path) or \"host_text\", not both"))
            }
            (None, None) => return Err(ErrorCode::InvalidParams.with("give \"host\" (a path) or \"host_text\"")),
            (None, Some(text)) => ("host.rs".to_owned(), None, text),
            (Some(path), None) => (path.display().to_string(), Some(path.display().to_string()), read_host(path)?),
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.pool.submit(CheckJob {
            name,
            path,
            text: text.into(),
            hole: params.hole,
            snippet: params.snippet,
            cancelled: cancel.flag.clone(),
            reply,
        });
        // A worker drops a job cancelled before it started, unanswered.
        answer.await.map_err(|_| match cancel.flag.load(Ordering::Relaxed) {
            true => ErrorCode::RequestCancelled.with("the request was cancelled"),
            false => ErrorCode::Internal.with("the check worker stopped without an answer"),
        })?
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// Removes a request from the in-flight table, cancelling its work, when the request ends or is dropped.
struct InFlight<'a> {
    service: &'a Service,
    key: Option<(Connection, Id)>,
    cancel: Arc<Cancel>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.cancel.flag.store(true, Ordering::Relaxed);
        if let Some(key) = &self.key {
            self.service.in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
        }
    }
}

fn read_host(path: &PathBuf) -> Result<String, RpcError> {
    std::fs::read_to_string(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_owned(),
            std::io::ErrorKind::InvalidData => "not UTF-8; save it as UTF-8".to_owned(),
            _ => e.to_string(),
        };
        ErrorCode::InputError.with(format!(
            "cannot read host {}: {why} (a relative path is taken from the service's working directory)",
            path.display()
        ))
    })
}
