//! `soul init`: make a town directory.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use nostr::nips::nip19::ToBech32;
use soul_keys::{keyfile, RosterEntry, TownConfig, TownDir};
use soul_kinds::Role;

use soul_host::town::template;

/// The agents every town starts with, besides the residents (named by `residents/*.yaml`).
const CORE_AGENTS: &[(&str, Role)] = &[
    ("panda", Role::Brain),
    ("gorilla", Role::Brain),
    ("triceratops", Role::Brain),
    ("reviewer", Role::Reviewer),
    ("reporter", Role::Reporter),
    ("buddy", Role::Buddy),
    ("executor", Role::Executor),
];

pub(super) fn run(
    dir: PathBuf,
    name: Option<String>,
    listen: Option<SocketAddr>,
    dashboard_listen: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    let mut town = make_town(&dir, name)?;
    if listen.is_some() || dashboard_listen.is_some() {
        if let Some(addr) = listen {
            town.relay.listen = addr;
            // Agents on this machine reach a wildcard listener through loopback.
            let host = if addr.ip().is_unspecified() {
                "127.0.0.1".to_string()
            } else {
                addr.ip().to_string()
            };
            town.relay.url = format!("ws://{host}:{}", addr.port());
        }
        if let Some(addr) = dashboard_listen {
            town.dashboard.listen = addr;
        }
        town.save(&dir)?;
    }
    println!(
        "made town {:?} in {} with {} agents\n  owner: {}\n  next:  soul up --town {}",
        town.town.name,
        dir.display(),
        town.roster.len(),
        town.town.owner,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Makes the town in `dir` and returns its configuration.
pub fn make_town(dir: &Path, name: Option<String>) -> anyhow::Result<TownConfig> {
    let town_dir = TownDir::new(dir);
    if town_dir.config_path().exists() {
        bail!(
            "a town already exists at {} ({} is there); soul init never overwrites one: \
             choose another directory, or delete that one to start over",
            dir.display(),
            town_dir.config_path().display()
        );
    }
    let keys_dir = town_dir.keys_dir();
    if keys_dir.exists()
        && keys_dir
            .read_dir()
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "{} already holds keys; soul init never overwrites keys: choose another directory",
            keys_dir.display()
        );
    }
    std::fs::create_dir_all(&keys_dir)
        .with_context(|| format!("cannot create {}", keys_dir.display()))?;
    restrict_dir(&keys_dir)?;
    template::copy_into(dir)?;

    let owner = keyfile::generate();
    keyfile::write_nsec(&town_dir.key_path("owner"), &owner)?;
    let residents = template::resident_names();
    let agents = CORE_AGENTS
        .iter()
        .map(|(n, r)| (n.to_string(), *r))
        .chain(residents.into_iter().map(|n| (n, Role::Resident)));
    let mut roster = Vec::new();
    for (agent, role) in agents {
        let keys = keyfile::generate();
        keyfile::write_nsec(&town_dir.key_path(&agent), &keys)?;
        roster.push(RosterEntry {
            name: agent,
            role,
            pubkey: keys.public_key().to_bech32()?,
        });
    }
    let mut config = TownConfig::default();
    config.town.name = name.unwrap_or_else(|| default_name(dir));
    config.town.owner = owner.public_key().to_bech32()?;
    config.roster = roster;
    config.save(dir)?;
    Ok(config)
}

fn default_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "soul-town".to_string())
}

/// keys/ is readable by its owner only, as ~/.ssh is.
fn restrict_dir(dir: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot restrict {}", dir.display()))?;
    }
    Ok(())
}
