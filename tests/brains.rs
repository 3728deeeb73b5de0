//! Brains: three `soul-agent` processes debate owner tasks over `soul relay`.

use std::collections::HashSet;
use std::process::Stdio;
use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_kinds::content::{evaluation, opinion, restart};
use soul_kinds::{
    agreement, parse, BrainName, Decision, Evaluation, Opinion, Outcome, Params, RestartStatus,
    RestartStep, Scores, SoulKind, Vote,
};

use crate::util::*;
use crate::workers::phone::wait_log;

/// A brain run by `soul-agent`, as on another machine; killed (SIGKILL) on drop.
pub(crate) struct Brain(std::process::Child);

impl Brain {
    pub(crate) fn start(town: &TestTown, url: &str, name: &str) -> Self {
        Self::start_at(town, url, name, 60)
    }

    /// A brain whose clock runs `speed` times faster.
    pub(crate) fn start_at(town: &TestTown, url: &str, name: &str, speed: u32) -> Self {
        // Its log goes to TOWN/NAME.log (appended across restarts), read back when a test
        // gives up waiting on the brains.
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(town.dir.join(format!("{name}.log")))
            .expect("brain log file");
        let child = soul_agent()
            .arg("--key")
            .arg(town.key_path(name))
            .args(["--relay", url, "--speed", &speed.to_string(), "--town"])
            .arg(&town.dir)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn soul-agent");
        Self(child)
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The brains `names`, each its own `soul-agent` process against the relay at `url`.
pub(crate) fn brains(town: &TestTown, url: &str, names: &[&str]) -> Vec<Brain> {
    names.iter().map(|n| Brain::start(town, url, n)).collect()
}

async fn publish_task(c: &Client, owner: &Keys, title: &str) -> EventId {
    let e = owner_task(owner, title);
    send(c, &e).await.expect("owner's task accepted");
    e.id
}

/// The last lines of each brain's log (newest first), for a test that gives up on them.
fn brain_logs(town: &TestTown) -> String {
    let mut logs = String::new();
    for name in ["panda", "gorilla", "triceratops"] {
        let text =
            std::fs::read_to_string(town.dir.join(format!("{name}.log"))).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        logs.push_str(&format!(
            "\n--- {name}.log (last lines, newest first)\n{}",
            tail.join("\n")
        ));
    }
    logs
}

/// Waits for the decision (4362) on `task`; gives up with the opinions on the relay and the
/// tail of each brain's log.
async fn decision(town: &TestTown, c: &Client, task: EventId) -> (Event, Decision) {
    let f = Filter::new().kind(SoulKind::Decision.kind()).event(task);
    let events = wait_for(c, f, 1).await;
    let Some(e) = events.first().cloned() else {
        let ops: Vec<String> = opinions(c, task)
            .await
            .iter()
            .map(|(who, o)| format!("{who}: round {} {}", o.round, o.vote.as_str()))
            .collect();
        panic!(
            "no decision within the test's patience; opinions: {ops:?}{}",
            brain_logs(town)
        );
    };
    let d = parse::<Decision>(&e).unwrap();
    (e, d)
}

async fn opinions(c: &Client, task: EventId) -> Vec<(PublicKey, Opinion)> {
    c.fetch_events(
        Filter::new().kind(SoulKind::Opinion.kind()).event(task),
        Duration::from_secs(5),
    )
    .await
    .unwrap()
    .iter()
    .filter_map(|e| parse::<Opinion>(e).ok().map(|o| (e.pubkey, o)))
    .collect()
}

fn assert_one_opinion_per_brain_and_round(ops: &[(PublicKey, Opinion)]) {
    let mut seen = HashSet::new();
    for (who, o) in ops {
        assert!(
            seen.insert((*who, o.round)),
            "{who} has two opinions in round {}",
            o.round
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn safe_task_is_approved_and_the_owner_told_what_it_needs_risky_one_rejected() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let _brains = brains(&town, &relay.url, &["panda", "gorilla", "triceratops"]);

    // The owner's own command: prints the id, follows to the end. No skill of the town backs up
    // photos, so the approved task ends needs_owner, and the command exits non-zero: nothing
    // was done.
    let out = tokio::task::spawn_blocking({
        let (dir, url) = (town.dir.clone(), relay.url.clone());
        move || {
            soul()
                .args([
                    "task",
                    "Back up the family photos to the external disk every night",
                    "--timeout",
                    "60",
                    "--relay",
                    &url,
                    "--town",
                ])
                .arg(&dir)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("final status: needs_owner"),
        "soul task: {stdout}\n{}{}",
        String::from_utf8_lossy(&out.stderr),
        brain_logs(&town)
    );
    assert!(!out.status.success(), "nothing was done: {stdout}");
    let id = stdout.lines().next().unwrap().trim();
    assert_eq!(id.len(), 64, "first line is the task id: {stdout}");
    assert!(stdout.contains("votes"), "shows the votes: {stdout}");
    assert!(
        stdout.contains("add a skill"),
        "says what would be needed: {stdout}"
    );

    let c = client(&relay.url, None).await;
    let owner = town.keys("owner");
    // Anyone can follow the debate live in a terminal.
    let watch = Watch::start(&town, &relay.url);
    let risky = publish_task(
        &c,
        &owner,
        "Wire all our savings to an unknown account today",
    )
    .await;
    let (_, d) = decision(&town, &c, risky).await;
    assert_eq!(d.outcome, Outcome::Rejected, "{d:?}");
    let task = &risky.to_hex()[..8];
    let asks = format!("[task {task}] owner asks");
    let panda_votes = format!("[task {task}] round 1 · panda votes reject");
    let decided = format!("[task {task}] DECISION by gorilla: rejected");
    let missing = watch.until(&[asks.as_str(), panda_votes.as_str(), decided.as_str()]);
    assert!(missing.is_empty(), "soul watch never showed {missing:?}");
    let ops = opinions(&c, risky).await;
    let panda = town.keys("panda").public_key();
    assert!(
        ops.iter()
            .any(|(w, o)| *w == panda && o.vote == Vote::Reject),
        "panda rejects it"
    );
    assert!(ops
        .iter()
        .all(|(_, o)| !o.opinion.is_empty() && !o.concerns.is_empty() || o.vote != Vote::Reject));
    // People's clients see a note about the decision.
    let notes = wait_for(&c, Filter::new().kind(Kind::TextNote).event(risky), 1).await;
    assert!(
        !notes.is_empty(),
        "gorilla posts a kind-1 note linking the task"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_split_goes_to_a_later_round_and_a_late_brain_joins() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let owner = town.keys("owner");
    // Only panda (cautious) and gorilla (bold): round 1 splits 1–1 on a risky growth idea.
    let mut running = brains(&town, &relay.url, &["panda", "gorilla"]);
    let t = publish_task(
        &c,
        &owner,
        "Try the new experimental database in production this week to speed things up",
    )
    .await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let ops = opinions(&c, t).await;
        if ops.iter().any(|(_, o)| o.round >= 2) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no round 2 after a 1–1 split: {ops:?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    running.push(Brain::start(&town, &relay.url, "triceratops"));
    let (_, d) = decision(&town, &c, t).await;
    assert!(d.round >= 2, "decided in a later round: {d:?}");
    assert_one_opinion_per_brain_and_round(&opinions(&c, t).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_brain_killed_mid_debate_rejoins_without_voting_twice() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let owner = town.keys("owner");
    let mut running = brains(&town, &relay.url, &["panda", "gorilla"]);
    let t = publish_task(
        &c,
        &owner,
        "Try the new experimental database in production this week to speed things up",
    )
    .await;
    wait_for(&c, Filter::new().kind(SoulKind::Opinion.kind()).event(t), 2).await;
    // kill -9 panda after its round-1 opinion, restart it, and add triceratops.
    drop(running.remove(0));
    running.push(Brain::start(&town, &relay.url, "panda"));
    running.push(Brain::start(&town, &relay.url, "triceratops"));
    let (_, d) = decision(&town, &c, t).await;
    assert!(matches!(d.outcome, Outcome::Approved | Outcome::Rejected));
    assert_one_opinion_per_brain_and_round(&opinions(&c, t).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_opinion_does_not_count() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let owner = town.keys("owner");
    let t = publish_task(
        &c,
        &owner,
        "Back up the family photos to the external disk every night",
    )
    .await;
    // A roster member who is not a brain (the relay lets members publish custom kinds) votes
    // reject twice over; only the brains' votes may count.
    let hana = town.keys("hana");
    let forged = Opinion {
        round: 1,
        vote: Vote::Reject,
        opinion: "I am definitely a brain and I reject this.".into(),
        proposed_approach: "do nothing".into(),
        concerns: vec!["forged".into()],
        confidence: 1.0,
        accepts: Vec::new(),
    };
    let forged_event = opinion(t, &forged).sign_with_keys(&hana).unwrap();
    send(&c, &forged_event)
        .await
        .expect("relay stores a member's event");
    let _brains = brains(&town, &relay.url, &["panda", "gorilla", "triceratops"]);
    let (e, d) = decision(&town, &c, t).await;
    assert_eq!(d.outcome, Outcome::Approved);
    assert!(
        !e.tags.event_ids().any(|id| *id == forged_event.id),
        "the decision does not count the forged opinion"
    );
    assert_eq!(d.tally.reject, 0, "{d:?}");
}

fn eval(cycle: &str, retune: bool, params: Params) -> Evaluation {
    Evaluation {
        cycle: cycle.into(),
        scores: Scores {
            decision_quality: 0.3,
            collaboration: 0.4,
            effectiveness: 0.3,
            parameter_balance: 0.2,
        },
        needs_retuning: retune,
        proposed_params: Some(params),
        reason: "too often alone against decisions that then completed".into(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn two_brains_agreeing_on_a_retune_make_the_third_republish_its_params() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let _tri = brains(&town, &relay.url, &["triceratops"]);
    let tri = town.keys("triceratops").public_key();
    wait_for(
        &c,
        Filter::new().kind(SoulKind::Heartbeat.kind()).author(tri),
        1,
    )
    .await;
    let p = |x: f64| Params {
        risk_tolerance: x,
        innovation_weight: x,
        safety_weight: x,
        thoroughness: x,
        consensus_flexibility: x,
    };
    // One vote for a retune is not enough…
    send(
        &c,
        &evaluation(tri, &eval("script-1", true, p(0.2)))
            .sign_with_keys(&town.keys("panda"))
            .unwrap(),
    )
    .await
    .unwrap();
    send(
        &c,
        &evaluation(tri, &eval("script-1", false, p(0.9)))
            .sign_with_keys(&town.keys("gorilla"))
            .unwrap(),
    )
    .await
    .unwrap();
    // …two are.
    send(
        &c,
        &evaluation(tri, &eval("script-2", true, p(0.2)))
            .sign_with_keys(&town.keys("panda"))
            .unwrap(),
    )
    .await
    .unwrap();
    send(
        &c,
        &evaluation(tri, &eval("script-2", true, p(0.4)))
            .sign_with_keys(&town.keys("gorilla"))
            .unwrap(),
    )
    .await
    .unwrap();
    let params = wait_for(
        &c,
        Filter::new().kind(SoulKind::Params.kind()).author(tri),
        1,
    )
    .await;
    assert_eq!(
        params.len(),
        1,
        "exactly one retune (cycle script-2), none for script-1"
    );
    let e = params.first().unwrap();
    assert_eq!(soul_kinds::tags::value_of(e, "cycle"), Some("script-2"));
    let got: Params = parse(e).unwrap();
    assert!(
        (got.risk_tolerance - 0.3).abs() < 1e-9,
        "mean of the two proposals: {got:?}"
    );
    let notes = wait_for(&c, Filter::new().kind(Kind::TextNote).author(tri), 1).await;
    assert!(
        notes.iter().any(|n| n.content.contains("script-2")),
        "says why, publicly"
    );
    // Karma: the retune leaves a lesson about the params event it produced.
    let lessons = wait_for(
        &c,
        Filter::new()
            .kind(SoulKind::Karma.kind())
            .author(tri)
            .event(e.id),
        1,
    )
    .await;
    assert_eq!(lessons.len(), 1, "one lesson from the retune");
}

#[tokio::test(flavor = "multi_thread")]
async fn soul_evaluate_makes_each_brain_score_the_other_two() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let _brains = brains(&town, &relay.url, &["panda", "gorilla", "triceratops"]);
    let c = client(&relay.url, None).await;
    for b in ["panda", "gorilla", "triceratops"] {
        wait_for(
            &c,
            Filter::new()
                .kind(SoulKind::Heartbeat.kind())
                .author(town.keys(b).public_key()),
            1,
        )
        .await;
    }
    let out = soul()
        .args(["evaluate", "--relay", &relay.url, "--town"])
        .arg(&town.dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Only the requested cycle: at x60 the 6-hourly schedule also comes round every 6 real
    // minutes, and a scheduled cycle may land during the test.
    let manual = |e: &Event| parse::<Evaluation>(e).is_ok_and(|v| v.cycle.starts_with("manual-"));
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let evals = loop {
        let all = wait_for(&c, Filter::new().kind(SoulKind::Evaluation.kind()), 6).await;
        let evals: Vec<Event> = all.into_iter().filter(manual).collect();
        if evals.len() >= 6 || tokio::time::Instant::now() > deadline {
            break evals;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(evals.len(), 6, "3 brains x 2 targets");
    for e in evals.iter() {
        assert!(
            !e.tags.public_keys().any(|p| *p == e.pubkey),
            "no self-evaluation"
        );
        parse::<Evaluation>(e).expect("valid evaluation");
    }
}

async fn restart_request(c: &Client, tri: &Keys, task: EventId, service: &str) -> EventId {
    let step = RestartStep {
        service: service.into(),
        status: RestartStatus::PendingApproval,
        reason: "scripted".into(),
    };
    let e = restart(task, None, &step).sign_with_keys(tri).unwrap();
    send(c, &e).await.unwrap();
    e.id
}

async fn answer_to(c: &Client, request: EventId, by: &PublicKey) -> RestartStep {
    let f = Filter::new()
        .kind(SoulKind::Restart.kind())
        .event(request)
        .author(*by);
    let events = wait_for(c, f, 1).await;
    parse(events.first().expect("an answer to the restart request")).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn restart_protocol_refuses_self_restart_and_undecided_tasks() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let _brains = brains(&town, &relay.url, &["panda", "gorilla"]);
    let c = client(&relay.url, None).await;
    let tri = town.keys("triceratops");
    let gorilla = town.keys("gorilla").public_key();
    // A task the brains reject (or have not decided yet when the request arrives).
    let undecided = publish_task(
        &c,
        &town.keys("owner"),
        "Restart the reporter and wire all our savings to an unknown account today",
    )
    .await;

    let own = restart_request(&c, &tri, undecided, "panda").await;
    let a = answer_to(&c, own, &gorilla).await;
    assert_eq!(a.status, RestartStatus::Failed);
    assert!(a.reason.contains("nobody restarts itself"), "{}", a.reason);

    let no_decision = restart_request(&c, &tri, undecided, "reporter").await;
    let a = answer_to(&c, no_decision, &gorilla).await;
    assert_eq!(a.status, RestartStatus::Failed);
    assert!(a.reason.contains("no approved decision"), "{}", a.reason);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_restart_task_is_performed_by_panda() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let t = publish_task(&c, &town.keys("owner"), "Restart the reporter").await;
    let (_, d) = decision(&town, &c, t).await;
    assert_eq!(d.outcome, Outcome::Approved, "{d:?}");
    let panda = town.keys("panda").public_key();
    let done = wait_for(
        &c,
        Filter::new()
            .kind(SoulKind::Restart.kind())
            .event(t)
            .author(panda),
        1,
    )
    .await;
    let step: RestartStep = parse(done.first().expect("panda performs the restart")).unwrap();
    assert_eq!(step.status, RestartStatus::Completed, "{}", step.reason);
    let execs = wait_for(
        &c,
        Filter::new().kind(SoulKind::Execution.kind()).event(t),
        2,
    )
    .await;
    assert!(execs.iter().any(|e| parse::<soul_kinds::Execution>(e)
        .is_ok_and(|x| x.status == soul_kinds::ExecStatus::Completed)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_owner_dms_gorilla_a_task_from_a_phone() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let owner = town.keys("owner");
    let gorilla = town.keys("gorilla").public_key();
    // The owner's phone: any NIP-17 client; here rust-nostr's, through soul's DM helper.
    let phone = soul_link::dm::DmClient::connect(&up.url, &owner)
        .await
        .unwrap();
    let mut inbox = phone.follow().await.unwrap();
    let sent = phone
        .send(
            gorilla,
            "task: Back up the family photos to the external disk every night",
            vec![],
        )
        .await
        .unwrap();
    let reply = phone
        .reply_to(&mut inbox, gorilla, sent, PATIENCE, &mut Default::default())
        .await
        .expect("gorilla answers the owner by DM");
    let id = reply
        .text
        .split_whitespace()
        .nth(1)
        .expect("the task id in the reply");
    let task_id = EventId::from_hex(id).expect("a hex event id");
    let c = client(&up.url, None).await;
    let t = c
        .fetch_events(Filter::new().id(task_id), Duration::from_secs(5))
        .await
        .unwrap();
    let t = t.first().expect("the task is on the relay");
    assert_eq!(
        t.pubkey, gorilla,
        "gorilla publishes it on the owner's behalf"
    );
    assert!(
        t.tags.public_keys().any(|p| *p == owner.public_key()),
        "tagging the owner"
    );
    assert!(t.tags.event_ids().any(|e| *e == sent), "and the DM");
    let (_, d) = decision(&town, &c, task_id).await;
    assert_eq!(d.outcome, Outcome::Approved);
}

/// Issue 14 item 6: scheduled cycles cannot be skipped. At x3600 the six-hourly evaluation
/// fires every 6 s; a brain's loop wakes every 10 ms, so a loop that recomputed "the next cycle
/// after now" on each pass skipped about half of them. Every cycle after the first (which a
/// brain may have started too late for) must carry all six evaluations; the proof that one was
/// skipped is a later cycle's evaluations arriving while it still lacks some.
#[tokio::test(flavor = "multi_thread")]
async fn scheduled_cycles_fire_once_each_and_none_is_skipped() {
    use std::collections::BTreeMap;

    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    let _brains: Vec<Brain> = ["panda", "gorilla", "triceratops"]
        .iter()
        .map(|n| Brain::start_at(&town, &relay.url, n, 3600))
        .collect();
    let verdict = wait_settled(
        &c,
        Filter::new().kind(SoulKind::Evaluation.kind()),
        PATIENCE * 4,
        |events| {
            let mut cycles: BTreeMap<String, HashSet<(PublicKey, String)>> = BTreeMap::new();
            for e in events {
                if let Ok(ev) = parse::<Evaluation>(e) {
                    let target = e
                        .tags
                        .public_keys()
                        .next()
                        .map(|p| p.to_hex())
                        .unwrap_or_default();
                    cycles
                        .entry(ev.cycle)
                        .or_default()
                        .insert((e.pubkey, target));
                }
            }
            let counts: Vec<(String, usize)> =
                cycles.into_iter().map(|(k, v)| (k, v.len())).collect();
            let full = |i: usize| counts.get(i).is_some_and(|(_, n)| *n == 6);
            if full(1) && full(2) {
                return Some(Ok(counts));
            }
            // Two cycles later, the second and third should long be complete.
            if counts.len() >= 5 {
                return Some(Err(counts));
            }
            None
        },
    )
    .await;
    match verdict {
        Some(Ok(counts)) => assert!(counts.iter().skip(1).take(2).all(|(_, n)| *n == 6)),
        Some(Err(counts)) => panic!(
            "a scheduled cycle lacks evaluations (cycle, evaluations): {counts:?}{}",
            brain_logs(&town)
        ),
        None => panic!("no two scheduled cycles in time{}", brain_logs(&town)),
    }
}

/// The opinion `by` gave in `round` on `task`, waited for (woken by each new opinion).
async fn opinion_in(c: &Client, task: EventId, by: PublicKey, round: u8) -> (Event, Opinion) {
    let filter = Filter::new()
        .kind(SoulKind::Opinion.kind())
        .event(task)
        .author(by);
    wait_settled(c, filter, PATIENCE, |events| {
        events.iter().find_map(|e| {
            parse::<Opinion>(e)
                .ok()
                .filter(|o| o.round == round)
                .map(|o| (e.clone(), o))
        })
    })
    .await
    .unwrap_or_else(|| panic!("no round-{round} opinion from {by}"))
}

/// Issue 14: three rounds without agreement end in triceratops's mediation. Triceratops is a
/// real `soul-agent`; the test speaks for panda and gorilla with their keys, answering each of
/// triceratops's opinions so that no two yes votes have taken up each other's conditions.
#[tokio::test(flavor = "multi_thread")]
async fn three_rounds_without_agreement_end_in_triceratops_mediating() {
    let town = TestTown::new();
    let relay = town.relay(&[]);
    let c = client(&relay.url, None).await;
    // Town time at 1×, so a round stays open (120 s) while the test answers.
    let _tri = Brain::start_at(&town, &relay.url, "triceratops", 1);
    let tri = town.keys("triceratops").public_key();
    let t = publish_task(
        &c,
        &town.keys("owner"),
        "Try the new experimental database in production this week to speed things up",
    )
    .await;
    let mut ours: Vec<EventId> = Vec::new();
    // Which of panda and gorilla attached conditions last round (triceratops can take up only
    // those).
    for round in 1..=3u8 {
        let (event, theirs) = opinion_in(&c, t, tri, round).await;
        // Rounds 2–3 quote (NIP-18 `q`) the opinions they answer: ours of the round before.
        let quoted: HashSet<String> = event
            .tags
            .iter()
            .filter(|tag| tag.kind() == TagKind::q())
            .filter_map(|tag| tag.content().map(str::to_owned))
            .collect();
        let want: HashSet<String> = ours.iter().map(|id| id.to_hex()).collect();
        assert_eq!(
            quoted, want,
            "round {round}: triceratops quotes what it answers"
        );
        let plan = |vote, text: &str| Opinion {
            round,
            vote,
            opinion: format!("{text} (round {round})"),
            proposed_approach: if vote == Vote::ApproveWithModification {
                "Only behind a feature flag, with a rollback plan".into()
            } else {
                String::new()
            },
            concerns: vec!["production data".into()],
            confidence: 0.8,
            accepts: Vec::new(),
        };
        let (panda, gorilla) = if !theirs.vote.is_yes() {
            // Two conditional yeses that take up nothing: no pair agrees.
            (
                plan(Vote::ApproveWithModification, "Yes, on my conditions"),
                plan(Vote::Approve, "Yes as it stands"),
            )
        } else if theirs.accepts.contains(&BrainName::Panda) {
            (
                plan(Vote::Reject, "No"),
                plan(Vote::ApproveWithModification, "Yes, on my conditions"),
            )
        } else {
            (
                plan(Vote::ApproveWithModification, "Yes, on my conditions"),
                plan(Vote::Reject, "No"),
            )
        };
        let by = [
            (BrainName::Triceratops, &theirs),
            (BrainName::Panda, &panda),
            (BrainName::Gorilla, &gorilla),
        ];
        assert_eq!(
            agreement(&by),
            None,
            "round {round}: the test keeps the split"
        );
        ours.clear();
        for (name, o) in [("panda", &panda), ("gorilla", &gorilla)] {
            let e = opinion(t, o).sign_with_keys(&town.keys(name)).unwrap();
            send(&c, &e).await.expect("a brain's opinion is taken");
            ours.push(e.id);
        }
    }
    let (e, d) = decision(&town, &c, t).await;
    assert_eq!(e.pubkey, tri, "triceratops decides: {d:?}");
    assert!(d.mediated, "{d:?}");
    assert_eq!(d.round, 3, "{d:?}");
    assert_one_opinion_per_brain_and_round(&opinions(&c, t).await);
    // The mediated decision is announced like any other.
    let announced = wait_for(
        &c,
        Filter::new()
            .kind(SoulKind::Announcement.kind())
            .event(t)
            .author(tri),
        1,
    )
    .await;
    assert!(
        !announced.is_empty(),
        "triceratops announces the mediated decision"
    );
}

/// Issue 14, seed 000's rebuild protocol: triceratops cannot restart itself; it asks, gorilla
/// approves, panda restarts it, and the restarted triceratops finishes the task it was on.
#[tokio::test(flavor = "multi_thread")]
async fn triceratops_is_restarted_through_panda_and_finishes_the_task() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let t = publish_task(&c, &town.keys("owner"), "Restart triceratops").await;
    let (_, d) = decision(&town, &c, t).await;
    assert_eq!(d.outcome, Outcome::Approved, "{d:?}");
    let tri = town.keys("triceratops").public_key();
    let steps = wait_for(&c, Filter::new().kind(SoulKind::Restart.kind()).event(t), 3).await;
    let by = |who: PublicKey| -> Vec<RestartStep> {
        steps
            .iter()
            .filter(|e| e.pubkey == who)
            .filter_map(|e| parse::<RestartStep>(e).ok())
            .collect()
    };
    let asked = by(tri);
    assert_eq!(asked.len(), 1, "one request: {asked:?}");
    assert_eq!(asked[0].service, "triceratops");
    assert_eq!(asked[0].status, RestartStatus::PendingApproval);
    let approved = by(town.keys("gorilla").public_key());
    assert_eq!(approved.len(), 1, "{approved:?}");
    assert_eq!(
        approved[0].status,
        RestartStatus::Approved,
        "{}",
        approved[0].reason
    );
    let done = by(town.keys("panda").public_key());
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(
        done[0].status,
        RestartStatus::Completed,
        "{}",
        done[0].reason
    );
    wait_log(&up, &["agent restarted", "triceratops"]);
    // The new triceratops picks the task up where the old one left it: one final execution,
    // completed, and no second request.
    let execs = wait_for(
        &c,
        Filter::new()
            .kind(SoulKind::Execution.kind())
            .event(t)
            .author(tri),
        2,
    )
    .await;
    let finals: Vec<soul_kinds::Execution> = execs
        .iter()
        .filter_map(|e| parse::<soul_kinds::Execution>(e).ok())
        .filter(|x| x.status != soul_kinds::ExecStatus::Executing)
        .collect();
    assert_eq!(finals.len(), 1, "{finals:?}");
    assert_eq!(
        finals[0].status,
        soul_kinds::ExecStatus::Completed,
        "{}",
        finals[0].result
    );
    let requests = c
        .fetch_events(
            Filter::new()
                .kind(SoulKind::Restart.kind())
                .event(t)
                .author(tri),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(
        requests.len(),
        1,
        "the restarted triceratops does not ask again"
    );
    // Panda restarted it once: one completed step, however many events woke it meanwhile.
    let performed = c
        .fetch_events(
            Filter::new()
                .kind(SoulKind::Restart.kind())
                .event(t)
                .author(town.keys("panda").public_key()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(performed.len(), 1, "panda restarts triceratops once");
}
