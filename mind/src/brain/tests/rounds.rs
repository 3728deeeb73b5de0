//! Rounds 2 and 3: reading the others, and changing one's mind as flexibility allows.

use soul_kinds::{BrainName, Opinion, Params, Vote};

use super::*;

const MIXED: &str = "Try the new experimental database in production this week to speed things up";
const MIXED_JA: &str = "今週、新しい実験的なデータベースを本番環境で試して高速化する";

/// `brain` in `round` with `flexibility`, after `others` voted as given (confidence 0.8 each).
fn later(
    title: &str,
    n: u64,
    brain: BrainName,
    flexibility: f64,
    others: &[(BrainName, Vote)],
) -> Opinion {
    let t = task(title);
    let f = feats(&t);
    let mut previous: Vec<(BrainName, Opinion)> = round1(&t, id(n));
    for (b, o) in previous.iter_mut() {
        if let Some((_, v)) = others.iter().find(|(x, _)| x == b) {
            o.vote = *v;
            o.confidence = 0.8;
        }
    }
    previous.retain(|(b, _)| *b == brain || others.iter().any(|(x, _)| x == b));
    let params = Params {
        consensus_flexibility: flexibility,
        ..brain.default_params()
    };
    let o = opinion(&BrainContext {
        brain,
        params: &params,
        task_id: id(n),
        task: &t,
        features: &f,
        round: 2,
        previous: &previous,
        lessons: &[],
    });
    o.validate().unwrap();
    o
}

const BOTH_YES: &[(BrainName, Vote)] = &[
    (BrainName::Gorilla, Vote::Approve),
    (BrainName::Triceratops, Vote::ApproveWithModification),
];

#[test]
fn flexibility_zero_never_switches() {
    for n in 0..100 {
        let o = later(MIXED, n, BrainName::Panda, 0.0, BOTH_YES);
        assert_eq!(o.vote, Vote::Reject, "id {n}");
        assert!(o.opinion.contains("still"), "{}", o.opinion);
    }
}

#[test]
fn flexibility_one_always_joins_a_two_brain_majority() {
    for n in 0..100 {
        let o = later(MIXED, n, BrainName::Panda, 1.0, BOTH_YES);
        assert_eq!(o.vote, Vote::ApproveWithModification, "id {n}");
        // It says it changed its mind, and who convinced it.
        assert!(o.opinion.contains("I now support it"), "{}", o.opinion);
        assert!(
            o.opinion.contains("gorilla") || o.opinion.contains("Gorilla"),
            "{}",
            o.opinion
        );
        let ja = later(MIXED_JA, n, BrainName::Panda, 1.0, BOTH_YES);
        assert!(ja.vote.is_yes());
        assert!(
            ja.opinion.contains("ゴリラ") && ja.opinion.contains("今は"),
            "{}",
            ja.opinion
        );
    }
    // The other way round: a yes joins two rejections.
    let both_no = [
        (BrainName::Panda, Vote::Reject),
        (BrainName::Triceratops, Vote::Reject),
    ];
    for n in 0..50 {
        let o = later(MIXED, n, BrainName::Gorilla, 1.0, &both_no);
        assert_eq!(o.vote, Vote::Reject, "id {n}");
        assert!(o.opinion.contains("I now oppose it"), "{}", o.opinion);
    }
}

#[test]
fn switching_grows_with_flexibility_and_with_the_number_of_others() {
    let rate = |flexibility: f64, others: &[(BrainName, Vote)]| {
        (0..300)
            .filter(|&n| {
                later(MIXED, n, BrainName::Panda, flexibility, others)
                    .vote
                    .is_yes()
            })
            .count()
    };
    let one = &BOTH_YES[..1];
    let (low, mid, high) = (
        rate(0.2, BOTH_YES),
        rate(0.5, BOTH_YES),
        rate(0.8, BOTH_YES),
    );
    assert!(low < mid && mid < high, "{low} {mid} {high}");
    assert!(rate(0.5, one) < mid, "one opponent pushes less than two");
    // About flexibility × pressure of the 300 draws.
    assert!((100..=200).contains(&mid), "{mid}");
}

#[test]
fn in_the_majority_a_brain_keeps_its_vote_and_says_so() {
    let with_panda = [
        (BrainName::Panda, Vote::Reject),
        (BrainName::Gorilla, Vote::Approve),
    ];
    let o = later(
        "Wire all our savings to an unknown account today",
        3,
        BrainName::Triceratops,
        1.0,
        &with_panda,
    );
    assert_eq!(o.vote, Vote::Reject);
    assert!(o.opinion.to_lowercase().contains("panda"), "{}", o.opinion);
}

#[test]
fn round_one_ignores_previous_and_rounds_are_clamped() {
    let t = task(MIXED);
    let f = feats(&t);
    let p = BrainName::Panda.default_params();
    let previous = round1(&t, id(1));
    let ctx = |round, previous| BrainContext {
        brain: BrainName::Panda,
        params: &p,
        task_id: id(1),
        task: &t,
        features: &f,
        round,
        previous,
        lessons: &[],
    };
    assert_eq!(opinion(&ctx(1, &previous)), opinion(&ctx(1, &[])));
    assert_eq!(opinion(&ctx(9, &previous)).round, 3);
    assert_eq!(opinion(&ctx(0, &[])).round, 1);
}
