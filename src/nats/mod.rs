//! NATS, the bus Nachos runs its tools on: how toolc connects to it
//! ([`connect`]), and the facts of the two protocols toolc speaks there,
//! each in one place: the Nachos tool subjects and envelope ([`nachos`])
//! and NATS services discovery ([`service`], ADR-32). The worker
//! (`toolc serve --nats`) and the clients (`toolc call --nats`,
//! `--nats-url`) are built on these.
//!
//! The facts are checked against nats-server 2.15, nats-py 2.16, the npm
//! `nats` 2.29 client Nachos uses and `@nats-io/services`.

pub(crate) mod call;
pub(crate) mod connect;
pub(crate) mod discover;
pub(crate) mod nachos;
pub(crate) mod service;
