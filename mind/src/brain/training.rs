//! What the two trainers share — `train_judge` (tasks, `mind/examples`) and `train_review`
//! (drafts, `host/examples`, beside the reviewer whose real verdicts set its lines): the
//! labelled sets of `agents/data/eval/`, their folds, and out-of-fold scoring.
//!
//! The folds are whole sets: every set was written by one writer, so a fold measures how a
//! reading carries to a writer it never read, as a family's own phrasing will be.

use std::path::{Path, PathBuf};

use super::learned::{train, Model};
use super::meaning::INPUT;

/// Folds of whole sets.
pub const FOLDS: usize = 5;
/// The L2 penalty on the mean loss of the tasks' reading, a tenth of the drafts'. Out of fold,
/// in the real debate, at 2 % of harms passed: 1,325 of 10,851 ordinary tasks refused at 1e-5,
/// 1,250 at 1e-6, 1,249 at 2e-7 (little more to gain). The sharper
/// reading calls "Try the new experimental database in production this week" surely ordinary;
/// that quiets no brain's worry about trying something in production, which is a `venture`
/// risk the reading of harm does not answer (`lean`), so the brains' canonical split holds.
pub const TASK_L2: f64 = 1e-6;
/// The L2 penalty of the drafts' readings, about C = 10: as measured when their lines were
/// chosen on the reviewer's verdicts.
pub const REVIEW_L2: f64 = 1e-5;
/// Most L-BFGS iterations per model.
pub const ITERATIONS: usize = 400;

/// One labelled item, the set it came from and that set's fold.
pub struct Item<T> {
    /// The set's file name.
    pub set: &'static str,
    /// The set's fold.
    pub fold: usize,
    /// The item as the set holds it.
    pub item: T,
}

/// `agents/data/eval/` in this source tree.
fn eval_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agents/data/eval")
}

/// The sets named after `--hold` on the command line (`--hold blind4,train33`), left out.
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
/// fold is its place in `sets` modulo `FOLDS`. `items` takes a set's list. A set that cannot
/// be read or parsed stops the trainer, naming the file.
pub fn labelled<S: serde::de::DeserializeOwned, T>(
    sets: &[&'static str],
    items: fn(S) -> Vec<T>,
) -> Vec<Item<T>> {
    let dir = eval_dir();
    let hold = held();
    let mut out = Vec::new();
    for (n, name) in sets.iter().enumerate() {
        if hold.iter().any(|h| name.starts_with(&format!("{h}_"))) {
            println!("held out: {name}");
            continue;
        }
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let set: S =
            serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.extend(
            items(set)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| n > 0 || i % 4 != 3)
                .map(|(_, item)| Item {
                    set: name,
                    fold: n % FOLDS,
                    item,
                }),
        );
    }
    out
}

/// The items of `items` (one per entry of `folds`) outside `fold`: what a model for `fold`
/// may learn from.
pub fn outside<'a, T>(
    items: &'a [T],
    folds: &'a [usize],
    fold: usize,
) -> impl Iterator<Item = &'a T> + 'a {
    items
        .iter()
        .zip(folds)
        .filter(move |(_, &f)| f != fold)
        .map(|(item, _)| item)
}

/// For each fold, a model trained with penalty `l2` on the other folds' items of `data` (text,
/// label).
pub fn fold_models(
    data: &[(String, bool)],
    folds: &[usize],
    buckets: usize,
    l2: f64,
) -> Vec<Model> {
    (0..FOLDS)
        .map(|fold| {
            let rest: Vec<(String, bool)> = outside(data, folds, fold).cloned().collect();
            train(&rest, buckets, l2, ITERATIONS)
        })
        .collect()
}

/// `score(model, i)` of every item `i` of `folds` by its fold's model of `models` (one per
/// fold, as [`fold_models`] makes them): each item read, as in use, by a model that never saw
/// its set.
pub fn score_out_of_fold<T>(
    models: &[Model],
    folds: &[usize],
    score: impl Fn(&Model, usize) -> T,
) -> Vec<T> {
    folds
        .iter()
        .enumerate()
        .map(|(i, &f)| score(&models[f], i))
        .collect()
}

/// Each text's sentence embedding, read from `cache` when it holds those of exactly these
/// texts; embedding thousands of items takes minutes, so two threads share it. Straight to the
/// encoder, in batches of 32 (faster than one by one, and the same floats): the brains' memo
/// of recent tasks (`learned::embed`) would only be scanned and churned here.
pub fn embeddings(texts: &[&str], cache: &Path) -> Vec<Vec<f32>> {
    use nostr::hashes::{sha256, Hash};
    let mut key = String::new();
    for text in texts {
        key.push_str(text);
        key.push('\n');
    }
    let key = sha256::Hash::hash(key.as_bytes()).to_string();
    if let Ok(saved) = std::fs::read(cache) {
        if saved.get(..64) == Some(key.as_bytes()) {
            let floats: Vec<f32> = saved[64..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if floats.len() == texts.len() * INPUT {
                println!("embeddings from {}", cache.display());
                return floats.chunks(INPUT).map(<[f32]>::to_vec).collect();
            }
        }
    }
    let encoder = soul_encoder::Encoder::shipped();
    let half = texts.len().div_ceil(2).max(1);
    let embedded: Vec<Vec<f32>> = std::thread::scope(|s| {
        let parts: Vec<_> = texts
            .chunks(half)
            .map(|part| {
                s.spawn(move || {
                    part.chunks(32)
                        .flat_map(|batch| encoder.embed_many(batch))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("embedding thread"))
            .collect()
    });
    let mut out = key.into_bytes();
    for v in &embedded {
        out.extend(v.iter().flat_map(|x| x.to_le_bytes()));
    }
    if let Err(e) = std::fs::write(cache, out) {
        println!("not cached ({}): {e}", cache.display());
    }
    embedded
}

/// `score(model, text)` of every item of `data` by its fold's model ([`fold_models`]).
pub fn out_of_fold<T>(
    data: &[(String, bool)],
    folds: &[usize],
    buckets: usize,
    l2: f64,
    score: fn(&Model, &str) -> T,
) -> Vec<T> {
    let models = fold_models(data, folds, buckets, l2);
    score_out_of_fold(&models, folds, |m, i| score(m, &data[i].0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first fold says "alpha" is harmful twenty times; the four others say it is not,
    /// twice each ("beta" the other way round). A model that had read the first fold would
    /// side with it; the one that scores it has read only the others.
    #[test]
    fn no_item_is_scored_by_a_model_that_read_it() {
        let mut data = Vec::new();
        let mut folds = Vec::new();
        for fold in 0..FOLDS {
            let (n, alpha_harms) = if fold == 0 { (20, true) } else { (2, false) };
            for k in 0..n {
                data.push((format!("alpha {fold} {k}"), alpha_harms));
                data.push((format!("beta {fold} {k}"), !alpha_harms));
                folds.extend([fold, fold]);
            }
        }
        let read = out_of_fold(&data, &folds, 1 << 12, TASK_L2, Model::probability);
        let seen = train(&data, 1 << 12, TASK_L2, ITERATIONS);
        assert!(seen.probability("alpha 0 0") > 0.5, "read, fold 0 wins");
        for (i, (text, harm)) in data.iter().enumerate() {
            assert_eq!(
                read[i] > 0.5,
                !harm,
                "{text} (fold {}): out of fold {:.2}, as the other folds say",
                folds[i],
                read[i]
            );
        }
    }
}
