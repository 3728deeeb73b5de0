//! Data-driven tests of the restart protocol: real signed events, the expected state and the
//! refusal reasons (substrings, in fold order); every case is also folded reversed and rotated.
//! The property that arbitrary events never panic the fold is in `robust`.

use nostr::{EventBuilder, Keys, Timestamp};

use super::*;
use crate::content::restart;
use crate::tags::{e_marked, ROOT};
pub(super) use BrainName::{Gorilla as G, Panda as P, Triceratops as T};
pub(super) use RestartStatus::{Approved, Completed, Failed, PendingApproval as Pending};

pub(super) const T0: u64 = 1_700_000_000;
pub(super) const OUTSIDER: usize = 3;

/// Three brains, an outsider, an approved task and an unapproved one.
pub(super) struct Town {
    pub(super) keys: [Keys; 4],
    pub(super) brains: Brains,
    pub(super) task: EventId,
    pub(super) unapproved: EventId,
    pub(super) allowlist: Vec<String>,
}

impl Town {
    pub(super) fn new() -> Self {
        let keys = [(); 4].map(|_| Keys::generate());
        let brains = Brains {
            panda: keys[0].public_key(),
            gorilla: keys[1].public_key(),
            triceratops: keys[2].public_key(),
        };
        let allowlist = ["triceratops", "brain-triceratops", "panda", "reporter"];
        Self {
            keys,
            brains,
            task: EventId::from_slice(&[7; 32]).unwrap(),
            unapproved: EventId::from_slice(&[8; 32]).unwrap(),
            allowlist: allowlist.map(str::to_owned).to_vec(),
        }
    }

    /// A step by `by` (0..3 brains, 3 the outsider) about `service` in `task`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn raw_step(
        &self,
        by: usize,
        status: RestartStatus,
        service: &str,
        reason: &str,
        task: EventId,
        request: Option<EventId>,
        t: u64,
    ) -> Event {
        let step = RestartStep {
            service: service.into(),
            status,
            reason: reason.into(),
        };
        self.sign(restart(task, request, &step), by, t)
    }

    /// Triceratops's request to restart `service` for the approved task.
    pub(super) fn request(&self, service: &str, t: u64) -> Event {
        self.raw_step(
            2,
            Pending,
            service,
            "apply my code change",
            self.task,
            None,
            t,
        )
    }

    /// An answer to `req` about its service, with a reason.
    pub(super) fn answer(
        &self,
        by: BrainName,
        status: RestartStatus,
        req: &Event,
        t: u64,
    ) -> Event {
        let service = parse::<RestartStep>(req).unwrap().service;
        let task = task_ref(req).unwrap();
        self.raw_step(by as usize, status, &service, "why", task, Some(req.id), t)
    }

    pub(super) fn sign(&self, builder: EventBuilder, by: usize, t: u64) -> Event {
        builder
            .custom_created_at(Timestamp::from_secs(T0 + t))
            .sign_with_keys(&self.keys[by])
            .unwrap()
    }

    pub(super) fn fold(
        &self,
        req: &Event,
        later: &[Event],
    ) -> Result<(RestartRequest, Vec<Rejected>), Error> {
        let approved = |id: &EventId| *id == self.task;
        let rules = RestartRules {
            allowlist: &self.allowlist,
            approved_tasks: &approved,
        };
        fold_restart(req, later, &self.brains, &rules)
    }
}

/// Fold forwards, reversed and rotated (the result must not depend on order) and compare.
fn check(
    town: &Town,
    req: &Event,
    later: &[Event],
    state: RestartState,
    reasons: &[&str],
) -> RestartRequest {
    let (folded, rejected) = town.fold(req, later).unwrap();
    let mut other = later.to_vec();
    other.reverse();
    let again = town.fold(req, &other).unwrap();
    assert_eq!((&folded, &rejected), (&again.0, &again.1), "reversed");
    other.rotate_left(later.len() / 2);
    let again = town.fold(req, &other).unwrap();
    assert_eq!((&folded, &rejected), (&again.0, &again.1), "rotated");
    assert_eq!(folded.state, state, "rejected: {rejected:#?}");
    let got: Vec<&str> = rejected.iter().map(|r| r.reason.detail.as_str()).collect();
    assert_eq!(got.len(), reasons.len(), "rejected: {got:#?}");
    for (got, want) in got.iter().zip(reasons) {
        assert!(got.contains(want), "reason {got:?} lacks {want:?}");
    }
    folded
}

#[test]
fn review_request_reasons() {
    use RestartState as S;
    let allow = Town::new().allowlist;
    let cases: &[(&str, BrainName, bool, Result<(), &str>)] = &[
        ("triceratops", T, true, Ok(())),
        ("brain-triceratops", T, true, Ok(())),
        ("reporter", T, true, Ok(())),
        ("panda", T, true, Err("service \"panda\" would restart the brain that performs it: nobody restarts itself")),
        ("brain-panda", T, true, Err("service \"brain-panda\" would restart the brain that performs it: nobody restarts itself")),
        ("gorilla", T, true, Err("service \"gorilla\" would restart the brain that approves it: nobody restarts itself")),
        ("x", T, true, Err("service \"x\" is not in the restart allowlist")),
        ("triceratops", T, false, Err("task has no approved decision")),
        ("triceratops", P, true, Err("restart requests come from triceratops, not panda")),
    ];
    for (service, requester, approved, want) in cases {
        let step = RestartStep {
            service: (*service).into(),
            status: Pending,
            reason: String::new(),
        };
        let got = review_request(&step, *requester, *approved, &allow);
        assert_eq!(
            got.as_ref().map(|_| ()).map_err(|r| r.detail.as_str()),
            *want,
            "{service} by {requester}"
        );
        // The rule is typed: a reader can tell a forbidden service from a wrong author.
        let rule = got.err().map(|r| r.rule);
        match *service {
            "x" | "panda" | "gorilla" => assert_eq!(rule, Some(crate::fold::Rule::Forbidden)),
            _ if *requester == P => assert_eq!(rule, Some(crate::fold::Rule::Author)),
            _ => {}
        }
    }
    assert!(S::Refused("no".into()).is_final() && !S::Approved.is_final());
    assert_eq!(S::Refused("no".into()).to_string(), "refused");
}

#[test]
fn approved_then_performed() {
    let town = Town::new();
    let req = town.request("triceratops", 0);
    let later = [
        town.answer(G, Approved, &req, 1),
        town.answer(P, Completed, &req, 2),
    ];
    let done = check(&town, &req, &later, RestartState::Completed, &[]);
    let authors: Vec<_> = done.steps.iter().map(|s| s.1).collect();
    assert_eq!(authors, [T, G, P]);
    assert_eq!((done.request, done.task), (req.id, town.task));
    check(&town, &req, &[], RestartState::Requested, &[]);
    check(&town, &req, &later[..1], RestartState::Approved, &[]);
    let failed = town.answer(P, Failed, &req, 2);
    check(
        &town,
        &req,
        &[later[0].clone(), failed],
        RestartState::Failed,
        &[],
    );
    // Same second: gorilla's answer comes before panda's; duplicates count once.
    let tied = [
        town.answer(P, Completed, &req, 0),
        town.answer(G, Approved, &req, 0),
    ];
    let twice: Vec<Event> = tied.iter().chain(&tied).cloned().collect();
    check(&town, &req, &twice, RestartState::Completed, &[]);
}

#[test]
fn gorilla_refuses_with_a_reason() {
    let town = Town::new();
    let req = town.request("triceratops", 0);
    let silent = town.raw_step(1, Failed, "triceratops", " ", town.task, Some(req.id), 1);
    let later = [
        silent,
        town.answer(G, Failed, &req, 2),
        town.answer(P, Completed, &req, 3),
        town.answer(G, Approved, &req, 4),
    ];
    let reasons = [
        "gorilla's refusal gives no reason",
        "step after the restart was refused",
        "step after the restart was refused",
    ];
    check(
        &town,
        &req,
        &later,
        RestartState::Refused("why".into()),
        &reasons,
    );
}

#[test]
fn gorilla_approves_only_what_passes_the_review() {
    let town = Town::new();
    for (req, why) in [
        (
            town.request("panda", 0),
            "would restart the brain that performs it",
        ),
        (
            town.request("gorilla", 0),
            "would restart the brain that approves it",
        ),
        (town.request("x", 0), "is not in the restart allowlist"),
        (
            town.raw_step(2, Pending, "triceratops", "", town.unapproved, None, 0),
            "task has no approved decision",
        ),
    ] {
        let later = [town.answer(G, Approved, &req, 1)];
        let folded = check(&town, &req, &later, RestartState::Requested, &[why]);
        assert_eq!(folded.steps.len(), 1);
        let refusal = [town.answer(G, Failed, &req, 2)];
        check(
            &town,
            &req,
            &refusal,
            RestartState::Refused("why".into()),
            &[],
        );
    }
}

#[test]
fn step_rules() {
    let town = Town::new();
    let req = town.request("triceratops", 0);
    let other_req = town.request("reporter", 1);
    let step = |by: usize, status, service, task, request: Option<&Event>, t| {
        town.raw_step(by, status, service, "r", task, request.map(|r| r.id), t)
    };
    let garbled = EventBuilder::new(SoulKind::Restart.kind(), "{")
        .tag(e_marked(town.task, ROOT))
        .tag(e_marked(req.id, "reply"));
    let later = [
        town.answer(P, Completed, &req, 1),
        step(OUTSIDER, Approved, "triceratops", town.task, Some(&req), 2),
        town.answer(T, Approved, &req, 3),
        town.answer(G, Completed, &req, 4),
        step(1, Approved, "reporter", town.task, Some(&req), 5),
        step(1, Approved, "triceratops", town.unapproved, Some(&req), 6),
        step(1, Approved, "triceratops", town.task, None, 7),
        town.sign(garbled, 1, 8),
        other_req.clone(),                       // another request: skipped
        town.answer(G, Approved, &other_req, 9), // its answer: skipped
        town.answer(G, Approved, &req, 10),
        town.answer(G, Approved, &req, 11),
        town.answer(P, Approved, &req, 12),
        town.answer(T, Pending, &req, 13),
    ];
    let reasons = [
        "panda's completed before gorilla's approval",
        "restart step author is not a brain",
        "triceratops only requests",
        "gorilla's step is approved or failed (a refusal), not completed",
        "step is about service \"reporter\", the request about \"triceratops\"",
        "does not reference the request's task",
        "names no request with an `e` tag",
        "unreadable content",
        "gorilla answers only a pending request, the restart is approved",
        "panda's step is completed or failed, not approved",
        "triceratops only requests",
    ];
    check(&town, &req, &later, RestartState::Approved, &reasons);
}

#[test]
fn invalid_requests() {
    let town = Town::new();
    for (req, why) in [
        (
            town.raw_step(0, Pending, "triceratops", "", town.task, None, 0),
            "restart requests come from triceratops, not panda",
        ),
        (
            town.raw_step(OUTSIDER, Pending, "triceratops", "", town.task, None, 0),
            "not a non-brain",
        ),
        (
            town.raw_step(2, Approved, "triceratops", "", town.task, None, 0),
            "a request is pending_approval, not approved",
        ),
    ] {
        let later = [town.answer(G, Approved, &req, 1)];
        let (folded, _) = town.fold(&req, &later).unwrap();
        let refused = matches!(&folded.state, RestartState::Refused(r) if r.contains(why));
        assert!(refused, "{:?}", folded.state);
        assert!(folded.steps.is_empty());
        check(
            &town,
            &req,
            &later,
            folded.state,
            &["step after the restart was refused"],
        );
    }
    let note = town.sign(EventBuilder::text_note("restart"), 2, 0);
    assert!(matches!(
        town.fold(&note, &[]),
        Err(Error::WrongKind { .. })
    ));
    let garbled = town.sign(EventBuilder::new(SoulKind::Restart.kind(), "{}"), 2, 0);
    assert!(matches!(town.fold(&garbled, &[]), Err(Error::Json { .. })));
    let step = RestartStep {
        service: "triceratops".into(),
        status: Pending,
        reason: String::new(),
    };
    let json = serde_json::to_string(&step).unwrap();
    let untied = town.sign(EventBuilder::new(SoulKind::Restart.kind(), json), 2, 0);
    let err = town.fold(&untied, &[]).unwrap_err();
    assert!(matches!(err, Error::MissingTag { tag: "e", .. }), "{err}");
}
