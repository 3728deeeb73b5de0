//! The `soul` command line: parsing and dispatch. One file per command.

mod audit;
mod command;
mod evaluate;
mod init;
mod keys;
mod relay;
mod render;
mod replay;
mod shutdown;
mod status;
pub(crate) mod task;
mod up;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use shutdown::signal;

/// soul: a town of AI agents that live on Nostr.
#[derive(Debug, Parser)]
#[command(name = "soul", version, about, long_about = None)]
pub struct Cli {
    /// The town directory.
    #[arg(long, global = true, default_value = "./town", env = "SOUL_TOWN")]
    pub town: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `soul` subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Make a new town: keys, town.toml, residents, rules and bulletin (offline, instant).
    Init {
        /// Where to make it (overrides --town).
        dir: Option<PathBuf>,
        /// The town's name (default: the directory's name).
        #[arg(long)]
        name: Option<String>,
        /// Where the relay listens (default 127.0.0.1:7447; 0.0.0.0:7447 in a container).
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
        /// Where the dashboard listens (default 127.0.0.1:3000).
        #[arg(long)]
        dashboard_listen: Option<std::net::SocketAddr>,
    },
    /// Run the town: the bundled relay and every agent whose key is in keys/.
    Up(up::UpArgs),
    /// Run the bundled relay alone.
    Relay {
        /// Turn rate limits off (benchmarks only; logged loudly).
        #[arg(long)]
        unlimited: bool,
    },
    /// Show who is alive and where the tasks stand.
    Status {
        /// One stable JSON object for scripts.
        #[arg(long)]
        json: bool,
        /// Ask this relay instead of town.toml's.
        #[arg(long)]
        relay: Option<String>,
    },
    /// Publish a task as the owner, print its id, and follow its debate to the end.
    Task(task::TaskArgs),
    /// Watch the debate and the town live.
    Watch {
        /// Ask this relay instead of town.toml's.
        #[arg(long)]
        relay: Option<String>,
        /// How many past events to show first.
        #[arg(long, default_value_t = 50)]
        history: usize,
    },
    /// Ask the brains to evaluate each other now.
    Evaluate {
        /// Ask this relay instead of town.toml's.
        #[arg(long)]
        relay: Option<String>,
    },
    /// Re-fetch a task's debate from any relay, verify every event, and print its timeline.
    Replay {
        /// The task's event id (hex, note1 or nevent1).
        task: String,
        /// The relay to read (default: town.toml's).
        #[arg(long)]
        relay: Option<String>,
        /// The owner's npub, when there is no town directory here.
        #[arg(long)]
        owner: Option<String>,
    },
    /// Command a worker as the owner by NIP-17 DM and print its reply:
    /// pause, resume, restart, status, adjust_params key=value…, run SKILL args….
    Command(command::CommandArgs),
    /// Print the audit: every verdict, with the outcome of what ran.
    Audit {
        /// Only this agent's rows.
        #[arg(long)]
        agent: Option<String>,
        /// Only rows from this long ago on: 10m, 2h, 1d.
        #[arg(long)]
        since: Option<String>,
        /// One stable JSON array of objects.
        #[arg(long)]
        json: bool,
    },
    /// List the town's keys, export one, or encrypt them with a passphrase (NIP-49).
    Keys {
        /// `list` (default), `export NAME` or `encrypt [NAME…]`.
        #[command(subcommand)]
        action: Option<keys::KeysAction>,
    },
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Init {
            dir,
            name,
            listen,
            dashboard_listen,
        } => init::run(dir.unwrap_or(cli.town), name, listen, dashboard_listen),
        Command::Up(args) => up::run(&cli.town, args).await,
        Command::Relay { unlimited } => relay::run(&cli.town, unlimited).await,
        Command::Status { json, relay } => status::run(&cli.town, json, relay).await,
        Command::Keys { action } => keys::run(&cli.town, action),
        Command::Audit { agent, since, json } => audit::run(&cli.town, agent, since, json),
        Command::Evaluate { relay } => evaluate::run(&cli.town, relay).await,
        Command::Replay { task, relay, owner } => replay::run(&cli.town, &task, relay, owner).await,
        Command::Task(args) => task::run(&cli.town, args).await,
        Command::Command(args) => command::run(&cli.town, args).await,
        Command::Watch { relay, history } => watch::run(&cli.town, relay, history).await,
    }
}
