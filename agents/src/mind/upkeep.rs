//! Karma's cycle (seed 002 phases 1 and 4, DESIGN §8): lessons from what went wrong, and the
//! upkeep that keeps `karma.sqlite` honest.
//!
//! - [`learn`]: log first (a job row with the log), then distil a lesson with the mind; a
//!   lesson becomes a kind-4367 event and a row. When the mind cannot distil now (the model is
//!   down), the job stays undistilled for later.
//! - [`run`]: at start, rebuild the lessons from the relay's 4367 events; then the zombie hunter
//!   every 15 minutes, deferred distillation every 30, and one point of decay a day (town time).

use std::time::Duration;

use nostr::{EventId, Filter, Keys};
use soul_karma::{Job, NewLesson};
use soul_kinds::content::lesson;
use soul_kinds::{Lesson, SoulKind};

use super::{DistilAsk, Minds};
use crate::clock::Clock;
use crate::link::Link;

/// How long a running job may stay silent before the zombie hunter reclaims it.
pub const ZOMBIE_SILENCE: Duration = Duration::from_secs(15 * 60);
/// How often the zombie hunter runs.
pub const HUNT_EVERY: Duration = Duration::from_secs(15 * 60);
/// How often deferred distillation runs.
pub const DISTIL_EVERY: Duration = Duration::from_secs(30 * 60);
/// How often lessons decay by one point.
pub const DECAY_EVERY: Duration = Duration::from_secs(24 * 3600);

/// Records what went wrong (`log`, about `subject`) and tries to learn from it now.
pub async fn learn(
    link: &Link,
    keys: &Keys,
    agent: &str,
    minds: &Minds,
    kind: &str,
    subject: EventId,
    log: &str,
) {
    let now = soul_karma::now_secs();
    let job = match minds
        .karma
        .start_job(kind, Some(&subject.to_hex()), agent, "{}", now)
    {
        Ok(id) => id,
        Err(e) => return tracing::warn!(agent, "karma: cannot log the job: {e}"),
    };
    if let Err(e) = minds.karma.finish_job(job, false, log, now) {
        return tracing::warn!(agent, "karma: cannot log the job: {e}");
    }
    if let Ok(Some(j)) = minds.karma.job(job) {
        distil(link, keys, agent, minds, &j).await;
    }
}

/// Distils one job into a lesson event and row; false when the mind could not (left for later).
async fn distil(link: &Link, keys: &Keys, agent: &str, minds: &Minds, job: &Job) -> bool {
    let ask = DistilAsk {
        agent,
        kind: &job.kind,
        log: &job.execution_log,
    };
    let Some(thought) = minds.mind.distil(&ask).await else {
        return false;
    };
    let l = Lesson {
        lesson: thought.value.lesson.clone(),
        weight: thought.value.weight.min(100),
        topic: thought.value.topic.clone(),
    };
    let source = job
        .subject
        .as_deref()
        .and_then(|s| EventId::from_hex(s).ok());
    let event = match link.publish(keys, lesson(source, &l)).await {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(agent, "karma: lesson not published, kept for later: {e}");
            return false;
        }
    };
    let row = NewLesson {
        author: keys.public_key().to_hex(),
        topic: l.topic,
        lesson: l.lesson,
        weight: i64::from(l.weight),
        source_event: job.subject.clone(),
        event_id: Some(event.id.to_hex()),
        job_id: Some(job.id),
        directives: "{}".into(),
        created_at: event.created_at.as_secs() as i64,
    };
    if let Err(e) = minds
        .karma
        .record_lesson(&row)
        .and_then(|_| minds.karma.mark_distilled(job.id))
    {
        tracing::warn!(
            agent,
            "karma: lesson not stored (the event is; a rebuild restores it): {e}"
        );
    }
    tracing::info!(agent, lesson = %row.lesson, mind = %thought.mind, "learnt a lesson");
    true
}

/// The upkeep loop of one host's karma, run by one agent (`agent`, signing lessons as `keys`).
pub async fn run(link: Link, keys: Keys, agent: String, minds: Minds, clock: Clock) {
    match link.fetch(Filter::new().kind(SoulKind::Karma.kind())).await {
        Ok(events) => {
            let events: Vec<_> = events.into_iter().collect();
            match minds
                .karma
                .rebuild_from_events(&events, soul_karma::now_secs(), 1)
            {
                Ok(r) if r.stored > 0 => {
                    tracing::info!(stored = r.stored, "karma rebuilt from lesson events")
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("karma rebuild failed: {e}"),
            }
        }
        Err(e) => tracing::warn!("karma rebuild: cannot read lessons from the relay: {e}"),
    }
    let mut hunt = tokio::time::interval(clock.scale(HUNT_EVERY));
    let mut deferred = tokio::time::interval(clock.scale(DISTIL_EVERY));
    let mut decay = tokio::time::interval(clock.scale(DECAY_EVERY));
    // The first tick of an interval is immediate; decay waits a full day.
    decay.tick().await;
    loop {
        tokio::select! {
            _ = hunt.tick() => {
                let silence = ZOMBIE_SILENCE.as_secs() as i64;
                match minds.karma.hunt_zombies(soul_karma::now_secs(), silence) {
                    Ok(z) if !z.is_empty() => tracing::warn!(jobs = ?z, "zombie hunter reclaimed silent jobs"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!("zombie hunter: {e}"),
                }
            }
            _ = deferred.tick() => {
                let jobs = minds.karma.undistilled(16).unwrap_or_default();
                for job in jobs {
                    if !distil(&link, &keys, &agent, &minds, &job).await {
                        break; // the mind is still down: try again next time
                    }
                }
            }
            _ = decay.tick() => match minds.karma.decay(1) {
                Ok(n) if n > 0 => tracing::info!(lessons = n, "karma decay: lessons reached weight 0"),
                Ok(_) => {}
                Err(e) => tracing::warn!("karma decay: {e}"),
            },
        }
    }
}

/// The upkeep loop as a task that ends when this handle is dropped (its agent stopped).
#[derive(Debug)]
pub struct Upkeep(tokio::task::JoinHandle<()>);

impl Upkeep {
    /// Starts [`run`] for `me`.
    pub fn spawn(link: &Link, me: &crate::host::Identity, minds: &Minds, clock: Clock) -> Self {
        Self(tokio::spawn(run(
            link.clone(),
            me.keys.clone(),
            me.name.clone(),
            minds.clone(),
            clock,
        )))
    }
}

impl Drop for Upkeep {
    fn drop(&mut self) {
        self.0.abort();
    }
}
