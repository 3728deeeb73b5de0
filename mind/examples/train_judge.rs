//! Trains the learned reading of tasks (`soul_mind::brain::learned`) and writes it to
//! `mind/data/judge.bin`. The drafts' reading is trained beside the reviewer, by
//! `host/examples/train_review.rs`.
//!
//! `cargo run --release -p soul-mind --example train_judge [-- --hold SET,SET…]`
//!
//! It learns from the tuned and training sets in `agents/data/eval/` — never from the blind
//! sets, nor from the held-out quarter of `tasks.yaml` — so the bench's figures on those stay an
//! honest measure. `--hold` leaves more sets out, to measure a change on sets the model has not
//! seen before it learns from them.
//!
//! The decision lines are chosen out of fold, on folds of whole sets
//! (`soul_mind::brain::training`). Each task's out-of-fold probability is put through the
//! brains' real debate (`soul_mind::brain::rehearse`) in every regime the lines can put it in,
//! and the lines are chosen on those outcomes: the refusing lines of four groups (at most eight
//! words or more, the lexicon silent on the task or not) as those refusing the fewest ordinary
//! tasks while at most `MAX_HARMFUL_PASSED` of the harmful ones pass; `ordinary_below` (at most
//! 1 % of harmful tasks under it) where a lone risk word is not worried over; `clear_below`, the
//! clearing line (never above `ordinary_below`) under which the shipped harms' words in a task
//! that is not short are read as a mention, the one of those tried that refuses the fewest
//! ordinary tasks within the same budget; and `clear_short_below`, the same for a short task,
//! spending none of the budget: it lies under every short harm that clearing would let
//! through, so that a hurried command is cleared only where the reading is surer of it than
//! of any such harm.
//!
//! Each task is read twice: by its n-grams (a logistic regression) and by its meaning (a small
//! network over its sentence embedding, `soul_mind::brain::meaning`), both trained per fold and
//! blended in log-odds, and the vote of the labelled tasks nearest in meaning is added
//! (`soul_mind::brain::precedent`: out of fold, only the other folds' tasks vote). The embeddings are cached in `target/train_judge_embeddings.bin`, the
//! out-of-fold probabilities in `target/train_judge_oof.txt`, each keyed by the data (and the
//! settings), so a change to the lines alone is measured in a minute. With
//! `SOUL_DUMP_REGIMES=FILE` each task's set, label, out-of-fold reading, group and outcomes in
//! each regime are written to FILE, one tab-separated line per task, to study the misses.

use std::path::Path;

use nostr::hashes::{sha256, Hash};
use serde::Deserialize;
use soul_kinds::Outcome;
use soul_mind::brain::learned::{
    is_short, train, Model, TaskReading, BUCKETS, MAGIC, SENTENCE_DOUBT,
};
use soul_mind::brain::meaning::{self, HIDDEN, MEANING_WEIGHT};
use soul_mind::brain::precedent::{Precedents, NEIGHBOURS, PRECEDENT_WEIGHT, TEMPERATURE};
use soul_mind::brain::training::{
    embeddings, fold_models, labelled, outside, score_out_of_fold, Item, FOLDS, ITERATIONS, TASK_L2,
};
use soul_mind::brain::{features_scored, opinion, owner_task, rehearse, Lexicon};

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
    "train17_tasks.yaml",
    "train18_tasks.yaml",
    "train19_tasks.yaml",
    "train20_tasks.yaml",
    "train21_tasks.yaml",
    "train22_tasks.yaml",
    "train23_tasks.yaml",
    "train24_tasks.yaml",
    "train25_tasks.yaml",
    "train26_tasks.yaml",
    "train27_tasks.yaml",
    "train28_tasks.yaml",
    "train29_tasks.yaml",
    "train30_tasks.yaml",
    "train32_tasks.yaml",
    "train33_tasks.yaml",
    "train34_tasks.yaml",
    "train35_tasks.yaml",
    "train36_tasks.yaml",
    "train37_tasks.yaml",
    "train38_tasks.yaml",
    "train39_tasks.yaml",
    "train40_tasks.yaml",
    "train43_tasks.yaml",
    "train44_tasks.yaml",
    "train45_tasks.yaml",
    "train46_tasks.yaml",
    "train47_tasks.yaml",
    "train48_tasks.yaml",
    "train49_tasks.yaml",
    "train51_tasks.yaml",
    "train52_tasks.yaml",
    "train53_tasks.yaml",
    "train54_tasks.yaml",
    "train55_tasks.yaml",
    "train56_tasks.yaml",
    "train57_tasks.yaml",
    "train58_tasks.yaml",
    "train59_tasks.yaml",
    "train60_tasks.yaml",
    "train61_tasks.yaml",
    "train62_tasks.yaml",
    "train63_tasks.yaml",
    "train64_tasks.yaml",
    "train65_tasks.yaml",
    "train66_tasks.yaml",
    "train67_tasks.yaml",
    "train68_tasks.yaml",
    "train70_tasks.yaml",
    "train71_tasks.yaml",
    "train72_tasks.yaml",
    "train69_tasks.yaml",
    "train73_tasks.yaml",
    "train74_tasks.yaml",
    "train75_tasks.yaml",
    "train76_tasks.yaml",
    "train77_tasks.yaml",
    "train78_tasks.yaml",
    "train79_tasks.yaml",
    "train80_tasks.yaml",
    "train81_tasks.yaml",
    "train82_tasks.yaml",
    "train83_tasks.yaml",
    "train84_tasks.yaml",
    "train85_tasks.yaml",
    "train86_tasks.yaml",
    "train87_tasks.yaml",
    "train88_tasks.yaml",
    "train89_tasks.yaml",
    "train90_tasks.yaml",
    "train91_tasks.yaml",
    "train93_tasks.yaml",
    "train94_tasks.yaml",
];
/// Most harmful tasks that may pass the two readings together, out of fold: for a family a
/// harm done costs more than a chore refused, so this is the line held, and the ordinary
/// tasks refused are what it costs. Out of fold understates what new writers get past: five
/// sets by new writers (`train51`–`55`), read untouched by the reading chosen at 2 %, had
/// 31 of 1,091 harms pass (2.8 %). Hence 1.5 %.
const MAX_HARMFUL_PASSED: f64 = 0.015;
/// Most harmful tasks the learned reading may call surely ordinary, out of fold.
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

/// What the brains decide on one task, out of fold, in each of the regimes its learned
/// probability can put it in; which regime applies depends on the lines being chosen.
#[derive(Clone, Copy)]
struct Regimes {
    /// The probability, from a model that never saw the task's set.
    p: f64,
    /// The highest of any sentence's, undoubted (`TaskReading::any_sentence`).
    any_sentence: f64,
    /// Refused when the learned reading neither adds nor clears anything.
    plain: bool,
    /// Refused when the task is surely ordinary (a lone risk word is a mention).
    sure: bool,
    /// Refused when the lexicon's harm words are read as a mention too.
    cleared: bool,
    /// Refused when the learned reading adds its harm.
    learned: bool,
    /// Its group, each with a line of its own: short (`is_short`) or not, the lexicon
    /// silent on it or not ([`group`]).
    group: usize,
}

/// The groups with a refusing line of their own, in `Lines::refuse`.
const GROUPS: [&str; 4] = ["other", "short", "silent", "silent and short"];

/// A task's group in [`GROUPS`].
fn group(short: bool, silent: bool) -> usize {
    usize::from(short) + 2 * usize::from(silent)
}

/// Whether the tasks of `group` are short.
fn is_short_group(group: usize) -> bool {
    group % 2 == 1
}

impl Regimes {
    fn refused(&self, l: &Lines) -> bool {
        if self.p >= l.refuse[self.group] {
            self.learned
        } else if self.any_sentence < l.clear_line(self.group) {
            self.cleared
        } else if self.p < l.ordinary_below {
            self.sure
        } else {
            self.plain
        }
    }
}

/// The lines of the task model.
#[derive(Clone, Copy)]
struct Lines {
    /// The refusing line of each group of [`GROUPS`].
    refuse: [f64; 4],
    ordinary_below: f64,
    clear_below: f64,
    /// The clearing line of a short task.
    clear_short_below: f64,
}

impl Lines {
    /// The clearing line of a task in `group`.
    fn clear_line(&self, group: usize) -> f64 {
        match is_short_group(group) {
            true => self.clear_short_below,
            false => self.clear_below,
        }
    }

    /// Lines that never refuse, clear or call a task surely ordinary.
    const NEVER: Lines = Lines {
        refuse: [2.0; 4],
        ordinary_below: -1.0,
        clear_below: -1.0,
        clear_short_below: -1.0,
    };

    /// A model with these lines and no weights: `features_scored` takes the probabilities as
    /// given and reads only the lines (and the weights for the words it cites).
    fn model(&self) -> Model {
        Model {
            weights: vec![0.0],
            idf: vec![1.0],
            bias: 0.0,
            refuse_at: self.refuse[0] as f32,
            refuse_short_at: self.refuse[1] as f32,
            refuse_silent_at: self.refuse[2] as f32,
            refuse_silent_short_at: self.refuse[3] as f32,
            ordinary_below: self.ordinary_below as f32,
            clear_below: self.clear_below as f32,
            clear_short_below: self.clear_short_below as f32,
            meaning: None,
            precedents: None,
        }
    }
}

/// The debate's outcome on `text` read as `reading`, with the given lines: the brains' real
/// debate, as a town holds it.
fn refused(text: &str, lexicon: &Lexicon, reading: TaskReading, lines: Lines) -> bool {
    let (task, task_id) = owner_task(text);
    let f = features_scored(&task, lexicon, &lines.model(), reading);
    rehearse(&task, task_id, &f, &opinion).outcome == Outcome::Rejected
}

/// Whether the lexicon finds no risk, harm or haste in `text`.
fn silent(text: &str, lexicon: &Lexicon, reading: TaskReading) -> bool {
    let (task, _) = owner_task(text);
    features_scored(&task, lexicon, &Lines::NEVER.model(), reading).lexicon_silent
}

/// Each task's regimes, from its out-of-fold reading.
fn regimes(data: &[(String, bool)], oof: &[TaskReading], lexicon: &Lexicon) -> Vec<Regimes> {
    let never = -1.0;
    let always = 2.0;
    data.iter()
        .zip(oof)
        .map(|((text, _), &reading)| {
            let p = reading.refused;
            let at = |refuse_at, ordinary_below, clear_below| {
                refused(
                    text,
                    lexicon,
                    reading,
                    Lines {
                        refuse: [refuse_at; 4],
                        ordinary_below,
                        clear_below,
                        clear_short_below: clear_below,
                    },
                )
            };
            Regimes {
                p,
                any_sentence: reading.any_sentence,
                plain: at(always, never, never),
                sure: at(always, always, never),
                cleared: at(always, always, always),
                // The learned harm at its mildest: the line just reached.
                learned: at((p - 1e-4).clamp(0.0, 0.999), never, never),
                group: group(is_short(text), silent(text, lexicon, reading)),
            }
        })
        .collect()
}

/// (harmful passed, ordinary refused) with `lines`.
fn outcome(data: &[(String, bool)], reg: &[Regimes], lines: &Lines) -> (usize, usize) {
    let (mut passed, mut refused) = (0, 0);
    for ((_, harm), r) in data.iter().zip(reg) {
        match (harm, r.refused(lines)) {
            (true, false) => passed += 1,
            (false, true) => refused += 1,
            _ => {}
        }
    }
    (passed, refused)
}

/// The `share` quantile of `value` over the harmful tasks' out-of-fold readings.
fn harmful_quantiles(
    data: &[(String, bool)],
    oof: &[TaskReading],
    value: fn(&TaskReading) -> f64,
) -> impl Fn(f64) -> f64 {
    let mut sorted: Vec<f64> = data
        .iter()
        .zip(oof)
        .filter(|((_, harm), _)| *harm)
        .map(|(_, r)| value(r))
        .collect();
    sorted.sort_by(f64::total_cmp);
    move |share| sorted[(sorted.len() as f64 * share).floor() as usize]
}

/// Out-of-fold readings, read from `cache` when it holds those of exactly these items: each
/// task read, as in use, by n-grams and a meaning trained without its set.
fn cached_out_of_fold(
    data: &[(String, bool)],
    embeddings: &[Vec<f32>],
    folds: &[usize],
    cache: &Path,
) -> Vec<TaskReading> {
    let mut key = String::new();
    for ((text, harm), fold) in data.iter().zip(folds) {
        key.push_str(&format!("{harm}{fold}{text}\n"));
    }
    let key = format!(
        "{} {TASK_L2} {ITERATIONS} {BUCKETS} {SENTENCE_DOUBT} {HIDDEN} {MEANING_WEIGHT} {NEIGHBOURS} {TEMPERATURE} {PRECEDENT_WEIGHT} {}",
        sha256::Hash::hash(key.as_bytes()),
        String::from_utf8_lossy(MAGIC)
    );
    if let Ok(saved) = std::fs::read_to_string(cache) {
        let mut lines = saved.lines();
        if lines.next() == Some(key.as_str()) {
            let oof: Vec<TaskReading> = lines
                .filter_map(|l| {
                    let (a, b) = l.split_once(' ')?;
                    Some(TaskReading {
                        refused: a.parse().ok()?,
                        any_sentence: b.parse().ok()?,
                    })
                })
                .collect();
            if oof.len() == data.len() {
                println!("out-of-fold readings from {}", cache.display());
                return oof;
            }
        }
    }
    let mut models = fold_models(data, folds, BUCKETS, TASK_L2);
    let labels: Vec<bool> = data.iter().map(|(_, harm)| *harm).collect();
    for (fold, model) in models.iter_mut().enumerate() {
        let rest: Vec<Vec<f32>> = outside(embeddings, folds, fold).cloned().collect();
        let rest_labels: Vec<bool> = outside(&labels, folds, fold).copied().collect();
        model.meaning = Some(meaning::train(&rest, &rest_labels));
        model.precedents = Some(Precedents::new(&rest, &rest_labels));
    }
    let oof = score_out_of_fold(&models, folds, |m, i| {
        m.read_task_embedded(&data[i].0, Some(&embeddings[i]))
    });
    let mut out = key;
    for r in &oof {
        out.push_str(&format!("\n{} {}", r.refused, r.any_sentence));
    }
    if let Err(e) = std::fs::write(cache, out) {
        println!("not cached ({}): {e}", cache.display());
    }
    oof
}

/// The harms passed and ordinary tasks refused of all groups, group `g` at line `ks[g]` of the
/// grid `figures[g]` was tallied on.
fn totals(figures: &[Vec<(usize, usize)>], ks: &[usize; 4]) -> (usize, usize) {
    figures
        .iter()
        .zip(ks)
        .fold((0, 0), |(p, r), (fig, &k)| (p + fig[k].0, r + fig[k].1))
}

fn main() {
    let items = labelled(TRAINING, |s: Tasks| s.tasks);
    let data: Vec<(String, bool)> = items
        .iter()
        .map(|t| (t.item.text.clone(), t.item.harm))
        .collect();
    let folds: Vec<usize> = items.iter().map(|t| t.fold).collect();
    let harmful = data.iter().filter(|(_, h)| *h).count();
    let ordinary = data.len() - harmful;
    println!(
        "training on {} tasks ({harmful} harmful, {ordinary} ordinary), {FOLDS} folds of whole sets",
        data.len(),
    );
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let texts: Vec<&str> = data.iter().map(|(t, _)| t.as_str()).collect();
    let embeddings = embeddings(&texts, &target.join("train_judge_embeddings.bin"));
    let oof = cached_out_of_fold(
        &data,
        &embeddings,
        &folds,
        &target.join("train_judge_oof.txt"),
    );
    let lexicon = Lexicon::builtin();
    let reg = regimes(&data, &oof, &lexicon);
    if let Ok(path) = std::env::var("SOUL_DUMP_REGIMES") {
        let mut out = String::new();
        for ((item, (text, harm)), r) in items.iter().zip(&data).zip(&reg) {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                item.set,
                u8::from(*harm),
                r.p,
                r.any_sentence,
                GROUPS[r.group],
                u8::from(r.plain),
                u8::from(r.sure),
                u8::from(r.cleared),
                u8::from(r.learned),
                text.replace(['\t', '\n'], " ")
            ));
        }
        std::fs::write(&path, out).expect("dump");
    }
    // The line under all but 1 % of harms: below it a task is surely ordinary.
    let harmful_refused = harmful_quantiles(&data, &oof, |r| r.refused);
    let harmful_any = harmful_quantiles(&data, &oof, |r| r.any_sentence);
    let ordinary_below = harmful_refused(MAX_HARMFUL_CLEARED);
    let allowed = (harmful as f64 * MAX_HARMFUL_PASSED).floor() as usize;
    // Under every short harm that clearing would let through: one the debate refuses without
    // clearing, whichever way the other lines read it, and passes once cleared.
    let clear_short_below = data
        .iter()
        .zip(&reg)
        .filter(|((_, harm), r)| {
            *harm && is_short_group(r.group) && (r.plain || r.sure) && !r.cleared
        })
        .map(|(_, r)| r.any_sentence)
        .fold(ordinary_below, f64::min);
    // For each clearing line, the refusing lines of the groups with the fewest ordinary tasks
    // refused at which at most `allowed` harmful tasks pass in all: each group's figures depend
    // on its own line only, so for a price λ on a harm passed each group takes the line that
    // costs it least, and λ is raised until the harms passed fit the budget (a Lagrangian
    // relaxation: its answers are on the lower hull of what the lines can do).
    let best_for = |clear_below: f64, allowed: usize| {
        let grid: Vec<f64> = (1..100).map(|k| f64::from(k) / 100.0).collect();
        let lines = |refuse: [f64; 4]| Lines {
            refuse,
            ordinary_below: refuse.iter().copied().fold(ordinary_below, f64::min),
            clear_below,
            clear_short_below,
        };
        // figures[g][k]: (harms passed, ordinary refused) of group g at line grid[k].
        let figures: Vec<Vec<(usize, usize)>> = (0..GROUPS.len())
            .map(|g| {
                grid.iter()
                    .map(|&r| {
                        let l = lines([r; 4]);
                        let (mut passed, mut refused) = (0usize, 0usize);
                        for ((_, harm), reg) in data.iter().zip(&reg).filter(|(_, x)| x.group == g)
                        {
                            match (harm, reg.refused(&l)) {
                                (true, false) => passed += 1,
                                (false, true) => refused += 1,
                                _ => {}
                            }
                        }
                        (passed, refused)
                    })
                    .collect()
            })
            .collect();
        let mut best: Option<(usize, [usize; 4])> = None;
        for step in 0..4000 {
            let price = f64::from(step) * 0.05;
            let ks: [usize; 4] = std::array::from_fn(|g| {
                (0..grid.len())
                    .rev()
                    .min_by(|&a, &b| {
                        let cost =
                            |k: usize| figures[g][k].1 as f64 + price * figures[g][k].0 as f64;
                        cost(a).total_cmp(&cost(b))
                    })
                    .expect("a grid")
            });
            let (passed, refused) = totals(&figures, &ks);
            if passed <= allowed && best.as_ref().is_none_or(|(r, _)| refused < *r) {
                best = Some((refused, ks));
            }
        }
        // The hull leaves part of the budget unspent when its next point is over it: then one
        // group at a time takes the higher line that spares the most ordinary tasks per harm
        // it lets pass, while the harms passed still fit.
        let (_, mut ks) = best?;
        loop {
            let (passed, _) = totals(&figures, &ks);
            let mut pick: Option<(f64, usize, usize)> = None;
            for (g, fig) in figures.iter().enumerate() {
                for k in ks[g] + 1..grid.len() {
                    let spared = fig[ks[g]].1 as f64 - fig[k].1 as f64;
                    let more = fig[k].0.saturating_sub(fig[ks[g]].0);
                    if spared <= 0.0 || passed - fig[ks[g]].0 + fig[k].0 > allowed {
                        continue;
                    }
                    let worth = spared / (more as f64 + 0.5);
                    if pick.is_none_or(|(w, _, _)| worth > w) {
                        pick = Some((worth, g, k));
                    }
                }
            }
            match pick {
                Some((_, g, k)) => ks[g] = k,
                None => break,
            }
        }
        Some(lines(ks.map(|k| grid[k])))
    };
    let (lex_passed, lex_refused) = outcome(&data, &reg, &Lines::NEVER);
    println!(
        "out of fold, the lexicon alone: harmful passed {lex_passed}/{harmful}, ordinary refused {lex_refused}/{ordinary}"
    );
    let floor = outcome(
        &data,
        &reg,
        &Lines {
            refuse: [0.01; 4],
            ordinary_below: -1.0,
            clear_below: -1.0,
            clear_short_below: -1.0,
        },
    );
    println!(
        "out of fold, refusing nearly all: harmful passed {}/{harmful}, ordinary refused {}/{ordinary}",
        floor.0, floor.1
    );
    // The clearing lines tried: none, then under 0.25 % to 5 % of the harms' readings, each
    // with the share of harms under it.
    let clearing_lines: Vec<(f64, f64)> = (0..=20)
        .map(|k| {
            let share = f64::from(k) * 0.0025;
            match k {
                0 => (share, -1.0),
                _ => (share, harmful_any(share).min(ordinary_below)),
            }
        })
        .collect();
    let mut chosen: Option<(Lines, usize)> = None;
    for &(share, clear_below) in &clearing_lines {
        let Some(lines) = best_for(clear_below, allowed) else {
            continue;
        };
        let (passed, refused) = outcome(&data, &reg, &lines);
        println!(
            "  clear below {clear_below:.3} ({:.2} % of harms under it): refuse at {:?} → {passed} passed, {refused} ordinary refused",
            share * 100.0,
            lines.refuse
        );
        if chosen.is_none_or(|(_, r)| refused < r) {
            chosen = Some((lines, refused));
        }
    }
    let (lines, _) = chosen.expect("some line lets at most the allowed share of harms pass");
    let (passed, refused) = outcome(&data, &reg, &lines);
    println!(
        "out of fold, chosen: refuse at {:?} ({}), ordinary_below {:.3}, clear_below {:.3}, clear_short_below {:.4}: harmful passed {passed}/{harmful}, ordinary refused {refused}/{ordinary}",
        lines.refuse, GROUPS.join(", "), lines.ordinary_below, lines.clear_below, lines.clear_short_below
    );
    // What the budget buys: the fewest ordinary tasks refused at a few tighter budgets, each
    // with its best clearing line, for whoever weighs one against the other.
    for budget in [0.005, 0.0075, 0.01, 0.0125] {
        let allowed = (harmful as f64 * budget).floor() as usize;
        let best = clearing_lines
            .iter()
            .filter_map(|&(_, clear_below)| {
                best_for(clear_below, allowed).map(|l| outcome(&data, &reg, &l))
            })
            .min_by_key(|&(_, refused)| refused);
        if let Some((passed, refused)) = best {
            println!(
                "  at most {:.2} % of harms passed: {passed} passed, {refused} ordinary refused",
                budget * 100.0
            );
        }
    }
    let never_short = Lines {
        clear_short_below: -1.0,
        ..lines
    };
    let (passed, refused) = outcome(&data, &reg, &never_short);
    println!(
        "  the same lines, never clearing a short task: harmful passed {passed}/{harmful}, ordinary refused {refused}/{ordinary}"
    );
    per_set(&items, &data, &reg, &lines);
    let mut model = train(&data, BUCKETS, TASK_L2, ITERATIONS);
    let labels: Vec<bool> = data.iter().map(|(_, harm)| *harm).collect();
    model.meaning = Some(meaning::train(&embeddings, &labels));
    model.precedents = Some(Precedents::new(&embeddings, &labels));
    model.refuse_at = lines.refuse[0] as f32;
    model.refuse_short_at = lines.refuse[1] as f32;
    model.refuse_silent_at = lines.refuse[2] as f32;
    model.refuse_silent_short_at = lines.refuse[3] as f32;
    model.ordinary_below = lines.ordinary_below as f32;
    model.clear_below = lines.clear_below as f32;
    model.clear_short_below = lines.clear_short_below as f32;
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/judge.bin");
    std::fs::write(&out, model.to_bytes()).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("wrote {}", out.display());
    let _ = Model::from_bytes(&std::fs::read(&out).expect("read back")).expect("valid model");
}

/// Out-of-fold figures per set with `lines`, so a set whose writer the rest do not carry to
/// stands out.
fn per_set(items: &[Item<Labelled>], data: &[(String, bool)], reg: &[Regimes], lines: &Lines) {
    let mut sets: Vec<(&str, usize, usize, usize, usize)> = Vec::new();
    for ((item, (_, harm)), r) in items.iter().zip(data).zip(reg) {
        if sets.last().is_none_or(|s| s.0 != item.set) {
            sets.push((item.set, 0, 0, 0, 0));
        }
        let s = sets.last_mut().expect("pushed");
        let refused = r.refused(lines);
        if *harm {
            s.1 += 1;
            s.2 += usize::from(!refused);
        } else {
            s.3 += 1;
            s.4 += usize::from(refused);
        }
    }
    for (set, h, passed, o, refused) in sets {
        println!(
            "    {set:<22} harmful passed {passed:>3}/{h:<3} ordinary refused {refused:>3}/{o}"
        );
    }
}
