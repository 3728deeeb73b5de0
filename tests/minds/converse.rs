//! The buddy's answers in persona through the model (a scripted OpenAI-compatible server stands
//! in for the model server): SOUL.md and IDENTITY.md are in the prompt, and an answer that
//! carries a key is never used.

use std::collections::BTreeMap;

use serde_json::json;
use soul_karma::Karma;
use soul_mind::{ConverseAsk, Mind};

use super::scripted::{reply, Scripted};
use super::{messages, mind, MODEL};

const SAID: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"The owner wants a reminder about grandma.","no_tool_reason":"A reply is words."},"confidence":{"overall":0.8},"text_response":"SCRIPTED: I'll remind you to call grandma tonight."}"#;
const LEAK: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"The sender asked for the key.","no_tool_reason":"A reply is words."},"confidence":{"overall":0.8},"text_response":"Sure: nsec1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"}"#;

#[tokio::test]
async fn the_buddy_speaks_through_the_model_in_persona_and_never_leaks_a_key() {
    let server = Scripted::start(json!([
        {"match": "# 2. Your persona", "replies": [reply(SAID), reply(LEAK)]},
    ]));
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, 1_000_000);
    let identity: BTreeMap<String, String> = [("name", "Mochi"), ("owner_title", "Aki")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let ask = ConverseAsk {
        agent: "buddy",
        soul: "PERSONA-SOUL: warm, brief, never shares secrets.",
        identity: &identity,
        text: "Remind me to call grandma",
        from_owner: true,
        max_chars: 600,
    };
    let said = m.converse(&ask).await;
    assert_eq!(said.mind, MODEL);
    assert!(said.value.starts_with("SCRIPTED"), "{}", said.value);
    let (_, body) = server.requests().pop().expect("one request");
    let sent = messages(&body);
    assert!(sent[0].1.contains("PERSONA-SOUL") && sent[0].1.contains("- name: Mochi"));
    assert!(sent[1].1.contains("From your owner") && sent[1].1.contains("grandma"));

    let leaked = m.converse(&ask).await;
    assert_eq!(leaked.mind, "built-in", "{leaked:?}");
    assert!(!leaked.value.contains("nsec1"), "{}", leaked.value);
    assert_eq!(
        leaked.fallback.as_deref(),
        Some("the answer carried a key"),
        "{leaked:?}"
    );
}

const REPLIED: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"Ken is happy about the tulips by the station.","no_tool_reason":"A reply is words."},"confidence":{"overall":0.8},"text_response":"SCRIPTED: The tulips made my walk too, Ken!"}"#;
const OFF: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"Ken is happy about the tulips by the station.","no_tool_reason":"A reply is words."},"confidence":{"overall":0.8},"text_response":"駅のチューリップ、きれいでした！"}"#;

#[tokio::test]
async fn a_resident_answers_a_thread_through_the_model_in_its_language() {
    let server = Scripted::start(json!([
        {"match": "says to you", "replies": [reply(REPLIED), reply(OFF)]},
    ]));
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, 1_000_000);
    let profile = soul_mind::conformance::resident();
    let accept = |_: &str| true;
    let thread = vec![(
        "mia".to_owned(),
        "Walking past the station this morning.".to_owned(),
    )];
    let ask = soul_mind::ReplyAsk {
        agent: "mia",
        profile: &profile,
        to: "ken",
        said: "The tulips by the station finally opened!",
        thread: &thread,
        depth: 0,
        affinity: 0.8,
        seed: 3,
        accept: &accept,
    };
    let said = m.reply(&ask).await;
    assert_eq!(said.mind, MODEL);
    assert_eq!(
        said.value.as_deref(),
        Some("SCRIPTED: The tulips made my walk too, Ken!")
    );
    let (_, body) = server.requests().pop().expect("one request");
    let sent = messages(&body);
    assert!(
        sent[1].1.contains("- mia: Walking past the station"),
        "{}",
        sent[1].1
    );
    assert!(
        sent[1].1.contains("ken says to you: The tulips"),
        "{}",
        sent[1].1
    );

    // A model answer in the wrong language is not used: the built-in answer stands in.
    let off = m.reply(&ask).await;
    assert_eq!(off.mind, "built-in", "{off:?}");
    assert!(off.value.is_some_and(|t| !t.contains("チューリップ")));
}
