//! NATS, the bus Nachos runs its tools on: how toolc connects to it
//! ([`connect`]), and the facts of the two protocols toolc speaks there,
//! each in one place: the Nachos tool subjects and envelope ([`nachos`])
//! and NATS services discovery ([`service`], ADR-32). The worker
//! (`toolc serve --nats`) and the clients (`toolc call --nats`,
//! `--nats-url`) are built on these.
//!
//! The facts are checked against nats-server 2.15, nats-py 2.16, the npm
//! `nats` 2.29 client Nachos uses and `@nats-io/services`.

// The worker and the clients that use these land in the next commits.
#[allow(dead_code)]
pub(crate) mod connect;
#[allow(dead_code)]
pub(crate) mod nachos;
#[allow(dead_code)]
pub(crate) mod service;
