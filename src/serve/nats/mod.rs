//! `toolc serve --nats`: the tools served as a NATS tool worker.
//!
//! Each tool answers Nachos requests on `nachos.tool.<token>.request`, in
//! a queue group (so many workers share the load), and is an endpoint of
//! a NATS service instance named `toolc` (`$SRV.PING/INFO/STATS`, plain
//! subscriptions, answered by every instance). Calls go through the same
//! [`Runner`](crate::run::Runner) as MCP calls, with their own bound: past
//! it a request is answered at once with a retryable `BUSY` error. A
//! request whose envelope id was answered recently is answered again from
//! [`recent`], not run twice. Nachos health pings are answered; each
//! call's audit record may be published.
//!
//! Stopping (a signal, or the server entering lame-duck mode) drains:
//! every subscription is drained (its buffered requests still handled),
//! the calls running finish within the grace period (then are cancelled
//! and answered so), the replies and audit records are flushed, and the
//! connection drains and closes. Each step is bounded in time, so a worker
//! whose NATS server is gone still stops when told to.

mod endpoints;
mod recent;
mod request;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use super::{Handler, log};
use crate::nats::connect::{self, ConnectError, Options};
use crate::nats::nachos::HEALTH_SUBJECT;
use crate::nats::service::{self, Identity, Info, Ping, Stats};
use endpoints::Endpoints;
use recent::Recent;

/// The service's name.
pub(crate) const SERVICE_NAME: &str = "toolc";

/// How the worker is set up (the `--nats*` flags).
pub(crate) struct Settings {
    pub(crate) options: Options,
    pub(crate) queue: String,
    pub(crate) max_concurrency: usize,
    /// The largest request body taken; a larger one is a validation error.
    pub(crate) max_request: usize,
    /// How long running calls get to finish once the worker stops.
    pub(crate) grace: Duration,
    /// Where each call's audit record goes, and the records.
    pub(crate) audit: Option<(String, mpsc::UnboundedReceiver<Value>)>,
}

/// Why the worker could not start.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error("cannot subscribe to {subject} on NATS: {why}")]
    Subscribe { subject: String, why: String },
}

/// The audit sink that hands each record to a worker's `--nats-audit`
/// publisher, and the records' receiving end (for [`Settings::audit`]).
pub(crate) fn audit_channel() -> (crate::run::AuditSink, mpsc::UnboundedReceiver<Value>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let sink: crate::run::AuditSink = Arc::new(move |record: &Value| {
        let _ = sender.send(record.clone());
    });
    (sink, receiver)
}

/// What the request handlers share.
struct Worker {
    client: async_nats::Client,
    handler: Handler,
    endpoints: Endpoints,
    identity: Identity,
    started: SystemTime,
    slots: Arc<Semaphore>,
    max_concurrency: usize,
    max_request: usize,
    recent: Recent,
    /// Cancels the calls still running (the grace period is over).
    cancel: CancellationToken,
    /// How long running calls get to finish once the worker stops (told
    /// to the callers of the calls cancelled past it).
    grace: Duration,
    in_flight: AtomicUsize,
    idle: Notify,
}

/// A worker connected and subscribed, ready to [`Running::run`].
pub(crate) struct Running {
    worker: Arc<Worker>,
    subscriptions: Vec<(Kind, async_nats::Subscriber)>,
    grace: Duration,
    audit: Option<(String, mpsc::UnboundedReceiver<Value>)>,
    /// Fired when the server enters lame-duck mode.
    lame_duck: CancellationToken,
}

#[derive(Clone, Copy)]
enum Kind {
    Tool(usize),
    Ping,
    Info,
    Stats,
    Health,
}

/// Connects, subscribes every endpoint and the `$SRV` and health
/// subjects, flushes, and says it is ready (on stderr).
pub(crate) async fn start(settings: Settings, handler: Handler) -> Result<Running, NatsError> {
    let lame_duck = CancellationToken::new();
    let lame = lame_duck.clone();
    let events: connect::Events = Arc::new(move |text: String| {
        if connect::is_lame_duck(&text) {
            log::warn(format_args!("NATS: {text}: draining"));
            lame.cancel();
        } else {
            log::info(format_args!("NATS: {text}"));
        }
    });
    let client = connect::connect(&settings.options, SERVICE_NAME, Some(events)).await?;
    let served = handler.served();
    let endpoints = Endpoints::new(&served.tools, &settings.queue);
    let identity = Identity {
        name: SERVICE_NAME.to_string(),
        id: service::instance_id(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        metadata: Default::default(),
    };
    let mut subscriptions = Vec::new();
    let subscribe_error = |subject: &str, error: &dyn std::fmt::Display| NatsError::Subscribe {
        subject: subject.to_string(),
        why: error.to_string(),
    };
    for (n, endpoint) in endpoints.list.iter().enumerate() {
        let subscriber = client
            .queue_subscribe(endpoint.subject.clone(), settings.queue.clone())
            .await
            .map_err(|e| subscribe_error(&endpoint.subject, &e))?;
        subscriptions.push((Kind::Tool(n), subscriber));
    }
    for (verb, kind) in service::VERBS
        .iter()
        .zip([Kind::Ping, Kind::Info, Kind::Stats])
    {
        for subject in service::subjects(verb, &identity.name, &identity.id) {
            let subscriber = client
                .subscribe(subject.clone())
                .await
                .map_err(|e| subscribe_error(&subject, &e))?;
            subscriptions.push((kind, subscriber));
        }
    }
    let health = client
        .subscribe(HEALTH_SUBJECT)
        .await
        .map_err(|e| subscribe_error(HEALTH_SUBJECT, &e))?;
    subscriptions.push((Kind::Health, health));
    client
        .flush()
        .await
        .map_err(|e| subscribe_error("(flush)", &e))?;
    for (tool, token) in endpoints.mapped() {
        log::notice(format_args!(
            "tool \"{tool}\" is not one NATS subject token: it is served as \"{token}\" (nachos.tool.{token}.request)"
        ));
    }
    log::notice(format_args!(
        "serving {} tool(s) on NATS at {} (queue {}, instance {})",
        endpoints.list.len(),
        settings.options.shown(),
        settings.queue,
        identity.id
    ));
    let worker = Arc::new(Worker {
        client,
        handler,
        endpoints,
        identity,
        started: SystemTime::now(),
        slots: Arc::new(Semaphore::new(settings.max_concurrency)),
        max_concurrency: settings.max_concurrency,
        max_request: settings.max_request,
        recent: Recent::new(),
        cancel: CancellationToken::new(),
        grace: settings.grace,
        in_flight: AtomicUsize::new(0),
        idle: Notify::new(),
    });
    Ok(Running {
        worker,
        subscriptions,
        grace: settings.grace,
        audit: settings.audit,
        lame_duck,
    })
}

impl Running {
    /// The token fired when the server enters lame-duck mode.
    pub(crate) fn lame_duck(&self) -> CancellationToken {
        self.lame_duck.clone()
    }

    /// Serves until `stop` (or lame-duck mode), then drains.
    pub(crate) async fn run(self, stop: CancellationToken) {
        let Running {
            worker,
            subscriptions,
            grace,
            audit,
            lame_duck,
        } = self;
        let draining = CancellationToken::new();
        let audit_done = CancellationToken::new();
        let audit_task = audit.map(|(subject, receiver)| {
            tokio::spawn(publish_audit(
                worker.client.clone(),
                subject,
                receiver,
                audit_done.clone(),
            ))
        });
        let mut readers = Vec::new();
        for (kind, subscriber) in subscriptions {
            readers.push(tokio::spawn(read(
                Arc::clone(&worker),
                kind,
                subscriber,
                draining.clone(),
            )));
        }
        tokio::select! {
            _ = stop.cancelled() => {}
            _ = lame_duck.cancelled() => {}
        }
        log::info(format_args!(
            "NATS: draining: no new requests taken; {} call(s) running",
            worker.in_flight.load(Ordering::Acquire)
        ));
        draining.cancel();
        // Every wait of the drain has an end: with the NATS server gone, a
        // subscription's drain never ends and a flush waits for a
        // reconnection that may never come, and the worker must still stop
        // when told to. The subscriptions and the calls share the grace
        // period; what is left to send gets CLOSING.
        let deadline = tokio::time::Instant::now() + grace;
        for mut reader in readers {
            if tokio::time::timeout_at(deadline, &mut reader)
                .await
                .is_err()
            {
                reader.abort();
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if !calls_done(&worker, left).await {
            log::warn(format_args!(
                "NATS: calls still running after {} s: cancelling them",
                grace.as_secs()
            ));
            worker.cancel.cancel();
            calls_done(&worker, Duration::from_secs(5)).await;
        }
        audit_done.cancel();
        let closing = tokio::time::Instant::now() + CLOSING;
        if let Some(mut task) = audit_task
            && tokio::time::timeout_at(closing, &mut task).await.is_err()
        {
            task.abort();
        }
        let closed = async {
            if let Err(error) = worker.client.flush().await {
                log::warn(format_args!("NATS: cannot flush the replies: {error}"));
            }
            if let Err(error) = worker.client.drain().await {
                log::warn(format_args!("NATS: cannot drain the connection: {error}"));
            }
        };
        if tokio::time::timeout_at(closing, closed).await.is_err() {
            log::warn(format_args!(
                "NATS: the server did not take the last replies and audit records within {} s (is it down?): they are lost",
                CLOSING.as_secs()
            ));
            return;
        }
        log::info(format_args!("NATS: drained and closed"));
    }
}

/// How long the replies and audit records still to send get, once the
/// calls ended, to reach the server.
const CLOSING: Duration = Duration::from_secs(5);

/// Whether every call ended within `limit`.
async fn calls_done(worker: &Worker, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let idle = worker.idle.notified();
        if worker.in_flight.load(Ordering::Acquire) == 0 {
            return true;
        }
        if tokio::time::timeout_at(deadline, idle).await.is_err() {
            return worker.in_flight.load(Ordering::Acquire) == 0;
        }
    }
}

/// Handles the messages of one subscription until it is drained.
async fn read(
    worker: Arc<Worker>,
    kind: Kind,
    mut subscriber: async_nats::Subscriber,
    draining: CancellationToken,
) {
    let mut drained = false;
    loop {
        let message = if drained {
            next(&mut subscriber).await
        } else {
            tokio::select! {
                message = next(&mut subscriber) => message,
                _ = draining.cancelled() => {
                    drained = true;
                    if let Err(error) = subscriber.drain().await {
                        log::warn(format_args!("NATS: cannot drain a subscription: {error}"));
                        return;
                    }
                    continue;
                }
            }
        };
        let Some(message) = message else { return };
        match kind {
            Kind::Tool(endpoint) => {
                worker.in_flight.fetch_add(1, Ordering::AcqRel);
                let worker = Arc::clone(&worker);
                tokio::spawn(async move {
                    request::answer(Arc::clone(&worker), endpoint, message).await;
                    if worker.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
                        worker.idle.notify_waiters();
                    }
                });
            }
            Kind::Ping | Kind::Info | Kind::Stats | Kind::Health => {
                discovery(&worker, kind, message).await;
            }
        }
    }
}

/// The next message of `subscriber` (`None` once it ended).
async fn next(subscriber: &mut async_nats::Subscriber) -> Option<async_nats::Message> {
    use futures_core::Stream;
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *subscriber).poll_next(cx)).await
}

/// Answers a `$SRV` verb or a health ping.
async fn discovery(worker: &Worker, kind: Kind, message: async_nats::Message) {
    let Some(reply) = message.reply else { return };
    let body = match kind {
        Kind::Ping => serde_json::to_vec(&Ping {
            kind: service::PING_TYPE.to_string(),
            identity: worker.identity.clone(),
        }),
        Kind::Info => serde_json::to_vec(&Info {
            kind: service::INFO_TYPE.to_string(),
            identity: worker.identity.clone(),
            description: "toolc: LLM-agent tools, served over NATS".to_string(),
            endpoints: worker.endpoints.info(),
        }),
        Kind::Stats => serde_json::to_vec(&Stats {
            kind: service::STATS_TYPE.to_string(),
            identity: worker.identity.clone(),
            started: service::timestamp(worker.started),
            endpoints: worker.endpoints.stats(),
        }),
        Kind::Health | Kind::Tool(_) => serde_json::to_vec(&json!({
            "status": "ok",
            "service": SERVICE_NAME,
            "instance": worker.identity.id,
            "version": worker.identity.version,
            "tools": worker.endpoints.list.len(),
            "busy": worker.max_concurrency - worker.slots.available_permits(),
        })),
    };
    let Ok(body) = body else { return };
    if let Err(error) = worker.client.publish(reply, body.into()).await {
        log::warn(format_args!("NATS: cannot answer on $SRV: {error}"));
    }
}

/// Publishes each audit record on `subject` until `done`, then the ones
/// left.
async fn publish_audit(
    client: async_nats::Client,
    subject: String,
    mut receiver: mpsc::UnboundedReceiver<Value>,
    done: CancellationToken,
) {
    let publish = |record: Value| {
        let client = client.clone();
        let subject = subject.clone();
        async move {
            let body = record.to_string().into_bytes();
            if let Err(error) = client.publish(subject, body.into()).await {
                log::warn(format_args!(
                    "NATS: cannot publish an audit record: {error}"
                ));
            }
        }
    };
    loop {
        tokio::select! {
            record = receiver.recv() => match record {
                Some(record) => publish(record).await,
                None => return,
            },
            _ = done.cancelled() => break,
        }
    }
    while let Ok(record) = receiver.try_recv() {
        publish(record).await;
    }
}
