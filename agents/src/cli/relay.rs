//! `soul relay`: the bundled relay alone; also how `soul up` starts it.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

use soul_relay::{RateLimits, Relay, RelayConfig, RelayInfo, RosterView};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use soul_kinds::content::{roster, RosterContent};
use soul_kinds::nip89;

use soul_host::town::load::Town;
use soul_link::Link;

pub(super) async fn run(dir: &Path, unlimited: bool) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let (addr, stop, handle) = start(&town, unlimited).await?;
    // Agents elsewhere (`soul-agent`) trust only the roster the owner signed: publish it.
    publish_roster(&town, &format!("ws://{addr}")).await?;
    println!(
        "relay of town {} on ws://{addr}. Ctrl-C stops it.",
        town.config.town.name
    );
    super::signal().await;
    let _ = stop.send(());
    handle.await??;
    Ok(ExitCode::SUCCESS)
}

/// The relay of `town` as configured in `town.toml`.
pub(super) fn config(town: &Town, unlimited: bool) -> anyhow::Result<(RelayConfig, RosterView)> {
    let c = &town.config;
    let mut config = RelayConfig::new(town.dir.relay_dir());
    config.max_event_bytes = c.relay.max_event_bytes;
    config.future_skew_secs = c.relay.future_skew_secs;
    config.live_queue = c.relay.live_queue;
    config.rate = (!unlimited).then_some(RateLimits {
        per_pubkey_per_minute: c.relay.rate.per_pubkey_per_minute,
        per_pubkey_burst: c.relay.rate.per_pubkey_burst,
        per_ip_per_minute: c.relay.rate.per_ip_per_minute,
        per_ip_burst: c.relay.rate.per_ip_burst,
    });
    let roster = c.roster()?;
    config.info = RelayInfo {
        name: c.town.name.clone(),
        description: format!(
            "The relay of soul town {}: its agents' shared place.",
            c.town.name
        ),
        pubkey: Some(roster.owner),
    };
    Ok((config, RosterView::new(roster)))
}

/// A relay serving in the background.
type Running = (
    SocketAddr,
    oneshot::Sender<()>,
    JoinHandle<Result<(), soul_relay::Error>>,
);

/// Binds and serves the town's relay in the background; returns the bound address (port 0 in
/// town.toml picks a free one) and a channel to stop it.
pub(super) async fn start(town: &Town, unlimited: bool) -> anyhow::Result<Running> {
    let (config, roster) = config(town, unlimited)?;
    let relay = Relay::open(config, roster)?;
    let addr = town.config.relay.listen.to_string();
    let listener = soul_relay::bind(&addr).await?;
    let local = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    tracing::info!(
        "relay of town {} listening on ws://{local} (store: {})",
        town.config.town.name,
        town.dir.relay_dir().display()
    );
    let handle = tokio::spawn(soul_relay::serve(relay, listener, async move {
        let _ = stopped.await;
    }));
    Ok((local, stop, handle))
}

/// Publishes the roster (34364) and the NIP-89 handler events signed by the owner, so that agents elsewhere can trust it. When
/// the owner's key is not on this machine (a phone's key), the owner publishes it themselves.
pub(super) async fn publish_roster(town: &Town, relay_url: &str) -> anyhow::Result<()> {
    let Some(owner) = town.owner_keys()? else {
        tracing::info!(
            "owner key not here: the roster event must come from the owner's own client"
        );
        return Ok(());
    };
    let members = town.config.roster()?.members().to_vec();
    let link = Link::connect(relay_url).await?;
    link.publish(
        &owner,
        roster(&town.config.town.name, &RosterContent { members }),
    )
    .await?;
    // NIP-89: tell stock clients where soul's kinds can be viewed.
    let dashboard = format!("http://{}", town.config.dashboard.listen);
    link.publish(
        &owner,
        nip89::handler_information(&town.config.town.name, &dashboard),
    )
    .await?;
    for recommendation in nip89::recommendations(owner.public_key()) {
        link.publish(&owner, recommendation).await?;
    }
    link.close().await;
    Ok(())
}
