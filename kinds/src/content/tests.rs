//! Builder → sign → parse round trips for every content type, and what errors look like.

use std::collections::BTreeMap;
use std::fmt::Debug;

use nostr::nips::nip01::Coordinate;
use nostr::{EventBuilder, EventId, Keys, Kind};

use super::*;
use crate::role::{BrainName, Role};
use crate::roster::RosterMember;
use crate::tags::{alt_of, e_refs, identifier_of, round_of, task_ref, value_of, TASK_HASHTAG};

fn signed(builder: EventBuilder) -> Event {
    builder.sign_with_keys(&Keys::generate()).unwrap()
}

/// Sign what the builder made, parse it back, and check the value and the `alt` tag survived.
fn round_trip<T: SoulContent + PartialEq + Debug>(value: &T, builder: EventBuilder) -> Event {
    let event = signed(builder);
    assert_eq!(event.kind, T::KIND.kind());
    assert_eq!(&parse::<T>(&event).unwrap(), value);
    assert_eq!(alt_of(&event), Some(value.alt().as_str()));
    event
}

fn id(byte: u8) -> EventId {
    EventId::from_slice(&[byte; 32]).unwrap()
}

fn sample_opinion() -> Opinion {
    Opinion {
        round: 2,
        vote: Vote::ApproveWithModification,
        opinion: "Worth doing, carefully.".into(),
        proposed_approach: "Back up to two places.".into(),
        concerns: vec!["disk space".into()],
        confidence: 0.75,
        accepts: Vec::new(),
    }
}

#[test]
fn debate_kinds_round_trip_with_their_tags() {
    let task_id = id(1);
    let owner = Keys::generate().public_key();
    let t = Task {
        title: "Back up the photos".into(),
        description: String::new(),
        priority: Priority::High,
        task_type: "task".into(),
    };
    let ev = round_trip(&t, task(&t, None));
    assert_eq!(ev.tags.hashtags().collect::<Vec<_>>(), vec![TASK_HASHTAG]);
    let relayed = Relayed {
        owner,
        source: id(9),
    };
    let ev = round_trip(&t, task(&t, Some(relayed)));
    assert_eq!(ev.tags.public_keys().collect::<Vec<_>>(), vec![&owner]);
    assert_eq!(task_ref(&ev), Some(id(9)));
    // A confirmation names the refused task in its own tag, not an `e` (which on a task names
    // what a relayed task relays), so it is never read as relayed.
    let ev = round_trip(&t, confirming(&t, id(7)));
    assert_eq!(confirms(&ev), Some(id(7)));
    assert_eq!(ev.tags.event_ids().count(), 0);
    assert_eq!(confirms(&round_trip(&t, task(&t, None))), None);

    let o = sample_opinion();
    let ev = round_trip(&o, opinion(task_id, &o));
    assert_eq!(task_ref(&ev), Some(task_id));
    assert_eq!(round_of(&ev), Some(2));
    assert_eq!(e_refs(&ev).next().unwrap().marker, Some("root"));

    let d = Decision {
        outcome: Outcome::Approved,
        round: 1,
        tally: Tally { yes: 2, reject: 1 },
        mediated: false,
        summary: "Two of three agree.".into(),
    };
    let ev = round_trip(&d, decision(task_id, &d, &[id(2), id(3)]));
    let refs: Vec<_> = e_refs(&ev).map(|r| (r.id, r.marker)).collect();
    assert_eq!(
        refs,
        vec![
            (task_id, Some("root")),
            (id(2), Some("mention")),
            (id(3), Some("mention"))
        ]
    );

    let a = Announcement {
        summary: "We back up nightly.".into(),
        reasons: vec!["safety".into()],
    };
    let ev = round_trip(&a, announcement(task_id, id(4), &a));
    assert_eq!(e_refs(&ev).nth(1).unwrap().marker, Some("reply"));
    let x = Execution {
        status: ExecStatus::Completed,
        result: "42 GB copied".into(),
    };
    let ev = round_trip(&x, execution(task_id, id(4), &x));
    assert_eq!(task_ref(&ev), Some(task_id));
}

#[test]
fn town_kinds_round_trip_with_their_tags() {
    let keys = Keys::generate();
    let addr = Coordinate::new(SoulKind::Draft.kind(), keys.public_key()).identifier("hana");
    let r = Review {
        verdict: ReviewVerdict::Rejected,
        reason: "Names a real person".into(),
        rules: vec!["ng-1".into()],
    };
    let ev = round_trip(&r, review(&addr, id(5), keys.public_key(), &r));
    assert_eq!(ev.tags.coordinates().next(), Some(&addr));
    assert_eq!(ev.tags.event_ids().next(), Some(&id(5)));
    assert_eq!(ev.tags.public_keys().next(), Some(&keys.public_key()));

    let d = Draft {
        content: "Sunny day at the harbour!".into(),
        status: DraftStatus::Posted,
        created_at: 1_700_000_000,
        posted_at: Some(1_700_000_600),
        note_id: Some(id(6).to_hex()),
        history: vec![DraftHistory {
            content: "v1".into(),
            status: DraftStatus::Rejected,
            at: 1,
        }],
    };
    let ev = round_trip(&d, draft("hana", &d));
    assert_eq!(identifier_of(&ev), Some("hana"));

    let n = News {
        title: "Harbour festival".into(),
        summary: "Boats and lights".into(),
        link: Some("https://example.org/festival".into()),
        source: "town-feed".into(),
        topics: vec!["Festival".into(), "harbour".into()],
    };
    let ev = round_trip(&n, news(&n));
    assert_eq!(
        ev.tags.hashtags().collect::<Vec<_>>(),
        vec!["festival", "harbour"]
    );

    let te = TownEvent {
        title: "Market".into(),
        description: String::new(),
        starts: 1_700_100_000,
        ends: Some(1_700_107_200),
    };
    round_trip(&te, town_event(&te));
    assert_eq!(te.over_at(), 1_700_107_200);
    // An older reporter's event (no `ends`) is over a day after it starts.
    let old: TownEvent =
        serde_json::from_str(r#"{"title":"Market","description":"","starts":1700100000}"#).unwrap();
    assert_eq!(old.over_at(), 1_700_100_000 + 24 * 3600);
    let backwards = TownEvent {
        ends: Some(1),
        ..te.clone()
    };
    let err = parse::<TownEvent>(&signed(town_event(&backwards))).unwrap_err();
    assert!(err.to_string().contains("field \"ends\""), "{err}");

    let members = vec![RosterMember {
        pubkey: keys.public_key(),
        name: "hana".into(),
        role: Role::Resident,
    }];
    let rc = RosterContent { members };
    let ev = round_trip(&rc, roster("hometown", &rc));
    assert!(
        ev.content.contains(&keys.public_key().to_hex()),
        "pubkeys are hex in JSON"
    );
}

#[test]
fn agent_kinds_round_trip_with_their_tags() {
    let target = Keys::generate().public_key();
    let e = Evaluation {
        cycle: "2025-01-01T06".into(),
        scores: Scores {
            decision_quality: 0.8,
            collaboration: 0.6,
            effectiveness: 0.7,
            parameter_balance: 0.4,
        },
        needs_retuning: true,
        proposed_params: Some(BrainName::Gorilla.default_params()),
        reason: "Too bold lately".into(),
    };
    let ev = round_trip(&e, evaluation(target, &e));
    assert_eq!(ev.tags.public_keys().next(), Some(&target));
    assert_eq!(value_of(&ev, "cycle"), Some("2025-01-01T06"));

    let l = Lesson {
        lesson: "Check disk space first".into(),
        weight: 60,
        topic: "backup".into(),
    };
    let ev = round_trip(&l, lesson(Some(id(7)), &l));
    assert_eq!(task_ref(&ev), Some(id(7)));
    let ev = round_trip(&l, lesson(None, &l));
    assert_eq!(task_ref(&ev), None);

    let s = Suggestion {
        title: "Rotate logs".into(),
        description: "They grow".into(),
    };
    round_trip(&s, suggestion(&s));

    let step = RestartStep {
        service: "reporter".into(),
        status: RestartStatus::PendingApproval,
        reason: "stuck".into(),
    };
    let ev = round_trip(&step, restart(id(1), Some(id(8)), &step));
    assert_eq!(e_refs(&ev).count(), 2);

    let v = AuditVerdict {
        proposal: "rm -rf /tmp/cache".into(),
        action: GuardAction::Confirm,
        reason: "deletes files".into(),
        check: "dangerous_ops".into(),
    };
    let ev = round_trip(&v, verdict(id(2), &v));
    assert_eq!(task_ref(&ev), Some(id(2)));

    let h = Heartbeat {
        status: "idle".into(),
        last_tick: 1_700_000_000,
        load: 0.25,
    };
    round_trip(&h, heartbeat(&h));

    let p = BrainName::Panda.default_params();
    let ev = round_trip(&p, params("panda", &p));
    assert_eq!(identifier_of(&ev), Some("panda"));

    let w = WorkerState {
        state: WorkerRun::Paused,
        params: BTreeMap::from([("rate".to_owned(), 0.5)]),
    };
    let ev = round_trip(&w, worker_state("buddy", &w));
    assert_eq!(identifier_of(&ev), Some("buddy"));
}

#[test]
fn memory_is_ciphertext_with_a_plain_serde_type() {
    let m = MemoryContent {
        short_term: vec!["met panda".into()],
        long_term: vec![],
        mood: 0.5,
        fatigue: 0.1,
    };
    let json = serde_json::to_string(&m).unwrap();
    assert_eq!(serde_json::from_str::<MemoryContent>(&json).unwrap(), m);
    let ev = signed(memory_builder("hana", "AgKs…ciphertext".into()));
    assert_eq!(ev.kind, SoulKind::Memory.kind());
    assert_eq!(ev.content, "AgKs…ciphertext");
    assert_eq!(identifier_of(&ev), Some("hana"));
    assert!(alt_of(&ev).is_some());
}

#[test]
fn errors_name_the_event_and_the_field() {
    let mut o = sample_opinion();
    o.confidence = 1.5;
    let ev = signed(opinion(id(1), &o));
    let err = parse::<Opinion>(&ev).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "event {}: field \"confidence\": must be within 0..=1",
            ev.id.to_hex()
        )
    );
    assert!(matches!(
        err,
        Error::Field {
            field: "confidence",
            ..
        }
    ));

    let ev = signed(EventBuilder::new(
        SoulKind::Task.kind(),
        r#"{"title":"t","description":""}"#,
    ));
    let err = parse::<Task>(&ev).unwrap_err().to_string();
    assert!(err.starts_with(&format!("event {}:", ev.id)), "{err}");
    assert!(err.contains("missing field `priority`"), "{err}");

    let ev = signed(EventBuilder::new(
        SoulKind::Opinion.kind(),
        r#"{"round":"one"}"#,
    ));
    assert!(matches!(parse::<Opinion>(&ev), Err(Error::Json { .. })));

    let ev = signed(EventBuilder::text_note("hello"));
    let err = parse::<Task>(&ev).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("event {}: expected kind task (4360), found kind 1", ev.id)
    );

    let huge = format!("{{\"title\":\"{}\"}}", "x".repeat(MAX_CONTENT_BYTES));
    let ev = signed(EventBuilder::new(SoulKind::Task.kind(), huge));
    assert!(matches!(parse::<Task>(&ev), Err(Error::TooLarge { .. })));
}

#[test]
fn unknown_fields_are_ignored_and_type_defaults_to_task() {
    let json = r#"{"title":"t","description":"","priority":"low","from_the_future":[1,2]}"#;
    let ev = signed(EventBuilder::new(Kind::from(4360), json));
    let t = Task::try_from(&ev).unwrap();
    assert_eq!(t.task_type, "task");
    assert_eq!(serde_json::to_value(&t).unwrap()["type"], "task");
}

#[test]
fn field_rules() {
    let bad = |ev: Event, field: &str| {
        let err = parse::<Draft>(&ev).unwrap_err().to_string();
        assert!(err.contains(&format!("field \"{field}\"")), "{err}");
    };
    let mut d = Draft {
        content: "hi".into(),
        status: DraftStatus::Posted,
        created_at: 1,
        posted_at: Some(2),
        note_id: None,
        history: vec![],
    };
    bad(signed(draft("a", &d)), "note_id");
    d.note_id = Some("zz".into());
    bad(signed(draft("a", &d)), "note_id");
    d.note_id = Some(id(1).to_hex());
    d.history = vec![
        DraftHistory {
            content: "x".into(),
            status: DraftStatus::Pending,
            at: 0
        };
        21
    ];
    bad(signed(draft("a", &d)), "history");

    let l = Lesson {
        lesson: "x".into(),
        weight: 101,
        topic: "t".into(),
    };
    assert_eq!(l.validate().unwrap_err().field, "weight");
    let r = Review {
        verdict: ReviewVerdict::Rejected,
        reason: String::new(),
        rules: vec![],
    };
    assert_eq!(r.validate().unwrap_err().field, "reason");
    let mut p = BrainName::Panda.default_params();
    p.safety_weight = -0.1;
    assert_eq!(p.validate().unwrap_err().field, "safety_weight");
    let h = Heartbeat {
        status: "ok".into(),
        last_tick: 0,
        load: f64::NAN,
    };
    assert_eq!(h.validate().unwrap_err().field, "load");
    let mut o = sample_opinion();
    o.concerns = vec![String::new()];
    assert_eq!(
        o.validate().unwrap_err().to_string(),
        "field \"concerns\": entry 0 must not be empty"
    );
    assert_eq!(one_line("a\n b  c", 10), "a b c");
    assert_eq!(one_line("abcdef", 4), "abc…");
}

/// Who may publish a task: a table of authors and relay tags.
#[test]
fn only_the_owner_gorilla_for_dms_and_triceratops_for_suggestions_publish_tasks() {
    let [owner, panda, gorilla, tri, stranger] = std::array::from_fn(|_| Keys::generate());
    let brains = crate::roster::Brains {
        panda: panda.public_key(),
        gorilla: gorilla.public_key(),
        triceratops: tri.public_key(),
    };
    let t = Task {
        title: "Back up the photos".into(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    let relayed = Some(Relayed {
        owner: owner.public_key(),
        source: id(7),
    });
    let bare_p = |k: &Keys| {
        task(&t, None)
            .tag(nostr::Tag::public_key(owner.public_key()))
            .sign_with_keys(k)
            .unwrap()
    };
    let cases: Vec<(&str, Event, bool)> = vec![
        (
            "owner",
            task(&t, None).sign_with_keys(&owner).unwrap(),
            true,
        ),
        (
            "gorilla relaying",
            task(&t, relayed).sign_with_keys(&gorilla).unwrap(),
            true,
        ),
        (
            "triceratops relaying",
            task(&t, relayed).sign_with_keys(&tri).unwrap(),
            true,
        ),
        (
            "panda relaying",
            task(&t, relayed).sign_with_keys(&panda).unwrap(),
            false,
        ),
        (
            "gorilla for itself",
            task(&t, None).sign_with_keys(&gorilla).unwrap(),
            false,
        ),
        ("gorilla without a source", bare_p(&gorilla), false),
        (
            "a stranger relaying",
            task(&t, relayed).sign_with_keys(&stranger).unwrap(),
            false,
        ),
    ];
    for (who, event, ok) in cases {
        let got = may_publish_task(&event, &owner.public_key(), &brains);
        assert_eq!(got.is_ok(), ok, "{who}: {got:?}");
        // Only the owner's own signature makes a task the owner's (issue 20).
        let origin = crate::task_origin(&event, &owner.public_key(), &brains);
        assert_eq!(origin.is_ok(), ok, "{who}: {origin:?}");
        if let Ok(o) = origin {
            assert_eq!(
                o.is_owner_signed(),
                event.pubkey == owner.public_key(),
                "{who}"
            );
        }
    }
}

/// `accepts` says whose conditions an opinion takes up; it has no sense in round 1, on a
/// reject, or twice.
#[test]
fn accepts_is_checked() {
    let bad = |round, vote, accepts: Vec<BrainName>, why: &str| {
        let o = Opinion {
            round,
            vote,
            accepts,
            ..sample_opinion()
        };
        let err = parse::<Opinion>(&signed(opinion(id(1), &o))).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    };
    bad(
        1,
        Vote::Approve,
        vec![BrainName::Panda],
        "round 1 has no conditions",
    );
    bad(2, Vote::Reject, vec![BrainName::Panda], "a reject takes up");
    bad(
        2,
        Vote::Approve,
        vec![BrainName::Panda, BrainName::Panda],
        "names a brain twice",
    );
    let good = Opinion {
        accepts: vec![BrainName::Panda],
        ..sample_opinion()
    };
    let ev = round_trip(&good, opinion(id(1), &good));
    assert!(
        ev.content.contains(r#""accepts":["panda"]"#),
        "{}",
        ev.content
    );
    // Older events without the field still parse.
    let plain = round_trip(&sample_opinion(), opinion(id(1), &sample_opinion()));
    assert!(!plain.content.contains("accepts"), "{}", plain.content);
}

/// Only the word itself confirms: an unclear answer is a no.
#[test]
fn only_the_word_confirm_is_a_confirmation() {
    for yes in ["confirm", " Confirm. ", "CONFIRM!", "確認", "確認。"] {
        assert!(says_confirm(yes), "{yes:?}");
    }
    for no in [
        "",
        "ok",
        "yes",
        "ok sure, whatever",
        "confirm later",
        "don't confirm",
        "確認しない",
        "未確認",
    ] {
        assert!(!says_confirm(no), "{no:?}");
    }
}
