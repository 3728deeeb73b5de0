//! Trains the learned readings (`soul_mind::brain::learned`): of tasks, written to
//! `mind/data/judge.bin`, and of drafts, one model per NG rule, written to `mind/data/review.bin`.
//!
//! `cargo run --release -p soul-mind --example train_judge [-- --hold SET,SET…]`
//!
//! It learns from the tuned and training sets in `agents/data/eval/` — never from the blind
//! sets, nor from the held-out quarter of `tasks.yaml` and `drafts.yaml` — so the bench's
//! figures on those stay an honest measure. `--hold` leaves more sets out, to measure a change
//! on sets the models have not seen before they learn from them.
//!
//! The decision lines are chosen out of fold, and the folds are whole sets: every set was
//! written by one writer, so a fold measures how the reading carries to a writer it never read,
//! as a family's own phrasing will be. For tasks, `refuse_at` is chosen together with the
//! lexicon's reading, as `soul_mind::brain::features_with` weighs them: the fewest ordinary
//! tasks refused such that at most `MAX_HARMFUL_PASSED` of the harmful ones pass; under
//! `ordinary_below` (at most 1 % of harmful tasks) a lone risk word is not worried over. For
//! each NG rule, `refuse_at` (not under 0.25) is set so that at most 0.8 % of ordinary drafts
//! reach it out of fold, and at most 0.2 % of 1,200 posts the built-in writer wrote for this
//! (seeds the writer bench does not use); under `ordinary_below` (at most 2 % of the rule's own drafts out
//! of fold) the rule's words are read in their everyday sense. The draft models also learn from such posts as ordinary: they are what a town's
//! timeline is mostly made of, and the labelled sets alone taught the models to doubt plain
//! diary lines.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use soul_kinds::{Priority, Task};
use soul_mind::brain::learned::{train, Model, RuleModels, BUCKETS, REVIEW_BUCKETS};
use soul_mind::brain::{features_with, Lexicon};
use soul_mind::profile::load_all;
use soul_mind::writer;

/// The task sets learned from; the first eight are also tuned on by the lexicon.
const TRAINING: &[&str] = &[
    "tasks.yaml",
    "fresh_tasks.yaml",
    "near_tasks.yaml",
    "dev_tasks.yaml",
    "dev2_tasks.yaml",
    "dev3_tasks.yaml",
    "dev4_tasks.yaml",
    "dev5_tasks.yaml",
    "train1_tasks.yaml",
    "train2_tasks.yaml",
    "train3_tasks.yaml",
    "train4_tasks.yaml",
    "train7_tasks.yaml",
    "train8_tasks.yaml",
    "train9_tasks.yaml",
    "train10_tasks.yaml",
    "train11_tasks.yaml",
    "train12_tasks.yaml",
    "train13_tasks.yaml",
    "train14_tasks.yaml",
];
// train17-train24 (boundary cases written to sit on the line) are not learned from: with them
// the line that lets 2 % of harms pass over all writers fell to 0.35, where the model refused
// plain chores ("Automate the weekly grocery list", a unit test). The bench measures the
// shipped model on them, as text it never saw.
const FOLDS: usize = 5;
const L2: f32 = 1e-5;
const EPOCHS: usize = 1500;
/// Most harmful tasks that may pass the two readings together, out of fold: for a family a
/// harm done costs more than a chore refused, so this is the line held, and the ordinary
/// tasks refused are what it costs.
const MAX_HARMFUL_PASSED: f64 = 0.02;
/// Most harmful tasks the learned reading may call surely ordinary, out of fold.
const MAX_HARMFUL_CLEARED: f64 = 0.01;
/// The severity above which triceratops, the deciding third vote, refuses a harm.
const DECIDING_HARM: f64 = 0.6;

/// The draft sets learned from, as for tasks.
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
];
const RULES: &[&str] = &["NG1", "NG2", "NG3", "NG4", "NG5", "NG6"];
/// Built-in writer posts per resident profile learned from as ordinary, and as many more to
/// set the lines on.
const WRITER_POSTS: u64 = 150;
/// Most writer posts one rule's model may reject.
const MAX_WRITER_REJECTED_PER_RULE: f64 = 0.002;
/// Most of a rule's own drafts its model may call surely fine, out of fold.
const MAX_NG_CLEARED: f64 = 0.02;
/// Most ordinary drafts one rule's model may reject, out of fold.
const MAX_ORDINARY_REJECTED_PER_RULE: f64 = 0.008;
/// No rule's model rejects a post it is less than this sure of.
const MIN_RULE_LINE: f64 = 0.25;

#[derive(Deserialize)]
struct Drafts {
    drafts: Vec<Draft>,
}

#[derive(Deserialize)]
struct Draft {
    ng: Option<String>,
    text: String,
}

#[derive(Deserialize)]
struct Tasks {
    tasks: Vec<Labelled>,
}

#[derive(Deserialize)]
struct Labelled {
    harm: bool,
    text: String,
}

/// One labelled text and the fold of the set it came from.
struct Item<T> {
    fold: usize,
    item: T,
}

/// The sets given with `--hold`, left out of training.
fn held() -> Vec<String> {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == "--hold")
        .and_then(|i| argv.get(i + 1))
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Every item of the labelled `sets` but the held-out quarter of the first set (`tasks.yaml`,
/// `drafts.yaml`: every 4th item, as the bench says) and the sets held with `--hold`; a set's
/// fold is its place in `sets` modulo `FOLDS`. `items` takes a set's list.
fn labelled<S: serde::de::DeserializeOwned, T>(
    sets: &[&str],
    items: fn(S) -> Vec<T>,
) -> Vec<Item<T>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agents/data/eval");
    let hold = held();
    let mut out = Vec::new();
    for (n, name) in sets.iter().enumerate() {
        if hold.iter().any(|h| name.starts_with(&format!("{h}_"))) {
            println!("held out: {name}");
            continue;
        }
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()));
        let set: S = serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.extend(
            items(set)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| n > 0 || i % 4 != 3)
                .map(|(_, item)| Item {
                    fold: n % FOLDS,
                    item,
                }),
        );
    }
    out
}

/// Out-of-fold probabilities: each item scored, as `score` scores it in use, by a model trained
/// on the other folds' sets.
fn out_of_fold(
    data: &[(String, bool)],
    folds: &[usize],
    buckets: usize,
    score: fn(&Model, &str) -> f64,
) -> Vec<f64> {
    let mut oof = vec![0f64; data.len()];
    for fold in 0..FOLDS {
        let train_part: Vec<(String, bool)> = data
            .iter()
            .zip(folds)
            .filter(|(_, &f)| f != fold)
            .map(|(d, _)| d.clone())
            .collect();
        let model = train(&train_part, buckets, L2, EPOCHS);
        for (i, (text, _)) in data.iter().enumerate() {
            if folds[i] == fold {
                oof[i] = score(&model, text);
            }
        }
    }
    oof
}

/// The severity of the worst harm the lexicon alone sees in `text` (a model whose lines are
/// never reached leaves the lexicon's reading as it is).
fn lexicon_harm(text: &str, lexicon: &Lexicon) -> f64 {
    let neutral = Model {
        weights: vec![0.0],
        idf: vec![1.0],
        bias: 0.0,
        refuse_at: 2.0,
        ordinary_below: -1.0,
    };
    let task = Task {
        title: text.to_owned(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".to_owned(),
    };
    features_with(&task, lexicon, &neutral).harm
}

fn main() {
    let items = labelled(TRAINING, |s: Tasks| s.tasks);
    let data: Vec<(String, bool)> = items
        .iter()
        .map(|t| (t.item.text.clone(), t.item.harm))
        .collect();
    let folds: Vec<usize> = items.iter().map(|t| t.fold).collect();
    let harmful = data.iter().filter(|(_, h)| *h).count();
    println!(
        "training on {} tasks ({harmful} harmful, {} ordinary), {FOLDS} folds of whole sets",
        data.len(),
        data.len() - harmful
    );
    let oof = out_of_fold(&data, &folds, BUCKETS, Model::probability_by_sentence);
    let lexicon = Lexicon::builtin();
    let lex: Vec<f64> = data
        .iter()
        .map(|(t, _)| lexicon_harm(t, &lexicon))
        .collect();
    // As features_with weighs them: refused when the learned reading reaches `refuse_at` or
    // the lexicon sees a harm the deciding brain refuses.
    let outcome = |refuse_at: f64| {
        let (mut passed, mut refused) = (0usize, 0usize);
        for (i, (_, harm)) in data.iter().enumerate() {
            let refuses = oof[i] >= refuse_at || lex[i] > DECIDING_HARM;
            match (harm, refuses) {
                (true, false) => passed += 1,
                (false, true) => refused += 1,
                _ => {}
            }
        }
        (passed, refused)
    };
    // The highest line (the fewest ordinary tasks refused) at which at most `share` of the
    // harmful tasks pass.
    let line_at = |share: f64| {
        let allowed = (harmful as f64 * share).floor() as usize;
        (1..100)
            .rev()
            .map(|k| f64::from(k) / 100.0)
            .find(|&r| outcome(r).0 <= allowed)
            .unwrap_or(0.01)
    };
    // What each other share would cost, so the choice of MAX_HARMFUL_PASSED is an informed one.
    for share in [0.01, 0.02, 0.03, 0.05, 0.08] {
        let r = line_at(share);
        let (passed, refused) = outcome(r);
        println!(
            "  at most {:.0} % harmful passed: refuse_at {r:.2} → {passed} passed, {refused} ordinary refused",
            share * 100.0
        );
    }
    let refuse_at = line_at(MAX_HARMFUL_PASSED);
    let (passed, refused) = outcome(refuse_at);
    // The line under all but 1 % of harms: below it a task is surely ordinary.
    let mut harmful_p: Vec<f64> = (0..data.len())
        .filter(|&i| data[i].1)
        .map(|i| oof[i])
        .collect();
    harmful_p.sort_by(f64::total_cmp);
    let ordinary_below =
        harmful_p[(harmful as f64 * MAX_HARMFUL_CLEARED).floor() as usize].min(refuse_at);
    let (lex_passed, lex_refused) = outcome(2.0);
    println!(
        "out of fold, the lexicon alone: harmful passed {lex_passed}/{harmful}, ordinary refused {lex_refused}/{}",
        data.len() - harmful
    );
    println!(
        "out of fold, with refuse_at {refuse_at:.2}: harmful passed {passed}/{harmful}, ordinary refused {refused}/{}; ordinary_below {ordinary_below:.3}",
        data.len() - harmful
    );
    let mut model = train(&data, BUCKETS, L2, EPOCHS);
    model.refuse_at = refuse_at as f32;
    model.ordinary_below = ordinary_below as f32;
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/judge.bin");
    std::fs::write(&out, model.to_bytes()).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
    let _ = Model::from_bytes(&std::fs::read(&out).expect("read back")).expect("valid model");
    drafts();
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

/// The drafts' models, one per rule, each against all other drafts.
fn drafts() {
    let items = labelled(DRAFT_TRAINING, |s: Drafts| s.drafts);
    let mut folds: Vec<usize> = items.iter().map(|d| d.fold).collect();
    let drafts: Vec<Draft> = items.into_iter().map(|d| d.item).collect();
    let ordinary = drafts.iter().filter(|d| d.ng.is_none()).count();
    println!(
        "drafts: training on {} ({} NG, {ordinary} ordinary)",
        drafts.len(),
        drafts.len() - ordinary
    );
    let learned_posts = writer_posts(0);
    let check_posts = writer_posts(1);
    println!(
        "writer posts: {} learned from as ordinary, {} to set the lines on",
        learned_posts.len(),
        check_posts.len()
    );
    // The writer's posts are spread over the folds.
    folds.extend((0..learned_posts.len()).map(|i| i % FOLDS));
    let mut flagged = vec![false; drafts.len()];
    let mut models = Vec::new();
    for rule in RULES {
        let mut data: Vec<(String, bool)> = drafts
            .iter()
            .map(|d| (d.text.clone(), d.ng.as_deref() == Some(*rule)))
            .collect();
        data.extend(learned_posts.iter().map(|t| (t.clone(), false)));
        let oof = out_of_fold(&data, &folds, REVIEW_BUCKETS, Model::probability);
        let mut plain: Vec<f64> = (0..drafts.len())
            .filter(|&i| drafts[i].ng.is_none())
            .map(|i| oof[i])
            .collect();
        plain.sort_by(f64::total_cmp);
        let allowed = (plain.len() as f64 * MAX_ORDINARY_REJECTED_PER_RULE).floor() as usize;
        let mut model = train(&data, REVIEW_BUCKETS, L2, EPOCHS);
        let mut on_posts: Vec<f64> = check_posts.iter().map(|t| model.probability(t)).collect();
        on_posts.sort_by(f64::total_cmp);
        let posts_allowed = (on_posts.len() as f64 * MAX_WRITER_REJECTED_PER_RULE).floor() as usize;
        let refuse_at = plain[plain.len() - 1 - allowed]
            .max(on_posts[on_posts.len() - 1 - posts_allowed])
            .max(MIN_RULE_LINE)
            + 1e-6;
        let own = (0..drafts.len()).filter(|&i| data[i].1).count();
        let caught = (0..drafts.len())
            .filter(|&i| data[i].1 && oof[i] >= refuse_at)
            .count();
        for i in 0..drafts.len() {
            flagged[i] |= oof[i] >= refuse_at;
        }
        // Under this line the model is sure a post does not break the rule, and the rule's
        // words in it are read in their everyday sense: at most MAX_NG_CLEARED of the rule's own
        // drafts fall under it out of fold.
        let mut own_p: Vec<f64> = (0..drafts.len())
            .filter(|&i| data[i].1)
            .map(|i| oof[i])
            .collect();
        own_p.sort_by(f64::total_cmp);
        let ordinary_below = own_p[(own_p.len() as f64 * MAX_NG_CLEARED).floor() as usize];
        let cleared = plain.iter().filter(|&&p| p < ordinary_below).count();
        println!(
            "{rule}: refuse_at {refuse_at:.3}, its own drafts caught {caught}/{own} out of fold; \
             ordinary_below {ordinary_below:.3} clears {cleared}/{} ordinary drafts",
            plain.len()
        );
        model.refuse_at = refuse_at as f32;
        model.ordinary_below = ordinary_below as f32;
        models.push((rule.to_string(), model));
    }
    let ng_flagged = (0..drafts.len())
        .filter(|&i| drafts[i].ng.is_some() && flagged[i])
        .count();
    let plain_flagged = (0..drafts.len())
        .filter(|&i| drafts[i].ng.is_none() && flagged[i])
        .count();
    println!(
        "any rule, out of fold: NG rejected {ng_flagged}/{}, ordinary rejected {plain_flagged}/{ordinary}",
        drafts.len() - ordinary
    );
    let models = RuleModels { rules: models };
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/review.bin");
    std::fs::write(&out, models.to_bytes()).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
    let _ = RuleModels::from_bytes(&std::fs::read(&out).expect("read back")).expect("valid");
}
