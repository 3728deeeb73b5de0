//! The guardian's verdicts through real processes (issue 13 items 5–6, issue 20): a double
//! CONFIRM needs two yeses with two codes, MODIFY runs the corrected values, a call is weighed
//! by what it does (a fetch that overwrites a file in another folder), a public verdict never
//! quotes a private value, and `soul audit` shows each verdict with the outcome of its run.
//!
//! The owner is a plain NIP-17 client (`workers::phone`), the executor runs real skills in
//! bubblewrap, and every wait is for the message or row that proves the step.

mod clarify;
mod seed003;

use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_kinds::{parse, AuditVerdict, SoulKind};

use crate::util::*;
use crate::workers::phone::Phone;

/// Every question `from` has asked the owner that mentions `needle`, oldest first.
pub(crate) async fn questions(
    phone: &Phone,
    from: PublicKey,
    needle: &str,
) -> Vec<(Timestamp, String)> {
    let mut out = Vec::new();
    for g in phone.inbox().await {
        let c = &g.rumor.content;
        if g.sender == from && c.contains("Reply \"yes ") && c.contains(needle) {
            out.push((g.rumor.created_at, c.clone()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Waits until `from` has asked at least `n` questions mentioning `needle`; returns them.
pub(crate) async fn wait_questions(
    phone: &Phone,
    from: PublicKey,
    needle: &str,
    n: usize,
) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let qs = questions(phone, from, needle).await;
        if qs.len() >= n {
            return qs.into_iter().map(|(_, q)| q).collect();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "fewer than {n} questions about {needle}: {qs:?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

pub(crate) fn code(question: &str) -> String {
    let rest = question.split("Reply \"yes ").nth(1).expect("a code");
    rest.split('"').next().unwrap().to_owned()
}

fn skill(town: &TestTown, name: &str, yaml: &str) {
    std::fs::write(town.dir.join(format!("skills/{name}.yaml")), yaml).unwrap();
}

/// `soul audit --json [extra]` as parsed JSON.
pub(crate) fn audit_json(town: &TestTown, extra: &[&str]) -> Vec<serde_json::Value> {
    let out = soul()
        .arg("audit")
        .arg("--town")
        .arg(&town.dir)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON array")
}

/// The verdict events `author` published, newest last.
pub(crate) async fn verdict_events(c: &Client, author: PublicKey) -> Vec<Event> {
    let mut v: Vec<Event> = c
        .fetch_events(
            Filter::new().kind(SoulKind::Verdict.kind()).author(author),
            Duration::from_secs(5),
        )
        .await
        .unwrap()
        .into_iter()
        .collect();
    v.sort_by_key(|e| e.created_at);
    v
}

/// A skill that performs `delete_files` (a real `rm`) is high risk: the owner is asked twice,
/// each question with its own code; one yes is not enough, a yes then a no runs nothing, two
/// yeses run it. The audit row of the run is completed with its outcome, and `soul audit`
/// prints it.
#[tokio::test(flavor = "multi_thread")]
async fn a_double_confirmation_needs_two_yeses_and_the_audit_shows_the_run() {
    let town = TestTown::new();
    std::fs::create_dir_all(town.dir.join("workspace")).unwrap();
    for f in ["a.txt", "b.txt", "notes.txt"] {
        std::fs::write(town.dir.join("workspace").join(f), "soul\n").unwrap();
    }
    let policy = town.dir.join("skills/_policy.yaml");
    let p = std::fs::read_to_string(&policy).unwrap();
    assert!(p.contains("allow_commands: ["), "{p}");
    std::fs::write(
        &policy,
        p.replace("allow_commands: [", "allow_commands: [rm, "),
    )
    .unwrap();
    skill(
        &town,
        "tidy",
        "name: tidy\ndescription: Remove a file from the workspace.\nparameters:\n  - {name: file, type: string, required: true, description: \"the file\"}\ncommand: rm -f {{file}}\nrisk: none\nperforms: delete_files\n",
    );
    // x20: the owner's 10 minutes to confirm are 30 s real.
    let up = town.up(&["--speed", "20"]);
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;

    // Yes, then no: nothing runs.
    let (_, no_id) = owner.send(executor, "run tidy file=a.txt").await;
    let first = wait_questions(&owner, executor, "a.txt", 1).await;
    assert!(first[0].contains("cannot be undone"), "{}", first[0]);
    owner
        .send(executor, &format!("yes {}", code(&first[0])))
        .await;
    // The second question is asked only after the first yes, and before anything runs.
    let both = wait_questions(&owner, executor, "a.txt", 2).await;
    let second = both
        .iter()
        .find(|q| q.contains("Second confirmation"))
        .expect("a second question");
    assert_ne!(
        code(&first[0]),
        code(second),
        "each question has its own code"
    );
    assert!(
        town.dir.join("workspace/a.txt").exists(),
        "one yes is not enough"
    );
    // Red team: a stranger who learns the code cannot answer for the owner. Its yes is sent
    // before the owner's no; had it counted, the file would be gone.
    let stranger = Phone::new(&up.url, &Keys::generate()).await;
    stranger
        .send(executor, &format!("yes {}", code(second)))
        .await;
    owner.send(executor, &format!("no {}", code(second))).await;
    let r = owner.reply(executor, no_id).await;
    assert!(r.contains("did not confirm"), "{r}");
    assert!(town.dir.join("workspace/a.txt").exists());

    // The first code answering the second question is not a second yes.
    let (_, replay_id) = owner.send(executor, "run tidy file=notes.txt").await;
    let q1 = wait_questions(&owner, executor, "notes.txt", 1).await;
    let c1 = code(&q1[0]);
    owner.send(executor, &format!("yes {c1}")).await;
    let qs = wait_questions(&owner, executor, "notes.txt", 2).await;
    assert!(
        qs.iter().any(|q| q.contains("Second confirmation")),
        "{qs:?}"
    );
    owner.send(executor, &format!("yes {c1}")).await;
    let c2 = code(
        qs.iter()
            .find(|q| q.contains("Second confirmation"))
            .unwrap(),
    );
    owner.send(executor, &format!("no {c2}")).await;
    let r = owner.reply(executor, replay_id).await;
    assert!(r.contains("did not confirm"), "{r}");
    assert!(town.dir.join("workspace/notes.txt").exists());

    // Two yeses: it runs.
    let (_, yes_id) = owner.send(executor, "run tidy file=b.txt").await;
    let q1 = wait_questions(&owner, executor, "b.txt", 1).await;
    owner.send(executor, &format!("yes {}", code(&q1[0]))).await;
    let qs = wait_questions(&owner, executor, "b.txt", 2).await;
    let second = qs
        .iter()
        .find(|q| q.contains("Second confirmation"))
        .unwrap();
    owner.send(executor, &format!("yes {}", code(second))).await;
    let r = owner.reply(executor, yes_id).await;
    assert!(r.contains("tidy finished"), "{r}");
    assert!(!town.dir.join("workspace/b.txt").exists(), "removed");

    // The reply comes after the row was completed: `soul audit` shows the run's outcome.
    let rows = audit_json(&town, &["--agent", "executor", "--since", "1h"]);
    let subject = |id: EventId| -> Vec<&serde_json::Value> {
        rows.iter()
            .filter(|r| r["subject"] == id.to_hex())
            .collect()
    };
    let ran = subject(yes_id);
    let pairs: Vec<(&str, &str)> = ran
        .iter()
        .map(|r| (r["action"].as_str().unwrap(), r["check"].as_str().unwrap()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("confirm", "dangerous_operation"),
            ("allow", "owner_confirmed")
        ]
    );
    let done = ran[1];
    assert_eq!(done["outcome"], "success", "{done}");
    assert_eq!(done["exit_code"], 0, "{done}");
    assert!(
        done["run_ms"].is_i64() && done["output_bytes"].is_i64(),
        "{done}"
    );
    assert!(done["reason"].as_str().unwrap().contains("twice"), "{done}");
    let declined = subject(no_id);
    assert_eq!(declined.last().unwrap()["check"], "owner_declined");
    assert!(
        declined.iter().all(|r| r["outcome"].is_null()),
        "nothing ran"
    );
    // The human table names the same rows.
    let out = soul()
        .args(["audit", "--agent", "executor", "--town"])
        .arg(&town.dir)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("TIME (UTC)") && table.contains("owner_confirmed"),
        "{table}"
    );
    assert!(table.contains("success"), "{table}");
    let bad = soul()
        .args(["audit", "--since", "10 weeks", "--town"])
        .arg(&town.dir)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("10m, 2h, 1d"),
        "a bad --since says how to write it"
    );
}

/// MODIFY runs the corrected values and says what changed; a fetch that would overwrite a
/// file in another folder is weighed as what it does; a public verdict quotes no private
/// value while the local audit keeps it.
#[tokio::test(flavor = "multi_thread")]
async fn modify_runs_corrected_values_and_calls_are_weighed_by_what_they_do() {
    let town = TestTown::new();
    std::fs::create_dir_all(town.dir.join("workspace")).unwrap();
    std::fs::write(town.dir.join("workspace/notes.txt"), "mine\n").unwrap();
    skill(
        &town,
        "label",
        "name: label\ndescription: Print a priority label.\nparameters:\n  - {name: priority, type: string, required: true, enum: [low, medium, high], description: \"the priority\"}\ncommand: echo {{priority}}\nrisk: none\n",
    );
    skill(
        &town,
        "pay",
        "name: pay\ndescription: Print a payment order.\nparameters:\n  - {name: amount, type: string, required: true, description: \"the amount\"}\ncommand: echo {{amount}}\nrisk: none\n",
    );
    let up = town.up(&["--speed", "20"]);
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;

    // MODIFY: `High` is spelt as the schema does and the run uses it (without the correction
    // the skill's enum would refuse `High`).
    let (_, modify_id) = owner.send(executor, "run label priority=High").await;
    let r = owner.reply(executor, modify_id).await;
    assert!(r.contains("label finished"), "{r}");
    assert!(
        r.contains("priority: High → high"),
        "the reply says what changed: {r}"
    );
    assert!(r.contains("--- output ---\nhigh"), "{r}");

    // A fetch whose `out` leaves its folder and overwrites a file is not a plain fetch.
    let (_, fetch_id) = owner
        .send(
            executor,
            "run fetch url=https://example.invalid/x out=../workspace/notes.txt",
        )
        .await;
    let q = wait_questions(&owner, executor, "notes.txt", 1).await;
    assert!(
        q[0].contains("outside the skill's folder") && q[0].contains("overwrite"),
        "{}",
        q[0]
    );
    owner.send(executor, &format!("no {}", code(&q[0]))).await;
    let r = owner.reply(executor, fetch_id).await;
    assert!(r.contains("did not confirm"), "{r}");
    assert_eq!(
        std::fs::read_to_string(town.dir.join("workspace/notes.txt")).unwrap(),
        "mine\n"
    );

    // A large amount: CONFIRM twice; the public verdict says why without the amount.
    let (_, pay_id) = owner.send(executor, "run pay amount=2345678").await;
    let q = wait_questions(&owner, executor, "2345678", 1).await;
    owner.send(executor, &format!("no {}", code(&q[0]))).await;
    let r = owner.reply(executor, pay_id).await;
    assert!(r.contains("did not confirm"), "{r}");

    let events = verdict_events(&owner.client, executor).await;
    let about = |id: EventId| -> Vec<AuditVerdict> {
        events
            .iter()
            .filter(|e| e.tags.event_ids().any(|x| *x == id))
            .map(|e| parse::<AuditVerdict>(e).unwrap())
            .collect()
    };
    let fetch = about(fetch_id);
    assert!(
        fetch
            .iter()
            .any(|v| v.reason.contains("outside the skill's folder")),
        "{fetch:?}"
    );
    let pay = about(pay_id);
    assert!(
        pay.iter().any(|v| v.reason.contains("amount is over")),
        "{pay:?}"
    );
    for e in &events {
        for private in ["2345678", "notes.txt", "example.invalid", "High"] {
            assert!(
                !e.content.contains(private),
                "a public verdict quotes {private}: {}",
                e.content
            );
        }
    }
    assert_eq!(about(modify_id)[0].action, soul_kinds::GuardAction::Modify);
    // The owner's own audit keeps what the public event withholds.
    let rows = audit_json(&town, &[]);
    let pay_row = rows
        .iter()
        .find(|r| r["subject"] == pay_id.to_hex() && r["action"] == "confirm")
        .expect("the pay CONFIRM row");
    assert!(
        pay_row["reason"].as_str().unwrap().contains("2345678"),
        "{pay_row}"
    );
    let modify_row = rows
        .iter()
        .find(|r| r["subject"] == modify_id.to_hex())
        .unwrap();
    assert_eq!(modify_row["outcome"], "success", "{modify_row}");
}
