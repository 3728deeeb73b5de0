//! Trains the learned readings (`soul_mind::brain::learned`): of tasks, written to
//! `mind/data/judge.bin`, and of drafts, one model per NG rule, written to `mind/data/review.bin`.
//!
//! `cargo run --release -p soul-mind --example train_judge`
//!
//! It learns from the tuned labelled sets in `agents/data/eval/` — never from the blind sets,
//! nor from the held-out quarter of `tasks.yaml` and `drafts.yaml` — so the bench's figures on
//! those stay an honest measure. The decision lines are chosen by 5-fold cross-validation on the
//! training data alone: for tasks, `refuse_at` so that at most 2 % of ordinary tasks are refused
//! by it and `ordinary_below` so that at most 1 % of harmful tasks fall under it; for each NG
//! rule, `refuse_at` so that at most 0.5 % of ordinary drafts reach it, and at most 0.2 % of
//! posts the built-in writer wrote for this (seeds the writer bench does not use). The draft
//! models also learn from such posts as ordinary: they are what a town's timeline is mostly
//! made of, and the labelled sets alone taught the models to doubt plain diary lines.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use soul_mind::brain::learned::{train, Model, RuleModels, BUCKETS, REVIEW_BUCKETS};
use soul_mind::profile::load_all;
use soul_mind::writer;

/// The sets learned from; every one of them is tuned on by the lexicon too.
const TRAINING: &[&str] = &[
    "tasks.yaml",
    "fresh_tasks.yaml",
    "near_tasks.yaml",
    "dev_tasks.yaml",
    "dev2_tasks.yaml",
    "dev3_tasks.yaml",
    "dev4_tasks.yaml",
    "dev5_tasks.yaml",
];
const FOLDS: usize = 5;
const L2: f32 = 1e-4;
const EPOCHS: usize = 1500;
/// Most ordinary tasks the learned reading alone may refuse, out of fold.
const MAX_ORDINARY_REFUSED: f64 = 0.02;
/// Most harmful tasks it may call surely ordinary, out of fold.
const MAX_HARMFUL_CLEARED: f64 = 0.01;

/// The draft sets learned from, as for tasks.
const DRAFT_TRAINING: &[&str] = &[
    "drafts.yaml",
    "fresh_drafts.yaml",
    "dev_drafts.yaml",
    "dev2_drafts.yaml",
    "dev3_drafts.yaml",
    "dev5_drafts.yaml",
];
const RULES: &[&str] = &["NG1", "NG2", "NG3", "NG4", "NG5", "NG6"];
/// Built-in writer posts per resident profile learned from as ordinary, and as many more to
/// set the lines on.
const WRITER_POSTS: u64 = 150;
/// Most writer posts one rule's model may reject.
const MAX_WRITER_REJECTED_PER_RULE: f64 = 0.002;
/// Most ordinary drafts one rule's model may reject, out of fold.
const MAX_ORDINARY_REJECTED_PER_RULE: f64 = 0.005;

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

/// Every item of the labelled `sets`, in order, but the held-out quarter of the first set
/// (`tasks.yaml`, `drafts.yaml`: every 4th item, as the bench says); `items` takes a set's list.
fn labelled<S: serde::de::DeserializeOwned, T>(sets: &[&str], items: fn(S) -> Vec<T>) -> Vec<T> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agents/data/eval");
    let mut out = Vec::new();
    for (n, name) in sets.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()));
        let set: S = serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.extend(
            items(set)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| n > 0 || i % 4 != 3)
                .map(|(_, t)| t),
        );
    }
    out
}

fn main() {
    let data: Vec<(String, bool)> = labelled(TRAINING, |s: Tasks| s.tasks)
        .into_iter()
        .map(|t| (t.text, t.harm))
        .collect();
    let harmful = data.iter().filter(|(_, h)| *h).count();
    println!(
        "training on {} tasks ({harmful} harmful, {} ordinary)",
        data.len(),
        data.len() - harmful
    );

    let oof = out_of_fold(&data, BUCKETS, Model::probability_by_sentence);
    let mut ordinary: Vec<f64> = (0..data.len())
        .filter(|&i| !data[i].1)
        .map(|i| oof[i])
        .collect();
    let mut harmful_p: Vec<f64> = (0..data.len())
        .filter(|&i| data[i].1)
        .map(|i| oof[i])
        .collect();
    ordinary.sort_by(f64::total_cmp);
    harmful_p.sort_by(f64::total_cmp);
    // The line above all but the top 2 % of ordinary tasks; the line under all but 1 % of harms.
    let allowed = (ordinary.len() as f64 * MAX_ORDINARY_REFUSED).floor() as usize;
    let refuse_at = ordinary[ordinary.len() - 1 - allowed].max(0.5) + 1e-6;
    let cleared = (harmful_p.len() as f64 * MAX_HARMFUL_CLEARED).floor() as usize;
    let ordinary_below = harmful_p[cleared].min(0.5);
    let count = |xs: &[f64], f: &dyn Fn(f64) -> bool| xs.iter().filter(|&&p| f(p)).count();
    println!(
        "out of fold at 0.5: harmful below {}/{}, ordinary at or above {}/{}",
        count(&harmful_p, &|p| p < 0.5),
        harmful_p.len(),
        count(&ordinary, &|p| p >= 0.5),
        ordinary.len()
    );
    println!(
        "refuse_at {refuse_at:.3}: harmful caught {}/{}, ordinary refused {}/{}",
        count(&harmful_p, &|p| p >= refuse_at),
        harmful_p.len(),
        count(&ordinary, &|p| p >= refuse_at),
        ordinary.len()
    );
    println!(
        "ordinary_below {ordinary_below:.3}: ordinary cleared {}/{}, harmful cleared {}/{}",
        count(&ordinary, &|p| p < ordinary_below),
        ordinary.len(),
        count(&harmful_p, &|p| p < ordinary_below),
        harmful_p.len()
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

/// Out-of-fold probabilities: each item scored by a model that never saw it, as `score` scores
/// it in use.
fn out_of_fold(
    data: &[(String, bool)],
    buckets: usize,
    score: fn(&Model, &str) -> f64,
) -> Vec<f64> {
    let mut oof = vec![0f64; data.len()];
    for fold in 0..FOLDS {
        let train_part: Vec<(String, bool)> = data
            .iter()
            .enumerate()
            .filter(|(i, _)| i % FOLDS != fold)
            .map(|(_, d)| d.clone())
            .collect();
        let model = train(&train_part, buckets, L2, EPOCHS);
        for (i, (text, _)) in data.iter().enumerate() {
            if i % FOLDS == fold {
                oof[i] = score(&model, text);
            }
        }
    }
    oof
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
    let drafts: Vec<Draft> = labelled(DRAFT_TRAINING, |s: Drafts| s.drafts);
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
    let mut flagged = vec![false; drafts.len()];
    let mut models = Vec::new();
    for rule in RULES {
        let mut data: Vec<(String, bool)> = drafts
            .iter()
            .map(|d| (d.text.clone(), d.ng.as_deref() == Some(*rule)))
            .collect();
        data.extend(learned_posts.iter().map(|t| (t.clone(), false)));
        let oof = out_of_fold(&data, REVIEW_BUCKETS, Model::probability);
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
            .max(0.5)
            + 1e-6;
        let own = (0..drafts.len()).filter(|&i| data[i].1).count();
        let caught = (0..drafts.len())
            .filter(|&i| data[i].1 && oof[i] >= refuse_at)
            .count();
        for i in 0..drafts.len() {
            flagged[i] |= oof[i] >= refuse_at;
        }
        println!(
            "{rule}: refuse_at {refuse_at:.3}, its own drafts caught {caught}/{own} out of fold"
        );
        model.refuse_at = refuse_at as f32;
        model.ordinary_below = 0.0;
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
