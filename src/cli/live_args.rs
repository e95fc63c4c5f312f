//! The flags that read live MCP servers (`--mcp-stdio`, `--mcp-url`,
//! `--mcp-config`, `--mcp-timeout`, `--save`), shared by lint, gen and
//! convert, and what they do before those commands read anything else:
//! fetch each server's tools ([`crate::live`]) into a document held in
//! memory named `mcp://<server name>`, and save the documents when asked.
//!
//! A server named on the command line that fails ends the run; a server
//! of an `--mcp-config` file that fails is reported on its own, and the
//! others are still read ([`LiveArgs::fetch_each`]): lint reports what it
//! could read and exits 2, gen and convert write nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::CliError;
use crate::ir::Format;
use crate::live::{self, Server};
use crate::project::HeldDocument;

/// What a writing command (gen, convert) reads: files and directories,
/// and the documents of live servers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Inputs<'a> {
    pub(super) paths: &'a [PathBuf],
    pub(super) held: &'a [HeldDocument],
}

#[derive(Debug, clap::Args)]
#[command(next_help_heading = super::heading::LIVE)]
pub(super) struct LiveArgs {
    /// Read the tools of the MCP server this command starts (repeatable).
    ///
    /// "PROGRAM ARGS...": split into words as a shell splits them, quotes and
    /// backslashes included, and run without a shell (pipes, redirections, `$` and `~`
    /// outside quotes are refused), over its standard input and output; its standard
    /// error is toolc's. The tools are read as an MCP manifest named mcp://<server
    /// name>. With or without paths.
    #[arg(long = "mcp-stdio", value_name = "COMMAND")]
    pub(super) mcp_stdio: Vec<String>,
    /// Read the tools of the MCP server at this URL (repeatable).
    ///
    /// Over Streamable HTTP, read as --mcp-stdio reads them.
    #[arg(long = "mcp-url", value_name = "URL")]
    pub(super) mcp_url: Vec<String>,
    /// Read the tools of every MCP server an agent's MCP configuration names.
    ///
    /// As --mcp-stdio and --mcp-url do: VS Code's .vscode/mcp.json ("servers"), or an
    /// "mcpServers" map (.cursor/mcp.json, Claude Code's .mcp.json,
    /// claude_desktop_config.json). Each server is started with its args and its env
    /// added to the environment, in the workspace folder (the one holding .vscode/ or
    /// .cursor/, else the file's), or reached at its url with its headers, and read as
    /// mcp://<its key>. Entries with "disabled": true are skipped. A server that
    /// cannot be read is one error, and the others are still read (exit 2). The
    /// values of env and headers are never shown. Repeatable.
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub(super) mcp_config: Vec<PathBuf>,
    /// Read the tools of the NATS services at this URL (repeatable).
    ///
    /// Several comma-separated URLs are a cluster: every instance that answers
    /// $SRV.INFO within half a second, each endpoint's metadata a tool (description,
    /// input_schema, output_schema, annotations), each tool once. Read as an MCP
    /// manifest named nats://<server>.
    #[arg(long = "nats-url", value_name = "URL")]
    pub(super) nats_url: Vec<String>,
    #[command(flatten)]
    nats: super::nats_args::NatsArgs,
    /// The seconds each live server has to list its tools.
    ///
    /// To start, answer the handshake and list every page of its tools; past it the run
    /// fails (exit 2).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds, help_heading = super::heading::LIVE)]
    mcp_timeout: Duration,
    /// Write what the live servers listed to this file or directory.
    ///
    /// The documents the findings point into (pretty JSON), written atomically: with
    /// one server, to this file; with several, into this directory (created if
    /// needed), one <server name>.json each. Nothing is written when a server fails
    /// (one of --mcp-config too), nor where the run reads (an input, or under an input
    /// directory). A file already there is replaced only when it holds a bare tool list
    /// ({"tools": [...]}, what --save writes).
    #[arg(long, value_name = "PATH", help_heading = super::heading::LIVE)]
    save: Option<PathBuf>,
}

impl LiveArgs {
    /// Whether a live server is named.
    pub(super) fn any(&self) -> bool {
        !self.mcp_stdio.is_empty()
            || !self.mcp_url.is_empty()
            || !self.mcp_config.is_empty()
            || !self.nats_url.is_empty()
    }

    /// The servers, commands first, each kind in command-line order.
    fn servers(&self) -> Vec<Server> {
        let stdio = self.mcp_stdio.iter().cloned().map(Server::Stdio);
        let urls = self.mcp_url.iter().cloned().map(Server::Url);
        stdio.chain(urls).collect()
    }

    /// Fetches every server's tools (nothing when none is named), saves
    /// them with `--save` (never over one of the files named as `inputs`:
    /// the user's own manifest would be lost), and gives them as
    /// documents to read. A configured server that fails fails the run,
    /// after the others were tried (each failure is said on standard
    /// error).
    pub(super) fn fetch(&self, inputs: &[PathBuf]) -> Result<Vec<HeldDocument>, CliError> {
        let fetched = self.fetch_each(inputs, live::Listings::Once)?;
        if fetched.failed > 0 {
            return Err(CliError::ServersFailed {
                count: fetched.failed,
            });
        }
        Ok(fetched.held)
    }

    /// [`LiveArgs::fetch`], but a configured server that fails (said on
    /// standard error) leaves the others to be read: what could be read,
    /// and how many servers could not. Nothing is saved then. Each MCP
    /// server is listed as `listings` says ([`live::Listings::Twice`]
    /// gives the documents of the second listings too; none for a NATS
    /// fleet).
    pub(super) fn fetch_each(
        &self,
        inputs: &[PathBuf],
        listings: live::Listings,
    ) -> Result<Fetch, CliError> {
        if let Some(save) = &self.save {
            if !self.any() {
                return Err(CliError::Usage(
                    "--save writes what live servers list: name one with --mcp-stdio, --mcp-url \
                     or --mcp-config"
                        .to_string(),
                ));
            }
            super::refuse_output_among_inputs(save, inputs)?;
        }
        let mut servers = self.servers();
        let mut failed = 0;
        for file in &self.mcp_config {
            let config = live::config::read(file, crate::project::DEFAULT_MAX_FILE_SIZE)?;
            say_disabled(file, &config.disabled);
            for server in config.servers {
                match server {
                    Ok(server) => servers.push(server),
                    Err(error) => {
                        say_error(&error.into());
                        failed += 1;
                    }
                }
            }
        }
        let mut fetched = Vec::new();
        for listed in live::fetch(&servers, self.mcp_timeout, listings)? {
            match listed {
                Ok(listed) => fetched.push(listed),
                Err(error) => {
                    say_error(&error.into());
                    failed += 1;
                }
            }
        }
        for urls in &self.nats_url {
            fetched.push(self.fetch_nats(urls)?);
        }
        for warning in fetched.iter().filter_map(|f| f.warning.as_deref()) {
            eprintln!("warning: {}", crate::terminal::one_line(warning));
        }
        let mut saved = Vec::new();
        if let Some(save) = &self.save
            && failed == 0
        {
            let files = save_all(save, &fetched, inputs)?;
            saved = fetched
                .iter()
                .zip(files)
                .map(|(f, file)| (f.path.clone(), crate::project::display_path(&file)))
                .collect();
        }
        let mut held = Vec::new();
        let mut second = Vec::new();
        for f in fetched {
            if let Some(text) = f.relisted {
                second.push(HeldDocument {
                    path: f.path.clone(),
                    format: Format::Mcp,
                    text,
                });
            }
            held.push(HeldDocument {
                path: f.path,
                format: Format::Mcp,
                text: f.document,
            });
        }
        Ok(Fetch {
            held,
            second,
            failed,
            saved,
        })
    }
}

/// What the live servers gave: their documents, and how many servers
/// (of configuration files) could not be read.
pub(super) struct Fetch {
    pub(super) held: Vec<HeldDocument>,
    /// The documents of the second listings (see [`live::Listings`]).
    pub(super) second: Vec<HeldDocument>,
    pub(super) failed: usize,
    /// With `--save`: each saved document's `mcp://` path and the file it
    /// was saved in, as reports name it (the findings' lines and columns
    /// are the file's).
    pub(super) saved: Vec<(String, String)>,
}

/// Says on standard error why a server was not read, as a failed run
/// says why it failed.
fn say_error(error: &CliError) {
    super::error::write_error(error, &mut std::io::stderr());
}

/// Says once, on standard error, which servers of the configuration
/// `file` are disabled and were not read.
fn say_disabled(file: &Path, disabled: &[String]) {
    if disabled.is_empty() {
        return;
    }
    let names: Vec<String> = disabled
        .iter()
        .map(|name| format!("\"{}\"", crate::terminal::one_line(name)))
        .collect();
    eprintln!(
        "note: skipped {} of {}, disabled there: {}",
        if names.len() == 1 {
            "1 MCP server".to_string()
        } else {
            format!("{} MCP servers", names.len())
        },
        crate::terminal::path(file),
        names.join(", ")
    );
}

impl LiveArgs {
    /// The tools of the NATS fleet at `urls`, as a live server's document.
    fn fetch_nats(&self, urls: &str) -> Result<live::Fetched, CliError> {
        let options = self.nats.options(urls)?;
        let tools = crate::nats::discover::fetch(&options, crate::nats::discover::WINDOW)?;
        let shown = options.shown();
        let warning = tools
            .is_empty()
            .then(|| format!("no NATS service at {shown} answered $SRV.INFO with a tool"));
        let path = crate::nats::discover::document_path(&options);
        let name = path.strip_prefix("nats://").unwrap_or(&path);
        Ok(live::Fetched {
            name: format!("nats-{name}"),
            path,
            document: crate::nats::discover::document(&tools),
            warning,
            relisted: None,
        })
    }
}

/// `--save PATH`: one server's document in the file PATH, several in the
/// directory PATH. Every file is checked before any is written. The files
/// written, in the order of `fetched`.
fn save_all(
    save: &Path,
    fetched: &[live::Fetched],
    inputs: &[PathBuf],
) -> Result<Vec<PathBuf>, CliError> {
    let targets: Vec<(PathBuf, &str)> = if let [one] = fetched {
        vec![(save.to_path_buf(), one.document.as_str())]
    } else {
        if std::fs::metadata(save).is_ok_and(|m| !m.is_dir()) {
            return Err(CliError::Usage(format!(
                "--save {}: the tools of several servers are saved into a directory, one file \
                 each, and this is a file",
                crate::terminal::path(save)
            )));
        }
        let mut taken: Vec<String> = Vec::new();
        fetched
            .iter()
            .map(|document| {
                let name = file_name(&document.name, &taken);
                let path = save.join(&name);
                taken.push(name);
                (path, document.document.as_str())
            })
            .collect()
    };
    for (path, _) in &targets {
        may_replace(path, inputs)?;
    }
    if targets.len() > 1 {
        std::fs::create_dir_all(save).map_err(|source| CliError::Write {
            path: save.to_path_buf(),
            source,
        })?;
    }
    let mut written = Vec::new();
    for (path, document) in targets {
        super::write_atomically(&path, document.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// Whether `--save` may write `path`: never a file this run reads (an
/// input, or a file under an input directory), and of files already
/// there only one that holds what `--save` writes (a JSON object whose
/// one member is a `tools` list). A hand-written MCP manifest has that
/// shape too: outside the run's inputs, it is replaced.
fn may_replace(path: &Path, inputs: &[PathBuf]) -> Result<(), CliError> {
    super::refuse_output_among_inputs(path, inputs)?;
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let target = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .and_then(canonical);
    let within = inputs.iter().find(|input| {
        input.is_dir()
            && canonical(input)
                .zip(target.as_ref())
                .is_some_and(|(dir, target)| target.starts_with(dir))
    });
    if let Some(dir) = within {
        return Err(CliError::Usage(format!(
            "--save {}: it is under {}, which this run reads; save elsewhere",
            crate::terminal::path(path),
            crate::terminal::path(dir)
        )));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_file()) && !holds_a_saved_list(path) {
        return Err(CliError::Usage(format!(
            "--save {}: the file exists and is not a tool list --save wrote; toolc does not \
             replace it (remove it, or save elsewhere)",
            crate::terminal::path(path)
        )));
    }
    Ok(())
}

/// Whether `path` holds what `--save` writes: `{"tools": [...]}`.
fn holds_a_saved_list(path: &Path) -> bool {
    let Ok(text) = std::fs::read(path) else {
        return false;
    };
    let Ok(serde_json::Value::Object(object)) = serde_json::from_slice(&text) else {
        return false;
    };
    object.len() == 1 && object.get("tools").is_some_and(serde_json::Value::is_array)
}

/// `<name>.json` with what a file name cannot hold as `_`, and `-N` when
/// an earlier server took it.
fn file_name(name: &str, taken: &[String]) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    let safe = if safe.is_empty() { "server" } else { safe };
    let first = format!("{safe}.json");
    if !taken.contains(&first) {
        return first;
    }
    (2..)
        .map(|n| format!("{safe}-{n}.json"))
        .find(|name| !taken.contains(name))
        .unwrap_or(first)
}

/// `--mcp-timeout`: seconds, over zero (fractions allowed).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!(
            "the timeout must be over 0 and at most 86400 seconds, not {text}"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_names_are_file_names_and_unique() {
        assert_eq!(file_name("mcp-time", &[]), "mcp-time.json");
        assert_eq!(
            file_name("mcp-servers/everything", &[]),
            "mcp-servers_everything.json"
        );
        assert_eq!(file_name("../x", &[]), "_x.json");
        let taken = vec!["time.json".to_string()];
        assert_eq!(file_name("time", &taken), "time-2.json");
    }

    #[test]
    fn timeouts_are_positive_seconds() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("soon").is_err());
        assert!(parse_seconds("NaN").is_err());
    }
}
