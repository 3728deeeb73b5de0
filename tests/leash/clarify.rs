//! A mind's `clarification_needed` reaches the owner as a question by NIP-17 DM, and the
//! owner's answer resumes the proposal: the mind is asked again with the answer in its context,
//! and what it proposes then is judged and carried out.

use std::time::Duration;

use nostr_sdk::prelude::*;
use serde_json::json;
use soul_kinds::{parse, AuditVerdict, ExecStatus};

use super::seed003::{final_execution, publish_task};
use super::verdict_events;
use crate::minds::scripted::{reply, Scripted};
use crate::minds::{DISTIL, OPINION};
use crate::util::*;
use crate::workers::phone::Phone;

const ASK: &str = r#"{"output_type":"clarification_needed","reasoning":{"ambiguity_detected":"The task does not say which of the family photos to back up.","possible_interpretations":["all of them","only this year's"]},"confidence":{"overall":0.4},"clarification_question":"Which photos: all of them, or only this year's?"}"#;
const ACT: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"The owner said only this year's photos are to be backed up.","tool_selection_reason":"record_plan records the decided plan."},"confidence":{"overall":0.9},"tool_calls":[{"tool_name":"record_plan","parameters":{"scope":"this year's photos"}}]}"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_clarifying_question_reaches_the_owner_and_the_answer_resumes_the_proposal() {
    let server = Scripted::start(json!([
        {"match": "Give your opinion and vote", "replies": [reply(&OPINION.replace("approve_with_modification", "approve"))]},
        {"match": "Distil one lesson", "replies": [reply(DISTIL)]},
        {"match": "the owner answered your question", "replies": [reply(ACT)]},
        {"match": "Carry out the decided task", "replies": [reply(ASK)]},
    ]));
    let town = TestTown::new();
    let up = town.up(&["--speed", "20", "--llm", &server.url, "--model", "scripted"]);
    let owner_keys = town.keys("owner");
    let tri = town.keys("triceratops").public_key();
    let owner = Phone::new(&up.url, &owner_keys).await;
    let t = publish_task(
        &owner.client,
        &owner_keys,
        "Back up the family photos to the NAS",
    )
    .await;

    // The question arrives by DM, naming the task.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let question = loop {
        let wraps = owner
            .client
            .fetch_events(
                Filter::new()
                    .kind(Kind::GiftWrap)
                    .pubkey(owner_keys.public_key()),
                Duration::from_secs(5),
            )
            .await
            .unwrap();
        let mut found = None;
        for w in wraps.iter() {
            if let Ok(g) = UnwrappedGift::from_gift_wrap(&owner_keys, w).await {
                if g.sender == tri && g.rumor.content.contains("Which photos") {
                    found = Some(g.rumor.content.clone());
                }
            }
        }
        if let Some(q) = found {
            break q;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no clarifying question"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(question.contains("Back up the family photos"), "{question}");
    let code = question.split("Answer \"").nth(1).expect("a code")[..6].to_owned();
    owner
        .send(tri, &format!("{code} only this year's, please"))
        .await;

    let x = final_execution(&owner.client, t).await;
    // It ran to its end: no skill backs up photos, so the owner is told what it needs.
    assert_eq!(x.status, ExecStatus::NeedsOwner, "{x:?}");
    // The mind was asked again with the owner's answer.
    let resumed = server.requests().iter().any(|(_, body)| {
        body.to_string()
            .contains("the owner answered your question: only this year's, please")
    });
    assert!(resumed, "the answer reached the mind");
    let seen: Vec<(String, String)> = verdict_events(&owner.client, tri)
        .await
        .iter()
        .filter_map(|e| parse::<AuditVerdict>(e).ok())
        .map(|v| (v.action.as_str().to_owned(), v.check))
        .collect();
    assert!(
        seen.contains(&("confirm".into(), "clarification".into()))
            && seen.contains(&("allow".into(), "pass".into())),
        "{seen:?}"
    );
}
