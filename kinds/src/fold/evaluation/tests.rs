//! Data-driven tests of the evaluation fold: real signed events, the accepted (evaluator, target)
//! pairs, the retuned brains and the refusal reasons (substrings, in fold order); every case is
//! also folded reversed and rotated. Then a property: arbitrary events never panic it.

use nostr::{EventBuilder, Keys, Tag, Timestamp};
use proptest::prelude::*;
use proptest::sample::select;

use super::*;
use crate::content::{evaluation, Scores};
use crate::robust::{raw, sign_raw, Raw};
use crate::tags::named;
use BrainName::{Gorilla as G, Panda as P, Triceratops as T};

const T0: u64 = 1_700_000_000;
const C: &str = "2025-01-01T06";

/// Three brains and an outsider (index 3).
struct Town {
    keys: [Keys; 4],
    brains: Brains,
}

impl Town {
    fn new() -> Self {
        let keys = [(); 4].map(|_| Keys::generate());
        let brains = Brains {
            panda: keys[0].public_key(),
            gorilla: keys[1].public_key(),
            triceratops: keys[2].public_key(),
        };
        Self { keys, brains }
    }

    fn pk(&self, brain: BrainName) -> PublicKey {
        self.brains.key(brain)
    }

    /// `by` (0..3 brains, 3 the outsider) evaluates `target` in `cycle`.
    fn eval(
        &self,
        by: usize,
        target: PublicKey,
        needs: bool,
        params: Option<f64>,
        t: u64,
    ) -> Event {
        self.sign(evaluation(target, &content(C, needs, params)), by, t)
    }

    fn sign(&self, builder: EventBuilder, by: usize, t: u64) -> Event {
        builder
            .custom_created_at(Timestamp::from_secs(T0 + t))
            .sign_with_keys(&self.keys[by])
            .unwrap()
    }
}

/// An evaluation; `params` gives every proposed field that value.
fn content(cycle: &str, needs: bool, params: Option<f64>) -> Evaluation {
    let v = 0.5;
    Evaluation {
        cycle: cycle.into(),
        scores: Scores {
            decision_quality: v,
            collaboration: v,
            effectiveness: v,
            parameter_balance: v,
        },
        needs_retuning: needs,
        proposed_params: params.map(|p| Params {
            risk_tolerance: p,
            innovation_weight: p,
            safety_weight: p,
            thoroughness: p,
            consensus_flexibility: p,
        }),
        reason: if needs {
            format!("to {params:?}")
        } else {
            String::new()
        },
    }
}

type Folded = (Vec<AcceptedEvaluation>, Vec<Retune>, Vec<Rejected>);

/// Fold forwards, reversed and rotated (the result must not depend on order) and compare.
fn check(
    town: &Town,
    events: &[Event],
    accepted: &[(BrainName, BrainName)],
    retuned: &[BrainName],
    reasons: &[&str],
) -> Folded {
    let folded = fold_cycle(C, events, &town.brains);
    let mut other = events.to_vec();
    other.reverse();
    assert_eq!(folded, fold_cycle(C, &other, &town.brains), "reversed");
    other.rotate_left(events.len() / 2);
    assert_eq!(folded, fold_cycle(C, &other, &town.brains), "rotated");
    let (ok, retunes, rejected) = &folded;
    let pairs: Vec<_> = ok.iter().map(|(b, t, _, _)| (*b, *t)).collect();
    assert_eq!(pairs, accepted, "rejected: {rejected:#?}");
    let targets: Vec<_> = retunes.iter().map(|r| r.target).collect();
    assert_eq!(targets, retuned);
    let got: Vec<&str> = rejected.iter().map(|r| r.reason.detail.as_str()).collect();
    assert_eq!(got.len(), reasons.len(), "rejected: {got:#?}");
    for (got, want) in got.iter().zip(reasons) {
        assert!(got.contains(want), "reason {got:?} lacks {want:?}");
    }
    folded
}

#[test]
fn two_brains_agreeing_retune_the_third_with_the_mean() {
    let town = Town::new();
    let ev = [
        town.eval(0, town.pk(G), false, None, 1),
        town.eval(0, town.pk(T), true, Some(0.2), 2),
        town.eval(1, town.pk(P), true, Some(0.9), 3),
        town.eval(1, town.pk(T), true, Some(0.7), 4),
        town.eval(2, town.pk(P), false, Some(0.1), 5),
        town.eval(2, town.pk(G), true, Some(0.3), 6),
    ];
    let accepted = [(P, G), (P, T), (G, P), (G, T), (T, P), (T, G)];
    let (_, retunes, _) = check(&town, &ev, &accepted, &[T], &[]);
    let r = &retunes[0];
    assert_eq!(r.by, [P, G]);
    assert!((r.params.risk_tolerance - 0.45).abs() < 1e-12, "{r:?}");
    assert!((r.params.consensus_flexibility - 0.45).abs() < 1e-12);
    assert_eq!(r.evaluations, vec![ev[1].id, ev[3].id]);
    assert_eq!(r.reasons, vec!["to Some(0.2)", "to Some(0.7)"]);
    for n in 0..ev.len() {
        let retuned: &[BrainName] = if n >= 4 { &[T] } else { &[] };
        check(&town, &ev[..n], &accepted[..n], retuned, &[]);
    }
}

#[test]
fn missing_proposals() {
    let town = Town::new();
    // Gorilla: one proposal, so it is used as is. Triceratops: none, so nothing to apply.
    let ev = [
        town.eval(0, town.pk(G), true, None, 1),
        town.eval(2, town.pk(G), true, Some(0.6), 2),
        town.eval(0, town.pk(T), true, None, 3),
        town.eval(1, town.pk(T), true, None, 4),
    ];
    let accepted = [(P, G), (T, G), (P, T), (G, T)];
    let (_, retunes, _) = check(&town, &ev, &accepted, &[G], &[]);
    assert_eq!(retunes[0].by, [P, T]);
    assert_eq!(retunes[0].params.thoroughness, 0.6);
    assert_eq!(retunes[0].reasons, vec!["to None", "to Some(0.6)"]);
}

#[test]
fn who_may_evaluate_whom() {
    let town = Town::new();
    let outsider = town.keys[3].public_key();
    let two = |t| {
        let b = evaluation(town.pk(G), &content(C, true, None)).tag(Tag::public_key(town.pk(T)));
        town.sign(b, 0, t)
    };
    let none = town.sign(
        EventBuilder::new(
            SoulKind::Evaluation.kind(),
            to_json(&content(C, true, None)),
        ),
        0,
        4,
    );
    let same_twice = town.sign(
        evaluation(town.pk(G), &content(C, false, None)).tag(Tag::public_key(town.pk(G))),
        2,
        6,
    );
    let ev = [
        town.eval(3, town.pk(P), true, Some(0.1), 1),
        // rust-nostr drops a p tag naming the signer unless told otherwise; a crafted event may not.
        town.sign(
            evaluation(town.pk(P), &content(C, true, None)).allow_self_tagging(),
            0,
            2,
        ),
        town.eval(1, outsider, true, Some(0.1), 3),
        none,
        two(5),
        same_twice,
    ];
    let reasons = [
        "author is not a brain",
        "panda evaluates itself",
        "is not a brain",
        "has no `p` tag",
        "names 2 targets",
    ];
    check(&town, &ev, &[(T, G)], &[], &reasons);
}

#[test]
fn one_evaluation_per_pair_and_cycle() {
    let town = Town::new();
    let first = town.eval(0, town.pk(G), true, Some(0.1), 1);
    let ev = [
        town.eval(0, town.pk(G), false, None, 2),
        first.clone(),
        first, // the same event twice counts once
        town.eval(2, town.pk(G), true, Some(0.3), 3),
        town.eval(2, town.pk(G), true, Some(0.9), 3),
    ];
    let (_, retunes, _) = check(
        &town,
        &ev,
        &[(P, G), (T, G)],
        &[G],
        &[
            "second evaluation of gorilla by panda",
            "second evaluation of gorilla by triceratops",
        ],
    );
    assert!(retunes[0].evaluations.contains(&ev[1].id));
}

#[test]
fn cycles_and_unreadable_events() {
    let town = Town::new();
    let other = content("2024-12-31T18", true, Some(0.4));
    let other_cycle = town.sign(evaluation(town.pk(G), &other), 0, 1);
    let mislabelled = town.sign(
        EventBuilder::new(SoulKind::Evaluation.kind(), to_json(&other))
            .tag(Tag::public_key(town.pk(G)))
            .tag(named(CYCLE, C)),
        1,
        2,
    );
    let untagged = town.sign(
        EventBuilder::new(
            SoulKind::Evaluation.kind(),
            to_json(&content(C, false, None)),
        )
        .tag(Tag::public_key(town.pk(T))),
        0,
        3,
    );
    let garbled_here = EventBuilder::new(SoulKind::Evaluation.kind(), "{").tag(named(CYCLE, C));
    let garbled_elsewhere = EventBuilder::new(SoulKind::Evaluation.kind(), "{");
    let note = EventBuilder::text_note("cycle").tag(named(CYCLE, C));
    let ev = [
        other_cycle,
        mislabelled,
        untagged,
        town.sign(garbled_here, 2, 3),
        town.sign(garbled_elsewhere, 2, 3),
        town.sign(note, 2, 3),
    ];
    let reasons = [
        "cycle tag says \"2025-01-01T06\" but content says \"2024-12-31T18\"",
        "unreadable content",
    ];
    check(&town, &ev, &[(P, T)], &[], &reasons);
}

#[test]
fn params_change_allowed_only_within_bounds() {
    let current = P.default_params();
    assert!(params_change_allowed(&current, &G.default_params()));
    for bad in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
        let new = Params {
            safety_weight: bad,
            ..current
        };
        assert!(!params_change_allowed(&current, &new), "{bad}");
    }
    let edge = content(C, true, Some(1.0)).proposed_params.unwrap();
    assert!(params_change_allowed(&current, &edge));
    assert_eq!(mean(&edge, &current).thoroughness, 0.95);
}

fn to_json(e: &Evaluation) -> String {
    serde_json::to_string(e).unwrap()
}

/// A generated event: a plausible evaluation or anything at all.
#[derive(Debug, Clone)]
enum Gen {
    /// Author, target (3 the outsider, 4 an unknown key), cycle, needs, params, seconds.
    Eval(usize, usize, &'static str, bool, Option<f64>, u64),
    Raw(Raw),
}

fn gen() -> impl Strategy<Value = Gen> {
    let params = prop::option::of(prop_oneof![4 => 0.0f64..=1.0, 1 => -1.0f64..2.0]);
    prop_oneof![
        4 => (0usize..4, 0usize..5, select(&[C, "other"][..]), any::<bool>(), params, 0u64..4)
            .prop_map(|(b, t, c, n, p, s)| Gen::Eval(b, t, c, n, p, s)),
        1 => raw().prop_map(Gen::Raw),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fold_cycle_never_panics_and_ignores_order(
        prefix in 0usize..=6,
        rest in prop::collection::vec(gen(), 0..16),
    ) {
        // A prefix of a full cycle in which everyone asks for retuning; the rest perturbs it.
        let mut gens: Vec<Gen> = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
            .into_iter()
            .map(|(by, target)| Gen::Eval(by, target, C, true, Some(0.25 * by as f64), 0))
            .collect();
        gens.truncate(prefix);
        gens.extend(rest);
        let town = Town::new();
        let stranger = Keys::generate().public_key();
        let events: Vec<Event> = gens.iter().enumerate().map(|(i, g)| match g {
            Gen::Eval(by, target, cycle, needs, params, dt) => {
                let target = town.keys.get(*target).map_or(stranger, |k| k.public_key());
                town.sign(evaluation(target, &content(cycle, *needs, *params)), *by, dt + i as u64 / 3)
            }
            Gen::Raw(raw) => sign_raw(raw, &town.keys, EventId::all_zeros(), None, T0 + i as u64 / 3),
        }).collect();
        let (ok, retunes, rejected) = fold_cycle(C, &events, &town.brains);
        let reversed: Vec<Event> = events.iter().rev().cloned().collect();
        prop_assert_eq!(fold_cycle(C, &reversed, &town.brains), (ok.clone(), retunes.clone(), rejected.clone()));
        let pairs: BTreeSet<_> = ok.iter().map(|(b, t, _, _)| (*b, *t)).collect();
        prop_assert_eq!(pairs.len(), ok.len());
        prop_assert!(ok.iter().all(|(b, t, _, e)| b != t && e.cycle == C));
        for r in &retunes {
            prop_assert!(params_change_allowed(&r.target.default_params(), &r.params));
            prop_assert!(r.evaluations.iter().all(|id| ok.iter().any(|a| a.2 == *id)));
        }
        prop_assert!(rejected.iter().all(|r| events.iter().any(|e| e.id == r.event_id)));
    }
}
