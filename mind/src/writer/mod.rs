//! The residents' built-in writer: offline posts that read like the person in the profile.
//!
//! A post is put together from the profile (interests, positive prompts, style endings, emoji),
//! what the resident chose to write about (continue its last post, a news item, a town event),
//! its memory (mood, fatigue, favourite topics) and the town hour, so posts vary across a day.
//! Phrases live in one data file per language (`mind/data/writer/{ja,en}.yaml`, see [`bank`]);
//! the code only says how they combine: a sentence already posted today is not posted again, a
//! "continue" is only ever about the resident's own topic, the resident's ending is attached by
//! the grammar of the clause it ends ([`ending`]), and English sentences start with a capital.
//! Every choice comes from the caller's seeded random source, so the same inputs give the same
//! post.
//!
//! The writer never sees NG rules itself: the caller passes an `accept` check (the NG rules the
//! last draft broke, the words the reviewer quoted, and "not like the previous post"), and the
//! writer tries other choices until one passes.

pub mod bank;
mod ending;

use std::collections::HashSet;

use rand::seq::IndexedRandom;
use rand::Rng;

use crate::profile::{Common, Language, Profile};
use bank::{Bank, Slot};

/// What the post is about (seed 001's 70/20/10 draw decides which).
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Carry on from the last post; `topic` is what it was about (none for a first post).
    Continue {
        /// The last post's topic.
        topic: Option<String>,
    },
    /// React to a news item from the bulletin.
    News {
        /// The item's title.
        title: String,
    },
    /// React to a town event.
    Event {
        /// The event's title.
        title: String,
    },
}

/// Everything the writer reads.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    /// Who writes.
    pub profile: &'a Profile,
    /// The town's shared rules (length).
    pub common: &'a Common,
    /// What about.
    pub source: Source,
    /// 0 (low) ..= 1 (high).
    pub mood: f64,
    /// 0 (fresh) ..= 1 (worn out).
    pub fatigue: f64,
    /// Hour of the town day, 0..24.
    pub hour: u32,
    /// Favourite topics from long-term memory.
    pub favourites: &'a [String],
    /// What the resident posted today: none of their sentences is posted again.
    pub said: &'a [String],
}

/// A written post and the topic it is about (kept in memory for the next "continue").
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The text.
    pub text: String,
    /// Its topic.
    pub topic: String,
}

fn bank(lang: Language) -> &'static Bank {
    bank::of(lang)
}

/// The sentences of `text`, normalised (lower case, no closing marks or emoji), to tell a
/// sentence already said.
pub fn sentences(text: &str) -> Vec<String> {
    text.split(['。', '！', '？', '!', '?', '.', '…'])
        .map(|s| {
            s.chars()
                .filter(|c| {
                    c.is_alphanumeric()
                        || c.is_whitespace()
                        || matches!(c, '「' | '」' | '、' | ',' | '\'')
                })
                .collect::<String>()
                .trim()
                .to_lowercase()
        })
        .filter(|s| s.chars().count() > 1)
        .collect()
}

/// Whether `text` says one of the sentences `old` (see [`sentences`]).
fn repeats(text: &str, old: &HashSet<String>) -> bool {
    sentences(text).iter().any(|s| old.contains(s))
}

/// One post; tries up to 24 sets of choices until `accept` passes, then falls back to a plain
/// everyday line that `accept` is asked about too (`None` when even that fails).
pub fn write(
    input: &Input<'_>,
    rng: &mut impl Rng,
    accept: impl Fn(&str) -> bool,
) -> Option<Written> {
    // Today's sentences, read once for all the tries.
    let old: HashSet<String> = input.said.iter().flat_map(|p| sentences(p)).collect();
    for attempt in 0..24 {
        // After a few refusals, drop the source: whatever it was about may be what is refused.
        let source = if attempt < 8 {
            input.source.clone()
        } else {
            Source::Continue { topic: None }
        };
        let w = compose(input, &source, rng);
        if !repeats(&w.text, &old) && accept(&w.text) {
            return Some(w);
        }
    }
    let b = bank(input.profile.language);
    let shared: Vec<&String> = input
        .common
        .positive_prompts
        .iter()
        .filter(|x| written_in(x, input.profile.language))
        .collect();
    let topic = shared
        .choose(rng)
        .map(|s| s.to_string())
        .unwrap_or_else(|| b.fallback_topic.to_string());
    // Plain, with the bank's own ending: the resident's ending may be what is refused.
    let plain = fill(&b.plain, &topic);
    let text = match input.profile.language {
        Language::Ja => ending::ja(&plain, "。"),
        Language::En => ending::en(&plain, "."),
    };
    accept(&text).then_some(Written { text, topic })
}

/// A short reply to `author_name`; `depth` (how many times this resident already answered in
/// the thread) picks an opening or a follow-up line.
pub fn reply(profile: &Profile, author_name: &str, depth: usize, rng: &mut impl Rng) -> String {
    let b = bank(profile.language);
    let line = if depth == 0 {
        &b.reply_open
    } else {
        &b.reply_more
    }
    .choose(rng)
    .map_or("{name}", String::as_str);
    let topic = profile
        .interests
        .choose(rng)
        .map(String::as_str)
        .unwrap_or("");
    let text = line
        .replace("{name}", author_name)
        .replace("{topic}", topic);
    finish(vec![text], profile, b, rng)
}

fn compose(input: &Input<'_>, source: &Source, rng: &mut impl Rng) -> Written {
    let p = input.profile;
    let b = bank(p.language);
    let slot = Slot::of_hour(input.hour);
    let mut parts: Vec<String> = Vec::new();
    if rng.random_bool(0.6) {
        if let Some(o) = b.openers(slot).choose(rng) {
            parts.push(o.to_string());
        }
    }
    // A "continue" is about the resident's own topic only: the last post may have been about a
    // headline or an event, and "more of the headline" is nobody's post.
    let own = |t: &String| p.interests.contains(t) || input.favourites.contains(t);
    // A headline or an event is never the resident's topic: the post is remembered under one
    // of its own interests, so the next "continue" cannot carry on the headline.
    let interest = || {
        p.interests
            .first()
            .cloned()
            .unwrap_or_else(|| b.fallback_topic.to_string())
    };
    let (body, topic) = match source {
        Source::News { title } => (fill(pick(&b.news, rng), title), interest()),
        Source::Event { title } => (fill(pick(&b.event, rng), title), interest()),
        Source::Continue { topic: Some(t) } if own(t) && rng.random_bool(0.8) => {
            (fill(pick(&b.cont, rng), t), t.clone())
        }
        Source::Continue { .. } => {
            let pool: Vec<&String> = p.interests.iter().chain(input.favourites).collect();
            let t = pool
                .choose(rng)
                .map(|s| s.to_string())
                .unwrap_or_else(|| b.fallback_topic.to_string());
            (fill(pick(&b.fresh, rng), &t), t)
        }
    };
    parts.push(body);
    if rng.random_bool(0.45) {
        let extra: Vec<&String> = p
            .positive_prompts
            .iter()
            // The town's shared prompts come in both languages: use those in the resident's.
            .chain(
                input
                    .common
                    .positive_prompts
                    .iter()
                    .filter(|x| written_in(x, p.language)),
            )
            .collect();
        if let Some(x) = extra.choose(rng) {
            parts.push(fill(pick(&b.aside, rng), x));
        }
    }
    if input.fatigue > 0.6 && rng.random_bool(0.7) {
        parts.push(pick(&b.tired, rng).to_string());
    } else if input.mood > 0.65 && rng.random_bool(0.6) {
        parts.push(pick(&b.happy, rng).to_string());
    } else if input.mood < 0.35 && rng.random_bool(0.6) {
        parts.push(pick(&b.low, rng).to_string());
    }
    let mut text = finish(parts, p, b, rng);
    if !p.emoji.is_empty() && rng.random_bool(0.35) {
        text.push_str(&p.emoji[rng.random_range(0..p.emoji.len())]);
    }
    Written {
        text: cut(&text, input.common.max_post_chars),
        topic,
    }
}

/// Whether `text` reads as `lang`: any kana or kanji makes it Japanese.
pub fn written_in(text: &str, lang: Language) -> bool {
    let ja = text
        .chars()
        .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c));
    ja == (lang == Language::Ja)
}

/// The parts joined into sentences, the resident's ending (or the bank's) attached to the last
/// by grammar, English sentences capitalised.
fn finish(parts: Vec<String>, p: &Profile, b: &Bank, rng: &mut impl Rng) -> String {
    let endings = if p.endings.is_empty() {
        &b.endings
    } else {
        &p.endings
    };
    let chosen = pick(endings, rng);
    match p.language {
        Language::Ja => {
            let (last, before) = parts.split_last().expect("a post has a body");
            let mut text: String = before
                .iter()
                .map(|s| ending::ja(s, "。"))
                .collect::<Vec<_>>()
                .concat();
            text.push_str(&ending::ja(last, chosen));
            text
        }
        Language::En => {
            let (last, before) = parts.split_last().expect("a post has a body");
            let mut text: Vec<String> = before.iter().map(|s| ending::en(s, ".")).collect();
            text.push(ending::en(last, chosen));
            text.join(" ")
        }
    }
}

fn pick<'a>(list: &'a [String], rng: &mut impl Rng) -> &'a str {
    list.choose(rng).map_or("", String::as_str)
}

fn fill(template: &str, topic: &str) -> String {
    template.replace("{t}", topic)
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// How alike two posts are: Jaccard similarity of their character bigrams, 0..=1.
pub fn similarity(a: &str, b: &str) -> f64 {
    use std::collections::HashSet;
    let grams = |s: &str| -> HashSet<(char, char)> {
        let c: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        c.windows(2).map(|w| (w[0], w[1])).collect()
    };
    let (x, y) = (grams(a), grams(b));
    if x.is_empty() && y.is_empty() {
        return 1.0;
    }
    x.intersection(&y).count() as f64 / x.union(&y).count() as f64
}

#[cfg(test)]
mod tests;
