//! `soul keys`: list, export and encrypt the town's key files.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use nostr::nips::nip19::ToBech32;
use soul_keys::{keyfile, EnvOrPrompt, PassphraseSource, TownDir};

use soul_host::town::load::Town;

/// What to do with the keys.
#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Every key file with its npub and role (the default).
    List,
    /// Print one agent's secret key (nsec) to stdout, to move it to another machine.
    Export {
        /// The agent's name (`owner`, `panda`, …).
        name: String,
    },
    /// Encrypt key files with a passphrase (NIP-49 ncryptsec; SOUL_PASSPHRASE or a prompt).
    Encrypt {
        /// Agents to encrypt; none means every plain key file.
        names: Vec<String>,
    },
}

pub(super) fn run(dir: &Path, action: Option<KeysAction>) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    match action.unwrap_or(KeysAction::List) {
        KeysAction::List => list(&town),
        KeysAction::Export { name } => {
            let path = keyfile::find_key(&town.dir.keys_dir(), &name)?;
            let keys = keyfile::load(&path, &EnvOrPrompt)?;
            eprintln!("warning: this is {name}'s secret key; anyone who sees it can act as {name}");
            println!("{}", keys.secret_key().to_bech32()?);
            Ok(ExitCode::SUCCESS)
        }
        KeysAction::Encrypt { names } => encrypt(&town.dir, names),
    }
}

fn list(town: &Town) -> anyhow::Result<ExitCode> {
    let roster = town.config.roster()?;
    println!("{:<14} {:<10} {:<64} file", "name", "role", "npub");
    let owner = roster.owner.to_bech32()?;
    let owner_file = file_of(&town.dir, "owner");
    println!("{:<14} {:<10} {owner:<64} {owner_file}", "owner", "owner");
    for m in roster.members() {
        println!(
            "{:<14} {:<10} {:<64} {}",
            m.name,
            m.role.to_string(),
            m.pubkey.to_bech32()?,
            file_of(&town.dir, &m.name)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn file_of(dir: &TownDir, name: &str) -> String {
    keyfile::find_key(&dir.keys_dir(), name)
        .map(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .unwrap_or_else(|_| "(not on this machine)".into())
}

fn encrypt(dir: &TownDir, names: Vec<String>) -> anyhow::Result<ExitCode> {
    let keys_dir = dir.keys_dir();
    let names = if names.is_empty() {
        plain_key_names(&keys_dir)?
    } else {
        names
    };
    if names.is_empty() {
        println!(
            "every key file in {} is already encrypted",
            keys_dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let passphrase = EnvOrPrompt.passphrase(&keys_dir)?;
    for name in names {
        let path = keys_dir.join(format!("{name}.{}", keyfile::NSEC_EXT));
        let new = keyfile::encrypt_in_place(&path, &passphrase)
            .with_context(|| format!("cannot encrypt {}", path.display()))?;
        println!("encrypted {name}: {}", new.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn plain_key_names(keys_dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(keys_dir)
        .with_context(|| format!("cannot read {}", keys_dir.display()))?
    {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) == Some(keyfile::NSEC_EXT) {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}
