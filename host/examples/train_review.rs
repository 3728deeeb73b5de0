//! Trains the learned reading of drafts (`soul_mind::brain::learned::RuleModels`), one model per
//! NG rule, each against all other drafts, and writes it to `mind/data/review.bin`.
//!
//! `cargo run --release -p soul-host --example train_review [-- --hold SET,SET…]`
//!
//! It learns from the tuned and training draft sets in `agents/data/eval/` — never from the
//! blind sets, nor from the held-out quarter of `drafts.yaml` — and from posts of the built-in
//! writer as ordinary: they are what a town's timeline is mostly made of, and the labelled sets
//! alone taught the models to doubt plain diary lines. `--hold` leaves more sets out.
//!
//! The two lines of each rule — `refuse_at`, at or above which a post with none of the rule's
//! standing words is still rejected, and `ordinary_below`, under which the rule's words are read
//! in their everyday sense — work together with the rules' word lists, so they are chosen on the
//! verdicts the real reviewer (`soul_host::roles::reviewer::judge_with`) reaches with each
//! draft's out-of-fold reading (folds are whole sets, one writer each): the twelve lines that
//! refuse the fewest ordinary drafts while at least `MIN_NG_CAUGHT` of the NG drafts are caught
//! and at most `MAX_WRITER_REJECTED` of fresh writer posts are rejected, no rule's
//! `ordinary_below` over the point under which `MAX_NG_CLEARED` of its own drafts fall. The search runs on a
//! tally of what `judge_with` does; the chosen lines are then put through `judge_with` itself,
//! fold by fold, and the two must agree.
//!
//! Each rule's model reads a draft twice, as the tasks' does: by its n-grams and by its meaning
//! (`soul_mind::brain::meaning`, a small network over the sentence embedding), blended in
//! log-odds. The embeddings are cached in `target/train_review_embeddings.bin` and the 36
//! networks (six rules, five folds and all) in `target/train_review_meanings.bin`, each keyed
//! by what it was made from, so a change to the lines or the blend is measured in minutes.

use std::path::Path;

use nostr::hashes::{sha256, Hash};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use soul_host::roles::reviewer::{judge_with, NgRules};
use soul_kinds::ReviewVerdict;
use soul_mind::brain::learned::{
    around, embed, sentences, train, Model, RuleModels, DRAFT_SENTENCE_DOUBT, REVIEW_BUCKETS,
};
use soul_mind::brain::meaning::{self, Meaning, HIDDEN};
use soul_mind::brain::training::{
    embeddings, fold_models, labelled, outside, FOLDS, ITERATIONS, REVIEW_L2,
};
use soul_mind::profile::load_all;
use soul_mind::writer;

/// The draft sets learned from.
const DRAFT_TRAINING: &[&str] = &[
    "drafts.yaml",
    "fresh_drafts.yaml",
    "dev_drafts.yaml",
    "dev2_drafts.yaml",
    "dev3_drafts.yaml",
    "dev5_drafts.yaml",
    "train5_drafts.yaml",
    "train6_drafts.yaml",
    "train15_drafts.yaml",
    "train16_drafts.yaml",
    "train31_drafts.yaml",
    "train41_drafts.yaml",
    "train42_drafts.yaml",
    "train50_drafts.yaml",
];
const RULES: [&str; 6] = ["NG1", "NG2", "NG3", "NG4", "NG5", "NG6"];
/// Built-in writer posts per resident profile learned from as ordinary, and as many more, from
/// other seeds, that the lines are checked on.
const WRITER_POSTS: u64 = 150;
/// Least share of NG drafts the reviewer must reject, out of fold. The issue asks 80 % of a
/// fresh writer's; out of fold the sets are harder (mostly near misses) than a fresh one.
const MIN_NG_CAUGHT: f64 = 0.85;
/// Most fresh writer posts the reviewer may reject: a town's own timeline must flow.
const MAX_WRITER_REJECTED: f64 = 0.005;
/// No rule's model rejects a post it is less than this sure of.
const MIN_RULE_LINE: f64 = 0.25;
/// No rule's words are read in their everyday sense above this.
const MAX_CLEAR_LINE: f64 = 0.5;
/// Most of a rule's own drafts that may fall under its `ordinary_below`, out of fold: the
/// search weighs the labelled drafts, but a post naming "the president" in a phrasing none of
/// them used must still keep the word (the town test's politician).
const MAX_NG_CLEARED: f64 = 0.02;

#[derive(Deserialize)]
struct Drafts {
    drafts: Vec<Draft>,
}

#[derive(Deserialize)]
struct Draft {
    ng: Option<String>,
    text: String,
}

/// What the reviewer reads of one text with one set of models: each rule's probability of the
/// whole text, and for each of the rules' words found in it, its rule and that rule's
/// probability of the words' surroundings (`None` when the words are not there as written).
struct Reading {
    whole: [f64; 6],
    words: Vec<(usize, Option<f64>)>,
}

/// A post as the reviewer reads it: the whole text, then its sentences when it has more than
/// one, each with its embedding.
struct Post {
    parts: Vec<(String, Vec<f32>)>,
}

/// A refusing line no probability reaches.
const NEVER: f32 = 1.01;

/// The twelve lines, as the models keep them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Lines {
    refuse_at: [f32; 6],
    ordinary_below: [f32; 6],
}

impl Lines {
    /// The word lists alone: no model refuses, none clears.
    const WORDS_ALONE: Lines = Lines {
        refuse_at: [NEVER; 6],
        ordinary_below: [0.0; 6],
    };

    /// The lines `models` carry.
    fn of(models: &RuleModels) -> Lines {
        let line = |id: &str, f: fn(&Model) -> f32| {
            models
                .rules
                .iter()
                .find(|(rule, _)| rule == id)
                .map_or(NEVER, |(_, m)| f(m))
        };
        Lines {
            refuse_at: RULES.map(|id| line(id, |m| m.refuse_at)),
            ordinary_below: RULES.map(|id| line(id, |m| m.ordinary_below)),
        }
    }

    /// `models` (one per rule, in `RULES` order) carrying these lines.
    fn set_on(&self, models: impl Fn(usize) -> Model) -> RuleModels {
        RuleModels {
            rules: RULES
                .iter()
                .enumerate()
                .map(|(r, id)| {
                    let mut m = models(r);
                    m.refuse_at = self.refuse_at[r];
                    m.ordinary_below = self.ordinary_below[r];
                    (id.to_string(), m)
                })
                .collect(),
        }
    }
}

impl Reading {
    /// `post` read by `models` (one per rule, in `RULES` order) with `rules`' words, as
    /// `RuleModels::read` reads it with a sentence doubted by `doubt`: the words' surroundings
    /// are read whole and embedded on their own.
    fn of(post: &Post, rules: &NgRules, models: [&Model; 6], doubt: f64) -> Reading {
        let parts: Vec<(&str, Option<&[f32]>)> = post
            .parts
            .iter()
            .map(|(t, e)| (t.as_str(), Some(e.as_slice())))
            .collect();
        let text = parts[0].0;
        let words = rules
            .check(text)
            .into_iter()
            .map(|hit| {
                let rule = RULES
                    .iter()
                    .position(|id| *id == hit.rule)
                    .expect("the shipped rules are NG1 to NG6");
                let near = around(text, &hit.matched)
                    .map(|near| models[rule].draft_probability(near, Some(&embed(near))));
                (rule, near)
            })
            .collect();
        Reading {
            whole: models.map(|m| m.post_probability(&parts, doubt)),
            words,
        }
    }

    /// Whether the reviewer rejects a text so read with `lines`, as `judge_with` decides: a
    /// rule's words stand unless every rule they touch reads the post, whole and around the
    /// words, as under its `ordinary_below`; with none standing, any rule at its `refuse_at`.
    fn rejected(&self, lines: &Lines) -> bool {
        let cleared = self.words.iter().all(|&(rule, near)| {
            let line = f64::from(lines.ordinary_below[rule]);
            self.whole[rule] < line && near.is_some_and(|p| p < line)
        });
        if !self.words.is_empty() && !cleared {
            return true;
        }
        (0..RULES.len()).any(|rule| self.whole[rule] >= f64::from(lines.refuse_at[rule]))
    }
}

/// What a set of lines does to the labelled drafts (out of fold) and the fresh writer posts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tally {
    caught: usize,
    refused: usize,
    posts: usize,
}

fn tally(lines: &Lines, drafts: &[(Reading, bool)], posts: &[Reading]) -> Tally {
    let mut t = Tally {
        caught: 0,
        refused: 0,
        posts: 0,
    };
    for (r, ng) in drafts {
        match (ng, r.rejected(lines)) {
            (true, true) => t.caught += 1,
            (false, true) => t.refused += 1,
            _ => {}
        }
    }
    t.posts = posts.iter().filter(|r| r.rejected(lines)).count();
    t
}

/// The lines, from `start`, that one coordinate at a time lower the ordinary drafts refused
/// less `price` per NG draft caught, with a fresh writer post over `posts_allowed` costing
/// as much as a hundred ordinary drafts, and no `ordinary_below` over its rule's `clear_cap`;
/// each line keeps its place until another is strictly cheaper, so the search is
/// deterministic.
fn descend(
    start: Lines,
    price: f64,
    posts_allowed: usize,
    clear_cap: &[f32; 6],
    drafts: &[(Reading, bool)],
    posts: &[Reading],
) -> Lines {
    let cost = |t: Tally| {
        t.refused as f64 - price * t.caught as f64
            + 100.0 * t.posts.saturating_sub(posts_allowed) as f64
    };
    // Hundredths from the lowest line allowed, and never.
    let hundredths = |from: f64, to: f64| {
        ((from * 100.0).round() as u32..=(to * 100.0).round() as u32).map(|k| k as f32 / 100.0)
    };
    let refuse_grid: Vec<f32> = hundredths(MIN_RULE_LINE, 1.0).chain([NEVER]).collect();
    let clear_grid: Vec<f32> = hundredths(0.0, MAX_CLEAR_LINE).collect();
    let mut lines = start;
    let mut now = cost(tally(&lines, drafts, posts));
    for _sweep in 0..30 {
        let before = lines;
        for (rule, &cap) in clear_cap.iter().enumerate() {
            for refuse in [true, false] {
                let grid = if refuse { &refuse_grid } else { &clear_grid };
                for &v in grid {
                    let mut tried = lines;
                    if refuse {
                        tried.refuse_at[rule] = v;
                    } else {
                        tried.ordinary_below[rule] = v;
                    }
                    if tried.ordinary_below[rule] > tried.refuse_at[rule]
                        || tried.ordinary_below[rule] > cap
                    {
                        continue;
                    }
                    let c = cost(tally(&tried, drafts, posts));
                    if c < now {
                        now = c;
                        lines = tried;
                    }
                }
            }
        }
        if lines == before {
            break;
        }
    }
    lines
}

fn main() {
    let rules = NgRules::builtin().expect("rules/ng_rules.yaml parses");
    let items = labelled(DRAFT_TRAINING, |s: Drafts| s.drafts);
    let mut folds: Vec<usize> = items.iter().map(|d| d.fold).collect();
    let sets: Vec<&str> = items.iter().map(|d| d.set).collect();
    let drafts: Vec<Draft> = items.into_iter().map(|d| d.item).collect();
    let ng = drafts.iter().filter(|d| d.ng.is_some()).count();
    println!(
        "training on {} drafts ({ng} NG, {} ordinary), {FOLDS} folds of whole sets",
        drafts.len(),
        drafts.len() - ng
    );
    let learned_posts = writer_posts(0);
    let check_posts = writer_posts(1);
    println!(
        "writer posts: {} learned from as ordinary, {} to check the lines on",
        learned_posts.len(),
        check_posts.len()
    );
    // The writer's posts are spread over the folds.
    folds.extend((0..learned_posts.len()).map(|i| i % FOLDS));
    let texts: Vec<&str> = drafts
        .iter()
        .map(|d| d.text.as_str())
        .chain(learned_posts.iter().chain(&check_posts).map(String::as_str))
        .collect();
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let embedded = embeddings(&texts, &target.join("train_review_embeddings.bin"));
    let learned_embedded = &embedded[..folds.len()];
    let labels_of = |rule: &str| -> Vec<bool> {
        drafts
            .iter()
            .map(|d| d.ng.as_deref() == Some(rule))
            .chain(learned_posts.iter().map(|_| false))
            .collect()
    };
    let meanings = cached_meanings(
        learned_embedded,
        &folds,
        &RULES.map(labels_of),
        &target.join("train_review_meanings.bin"),
    );
    let mut by_fold: Vec<Vec<Model>> = Vec::new();
    let mut finals: Vec<Model> = Vec::new();
    for (r, rule) in RULES.iter().enumerate() {
        let data: Vec<(String, bool)> = texts[..folds.len()]
            .iter()
            .map(|t| t.to_string())
            .zip(labels_of(rule))
            .collect();
        let mut fold = fold_models(&data, &folds, REVIEW_BUCKETS, REVIEW_L2);
        for (f, m) in fold.iter_mut().enumerate() {
            m.meaning = Some(meanings[r][f].clone());
        }
        by_fold.push(fold);
        let mut all = train(&data, REVIEW_BUCKETS, REVIEW_L2, ITERATIONS);
        all.meaning = Some(meanings[r][FOLDS].clone());
        finals.push(all);
        println!("{rule}: trained on {FOLDS} folds and on all");
    }
    // A post's sentences are embedded on their own, as the reviewer reads them.
    let sentence_texts: Vec<&str> = texts.iter().flat_map(|t| sentences(t)).collect();
    let sentence_embedded = embeddings(
        &sentence_texts,
        &target.join("train_review_sentence_embeddings.bin"),
    );
    let mut next_sentence = sentence_embedded.iter();
    let as_posts: Vec<Post> = texts
        .iter()
        .zip(&embedded)
        .map(|(t, e)| {
            let mut parts = vec![(t.to_string(), e.clone())];
            parts.extend(sentences(t).into_iter().map(|s| {
                let e = next_sentence.next().expect("one embedding per sentence");
                (s.to_owned(), e.clone())
            }));
            Post { parts }
        })
        .collect();
    let (draft_posts, check_as_posts) = (&as_posts[..drafts.len()], &as_posts[folds.len()..]);
    let read_with = |doubt: f64| -> (Vec<(Reading, bool)>, Vec<Reading>) {
        let read = drafts
            .iter()
            .zip(&folds)
            .zip(draft_posts)
            .map(|((d, &f), post)| {
                let models = std::array::from_fn(|r| &by_fold[r][f]);
                (Reading::of(post, &rules, models, doubt), d.ng.is_some())
            })
            .collect();
        let posts = check_as_posts
            .iter()
            .map(|post| Reading::of(post, &rules, std::array::from_fn(|r| &finals[r]), doubt))
            .collect();
        (read, posts)
    };
    // Other doubts of a sentence, to compare (`--doubts 1,3,inf`); the shipped one is chosen.
    for doubt in compared_doubts() {
        let (read, posts) = read_with(doubt);
        let (_, t) = choose_lines(&drafts, &read, &posts, false);
        println!(
            "sentence doubt {doubt}: NG caught {}/{ng}, ordinary refused {}, writer posts rejected {}/{}",
            t.caught,
            t.refused,
            t.posts,
            posts.len()
        );
    }
    let (read, posts) = read_with(DRAFT_SENTENCE_DOUBT);
    let show = |what: &str, lines: &Lines| {
        let t = tally(lines, &read, &posts);
        println!(
            "{what}: NG caught {}/{ng}, ordinary refused {}/{}, writer posts rejected {}/{}",
            t.caught,
            t.refused,
            drafts.len() - ng,
            t.posts,
            posts.len()
        );
    };
    match RuleModels::from_bytes(&std::fs::read(review_bin()).unwrap_or_default()) {
        Ok(shipped) => show("out of fold, the lines in review.bin", &Lines::of(&shipped)),
        Err(e) => println!("review.bin not read ({e}): no figures for its lines"),
    }
    show("out of fold, the words alone", &Lines::WORDS_ALONE);
    println!("sentence doubt {DRAFT_SENTENCE_DOUBT} (shipped):");
    let (lines, _) = choose_lines(&drafts, &read, &posts, true);
    println!("chosen: {lines:?}");
    show("out of fold, chosen", &lines);
    // The same lines through the real reviewer, fold by fold: the tally must be what it does.
    let by_fold_with_lines: Vec<RuleModels> = (0..FOLDS)
        .map(|f| lines.set_on(|r| by_fold[r][f].clone()))
        .collect();
    let mut real_rejected = 0;
    for (i, d) in drafts.iter().enumerate() {
        let models = &by_fold_with_lines[folds[i]];
        let real = judge_with(&rules, models, &d.text).verdict == ReviewVerdict::Rejected;
        assert_eq!(
            real,
            read[i].0.rejected(&lines),
            "the tally and judge_with disagree on draft {i} of {}",
            sets[i]
        );
        real_rejected += usize::from(real);
    }
    let models = lines.set_on(|r| finals[r].clone());
    let posts_real = check_posts
        .iter()
        .filter(|t| judge_with(&rules, &models, t).verdict == ReviewVerdict::Rejected)
        .count();
    let t = tally(&lines, &read, &posts);
    assert_eq!((real_rejected, posts_real), (t.caught + t.refused, t.posts));
    println!("judge_with agrees: {real_rejected} drafts and {posts_real} writer posts rejected");
    per_set(&sets, &read, &lines);
    let out = review_bin();
    std::fs::write(&out, models.to_bytes()).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
    let back = RuleModels::from_bytes(&std::fs::read(&out).expect("read back")).expect("valid");
    assert_eq!(back, models);
}

/// The lines that refuse the fewest ordinary drafts while catching `MIN_NG_CAUGHT` of the NG
/// drafts, within `MAX_WRITER_REJECTED` of writer posts, searched by raising the price of an
/// NG draft let through; `verbose` prints each step that changes the tally.
fn choose_lines(
    drafts: &[Draft],
    read: &[(Reading, bool)],
    posts: &[Reading],
    verbose: bool,
) -> (Lines, Tally) {
    let ng = drafts.iter().filter(|d| d.ng.is_some()).count();
    let posts_allowed = (posts.len() as f64 * MAX_WRITER_REJECTED).floor() as usize;
    // Under each rule's cap fall at most MAX_NG_CLEARED of its own drafts, out of fold.
    let clear_cap: [f32; 6] = std::array::from_fn(|r| {
        let mut own: Vec<f64> = read
            .iter()
            .zip(drafts)
            .filter(|(_, d)| d.ng.as_deref() == Some(RULES[r]))
            .map(|((reading, _), _)| reading.whole[r])
            .collect();
        own.sort_by(f64::total_cmp);
        own[(own.len() as f64 * MAX_NG_CLEARED).floor() as usize] as f32
    });
    if verbose {
        println!("clearing lines at most {clear_cap:?}");
    }
    let need = (ng as f64 * MIN_NG_CAUGHT).ceil() as usize;
    // Raise the price of an NG draft let through until the least refusing lines catch enough.
    let mut lines = Lines::WORDS_ALONE;
    let mut chosen: Option<(Lines, Tally)> = None;
    let mut last: Option<Tally> = None;
    for step in 0..=80 {
        let price = f64::from(step) * 0.05;
        lines = descend(lines, price, posts_allowed, &clear_cap, read, posts);
        let t = tally(&lines, read, posts);
        if verbose && last != Some(t) {
            println!(
                "  price {price:.2}: NG caught {}, ordinary refused {}, writer posts {}",
                t.caught, t.refused, t.posts
            );
        }
        last = Some(t);
        let fits = t.caught >= need && t.posts <= posts_allowed;
        if fits
            && chosen.is_none_or(|(_, c)| {
                (t.refused, usize::MAX - t.caught) < (c.refused, usize::MAX - c.caught)
            })
        {
            chosen = Some((lines, t));
        }
    }
    chosen.unwrap_or_else(|| {
        panic!("no lines catch {need}/{ng} NG drafts within {posts_allowed} writer posts rejected")
    })
}

/// The sentence doubts given with `--doubts` (`inf` reads posts whole only).
fn compared_doubts() -> Vec<f64> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--doubts")
        .and_then(|i| args.get(i + 1))
        .map(|list| {
            list.split(',')
                .map(|d| d.parse().unwrap_or_else(|e| panic!("--doubts {d}: {e}")))
                .collect()
        })
        .unwrap_or_default()
}

/// For each rule (its `labels`, one per embedding), the reading of meaning trained on each
/// fold's outside and then on all (`FOLDS + 1` networks), read from `cache` when it holds
/// those of exactly these embeddings, folds, labels and settings; else trained, two rules at
/// a time, and cached.
fn cached_meanings(
    embedded: &[Vec<f32>],
    folds: &[usize],
    labels: &[Vec<bool>; 6],
    cache: &Path,
) -> Vec<Vec<Meaning>> {
    // The networks do not depend on the blend's weight: changing it reuses them.
    let mut key = format!("{HIDDEN} {FOLDS}\n").into_bytes();
    for (i, (e, f)) in embedded.iter().zip(folds).enumerate() {
        key.extend(format!("{f}").bytes());
        key.extend(labels.iter().map(|l| if l[i] { b'1' } else { b'0' }));
        key.extend(e.iter().flat_map(|x| x.to_le_bytes()));
    }
    let key = sha256::Hash::hash(&key).to_string();
    let count = RULES.len() * (FOLDS + 1);
    if let Ok(saved) = std::fs::read(cache) {
        if saved.get(..64) == Some(key.as_bytes()) && saved.len() == 64 + count * Meaning::BYTES {
            println!("meanings from {}", cache.display());
            let nets: Vec<Meaning> = saved[64..]
                .chunks(Meaning::BYTES)
                .map(|b| Meaning::from_bytes(b).expect("written below"))
                .collect();
            return nets.chunks(FOLDS + 1).map(<[Meaning]>::to_vec).collect();
        }
    }
    let train_rule = |labels: &Vec<bool>| -> Vec<Meaning> {
        let mut nets: Vec<Meaning> = (0..FOLDS)
            .map(|fold| {
                let e: Vec<Vec<f32>> = outside(embedded, folds, fold).cloned().collect();
                let l: Vec<bool> = outside(labels, folds, fold).copied().collect();
                meaning::train(&e, &l)
            })
            .collect();
        nets.push(meaning::train(embedded, labels));
        nets
    };
    let nets: Vec<Vec<Meaning>> = std::thread::scope(|s| {
        let halves: Vec<_> = labels
            .chunks(3)
            .map(|half| s.spawn(move || half.iter().map(train_rule).collect::<Vec<_>>()))
            .collect();
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("training thread"))
            .collect()
    });
    println!("meanings trained: {count} networks");
    let mut out = key.into_bytes();
    for net in nets.iter().flatten() {
        out.extend(net.to_bytes());
    }
    if let Err(e) = std::fs::write(cache, out) {
        println!("not cached ({}): {e}", cache.display());
    }
    nets
}

/// Out-of-fold figures per set with `lines`, so a set whose writer the rest do not carry to
/// stands out.
fn per_set(sets: &[&str], read: &[(Reading, bool)], lines: &Lines) {
    let mut rows: Vec<(&str, usize, usize, usize, usize)> = Vec::new();
    for (set, (r, ng)) in sets.iter().zip(read) {
        if rows.last().is_none_or(|row| row.0 != *set) {
            rows.push((set, 0, 0, 0, 0));
        }
        let row = rows.last_mut().expect("pushed");
        let rejected = r.rejected(lines);
        if *ng {
            row.1 += 1;
            row.2 += usize::from(rejected);
        } else {
            row.3 += 1;
            row.4 += usize::from(rejected);
        }
    }
    for (set, n, caught, o, refused) in rows {
        println!("    {set:<22} NG caught {caught:>3}/{n:<3} ordinary refused {refused:>3}/{o}");
    }
}

/// `mind/data/review.bin`, which the binary ships.
fn review_bin() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mind/data/review.bin")
}

/// Posts by the built-in writer, `WRITER_POSTS` per resident profile of `residents/`, over the
/// hours, moods and tiredness of a town day; `batch` picks the seeds.
fn writer_posts(batch: u64) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (common, profiles) = load_all(&root).expect("residents/");
    let mut out = Vec::new();
    for (n, profile) in profiles.iter().enumerate() {
        let mut topic: Option<String> = None;
        for i in 0..WRITER_POSTS {
            let seed = (batch << 40) ^ ((n as u64) << 20) ^ i;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let input = writer::Input {
                profile,
                common: &common,
                source: writer::Source::Continue {
                    topic: topic.clone(),
                },
                mood: (i * 37 % 101) as f64 / 100.0,
                fatigue: (i * 53 % 101) as f64 / 100.0,
                hour: (i * 7 % 24) as u32,
                favourites: &[],
                said: &[],
            };
            if let Some(w) = writer::write(&input, &mut rng, |_| true) {
                topic = Some(w.topic);
                out.push(w.text);
            }
        }
    }
    out
}
