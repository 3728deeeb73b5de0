//! `soul-agent --key FILE`: one agent on any machine. Its role comes from the roster that the
//! owner signed, fetched from the relay; nothing else is trusted.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, Context};
use clap::Parser;
use nostr::nips::nip19::{FromBech32, ToBech32};
use nostr::{Filter, PublicKey};
use soul_keys::{keyfile, EnvOrPrompt, TownConfig};
use soul_kinds::{Roster, SoulKind};

use soul_host::{self as host, HostOptions};
use soul_link::clock::Clock;
use soul_link::schedule::TownSchedule;
use soul_link::Identity;
use soul_link::Link;

/// Every 6 hours, as in seed 000, when no town.toml says otherwise.
const DEFAULT_EVALUATION: &str = "0 0 */6 * * *";
use soul_mind::brain::Lexicon;

/// Run one soul agent.
#[derive(Debug, Parser)]
#[command(name = "soul-agent", version, about)]
pub struct AgentArgs {
    /// The agent's key file (`NAME.nsec` or `NAME.ncryptsec`).
    #[arg(long)]
    key: PathBuf,
    /// The relay to join (default: town.toml's, else ws://127.0.0.1:7447).
    #[arg(long)]
    relay: Option<String>,
    /// The owner's npub (default: town.toml's); only the roster this key signed is trusted.
    #[arg(long)]
    owner: Option<String>,
    /// A town directory to read relay and owner from.
    #[arg(long, default_value = "./town", env = "SOUL_TOWN")]
    town: PathBuf,
    /// Run the agent's clock N times faster.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Seconds between heartbeats (real time, whatever the clock speed: liveness is wall-clock).
    #[arg(long, default_value_t = 30)]
    heartbeat_secs: u64,
}

/// Runs `soul-agent`.
pub async fn run(args: AgentArgs) -> anyhow::Result<ExitCode> {
    let keys = keyfile::load(&args.key, &EnvOrPrompt)?;
    let town = TownConfig::load(&args.town).ok();
    let owner = match (&args.owner, &town) {
        (Some(o), _) => parse_pubkey(o)?,
        (None, Some(t)) => t.owner()?,
        (None, None) => {
            return Err(anyhow!(
                "who owns this town? pass --owner NPUB, or --town DIR with a town.toml"
            ))
        }
    };
    let relay_url = args
        .relay
        .clone()
        .or_else(|| town.as_ref().map(|t| t.relay.url.clone()))
        .unwrap_or_else(|| "ws://127.0.0.1:7447".to_string());
    let link = Link::connect(&relay_url).await?;
    let roster = signed_roster(&link, owner).await?;
    link.close().await;
    let me = keys.public_key();
    let member = roster.member(&me).ok_or_else(|| {
        anyhow!(
            "key {} ({}) is not in the roster that the owner signed for town {}; \
             the owner must add it to town.toml's [[roster]] and restart `soul up`",
            args.key.display(),
            me.to_bech32().unwrap_or_default(),
            roster.town
        )
    })?;
    tracing::info!(agent = %member.name, role = %member.role, town = %roster.town, "joining");
    let identity = Identity {
        name: member.name.clone(),
        role: member.role,
        keys,
    };
    let lexicon = match town.is_some() {
        true => soul_host::town::load::lexicon_in(&args.town)?,
        false => Lexicon::builtin(),
    };
    let clock = Clock::new(args.speed);
    let evaluation = match &town {
        Some(t) => Some(TownSchedule::new(&t.schedule.evaluation, clock)?),
        None => Some(TownSchedule::new(DEFAULT_EVALUATION, clock)?),
    };
    let options = HostOptions {
        town_dir: args.town.clone(),
        evaluation,
        roster: roster.clone(),
        lexicon: std::sync::Arc::new(lexicon),
        restart_allowlist: std::sync::Arc::new(soul_host::town::load::restart_allowlist_in(
            &args.town,
        )?),
        relay_url,
        clock,
        heartbeat_every: Duration::from_secs(args.heartbeat_secs.max(1)),
        minds: soul_host::minds::Minds::open(
            args.town.clone(),
            town.as_ref().and_then(|t| {
                soul_host::minds::LlmChoice::from_town(t.llm.as_ref(), &t.town.mission, None, None)
            }),
        )
        .await?,
    };
    host::run(vec![identity], options, crate::cli::signal()).await?;
    Ok(ExitCode::SUCCESS)
}

fn parse_pubkey(s: &str) -> anyhow::Result<PublicKey> {
    PublicKey::from_bech32(s)
        .or_else(|_| PublicKey::from_hex(s))
        .with_context(|| format!("--owner {s:?} is neither an npub nor a hex public key"))
}

/// The newest roster event (34364) authored by `owner`; the relay verified its signature and
/// nostr-sdk verifies it again on receipt.
async fn signed_roster(link: &Link, owner: PublicKey) -> anyhow::Result<Roster> {
    let filter = Filter::new().kind(SoulKind::Roster.kind()).author(owner);
    let events = link.fetch(filter).await?;
    let newest = events
        .into_iter()
        .filter(|e| e.pubkey == owner && e.verify().is_ok())
        .max_by_key(|e| e.created_at)
        .ok_or_else(|| {
            anyhow!(
                "no roster signed by owner {} on {}; start the town with `soul up` (it publishes one)",
                owner.to_bech32().unwrap_or_default(),
                link.url()
            )
        })?;
    Ok(Roster::from_event(&newest)?)
}
