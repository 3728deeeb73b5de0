//! The built-in writer over 30 town days: every template resident (`residents/*.yaml`, both
//! languages) posts at its profile's interval with ±30 % jitter, drawing what to write about as
//! the resident role does (70 % continue, 20 % news, 10 % event, from the shipped bulletin), its
//! memory updated after each post as the role updates it (`soul_host::roles::resident::memory`).
//!
//! `cargo bench -p soul-agents --bench writer [-- --days N] [-- --show N]`
//!
//! Prints, per language: the share of sentences a resident already posted the same town day,
//! the share of posts that "continue" something that is not the resident's own topic (a
//! headline or an event), and the share of posts with a happy, low or tired line, by part of
//! the day. `--show N` prints N posts of the first resident of each language.

use std::collections::HashSet;
use std::path::Path;

use nostr::Keys;
use rand::Rng;
use soul_host::roles::resident::{dice, memory};
use soul_host::roles::reviewer::{judge, NgRules};
use soul_kinds::ReviewVerdict;
use soul_mind::profile::{load_all, Language};
use soul_mind::writer::bank::{self, Slot};
use soul_mind::writer::{self, sentences, similarity, Source};

/// Titles of the shipped bulletin's feeds and events, by language.
fn bulletin(root: &Path) -> (Vec<String>, Vec<String>) {
    let mut news = Vec::new();
    for f in ["sample-feed.xml", "sample-feed-ja.xml", "sample-atom.xml"] {
        let text = std::fs::read_to_string(root.join("bulletin").join(f)).unwrap();
        // Every <title> but the channel's own (the first).
        news.extend(
            text.split("<title>")
                .skip(2)
                .filter_map(|s| s.split("</title>").next())
                .map(str::to_owned),
        );
    }
    let sources = std::fs::read_to_string(root.join("bulletin/sources.yaml")).unwrap();
    let events = sources
        .lines()
        .filter_map(|l| l.split("{title: ").nth(1))
        .filter_map(|l| l.split(',').next())
        .map(str::to_owned)
        .collect();
    (news, events)
}

#[derive(Default)]
struct Tally {
    posts: usize,
    sentences: usize,
    repeated: usize,
    foreign_continue: usize,
    /// Posts the offline reviewer would reject (each is an ordinary post refused).
    rejected: usize,
    /// (posts, happy, low, tired) by slot: morning, day, evening, night.
    by_slot: [(usize, usize, usize, usize); 4],
}

fn slot_index(hour: u32) -> usize {
    match Slot::of_hour(hour) {
        Slot::Morning => 0,
        Slot::Day => 1,
        Slot::Evening => 2,
        Slot::Night => 3,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (days, show) = (arg("--days", 30), arg("--show", 0));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (common, profiles) = load_all(&root).expect("residents/");
    let (news, events) = bulletin(&root);
    // What the reporter would publish: the NG rules drop politics, incidents and the like.
    let rules = NgRules::builtin().expect("built-in NG rules");
    let fit = |t: &String| judge(&rules, t).verdict == ReviewVerdict::Approved;
    let news: Vec<String> = news.into_iter().filter(fit).collect();
    let in_lang = |list: &[String], lang: Language| -> Vec<String> {
        list.iter()
            .filter(|t| writer::written_in(t, lang))
            .cloned()
            .collect()
    };
    for lang in [Language::Ja, Language::En] {
        let b = bank::of(lang);
        let (news, events) = (in_lang(&news, lang), in_lang(&events, lang));
        let mut t = Tally::default();
        let mut shown = 0;
        let residents: Vec<_> = profiles.iter().filter(|p| p.language == lang).collect();
        for (n, p) in residents.iter().enumerate() {
            let pk = Keys::generate().public_key();
            let mut mem = memory::fresh();
            let mut clock = 0.0f64; // town seconds
            let mut today: Vec<String> = Vec::new();
            let mut day_of_today = 0u64;
            let mut last: Option<String> = None;
            let mut step = 0u64;
            let interval = p.interval().as_secs_f64();
            while clock < days as f64 * 86_400.0 {
                step += 1;
                let mut rng = dice::dice(&pk, step);
                let gap = interval * dice::jitter(&mut rng);
                clock += gap;
                let day = (clock / 86_400.0) as u64;
                if day != day_of_today {
                    today.clear();
                    day_of_today = day;
                }
                let hour = ((clock % 86_400.0) / 3600.0) as u32;
                let source = match dice::pick(&mut rng) {
                    dice::Pick::News if !news.is_empty() => Source::News {
                        title: news[rng.random_range(0..news.len())].clone(),
                    },
                    dice::Pick::Event if !events.is_empty() => Source::Event {
                        title: events[rng.random_range(0..events.len())].clone(),
                    },
                    _ => Source::Continue {
                        topic: memory::last_topic(&mem),
                    },
                };
                let favourites = memory::favourites(&mem);
                let input = writer::Input {
                    profile: p,
                    common: &common,
                    source,
                    mood: memory::mood_at(&mem, hour),
                    fatigue: memory::fatigue_at(&mem, hour),
                    hour,
                    favourites: &favourites,
                    said: &today,
                };
                let Some(w) = writer::write(&input, &mut rng, |text| {
                    last.as_deref().is_none_or(|l| similarity(l, text) < 0.6)
                }) else {
                    continue;
                };
                // Measured from the text alone.
                let old: HashSet<String> = today.iter().flat_map(|p| sentences(p)).collect();
                let said = sentences(&w.text);
                t.posts += 1;
                t.sentences += said.len();
                t.repeated += said.iter().filter(|s| old.contains(*s)).count();
                let foreign = news.iter().chain(&events).any(|title| {
                    b.cont
                        .iter()
                        .any(|c| w.text.contains(&c.replace("{t}", title)))
                });
                t.foreign_continue += usize::from(foreign);
                if !fit(&w.text) {
                    t.rejected += 1;
                    if show > 0 {
                        println!("  rejected: {} → {}", w.text, judge(&rules, &w.text).reason);
                    }
                }
                let lower = w.text.to_lowercase();
                let has =
                    |lines: &[String]| lines.iter().any(|l| lower.contains(&l.to_lowercase()));
                let s = &mut t.by_slot[slot_index(hour)];
                s.0 += 1;
                s.1 += usize::from(has(&b.happy));
                s.2 += usize::from(has(&b.low));
                s.3 += usize::from(has(&b.tired));
                if n == 0 && shown < show {
                    shown += 1;
                    println!("  day {day} {hour:02}:00 {}", w.text);
                }
                memory::after_post(&mut mem, &w.topic, &w.text, gap / 3600.0);
                today.push(w.text.clone());
                last = Some(w.text);
            }
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        println!(
            "{lang:?}: {} residents, {days} town days, {} posts ({:.1} a day each)",
            residents.len(),
            t.posts,
            t.posts as f64 / (days * residents.len().max(1)) as f64
        );
        println!(
            "  sentences already posted the same day: {:.1} % ({}/{})",
            pct(t.repeated, t.sentences),
            t.repeated,
            t.sentences
        );
        println!(
            "  posts continuing a headline or event: {:.1} % ({}/{})",
            pct(t.foreign_continue, t.posts),
            t.foreign_continue,
            t.posts
        );
        println!(
            "  posts the offline reviewer would reject: {:.1} % ({}/{})",
            pct(t.rejected, t.posts),
            t.rejected,
            t.posts
        );
        for (name, (n, happy, low, tired)) in
            ["morning", "day", "evening", "night"].iter().zip(t.by_slot)
        {
            println!(
                "  {name:<8} {n:>5} posts: happy {:>5.1} %, low {:>5.1} %, tired {:>5.1} %",
                pct(happy, n),
                pct(low, n),
                pct(tired, n)
            );
        }
    }
}
