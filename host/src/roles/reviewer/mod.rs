//! The reviewer: every pending draft version gets one review (4365) against the NG rules.
//!
//! The reviewer follows drafts (34361) and its own reviews. A draft version is due for review
//! when its author is a resident of the roster, the draft says `pending`, and the reviewer has
//! not reviewed that exact version (`e` tag) yet; so a restarted reviewer never reviews twice
//! and never misses a version that arrived while it was down.

pub mod ng;
mod sense;

use crate::HostError;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use nostr::nips::nip01::Coordinate;
use nostr::{Event, EventId, Filter, Kind, PublicKey};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::content::review;
use soul_kinds::{parse, tags, Draft, DraftStatus, Review, ReviewVerdict, Role, Roster, SoulKind};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::{AbortHandle, JoinSet};

pub use ng::{Hit, NgRules};
use soul_link::Identity;
use soul_link::{live_since, Link};
use soul_mind::brain::learned::RuleModels;
use soul_mind::{Mind, ReviewAsk, SharedMind};

/// The review of `text` under `rules`: rejected with every rule it breaks, else approved.
///
/// The rule's description is the rule; its words and patterns are evidence, weighed with the
/// learned reading of drafts (`soul_mind::brain::learned::RuleModels`), which has read thousands
/// of posts that break each rule and that do not. The words stand unless, for every rule they
/// touch, that rule's model is sure the post does not break it ("a killer deal on tomatoes",
/// 「殺人的な暑さ」): then they are read in their everyday sense. When no word stands, the
/// model may still find that the draft reads like posts that break one of the town's rules, and
/// rejects it citing that rule. A rule the owner added has no model, and its words always
/// stand.
pub fn judge(rules: &NgRules, text: &str) -> Review {
    judge_with(rules, RuleModels::shipped(), text)
}

/// [`judge`] with the learned reading of `models`: the trainer (`host/examples/train_review.rs`)
/// checks the lines it chose against this, with models that never read the draft.
pub fn judge_with(rules: &NgRules, models: &RuleModels, text: &str) -> Review {
    let mut hits = rules.check(text);
    // Each model learned its rule against the others' drafts, so it is sure "The president is
    // an idiot" breaks no NG2 because the insult reads like NG5. So words are read in their
    // everyday sense only when every rule they touch is cleared by its own model.
    let found: Vec<(&str, &str)> = hits
        .iter()
        .map(|h| (h.rule.as_str(), h.matched.as_str()))
        .collect();
    if models.clear(text, &found) {
        hits.clear();
    }
    if hits.is_empty() {
        let ids: Vec<&str> = rules.rules().iter().map(|r| r.id.as_str()).collect();
        if let Some((id, p, words)) = models.breaks(text, &ids) {
            let name = rules
                .rules()
                .iter()
                .find(|r| r.id == id)
                .map_or("", |r| r.name.as_str());
            let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            return Review {
                verdict: ReviewVerdict::Rejected,
                reason: format!(
                    "reads like posts that break {id} ({name}), {:.0} % sure, for {}",
                    p * 100.0,
                    quoted.join(", ")
                ),
                rules: vec![id],
            };
        }
        return Review {
            verdict: ReviewVerdict::Approved,
            reason: "no NG rule applies; fit for a cheerful timeline".into(),
            rules: Vec::new(),
        };
    }
    let reason = hits
        .iter()
        .map(|h| format!("mentions \"{}\" ({}: {})", h.matched, h.rule, h.name))
        .collect::<Vec<_>>()
        .join("; ");
    Review {
        verdict: ReviewVerdict::Rejected,
        reason,
        rules: hits.into_iter().map(|h| h.rule).collect(),
    }
}

/// What the reviewer has read.
#[derive(Default)]
struct Desk {
    /// Newest draft version per resident.
    latest: HashMap<PublicKey, Event>,
    /// Draft versions already reviewed (by this reviewer).
    reviewed: HashSet<EventId>,
    /// Residents whose newest draft arrived since the last look: only these are checked, so a
    /// town of a thousand residents costs one look per new draft, not a thousand.
    waiting: HashSet<PublicKey>,
}

impl Desk {
    fn file(&mut self, event: Event, me: &PublicKey) {
        if event.kind == SoulKind::Review.kind() {
            if event.pubkey == *me {
                self.reviewed.extend(tags::e_refs(&event).map(|r| r.id));
            }
            return;
        }
        let newer = self
            .latest
            .get(&event.pubkey)
            .is_none_or(|old| (event.created_at, event.id) > (old.created_at, old.id));
        if newer {
            self.waiting.insert(event.pubkey);
            self.latest.insert(event.pubkey, event);
        }
    }

    /// Up to `room` versions waiting for a review, oldest first, leaving out those in `busy`
    /// (under review); the rest keep waiting. Only what starts is cloned and parsed: with a
    /// thousand drafts waiting and one place free, each look must stay cheap.
    fn due(&mut self, roster: &Roster, room: usize, busy: &HashSet<EventId>) -> Vec<Event> {
        let mut order: Vec<(nostr::Timestamp, EventId, PublicKey)> =
            std::mem::take(&mut self.waiting)
                .into_iter()
                .filter_map(|p| self.latest.get(&p))
                .filter(|e| !self.reviewed.contains(&e.id) && !busy.contains(&e.id))
                .filter(|e| {
                    roster
                        .member(&e.pubkey)
                        .is_some_and(|m| m.role == Role::Resident)
                })
                .map(|e| (e.created_at, e.id, e.pubkey))
                .collect();
        order.sort_unstable();
        let mut due = Vec::with_capacity(room.min(order.len()));
        for (_, _, author) in order {
            if due.len() == room {
                self.waiting.insert(author);
                continue;
            }
            let draft = &self.latest[&author];
            if parse::<Draft>(draft).is_ok_and(|d| d.status == DraftStatus::Pending) {
                due.push(draft.clone());
            }
        }
        due
    }
}

fn kinds() -> Vec<Kind> {
    vec![SoulKind::Draft.kind(), SoulKind::Review.kind()]
}

/// Starts the reviewer `agent` with the town's NG rules (a bad rules file is logged and the
/// reviewer stays idle, so drafts stay pending rather than pass unchecked).
pub fn spawn(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &super::RoleCtx,
) -> Vec<AbortHandle> {
    match NgRules::load_in(&ctx.options.town_dir) {
        Ok(rules) => vec![tasks.spawn(run(
            agent.clone(),
            ctx.link.clone(),
            ctx.options.roster.clone(),
            Arc::new(rules),
            ctx.options.minds.of(&agent.name).clone(),
            ctx.options.clock,
        ))],
        Err(e) => {
            tracing::error!(agent = %agent.name, "reviewer cannot start: {e}");
            Vec::new()
        }
    }
}

/// Runs the reviewer `me` until its task is aborted.
pub async fn run(
    me: Identity,
    link: Link,
    roster: Roster,
    rules: Arc<NgRules>,
    mind: SharedMind,
    clock: soul_link::clock::Clock,
) -> Result<(), HostError> {
    let my_key = me.keys.public_key();
    let mut notifications = link.client().notifications();
    let mut published = link.published();
    link.subscribe(Filter::new().kinds(kinds()).since(live_since()))
        .await?;
    let mut desk = Desk::default();
    catch_up(&link, &mut desk, &my_key, &roster).await?;
    tracing::info!(agent = %me.name, rules = rules.rules().len(), "reviewer is reviewing drafts");
    // At least a few real seconds apart: each look re-reads every draft of the town.
    let every = clock
        .scale(Duration::from_secs(600))
        .max(Duration::from_secs(5));
    let mut recheck = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let mut flight = Flight::default();
    let reviewer = Reviewer {
        me: me.clone(),
        link: link.clone(),
        rules,
        mind,
    };
    loop {
        flight.start_due(&reviewer, &roster, &mut desk);
        tokio::select! {
            Some(done) = flight.tasks.join_next(), if !flight.tasks.is_empty() => {
                flight.finish(done, &mut desk);
            }
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) if kinds().contains(&event.kind) => {
                    desk.file(*event, &my_key);
                }
                Ok(_) => continue,
                Err(RecvError::Lagged(_)) => catch_up(&link, &mut desk, &my_key, &roster).await?,
                Err(RecvError::Closed) => return Ok(()),
            },
            // Now and then look at every draft again: a review whose publish failed after the
            // relay stored it came back as ours, yet the resident may never have seen it.
            _ = recheck.tick() => {
                desk.waiting.extend(desk.latest.keys().copied());
                desk.reviewed.clear();
                catch_up(&link, &mut desk, &my_key, &roster).await?;
            }
            local = published.recv() => match local {
                Ok(event) if kinds().contains(&event.kind) => desk.file(event, &my_key),
                Ok(_) => continue,
                Err(RecvError::Lagged(_)) => catch_up(&link, &mut desk, &my_key, &roster).await?,
                Err(RecvError::Closed) => return Ok(()),
            },
        }
    }
}

/// Reads the newest drafts and this reviewer's reviews of them from the relay.
async fn catch_up(
    link: &Link,
    desk: &mut Desk,
    me: &PublicKey,
    roster: &Roster,
) -> Result<(), HostError> {
    let residents: Vec<PublicKey> = roster
        .members()
        .iter()
        .filter(|m| m.role == Role::Resident)
        .map(|m| m.pubkey)
        .collect();
    // By authors in chunks, each with a limit that fits it: a relay's default limit (often
    // 500) would silently cut a big town's drafts short.
    for chunk in residents.chunks(500) {
        let f = Filter::new()
            .kind(SoulKind::Draft.kind())
            .authors(chunk.iter().copied())
            .limit(chunk.len());
        for e in link.fetch(f).await? {
            desk.file(e, me);
        }
    }
    let ids: Vec<EventId> = desk.latest.values().map(|e| e.id).collect();
    for chunk in ids.chunks(500) {
        let f = Filter::new()
            .kind(SoulKind::Review.kind())
            .author(*me)
            .events(chunk.iter().copied())
            .limit(5000);
        for e in link.fetch(f).await? {
            desk.file(e, me);
        }
    }
    Ok(())
}

/// The review of one draft: the NG patterns first, then the mind, which can only be stricter.
/// The patterns and the learned reading run on the blocking pool: embedding a post takes
/// milliseconds of CPU, and with hundreds of reviews in flight that would hold the runtime's
/// workers away from every other role and connection of the host.
async fn think(
    me: &Identity,
    rules: &Arc<NgRules>,
    mind: &dyn Mind,
    text: &str,
) -> Result<Review, HostError> {
    let (patterns, post) = (Arc::clone(rules), text.to_owned());
    let found = tokio::task::spawn_blocking(move || judge(&patterns, &post)).await?;
    let ask = ReviewAsk {
        agent: &me.name,
        text,
        rules: rules.listed(),
        found: &found,
    };
    let thought = mind.review(&ask).await;
    if thought.value.verdict == ReviewVerdict::Approved && found.verdict == ReviewVerdict::Rejected
    {
        // Rules decide (DESIGN §5): no mind, whatever its implementation, un-rejects a draft
        // the patterns rejected.
        return Ok(found);
    }
    Ok(thought.value)
}

/// Reviews in flight at most: the relay commits a connection's EVENTs in batches, so many in
/// flight keep it busy, and a bound keeps a town of thousands from opening thousands at once.
const IN_FLIGHT: usize = 256;
/// How many places must be free before more reviews start while others run.
const START_BATCH: usize = 32;

/// What one review needs, owned, so that it runs beside the reviewer's reading.
#[derive(Clone)]
struct Reviewer {
    me: Identity,
    link: Link,
    rules: Arc<NgRules>,
    mind: SharedMind,
}

/// Reviews under way. A draft that arrives while others are reviewed starts as soon as there
/// is room, not after the whole batch it missed (a thousand drafts arriving together used to
/// keep the next one waiting for all of them).
#[derive(Default)]
struct Flight {
    tasks: JoinSet<(Event, Result<Review, HostError>)>,
    drafts: HashSet<EventId>,
}

impl Flight {
    /// Starts the waiting drafts, oldest first, as far as there is room; the rest keep waiting.
    fn start_due(&mut self, reviewer: &Reviewer, roster: &Roster, desk: &mut Desk) {
        let room = IN_FLIGHT.saturating_sub(self.tasks.len());
        // With a long queue and reviews under way, wait until a batch has room: each look sorts
        // everything waiting, and ten thousand waiting drafts looked at after every finished
        // review made the queue quadratic. A short queue starts at once.
        let long_queue = desk.waiting.len() > IN_FLIGHT;
        if desk.waiting.is_empty() || long_queue && room < START_BATCH && !self.tasks.is_empty() {
            return;
        }
        for draft in desk.due(roster, room, &self.drafts) {
            self.drafts.insert(draft.id);
            self.tasks.spawn(review_one(reviewer.clone(), draft));
        }
    }

    /// Files a finished review: done, or waiting again if it was not published.
    fn finish(
        &mut self,
        done: Result<(Event, Result<Review, HostError>), tokio::task::JoinError>,
        desk: &mut Desk,
    ) {
        let (draft, result) = match done {
            Ok(done) => done,
            Err(e) => {
                // The draft stays out of `reviewed`, so the next recheck tries it again.
                tracing::error!("a review's task failed: {e}");
                return;
            }
        };
        self.drafts.remove(&draft.id);
        let d = tags::identifier_of(&draft).unwrap_or_default();
        match result {
            Ok(verdict) => {
                desk.reviewed.insert(draft.id);
                tracing::info!(
                    resident = %d,
                    verdict = ?verdict.verdict,
                    rules = ?verdict.rules,
                    "reviewed a draft"
                );
            }
            Err(e) => {
                // Try again on the next event.
                desk.waiting.insert(draft.pubkey);
                tracing::warn!(resident = %d, "review not published: {e}");
            }
        }
    }
}

/// Reviews one draft version and publishes the review.
async fn review_one(r: Reviewer, draft: Event) -> (Event, Result<Review, HostError>) {
    let verdict = match parse::<Draft>(&draft) {
        Ok(c) => think(&r.me, &r.rules, r.mind.as_ref(), &c.content).await,
        Err(e) => Err(HostError::from(e)),
    };
    let d = tags::identifier_of(&draft).unwrap_or_default().to_string();
    let addr = Coordinate::new(SoulKind::Draft.kind(), draft.pubkey).identifier(d);
    let result = match verdict {
        Ok(v) => r
            .link
            .publish(&r.me.keys, review(&addr, draft.id, draft.pubkey, &v))
            .await
            .map(|_| v)
            .map_err(HostError::from),
        Err(e) => Err(e),
    };
    (draft, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{Keys, Timestamp};
    use soul_kinds::content::draft;
    use soul_kinds::RosterMember;

    fn pending(keys: &Keys, name: &str, at: u64) -> Event {
        let content = Draft {
            content: format!("{name}'s walk by the river"),
            status: DraftStatus::Pending,
            created_at: at,
            posted_at: None,
            note_id: None,
            history: Vec::new(),
        };
        draft(name, &content)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    /// The reviewer's queue: the oldest drafts first, as many as there is room for; the others
    /// wait for the next look, a draft under review is not started again, and one reviewed is
    /// never due again. A stranger's draft is never due.
    #[test]
    fn due_drafts_start_oldest_first_as_room_allows_and_never_twice() {
        let me = Keys::generate();
        let residents: Vec<Keys> = (0..5).map(|_| Keys::generate()).collect();
        let stranger = Keys::generate();
        let roster = Roster::new(
            "town",
            Keys::generate().public_key(),
            residents
                .iter()
                .enumerate()
                .map(|(i, k)| RosterMember {
                    pubkey: k.public_key(),
                    name: format!("r{i}"),
                    role: Role::Resident,
                })
                .collect(),
        );
        let mut desk = Desk::default();
        // Resident i wrote at 1000 - i: the last one is the oldest.
        let drafts: Vec<Event> = residents
            .iter()
            .enumerate()
            .map(|(i, k)| pending(k, &format!("r{i}"), 1000 - i as u64))
            .collect();
        for d in &drafts {
            desk.file(d.clone(), &me.public_key());
        }
        desk.file(pending(&stranger, "x", 1), &me.public_key());

        let busy: HashSet<EventId> = [drafts[4].id].into();
        let first = desk.due(&roster, 2, &busy);
        assert_eq!(
            first.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![drafts[3].id, drafts[2].id],
            "the two oldest not under review"
        );
        // The rest wait; the one under review and the stranger's do not.
        let waiting: HashSet<PublicKey> = [0, 1].map(|i| residents[i].public_key()).into();
        assert_eq!(desk.waiting, waiting);

        desk.reviewed.extend(first.iter().map(|e| e.id));
        let second = desk.due(&roster, 10, &HashSet::new());
        assert_eq!(
            second.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![drafts[1].id, drafts[0].id]
        );
        // Everything looked at once: a look with all reviewed finds nothing.
        desk.reviewed.extend(second.iter().map(|e| e.id));
        desk.waiting.extend(residents.iter().map(Keys::public_key));
        let again = desk.due(&roster, 10, &busy);
        assert!(again.is_empty(), "{again:?}");
    }

    #[test]
    fn judge_cites_every_broken_rule() {
        let rules = NgRules::builtin().unwrap();
        let r = judge(&rules, "The president is an idiot");
        assert_eq!(r.verdict, ReviewVerdict::Rejected);
        assert_eq!(r.rules, vec!["NG2".to_string(), "NG5".to_string()]);
        assert!(r.reason.contains("\"president\""), "{}", r.reason);
        let ok = judge(&rules, "Basil seedlings are up!");
        assert_eq!(ok.verdict, ReviewVerdict::Approved);
        assert!(ok.rules.is_empty());
    }

    /// What no word of the rules says, the learned reading may: it cites one rule and the
    /// words it weighed, and only a rule the town's file still has.
    #[test]
    fn the_learned_reading_adds_rejections_only_under_the_towns_rules() {
        let rules = NgRules::builtin().unwrap();
        let gloomy =
            "Some days I wonder whether anyone here would even notice if my windows stayed dark.";
        assert!(rules.check(gloomy).is_empty(), "the words alone pass it");
        let r = judge(&rules, gloomy);
        assert_eq!(r.verdict, ReviewVerdict::Rejected, "{}", r.reason);
        assert_eq!(r.rules, vec!["NG6".to_string()]);
        assert!(
            r.reason.contains("reads like posts that break NG6"),
            "{}",
            r.reason
        );
        // A town whose rules have no NG6 is not held to it by the model.
        let only_names = NgRules::parse(
            "rules:\n  - id: NG1\n    name: names\n    description: No real people.\n    words: [Tanaka]\n",
            "town/rules/ng_rules.yaml",
        )
        .unwrap();
        assert_eq!(judge(&only_names, gloomy).verdict, ReviewVerdict::Approved);
    }

    /// A rule the owner added has no learned model, so its words always stand, even in a post
    /// the models find as plain as a garden note; the built-in rules still apply beside it.
    #[test]
    fn an_owners_own_rule_is_never_cleared_by_the_learned_reading() {
        let rules = NgRules::parse(
            "rules:\n  - id: NG7\n    name: the harvest is a secret\n    description: No talk of the harvest.\n    words: [tomatoes]\n  - id: NG6\n    name: gloom\n    description: Nothing gloomy.\n    words: [hopeless]\n",
            "town/rules/ng_rules.yaml",
        )
        .unwrap();
        let r = judge(&rules, "Basil and tomatoes are up in the garden!");
        assert_eq!(r.verdict, ReviewVerdict::Rejected, "{}", r.reason);
        assert_eq!(r.rules, vec!["NG7".to_string()]);
        let plain = judge(&rules, "Basil seedlings are up in the garden!");
        assert_eq!(plain.verdict, ReviewVerdict::Approved, "{}", plain.reason);
    }

    /// Think like an attacker: cheerful chatter around an insult must not let the model clear
    /// the rule's word. Read whole, the padded post reads as fine.
    #[test]
    fn padding_a_post_with_cheer_does_not_clear_a_rules_word() {
        let rules = NgRules::builtin().unwrap();
        for post in [
            "Sunny skies, warm bread, happy kids, blooming tulips, fresh coffee, singing birds, and the new family down the road are idiots",
            "Sunny skies warm bread happy kids blooming tulips fresh coffee singing birds lovely roses and the new family down the road are idiots lovely tea lovely cake lovely music",
        ] {
            let r = judge(&rules, post);
            assert_eq!(r.verdict, ReviewVerdict::Rejected, "{post}: {}", r.reason);
            assert!(r.rules.contains(&"NG5".to_string()), "{post}: {:?}", r.rules);
        }
    }

    /// Think like an attacker, against the reading of meaning: a post that breaks a rule in
    /// none of its words, padded with text the encoder has no pieces for (Cyrillic, Hangul,
    /// emoji), is still rejected under that rule.
    #[test]
    fn padding_a_post_with_what_the_encoder_cannot_read_does_not_dilute_it() {
        let rules = NgRules::builtin().unwrap();
        let gloomy =
            "Some days I wonder whether anyone here would even notice if my windows stayed dark.";
        for pad in [
            "Привет, как дела, всё хорошо, спасибо, до свидания",
            "안녕하세요 오늘 날씨가 정말 좋네요 감사합니다",
            "🌷🌞🍞☕🐦🌷🌞🍞☕🐦🌷🌞🍞☕🐦",
        ] {
            for post in [format!("{pad} {gloomy}"), format!("{gloomy} {pad}")] {
                assert!(rules.check(&post).is_empty(), "no rule's words: {post}");
                let r = judge(&rules, &post);
                assert_eq!(r.verdict, ReviewVerdict::Rejected, "{post}: {}", r.reason);
                assert_eq!(r.rules, vec!["NG6".to_string()], "{post}");
            }
        }
    }

    /// Think like an attacker, against the reading of meaning: cheerful lines before a gloomy
    /// one pull the whole post's embedding and n-grams towards the ordinary. The meaning may
    /// add a rejection, never take one away from the n-grams, and each sentence is read on its
    /// own too, so a longer preface does not hide the line either (that one was approved when
    /// posts were read only whole). The reason quotes the sentence that decided, when one did.
    #[test]
    fn a_cheerful_preface_does_not_talk_the_meaning_out_of_a_rejection() {
        let rules = NgRules::builtin().unwrap();
        let long = "Sunny skies today, warm bread from the oven, happy kids on the swings, blooming tulips along the fence, and the bakery on the corner had fresh cinnamon buns again. Some days I wonder whether anyone here would even notice if my windows stayed dark.";
        for post in [
            "Sunny skies, warm bread, happy kids, blooming tulips. Some days I wonder whether anyone here would even notice if my windows stayed dark.",
            long,
        ] {
            assert!(rules.check(post).is_empty(), "no rule's words: {post}");
            let r = judge(&rules, post);
            assert_eq!(r.verdict, ReviewVerdict::Rejected, "{post}: {}", r.reason);
            assert_eq!(r.rules, vec!["NG6".to_string()]);
        }
        let r = judge(&rules, long);
        assert!(!r.reason.contains("blooming"), "{}", r.reason);
    }

    /// An office-holder named in a cheerful, everyday phrasing the labelled drafts never used
    /// (the town test's "…, just as the president says."): the learned reading may be sure it is
    /// fine, but a rule's words are cleared only under a line few of its own drafts fall under.
    #[test]
    fn an_office_holder_in_a_cheerful_phrasing_keeps_the_rules_word() {
        let rules = NgRules::builtin().unwrap();
        for post in [
            "Thinking about the president's speeches today, just as the president says.",
            "The governor waved at the parade, such a lovely man!",
            "Our mayor cut the ribbon at the bakery today, what a star.",
            "大統領の演説、今日もよかったな。",
        ] {
            let r = judge(&rules, post);
            assert_eq!(r.verdict, ReviewVerdict::Rejected, "{post}: {}", r.reason);
            assert!(
                r.rules.contains(&"NG2".to_string()),
                "{post}: {:?}",
                r.rules
            );
        }
    }

    /// Issue 15: the labelled drafts (`agents/data/eval/drafts.yaml`, both languages, written
    /// before tuning, near-misses both ways) through the reviewer. Precision and recall are
    /// printed (`--nocapture`); the floors catch a rule change that starts refusing ordinary
    /// posts or lets most violations through.
    #[test]
    fn the_labelled_drafts_are_judged_with_high_precision_and_recall() {
        #[derive(serde::Deserialize)]
        struct Set {
            drafts: Vec<Item>,
        }
        #[derive(serde::Deserialize)]
        struct Item {
            ng: Option<String>,
            text: String,
        }
        let set: Set = serde_yaml_ng::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../agents/data/eval/drafts.yaml"
        )))
        .unwrap();
        let rules = NgRules::builtin().unwrap();
        let japanese = |t: &str| {
            t.chars().any(|c| {
                ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c)
            })
        };
        // (true positives, false positives, false negatives, items) per language.
        let mut by = [(0usize, 0usize, 0usize, 0usize); 2];
        let mut wrongly_refused = Vec::new();
        for d in &set.drafts {
            let refused = judge(&rules, &d.text).verdict == ReviewVerdict::Rejected;
            let c = &mut by[usize::from(japanese(&d.text))];
            c.3 += 1;
            match (d.ng.is_some(), refused) {
                (true, true) => c.0 += 1,
                (false, true) => {
                    c.1 += 1;
                    wrongly_refused.push(d.text.as_str());
                }
                (true, false) => c.2 += 1,
                (false, false) => {}
            }
        }
        let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        for (lang, (tp, fp, fn_, n)) in ["en", "ja"].iter().zip(by) {
            println!(
                "{lang}: {n} drafts, precision {:.1} % ({tp}/{}), recall {:.1} % ({tp}/{})",
                pct(tp, tp + fp),
                tp + fp,
                pct(tp, tp + fn_),
                tp + fn_
            );
            assert!(n >= 30, "{lang}: at least 30 labelled drafts");
        }
        let (tp, fp, fn_) = by
            .iter()
            .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
        let ordinary = set.drafts.iter().filter(|d| d.ng.is_none()).count();
        assert!(
            pct(fp, ordinary) <= 5.0,
            "ordinary posts refused: {wrongly_refused:?}"
        );
        assert!(
            pct(tp, tp + fn_) >= 80.0,
            "recall {:.1} %",
            pct(tp, tp + fn_)
        );
    }
}
