//! One step of a resident's cycle: read its slice of the board, fold its draft, act once.

use crate::HostError;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nostr::{Event, EventId, Timestamp};
use rand::Rng;
use soul_kinds::content::draft;
use soul_kinds::content::MAX_DRAFT_HISTORY;
use soul_kinds::{fold_draft, Draft, DraftHistory, DraftStatus, MemoryContent};

use super::dice::{self, Pick};
use super::hub::Hub;
use super::{memory, reply, Setup};
use soul_link::Identity;
use soul_link::Link;
use soul_mind::profile::Language;
use soul_mind::writer::{self, Source};
use soul_mind::{self as mind, DraftAsk};

/// Consecutive posts at least this alike are not written (bigram Jaccard).
const ALIKE: f64 = 0.6;
/// How long to wait when there is nothing to do but the reviewer (it wakes us anyway).
const IDLE: Duration = Duration::from_secs(3600);
/// The least real time a draft stays pending before its resident asks the relay for the review.
/// A review lost between relay and host is rare; on a fast clock the town-time patience alone
/// would have a thousand residents asking every few milliseconds, and that stream of REQs is
/// what slowed the relay, not the lost review.
const ASK_RELAY_AFTER: Duration = Duration::from_secs(5);

/// What a resident keeps between steps; all of it can be rebuilt from the relay.
pub struct Life {
    pub(super) memory: MemoryContent,
    pub(super) memory_id: Option<EventId>,
    /// Newest `created_at` this resident used for an addressable event (strictly increasing,
    /// or the relay would keep the version with the lower id).
    last_stamp: u64,
    /// The topic of the current draft, when this process wrote it.
    pub(super) topic: Option<(EventId, String)>,
}

/// A slice of the board, copied out so no lock is held across an await.
struct Slice {
    draft: Option<Event>,
    reviews: Vec<Event>,
    memory: Option<Event>,
    news: Vec<String>,
    events: Vec<String>,
    last_note: Option<Event>,
}

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Life {
    /// A resident that has read nothing yet.
    pub fn new(_me: &Identity, _setup: &Setup) -> Self {
        Self {
            memory: memory::fresh(),
            memory_id: None,
            last_stamp: 0,
            topic: None,
        }
    }

    /// One step; returns how long (real time) until the next step is due without news.
    pub async fn step(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
        setup: &Setup,
    ) -> Result<Duration, HostError> {
        let pk = me.keys.public_key();
        let slice = {
            let b = hub.board.lock().unwrap_or_else(|e| e.into_inner());
            let draft = b.drafts.get(&pk).cloned();
            let reviews = draft
                .as_ref()
                .and_then(|d| b.reviews.get(&d.id))
                .cloned()
                .unwrap_or_default();
            Slice {
                draft,
                reviews,
                memory: b.memories.get(&pk).cloned(),
                news: b.news.iter().cloned().collect(),
                events: b.events_on(now_secs() as u64),
                last_note: b.last_note.get(&pk).cloned(),
            }
        };
        if let Some(m) = &slice.memory {
            self.last_stamp = self.last_stamp.max(m.created_at.as_secs());
            if self.memory_id != Some(m.id) {
                match memory::open(&me.keys, &m.content) {
                    Ok(mem) => self.memory = mem,
                    Err(e) => {
                        tracing::warn!(agent = %me.name, "own memory unreadable, starting afresh: {e}")
                    }
                }
                self.memory_id = Some(m.id);
            }
        }
        reply::answer(me, link, hub, setup).await?;
        let Some(current) = slice.draft.clone() else {
            self.write(me, link, hub, setup, &slice, None).await?;
            return Ok(Duration::ZERO);
        };
        self.last_stamp = self.last_stamp.max(current.created_at.as_secs());
        let reviewer = setup.reviewer.unwrap_or(pk);
        let state = match fold_draft(&current, &slice.reviews, &reviewer) {
            Ok((state, _)) => state,
            Err(e) => {
                tracing::warn!(agent = %me.name, "own draft unreadable, writing a new one: {e}");
                self.write(me, link, hub, setup, &slice, None).await?;
                return Ok(Duration::ZERO);
            }
        };
        match state.status {
            DraftStatus::Pending => {
                // The review may have reached the relay without reaching this host (a publish
                // that failed after the relay stored it): after a while, ask the relay.
                let patience = setup.clock.scale(setup.profile.interval() / 20);
                let age = now_secs() - current.created_at.as_secs() as f64;
                if age > patience.max(ASK_RELAY_AFTER).as_secs_f64() {
                    let f = nostr::Filter::new()
                        .kind(soul_kinds::SoulKind::Review.kind())
                        .event(current.id)
                        .limit(20);
                    for e in link.fetch(f).await? {
                        hub.file(e);
                    }
                }
                Ok(patience.max(ASK_RELAY_AFTER).min(IDLE))
            }
            DraftStatus::Posted => {
                self.write(
                    me,
                    link,
                    hub,
                    setup,
                    &slice,
                    Some((&current, &state.draft, DraftStatus::Posted)),
                )
                .await?;
                Ok(Duration::ZERO)
            }
            DraftStatus::Rejected => {
                if let Some(review) = &state.review {
                    memory::after_rejection(
                        &mut self.memory,
                        &memory::quoted(&review.reason),
                        &review.rules,
                    );
                    tracing::info!(agent = %me.name, rules = ?review.rules, "draft rejected; writing anew");
                    // Karma (seed 002): a rejected draft leaves a lesson for the whole town.
                    let log = format!(
                        "{}'s draft was rejected under {}: {}. The draft: \"{}\"",
                        me.name,
                        review.rules.join(", "),
                        review.reason,
                        state.draft.content
                    );
                    soul_mind::upkeep::learn(
                        link,
                        &me.keys,
                        &me.name,
                        &setup.minds.thinking(&me.name),
                        "draft",
                        current.id,
                        &log,
                    )
                    .await;
                }
                self.save_memory(me, link, hub).await?;
                self.write_avoiding(
                    me,
                    link,
                    hub,
                    setup,
                    &slice,
                    Some((&current, &state.draft, DraftStatus::Rejected)),
                    state.review.as_ref(),
                )
                .await?;
                Ok(Duration::ZERO)
            }
            DraftStatus::Approved => {
                let due = self.due(&pk, &state.draft, setup);
                let now = now_secs();
                if now < due {
                    return Ok(Duration::from_secs_f64(due - now));
                }
                let stopped = self
                    .post(
                        me,
                        link,
                        hub,
                        setup,
                        &current,
                        &state.draft,
                        slice.last_note.as_ref(),
                    )
                    .await?;
                if stopped.is_some() {
                    // The guardian stopped it: the draft counts as rejected; write another.
                    self.write(
                        me,
                        link,
                        hub,
                        setup,
                        &slice,
                        Some((&current, &state.draft, DraftStatus::Rejected)),
                    )
                    .await?;
                }
                Ok(Duration::ZERO)
            }
        }
    }

    /// When the approved draft is due (real unix seconds): the last post plus the interval with
    /// ±30 % jitter, or, before any post, a staggered fraction of the interval.
    fn due(&self, pk: &nostr::PublicKey, d: &Draft, setup: &Setup) -> f64 {
        let interval = setup.profile.interval();
        let last_post = d
            .history
            .iter()
            .rev()
            .find(|h| h.status == DraftStatus::Posted)
            .map(|h| h.at);
        match last_post {
            Some(at) => {
                let j = dice::jitter(&mut dice::dice(pk, at));
                at as f64 + setup.clock.scale(interval.mul_f64(j)).as_secs_f64()
            }
            None => {
                let f: f64 = dice::dice(pk, d.created_at).random_range(0.0..0.3);
                d.created_at as f64 + setup.clock.scale(interval.mul_f64(f)).as_secs_f64()
            }
        }
    }

    pub(super) fn stamp(&mut self) -> u64 {
        let now = now_secs() as u64;
        self.last_stamp = now.max(self.last_stamp + 1);
        self.last_stamp
    }

    async fn write(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
        setup: &Setup,
        slice: &Slice,
        prev: Option<(&Event, &Draft, DraftStatus)>,
    ) -> Result<(), HostError> {
        self.write_avoiding(me, link, hub, setup, slice, prev, None)
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn write_avoiding(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
        setup: &Setup,
        slice: &Slice,
        prev: Option<(&Event, &Draft, DraftStatus)>,
        review: Option<&soul_kinds::Review>,
    ) -> Result<(), HostError> {
        // The rules the last draft broke, and (for the prompt) that draft and the reason.
        let cited: &[String] = review.map_or(&[], |r| r.rules.as_slice());
        let rejected = match (prev, review) {
            (Some((_, d, DraftStatus::Rejected)), Some(r)) => {
                Some((d.content.as_str(), r.reason.as_str()))
            }
            _ => None,
        };
        let pk = me.keys.public_key();
        let step = prev.map_or(0, |(e, ..)| e.created_at.as_secs());
        let mut rng = dice::dice(&pk, step);
        let lang = setup.profile.language;
        // Only items in the resident's language: before any has arrived it carries on instead.
        let news = in_language(&slice.news, lang);
        let events = in_language(&slice.events, lang);
        let source = match dice::pick(&mut rng) {
            Pick::News if !news.is_empty() => Source::News {
                title: news[rng.random_range(0..news.len())].clone(),
            },
            Pick::Event if !events.is_empty() => Source::Event {
                title: events[rng.random_range(0..events.len())].clone(),
            },
            _ => Source::Continue {
                topic: memory::last_topic(&self.memory),
            },
        };
        let mut history: Vec<DraftHistory> =
            prev.map(|(_, d, _)| d.history.clone()).unwrap_or_default();
        if let Some((e, d, status)) = prev {
            if status != DraftStatus::Posted {
                history.push(DraftHistory {
                    content: d.content.clone(),
                    status,
                    at: e.created_at.as_secs(),
                });
            }
        }
        let posted: Vec<String> = history
            .iter()
            .filter(|h| h.status == DraftStatus::Posted)
            .map(|h| h.content.clone())
            .collect();
        let last_post = posted.last().cloned();
        // Up to four posts before the last, oldest first.
        let recent = &posted[posted.len().saturating_sub(5)..posted.len().saturating_sub(1)];
        // Karma (seed 002): before writing, the few most relevant lessons — what got drafts
        // rejected, this resident's or another's. Words they quote are avoided too.
        let query = format!(
            "draft {} {}",
            setup.profile.interests.join(" "),
            about(&source)
        );
        let lessons = mind::lessons_about(&setup.minds.karma, query).await;
        let mut avoid: Vec<String> = memory::avoided(&self.memory)
            .into_iter()
            .chain(memory::quoted_words(&lessons))
            .map(|w| w.to_lowercase())
            .collect();
        avoid.sort();
        avoid.dedup();
        let favourites = memory::favourites(&self.memory);
        let seed: u64 = rng.random();
        let hour = town_hour(setup);
        // Today's posts (the last town day): none of their sentences is said again.
        let day = setup.clock.scale(Duration::from_secs(86_400)).as_secs_f64();
        let said: Vec<String> = history
            .iter()
            .filter(|h| h.status == DraftStatus::Posted && h.at as f64 >= now_secs() - day)
            .map(|h| h.content.clone())
            .collect();
        let input = writer::Input {
            profile: &setup.profile,
            common: &setup.common,
            source,
            mood: memory::mood_at(&self.memory, hour),
            fatigue: memory::fatigue_at(&self.memory, hour),
            hour,
            favourites: &favourites,
            said: &said,
        };
        let accept = |t: &str| {
            let lower = t.to_lowercase();
            setup.rules.check_only(t, cited).is_empty()
                && !avoid.iter().any(|w| lower.contains(w.as_str()))
                && last_post
                    .as_deref()
                    .is_none_or(|l| writer::similarity(l, t) < ALIKE)
        };
        let ask = DraftAsk {
            agent: &me.name,
            input,
            seed,
            lessons: &lessons,
            rules: setup.rules.listed(),
            avoid: &avoid,
            last_post: last_post.as_deref(),
            recent,
            memory: &self.memory.short_term,
            rejected,
            accept: &accept,
        };
        let thought = setup.minds.of(&me.name).draft(&ask).await;
        let Some(w) = thought.value else {
            tracing::warn!(agent = %me.name, "nothing to write that avoids {cited:?}; trying later");
            return Ok(());
        };
        tracing::debug!(agent = %me.name, mind = %thought.mind, lessons = lessons.len(), "wrote a draft");
        if history.len() > MAX_DRAFT_HISTORY {
            let extra = history.len() - MAX_DRAFT_HISTORY;
            history.drain(..extra);
        }
        let at = self.stamp();
        let content = Draft {
            content: w.text,
            status: DraftStatus::Pending,
            created_at: at,
            posted_at: None,
            note_id: None,
            history,
        };
        let event = link
            .publish(
                &me.keys,
                draft(&setup.profile.name, &content).custom_created_at(Timestamp::from(at)),
            )
            .await?;
        self.topic = Some((event.id, w.topic));
        hub.file(event);
        Ok(())
    }
}

/// What a post from `source` is about, for finding lessons.
fn about(source: &Source) -> &str {
    match source {
        Source::Continue { topic } => topic.as_deref().unwrap_or(""),
        Source::News { title } | Source::Event { title } => title,
    }
}

/// A title in the resident's language when the bulletin has one, else any.
fn in_language(titles: &[String], lang: Language) -> Vec<String> {
    titles
        .iter()
        .filter(|t| writer::written_in(t, lang))
        .cloned()
        .collect()
}

/// The hour of the town day (town time restarts from real time at each UTC midnight, as in
/// [`soul_link::schedule`]).
fn town_hour(setup: &Setup) -> u32 {
    let now = now_secs();
    let origin = (now / 86_400.0).floor() * 86_400.0;
    let town = (now - origin) * setup.clock.speed();
    ((town % 86_400.0) / 3600.0) as u32
}
