//! The residents: each keeps one draft and lives the seed-001 cycle (DESIGN §7).
//!
//! - no draft, or posted → write a new one (`pending`);
//! - pending → wait for the reviewer;
//! - rejected → write anew, avoiding the rules and words the review cites;
//! - approved and due → publish a kind-1 note, then mark the draft posted with the note's id.
//!
//! The status is [`soul_kinds::fold_draft`] over the draft and its reviews; the next post time
//! and the 70/20/10 draw come from [`dice`], seeded per resident from facts the relay holds, so a
//! restart changes nothing. All residents of a host share one view of the relay ([`hub`]).

pub mod dice;
mod hub;
pub use hub::Hub;
pub mod memory;
mod post;
mod reply;
mod step;

use crate::HostError;
use std::sync::Arc;
use std::time::Duration;

use nostr::PublicKey;
use soul_kinds::Role;
use tokio::task::{AbortHandle, JoinSet};

use super::reviewer::NgRules;
use super::RoleCtx;
use soul_link::clock::Clock;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::profile::{Common, Profile};

/// Everything one resident needs besides the relay.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Who it is.
    pub profile: Profile,
    /// The town's shared rules.
    pub common: Arc<Common>,
    /// The NG rules, to re-check a rewrite against what was cited.
    pub rules: Arc<NgRules>,
    /// The town clock.
    pub clock: Clock,
    /// The reviewer whose reviews count.
    pub reviewer: Option<PublicKey>,
    /// The town's owner (a friend: replies to them come easier).
    pub owner: PublicKey,
    /// The guardian and the gate: a post is an action (DESIGN §5).
    pub guardian: soul_guard::Guardian,
    /// Karma (lessons from rejections, audit rows) and the mind that distils lessons.
    pub minds: crate::minds::Minds,
}

/// Starts resident `agent`: loads its profile (an error is logged and the resident stays
/// idle; `soul up` checks every profile before it starts, so this only happens to a
/// `soul-agent` with a broken town directory).
pub fn spawn(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &RoleCtx,
) -> Vec<AbortHandle> {
    let dir = &ctx.options.town_dir;
    let loaded = (|| -> Result<Setup, HostError> {
        let profile = Profile::load(&dir.join("residents").join(format!("{}.yaml", agent.name)))?;
        let (common, rules) = ctx.shared.town_rules(|| -> Result<_, HostError> {
            Ok((
                Common::load(&dir.join("residents").join("_common.yaml"))?,
                NgRules::load_in(dir)?,
            ))
        })?;
        let roster = &ctx.options.roster;
        Ok(Setup {
            profile,
            common,
            rules,
            clock: ctx.options.clock,
            reviewer: roster
                .members()
                .iter()
                .find(|m| m.role == Role::Reviewer)
                .map(|m| m.pubkey),
            owner: roster.owner,
            guardian: ctx.guardian.clone(),
            minds: ctx.options.minds.clone(),
        })
    })();
    match loaded {
        Ok(setup) => {
            let residents = ctx
                .options
                .roster
                .members()
                .iter()
                .filter(|m| m.role == Role::Resident)
                .map(|m| m.pubkey)
                .collect();
            let names = ctx
                .options
                .roster
                .members()
                .iter()
                .map(|m| (m.pubkey, m.name.clone()))
                .collect();
            let hub = ctx
                .shared
                .resident_hub(|| hub::start(&ctx.link, residents, names));
            vec![tasks.spawn(run(agent.clone(), ctx.link.clone(), hub, setup))]
        }
        Err(e) => {
            tracing::error!(agent = %agent.name, "resident cannot start: {e:#}");
            Vec::new()
        }
    }
}

/// How long a resident the relay rate-limited stays quiet, in real time.
const RATE_LIMITED_PAUSE: Duration = Duration::from_secs(10);

/// One resident's life: a step whenever its slice of the board changes or its next post is due.
async fn run(me: Identity, link: Link, hub: Arc<hub::Hub>, setup: Setup) -> Result<(), HostError> {
    hub.ready().await;
    let waker = hub.waker(me.keys.public_key());
    let mut life = step::Life::new(&me, &setup);
    tracing::debug!(agent = %me.name, "resident is writing");
    loop {
        let wait = match life.step(&me, &link, &hub, &setup).await {
            Ok(wait) => wait,
            Err(e) => {
                tracing::warn!(agent = %me.name, "resident step failed: {e}");
                // A failed step waits out a town minute and at least a real second, deaf to
                // the board: on a busy board the waker would otherwise retry at once, and a
                // fast clock would retry a refused event hundreds of times a second.
                let floor = if e.is_rate_limited() {
                    RATE_LIMITED_PAUSE
                } else {
                    Duration::from_secs(1)
                };
                tokio::time::sleep(setup.clock.scale(Duration::from_secs(60)).max(floor)).await;
                continue;
            }
        };
        tokio::select! {
            _ = waker.notified() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}
