//! Issue 14 item 7: each brain may think with its own model (`[llm.agents.NAME]` in town.toml),
//! and every brain's prompt carries the town's mission and that brain's character
//! (`town/brains/NAME.md`). The scripted server stands in for the model servers; it logs each
//! request, so the test reads which model each brain asked and what it was told.

use nostr_sdk::prelude::*;
use serde_json::{json, Value};
use soul_kinds::SoulKind;

use super::scripted::{reply, Scripted};
use super::{messages, OPINION};
use crate::util::{client, owner_task, send, wait_for, TestTown};

const MISSION: &str = "MISSION-7F3: keep the family's garden alive through the winter";

/// The opinion requests the server saw, by the brain they were for.
fn opinion_requests(server: &Scripted) -> Vec<(String, Value)> {
    server
        .requests()
        .into_iter()
        .map(|(_, body)| body)
        .filter(|body| body.to_string().contains("Give your opinion and vote"))
        .filter_map(|body| {
            let user = messages(&body).get(1)?.1.clone();
            let brain = ["panda", "gorilla", "triceratops"]
                .into_iter()
                .find(|b| user.starts_with(&format!("You are {b},")))?;
            Some((brain.to_owned(), body))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_brain_asks_its_own_model_with_its_character_and_the_mission() {
    let server = Scripted::start(json!([
        {"match": "Give your opinion and vote", "replies": [reply(&OPINION.replace("approve_with_modification", "approve"))]},
    ]));
    let town = TestTown::new();
    let mut config = town.config();
    config.town.mission = MISSION.into();
    let mut llm = soul_keys::LlmSection {
        url: server.url.clone(),
        model: "town-model".into(),
        ..Default::default()
    };
    llm.agents.insert(
        "panda".into(),
        soul_keys::AgentModel {
            url: None,
            model: Some("panda-model".into()),
        },
    );
    config.llm = Some(llm);
    config.save(&town.dir).unwrap();
    // The owner edits one brain's character in the town directory.
    let gorilla_md = town.dir.join("brains").join("gorilla.md");
    let mut character = std::fs::read_to_string(&gorilla_md).expect("soul init ships brains/");
    character.push_str("\n- GORILLA-MARK: you love community gardens.\n");
    std::fs::write(&gorilla_md, character).unwrap();

    // No --llm: the model servers come from town.toml.
    let up = town.up(&["--speed", "60"]);
    let c = client(&up.url, None).await;
    let t = owner_task(&town.keys("owner"), "Water the garden every morning");
    send(&c, &t).await.unwrap();
    wait_for(
        &c,
        Filter::new().kind(SoulKind::Opinion.kind()).event(t.id),
        3,
    )
    .await;
    // The server logs a request before it answers, and each opinion on the relay was written
    // after its answer: the three requests are in the log now.
    let asked = opinion_requests(&server);
    let brains: std::collections::HashSet<&str> = asked.iter().map(|(b, _)| b.as_str()).collect();
    assert_eq!(brains.len(), 3, "every brain asked the model: {brains:?}");
    for (brain, body) in &asked {
        let system = &messages(body)[0].1;
        assert!(
            system.contains(MISSION),
            "{brain} is told the mission: {system}"
        );
        let model = body["model"].as_str().unwrap();
        match brain.as_str() {
            "panda" => {
                assert_eq!(model, "panda-model");
                assert!(
                    system.contains("You are Panda, the town's cautious brain"),
                    "{system}"
                );
                assert!(!system.contains("GORILLA-MARK"), "{system}");
            }
            "gorilla" => {
                assert_eq!(model, "town-model");
                assert!(
                    system.contains("GORILLA-MARK"),
                    "the edited file is read: {system}"
                );
                assert!(!system.contains("You are Panda"), "{system}");
            }
            _ => {
                assert_eq!(model, "town-model");
                assert!(
                    system.contains("You are Triceratops, the town's mediator"),
                    "{system}"
                );
            }
        }
    }
    // The character sits under the constitution, never above it.
    let system = &messages(&asked[0].1)[0].1;
    let (soul, mission) = (
        system.find("# 1. Soul").unwrap(),
        system.find(MISSION).unwrap(),
    );
    assert!(soul < mission, "{system}");
}
