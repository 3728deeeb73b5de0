//! `soul up`: the relay plus every agent whose key is here, until Ctrl-C or SIGTERM.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use soul_keys::TownDir;

use soul_host::town::load::Town;
use soul_host::{self as host, HostOptions};
use soul_link::clock::Clock;
use soul_link::schedule::TownSchedule;
use soul_link::Link;

/// Options of `soul up`.
#[derive(Debug, Args)]
pub struct UpArgs {
    /// Run the agents against this relay instead of starting the bundled one.
    #[arg(long)]
    relay: Option<String>,
    /// Run the town's clock N times faster (every interval and schedule).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Turn the bundled relay's rate limits off (benchmarks only).
    #[arg(long)]
    unlimited: bool,
    /// A model server for the agents' minds: an OpenAI-compatible base URL ending in /v1, or
    /// an Ollama base URL (overrides [llm] in town.toml). Without one, the built-in mind thinks.
    #[arg(long)]
    llm: Option<String>,
    /// The model to ask (with --llm; default: [llm] model in town.toml, else llama3.2). An agent
    /// with its own [llm.agents.NAME] model in town.toml keeps it.
    #[arg(long)]
    model: Option<String>,
}

pub(super) async fn run(dir: &Path, args: UpArgs) -> anyhow::Result<ExitCode> {
    // `soul up` on a fresh machine is the one command to try soul: make the town first.
    if !TownDir::new(dir).config_path().exists() {
        let made = super::init::make_town(dir, None)?;
        println!(
            "no town at {}: made town {:?} there",
            dir.display(),
            made.town.name
        );
    }
    let town = Town::open(dir)?;
    // A resident with a broken profile would sit idle: refuse to start and name the field.
    soul_mind::profile::load_all(dir)?;
    let relay = match &args.relay {
        Some(_) => None,
        None => Some(super::relay::start(&town, args.unlimited).await?),
    };
    // With port 0 in town.toml the relay picks a free port; agents must use the real one.
    let relay_url = match (&args.relay, &relay) {
        (Some(url), _) => url.clone(),
        (None, Some((addr, ..))) if town.config.relay.listen.port() == 0 => format!("ws://{addr}"),
        (None, _) => town.config.relay.url.clone(),
    };
    super::relay::publish_roster(&town, &relay_url).await?;
    let agents = town.local_identities()?;
    let dashboard = start_dashboard(&town, &relay_url).await;
    let (dashboard_url, dashboard_task) = match dashboard {
        Some((url, task)) => (format!(", dashboard {url}"), Some(task)),
        None => (String::new(), None),
    };
    println!(
        "town {} is up: relay {relay_url}{dashboard_url}, {} agents{}. Ctrl-C stops it.",
        town.config.town.name,
        agents.len(),
        if args.speed != 1.0 {
            format!(", clock x{}", args.speed)
        } else {
            String::new()
        }
    );
    let clock = Clock::new(args.speed);
    let evaluation = Some(TownSchedule::new(&town.config.schedule.evaluation, clock)?);
    let options = HostOptions {
        town_dir: dir.to_path_buf(),
        evaluation,
        roster: town.config.roster()?,
        lexicon: Arc::new(town.lexicon()?),
        restart_allowlist: Arc::new(soul_host::town::load::restart_allowlist_in(dir)?),
        relay_url,
        clock,
        heartbeat_every: Duration::from_secs(town.config.schedule.heartbeat_secs.max(1)),
        minds: soul_host::minds::Minds::open(dir.to_path_buf(), llm_choice(&town, &args)).await?,
    };
    let bridge = (!town.config.relay.federation.is_empty()).then(|| {
        tokio::spawn(soul_bridge::run(soul_bridge::BridgeConfig {
            town_relay: options.relay_url.clone(),
            peers: town.config.relay.federation.clone(),
            roster: options.roster.clone(),
            state: dir.join("bridge.json"),
        }))
    });
    let result = host::run(agents, options, super::signal()).await;
    if let Some(bridge) = bridge {
        bridge.abort();
    }
    if let Some(dashboard) = dashboard_task {
        dashboard.abort();
    }
    if let Some((_, stop, handle)) = relay {
        let _ = stop.send(());
        handle.await??;
    }
    result?;
    Ok(ExitCode::SUCCESS)
}

/// Serves the dashboard in the background; a taken port is a warning, not a reason to stop the
/// town.
async fn start_dashboard(
    town: &Town,
    relay_url: &str,
) -> Option<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let addr = town.config.dashboard.listen;
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!("dashboard not started: cannot listen on {addr} ({e}); set [dashboard] listen in town.toml");
            return None;
        }
    };
    let bound = listener.local_addr().ok()?;
    let hosts = match crate::dashboard::Hosts::new(bound, &town.config.dashboard.hosts) {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!("dashboard not started: {e}");
            return None;
        }
    };
    // A fresh secret each start (as Jupyter does): the page keeps it from the address printed
    // below and sends it with every write; nothing on disk holds it.
    let secret = match crate::dashboard::Secret::generate() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("dashboard not started: no random secret ({e})");
            return None;
        }
    };
    // The fragment never leaves the browser (no server log, no Referer). On all interfaces
    // (a container, a LAN) the address to print is one the dashboard answers to.
    let shown = if bound.ip().is_unspecified() {
        format!("localhost:{}", bound.port())
    } else {
        bound.to_string()
    };
    let url = format!("http://{shown}/#token={}", secret.reveal());
    let link = match Link::connect(relay_url).await {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!("dashboard not started: {e}");
            return None;
        }
    };
    let dashboard = crate::dashboard::Dashboard {
        town: town.config.town.name.clone(),
        relay_url: relay_url.to_string(),
        roster: town.config.roster().ok()?,
        owner: town.owner_keys().ok().flatten(),
        link,
        hosts,
        secret,
    };
    let task = tokio::spawn(crate::dashboard::serve(
        dashboard,
        listener,
        std::future::pending(),
    ));
    Some((url, task))
}

/// `--llm`/`--model` over `[llm]` in town.toml; `None`: the built-in mind.
fn llm_choice(town: &Town, args: &UpArgs) -> Option<soul_host::minds::LlmChoice> {
    soul_host::minds::LlmChoice::from_town(
        town.config.llm.as_ref(),
        &town.config.town.mission,
        args.llm.clone(),
        args.model.clone(),
    )
}
