//! `soul command WORKER pause|resume|restart|status|adjust_params k=v…|run SKILL args…`:
//! sends the command as the owner by NIP-17 DM and prints the worker's DM reply.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail};
use clap::Args;
use soul_kinds::Role;

use soul_host::roles::worker::command;
use soul_host::roles::worker::reply::ACCEPTED;
use soul_host::town::load::Town;
use soul_link::dm::DmClient;

/// Options of `soul command`.
#[derive(Debug, Args)]
pub struct CommandArgs {
    /// The worker's roster name (`buddy`, `executor`, …).
    worker: String,
    /// The command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    words: Vec<String>,
    /// Send through this relay instead of town.toml's.
    #[arg(long)]
    relay: Option<String>,
    /// Give up waiting for the reply after this many seconds (exit 1).
    #[arg(long, default_value_t = 60)]
    timeout: u64,
}

pub(super) async fn run(dir: &Path, args: CommandArgs) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let owner = town.owner_keys()?.ok_or_else(|| {
        anyhow!(
            "the owner's key is not in {}: send the command from the owner's own Nostr client as a NIP-17 DM",
            town.dir.keys_dir().display()
        )
    })?;
    let roster = town.config.roster()?;
    let workers: Vec<&str> = roster
        .members()
        .iter()
        .filter(|m| matches!(m.role, Role::Buddy | Role::Executor))
        .map(|m| m.name.as_str())
        .collect();
    let Some(worker) = roster
        .by_name(&args.worker)
        .filter(|m| matches!(m.role, Role::Buddy | Role::Executor))
    else {
        bail!(
            "{:?} is not a worker of this town; the workers are {}",
            args.worker,
            workers.join(", ")
        );
    };
    let text = args.words.join(" ");
    match command::parse(&text) {
        Ok(Some(_)) => {}
        Ok(None) => bail!(
            "{text:?} is not a command: use pause, resume, restart, status, adjust_params key=value… or run SKILL args…"
        ),
        Err(e) => bail!("{e}"),
    }
    let url = args.relay.unwrap_or_else(|| town.config.relay.url.clone());
    let dm = DmClient::connect(&url, &owner).await?;
    let mut rx = dm.follow().await?;
    // A request id makes every invocation its own message: the same words sent twice within
    // one second would otherwise be the same rumor, which the worker takes as a replay.
    let request = nostr::Keys::generate().public_key().to_hex()[..16].to_string();
    let tag = nostr::Tag::custom(nostr::TagKind::custom("request"), [request]);
    let sent = dm.send(worker.pubkey, &text, vec![tag]).await?;
    eprintln!("sent {text:?} to {} by NIP-17 DM", worker.name);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.timeout);
    let mut taken = std::collections::HashSet::new();
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let Some(reply) = dm
            .reply_to(&mut rx, worker.pubkey, sent, left, &mut taken)
            .await
        else {
            eprintln!(
                "soul: no reply from {} within {} s (is it running? `soul status`)",
                worker.name, args.timeout
            );
            dm.close().await;
            return Ok(ExitCode::FAILURE);
        };
        println!("{}", reply.text);
        if reply.tag("status") != Some(ACCEPTED) {
            dm.close().await;
            return Ok(ExitCode::SUCCESS);
        }
    }
}
