//! The brain role: panda, gorilla and triceratops debate every owner task to a decision.
//!
//! Each brain keeps a cache of tasks and their debate events, fed by one subscription, and on
//! every change (and on a short tick, for round deadlines) folds each open task and takes the
//! one step its part calls for:
//! - every brain: its opinion for the open round, once (the fold says whether it already voted);
//! - gorilla: the decision once a round's tally reaches 2 of 3, and a kind-1 note;
//! - triceratops: mediation after round 3, the announcement, and the execution.
//!
//! On the evaluation schedule (or the owner's `soul evaluate`) each brain also scores the other
//! two, and retunes itself when both of them ask for it.

mod cache;
mod confirm;
mod evaluate;
pub(crate) mod guarded;
pub mod inbox;
mod origin;
mod restart;
mod step;

use crate::HostError;
use std::sync::Arc;
use std::time::Duration;

use nostr::{Event, Filter, Kind, PublicKey};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::{parse, Brains, SoulKind, Task};

use crate::{Identity, Supervisor};
use soul_link::clock::Clock;
use soul_link::schedule::{Cadence, TownSchedule};
use soul_link::{live_since, Link};
use soul_mind::brain::Lexicon;

pub use cache::Debates;
pub use evaluate::is_evaluation_request;

/// Town-time a round stays open for brains that have not voted (down, slow model).
pub const ROUND_TIMEOUT: Duration = Duration::from_secs(120);

/// What a brain needs to know about its town.
#[derive(Debug, Clone)]
pub struct BrainSetup {
    /// Who is who among the brains (from the owner-signed roster).
    pub brains: Brains,
    /// The town's owner: tasks come from them (or a brain relaying them).
    pub owner: PublicKey,
    /// Risk and opportunity words (`rules/brain_lexicon.yaml`).
    pub lexicon: Arc<Lexicon>,
    /// The town clock.
    pub clock: Clock,
    /// When evaluation cycles run (`[schedule] evaluation`).
    pub evaluation: Option<TownSchedule>,
    /// Services the restart protocol may restart (`rules/restart.yaml`).
    pub restart_allowlist: Arc<Vec<String>>,
    /// The host, for panda to perform an approved restart.
    pub supervisor: Supervisor,
    /// Triceratops's line to the executor, for decided tasks that name a skill.
    pub executor: crate::roles::executor::Dispatch,
    /// The mind, karma and the guardian's rules (DESIGN §5, §8).
    pub minds: crate::minds::Minds,
    /// The guardian and the authorization gate.
    pub guardian: soul_guard::Guardian,
    /// The relay, for DMs to the owner (CONFIRM).
    pub relay_url: String,
    /// Executions in progress as karma jobs with heartbeats (triceratops's).
    pub jobs: soul_mind::upkeep::Jobs,
    /// The owner's answers triceratops awaits (held by the host, so they outlive a restart).
    pub awaiting: Arc<guarded::Awaiting>,
}

impl BrainSetup {
    /// The setup for a brain of the host in `ctx`; `None` when the roster lacks a brain.
    pub fn from_ctx(ctx: &crate::roles::RoleCtx) -> Option<Self> {
        let o = &ctx.options;
        Some(Self {
            brains: o.roster.brains()?,
            owner: o.roster.owner,
            lexicon: Arc::clone(&o.lexicon),
            clock: o.clock,
            evaluation: o.evaluation.clone(),
            restart_allowlist: Arc::clone(&o.restart_allowlist),
            supervisor: ctx.supervisor.clone(),
            executor: crate::roles::executor::Dispatch::new(ctx),
            minds: o.minds.clone(),
            guardian: ctx.guardian.clone(),
            relay_url: o.relay_url.clone(),
            jobs: Default::default(),
            awaiting: ctx.shared.brain_awaiting(),
        })
    }
}

/// The kinds a brain follows for debates.
pub fn debate_kinds() -> Vec<Kind> {
    [
        SoulKind::Task,
        SoulKind::Opinion,
        SoulKind::Decision,
        SoulKind::Announcement,
        SoulKind::Execution,
    ]
    .iter()
    .map(|k| k.kind())
    .collect()
}

fn followed_kinds() -> Vec<Kind> {
    let mut kinds = debate_kinds();
    kinds.extend([
        SoulKind::Evaluation.kind(),
        SoulKind::Params.kind(),
        SoulKind::Restart.kind(),
    ]);
    kinds
}

/// Everything a brain has read, kept apart by concern.
struct View {
    debates: Debates,
    cycles: evaluate::Cycles,
    params_events: Vec<Event>,
    manual_cycles: Vec<String>,
    restarts: restart::Restarts,
}

impl View {
    /// Files an event; returns the evaluation cycle it touches, if any.
    fn insert(&mut self, event: Event, me: &PublicKey, owner: &PublicKey) -> Option<String> {
        if event.kind == Kind::TextNote {
            self.debates.insert(event);
            return None;
        }
        let kind = SoulKind::from_kind(event.kind)?;
        match kind {
            SoulKind::Evaluation => self.cycles.insert(event, me),
            SoulKind::Restart => {
                self.restarts.insert(event);
                None
            }
            SoulKind::Params => {
                self.cycles.insert(event.clone(), me);
                self.params_events.push(event);
                None
            }
            SoulKind::Task => {
                let manual = event.pubkey == *owner
                    && parse::<Task>(&event).is_ok_and(|t| is_evaluation_request(&t));
                if manual {
                    let cycle = format!("manual-{}", &event.id.to_hex()[..12]);
                    if !self.manual_cycles.contains(&cycle) {
                        self.manual_cycles.push(cycle);
                    }
                } else {
                    self.debates.insert(event);
                }
                None
            }
            _ => {
                self.debates.insert(event);
                None
            }
        }
    }
}

/// Runs the brain `me` until its task is aborted.
pub async fn run(me: Identity, link: Link, setup: BrainSetup) -> Result<(), HostError> {
    let my_key = me.keys.public_key();
    let name = setup
        .brains
        .name_of(&my_key)
        .ok_or_else(|| HostError::NotABrain {
            name: me.name.clone(),
        })?;
    let mut notifications = link.client().notifications();
    let mut published = link.published();
    let kinds = followed_kinds();
    // Notes: the brains' about decisions and the owner's replies to them ("confirm").
    let authors = [
        setup.owner,
        setup.brains.panda,
        setup.brains.gorilla,
        setup.brains.triceratops,
    ];
    let notes = Filter::new().kind(Kind::TextNote).authors(authors);
    let followed = |e: &Event| {
        kinds.contains(&e.kind) || (e.kind == Kind::TextNote && authors.contains(&e.pubkey))
    };
    link.subscribe(Filter::new().kinds(kinds.clone()).since(live_since()))
        .await?;
    link.subscribe(notes.clone().since(live_since())).await?;
    // History after subscribing, so nothing falls between the two.
    let mut view = View {
        debates: Debates::default(),
        cycles: Default::default(),
        params_events: Vec::new(),
        manual_cycles: Vec::new(),
        restarts: Default::default(),
    };
    let mut touched: Vec<String> = Vec::new();
    for event in link.fetch(Filter::new().kinds(kinds.clone())).await? {
        touched.extend(view.insert(event, &my_key, &setup.owner));
    }
    for event in link.fetch(notes.clone()).await? {
        view.insert(event, &my_key, &setup.owner);
    }
    let mut params_of = evaluate::latest_params(&view.params_events, &setup.brains, &setup.owner);
    let mut params = params_of
        .get(&name)
        .copied()
        .unwrap_or_else(|| name.default_params());
    tracing::info!(brain = %name, tasks = view.debates.len(), "brain is debating");
    // Triceratops keeps the host's karma (it learns from executions); the upkeep stops with it.
    let _upkeep = (name == soul_kinds::BrainName::Triceratops).then(|| {
        soul_mind::upkeep::Upkeep::spawn(
            &link,
            &me,
            &setup.minds.thinking(&me.name),
            setup.clock,
            setup.owner,
        )
    });
    let mut tick = tokio::time::interval(
        setup
            .clock
            .scale(Duration::from_secs(5))
            .min(Duration::from_secs(1)),
    );
    let mut done_manual = 0;
    let mut unfinished: Vec<String> = Vec::new();
    // Each scheduled cycle is computed once and run once, whichever wake-up finds it due.
    let mut cadence = setup
        .evaluation
        .clone()
        .map(|schedule| Cadence::new(schedule, now_secs()));
    loop {
        let cycle_due = tokio::time::sleep(
            cadence
                .as_ref()
                .and_then(|c| c.wait(now_secs()))
                .unwrap_or(Duration::from_secs(3600)),
        );
        tokio::select! {
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) if followed(&event) => {
                    touched.extend(view.insert(*event, &my_key, &setup.owner));
                }
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(brain = %name, missed = n, "fell behind; re-reading the relay");
                    for event in link.fetch(Filter::new().kinds(kinds.clone())).await? {
                        touched.extend(view.insert(event, &my_key, &setup.owner));
                    }
                    for event in link.fetch(notes.clone()).await? {
                        view.insert(event, &my_key, &setup.owner);
                    }
                }
                Err(_) => return Ok(()),
            },
            local = published.recv() => match local {
                Ok(event) if followed(&event) => {
                    touched.extend(view.insert(event, &my_key, &setup.owner));
                }
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    for event in link.fetch(Filter::new().kinds(kinds.clone())).await? {
                        touched.extend(view.insert(event, &my_key, &setup.owner));
                    }
                }
                Err(_) => return Ok(()),
            },
            _ = cycle_due => {}
            _ = tick.tick() => {}
        }
        params_of = evaluate::latest_params(&view.params_events, &setup.brains, &setup.owner);
        if let Some(p) = params_of.get(&name) {
            params = *p;
        }
        let ctx = step::Ctx {
            me: &me,
            name,
            params: &params,
            setup: &setup,
            link: &link,
        };
        for id in view.debates.open_tasks() {
            if let Err(e) = step::advance(&ctx, &mut view.debates, &mut view.restarts, id).await {
                tracing::warn!(brain = %name, task = %id, "step failed: {e}");
            }
        }
        if name == soul_kinds::BrainName::Gorilla {
            if let Err(e) = confirm::relay_replies(&ctx, &mut view.debates).await {
                tracing::warn!(brain = %name, "relaying the owner's confirmation failed: {e}");
            }
        }
        if let Err(e) = restart::answer(&ctx, &mut view.restarts, &mut view.debates).await {
            tracing::warn!(brain = %name, "restart protocol step failed: {e}");
        }
        // Cycles that failed (a publish refused or timed out) are tried again on the next
        // turn; run_cycle skips the targets already evaluated, so a retry never doubles one.
        let mut cycles: Vec<String> = std::mem::take(&mut unfinished);
        cycles.extend_from_slice(&view.manual_cycles[done_manual..]);
        done_manual = view.manual_cycles.len();
        if let Some(c) = cadence.as_mut() {
            cycles.extend(c.due(now_secs()));
        }
        for cycle in cycles {
            if let Err(e) = evaluate::run_cycle(
                &ctx,
                &mut view.debates,
                &mut view.cycles,
                &cycle,
                &params_of,
            )
            .await
            {
                tracing::warn!(brain = %name, cycle, "evaluation failed, trying again: {e}");
                unfinished.push(cycle);
            }
        }
        let mut retuned = None;
        for cycle in touched.drain(..) {
            match evaluate::maybe_retune(&ctx, &mut view.cycles, &cycle).await {
                Ok(Some(p)) => retuned = Some(p),
                Ok(None) => {}
                Err(e) => tracing::warn!(brain = %name, cycle, "retune failed: {e}"),
            }
        }
        if let Some(p) = retuned {
            params = p;
        }
    }
}

/// Real time in seconds since the epoch, as schedules read it.
fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
