//! A whole debate held in memory, as the brains hold it in a town
//! (`host/src/roles/brain/step.rs`): each brain with its seed params reads the rounds before,
//! a round is decided when its opinions agree (`soul_kinds::agreement`), and after round 3
//! triceratops mediates. The judgement bench and the trainer of the learned reading use it, so
//! both measure the decision a town would reach, not an approximation of it.

use nostr::hashes::{sha256, Hash};
use nostr::EventId;
use soul_kinds::{agreement, decide, BrainName, Opinion, Outcome, Priority, Tally, Task};

use super::features::Features;
use super::mediate::mediate;
use super::opinion::BrainContext;

/// The last round before triceratops mediates.
pub const LAST_ROUND: u8 = 3;

/// A task the owner sent with `text` as its title, and its event id: a hash of the text, so
/// every rehearsal of the same text is the same debate.
pub fn owner_task(text: &str) -> (Task, EventId) {
    let task = Task {
        title: text.to_owned(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".to_owned(),
    };
    let id = EventId::from_byte_array(sha256::Hash::hash(text.as_bytes()).to_byte_array());
    (task, id)
}

/// How a rehearsed debate went.
#[derive(Debug, Clone)]
pub struct Rehearsal {
    /// What the brains decided.
    pub outcome: Outcome,
    /// What round 1's 2-of-3 count alone would have decided (the rule before rounds).
    pub round_one: Outcome,
    /// The round it was decided in.
    pub round: u8,
    /// Whether triceratops mediated.
    pub mediated: bool,
    /// Every opinion, round by round.
    pub opinions: Vec<(BrainName, Opinion)>,
    /// Triceratops's reason, when it mediated.
    pub mediation: Option<String>,
}

/// The debate on `task` (whose event id is `task_id`) by the three brains at their seed params,
/// each opinion formed by `think`.
pub fn rehearse(
    task: &Task,
    task_id: EventId,
    features: &Features,
    think: &dyn Fn(&BrainContext) -> Opinion,
) -> Rehearsal {
    let mut previous: Vec<(BrainName, Opinion)> = Vec::new();
    let mut round_one = None;
    for round in 1..=LAST_ROUND {
        let this: Vec<(BrainName, Opinion)> = BrainName::ALL
            .iter()
            .map(|&brain| {
                let params = brain.default_params();
                let o = think(&BrainContext {
                    brain,
                    params: &params,
                    task_id,
                    task,
                    features,
                    round,
                    previous: &previous,
                    lessons: &[],
                });
                (brain, o)
            })
            .collect();
        let first = *round_one.get_or_insert_with(|| {
            let mut tally = Tally::default();
            for (_, o) in &this {
                if o.vote.is_yes() {
                    tally.yes += 1;
                } else {
                    tally.reject += 1;
                }
            }
            decide(tally).unwrap_or(Outcome::Rejected)
        });
        let by: Vec<(BrainName, &Opinion)> = this.iter().map(|(b, o)| (*b, o)).collect();
        let agreed = agreement(&by);
        previous.extend(this);
        if let Some(outcome) = agreed {
            return Rehearsal {
                outcome,
                round_one: first,
                round,
                mediated: false,
                opinions: previous,
                mediation: None,
            };
        }
    }
    let last: Vec<(BrainName, Opinion)> = previous
        .iter()
        .filter(|(_, o)| o.round == LAST_ROUND)
        .cloned()
        .collect();
    let params = BrainName::Triceratops.default_params();
    let (outcome, why) = mediate(task_id, task, features, &params, &last);
    Rehearsal {
        outcome,
        round_one: round_one.unwrap_or(outcome),
        round: LAST_ROUND,
        mediated: true,
        opinions: previous,
        mediation: Some(why),
    }
}
