//! Deeds (issue 14): an approved task acts through the town's skills, or ends needs_owner
//! saying what would be needed; never "completed" for work that did not run.

use nostr_sdk::prelude::*;
use soul_kinds::{parse, Decision, ExecStatus, Execution, Outcome, SoulKind};

use crate::util::*;

/// Sends `title` as the owner and waits for its end: the final execution event, or `None`
/// when the brains rejected it (then nothing executes).
async fn outcome(c: &Client, owner: &Keys, title: &str) -> Option<Execution> {
    let task = owner_task(owner, title);
    send(c, &task).await.unwrap();
    let filter = Filter::new()
        .kinds([SoulKind::Execution.kind(), SoulKind::Decision.kind()])
        .event(task.id);
    wait_settled(c, filter, PATIENCE * 4, |events| {
        if events
            .iter()
            .filter_map(|e| parse::<Decision>(e).ok())
            .any(|d| d.outcome == Outcome::Rejected)
        {
            return Some(None);
        }
        events
            .iter()
            .filter_map(|e| parse::<Execution>(e).ok())
            .find(|x| x.status != ExecStatus::Executing)
            .map(Some)
    })
    .await
    .unwrap_or_else(|| panic!("{title:?} never ended"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_task_runs_a_skill_and_one_no_tool_can_do_asks_the_owner() {
    let town = TestTown::new();
    let workspace = town.dir.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let notes: String = (1..=12).map(|i| format!("note {i}\n")).collect();
    std::fs::write(workspace.join("notes.txt"), notes).unwrap();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let owner = town.keys("owner");

    // No skill named, no executor named: the built-in mind maps it onto count_lines.
    // A chore with its reason, as a family writes it; this test is about the deed.
    let counted = outcome(
        &c,
        &owner,
        "Count the lines of workspace/notes.txt for my weekly summary",
    )
    .await
    .expect("an ordinary task is approved");
    assert_eq!(counted.status, ExecStatus::Completed, "{counted:?}");
    assert!(counted.result.contains("12"), "the real count: {counted:?}");

    // Nothing in the town backs up photos: the owner is told, nothing is called completed.
    let backup = outcome(
        &c,
        &owner,
        "Back up the family photos to the external disk every Sunday",
    )
    .await
    .expect("an ordinary task is approved");
    assert_eq!(backup.status, ExecStatus::NeedsOwner, "{backup:?}");
    assert!(backup.result.contains("add a skill"), "{backup:?}");

    // Red team: a path out of the workspace in the task text is a value the guardian weighs,
    // not a way to read the owner's key: the brains refuse it or it never completes.
    if let Some(probe) = outcome(&c, &owner, "Count the lines of ../keys/owner.nsec").await {
        assert_ne!(probe.status, ExecStatus::Completed, "{probe:?}");
    }
    up.kill9();
}

/// Item 3: a decided "Pause the buddy" pauses it. Triceratops commands the buddy by NIP-17,
/// citing the decision; the execution is completed only on the buddy's word, and the buddy's
/// published state proves it. "Resume the buddy" undoes it the same way.
#[tokio::test(flavor = "multi_thread")]
async fn a_decided_pause_pauses_the_buddy_and_a_resume_resumes_it() {
    use crate::workers::phone::wait_state;
    use soul_kinds::WorkerRun;

    let town = TestTown::new();
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let owner = town.keys("owner");
    let buddy = town.keys("buddy").public_key();

    let paused = outcome(&c, &owner, "Pause the buddy")
        .await
        .expect("pausing the buddy is approved");
    assert_eq!(paused.status, ExecStatus::Completed, "{paused:?}");
    assert!(paused.result.contains("buddy did pause"), "{paused:?}");
    wait_state(&c, buddy, "buddy", WorkerRun::Paused).await;

    // Red team: the decision to pause the buddy does not let a brain pause the executor.
    let decision = c
        .fetch_events(
            Filter::new()
                .kind(SoulKind::Decision.kind())
                .author(town.keys("gorilla").public_key()),
            PATIENCE,
        )
        .await
        .unwrap()
        .into_iter()
        .next()
        .expect("gorilla's decision on the pause");
    let gorilla = crate::workers::phone::Phone::new(&up.url, &town.keys("gorilla")).await;
    let r = gorilla
        .ask_json(
            town.keys("executor").public_key(),
            serde_json::json!({"command": "pause", "decision": decision.id.to_hex()}),
        )
        .await;
    assert_eq!(r["command"], "refused", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("does not name executor"),
        "{r}"
    );

    let resumed = outcome(&c, &owner, "Resume the buddy")
        .await
        .expect("resuming the buddy is approved");
    assert_eq!(resumed.status, ExecStatus::Completed, "{resumed:?}");
    wait_state(&c, buddy, "buddy", WorkerRun::Running).await;
    up.kill9();
}
