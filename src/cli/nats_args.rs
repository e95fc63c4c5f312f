//! The flags every NATS command shares (`call --nats`, `serve --nats`,
//! `serve --nats-url`, and `--nats-url` of lint, gen and convert): how to
//! log in to the servers. The servers' URLs are each command's own flag;
//! [`NatsArgs::options`] makes the connection options of both.

use std::path::PathBuf;
use std::time::Duration;

use super::CliError;
use crate::nats::connect::Options;

#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = super::heading::NATS)]
pub(super) struct NatsArgs {
    /// The NATS user (with --nats-password).
    ///
    /// Without it, a user in the URL is used.
    #[arg(long, value_name = "USER", requires = "nats_password")]
    nats_user: Option<String>,
    /// The NATS user's password (with --nats-user).
    #[arg(
        long,
        value_name = "PASSWORD",
        env = "NATS_PASSWORD",
        hide_env_values = true,
        requires = "nats_user"
    )]
    nats_password: Option<String>,
    /// A NATS token.
    #[arg(long, value_name = "TOKEN", env = "NATS_TOKEN", hide_env_values = true)]
    nats_token: Option<String>,
    /// A file holding an NKey seed to log in with.
    #[arg(long, value_name = "FILE")]
    nats_nkey: Option<PathBuf>,
    /// A .creds file (a user JWT and its NKey seed) to log in with.
    #[arg(long, value_name = "FILE")]
    nats_creds: Option<PathBuf>,
    /// A PEM file of certificate authorities to trust for TLS.
    ///
    /// TLS is then required.
    #[arg(long, value_name = "FILE")]
    nats_tls_ca: Option<PathBuf>,
    /// The seconds connecting may take.
    ///
    /// Past it the run fails (exit 2).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = super::run_cmd::parse_seconds)]
    nats_connect_timeout: Duration,
}

impl NatsArgs {
    /// The options to connect to `urls` (as NATS_URL writes them: one URL
    /// or several, comma-separated) with these credentials.
    pub(super) fn options(&self, urls: &str) -> Result<Options, CliError> {
        let options = Options::for_urls(urls);
        if options.urls.is_empty() {
            return Err(CliError::Usage(
                "no NATS server given: pass its URL (or set NATS_URL)".to_string(),
            ));
        }
        Ok(Options {
            urls: options.urls,
            user_password: self.nats_user.clone().zip(self.nats_password.clone()),
            token: self.nats_token.clone(),
            nkey_file: self.nats_nkey.clone(),
            creds_file: self.nats_creds.clone(),
            tls_ca_file: self.nats_tls_ca.clone(),
            connect_timeout: Some(self.nats_connect_timeout),
        })
    }
}
