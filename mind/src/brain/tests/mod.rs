//! Scenario tests of the built-in mind: tables of tasks and what the brains must do with them.

mod debate;
mod evaluate;
mod robust;
mod rounds;
mod texts;
mod words;

use nostr::EventId;
use soul_kinds::{BrainName, Opinion, Priority, SoulContent, Task};

use super::{features, opinion, BrainContext, Features, Lexicon};

/// A medium-priority task with `title` and no description.
pub(super) fn task(title: &str) -> Task {
    Task {
        title: title.to_owned(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".to_owned(),
    }
}

/// A task id that differs per `n`, as real event ids do per task.
pub(super) fn id(n: u64) -> EventId {
    let mut bytes = [0x5a; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    EventId::from_byte_array(bytes)
}

pub(super) fn feats(task: &Task) -> Features {
    features(task, &Lexicon::builtin())
}

/// Round 1 of the three brains with their seed params; every opinion must validate.
pub(super) fn round1(task: &Task, task_id: EventId) -> Vec<(BrainName, Opinion)> {
    round1_on(task, task_id, &feats(task))
}

/// Round 1 of the three brains on features `f` of `task`.
pub(super) fn round1_on(task: &Task, task_id: EventId, f: &Features) -> Vec<(BrainName, Opinion)> {
    BrainName::ALL
        .iter()
        .map(|&brain| {
            let params = brain.default_params();
            let o = opinion(&BrainContext {
                brain,
                params: &params,
                task_id,
                task,
                features: f,
                round: 1,
                previous: &[],
                lessons: &[],
            });
            o.validate()
                .unwrap_or_else(|e| panic!("{brain}: {e}: {o:?}"));
            (brain, o)
        })
        .collect()
}
