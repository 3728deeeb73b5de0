//! Data-driven fold tests: each case is a list of real signed events, the expected status and the
//! expected rejection reasons (substrings, in processing order).

use nostr::{EventBuilder, Keys, Kind, Timestamp};

use super::*;
use crate::content::{self, Priority, Tally, Task, Vote};
pub(super) use BrainName::{Gorilla as G, Panda as P, Triceratops as T};
pub(super) use ExecStatus::{Completed, Executing, Failed};
pub(super) use Outcome::{Approved, Rejected as No};
pub(super) use Vote::{Approve as Yes, ApproveWithModification as YesMod, Reject as Nay};

const T0: u64 = 1_700_000_000;

/// Three brains, an owner and the owner's task.
pub(super) struct Town {
    pub(super) owner: Keys,
    pub(super) brains_keys: [Keys; 3],
    pub(super) brains: Brains,
    pub(super) task: Event,
}

impl Town {
    pub(super) fn new() -> Self {
        let brains_keys = [Keys::generate(), Keys::generate(), Keys::generate()];
        let brains = Brains {
            panda: brains_keys[0].public_key(),
            gorilla: brains_keys[1].public_key(),
            triceratops: brains_keys[2].public_key(),
        };
        let owner = Keys::generate();
        let task = Task {
            title: "Back up the photos".into(),
            description: "Nightly, to the NAS".into(),
            priority: Priority::Medium,
            task_type: "task".into(),
        };
        let task = sign(content::task(&task, None), &owner, 0);
        Self {
            owner,
            brains_keys,
            brains,
            task,
        }
    }

    pub(super) fn keys(&self, brain: BrainName) -> &Keys {
        &self.brains_keys[brain as usize]
    }

    pub(super) fn op(&self, by: BrainName, round: u8, vote: Vote, t: u64) -> Event {
        sign(
            content::opinion(self.task.id, &opinion(round, vote)),
            self.keys(by),
            t,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn dec(
        &self,
        by: BrainName,
        out: Outcome,
        round: u8,
        tally: (u8, u8),
        mediated: bool,
        ops: &[&Event],
        t: u64,
    ) -> Event {
        let d = Decision {
            outcome: out,
            round,
            tally: Tally {
                yes: tally.0,
                reject: tally.1,
            },
            mediated,
            summary: String::new(),
        };
        let ids: Vec<EventId> = ops.iter().map(|e| e.id).collect();
        sign(content::decision(self.task.id, &d, &ids), self.keys(by), t)
    }

    pub(super) fn ann(&self, by: BrainName, decision: &Event, t: u64) -> Event {
        let a = Announcement {
            summary: "Backing up nightly".into(),
            reasons: vec![],
        };
        sign(
            content::announcement(self.task.id, decision.id, &a),
            self.keys(by),
            t,
        )
    }

    pub(super) fn exe(&self, by: BrainName, decision: &Event, status: ExecStatus, t: u64) -> Event {
        let x = Execution {
            status,
            result: String::new(),
        };
        sign(
            content::execution(self.task.id, decision.id, &x),
            self.keys(by),
            t,
        )
    }

    /// Round 1 with two approvals and a reject, and gorilla's decision on it.
    pub(super) fn approved(&self) -> Vec<Event> {
        let ops = [
            self.op(P, 1, Yes, 1),
            self.op(G, 1, YesMod, 2),
            self.op(T, 1, Nay, 3),
        ];
        let d = self.dec(
            G,
            Approved,
            1,
            (2, 1),
            false,
            &[&ops[0], &ops[1], &ops[2]],
            4,
        );
        let mut events = ops.to_vec();
        events.push(d);
        events
    }
}

pub(super) fn opinion(round: u8, vote: Vote) -> Opinion {
    Opinion {
        round,
        vote,
        opinion: "Reasoned view".into(),
        proposed_approach: String::new(),
        concerns: vec![],
        confidence: 0.7,
        accepts: Vec::new(),
    }
}

pub(super) fn sign(builder: EventBuilder, keys: &Keys, t: u64) -> Event {
    builder
        .custom_created_at(Timestamp::from_secs(T0 + t))
        .sign_with_keys(keys)
        .unwrap()
}

/// Fold `events` forwards and backwards (the result must not depend on order) and compare.
pub(super) fn check(
    town: &Town,
    events: &[Event],
    status: TaskStatus,
    reasons: &[&str],
) -> TaskState {
    let (state, rejected) = fold_task(&town.task, events, &town.brains).unwrap();
    let reversed: Vec<Event> = events.iter().rev().cloned().collect();
    let again = fold_task(&town.task, &reversed, &town.brains).unwrap();
    assert_eq!(
        (&state, &rejected),
        (&again.0, &again.1),
        "order changed the result"
    );
    assert_eq!(state.status, status, "rejected: {rejected:#?}");
    let got: Vec<&str> = rejected.iter().map(|r| r.reason.detail.as_str()).collect();
    assert_eq!(got.len(), reasons.len(), "rejected: {got:#?}");
    for (got, want) in got.iter().zip(reasons) {
        assert!(got.contains(want), "reason {got:?} lacks {want:?}");
    }
    state
}

#[test]
fn happy_path_reaches_completed() {
    let town = Town::new();
    let mut ev = town.approved();
    let d = ev[3].clone();
    ev.extend([
        town.ann(T, &d, 5),
        town.exe(T, &d, Executing, 6),
        town.exe(T, &d, Completed, 7),
    ]);
    let state = check(&town, &ev, TaskStatus::Completed, &[]);
    assert_eq!(state.tally(1), Tally { yes: 2, reject: 1 });
    assert_eq!(state.current_round(), 1);
    assert!(state.has_voted(T, 1) && !state.has_voted(T, 2));
    assert_eq!(state.executions.len(), 2);
    assert_eq!(state.decision.unwrap().0, d.id);
    for (n, status) in [
        (4, TaskStatus::PendingAnnouncement),
        (5, TaskStatus::Announced),
        (6, TaskStatus::Executing),
    ] {
        check(&town, &ev[..n], status, &[]);
    }
}

#[test]
fn rejected_decision_is_final() {
    let town = Town::new();
    let (a, b) = (town.op(P, 1, Nay, 1), town.op(G, 1, Nay, 2));
    let d = town.dec(G, No, 1, (0, 2), false, &[&a, &b], 3);
    let ev = [
        a,
        b,
        d.clone(),
        town.ann(T, &d, 4),
        town.exe(T, &d, Executing, 5),
    ];
    check(
        &town,
        &ev,
        TaskStatus::Rejected,
        &[
            "announcement of a rejected decision",
            "execution of a rejected decision",
        ],
    );
}

#[test]
fn failed_execution_is_final() {
    let town = Town::new();
    let mut ev = town.approved();
    let d = ev[3].clone();
    ev.extend([
        town.ann(T, &d, 5),
        town.exe(T, &d, Executing, 6),
        town.exe(T, &d, Failed, 7),
    ]);
    check(&town, &ev, TaskStatus::Failed, &[]);
}

#[test]
fn mediated_decision_after_three_split_rounds() {
    let town = Town::new();
    let ev = [
        town.op(P, 1, Yes, 1),
        town.op(G, 1, Nay, 2),
        town.op(P, 2, Yes, 3),
        town.op(G, 2, Nay, 4),
        town.op(P, 3, Yes, 5),
        town.op(G, 3, Nay, 6),
    ];
    let d = town.dec(T, Approved, 3, (1, 1), true, &[&ev[4], &ev[5]], 7);
    let mut all = ev.to_vec();
    all.push(d);
    let state = check(&town, &all, TaskStatus::PendingAnnouncement, &[]);
    assert_eq!(state.current_round(), 3);
}

#[test]
fn same_second_ties_follow_causal_order() {
    let town = Town::new();
    let (a, b) = (town.op(P, 1, Yes, 1), town.op(G, 1, Yes, 1));
    let d = town.dec(G, Approved, 1, (2, 0), false, &[&a, &b], 1);
    let ev = [
        a,
        b,
        d.clone(),
        town.ann(T, &d, 1),
        town.exe(T, &d, Completed, 1),
        town.exe(T, &d, Executing, 1),
    ];
    check(&town, &ev, TaskStatus::Completed, &[]);
}

#[test]
fn duplicates_count_once_and_a_bad_task_is_an_error() {
    let town = Town::new();
    let ev = town.approved();
    let doubled: Vec<Event> = ev.iter().chain(&ev).cloned().collect();
    check(&town, &doubled, TaskStatus::PendingAnnouncement, &[]);

    let not_a_task = town.op(P, 1, Yes, 1);
    let err = fold_task(&not_a_task, &ev, &town.brains).unwrap_err();
    assert!(matches!(err, Error::WrongKind { .. }), "{err}");
    let empty_title = sign(
        EventBuilder::new(
            Kind::from(4360),
            r#"{"title":"","description":"","priority":"low"}"#,
        ),
        &town.owner,
        0,
    );
    let err = fold_task(&empty_title, &[], &town.brains).unwrap_err();
    assert!(err.to_string().contains("field \"title\""), "{err}");
}

#[test]
fn decide_is_two_of_three() {
    let t = |yes, reject| Tally { yes, reject };
    assert_eq!(decide(t(2, 1)), Some(Approved));
    assert_eq!(decide(t(3, 0)), Some(Approved));
    assert_eq!(decide(t(0, 2)), Some(No));
    assert_eq!(decide(t(1, 1)), None);
    assert_eq!(decide(t(2, 2)), None);
    assert_eq!(
        TaskStatus::PendingAnnouncement.to_string(),
        "pending_announcement"
    );
    assert_eq!(
        serde_json::to_string(&TaskStatus::Rejected).unwrap(),
        "\"rejected\""
    );
}

/// Issue 14: two yes votes agree only when each took up the other's conditions.
#[test]
fn agreement_needs_the_conditions_taken_up() {
    let op = |round, vote, accepts: &[BrainName]| Opinion {
        accepts: accepts.to_vec(),
        ..opinion(round, vote)
    };
    let agree = |ops: &[(BrainName, Opinion)]| {
        let by: Vec<(BrainName, &Opinion)> = ops.iter().map(|(b, o)| (*b, o)).collect();
        agreement(&by)
    };
    // Two plain approvals: nothing to take up.
    assert_eq!(
        agree(&[(P, op(1, Yes, &[])), (G, op(1, Yes, &[]))]),
        Some(Approved)
    );
    // Two rejects reject, whatever the third says.
    assert_eq!(
        agree(&[
            (P, op(1, Nay, &[])),
            (G, op(1, Nay, &[])),
            (T, op(1, Yes, &[]))
        ]),
        Some(No)
    );
    // Round 1: a condition nobody has read yet keeps the debate open, though 3 of 3 say yes.
    assert_eq!(
        agree(&[
            (P, op(1, YesMod, &[])),
            (G, op(1, Yes, &[])),
            (T, op(1, YesMod, &[]))
        ]),
        None
    );
    // One side took the other's conditions up, not the other way round: still open.
    assert_eq!(
        agree(&[
            (P, op(2, YesMod, &[])),
            (G, op(2, YesMod, &[P])),
            (T, op(2, Nay, &[]))
        ]),
        None
    );
    // Both ways: agreed.
    assert_eq!(
        agree(&[
            (P, op(2, YesMod, &[G])),
            (G, op(2, YesMod, &[P])),
            (T, op(2, Nay, &[]))
        ]),
        Some(Approved)
    );
    // A plain approval that takes up a conditional one agrees with it.
    assert_eq!(
        agree(&[(P, op(2, YesMod, &[])), (T, op(2, Yes, &[P]))]),
        Some(Approved)
    );
    // One yes and one reject is no agreement; neither is a lone voice.
    assert_eq!(agree(&[(P, op(1, Yes, &[])), (G, op(1, Nay, &[]))]), None);
    assert_eq!(agree(&[(P, op(1, Yes, &[]))]), None);
}

/// A brain cannot agree with itself by taking up its own conditions.
#[test]
fn an_opinion_taking_up_its_own_conditions_is_refused() {
    let town = Town::new();
    let mut own = opinion(2, YesMod);
    own.accepts = vec![G];
    let ev = [
        town.op(P, 1, YesMod, 1),
        town.op(G, 1, YesMod, 2),
        sign(content::opinion(town.task.id, &own), town.keys(G), 3),
    ];
    check(
        &town,
        &ev,
        TaskStatus::Discussing,
        &["gorilla takes up its own conditions"],
    );
}
