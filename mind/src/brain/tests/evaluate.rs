//! Evaluation cycles: scores from the record, retuning when the record or the params call for it.

use soul_kinds::{BrainName, Outcome, Params, SoulContent, TaskStatus, Vote};

use crate::brain::{evaluate, TaskRecord};

fn rec(outcome: Outcome, vote: Vote, status: TaskStatus) -> TaskRecord {
    TaskRecord {
        outcome,
        vote,
        status,
    }
}

const DONE_YES: TaskRecord = TaskRecord {
    outcome: Outcome::Approved,
    vote: Vote::Approve,
    status: TaskStatus::Completed,
};

#[test]
fn retuning_follows_the_record_and_the_params() {
    let done_no = rec(Outcome::Approved, Vote::Reject, TaskStatus::Completed);
    let failed_yes = rec(Outcome::Approved, Vote::Approve, TaskStatus::Failed);
    let rejected_no = rec(Outcome::Rejected, Vote::Reject, TaskStatus::Rejected);
    let wild = Params {
        risk_tolerance: 1.0,
        innovation_weight: 1.0,
        safety_weight: 0.0,
        thoroughness: 0.05,
        consensus_flexibility: 0.1,
    };
    let panda = BrainName::Panda.default_params();
    let gorilla = BrainName::Gorilla.default_params();
    // (target, its params, history, needs retuning)
    let cases: &[(BrainName, Params, Vec<TaskRecord>, bool)] = &[
        (
            BrainName::Panda,
            panda,
            vec![DONE_YES, DONE_YES, rejected_no],
            false,
        ),
        (
            BrainName::Panda,
            panda,
            vec![done_no, done_no, DONE_YES, rejected_no],
            true,
        ),
        (BrainName::Panda, panda, vec![done_no], false), // too little evidence
        (BrainName::Gorilla, gorilla, vec![], false),
        (BrainName::Gorilla, wild, vec![DONE_YES, DONE_YES], true),
        (
            BrainName::Gorilla,
            gorilla,
            vec![failed_yes, DONE_YES],
            false,
        ),
    ];
    for (target, params, history, want) in cases {
        let e = evaluate(
            BrainName::Triceratops,
            &BrainName::Triceratops.default_params(),
            *target,
            params,
            "2026-01-01T06",
            history,
        );
        e.validate().unwrap();
        assert_eq!(
            e.needs_retuning, *want,
            "{target} {history:?}: {}",
            e.reason
        );
        assert_eq!(e.proposed_params.is_some(), *want);
        if let Some(p) = e.proposed_params {
            // Toward balance: closer to the role's seed params than before.
            let d = target.default_params();
            let dist = |x: &Params| {
                (x.risk_tolerance - d.risk_tolerance).abs()
                    + (x.safety_weight - d.safety_weight).abs()
                    + (x.thoroughness - d.thoroughness).abs()
            };
            assert!(dist(&p) < dist(params) || dist(params) < 0.2, "{p:?}");
        }
        assert!(e.reason.starts_with("triceratops on "), "{}", e.reason);
    }
}

#[test]
fn scores_reflect_the_record_and_the_evaluator() {
    let good = vec![DONE_YES; 4];
    let bad = vec![rec(Outcome::Approved, Vote::Approve, TaskStatus::Failed); 4];
    let p = BrainName::Gorilla.default_params();
    let by = |ev: BrainName, h: &[TaskRecord]| {
        evaluate(ev, &ev.default_params(), BrainName::Gorilla, &p, "c", h)
    };
    let (g, b) = (by(BrainName::Panda, &good), by(BrainName::Panda, &bad));
    assert!(g.scores.decision_quality > b.scores.decision_quality);
    assert!(g.scores.effectiveness > b.scores.effectiveness);
    assert_eq!(g.scores.parameter_balance, 1.0);
    // Safety-minded panda judges a yes on a failed task harder than growth-minded triceratops does.
    assert!(
        by(BrainName::Panda, &bad).scores.decision_quality
            < by(BrainName::Triceratops, &bad).scores.decision_quality
    );
    // Unusable cycle strings are still valid events.
    let e = evaluate(
        BrainName::Panda,
        &p,
        BrainName::Gorilla,
        &p,
        &"x".repeat(100),
        &good,
    );
    e.validate().unwrap();
    evaluate(BrainName::Panda, &p, BrainName::Gorilla, &p, "", &good)
        .validate()
        .unwrap();
}
