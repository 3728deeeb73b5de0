//! `soul watch`: the debate and the town, live, readable by a person.

use std::path::Path;
use std::process::ExitCode;

use nostr::{Filter, Kind};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::SoulKind;

use super::render;
use soul_host::roles::brain::debate_kinds;
use soul_host::town::load::Town;
use soul_link::{live_since, Link};

pub(super) async fn run(
    dir: &Path,
    relay: Option<String>,
    history: usize,
) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let roster = town.config.roster()?;
    let url = relay.unwrap_or_else(|| town.config.relay.url.clone());
    let link = Link::connect(&url).await?;
    let mut kinds = debate_kinds();
    kinds.push(Kind::TextNote);
    kinds.extend(
        [
            SoulKind::Draft,
            SoulKind::Review,
            SoulKind::News,
            SoulKind::TownEvent,
        ]
        .map(SoulKind::kind),
    );
    let mut notifications = link.client().notifications();
    link.subscribe(Filter::new().kinds(kinds.clone()).since(live_since()))
        .await?;
    let mut past: Vec<_> = link
        .fetch(Filter::new().kinds(kinds).limit(history))
        .await?
        .into_iter()
        .collect();
    past.sort_by_key(|e| (e.created_at, e.id));
    println!(
        "watching town {} on {url} (Ctrl-C to stop)",
        town.config.town.name
    );
    // nostr-sdk hands fetched events to `notifications()` too: print each event once.
    let mut seen: std::collections::HashSet<nostr::EventId> = past.iter().map(|e| e.id).collect();
    for event in &past {
        if let Some(l) = render::line(event, &roster) {
            println!("{l}");
        }
    }
    let stop = super::signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) if seen.insert(event.id) => {
                    if let Some(l) = render::line(&event, &roster) {
                        println!("{l}");
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    link.close().await;
    Ok(ExitCode::SUCCESS)
}
