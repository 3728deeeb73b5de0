//! The model-backed mind against a model server process with scripted answers: what it sends
//! (stateless, the full context every time, Soul > Skills > Karma) and how it falls back.

mod scripted;
mod town;

use std::time::Duration;

use serde_json::{json, Value};
use soul_agents::mind::model::{ModelConfig, Retry, BUILTIN_SOUL};
use soul_agents::mind::{conformance, Mind, ModelMind};
use soul_karma::Karma;

use scripted::{reply, Scripted};

pub(crate) const OPINION: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"The owner wants the photos copied to the NAS and checked.","no_tool_reason":"A debate opinion uses no tool."},"confidence":{"overall":0.77},"text_response":"SCRIPTED: back it up, then verify a restore.","vote":{"vote":"approve_with_modification","proposed_approach":"1. Copy. 2. Verify a restore.","concerns":["an unverified backup"]}}"#;
const ACT: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"The decision approved the backup plan.","tool_selection_reason":"record_plan records what was decided."},"confidence":{"overall":0.9},"tool_calls":[{"tool_name":"record_plan","parameters":{}}]}"#;
const DISTIL: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"A restart failed for lack of an answer.","no_tool_reason":"A lesson is words."},"confidence":{"overall":0.7},"text_response":"Check that the reporter answers before asking for its restart."}"#;

fn valid() -> Value {
    json!([
        {"match": "Give your opinion and vote", "replies": [reply(OPINION)]},
        {"match": "Carry out the decided task", "replies": [reply(ACT)]},
        {"match": "Distil one lesson", "replies": [reply(DISTIL)]},
    ])
}

fn mind(url: &str, karma: &Karma, budget: u64) -> ModelMind {
    ModelMind::new(
        ModelConfig {
            url: url.into(),
            model: "scripted".into(),
            daily_token_budget: budget,
            retry: Retry {
                // Short for a test, yet long enough that a loaded 2-core CI box answering a
                // valid reply late never looks like a time-out (the exact request counts below
                // depend on it); "slow" replies wait far longer than this.
                timeout: Duration::from_millis(2000),
                pause: Duration::from_millis(100),
                timeout_retries: 2,
                rate_limit_waits: 3,
                max_wait: Duration::from_secs(2),
            },
            soul: BUILTIN_SOUL.into(),
        },
        karma.clone(),
    )
}

fn messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn model_mind_conforms_and_every_call_carries_the_whole_context() {
    let server = Scripted::start(valid());
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, 1_000_000);
    let labels = conformance::check(&m).await;
    assert_eq!(
        labels,
        ["model:scripted", "model:scripted", "model:scripted"].map(String::from)
    );
    // Twice more: the same ask must produce the same request, nothing carried over.
    conformance::check(&m).await;
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6, "{reqs:?}");
    for (path, body) in &reqs {
        assert_eq!(path, "/v1/chat/completions");
        assert_eq!(body["model"], "scripted");
        assert_eq!(body["stream"], false);
        let msgs = messages(body);
        assert_eq!(
            msgs.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
            ["system", "user"],
            "stateless: no earlier turns"
        );
        let system = &msgs[0].1;
        let (soul, skills, karma) = (
            system.find("# 1. Soul").unwrap(),
            system.find("# 2. Skills").unwrap(),
            system.find("# 3. Karma").unwrap(),
        );
        assert!(soul < skills && skills < karma, "Soul > Skills > Karma");
        assert!(
            system.contains("You propose; rules decide."),
            "the constitution is in every call"
        );
    }
    let opinion = messages(&reqs[0].1);
    assert!(
        opinion[0].1.contains("Verify that a backup restores"),
        "the lesson is in the prompt"
    );
    assert!(
        opinion[1]
            .1
            .contains("Back up the family photos to the NAS"),
        "the task is in the prompt"
    );
    assert!(opinion[1].1.contains("You are panda"));
    assert_eq!(reqs[0].1, reqs[3].1, "the same ask sends the same request");
    let act = messages(&reqs[1].1);
    assert!(
        act[0].1.contains("record_plan: record the decided plan"),
        "skills list the tools"
    );
    assert!(
        act[1].1.contains("decision: approved 3-0"),
        "the context rebuilt from events"
    );
    assert!(karma.fallbacks().unwrap().is_empty());
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(
        karma.tokens_spent(&today).unwrap(),
        600,
        "tokens are counted"
    );
}

/// Runs the conformance asks against a server scripted to answer opinions with `replies`,
/// and returns (who answered the opinion, its fallback reason, requests made for it).
async fn opinion_with(replies: Vec<Value>, budget: u64) -> (String, Vec<String>, usize) {
    let mut rules = valid();
    rules.as_array_mut().unwrap()[0]["replies"] = Value::Array(replies);
    let server = Scripted::start(rules);
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, budget);
    let [opinion, ..] = conformance::check(&m).await;
    let asked = server
        .requests()
        .iter()
        .filter(|(_, b)| b.to_string().contains("Give your opinion and vote"))
        .count();
    let reasons = karma
        .fallbacks()
        .unwrap()
        .into_iter()
        .filter(|f| f.ask == "opinion")
        .map(|f| f.reason)
        .collect();
    (opinion, reasons, asked)
}

#[tokio::test]
async fn malformed_or_cut_answers_fall_back_and_are_recorded() {
    let (who, why, asked) = opinion_with(vec![reply("I approve, sounds good!")], 1_000_000).await;
    assert_eq!((who.as_str(), asked), ("built-in", 1));
    assert!(why.len() == 1 && why[0].contains("malformed"), "{why:?}");

    let mut cut = reply(&OPINION[..OPINION.len() / 2]);
    cut["finish_reason"] = json!("length");
    let (who, why, asked) = opinion_with(vec![cut], 1_000_000).await;
    assert_eq!((who.as_str(), asked), ("built-in", 1));
    assert!(why[0].contains("cut"), "{why:?}");

    let no_vote = OPINION.replace(r#","vote":{"vote":"approve_with_modification","proposed_approach":"1. Copy. 2. Verify a restore.","concerns":["an unverified backup"]}"#, "");
    let (who, why, _) = opinion_with(vec![reply(&no_vote)], 1_000_000).await;
    assert_eq!(who, "built-in");
    assert!(why[0].contains("vote"), "{why:?}");
}

#[tokio::test]
async fn a_slow_server_is_retried_twice_then_the_built_in_mind_decides() {
    let mut slow = reply(OPINION);
    slow["delay_ms"] = json!(8000);
    let (who, why, asked) = opinion_with(vec![slow], 1_000_000).await;
    assert_eq!(asked, 3, "one call and two retries");
    assert_eq!(who, "built-in");
    assert!(why[0].contains("no answer within"), "{why:?}");
    // Slow once, then fine: the retry's answer is used.
    let mut slow = reply(OPINION);
    slow["delay_ms"] = json!(8000);
    let (who, why, asked) = opinion_with(vec![slow, reply(OPINION)], 1_000_000).await;
    assert_eq!((who.as_str(), asked, why.len()), ("model:scripted", 2, 0));
}

#[tokio::test]
async fn a_429_waits_and_then_the_answer_is_used() {
    let limited = json!({"status": 429, "content": "slow down", "retry_after": 1});
    let (who, why, asked) = opinion_with(vec![limited.clone(), reply(OPINION)], 1_000_000).await;
    assert_eq!((who.as_str(), asked, why.len()), ("model:scripted", 2, 0));
    let (who, why, asked) = opinion_with(vec![limited], 1_000_000).await;
    assert_eq!(
        (who.as_str(), asked),
        ("built-in", 4),
        "three waits, then the fallback"
    );
    assert!(why[0].contains("429"), "{why:?}");
}

#[tokio::test]
async fn the_daily_token_budget_stops_the_model() {
    // 100 tokens per answer, 150 a day: the opinion and the proposal spend it, the lesson does not run.
    let server = Scripted::start(valid());
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, 150);
    let labels = conformance::check(&m).await;
    assert_eq!(
        labels,
        ["model:scripted", "model:scripted", "deferred"].map(String::from)
    );
    assert_eq!(server.requests().len(), 2);
    let why = karma.fallbacks().unwrap();
    assert!(
        why.iter()
            .any(|f| f.ask == "distil" && f.reason.contains("budget")),
        "{why:?}"
    );
}

#[tokio::test]
async fn an_invented_tool_is_never_proposed_and_ollama_is_spoken_too() {
    let invented = ACT.replace("record_plan", "wire_money");
    let mut rules = valid();
    rules.as_array_mut().unwrap()[1]["replies"] = json!([reply(&invented)]);
    let server = Scripted::start(rules);
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.ollama_url(), &karma, 1_000_000);
    let labels = conformance::check(&m).await;
    assert_eq!(
        labels,
        ["model:scripted", "built-in", "model:scripted"].map(String::from)
    );
    let reqs = server.requests();
    assert!(
        reqs.iter()
            .all(|(p, b)| p == "/api/chat" && b["format"] == "json"),
        "{reqs:?}"
    );
    let why = karma.fallbacks().unwrap();
    assert!(
        why[0].reason.contains("does not exist: wire_money"),
        "{why:?}"
    );
    assert_eq!(m.label(), "model:scripted");
}
