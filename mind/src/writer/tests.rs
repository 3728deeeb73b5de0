use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::profile::load_all;

fn town() -> (Common, Vec<Profile>) {
    load_all(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap()
}

fn input<'a>(p: &'a Profile, c: &'a Common, source: Source, hour: u32) -> Input<'a> {
    Input {
        profile: p,
        common: c,
        source,
        mood: 0.5,
        fatigue: 0.2,
        hour,
        favourites: &[],
        said: &[],
    }
}

#[test]
fn a_day_of_posts_varies_and_never_repeats_back_to_back() {
    let (c, profiles) = town();
    for p in &profiles {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut prev: Option<Written> = None;
        let mut all = std::collections::HashSet::new();
        for hour in 0..24 {
            let source = Source::Continue {
                topic: prev.as_ref().map(|w| w.topic.clone()),
            };
            let last = prev.as_ref().map(|w| w.text.clone());
            let w = write(&input(p, &c, source, hour), &mut rng, |t| {
                last.as_deref().is_none_or(|l| similarity(l, t) < 0.6)
            })
            .unwrap();
            assert!(w.text.chars().count() <= c.max_post_chars);
            all.insert(w.text.clone());
            prev = Some(w);
        }
        assert!(
            all.len() >= 20,
            "{}: only {} distinct posts",
            p.name,
            all.len()
        );
    }
}

#[test]
fn language_and_sources_show_in_the_text() {
    let (c, profiles) = town();
    let ja = profiles
        .iter()
        .find(|p| p.language == Language::Ja)
        .unwrap();
    let en = profiles
        .iter()
        .find(|p| p.language == Language::En)
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let news = Source::News {
        title: "Library extends hours".into(),
    };
    let w = write(&input(en, &c, news.clone(), 9), &mut rng, |_| true).unwrap();
    assert!(w.text.contains("Library extends hours"), "{}", w.text);
    let w = write(&input(ja, &c, news, 9), &mut rng, |_| true).unwrap();
    assert!(w.text.contains("「Library extends hours」"), "{}", w.text);
    assert!(
        w.text
            .chars()
            .any(|ch| ('\u{3040}'..='\u{30ff}').contains(&ch)),
        "{}",
        w.text
    );
}

#[test]
fn refused_topics_are_dropped() {
    let (c, profiles) = town();
    let mut p = profiles[0].clone();
    p.interests = vec!["the president's speeches".into()];
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let src = Source::Continue {
        topic: Some("the president's speeches".into()),
    };
    let w = write(&input(&p, &c, src, 12), &mut rng, |t| {
        !t.contains("president")
    })
    .unwrap();
    assert!(!w.text.contains("president"));
    let mut a = ChaCha8Rng::seed_from_u64(9);
    let mut b = ChaCha8Rng::seed_from_u64(9);
    let src = Source::Continue { topic: None };
    assert_eq!(
        write(&input(&p, &c, src.clone(), 8), &mut a, |_| true),
        write(&input(&p, &c, src, 8), &mut b, |_| true),
        "same seed, same post"
    );
}

/// Issue 15: over a town day of posts a resident never says a sentence twice, never carries on
/// a headline as if it were its own, and English sentences start with a capital.
#[test]
fn a_day_never_repeats_a_sentence_nor_continues_a_headline() {
    let (c, profiles) = town();
    let headline = "Library extends reading-room hours";
    for p in &profiles {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut today: Vec<String> = Vec::new();
        let mut topic: Option<String> = None;
        for hour in 0..24 {
            let source = if hour % 5 == 0 {
                Source::News {
                    title: headline.into(),
                }
            } else {
                Source::Continue {
                    topic: topic.clone(),
                }
            };
            let i = Input {
                said: &today,
                ..input(p, &c, source, hour)
            };
            let w = write(&i, &mut rng, |_| true).unwrap();
            assert!(!p.interests.is_empty() && w.topic != headline, "{}", w.text);
            let old: std::collections::HashSet<String> =
                today.iter().flat_map(|t| sentences(t)).collect();
            for s in sentences(&w.text) {
                assert!(!old.contains(&s), "{}: {s:?} again in {:?}", p.name, w.text);
            }
            if p.language == Language::En {
                for s in w.text.split(". ") {
                    let first = s.trim_start_matches('"').chars().next().unwrap();
                    assert!(!first.is_lowercase(), "{}", w.text);
                }
            }
            topic = Some(w.topic.clone());
            today.push(w.text);
        }
    }
}
