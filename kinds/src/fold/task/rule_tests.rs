//! Data-driven tests of every refusal rule of the task fold, with the fixtures of `tests`.

use nostr::EventBuilder;

use super::tests::*;
use super::*;
use crate::content::{self, Tally};
use crate::tags::{e_marked, named, ROOT, ROUND};

#[test]
fn related_events_must_reference_this_task_and_parse() {
    let town = Town::new();
    let other = town.op(P, 1, Yes, 0);
    let stray = sign(
        content::opinion(other.id, &opinion(1, Yes)),
        town.keys(G),
        1,
    );
    let garbled = sign(
        EventBuilder::new(SoulKind::Opinion.kind(), "{").tag(e_marked(town.task.id, ROOT)),
        town.keys(P),
        2,
    );
    let round4 = town.op(T, 4, Yes, 3);
    let note = sign(
        EventBuilder::text_note("nice").tag(e_marked(town.task.id, ROOT)),
        town.keys(P),
        4,
    );
    let ev = [stray, garbled, round4, note, town.task.clone()];
    check(
        &town,
        &ev,
        TaskStatus::Discussing,
        &[
            "does not reference this task",
            "unreadable content",
            "field \"round\"",
        ],
    );
}

#[test]
fn opinion_rules() {
    let town = Town::new();
    let by_owner = sign(
        content::opinion(town.task.id, &opinion(1, Yes)),
        &town.owner,
        1,
    );
    let first = town.op(P, 1, Yes, 2);
    let again = town.op(P, 1, Nay, 3);
    let skip = town.op(G, 3, Yes, 4);
    let mislabelled = sign(
        EventBuilder::new(
            SoulKind::Opinion.kind(),
            serde_json::to_string(&opinion(2, Yes)).unwrap(),
        )
        .tag(e_marked(town.task.id, ROOT))
        .tag(named(ROUND, "1")),
        town.keys(T),
        5,
    );
    let ev = [by_owner, first.clone(), again, skip, mislabelled, first];
    let state = check(
        &town,
        &ev,
        TaskStatus::Discussing,
        &[
            "not a brain",
            "second opinion by panda in round 1",
            "round 3 opinion while round 2 has none",
            "round tag says 1 but content says 2",
        ],
    );
    assert_eq!(state.tally(1), Tally { yes: 1, reject: 0 });
}

#[test]
fn opinion_after_the_decision() {
    let town = Town::new();
    let mut ev = town.approved();
    ev.push(town.op(P, 2, Yes, 9));
    check(
        &town,
        &ev,
        TaskStatus::PendingAnnouncement,
        &["opinion after the decision"],
    );
}

#[test]
fn decision_authors() {
    let town = Town::new();
    let (a, b) = (town.op(P, 1, Yes, 1), town.op(G, 1, Yes, 2));
    let ev = [
        a.clone(),
        b.clone(),
        town.dec(P, Approved, 1, (2, 0), false, &[&a, &b], 3),
        town.dec(T, Approved, 1, (2, 0), false, &[&a, &b], 4),
    ];
    check(
        &town,
        &ev,
        TaskStatus::Discussing,
        &["must be gorilla", "must be gorilla"],
    );
}

#[test]
fn decision_counting_rules() {
    let town = Town::new();
    let (a, b, c) = (
        town.op(P, 1, Yes, 1),
        town.op(G, 1, Nay, 2),
        town.op(T, 1, Yes, 3),
    );
    let outsider = town.op(P, 2, Yes, 0); // refused: round 2 before round 1 has opinions
    let ev = [
        a.clone(),
        b.clone(),
        c.clone(),
        outsider.clone(),
        town.dec(G, Approved, 1, (0, 0), false, &[], 5),
        town.dec(G, Approved, 1, (2, 0), false, &[&a, &a], 6),
        town.dec(G, Approved, 2, (1, 0), false, &[&outsider], 7),
        town.dec(G, Approved, 1, (2, 1), false, &[&a, &c], 8),
        town.dec(G, Approved, 1, (1, 1), false, &[&a, &b], 9),
        town.dec(G, Approved, 1, (2, 0), true, &[&a, &c], 10),
        town.dec(G, No, 1, (2, 1), false, &[&a, &b, &c], 11),
        town.dec(G, Approved, 1, (2, 1), false, &[&a, &b, &c], 12),
        town.dec(G, Approved, 1, (2, 1), false, &[&a, &b, &c], 13),
    ];
    check(
        &town,
        &ev,
        TaskStatus::PendingAnnouncement,
        &[
            "round 2 opinion while round 1 has none",
            "counts no opinions",
            "twice",
            "is not an accepted opinion of round 2",
            "claimed tally 2/1 but the counted opinions give 2/0",
            "outcome approved does not follow from 1 yes / 1 reject",
            "mediated decision in round 1",
            "outcome rejected does not follow from 2 yes / 1 reject",
            "second decision",
        ],
    );
}

#[test]
fn announcement_rules() {
    let town = Town::new();
    let mut ev = town.approved();
    let d = ev[3].clone();
    let early = town.ann(T, &d, 0);
    let wrong = town.dec(G, Approved, 1, (2, 1), false, &[], 50); // only its id is used
    ev.extend([
        early,
        town.ann(G, &d, 5),
        town.ann(T, &wrong, 6),
        town.ann(T, &d, 7),
        town.ann(T, &d, 8),
    ]);
    check(
        &town,
        &ev,
        TaskStatus::Announced,
        &[
            "announcement before a decision",
            "announcement author must be triceratops",
            "references decision",
            "second announcement",
        ],
    );
}

#[test]
fn execution_rules() {
    let town = Town::new();
    let mut ev = town.approved();
    let d = ev[3].clone();
    ev.extend([
        town.exe(T, &d, Executing, 5),
        town.ann(T, &d, 6),
        town.exe(T, &d, Completed, 7),
        town.exe(G, &d, Executing, 8),
        town.exe(T, &town.task, Executing, 9),
        town.exe(T, &d, Executing, 10),
        town.exe(T, &d, Executing, 11),
        town.exe(T, &d, Completed, 12),
        town.exe(T, &d, Failed, 13),
    ]);
    check(
        &town,
        &ev,
        TaskStatus::Completed,
        &[
            "execution before the announcement",
            "completed only follows executing, status is announced",
            "execution author must be triceratops",
            "has no `e` tag for the decision",
            "executing only follows announced, status is executing",
            "execution after the task completed",
        ],
    );
}
