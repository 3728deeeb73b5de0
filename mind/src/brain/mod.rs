//! The built-in deterministic mind of the three brains (DESIGN §6, seed 000).
//!
//! Pure functions: the only I/O is [`Lexicon::load`]. A brain's vote comes from its params times
//! the task's [`Features`]; its words come from phrase tables in its own voice, chosen by a ChaCha
//! generator seeded from (task id, brain, round), so the same inputs always give the same events
//! and different tasks read differently.
//!
//! # Layout
//! - [`lexicon`]: the risk / urgency / opportunity / safety concepts (`rules/brain_lexicon.yaml`).
//! - [`features`]: what a task contains ([`features()`]); `amount` reads sums of money,
//!   `matching` finds the lexicon's words, `negation` turns a removed safeguard ("delete the backups") into a risk.
//! - `harm`: what the task does, read as an action on an object with negation and protective
//!   intent; `segment` says where a Japanese word may start and end (no dictionary).
//! - [`learned`]: a logistic regression over character n-grams trained on the labelled tasks,
//!   blended with [`meaning`] (a network over the task's sentence embedding) and [`precedent`]
//!   (the vote of the labelled tasks nearest in meaning); it adds caution where the lexicon saw
//!   no harm, and clears a lone risk word only when it is sure.
//! - `lean`: the params × features score every decision starts from.
//! - [`opinion()`]: one brain's opinion in one round; `persuade` decides whether it changes its
//!   mind in rounds 2 and 3, `conditions` whether it takes up the others' conditions.
//! - [`mediate()`], [`decision_summary`]: triceratops's mediation, gorilla's decision summary.
//! - [`announcement()`], [`execution_plan`]: triceratops's texts after an approval.
//! - [`evaluate()`]: one brain scoring another in an evaluation cycle.
//! - [`rehearse()`]: a whole debate held in memory, for the bench and the trainer.
//! - [`training`]: the labelled sets, their folds and out-of-fold scoring, for the trainers.
//! - `voice`: the phrases, per brain and language.
//!
//! **Architecture invariant:** nothing here reads the clock, the network or a global random
//! source; every output is a function of the arguments.

mod amount;
pub mod announce;
mod conditions;
pub mod evaluate;
pub mod features;
mod harm;
mod lbfgs;
mod lean;
pub mod learned;
pub mod lexicon;
mod matching;
pub mod meaning;
pub mod mediate;
mod negation;
pub mod opinion;
mod persuade;
pub mod precedent;
pub mod rehearse;
mod segment;
pub mod training;
mod voice;

#[cfg(test)]
mod tests;

pub use announce::{announcement, execution_plan};
pub use evaluate::{evaluate, TaskRecord};
pub use features::{
    features, features_scored, features_with, task_text, Category, Features, Hit, Language,
};
pub use lexicon::{Entry, Lexicon, Text};
/// The word matcher, shared with the reviewer so both read words the same way.
pub use matching::match_at;
pub use mediate::{decision_summary, mediate};
pub use opinion::{harm_floor, opinion, BrainContext};
pub use rehearse::{owner_task, rehearse, Rehearsal};

use nostr::EventId;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use soul_kinds::BrainName;

/// What a generator is for, so that the vote's noise and the phrasing draw from separate
/// streams and a new phrase table never changes a vote.
#[derive(Clone, Copy)]
enum Purpose {
    Noise = 1,
    Words = 2,
    Persuade = 3,
    Conditions = 4,
}

/// The generator for (task, brain, round, purpose): the task id is the key, the rest the stream.
fn rng(task_id: EventId, brain: BrainName, round: u8, purpose: Purpose) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::from_seed(task_id.to_bytes());
    let brain = brain as u64 + 1;
    rng.set_stream((brain << 16) | (u64::from(round) << 8) | purpose as u64);
    rng
}

/// `text` cut to at most `max` characters, with an ellipsis when cut; event fields have limits.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The task's title on one line, short enough to quote.
fn quote_title(title: &str) -> String {
    clip(&title.split_whitespace().collect::<Vec<_>>().join(" "), 80)
}

/// Words cited in a sentence: `"a", "b" and "c"` or `「a」「b」「c」`, at most four.
fn cite(words: &[String], language: Language) -> String {
    let words: Vec<&String> = words.iter().take(4).collect();
    match language {
        Language::Ja => words.iter().map(|w| format!("「{w}」")).collect(),
        Language::En => {
            let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            match quoted.as_slice() {
                [] => String::new(),
                [one] => one.clone(),
                [init @ .., last] => format!("{} and {last}", init.join(", ")),
            }
        }
    }
}
