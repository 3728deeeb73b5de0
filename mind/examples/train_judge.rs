//! Trains the learned reading of tasks (`soul_mind::brain::learned`) and writes
//! `mind/data/judge.bin`.
//!
//! `cargo run --release -p soul-mind --example train_judge`
//!
//! It learns from the tuned labelled sets in `agents/data/eval/` — never from the blind sets,
//! nor from the held-out quarter of `tasks.yaml` — so the bench's figures on those stay an honest
//! measure. The two decision lines are chosen by 5-fold cross-validation on the training data
//! alone: `refuse_at` so that at most 2 % of ordinary tasks are refused by it, `ordinary_below`
//! so that at most 1 % of harmful tasks fall under it.

use std::path::Path;

use serde::Deserialize;
use soul_mind::brain::learned::{train, Model};

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

#[derive(Deserialize)]
struct Tasks {
    tasks: Vec<Labelled>,
}

#[derive(Deserialize)]
struct Labelled {
    harm: bool,
    text: String,
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agents/data/eval");
    let mut data: Vec<(String, bool)> = Vec::new();
    for name in TRAINING {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()));
        let set: Tasks = serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, t) in set.tasks.into_iter().enumerate() {
            // The first set's every 4th task is held out from all tuning (the bench says so).
            if *name == "tasks.yaml" && i % 4 == 3 {
                continue;
            }
            data.push((t.text, t.harm));
        }
    }
    let harmful = data.iter().filter(|(_, h)| *h).count();
    println!(
        "training on {} tasks ({harmful} harmful, {} ordinary)",
        data.len(),
        data.len() - harmful
    );

    // Out-of-fold probabilities: each task scored by a model that never saw it.
    let mut oof = vec![0f64; data.len()];
    for fold in 0..FOLDS {
        let train_part: Vec<(String, bool)> = data
            .iter()
            .enumerate()
            .filter(|(i, _)| i % FOLDS != fold)
            .map(|(_, d)| d.clone())
            .collect();
        let model = train(&train_part, L2, EPOCHS);
        for (i, (text, _)) in data.iter().enumerate() {
            if i % FOLDS == fold {
                oof[i] = model.probability(text);
            }
        }
    }
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

    let mut model = train(&data, L2, EPOCHS);
    model.refuse_at = refuse_at as f32;
    model.ordinary_below = ordinary_below as f32;
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/judge.bin");
    std::fs::write(&out, model.to_bytes()).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
    let _ = Model::from_bytes(&std::fs::read(&out).expect("read back")).expect("valid model");
}
