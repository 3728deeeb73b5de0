//! A resident's memory (34362), NIP-44 encrypted to itself, and the rules that update it.
//!
//! Only the resident's key can read it (the conversation key of a key with itself), so a
//! resident moves machines with its key alone and nobody else, not even the owner, reads it.
//! Updates are rules, not a model: after a post the topic goes into short-term memory (capped),
//! a topic that keeps coming back becomes a long-term favourite, fatigue rises and mood drifts;
//! after a rejection the quoted words become a long-term "avoid" lesson.

use crate::HostError;
use nostr::nips::nip44;
use nostr::{EventBuilder, Keys, PublicKey};
use soul_kinds::content::memory_builder;
use soul_kinds::MemoryContent;

/// Most short-term entries kept.
pub const SHORT_TERM: usize = 10;
/// Most long-term entries kept.
pub const LONG_TERM: usize = 30;
const POSTED: &str = "posted about ";
const FAVOURITE: &str = "likes: ";
const AVOID: &str = "avoid: ";

/// A fresh resident's memory.
pub fn fresh() -> MemoryContent {
    MemoryContent {
        short_term: Vec::new(),
        long_term: Vec::new(),
        mood: 0.6,
        fatigue: 0.0,
    }
}

/// Reads a memory event's content with the resident's keys.
pub fn open(keys: &Keys, ciphertext: &str) -> Result<MemoryContent, HostError> {
    let plain = nip44::decrypt(keys.secret_key(), &keys.public_key(), ciphertext)?;
    serde_json::from_str(&plain).map_err(HostError::MemoryJson)
}

/// Reads a memory that `author` encrypted to itself, with someone else's keys: always fails
/// unless `keys` are the author's (used to show that nobody else can read it).
pub fn open_as(
    keys: &Keys,
    author: &PublicKey,
    ciphertext: &str,
) -> Result<MemoryContent, HostError> {
    let plain = nip44::decrypt(keys.secret_key(), author, ciphertext)?;
    serde_json::from_str(&plain).map_err(HostError::MemoryJson)
}

/// The memory event, encrypted to `keys` itself.
pub fn seal(keys: &Keys, name: &str, memory: &MemoryContent) -> Result<EventBuilder, HostError> {
    let plain = serde_json::to_string(memory).map_err(HostError::MemoryJson)?;
    let cipher = nip44::encrypt(
        keys.secret_key(),
        &keys.public_key(),
        plain,
        nip44::Version::V2,
    )?;
    Ok(memory_builder(name, cipher))
}

/// The topic of the last post, for "continue".
pub fn last_topic(m: &MemoryContent) -> Option<String> {
    m.short_term
        .iter()
        .rev()
        .find_map(|s| s.strip_prefix(POSTED))
        .map(|s| s.split_once(": ").map_or(s, |(t, _)| t).to_string())
}

/// Long-term favourite topics.
pub fn favourites(m: &MemoryContent) -> Vec<String> {
    m.long_term
        .iter()
        .filter_map(|s| s.strip_prefix(FAVOURITE))
        .map(str::to_string)
        .collect()
}

/// Words the resident learnt to avoid.
pub fn avoided(m: &MemoryContent) -> Vec<String> {
    m.long_term
        .iter()
        .filter_map(|s| s.strip_prefix(AVOID))
        .map(|s| s.split_once(" (").map_or(s, |(w, _)| w).to_string())
        .collect()
}

/// After a post about `topic` (`snippet` is its start), `hours` town hours after the last one.
pub fn after_post(m: &mut MemoryContent, topic: &str, snippet: &str, hours: f64) {
    let short: String = snippet.chars().take(40).collect();
    m.short_term.push(format!("{POSTED}{topic}: {short}"));
    if m.short_term.len() > SHORT_TERM {
        let extra = m.short_term.len() - SHORT_TERM;
        m.short_term.drain(..extra);
    }
    let times = m
        .short_term
        .iter()
        .filter(|s| {
            s.strip_prefix(POSTED)
                .is_some_and(|r| r.starts_with(&format!("{topic}: ")))
        })
        .count();
    let fav = format!("{FAVOURITE}{topic}");
    if times >= 3 && !m.long_term.contains(&fav) {
        remember(m, fav);
    }
    // Rest between posts lowers fatigue; a post raises it. Mood drifts back towards 0.5 and a
    // published post is a small joy: it settles near 0.55, so the day's wave ([`mood_at`])
    // carries it above the writer's happy line in the afternoon and below its low line at night.
    m.fatigue = (m.fatigue - 0.1 * hours).clamp(0.0, 1.0);
    m.fatigue = (m.fatigue + 0.15).clamp(0.0, 1.0);
    m.mood = (m.mood + (0.5 - m.mood) * 0.2 + 0.01).clamp(0.0, 1.0);
}

/// How tired the resident is at town `hour`: what the posts left, or the day's own weariness,
/// whichever is more (nobody is fresh at midnight).
pub fn fatigue_at(m: &MemoryContent, hour: u32) -> f64 {
    let day = match hour % 24 {
        h @ 7..=23 => (h - 7) as f64 / 16.0 * 0.85,
        h => 0.85 - (h as f64 + 1.0) / 7.0 * 0.85,
    };
    m.fatigue.max(day).clamp(0.0, 1.0)
}

/// The resident's mood at town `hour`: its mood, up by day and down at night (a wave of ±0.25
/// peaking at 15:00).
pub fn mood_at(m: &MemoryContent, hour: u32) -> f64 {
    let phase = (hour % 24) as f64 - 9.0;
    (m.mood + 0.25 * (phase / 24.0 * std::f64::consts::TAU).sin()).clamp(0.0, 1.0)
}

/// After a rejection citing `rules` for the quoted `words`.
pub fn after_rejection(m: &mut MemoryContent, words: &[String], rules: &[String]) {
    for w in words {
        let lesson = format!("{AVOID}{w} ({})", rules.join(", "));
        if !avoided(m).contains(w) {
            remember(m, lesson);
        }
    }
    m.mood = (m.mood - 0.1).clamp(0.0, 1.0);
}

fn remember(m: &mut MemoryContent, entry: String) {
    m.long_term.push(entry);
    if m.long_term.len() > LONG_TERM {
        // Forget the oldest favourite first; lessons stay longest.
        let i = m
            .long_term
            .iter()
            .position(|s| s.starts_with(FAVOURITE))
            .unwrap_or(0);
        m.long_term.remove(i);
    }
}

/// The words a review's reason quotes (`mentions "president" (NG2: …)`).
pub fn quoted(reason: &str) -> Vec<String> {
    reason
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Longest quoted span of a lesson taken as a word to avoid: reviews quote the words that got
/// a draft rejected; a longer quote is a whole draft, not a word.
const MAX_QUOTED_WORD: usize = 32;

/// The words `lessons` quote (`mentions "X"`), to be avoided when writing.
pub fn quoted_words(lessons: &[String]) -> Vec<String> {
    lessons
        .iter()
        .flat_map(|l| quoted(l))
        .map(|w| w.trim().to_owned())
        .filter(|w| !w.is_empty() && w.chars().count() <= MAX_QUOTED_WORD)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lessons_give_the_words_they_quote_not_whole_drafts() {
        let lessons = vec![
            "A draft went wrong before: leo's draft was rejected under NG1: mentions \"Tanaka\" (NG1: real people's names). The draft: \"Had a lovely chat with Tanaka at the market this morning\". Check for this before trying again.".to_owned(),
            "Verify that a backup restores before trusting it".to_owned(),
        ];
        assert_eq!(quoted_words(&lessons), ["Tanaka"]);
    }

    #[test]
    fn only_the_resident_reads_its_memory() {
        let (me, other) = (Keys::generate(), Keys::generate());
        let mut m = fresh();
        after_post(&mut m, "basil", "Repotted the basil", 2.0);
        let ev = seal(&me, "ivy", &m).unwrap().sign_with_keys(&me).unwrap();
        assert_eq!(open(&me, &ev.content).unwrap(), m);
        assert!(open(&other, &ev.content).is_err());
        assert!(open_as(&other, &me.public_key(), &ev.content).is_err());
    }

    #[test]
    fn rules_update_memory() {
        let mut m = fresh();
        for i in 0..12 {
            after_post(&mut m, "basil", &format!("post {i}"), 0.5);
        }
        assert_eq!(m.short_term.len(), SHORT_TERM);
        assert_eq!(last_topic(&m).as_deref(), Some("basil"));
        assert_eq!(favourites(&m), vec!["basil".to_string()]);
        assert!(m.fatigue > 0.5);
        // The day shows: fresher in the morning than at night, happier in the afternoon.
        let rested = MemoryContent {
            fatigue: 0.0,
            mood: 0.55,
            ..fresh()
        };
        assert!(fatigue_at(&rested, 8) < 0.2 && fatigue_at(&rested, 23) > 0.6);
        assert!(mood_at(&rested, 15) > 0.65 && mood_at(&rested, 3) < 0.4);
        let words = quoted("mentions \"president\" (NG2: celebrities and politicians)");
        after_rejection(&mut m, &words, &["NG2".into()]);
        assert_eq!(avoided(&m), vec!["president".to_string()]);
    }
}
