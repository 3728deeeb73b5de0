//! The guarded schema refuses bad rows; retrieval, decay, jobs and rebuild behave.

use nostr::{EventBuilder, Keys};
use soul_kinds::content::lesson;
use soul_kinds::Lesson;

use crate::{AuditRow, Karma, NewLesson};

fn new(topic: &str, text: &str, weight: i64) -> NewLesson {
    NewLesson {
        author: "panda".into(),
        topic: topic.into(),
        lesson: text.into(),
        weight,
        source_event: None,
        event_id: None,
        job_id: None,
        directives: "{}".into(),
        created_at: 1_700_000_000,
    }
}

fn audit(action: &str, tools: &str, confidence: f64) -> AuditRow {
    AuditRow {
        record_id: format!("r-{action}-{confidence}"),
        timestamp: 1,
        agent: "triceratops".into(),
        actor: "ab".into(),
        subject: Some("task".into()),
        input_message: "Back up the photos".into(),
        context_summary: "task, 3 opinions".into(),
        llm_model: "built-in".into(),
        llm_reasoning: "two of three brains approved the backup plan".into(),
        llm_confidence: confidence,
        selected_tools: tools.into(),
        guardian_action: action.into(),
        guardian_check: "pass".into(),
        guardian_reason: String::new(),
        auth_result: "allowed".into(),
        auth_reason: String::new(),
        execution_success: None,
        execution_result: None,
        execution_error: None,
        final_response: String::new(),
        total_duration_ms: 3,
        llm_duration_ms: 1,
        fallback: None,
        verdict_event: None,
    }
}

#[test]
fn schema_guards_refuse_bad_rows() {
    let k = Karma::in_memory().unwrap();
    assert_eq!(k.version().unwrap(), crate::schema::MIGRATIONS.len());
    for weight in [-1, 101] {
        let e = k
            .record_lesson(&new("backup", "keep two copies", weight))
            .unwrap_err();
        assert!(
            e.is_guard(),
            "weight {weight} must be refused by CHECK: {e}"
        );
    }
    let mut bad_json = new("backup", "keep two copies", 50);
    bad_json.directives = "{not json".into();
    assert!(k.record_lesson(&bad_json).unwrap_err().is_guard());
    let e = k
        .start_job("execution", None, "triceratops", "[oops", 1)
        .unwrap_err();
    assert!(e.is_guard(), "payload must be valid JSON: {e}");
    assert!(k
        .record_audit(&audit("allow", "not json", 0.8))
        .unwrap_err()
        .is_guard());
    assert!(k
        .record_audit(&audit("maybe", "[]", 0.8))
        .unwrap_err()
        .is_guard());
    assert!(k
        .record_audit(&audit("allow", "[]", 1.5))
        .unwrap_err()
        .is_guard());
    // Raw SQL cannot get around them either: the guards are in the DDL.
    let raw = k.execute_raw("UPDATE lessons SET weight = 200");
    assert!(raw.is_ok(), "no rows yet, nothing to refuse");
    k.record_lesson(&new("backup", "keep two copies", 50))
        .unwrap();
    assert!(k
        .execute_raw("UPDATE lessons SET weight = 200")
        .unwrap_err()
        .is_guard());
    assert!(k.record_audit(&audit("allow", "[]", 0.8)).unwrap());
    assert_eq!(k.audit_count().unwrap(), 1);
}

#[test]
fn the_same_verdict_recorded_twice_is_one_row() {
    let k = Karma::in_memory().unwrap();
    assert!(k.record_audit(&audit("allow", "[]", 0.8)).unwrap());
    assert!(!k.record_audit(&audit("allow", "[]", 0.8)).unwrap());
    assert_eq!(k.audit_count().unwrap(), 1);
}

#[test]
fn deleting_a_job_keeps_its_lessons() {
    let k = Karma::in_memory().unwrap();
    let job = k
        .start_job("execution", Some("t1"), "triceratops", "{}", 10)
        .unwrap();
    let mut l = new("backup", "verify the backup before deleting anything", 60);
    l.job_id = Some(job);
    let id = k.record_lesson(&l).unwrap();
    k.delete_job(job).unwrap();
    let rows = k.all_lessons().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].id, rows[0].job_id), (id, None));
}

#[test]
fn retrieval_returns_the_relevant_lesson_and_decay_drops_one() {
    let k = Karma::in_memory().unwrap();
    k.record_lesson(&new(
        "money",
        "Send a small test amount before a large bank transfer.",
        80,
    ))
    .unwrap();
    let photos = k
        .record_lesson(&new(
            "backup",
            "Verify the photo backup restores before deleting the originals.",
            1,
        ))
        .unwrap();
    k.record_lesson(&new("garden", "Water the tomatoes in the evening.", 90))
        .unwrap();
    k.record_lesson(&new("送金", "大きな送金の前に少額で着金を確かめる。", 70))
        .unwrap();

    let hits = k
        .relevant("Back up the family photos, then delete the originals", 3)
        .unwrap();
    assert_eq!(hits.first().map(|l| l.id), Some(photos), "{hits:?}");
    assert!(
        hits.iter().all(|l| l.topic != "garden"),
        "irrelevant lesson retrieved: {hits:?}"
    );
    let ja = k.relevant("親戚に送金してほしい", 3).unwrap();
    assert_eq!(ja.first().map(|l| l.topic.as_str()), Some("送金"), "{ja:?}");

    // One point of decay takes the weight-1 lesson to 0: it is never retrieved again.
    assert_eq!(k.decay(1).unwrap(), 1);
    let hits = k
        .relevant("Back up the family photos, then delete the originals", 3)
        .unwrap();
    assert!(hits.iter().all(|l| l.id != photos), "{hits:?}");
    let all = k.all_lessons().unwrap();
    assert_eq!(all.iter().find(|l| l.id == photos).unwrap().weight, 0);
    assert_eq!(all.iter().find(|l| l.topic == "money").unwrap().weight, 79);
}

#[test]
fn zombie_hunter_and_deferred_distillation() {
    let k = Karma::in_memory().unwrap();
    let alive = k
        .start_job("execution", None, "triceratops", "{}", 0)
        .unwrap();
    let silent = k
        .start_job("execution", None, "triceratops", "{}", 0)
        .unwrap();
    k.heartbeat(alive, 1_000).unwrap();
    let zombies = k.hunt_zombies(1_000, 900).unwrap();
    assert_eq!(zombies, vec![silent]);
    assert_eq!(
        k.job(silent).unwrap().unwrap().status,
        crate::JobStatus::Zombie
    );
    assert_eq!(
        k.job(alive).unwrap().unwrap().status,
        crate::JobStatus::Running
    );
    k.finish_job(
        alive,
        false,
        "restart of reporter failed: no answer in 300 s",
        1_010,
    )
    .unwrap();
    let todo = k.undistilled(10).unwrap();
    assert_eq!(
        todo.iter().map(|j| j.id).collect::<Vec<_>>(),
        vec![alive, silent]
    );
    k.mark_distilled(alive).unwrap();
    assert_eq!(k.undistilled(10).unwrap().len(), 1);
    // A job that went well waits for the day's synthesis, not for deferred distillation.
    let good = k
        .start_job("execution", None, "triceratops", "{}", 1_020)
        .unwrap();
    k.finish_job(good, true, "counted 12 lines", 1_030).unwrap();
    assert_eq!(k.undistilled(10).unwrap().len(), 1);
    let ids: Vec<i64> = k
        .undistilled_successes(10)
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(ids, vec![good]);
}

#[test]
fn rebuild_from_events_is_idempotent_and_decays() {
    let keys = Keys::generate();
    let content = Lesson {
        lesson: "Ask the owner before sending money to a new address.".into(),
        weight: 30,
        topic: "money".into(),
    };
    let event = lesson(None, &content).sign_with_keys(&keys).unwrap();
    let junk = EventBuilder::text_note("not a lesson")
        .sign_with_keys(&keys)
        .unwrap();
    let k = Karma::in_memory().unwrap();
    let now = event.created_at.as_secs() as i64 + 10 * 86_400;
    let r = k
        .rebuild_from_events(&[event.clone(), junk], now, 1)
        .unwrap();
    assert_eq!((r.stored, r.skipped), (1, 1));
    assert_eq!(k.all_lessons().unwrap()[0].weight, 20);
    let again = k.rebuild_from_events(&[event], now, 1).unwrap();
    assert_eq!(again.stored, 0);
}

#[test]
fn token_budget_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(crate::FILE_NAME);
    let k = Karma::open(&path).unwrap();
    k.spend_tokens("2026-01-01", 120).unwrap();
    assert_eq!(k.spend_tokens("2026-01-01", 30).unwrap(), 150);
    drop(k);
    let k = Karma::open(&path).unwrap();
    assert_eq!(k.tokens_spent("2026-01-01").unwrap(), 150);
    assert_eq!(k.tokens_spent("2026-01-02").unwrap(), 0);
}

/// Agents in several processes open a fresh town's file at the same moment (regression: the
/// second migration used to fail with "table already exists").
#[test]
fn concurrent_opens_of_a_fresh_file_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(crate::FILE_NAME);
    let start = std::sync::Arc::new(std::sync::Barrier::new(16));
    let handles: Vec<_> = (0..16)
        .map(|_| {
            let (path, start) = (path.clone(), std::sync::Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                Karma::open(&path).map(|k| k.version().unwrap())
            })
        })
        .collect();
    for h in handles {
        let version = h.join().unwrap().expect("every concurrent open succeeds");
        assert!(version > 0);
    }
}

/// A neighbour writing while an agent starts: a fresh file waits past the 5 s busy time-out
/// instead of failing (regression: `soul-agent` exited with "lock the schema for migration:
/// database is locked"), and an up-to-date one opens while the neighbour still writes.
#[test]
fn an_open_waits_out_a_neighbours_long_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(crate::FILE_NAME);
    // A neighbour holding the write lock until `release` says so.
    let hold = |path: std::path::PathBuf| {
        let (locked, wait) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            locked.send(()).unwrap();
            let _ = released.recv();
            c.execute_batch("COMMIT").unwrap();
        });
        wait.recv().unwrap();
        (holder, release)
    };

    // Fresh file: the migration needs the write lock, held for 6 s.
    let (holder, release) = hold(path.clone());
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(6));
        release.send(()).unwrap();
    });
    let k = Karma::open(&path).expect("waits for the neighbour, then migrates");
    assert!(k.version().unwrap() > 0);
    releaser.join().unwrap();
    holder.join().unwrap();
    drop(k);

    // Up to date: the open returns while the neighbour still holds the lock (it is released
    // only afterwards, so an open that needed it could not succeed).
    let (holder, release) = hold(path.clone());
    let opened = Karma::open(&path);
    release.send(()).unwrap();
    holder.join().unwrap();
    assert!(opened.is_ok(), "{:?}", opened.err());
}
