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

/// `brain`'s round-2 opinion when `other` attached `conditions` to its yes in round 1.
fn answering(
    n: u64,
    brain: BrainName,
    params: Params,
    other: BrainName,
    conditions: &str,
    took_up_before: bool,
) -> Opinion {
    let t = task("Back up the family photos to the external disk every Sunday");
    let f = feats(&t);
    let mut previous: Vec<(BrainName, Opinion)> = round1(&t, id(n));
    for (b, o) in previous.iter_mut() {
        if *b == other {
            o.vote = Vote::ApproveWithModification;
            o.proposed_approach = conditions.to_owned();
        }
    }
    let mut later_rounds = previous.clone();
    if took_up_before {
        // As if `brain` had already taken `other`'s conditions up in round 2; this is round 3.
        let mut mine = previous
            .iter()
            .find(|(b, _)| *b == brain)
            .unwrap()
            .1
            .clone();
        mine.round = 2;
        mine.vote = Vote::Approve;
        mine.accepts = vec![other];
        later_rounds.push((brain, mine));
        let mut theirs = previous
            .iter()
            .find(|(b, _)| *b == other)
            .unwrap()
            .1
            .clone();
        theirs.round = 2;
        later_rounds.push((other, theirs));
    }
    let round = if took_up_before { 3 } else { 2 };
    let o = opinion(&BrainContext {
        brain,
        params: &params,
        task_id: id(n),
        task: &t,
        features: &f,
        round,
        previous: &later_rounds,
        lessons: &[],
    });
    o.validate().unwrap();
    o
}

const VERIFY: &str = "Verify each copy by checksum before deleting anything";

#[test]
fn a_flexible_careful_brain_takes_the_conditions_up_and_quotes_them() {
    let params = Params {
        consensus_flexibility: 1.0,
        safety_weight: 1.0,
        ..BrainName::Triceratops.default_params()
    };
    let mut yes = 0;
    for n in 0..40 {
        let o = answering(
            n,
            BrainName::Triceratops,
            params,
            BrainName::Panda,
            VERIFY,
            false,
        );
        if !o.vote.is_yes() {
            assert!(o.accepts.is_empty(), "a reject takes nothing up: {o:?}");
            continue;
        }
        yes += 1;
        assert_eq!(o.accepts, vec![BrainName::Panda], "id {n}: {}", o.opinion);
        assert!(
            o.proposed_approach.contains(VERIFY),
            "{}",
            o.proposed_approach
        );
        assert!(o.opinion.contains(VERIFY), "{}", o.opinion);
    }
    assert!(yes > 20, "a backup is worth doing: {yes} yes of 40");
}

#[test]
fn a_stiff_brain_sometimes_holds_and_says_why_but_keeps_what_it_took_up() {
    let params = Params {
        consensus_flexibility: 0.0,
        safety_weight: 0.0,
        ..BrainName::Gorilla.default_params()
    };
    let (mut took, mut held) = (0, 0);
    for n in 0..200 {
        let o = answering(
            n,
            BrainName::Gorilla,
            params,
            BrainName::Panda,
            VERIFY,
            false,
        );
        if !o.vote.is_yes() {
            continue;
        }
        if o.accepts.is_empty() {
            held += 1;
            assert!(o.opinion.contains("do not take up"), "{}", o.opinion);
        } else {
            took += 1;
        }
        // Whatever it did once, it does not go back on in the next round.
        let again = answering(
            n,
            BrainName::Gorilla,
            params,
            BrainName::Panda,
            VERIFY,
            true,
        );
        if again.vote.is_yes() {
            assert_eq!(again.accepts, vec![BrainName::Panda], "{}", again.opinion);
        }
    }
    // At 0.35 a draw, both happen; neither is everything.
    assert!(took > 20 && held > 20, "took {took}, held {held}");
}

/// Conditions that rest only on concerns a brain raises itself ask nothing new of it: even a
/// stiff brain takes them up, so two yes votes with the same concerns agree without mediation.
#[test]
fn a_stiff_brain_takes_up_conditions_it_already_holds() {
    let params = Params {
        consensus_flexibility: 0.0,
        safety_weight: 0.0,
        ..BrainName::Gorilla.default_params()
    };
    let t = task(MIXED);
    let f = feats(&t);
    let mut checked = 0;
    for n in 0..40 {
        let ctx = |round, previous| BrainContext {
            brain: BrainName::Gorilla,
            params: &params,
            task_id: id(n),
            task: &t,
            features: &f,
            round,
            previous,
            lessons: &[],
        };
        let mine = opinion(&ctx(1, &[]));
        if mine.concerns.is_empty() {
            continue;
        }
        let mut panda = mine.clone();
        panda.vote = Vote::ApproveWithModification;
        panda.proposed_approach = "Keep a rollback ready".to_owned();
        let previous = vec![(BrainName::Gorilla, mine), (BrainName::Panda, panda)];
        let o = opinion(&ctx(2, &previous));
        if o.vote == Vote::ApproveWithModification {
            checked += 1;
            assert_eq!(o.accepts, vec![BrainName::Panda], "id {n}: {}", o.opinion);
        }
    }
    assert!(checked > 10, "only {checked} of 40 rounds to check");
}
