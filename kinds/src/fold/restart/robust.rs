//! Property: arbitrary events never panic the restart fold, and their order never matters.
//!
//! Inputs are real signed events: mostly plausible steps (weighted towards ones that can be
//! accepted, so every state is reached), some anything at all from [`crate::robust::raw`].

use nostr::{Event, EventId};
use proptest::prelude::*;
use proptest::sample::select;

use super::tests::*;
use super::*;
use crate::robust::{raw, sign_raw, Raw};

/// A generated step: author, status, service, reason, cites (0 the request, 1 nothing, 2 another
/// event), seconds; or anything at all.
#[derive(Debug, Clone)]
enum Gen {
    Step(usize, RestartStatus, &'static str, &'static str, u8, u64),
    Raw(Raw),
}

fn gen() -> impl Strategy<Value = Gen> {
    let status = select(&[Pending, Approved, Completed, Failed][..]);
    // Weighted towards answers that can be accepted, so the walk reaches every state.
    let service =
        prop_oneof![3 => Just("triceratops"), 1 => select(&["panda", "gorilla", "x"][..])];
    let cite = prop_oneof![3 => Just(0u8), 1 => 1u8..3];
    let who = prop_oneof![1 => 0usize..4, 2 => Just(1usize), 2 => Just(0usize)];
    prop_oneof![
        4 => (who, status, service, select(&["", "no"][..]), cite, 0u64..3)
            .prop_map(|(w, s, v, r, c, t)| Gen::Step(w, s, v, r, c, t)),
        1 => raw().prop_map(Gen::Raw),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fold_restart_never_panics_and_ignores_order(
        first in prop::option::weighted(0.2, gen()),
        approved in prop::bool::weighted(0.8),
        prefix in 0usize..=2,
        rest in prop::collection::vec(gen(), 0..12),
    ) {
        // A prefix of a legal run (approve, complete) gets the walk past `requested`.
        let mut gens = vec![
            Gen::Step(1, Approved, "triceratops", "", 0, 0),
            Gen::Step(0, Completed, "triceratops", "", 0, 0),
        ];
        gens.truncate(prefix);
        gens.extend(rest);
        let town = Town::new();
        // Mostly a valid request, sometimes a generated one (valid or not).
        let req = match first {
            Some(Gen::Step(w, s, v, r, _, _)) => town.raw_step(w, s, v, r, town.task, None, 0),
            Some(Gen::Raw(raw)) => sign_raw(&raw, &town.keys, town.task, None, T0),
            None => town.request("triceratops", 0),
        };
        let later: Vec<Event> = gens.iter().enumerate().map(|(i, g)| match g {
            Gen::Step(w, s, v, r, cite, dt) => {
                let cited = [Some(req.id), None, Some(town.unapproved)][usize::from(*cite)];
                town.raw_step(*w, *s, v, r, town.task, cited, dt + i as u64 / 3)
            }
            Gen::Raw(raw) => sign_raw(raw, &town.keys, town.task, Some(req.id), T0 + i as u64 / 3),
        }).collect();
        let ok = |id: &EventId| approved && *id == town.task;
        let rules = RestartRules { allowlist: &town.allowlist, approved_tasks: &ok };
        let Ok((state, rejected)) = fold_restart(&req, &later, &town.brains, &rules) else {
            return Ok(());
        };
        let reversed: Vec<Event> = later.iter().rev().cloned().collect();
        let again = fold_restart(&req, &reversed, &town.brains, &rules).unwrap();
        prop_assert_eq!((&state, &rejected), (&again.0, &again.1));
        let statuses: Vec<_> = state.steps.iter().map(|(_, b, s)| (*b, s.status)).collect();
        let legal: &[&[(BrainName, RestartStatus)]] = &[
            &[],
            &[(T, Pending)],
            &[(T, Pending), (G, Failed)],
            &[(T, Pending), (G, Approved)],
            &[(T, Pending), (G, Approved), (P, Completed)],
            &[(T, Pending), (G, Approved), (P, Failed)],
        ];
        prop_assert!(legal.contains(&statuses.as_slice()), "{:?}", statuses);
        if statuses.len() >= 2 && statuses[1] == (G, Approved) {
            prop_assert!(approved && review_request(&state.steps[1].2, T, true, &town.allowlist).is_ok());
        }
        prop_assert!(rejected.iter().all(|r| later.iter().any(|e| e.id == r.event_id)));
    }
}
