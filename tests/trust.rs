//! Issue 20, the protocol holes: who may claim a result, an id, a decision or a task's origin.
//! Each test is an attack a stranger, a worker or a thief holding one brain's key can make
//! against real `soul` processes and a real relay, and what soul does about it.

use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_kinds::content::{task, Relayed};
use soul_kinds::{parse, Decision, ExecStatus, Execution, Outcome, Priority, SoulKind, Task};

use crate::util::*;
use crate::workers::phone::*;

/// The town's workspace with one small file, and a skill that prints a file.
fn workspace(town: &TestTown) {
    std::fs::create_dir_all(town.dir.join("workspace")).unwrap();
    std::fs::write(town.dir.join("workspace/notes.txt"), "soul\n").unwrap();
    std::fs::write(
        town.dir.join("skills/show.yaml"),
        "name: show\ndescription: Print a file of the workspace.\nversion: \"1.0\"\nparameters:\n  - {name: file, type: string, required: true, description: \"the file\"}\ncommand: cat {{file}}\n",
    )
    .unwrap();
}

fn owner_task_text(owner: &Keys, title: &str) -> Event {
    let t = Task {
        title: title.into(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    task(&t, None).sign_with_keys(owner).unwrap()
}

async fn decision_of(c: &Client, task_id: EventId) -> Event {
    let found = wait_for(
        c,
        Filter::new().kind(SoulKind::Decision.kind()).event(task_id),
        1,
    )
    .await;
    found.first().cloned().expect("a decision")
}

async fn final_execution(c: &Client, task_id: EventId) -> Execution {
    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    loop {
        let events = c
            .fetch_events(
                Filter::new()
                    .kind(SoulKind::Execution.kind())
                    .event(task_id),
                Duration::from_secs(5),
            )
            .await
            .unwrap();
        if let Some(e) = events
            .iter()
            .filter_map(|e| parse::<Execution>(e).ok())
            .find(|e| e.status != ExecStatus::Executing)
        {
            return e;
        }
        assert!(tokio::time::Instant::now() < deadline, "no final execution");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// A rumor from `from` to `to`, as a phone would build it, with a nonce so it is unique.
fn rumor(from: &Keys, to: PublicKey, text: &str) -> UnsignedEvent {
    let nonce = Keys::generate().public_key().to_hex();
    EventBuilder::private_msg_rumor(to, text)
        .tag(Tag::custom(TagKind::custom("nonce"), [nonce]))
        .build(from.public_key())
}

async fn wrap_and_send(c: &Client, from: &Keys, to: PublicKey, rumor: UnsignedEvent) -> Event {
    let wrap = EventBuilder::gift_wrap(from, &to, rumor, []).await.unwrap();
    send(c, &wrap)
        .await
        .expect("the relay takes a gift wrap to a member");
    wrap
}

/// Hole 1: a stranger DMs triceratops a "result" for a decided task, before the executor's
/// real one. Only the executor that was asked, replying to the request it was sent, counts.
#[tokio::test(flavor = "multi_thread")]
async fn a_strangers_result_for_a_decided_task_is_not_taken() {
    let town = TestTown::new();
    workspace(&town);
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let triceratops = town.keys("triceratops").public_key();
    let stranger = Phone::new(&up.url, &Keys::generate()).await;
    let t = owner_task_text(
        &town.keys("owner"),
        "Ask the executor to run checksum file=notes.txt",
    );
    send(&c, &t).await.unwrap();
    let decision = decision_of(&c, t.id).await;
    // The decision id is public, and it is the request id triceratops uses.
    let req = decision.id.to_hex();
    let forged = serde_json::json!({
        "request": req, "command": "run", "ok": true, "message": "done",
        "result": {"request": req, "skill": "checksum", "exit_code": 0,
                   "output": "FORGED-BY-A-STRANGER", "error": "", "timed_out": false,
                   "truncated": false, "elapsed_ms": 1}
    });
    stranger.send(triceratops, &forged.to_string()).await;
    let line = wait_log(&up, &["ignored a worker's reply"]);
    assert!(
        line.contains("someone else")
            || line.contains("no message of ours")
            || line.contains("no request we sent"),
        "{line}"
    );
    let done = final_execution(&c, t.id).await;
    assert!(
        !done.result.contains("FORGED"),
        "the stranger's output was published: {}",
        done.result
    );
    assert_eq!(done.status, ExecStatus::Completed, "{}", done.result);
    assert!(done.result.contains("4f99d0f74248c30d"), "{}", done.result);
}

/// Hole 2: a stranger's message that claims the id of the owner's next command (the rumor's
/// `id` field) does not make that command "a replay", before or after a restart; nor does a
/// seal signed by a stranger pass a rumor off as the owner's, nor does an owner's command
/// dated far ahead or back act.
#[tokio::test(flavor = "multi_thread")]
async fn a_claimed_id_does_not_make_the_owners_command_a_replay() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let executor = town.keys("executor").public_key();
    let owner_keys = town.keys("owner");
    let owner = Phone::new(&up.url, &owner_keys).await;
    let stranger_keys = Keys::generate();
    let stranger = Phone::new(&up.url, &stranger_keys).await;

    // The owner's next two commands, known in advance (a leaked draft, a guess, a replay
    // of a pattern: the attacker only needs the ids).
    let mut first = rumor(&owner_keys, executor, "status");
    let mut second = rumor(&owner_keys, executor, "status");
    let (first_id, second_id) = (first.id(), second.id());
    for claimed in [first_id, second_id] {
        let mut hostile = rumor(&stranger_keys, executor, "pause");
        hostile.id = Some(claimed);
        wrap_and_send(&stranger.client, &stranger_keys, executor, hostile).await;
    }
    // The owner's own key, but a command dated an hour ahead or an hour back: a replay
    // window is only closed if both ends are.
    for offset in [3600i64, -3600] {
        let at = Timestamp::from((Timestamp::now().as_secs() as i64 + offset) as u64);
        let dated = EventBuilder::private_msg_rumor(executor, "pause")
            .custom_created_at(at)
            .build(owner_keys.public_key());
        wrap_and_send(&owner.client, &owner_keys, executor, dated).await;
    }
    // A seal signed by the stranger around a rumor that names the owner as its author
    // (NIP-17: the seal's key must be the rumor's): not the owner's `pause`.
    let impostor = rumor(&owner_keys, executor, "pause");
    wrap_and_send(&stranger.client, &stranger_keys, executor, impostor).await;
    // The worker reads in order: the owner's answer comes after the hostile messages.
    wrap_and_send(&owner.client, &owner_keys, executor, first).await;
    let r = owner.reply(executor, first_id).await;
    assert!(r.contains("executor is running"), "{r}");

    // After a restart the worker rebuilds what it handled from the relay: still nothing of
    // the stranger's counts.
    up.kill9();
    let up = town.up(&["--speed", "60"]);
    let owner = Phone::new(&up.url, &owner_keys).await;
    // Answered: a claimed id marked nothing, in memory or in what the relay keeps.
    wrap_and_send(&owner.client, &owner_keys, executor, second).await;
    let r = owner.reply(executor, second_id).await;
    assert!(r.contains("executor is running"), "{r}");
}

/// Hole 3a: a brain citing the approved decision for `checksum file=notes.txt` cannot run
/// another skill, or the same skill on another file.
#[tokio::test(flavor = "multi_thread")]
async fn a_decision_authorises_exactly_the_decided_skill_and_values() {
    let town = TestTown::new();
    workspace(&town);
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let executor = town.keys("executor").public_key();
    let gorilla = Phone::new(&up.url, &town.keys("gorilla")).await;
    let t = owner_task_text(
        &town.keys("owner"),
        "Ask the executor to run checksum file=notes.txt",
    );
    send(&c, &t).await.unwrap();
    let decision = decision_of(&c, t.id).await;
    assert_eq!(
        parse::<Decision>(&decision).unwrap().outcome,
        Outcome::Approved
    );
    let d = decision.id.to_hex();
    let other_skill = serde_json::json!({"command": "run", "skill": "show",
        "args": {"file": "notes.txt"}, "decision": d});
    let r = gorilla.ask_json(executor, other_skill).await;
    assert_eq!(r["command"], "refused", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("runs checksum, not show"),
        "{r}"
    );
    let other_value = serde_json::json!({"command": "run", "skill": "checksum",
        "args": {"file": "../keys/owner.nsec"}, "decision": d});
    let r = gorilla.ask_json(executor, other_value).await;
    assert_eq!(r["command"], "refused", "{r}");
    assert!(r["message"].as_str().unwrap().contains("not with"), "{r}");
    // A decision of panda's (only gorilla decides; triceratops when mediating): the fold does
    // not count it, so it authorises nothing.
    let by_panda = soul_kinds::content::decision(
        t.id,
        &Decision {
            outcome: Outcome::Approved,
            round: 1,
            tally: soul_kinds::Tally { yes: 3, reject: 0 },
            mediated: false,
            summary: "approved, says panda".into(),
        },
        &[],
    )
    .sign_with_keys(&town.keys("panda"))
    .unwrap();
    send(&c, &by_panda)
        .await
        .expect("a member's event is stored");
    let panda_says = serde_json::json!({"command": "run", "skill": "show",
        "args": {"file": "notes.txt"}, "decision": by_panda.id.to_hex()});
    let r = gorilla.ask_json(executor, panda_says).await;
    assert_eq!(r["command"], "refused", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("not the counted decision"),
        "{r}"
    );
    // A brain cannot rewrite who is who: the roster is the owner's alone.
    let roster = soul_kinds::content::roster(
        &town.config().town.name,
        &soul_kinds::RosterContent { members: vec![] },
    )
    .sign_with_keys(&town.keys("gorilla"))
    .unwrap();
    let refused = send(&c, &roster).await.unwrap_err();
    assert!(refused.starts_with("blocked:"), "{refused}");
    let control = serde_json::json!({"command": "pause", "decision": d});
    let r = gorilla.ask_json(executor, control).await;
    assert_eq!(r["command"], "refused", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("does not ask to pause"),
        "{r}"
    );
}

/// The newest DM `from` sent the owner that contains `needle`.
async fn dm_containing(phone: &Phone, from: PublicKey, needle: &str) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        for g in phone.inbox().await {
            if g.sender == from && g.rumor.content.contains(needle) {
                return g.rumor.content.clone();
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no DM with {needle}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Hole 3b: a thief with gorilla's key makes up a task "relayed from the owner's DM". It is
/// debated, but its run waits for the owner's own yes; the owner says no, nothing runs.
#[tokio::test(flavor = "multi_thread")]
async fn a_brain_keys_made_up_task_waits_for_the_owners_yes() {
    let town = TestTown::new();
    workspace(&town);
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let executor = town.keys("executor").public_key();
    let owner_keys = town.keys("owner");
    let owner = Phone::new(&up.url, &owner_keys).await;
    let t = Task {
        title: "Ask the executor to run show file=notes.txt".into(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    let made_up = Relayed {
        owner: owner_keys.public_key(),
        source: EventId::all_zeros(),
    };
    let forged = task(&t, Some(made_up))
        .sign_with_keys(&town.keys("gorilla"))
        .unwrap();
    send(&c, &forged)
        .await
        .expect("a relayed task passes the relay");
    let q = dm_containing(&owner, executor, "you did not sign").await;
    assert!(
        q.contains("show file=notes.txt") && q.contains("relayed by gorilla"),
        "{q}"
    );
    let code = q.split("Reply \"yes ").nth(1).unwrap()[..6].to_owned();
    owner.send(executor, &format!("no {code}")).await;
    let done = final_execution(&c, forged.id).await;
    assert_eq!(done.status, ExecStatus::Failed, "{}", done.result);
    assert!(done.result.contains("did not confirm"), "{}", done.result);
    assert!(
        !done.result.contains("soul\n") && !done.result.contains("output: soul"),
        "{}",
        done.result
    );
}

/// Hole 4: a reply longer than one gift wrap can hold arrives as numbered parts that add up
/// to the whole text, instead of being dropped.
#[tokio::test(flavor = "multi_thread")]
async fn a_reply_too_long_for_one_message_comes_in_numbered_parts() {
    let town = TestTown::new();
    workspace(&town);
    let big: String = (0..1500)
        .map(|i| format!("line {i:05} of the big file\n"))
        .collect();
    assert!(big.len() > 40_000);
    std::fs::write(town.dir.join("workspace/big.txt"), &big).unwrap();
    let up = town.up(&["--speed", "60"]);
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    let r = owner.ask(executor, "adjust_params output_kib=64").await;
    assert!(r.contains("params adjusted"), "{r}");
    let (_, id) = owner.send(executor, "run show file=big.txt").await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let parts = loop {
        let parts: Vec<String> = owner
            .replies(executor, id)
            .await
            .into_iter()
            .filter(|r| !r.accepted_only)
            .map(|r| r.text)
            .collect();
        // Each part starts "(i/n) ".
        let n = parts
            .first()
            .and_then(|p| p.strip_prefix('('))
            .and_then(|r| r.split(')').next())
            .and_then(|kn| kn.split('/').nth(1))
            .and_then(|n| n.parse::<usize>().ok());
        if n.is_some_and(|n| parts.len() == n) {
            break parts;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not every part came: {}",
            parts.len()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let n = parts.len();
    assert!(n >= 2, "{n} parts");
    let mut ordered = vec![String::new(); n];
    for p in parts {
        let (head, body) = p.split_once(") ").unwrap();
        let i: usize = head
            .trim_start_matches('(')
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        ordered[i - 1] = body.to_owned();
    }
    let whole = ordered.concat();
    assert!(whole.contains("show finished"), "{:.200}", whole);
    assert!(whole.contains("line 00000 of the big file"));
    assert!(
        whole.contains("line 01499 of the big file"),
        "the last line arrived"
    );
}

/// Hole 3b for triceratops's own step: a restart decided on a task made up with gorilla's
/// key is asked of the owner first; the owner says no, and nothing is restarted.
#[tokio::test(flavor = "multi_thread")]
async fn a_restart_for_a_task_the_owner_did_not_sign_waits_for_the_owners_yes() {
    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let triceratops = town.keys("triceratops").public_key();
    let owner_keys = town.keys("owner");
    let owner = Phone::new(&up.url, &owner_keys).await;
    let t = Task {
        title: "Restart the reporter".into(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    let made_up = Relayed {
        owner: owner_keys.public_key(),
        source: EventId::all_zeros(),
    };
    let forged = task(&t, Some(made_up))
        .sign_with_keys(&town.keys("gorilla"))
        .unwrap();
    send(&c, &forged)
        .await
        .expect("a relayed task passes the relay");
    let q = dm_containing(&owner, triceratops, "you did not sign").await;
    assert!(q.contains("relayed by gorilla"), "{q}");
    let code = q.split("Reply \"yes ").nth(1).unwrap()[..6].to_owned();
    owner.send(triceratops, &format!("no {code}")).await;
    let done = final_execution(&c, forged.id).await;
    assert_eq!(done.status, ExecStatus::Failed, "{}", done.result);
    assert!(done.result.contains("did not confirm"), "{}", done.result);
    let requests = c
        .fetch_events(
            Filter::new()
                .kind(SoulKind::Restart.kind())
                .event(forged.id),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(
        requests.is_empty(),
        "no restart was even requested: {requests:?}"
    );
}

/// The honest side of hole 3b: the owner's own `task:` DM to gorilla is relayed, so its run
/// waits for the owner's yes too; with the yes it runs and completes (nothing the owner asked
/// for is lost).
#[tokio::test(flavor = "multi_thread")]
async fn the_owners_dmd_task_runs_after_the_owners_yes() {
    let town = TestTown::new();
    workspace(&town);
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let executor = town.keys("executor").public_key();
    let gorilla = town.keys("gorilla").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    let r = owner
        .ask(
            gorilla,
            "task: Ask the executor to run checksum file=notes.txt",
        )
        .await;
    let id = r
        .split_whitespace()
        .nth(1)
        .and_then(|h| EventId::from_hex(h).ok())
        .unwrap_or_else(|| panic!("gorilla names the task: {r}"));
    let q = dm_containing(&owner, executor, "you did not sign").await;
    assert!(q.contains("relayed by gorilla"), "{q}");
    let code = q.split("Reply \"yes ").nth(1).unwrap()[..6].to_owned();
    owner.send(executor, &format!("yes {code}")).await;
    let done = final_execution(&c, id).await;
    assert_eq!(done.status, ExecStatus::Completed, "{}", done.result);
    assert!(done.result.contains("4f99d0f74248c30d"), "{}", done.result);
}
