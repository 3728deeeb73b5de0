//! The reporter: reads the sources in `bulletin/`, filters them, and publishes news (4371) and
//! town events (4372).
//!
//! Every `interval_minutes` of town time it reads each feed (RSS or Atom, from a file or an
//! http(s) URL, parsed by `feed-rs`) and the manual items, drops what the filters refuse, and
//! publishes what it has not published before (by source and title, read back from the relay,
//! so a restart publishes nothing twice). A dead feed is logged and skipped; the others go on.

mod filter;
mod sources;

use crate::HostError;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nostr::{Filter, PublicKey};
use soul_kinds::content::{news, town_event};
use soul_kinds::{parse, News, SoulKind, TownEvent};
use tokio::task::{AbortHandle, JoinSet};

use super::reviewer::NgRules;
pub use filter::{pass, Kept};
use soul_link::clock::Clock;
use soul_link::Identity;
use soul_link::Link;
pub use sources::{Item, Sources};

/// What the reporter needs from its town.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The town directory (`bulletin/` is read from it).
    pub town_dir: PathBuf,
    /// The town clock.
    pub clock: Clock,
    /// NG rules for the filters.
    pub rules: Arc<NgRules>,
}

/// What the reporter already published.
#[derive(Default)]
struct Published {
    news: HashSet<(String, String)>,
    events: HashSet<String>,
}

async fn published(link: &Link, me: PublicKey) -> Result<Published, HostError> {
    let mut p = Published::default();
    let f = Filter::new()
        .kinds([SoulKind::News.kind(), SoulKind::TownEvent.kind()])
        .author(me);
    for e in link.fetch(f).await? {
        if let Ok(n) = parse::<News>(&e) {
            p.news.insert((n.source, n.title));
        } else if let Ok(t) = parse::<TownEvent>(&e) {
            p.events.insert(t.title);
        }
    }
    Ok(p)
}

/// Starts the reporter `agent` (a bad rules file is logged and the reporter stays idle: it
/// must not publish unfiltered news).
pub fn spawn(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &super::RoleCtx,
) -> Vec<AbortHandle> {
    match NgRules::load_in(&ctx.options.town_dir) {
        Ok(rules) => {
            let setup = Setup {
                town_dir: ctx.options.town_dir.clone(),
                clock: ctx.options.clock,
                rules: Arc::new(rules),
            };
            vec![tasks.spawn(run(agent.clone(), ctx.link.clone(), setup))]
        }
        Err(e) => {
            tracing::error!(agent = %agent.name, "reporter cannot start: {e}");
            Vec::new()
        }
    }
}

/// Runs the reporter `me` until its task is aborted.
pub async fn run(me: Identity, link: Link, setup: Setup) -> Result<(), HostError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .user_agent(concat!("soul-reporter/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(HostError::Http)?;
    let mut done = published(&link, me.keys.public_key()).await?;
    tracing::info!(agent = %me.name, "reporter is reading the bulletin sources");
    loop {
        // Re-read sources.yaml every round, so the owner's edits apply without a restart.
        let sources = match Sources::load_in(&setup.town_dir) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(agent = %me.name, "{e:#}; fix it, the reporter retries");
                setup.clock.sleep(Duration::from_secs(3600)).await;
                continue;
            }
        };
        round(&me, &link, &setup, &sources, &http, &mut done).await;
        setup
            .clock
            .sleep(Duration::from_secs(
                u64::from(sources.interval_minutes) * 60,
            ))
            .await;
    }
}

async fn round(
    me: &Identity,
    link: &Link,
    setup: &Setup,
    sources: &Sources,
    http: &reqwest::Client,
    done: &mut Published,
) {
    let bulletin = setup.town_dir.join("bulletin");
    let mut items: Vec<Item> = Vec::new();
    for feed in &sources.feeds {
        match feed.read(&bulletin, http).await {
            Ok(got) => items.extend(got),
            Err(e) => tracing::warn!(agent = %me.name, feed = %feed.name(), "feed skipped: {e:#}"),
        }
    }
    items.extend(sources.manual.iter().map(|m| Item {
        title: m.title.clone(),
        summary: m.summary.clone(),
        link: None,
        categories: m.topics.clone(),
        source: "bulletin (manual)".into(),
    }));
    let mut count = 0;
    for item in items {
        let kept = match pass(&item, &sources.filters, &setup.rules) {
            Ok(k) => k,
            Err(why) => {
                tracing::debug!(title = %item.title, "news dropped: {why}");
                continue;
            }
        };
        let key = (kept.item.source.clone(), kept.item.title.clone());
        if done.news.contains(&key) {
            continue;
        }
        let content = News {
            title: cut(&kept.item.title, 200),
            summary: cut(&kept.item.summary, 4000),
            link: kept.item.link.clone(),
            source: cut(&kept.item.source, 200),
            topics: kept.topics.iter().take(32).map(|t| cut(t, 64)).collect(),
        };
        match link.publish(&me.keys, news(&content)).await {
            Ok(_) => {
                done.news.insert(key);
                count += 1;
            }
            Err(e) => tracing::warn!(agent = %me.name, "news not published: {e}"),
        }
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    for ev in &sources.events {
        if done.events.contains(&ev.title) {
            continue;
        }
        let lead = setup
            .clock
            .scale(Duration::from_secs_f64(ev.in_hours.max(0.0) * 3600.0));
        let length = setup
            .clock
            .scale(Duration::from_secs_f64(ev.hours.max(0.0) * 3600.0));
        let starts = now + lead.as_secs();
        let content = TownEvent {
            title: cut(&ev.title, 200),
            description: cut(&ev.description, 4000),
            starts,
            ends: Some(starts + length.as_secs().max(1)),
        };
        match link.publish(&me.keys, town_event(&content)).await {
            Ok(_) => {
                done.events.insert(ev.title.clone());
                count += 1;
            }
            Err(e) => tracing::warn!(agent = %me.name, "town event not published: {e}"),
        }
    }
    if count > 0 {
        tracing::info!(agent = %me.name, published = count, "bulletin updated");
    }
}

fn cut(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}
