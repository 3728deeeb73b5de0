//! Samsara's daily turn (seed 002): at 19:00 town time the day's jobs that went well become
//! lessons, as failures do at once; and the owner rates lessons from any Nostr client.
//!
//! A rating is a NIP-25 reaction by the owner whose last `e` tag names a 4367 lesson: `+` raises
//! its weight, `-` lowers it (DESIGN §12). Other reactions (emoji, anyone else's) change nothing.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use nostr::{Event, Keys};
use soul_karma::ratings::{Rated, DOWN, UP};
use soul_karma::Job;
use soul_kinds::Lesson;
use soul_link::clock::Clock;
use soul_link::schedule::TownSchedule;
use soul_link::Link;

use crate::upkeep::{blocking, keep, Learnt};
use crate::{DistilAsk, Thinking};

/// When the day's synthesis runs, in town time (seed 002: every day at 19:00).
pub const SYNTHESIS_CRON: &str = "0 0 19 * * *";

/// Most jobs one synthesis reads (the rest wait for the next day).
const DAY_JOBS: usize = 200;

/// The synthesis schedule on `clock`.
pub fn schedule(clock: Clock) -> Option<TownSchedule> {
    match TownSchedule::new(SYNTHESIS_CRON, clock) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::error!("karma: no daily synthesis: {e}");
            None
        }
    }
}

/// A future that resolves at the next synthesis with the cycle's name (never, without a
/// schedule).
pub fn next(
    schedule: &Option<TownSchedule>,
) -> Pin<Box<dyn Future<Output = (String, Duration)> + Send>> {
    let due = schedule.as_ref().and_then(|s| s.next_after(now_secs()));
    Box::pin(async move {
        match due {
            Some((name, wait)) => {
                tokio::time::sleep(wait).await;
                (name, wait)
            }
            None => std::future::pending().await,
        }
    })
}

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The rating `event` gives, if it is a `+` or `-` on some event: the lesson's id and the delta.
pub fn rating_of(event: &Event) -> Option<(String, i64)> {
    let delta = match event.content.trim() {
        "+" => UP,
        "-" => DOWN,
        _ => return None,
    };
    // NIP-25: the last `e` tag is the event reacted to.
    let target = event.tags.event_ids().last()?;
    Some((target.to_hex(), delta))
}

/// Applies the owner's reaction `event` to the lesson it names (once; see
/// [`soul_karma::Karma::rate_lesson`]).
pub async fn rate(karma: &soul_karma::Karma, event: &Event) {
    let Some((target, delta)) = rating_of(event) else {
        tracing::debug!(reaction = %event.id, "not a + or - on an event; not a rating");
        return;
    };
    let (id, at) = (event.id.to_hex(), event.created_at.as_secs() as i64);
    let t = target.clone();
    match blocking(karma, move |k| k.rate_lesson(&id, &t, delta, at)).await {
        Ok(Rated::Applied(weight)) => {
            tracing::info!(lesson = %target, delta, weight, "the owner rated a lesson")
        }
        Ok(Rated::Waiting) => {
            tracing::debug!(lesson = %target, "a rating waits for its lesson")
        }
        Ok(Rated::Again) => {}
        Err(e) => tracing::warn!(lesson = %target, "karma: rating not applied: {e}"),
    }
}

/// Applies every stored rating matching `ratings` (each counts once, so reading them again is
/// harmless).
pub async fn rate_stored(link: &Link, karma: &soul_karma::Karma, ratings: &nostr::Filter) {
    match link.fetch(ratings.clone()).await {
        Ok(events) => {
            for event in events.iter() {
                rate(karma, event).await;
            }
        }
        Err(e) => tracing::warn!("karma: cannot read the owner's ratings: {e}"),
    }
}

/// The day's synthesis: the jobs that went well since the last one, by kind, each kind
/// distilled into one lesson (published as 4367 with its directives, stored, the jobs marked).
pub async fn synthesise(link: &Link, keys: &Keys, agent: &str, minds: &Thinking, cycle: &str) {
    let jobs = match blocking(&minds.karma, |k| k.undistilled_successes(DAY_JOBS)).await {
        Ok(j) => j,
        Err(e) => {
            tracing::warn!(
                cycle,
                "karma: the day's synthesis cannot read its jobs: {e}"
            );
            return;
        }
    };
    let mut by_kind: BTreeMap<String, Vec<Job>> = BTreeMap::new();
    for job in jobs {
        by_kind.entry(job.kind.clone()).or_default().push(job);
    }
    let mut learnt = 0;
    for (kind, jobs) in &by_kind {
        let log = jobs
            .iter()
            .filter_map(|j| {
                j.execution_log
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
            })
            .collect::<Vec<_>>()
            .join("\n");
        let ask = DistilAsk {
            agent,
            kind,
            log: &log,
            went_well: true,
        };
        let Some(thought) = minds.mind.distil(&ask).await else {
            tracing::info!(
                cycle,
                kind,
                "the mind cannot distil now; the day's jobs wait"
            );
            continue;
        };
        let day = Learnt {
            lesson: Lesson {
                lesson: thought.value.lesson.clone(),
                weight: thought.value.weight.clamp(1, 100),
                topic: thought.value.topic.clone(),
            },
            directives: thought.value.directives.to_string(),
            source: None,
            jobs: jobs.iter().map(|j| j.id).collect(),
        };
        if !keep(link, keys, agent, &minds.karma, day).await {
            continue;
        }
        learnt += 1;
    }
    tracing::info!(
        cycle,
        agent,
        lessons = learnt,
        jobs = by_kind.values().map(Vec::len).sum::<usize>(),
        "the day's synthesis"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{EventBuilder, Kind, Tag};

    fn reaction(content: &str, tags: Vec<Tag>) -> Event {
        EventBuilder::new(Kind::Reaction, content)
            .tags(tags)
            .sign_with_keys(&Keys::generate())
            .unwrap()
    }

    #[test]
    fn only_plus_and_minus_on_the_last_e_tag_are_ratings() {
        let (a, b) = (
            nostr::EventId::all_zeros(),
            nostr::EventId::from_byte_array([7; 32]),
        );
        let r = reaction("+", vec![Tag::event(a), Tag::event(b)]);
        assert_eq!(rating_of(&r), Some((b.to_hex(), UP)));
        assert_eq!(
            rating_of(&reaction("-", vec![Tag::event(a)])),
            Some((a.to_hex(), DOWN))
        );
        assert_eq!(rating_of(&reaction("🤙", vec![Tag::event(a)])), None);
        assert_eq!(rating_of(&reaction("+", vec![])), None);
    }
}
