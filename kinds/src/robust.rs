//! Property tests: nothing a relay can hand us makes `parse` or `fold_task` panic, and the fold's
//! result does not depend on input order.
//!
//! Inputs are real signed events. Contents are arbitrary strings or JSON trees whose keys come
//! from soul's field names (so validation, not just the JSON parser, gets exercised); tag values
//! include the placeholders `$task` and `$prev`, replaced by the task's and the previous event's
//! id so that generated events actually reach the fold's rules.
//!
//! The evaluation and restart folds have their own properties next to their tests
//! (`fold/evaluation/tests.rs`, `fold/restart/robust.rs`), built on [`raw`] and [`sign_raw`].

use nostr::{Event, EventBuilder, EventId, Keys, Kind, Tag, Timestamp};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};

use crate::content::*;
use crate::{fold_task, Brains, Roster, SoulKind};

const FIELDS: &[&str] = &[
    "title",
    "description",
    "priority",
    "type",
    "round",
    "vote",
    "opinion",
    "proposed_approach",
    "concerns",
    "confidence",
    "outcome",
    "tally",
    "yes",
    "reject",
    "mediated",
    "summary",
    "reasons",
    "status",
    "result",
    "verdict",
    "reason",
    "rules",
    "members",
    "pubkey",
    "name",
    "role",
    "weight",
    "lesson",
    "topic",
    "content",
    "history",
    "note_id",
    "params",
    "state",
    "cycle",
    "scores",
    "decision_quality",
    "collaboration",
    "effectiveness",
    "parameter_balance",
    "needs_retuning",
    "proposed_params",
    "risk_tolerance",
    "service",
];
const WORDS: &[&str] = &[
    "low",
    "high",
    "approve",
    "reject",
    "approve_with_modification",
    "approved",
    "rejected",
    "executing",
    "completed",
    "failed",
    "brain",
    "panda",
    "gorilla",
    "triceratops",
    "pending_approval",
    "c1",
    "",
    "$task",
    "root",
    "mention",
    "reply",
];

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-2.0f64..2.0).prop_map(Value::from),
        (0u8..5).prop_map(Value::from),
        select(WORDS).prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((select(FIELDS), inner), 0..8).prop_map(|kv| Value::Object(
                kv.into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<_, _>>()
            )),
        ]
    })
}

fn content() -> impl Strategy<Value = String> {
    prop_oneof![".{0,40}", json().prop_map(|v| v.to_string())]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        3 => select(SoulKind::ALL).prop_map(SoulKind::kind),
        1 => any::<u16>().prop_map(Kind::from),
    ]
}

fn tags() -> impl Strategy<Value = Vec<Vec<String>>> {
    let name = prop_oneof![
        select(&["e", "p", "a", "d", "t", "round", "cycle", "alt"][..]).prop_map(str::to_owned),
        ".{1,4}"
    ];
    let value = prop_oneof![
        select(WORDS).prop_map(str::to_owned),
        Just("$prev".to_owned()),
        "[0-9a-f]{64}",
        ".{0,6}"
    ];
    let tag = (name, prop::collection::vec(value, 0..4)).prop_map(|(n, mut v)| {
        v.insert(0, n);
        v
    });
    prop::collection::vec(tag, 0..5)
}

/// A generated event before signing: (kind, content, tags, signer index, seconds after the task).
pub(crate) type Raw = (Kind, String, Vec<Vec<String>>, usize, u64);

pub(crate) fn raw() -> impl Strategy<Value = Raw> {
    (kind(), content(), tags(), 0usize..4, 0u64..6)
}

/// A generated step of a plausible debate, so the property also walks deep into the rules.
#[derive(Debug, Clone)]
enum Walk {
    Opinion(u8, Vote, usize),
    /// Any decision: outcome, round, yes, reject, mediated, cited events, author.
    Decision(Outcome, u8, u8, u8, bool, Vec<usize>, usize),
    /// A decision consistent with the opinions so far: mediated, author.
    Decide(bool, usize),
    /// `None` cites the latest decision, `Some(n)` any earlier event.
    Announcement(Option<usize>, usize),
    Execution(ExecStatus, Option<usize>, usize),
    Raw(Raw),
}

fn walk() -> impl Strategy<Value = Walk> {
    let vote = select(&[Vote::Approve, Vote::ApproveWithModification, Vote::Reject][..]);
    let outcome = select(&[Outcome::Approved, Outcome::Rejected][..]);
    let status = select(
        &[
            ExecStatus::Executing,
            ExecStatus::Completed,
            ExecStatus::Failed,
        ][..],
    );
    // Mostly brains (0..3) and valid rounds, sometimes the owner (3) and out-of-range rounds.
    let who = || prop_oneof![5 => 0usize..3, 1 => Just(3usize)];
    let round = prop_oneof![5 => 1u8..4, 1 => 0u8..6];
    let cite = || prop::option::weighted(0.2, 0usize..16);
    // Decisions mostly by gorilla (1), announcements and executions mostly by triceratops (2).
    let by = |brain: usize| prop_oneof![3 => Just(brain), 1 => 0usize..4];
    prop_oneof![
        6 => (round, vote, who()).prop_map(|(r, v, w)| Walk::Opinion(r, v, w)),
        1 => (outcome, 0u8..5, 0u8..4, 0u8..4, any::<bool>(), prop::collection::vec(0usize..16, 0..4), who())
            .prop_map(|(o, r, y, n, m, refs, w)| Walk::Decision(o, r, y, n, m, refs, w)),
        2 => (prop::bool::weighted(0.2), by(1)).prop_map(|(m, w)| Walk::Decide(m, w)),
        2 => (cite(), by(2)).prop_map(|(d, w)| Walk::Announcement(d, w)),
        3 => (status, cite(), by(2)).prop_map(|(s, d, w)| Walk::Execution(s, d, w)),
        1 => raw().prop_map(Walk::Raw),
    ]
}

pub(crate) fn sign_raw(
    raw: &Raw,
    keys: &[Keys],
    task: EventId,
    prev: Option<EventId>,
    t: u64,
) -> Event {
    let (kind, content, tags, who, dt) = raw;
    let fill = |v: &String| match v.as_str() {
        "$task" => task.to_hex(),
        "$prev" => prev.unwrap_or(task).to_hex(),
        _ => v.clone(),
    };
    let tags = tags
        .iter()
        .filter_map(|t| Tag::parse(t.iter().map(fill)).ok());
    EventBuilder::new(*kind, content.clone())
        .tags(tags)
        .custom_created_at(Timestamp::from_secs(t + dt))
        .sign_with_keys(&keys[*who])
        .unwrap()
}

/// Sign the walk's events; opinions and decisions are remembered so later steps can cite them.
fn realise(steps: &[Walk], keys: &[Keys], task: EventId) -> Vec<Event> {
    let mut events: Vec<Event> = Vec::new();
    let mut opinions: Vec<(u8, usize, EventId, Vote)> = Vec::new();
    let mut last_decision = task;
    for (i, step) in steps.iter().enumerate() {
        // Two steps per second, so same-second ties happen too.
        let t = 1_700_000_000 + i as u64 / 2;
        let cite = |n: &Option<usize>| match n {
            Some(n) => events.get(n % events.len().max(1)).map_or(task, |e| e.id),
            None => last_decision,
        };
        let (builder, who) = match step {
            Walk::Opinion(round, vote, who) => {
                let o = Opinion {
                    round: *round,
                    vote: *vote,
                    opinion: "x".into(),
                    proposed_approach: String::new(),
                    concerns: vec![],
                    confidence: 0.5,
                    accepts: Vec::new(),
                };
                (opinion(task, &o), *who)
            }
            Walk::Decision(outcome, round, yes, reject, mediated, refs, who) => {
                let d = Decision {
                    outcome: *outcome,
                    round: *round,
                    tally: Tally {
                        yes: *yes,
                        reject: *reject,
                    },
                    mediated: *mediated,
                    summary: String::new(),
                };
                let ids: Vec<EventId> = refs.iter().map(|&n| cite(&Some(n))).collect();
                (decision(task, &d, &ids), *who)
            }
            Walk::Decide(mediated, who) => {
                let round = opinions.iter().map(|o| o.0).max().unwrap_or(1);
                let counted: Vec<_> = opinions.iter().filter(|o| o.0 == round).collect();
                let yes = counted.iter().filter(|o| o.3.is_yes()).count() as u8;
                let tally = Tally {
                    yes,
                    reject: counted.len() as u8 - yes,
                };
                let outcome = crate::decide(tally).unwrap_or(Outcome::Approved);
                let d = Decision {
                    outcome,
                    round,
                    tally,
                    mediated: *mediated,
                    summary: String::new(),
                };
                let ids: Vec<EventId> = counted.iter().map(|o| o.2).collect();
                (decision(task, &d, &ids), *who)
            }
            Walk::Announcement(d, who) => {
                let a = Announcement {
                    summary: "x".into(),
                    reasons: vec![],
                };
                (announcement(task, cite(d), &a), *who)
            }
            Walk::Execution(status, d, who) => {
                let x = Execution {
                    status: *status,
                    result: String::new(),
                };
                (execution(task, cite(d), &x), *who)
            }
            Walk::Raw(raw) => {
                let prev = events.last().map(|e| e.id);
                events.push(sign_raw(raw, keys, task, prev, t));
                continue;
            }
        };
        let event = builder
            .custom_created_at(Timestamp::from_secs(t))
            .sign_with_keys(&keys[who])
            .unwrap();
        match step {
            // Remember only opinions the fold will likely accept: a brain's first in a valid round.
            Walk::Opinion(round, vote, who)
                if *who < 3
                    && (1..=3).contains(round)
                    && !opinions.iter().any(|o| o.0 == *round && o.1 == *who)
                    && (*round == 1 || opinions.iter().any(|o| o.0 == round - 1)) =>
            {
                opinions.push((*round, *who, event.id, *vote))
            }
            Walk::Decide(..) => last_decision = event.id,
            _ => {}
        }
        events.push(event);
    }
    events
}

fn parse_all(event: &Event) {
    let _ = parse::<Task>(event);
    let _ = parse::<Opinion>(event);
    let _ = parse::<Decision>(event);
    let _ = parse::<Announcement>(event);
    let _ = parse::<Execution>(event);
    let _ = parse::<Review>(event);
    let _ = parse::<Evaluation>(event);
    let _ = parse::<Lesson>(event);
    let _ = parse::<Suggestion>(event);
    let _ = parse::<RestartStep>(event);
    let _ = parse::<AuditVerdict>(event);
    let _ = parse::<News>(event);
    let _ = parse::<TownEvent>(event);
    let _ = parse::<Heartbeat>(event);
    let _ = parse::<Params>(event);
    let _ = parse::<Draft>(event);
    let _ = parse::<WorkerState>(event);
    let _ = parse::<RosterContent>(event);
    let _ = Roster::from_event(event);
    let _ = crate::tags::task_ref(event);
    let _ = crate::tags::round_of(event);
    let _ = crate::tags::alt_of(event);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn parse_never_panics(raw in raw()) {
        let keys = [Keys::generate(), Keys::generate(), Keys::generate(), Keys::generate()];
        let event = sign_raw(&raw, &keys, EventId::all_zeros(), None, 1_700_000_000);
        parse_all(&event);
    }

    #[test]
    fn fold_never_panics_and_ignores_order(
        prefix in 0usize..=7,
        rest in prop::collection::vec(walk(), 0..16),
    ) {
        // A prefix of a legal debate gets the walk past `discussing`; the rest perturbs it.
        let mut steps = vec![
            Walk::Opinion(1, Vote::Approve, 0),
            Walk::Opinion(1, Vote::Reject, 1),
            Walk::Opinion(1, Vote::ApproveWithModification, 2),
            Walk::Decide(false, 1),
            Walk::Announcement(None, 2),
            Walk::Execution(ExecStatus::Executing, None, 2),
            Walk::Execution(ExecStatus::Completed, None, 2),
        ];
        steps.truncate(prefix);
        steps.extend(rest);
        // Keys 0..3 are panda, gorilla, triceratops; key 3 is the owner and no brain.
        let keys = [Keys::generate(), Keys::generate(), Keys::generate(), Keys::generate()];
        let brains = Brains { panda: keys[0].public_key(), gorilla: keys[1].public_key(), triceratops: keys[2].public_key() };
        let t = Task { title: "t".into(), description: String::new(), priority: Priority::Low, task_type: "task".into() };
        let task_event = task(&t, None).custom_created_at(Timestamp::from_secs(1_699_999_999)).sign_with_keys(&keys[3]).unwrap();
        let events = realise(&steps, &keys, task_event.id);
        for event in &events {
            parse_all(event);
        }
        let (state, rejected) = fold_task(&task_event, &events, &brains).unwrap();
        let reversed: Vec<Event> = events.iter().rev().cloned().collect();
        let again = fold_task(&task_event, &reversed, &brains).unwrap();
        prop_assert_eq!(&state, &again.0);
        prop_assert_eq!(&rejected, &again.1);
        // The status agrees with what was accepted.
        prop_assert_eq!(state.decision.is_none(), state.status == crate::TaskStatus::Discussing);
        if state.announcement.is_some() {
            prop_assert_eq!(state.decision.as_ref().map(|d| d.1.outcome), Some(Outcome::Approved));
        }
        prop_assert!(state.executions.is_empty() || state.announcement.is_some());
        prop_assert!(state.rounds.values().all(|r| !r.is_empty() && r.len() <= 3));
        // Every refusal is about an event we passed in.
        prop_assert!(rejected.iter().all(|r| events.iter().any(|e| e.id == r.event_id)));
    }
}
