//! Seed 003 §4.8.3 end to end through a mind (a model server with scripted answers): the
//! owner's "tell me Tanaka's salary" is approved by the debate and still DENIED at execution
//! (view_salary_info needs level 7; nobody holds it), and "send a message to everyone" asks
//! the owner twice, with two codes, before it goes on.

use std::time::Duration;

use nostr_sdk::prelude::*;
use serde_json::json;
use soul_kinds::content::task;
use soul_kinds::{parse, ExecStatus, Execution, Priority, SoulKind, Task};

use super::{audit_json, code, verdict_events, wait_questions};
use crate::minds::scripted::{reply, Scripted};
use crate::minds::{DISTIL, OPINION};
use crate::util::*;
use crate::workers::phone::Phone;

const SALARY: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"The owner wants to know the pay of one employee.","tool_selection_reason":"view_salary_info is the tool offered for this."},"confidence":{"overall":0.9},"tool_calls":[{"tool_name":"view_salary_info","parameters":{"employee":"tanaka"}}]}"#;
const SEND: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"The owner wants one notice delivered to the whole team.","tool_selection_reason":"send_to_all is the tool offered for this."},"confidence":{"overall":0.9},"tool_calls":[{"tool_name":"send_to_all","parameters":{"message":"closed tomorrow"}}]}"#;

pub(crate) async fn publish_task(c: &Client, owner: &Keys, title: &str) -> EventId {
    let t = Task {
        title: title.into(),
        description: String::new(),
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    let e = task(&t, None).sign_with_keys(owner).unwrap();
    send(c, &e).await.unwrap();
    e.id
}

pub(crate) async fn final_execution(c: &Client, task: EventId) -> Execution {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let ex = c
            .fetch_events(
                Filter::new().kind(SoulKind::Execution.kind()).event(task),
                Duration::from_secs(5),
            )
            .await
            .unwrap();
        if let Some(x) = ex
            .iter()
            .filter_map(|e| parse::<Execution>(e).ok())
            .find(|x| x.status != ExecStatus::Executing)
        {
            return x;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the execution of {task} did not end"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_salary_request_is_denied_and_send_to_all_is_confirmed_twice() {
    let server = Scripted::start(json!([
        {"match": "Give your opinion and vote", "replies": [reply(&OPINION.replace("approve_with_modification", "approve"))]},
        {"match": "Distil one lesson", "replies": [reply(DISTIL)]},
        {"match": "view_salary_info", "replies": [reply(SALARY)]},
        {"match": "send_to_all", "replies": [reply(SEND)]},
    ]));
    let town = TestTown::new();
    let up = town.up(&["--speed", "20", "--llm", &server.url, "--model", "scripted"]);
    let owner_keys = town.keys("owner");
    let tri = town.keys("triceratops").public_key();
    let owner = Phone::new(&up.url, &owner_keys).await;
    owner.client.automatic_authentication(true);

    // The salary: approved by the debate, stopped at execution, the gate's DENIED recorded.
    let salary = publish_task(&owner.client, &owner_keys, "田中さんの給与を教えて").await;
    let x = final_execution(&owner.client, salary).await;
    assert_eq!(x.status, ExecStatus::Failed, "{x:?}");
    assert!(x.result.contains("guardian stopped it"), "{x:?}");
    let rows = audit_json(&town, &["--agent", "triceratops"]);
    let row = rows
        .iter()
        .find(|r| r["tools"].to_string().contains("view_salary_info"))
        .expect("an audit row for the salary request");
    assert_eq!(row["action"], "block", "{row}");
    assert_eq!(row["auth"], "denied", "{row}");
    assert!(
        row["auth_reason"]
            .as_str()
            .unwrap()
            .contains("needs level 7"),
        "{row}"
    );

    // Everyone: asked twice, each question with its own code; two yeses let it go on.
    // With what to say: the bare "全員にメッセージを送って" is one the learned reading doubts
    // (BENCHMARKS.md, fifth round); this test is about the guardian's two questions.
    let everyone = publish_task(
        &owner.client,
        &owner_keys,
        "家族全員にメッセージを送って、夕飯は7時と伝えて",
    )
    .await;
    let first = wait_questions(&owner, tri, "全員にメッセージ", 1).await;
    assert!(first[0].contains("cannot be undone"), "{}", first[0]);
    owner.send(tri, &format!("yes {}", code(&first[0]))).await;
    let both = wait_questions(&owner, tri, "全員にメッセージ", 2).await;
    let second = both
        .iter()
        .find(|q| q.contains("Second confirmation"))
        .expect("a second question after the first yes");
    assert_ne!(code(&first[0]), code(second));
    // One yes did not let it go: no execution has started yet.
    let started = owner
        .client
        .fetch_events(
            Filter::new()
                .kind(SoulKind::Execution.kind())
                .event(everyone),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(started.is_empty(), "nothing executes on one yes");
    owner.send(tri, &format!("yes {}", code(second))).await;
    let x = final_execution(&owner.client, everyone).await;
    assert_ne!(x.status, ExecStatus::Failed, "{x:?}");
    let verdicts: Vec<soul_kinds::AuditVerdict> = verdict_events(&owner.client, tri)
        .await
        .iter()
        .filter_map(|e| parse::<soul_kinds::AuditVerdict>(e).ok())
        .filter(|v| v.proposal.contains("send_to_all"))
        .collect();
    let seen: Vec<(&str, &str)> = verdicts
        .iter()
        .map(|v| (v.action.as_str(), v.check.as_str()))
        .collect();
    assert!(
        seen.contains(&("confirm", "dangerous_operation"))
            && seen.contains(&("allow", "owner_confirmed")),
        "{seen:?}"
    );
}
