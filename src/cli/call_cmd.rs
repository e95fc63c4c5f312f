//! `toolc call --nats URL TOOL`: call one tool of a NATS fleet (toolc
//! workers, Nachos workers) and print its result as `toolc run` does.
//! The call itself, its retries and what they mean are
//! [`crate::nats::call`]'s.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::nats_args::NatsArgs;
use super::run_cmd::{parse_seconds, read_arguments};
use super::{CliError, Outcome};
use crate::nats::call::{self, Idempotency, Plan};
use crate::nats::nachos::request_subject;
use crate::terminal::one_line;

#[derive(Debug, clap::Args)]
pub(super) struct CallArgs {
    /// The NATS servers (a URL, or several comma-separated: a cluster).
    // Hidden in --help: a URL may carry a user and password, or a token.
    #[arg(
        long = "nats",
        value_name = "URL",
        env = "NATS_URL",
        hide_env_values = true
    )]
    nats: String,
    /// The tool to call.
    ///
    /// Its id: the request goes to nachos.tool.<id>.request.
    #[arg(value_name = "TOOL")]
    tool: String,
    /// The arguments as a JSON object.
    ///
    /// Without --args or --args-file, they are read from standard input; an empty input
    /// means {}.
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    args: Option<String>,
    /// Read the arguments from this file (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    args_file: Option<PathBuf>,
    /// The largest arguments document read.
    ///
    /// A size such as 16MiB or 64KiB.
    #[arg(long, value_name = "SIZE", value_parser = crate::project::config::parse_size, default_value = "1MiB")]
    max_args_size: u64,
    /// The seconds the call may take, retries included.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    timeout: Duration,
    /// The seconds one attempt waits for its answer.
    ///
    /// Past it an idempotent tool is called again. Default: a third of --timeout, at
    /// least 1 s.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    attempt_timeout: Option<Duration>,
    /// The tool is idempotent: a call may be sent again.
    ///
    /// A call that gets no answer in time may be sent again. Without it, the workers' $SRV.INFO
    /// annotations say (idempotentHint).
    #[arg(long)]
    idempotent: bool,
    #[command(flatten)]
    nats_args: NatsArgs,
}

pub(super) fn run(
    args: &CallArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let arguments = read_arguments(
        args.args.as_deref(),
        args.args_file.as_deref(),
        args.max_args_size,
    )?;
    let Value::Object(arguments) = arguments else {
        return Err(CliError::Usage(
            "the arguments must be a JSON object".to_string(),
        ));
    };
    let options = args.nats_args.options(&args.nats)?;
    let plan = Plan {
        subject: request_subject(&args.tool),
        source: "toolc-call".to_string(),
        arguments,
        timeout: args.timeout,
        attempt_timeout: args.attempt_timeout,
        idempotency: if args.idempotent {
            Idempotency::Known(true)
        } else {
            Idempotency::Ask
        },
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let outcome = runtime.block_on(async {
        let client = crate::nats::connect::connect(&options, "toolc call", None).await?;
        let outcome = call::call(&client, &plan).await;
        // Nothing was published that a flush still owes: the call flushed.
        drop(client);
        Ok::<_, CliError>(outcome?)
    });
    runtime.shutdown_background();
    let tool = one_line(&args.tool);
    let seconds = args.timeout.as_secs_f64();
    match outcome? {
        call::Outcome::Answered { result, attempts } => {
            if attempts > 1 {
                writeln!(err, "note: {tool} answered attempt {attempts}")?;
            }
            writeln!(out, "{}", call::as_run_result(&result))?;
            Ok(if result.success {
                Outcome::Clean
            } else {
                Outcome::ToolFailed
            })
        }
        call::Outcome::NoWorker { attempts } => {
            writeln!(
                err,
                "error: no worker serves {tool}: nobody answers on {} at {} ({attempts} attempt(s) in {seconds} s)",
                plan.subject,
                options.shown()
            )?;
            Ok(Outcome::NoWorker)
        }
        call::Outcome::TimedOut { attempts, strays } => {
            match strays.told() {
                Some(strays) => writeln!(
                    err,
                    "error: {tool} timed out: no readable answer to {attempts} attempt(s) within {seconds} s; {strays}"
                )?,
                None => writeln!(
                    err,
                    "error: {tool} timed out: no answer to {attempts} attempt(s) within {seconds} s"
                )?,
            }
            Ok(Outcome::TimedOut)
        }
        call::Outcome::Unknown { strays } => {
            let once = "It was sent once and not again because it is not known to be idempotent (its workers publish no idempotentHint; pass --idempotent if calling it twice is safe)";
            match strays.told() {
                // A worker answered, but not so that its result can be read.
                Some(strays) => writeln!(
                    err,
                    "error: {tool} sent no answer that could be read within {seconds} s: {strays}. The outcome is unknown: the tool may have run. {once}"
                )?,
                None => writeln!(
                    err,
                    "error: {tool} did not answer within {seconds} s, and the outcome is unknown: the tool may have run. {once}"
                )?,
            }
            Ok(Outcome::UnknownResult)
        }
    }
}
