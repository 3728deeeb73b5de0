//! Karma's cycle (seed 002 phases 1 and 4, DESIGN §8): lessons from what went wrong, and the
//! upkeep that keeps `karma.sqlite` honest.
//!
//! - [`Running`]: a job while it runs, its heart beating in `karma.sqlite` every
//!   [`HEARTBEAT`]; a job whose process died stops beating and the zombie hunter reclaims it.
//! - [`learn`]: log first (a job row with the log), then distil a lesson with the mind; a
//!   lesson becomes a kind-4367 event and a row. When the mind cannot distil now (the model is
//!   down), the job stays undistilled for later.
//! - [`run`]: at start, rebuild the lessons from the relay's 4367 events and apply the owner's
//!   ratings (NIP-25 `+`/`-` on a 4367); then the zombie hunter every 15 minutes, deferred
//!   distillation every 30, one point of decay a day, the owner's new ratings as they come, and
//!   the day's synthesis at 19:00 town time (seed 002): what went well becomes lessons too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nostr::{EventId, Filter, Keys, Kind, PublicKey};
use soul_karma::{Job, JobStatus, Karma, NewLesson};
use soul_kinds::content::lesson;
use soul_kinds::{Lesson, SoulKind};

use super::{samsara, DistilAsk, Thinking};
use soul_link::clock::Clock;
use soul_link::{live_since, Link};

/// How long a running job may stay silent before the zombie hunter reclaims it.
pub const ZOMBIE_SILENCE: Duration = Duration::from_secs(15 * 60);
/// How often the zombie hunter runs.
pub const HUNT_EVERY: Duration = Duration::from_secs(15 * 60);
/// How often deferred distillation runs.
pub const DISTIL_EVERY: Duration = Duration::from_secs(30 * 60);
/// How often lessons decay by one point.
pub const DECAY_EVERY: Duration = Duration::from_secs(24 * 3600);
/// How often a running job's heart beats (real time, as the zombie hunter's silence is).
pub const HEARTBEAT: Duration = Duration::from_secs(60);

/// Runs `f` on karma off the async workers (SQLite blocks; a thousand residents share them).
pub(crate) async fn blocking<T: Send + 'static>(
    karma: &Karma,
    f: impl FnOnce(&Karma) -> Result<T, soul_karma::Error> + Send + 'static,
) -> Result<T, String> {
    let karma = karma.clone();
    match tokio::task::spawn_blocking(move || f(&karma)).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(e) => Err(format!("karma task failed: {e}")),
    }
}

/// A job while it runs: a `running` row whose heart beats every [`HEARTBEAT`] until it is
/// ended. Dropped without an end (its agent stopped, its process died), the beat stops and the
/// zombie hunter reclaims the row, whose log still says what it was doing.
#[derive(Debug)]
pub struct Running {
    id: i64,
    karma: Karma,
    beat: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Starts a `kind` job about `subject` by `agent`; `what` is the first line of its log.
    /// `None` (logged) when karma cannot be written: the work goes on without its record.
    pub async fn start(
        karma: &Karma,
        kind: &str,
        subject: EventId,
        agent: &str,
        what: &str,
    ) -> Option<Self> {
        let (k, a, w) = (kind.to_owned(), agent.to_owned(), what.to_owned());
        let payload = serde_json::json!({ "what": what }).to_string();
        let started = blocking(karma, move |karma| {
            let id = karma.start_job(
                &k,
                Some(&subject.to_hex()),
                &a,
                &payload,
                soul_karma::now_secs(),
            )?;
            karma.note_job(id, &w)?;
            Ok(id)
        })
        .await;
        let id = match started {
            Ok(id) => id,
            Err(e) => {
                tracing::warn!(agent, "karma: cannot log the job: {e}");
                return None;
            }
        };
        Some(Self::beating(karma, id))
    }

    /// The running `kind` job about `subject` that an earlier process of `agent` left behind
    /// (it stopped mid-way, and this one carries the work on): its heart beats again from here,
    /// so it is ended like any other rather than reclaimed as a zombie. `None` when there is
    /// none (or the hunter reclaimed it already: it was silent too long to be carried on).
    pub async fn adopt(karma: &Karma, kind: &str, subject: EventId, agent: &str) -> Option<Self> {
        let (k, a) = (kind.to_owned(), agent.to_owned());
        let found = blocking(karma, move |karma| {
            let orphan = karma
                .jobs_about(&subject.to_hex())?
                .into_iter()
                .rfind(|j| j.kind == k && j.agent == a && j.status == JobStatus::Running);
            if let Some(j) = &orphan {
                karma.heartbeat(j.id, soul_karma::now_secs())?;
                karma.note_job(j.id, "carried on after a restart")?;
            }
            Ok(orphan.map(|j| j.id))
        })
        .await;
        match found {
            Ok(Some(id)) => Some(Self::beating(karma, id)),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(agent, "karma: cannot look for the job left running: {e}");
                None
            }
        }
    }

    /// The handle of running job `id`, its heart beating every [`HEARTBEAT`].
    fn beating(karma: &Karma, id: i64) -> Self {
        let beating = karma.clone();
        let beat = tokio::spawn(async move {
            let mut every = tokio::time::interval(HEARTBEAT);
            every.tick().await;
            loop {
                every.tick().await;
                let now = soul_karma::now_secs();
                if let Err(e) = blocking(&beating, move |k| k.heartbeat(id, now)).await {
                    tracing::warn!(job = id, "karma: heartbeat not recorded: {e}");
                }
            }
        });
        Self {
            id,
            karma: karma.clone(),
            beat,
        }
    }

    /// This job's row id.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// Ends the job well. Its log waits for the day's synthesis, which learns from what went
    /// well as deferred distillation learns from what went wrong.
    pub async fn succeed(self, log: &str) {
        let (id, log) = (self.id, log.to_owned());
        let ended = blocking(&self.karma, move |k| {
            k.finish_job(id, true, &log, soul_karma::now_secs())
        })
        .await;
        if let Err(e) = ended {
            tracing::warn!(job = id, "karma: cannot end the job: {e}");
        }
    }

    /// Ends the job badly, log first, then tries to learn from it now (else deferred
    /// distillation does, later).
    pub async fn fail(self, link: &Link, keys: &Keys, agent: &str, minds: &Thinking, log: &str) {
        let (id, log) = (self.id, log.to_owned());
        let ended = blocking(&self.karma, move |k| {
            k.finish_job(id, false, &log, soul_karma::now_secs())?;
            k.job(id)
        })
        .await;
        match ended {
            Ok(Some(job)) => {
                distil(link, keys, agent, minds, &job).await;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(agent, "karma: cannot log the job: {e}"),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.beat.abort();
    }
}

/// An agent's running jobs by the event they are about (one per task in execution).
#[derive(Debug, Clone, Default)]
pub struct Jobs(Arc<Mutex<HashMap<EventId, Running>>>);

impl Jobs {
    /// Keeps `job` as the one about `subject` (a job already there is dropped: it stops
    /// beating and the zombie hunter will reclaim it).
    pub fn keep(&self, subject: EventId, job: Running) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(subject, job);
    }

    /// The job about `subject`, taken out to be ended.
    pub fn take(&self, subject: &EventId) -> Option<Running> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(subject)
    }
}

/// Records what went wrong at once (`log`, about `subject`) and tries to learn from it now.
pub async fn learn(
    link: &Link,
    keys: &Keys,
    agent: &str,
    minds: &Thinking,
    kind: &str,
    subject: EventId,
    log: &str,
) {
    if let Some(job) = Running::start(&minds.karma, kind, subject, agent, log).await {
        job.fail(link, keys, agent, minds, log).await;
    }
}

/// Distils one job into a lesson event and row; false when the mind could not (left for later).
pub(crate) async fn distil(
    link: &Link,
    keys: &Keys,
    agent: &str,
    minds: &Thinking,
    job: &Job,
) -> bool {
    let ask = DistilAsk {
        agent,
        kind: &job.kind,
        log: &job.execution_log,
        went_well: false,
    };
    let Some(thought) = minds.mind.distil(&ask).await else {
        return false;
    };
    let learnt = Learnt {
        lesson: Lesson {
            lesson: thought.value.lesson.clone(),
            weight: thought.value.weight.min(100),
            topic: thought.value.topic.clone(),
        },
        directives: thought.value.directives.to_string(),
        source: job.subject.clone(),
        jobs: vec![job.id],
    };
    let kept = keep(link, keys, agent, &minds.karma, learnt).await;
    if kept {
        tracing::info!(agent, lesson = %thought.value.lesson, mind = %thought.mind, "learnt a lesson");
    }
    kept
}

/// A lesson to keep: its content, seed 002's directives (JSON), the event it is about (hex) and
/// the jobs it was distilled from.
pub(crate) struct Learnt {
    pub(crate) lesson: Lesson,
    pub(crate) directives: String,
    pub(crate) source: Option<String>,
    pub(crate) jobs: Vec<i64>,
}

/// Publishes `l` as a 4367 signed by `keys`, stores its row and marks its jobs distilled; false
/// when the event was not published (the jobs stay for later). A row that cannot be stored is
/// logged: the event is, and a rebuild restores it.
pub(crate) async fn keep(link: &Link, keys: &Keys, agent: &str, karma: &Karma, l: Learnt) -> bool {
    let source = l.source.as_deref().and_then(|s| EventId::from_hex(s).ok());
    let event = match link.publish(keys, lesson(source, &l.lesson)).await {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(agent, "karma: lesson not published, kept for later: {e}");
            return false;
        }
    };
    let row = NewLesson {
        author: keys.public_key().to_hex(),
        topic: l.lesson.topic,
        lesson: l.lesson.lesson,
        weight: i64::from(l.lesson.weight),
        source_event: l.source,
        event_id: Some(event.id.to_hex()),
        // A row names its job when it came from exactly one.
        job_id: match l.jobs[..] {
            [one] => Some(one),
            _ => None,
        },
        directives: l.directives,
        created_at: event.created_at.as_secs() as i64,
    };
    let jobs = l.jobs;
    if let Err(e) = blocking(karma, move |k| {
        k.record_lesson(&row)?;
        jobs.iter().try_for_each(|id| k.mark_distilled(*id))
    })
    .await
    {
        tracing::warn!(
            agent,
            "karma: lesson not stored (the event is; a rebuild restores it): {e}"
        );
    }
    true
}

/// The upkeep loop of one host's karma, run by one agent (`agent`, signing lessons as `keys`);
/// `owner`'s reactions on lessons rate them.
pub async fn run(
    link: Link,
    keys: Keys,
    agent: String,
    minds: Thinking,
    clock: Clock,
    owner: PublicKey,
) {
    // Subscribe to the owner's ratings before reading the old ones, so none falls between.
    let mut notes = link.client().notifications();
    let ratings = Filter::new().kind(Kind::Reaction).author(owner);
    if let Err(e) = link.subscribe(ratings.clone().since(live_since())).await {
        tracing::warn!("karma: the owner's ratings will not be followed: {e}");
    }
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
    samsara::rate_stored(&link, &minds.karma, &ratings).await;
    let synthesis = samsara::schedule(clock);
    let mut next_synthesis = samsara::next(&synthesis);
    let mut hunt = tokio::time::interval(clock.scale(HUNT_EVERY));
    let mut deferred = tokio::time::interval(clock.scale(DISTIL_EVERY));
    let mut decay = tokio::time::interval(clock.scale(DECAY_EVERY));
    // The first tick of an interval is immediate; decay waits a full day.
    decay.tick().await;
    loop {
        tokio::select! {
            _ = hunt.tick() => {
                let silence = ZOMBIE_SILENCE.as_secs() as i64;
                match blocking(&minds.karma, move |k| k.hunt_zombies(soul_karma::now_secs(), silence)).await {
                    Ok(z) if !z.is_empty() => tracing::warn!(jobs = ?z, "zombie hunter reclaimed silent jobs; their logs wait for distillation"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!("zombie hunter: {e}"),
                }
            }
            _ = deferred.tick() => {
                let jobs = blocking(&minds.karma, |k| k.undistilled(16)).await.unwrap_or_default();
                for job in jobs {
                    if !distil(&link, &keys, &agent, &minds, &job).await {
                        break; // the mind is still down: try again next time
                    }
                }
            }
            note = notes.recv() => match note {
                Ok(nostr_sdk::RelayPoolNotification::Event { event, .. })
                    if event.kind == Kind::Reaction && event.pubkey == owner =>
                {
                    samsara::rate(&minds.karma, &event).await;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    // Notifications were missed: read the ratings again (each counts once).
                    samsara::rate_stored(&link, &minds.karma, &ratings).await;
                }
                _ => {}
            },
            (cycle, _) = &mut next_synthesis => {
                samsara::synthesise(&link, &keys, &agent, &minds, &cycle).await;
                next_synthesis = samsara::next(&synthesis);
            }
            _ = decay.tick() => match blocking(&minds.karma, |k| k.decay(1)).await {
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
    /// Starts [`run`] for `me`, rated by `owner`.
    pub fn spawn(
        link: &Link,
        me: &soul_link::Identity,
        minds: &Thinking,
        clock: Clock,
        owner: PublicKey,
    ) -> Self {
        Self(tokio::spawn(run(
            link.clone(),
            me.keys.clone(),
            me.name.clone(),
            minds.clone(),
            clock,
            owner,
        )))
    }
}

impl Drop for Upkeep {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(karma: &Karma, id: i64) -> Job {
        karma.job(id).unwrap().unwrap()
    }

    /// Waits (in paused tokio time) until the job's heartbeat moved off 0, or gives up.
    async fn beat_seen(karma: &Karma, id: i64) -> bool {
        for _ in 0..20 {
            if job(karma, id).last_heartbeat > 0 {
                return true;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        false
    }

    #[tokio::test(start_paused = true)]
    async fn a_running_job_beats_and_one_whose_agent_died_is_reclaimed() {
        let karma = Karma::in_memory().unwrap();
        let what = "executing \"Back up the family photos\"";
        let running = Running::start(
            &karma,
            "execution",
            EventId::all_zeros(),
            "triceratops",
            what,
        )
        .await
        .unwrap();
        let id = running.id();
        let silence = |k: &Karma| {
            k.execute_raw(&format!(
                "UPDATE jobs SET last_heartbeat = 0 WHERE id = {id}"
            ))
            .unwrap()
        };
        silence(&karma);
        tokio::time::sleep(HEARTBEAT).await;
        assert!(beat_seen(&karma, id).await, "a running job's heart beats");

        // Its agent stops without ending it (a crash, an abort): the heart stops too.
        drop(running);
        silence(&karma);
        tokio::time::sleep(HEARTBEAT * 3).await;
        assert!(
            !beat_seen(&karma, id).await,
            "a dropped job no longer beats"
        );
        let now = soul_karma::now_secs();
        let reclaimed = karma
            .hunt_zombies(now, ZOMBIE_SILENCE.as_secs() as i64)
            .unwrap();
        assert_eq!(reclaimed, [id]);
        let j = job(&karma, id);
        assert_eq!(j.status, JobStatus::Zombie);
        assert!(j.execution_log.contains(what), "{}", j.execution_log);
        assert!(j.execution_log.contains("reclaimed by the zombie hunter"));
        assert_eq!(
            karma
                .undistilled(8)
                .unwrap()
                .iter()
                .map(|j| j.id)
                .collect::<Vec<_>>(),
            [id],
            "its log waits for deferred distillation"
        );
    }

    #[tokio::test]
    async fn a_restarted_agent_carries_on_the_job_its_last_process_left_running() {
        let karma = Karma::in_memory().unwrap();
        let task = EventId::all_zeros();
        let first = Running::start(&karma, "execution", task, "triceratops", "executing")
            .await
            .unwrap();
        let id = first.id();
        drop(first); // the process died mid-way
        assert!(
            Running::adopt(&karma, "execution", task, "panda")
                .await
                .is_none(),
            "only the agent's own job is carried on"
        );
        let again = Running::adopt(&karma, "execution", task, "triceratops")
            .await
            .expect("the job left running");
        assert_eq!(again.id(), id);
        again.succeed("\"Back up\" completed").await;
        let j = job(&karma, id);
        assert_eq!((j.status, j.distilled), (JobStatus::Done, false));
        assert!(
            Running::adopt(&karma, "execution", task, "triceratops")
                .await
                .is_none(),
            "an ended job is not carried on"
        );
    }

    #[tokio::test]
    async fn a_job_that_ends_well_waits_for_the_day_s_synthesis() {
        let karma = Karma::in_memory().unwrap();
        let running = Running::start(
            &karma,
            "execution",
            EventId::all_zeros(),
            "triceratops",
            "x",
        )
        .await
        .unwrap();
        let id = running.id();
        running
            .succeed("\"Back up\" completed: 42 photos copied")
            .await;
        let j = job(&karma, id);
        assert_eq!(j.status, JobStatus::Done);
        assert!(!j.distilled, "the day's synthesis learns from it");
        assert!(karma.hunt_zombies(i64::MAX, 0).unwrap().is_empty());
        assert!(
            karma.undistilled(8).unwrap().is_empty(),
            "deferred distillation is for failures"
        );
        assert_eq!(karma.undistilled_successes(8).unwrap()[0].id, id);
    }
}
