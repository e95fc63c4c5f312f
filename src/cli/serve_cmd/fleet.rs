//! `toolc serve --nats-url URL`: the MCP front door of a NATS fleet (the
//! server side is [`crate::serve::fleet`]).
//!
//! The NATS connection and the discovery polls live on a runtime of
//! their own, started here and kept until the server ends: the server's
//! runtime is [`crate::serve::serve`]'s, and its calls use the connection
//! from there.

use std::io::Write;
use std::sync::Arc;

use super::{CliError, Outcome, ServeArgs, serve, settings, shown};
use crate::serve::Handler;
use crate::serve::Transport;
use crate::serve::fleet::{self, Fleet};
use crate::serve::log;
use crate::serve::pinned::Pinned;

/// Serves the fleet at `urls`; with `pinned` (`--locked`), only its tools
/// that match their pins.
pub(super) fn run(
    args: &ServeArgs,
    urls: &str,
    transport: Transport,
    pinned: Option<Pinned>,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let options = args.nats_args.options(urls)?;
    let timeout = args
        .runner
        .options()?
        .timeout
        .unwrap_or(crate::run::DEFAULT_TIMEOUT);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .thread_name("toolc-nats")
        .build()
        .map_err(CliError::Runtime)?;
    let started = runtime.block_on(async {
        let fleet = Arc::new(Fleet::connect(&options, timeout, args.nats_poll, pinned).await?);
        let served = Fleet::discover(&fleet).await?;
        Ok::<_, CliError>((fleet, served))
    });
    let (fleet, served) = match started {
        Ok(started) => started,
        Err(error) => {
            runtime.shutdown_background();
            return Err(error);
        }
    };
    if served.tools.is_empty() {
        log::warn(format_args!(
            "no NATS service at {} serves a tool yet; the fleet is asked again every {:?}",
            options.shown(),
            args.nats_poll
        ));
    }
    log::info(format_args!(
        "serving the {} tool(s) of the NATS fleet at {} over {}",
        served.tools.len(),
        options.shown(),
        shown(&transport)
    ));
    let handler = Handler::new(served, settings(args, true));
    runtime.spawn(fleet::poll(handler.clone(), fleet));
    let ended = serve(args, handler, transport, None, None, err);
    runtime.shutdown_background();
    ended
}
