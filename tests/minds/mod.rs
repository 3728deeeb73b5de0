//! The model-backed mind against a model server process with scripted answers: what it sends
//! (stateless, the full context every time, Soul > Skills > Karma) and how it falls back.

mod converse;
mod models;
pub(crate) mod scripted;
mod town;

use std::time::Duration;

use serde_json::{json, Value};
use soul_karma::Karma;
use soul_mind::model::{ModelConfig, Retry, BUILTIN_SOUL};
use soul_mind::{conformance, Mind, ModelMind};

use scripted::{reply, Scripted};

pub(crate) const OPINION: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"The owner wants the photos copied to the NAS and checked.","no_tool_reason":"A debate opinion uses no tool."},"confidence":{"overall":0.77},"text_response":"SCRIPTED: back it up, then verify a restore.","vote":{"vote":"approve_with_modification","proposed_approach":"1. Copy. 2. Verify a restore.","concerns":["an unverified backup"]}}"#;
const ACT: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"The decision approved the backup plan.","tool_selection_reason":"record_plan records what was decided."},"confidence":{"overall":0.9},"tool_calls":[{"tool_name":"record_plan","parameters":{}}]}"#;
pub(crate) const DISTIL: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"A restart failed for lack of an answer.","no_tool_reason":"A lesson is words."},"confidence":{"overall":0.7},"text_response":"Check that the reporter answers before asking for its restart."}"#;

pub(crate) const DRAFT: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"Carry on about the basil, cheerfully.","no_tool_reason":"A post is words."},"confidence":{"overall":0.8},"text_response":"SCRIPTED: three new leaves on the basil, and the tea tastes better beside it.","draft":{"topic":"basil"}}"#;
pub(crate) const REVIEW: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"A post about a plant on a balcony.","no_tool_reason":"A review is a verdict."},"confidence":{"overall":0.9},"text_response":"SCRIPTED: a cheerful post about a plant.","review":{"verdict":"approved","rules":[]}}"#;
const EVALUATION: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"Gorilla backed a task that failed and one that was rejected.","no_tool_reason":"An evaluation is scores."},"confidence":{"overall":0.7},"text_response":"SCRIPTED: gorilla backs too much too fast.","evaluation":{"scores":{"decision_quality":0.3,"collaboration":0.5,"effectiveness":0.2,"parameter_balance":0.5},"needs_retuning":true,"proposed_params":{"risk_tolerance":0.6,"innovation_weight":0.8,"safety_weight":0.45,"thoroughness":0.5,"consensus_flexibility":0.5}}}"#;

/// Index of each ask's rule in [`valid`].
const R_OPINION: usize = 0;
const R_ACT: usize = 1;
const R_DRAFT: usize = 3;
const R_REVIEW: usize = 4;
const R_EVALUATION: usize = 5;

fn valid() -> Value {
    json!([
        {"match": "Give your opinion and vote", "replies": [reply(OPINION)]},
        {"match": "Carry out the decided task", "replies": [reply(ACT)]},
        {"match": "Distil one lesson", "replies": [reply(DISTIL)]},
        {"match": "Write the post in", "replies": [reply(DRAFT)]},
        {"match": "The word lists found nothing", "replies": [reply(REVIEW)]},
        {"match": "Score it.", "replies": [reply(EVALUATION)]},
    ])
}

const MODEL: &str = "model:scripted";

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
                error_retries: 2,
            },
            temperature: Default::default(),
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
    // Every ask but the review of a draft the patterns already rejected goes to the model.
    assert_eq!(labels, [MODEL; 6].map(String::from));
    // Twice: the same ask must produce the same request, nothing carried over.
    conformance::check(&m).await;
    let reqs = server.requests();
    assert_eq!(reqs.len(), 12, "six asks, twice: {reqs:?}");
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
    assert_eq!(reqs[0].1, reqs[6].1, "the same ask sends the same request");
    let act = messages(&reqs[1].1);
    assert!(
        act[0].1.contains("record_plan: record the decided plan"),
        "skills list the tools"
    );
    assert!(
        act[1].1.contains("decision: approved 3-0"),
        "the context rebuilt from events"
    );
    let draft = messages(&reqs[3].1);
    for part in [
        "You are Mia (mia)",
        "Interests: basil, morning tea",
        "carry on from your last post, about basil",
        "Your last post (do not repeat it): Repotted the basil today.",
        // Seed 001: what it posted lately, its short-term memory, the reviewer's reason.
        "- Bought a new pot for the basil.",
        "What you remember lately: posted basil: Repotted the basil today.",
        "The reviewer rejected your last draft: \"The mayor's basil is the best in town.\"",
        "Reason: mentions \"mayor\" (NG1: real people's names)",
        "Never use these words: tanaka",
        "NG1: real people's names",
        "in English, at most 280 characters",
    ] {
        assert!(draft[1].1.contains(part), "draft prompt lacks {part:?}");
    }
    assert!(
        draft[0].1.contains("Verify that a backup restores"),
        "karma in the draft prompt"
    );
    let review = messages(&reqs[4].1);
    assert!(review[1]
        .1
        .contains("The basil on the balcony has three new leaves."));
    assert!(review[1].1.contains("- NG6: unfit for a cheerful timeline"));
    assert!(
        !reqs
            .iter()
            .any(|(_, b)| b.to_string().contains("Had tea with Tanaka")),
        "a draft the patterns rejected is not sent to the model"
    );
    let evaluation = messages(&reqs[5].1);
    assert!(evaluation[1].1.contains("You are panda"));
    assert!(evaluation[1]
        .1
        .contains("Evaluation cycle conformance-1: score gorilla"));
    assert!(evaluation[1]
        .1
        .contains("- voted approve, outcome approved, status failed"));
    assert!(karma.fallbacks().unwrap().is_empty());
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(
        karma.tokens_spent(&today).unwrap(),
        1200,
        "tokens are counted"
    );
}

/// Runs the conformance asks with rule `at` answering `replies`; returns the labels and the
/// fallback reasons recorded for `ask`.
async fn check_with(at: usize, replies: Vec<Value>, ask: &str) -> ([String; 6], Vec<String>) {
    let mut rules = valid();
    rules.as_array_mut().unwrap()[at]["replies"] = Value::Array(replies);
    let server = Scripted::start(rules);
    let karma = Karma::in_memory().unwrap();
    let labels = conformance::check(&mind(&server.url, &karma, 1_000_000)).await;
    let reasons = karma
        .fallbacks()
        .unwrap()
        .into_iter()
        .filter(|f| f.ask == ask)
        .map(|f| f.reason)
        .collect();
    (labels, reasons)
}

#[tokio::test]
async fn a_post_the_model_writes_against_the_rules_is_never_used() {
    // The model names the very person a review quoted: the built-in writer stands in.
    let naming = DRAFT.replace("three new leaves", "Tanaka says three new leaves");
    let (labels, why) = check_with(R_DRAFT, vec![reply(&naming)], "draft").await;
    assert_eq!(labels[3], "built-in");
    assert!(
        why[0].contains("breaks what the resident must avoid"),
        "{why:?}"
    );
    // Written in the wrong language.
    let japanese = DRAFT.replace(
        "SCRIPTED: three new leaves on the basil",
        "バジルに新しい葉",
    );
    let (labels, why) = check_with(R_DRAFT, vec![reply(&japanese)], "draft").await;
    assert_eq!(labels[3], "built-in");
    assert!(why[0].contains("language"), "{why:?}");
    // No draft fields.
    let bare = DRAFT.replace(r#","draft":{"topic":"basil"}"#, "");
    let (labels, why) = check_with(R_DRAFT, vec![reply(&bare)], "draft").await;
    assert_eq!(labels[3], "built-in");
    assert!(why[0].contains("draft"), "{why:?}");
}

#[tokio::test]
async fn the_model_may_reject_what_the_patterns_missed_but_only_under_a_real_rule() {
    let stricter = REVIEW.replace(
        r#""review":{"verdict":"approved","rules":[]}"#,
        r#""review":{"verdict":"rejected","rules":["NG6"]}"#,
    );
    let (labels, why) = check_with(R_REVIEW, vec![reply(&stricter)], "review").await;
    assert_eq!((labels[4].as_str(), why.len()), (MODEL, 0));
    let invented = stricter.replace("NG6", "NG99");
    let (labels, why) = check_with(R_REVIEW, vec![reply(&invented)], "review").await;
    assert_eq!(labels[4], "built-in");
    assert!(why[0].contains("does not exist: NG99"), "{why:?}");
}

#[tokio::test]
async fn an_evaluation_out_of_bounds_falls_back() {
    let wild = EVALUATION.replace(r#""risk_tolerance":0.6"#, r#""risk_tolerance":1.6"#);
    let (labels, why) = check_with(R_EVALUATION, vec![reply(&wild)], "evaluation").await;
    assert_eq!(labels[5], "built-in");
    assert!(why[0].contains("proposed_params"), "{why:?}");
    let no_params = EVALUATION.replace(r#","proposed_params":{"risk_tolerance":0.6,"innovation_weight":0.8,"safety_weight":0.45,"thoroughness":0.5,"consensus_flexibility":0.5}"#, "");
    let (labels, why) = check_with(R_EVALUATION, vec![reply(&no_params)], "evaluation").await;
    assert_eq!(labels[5], "built-in");
    assert!(
        why[0].contains("needs_retuning without proposed_params"),
        "{why:?}"
    );
}

/// Runs the conformance asks against a server scripted to answer opinions with `replies`,
/// and returns (who answered the opinion, its fallback reason, requests made for it).
async fn opinion_with(replies: Vec<Value>, budget: u64) -> (String, Vec<String>, usize) {
    let mut rules = valid();
    rules.as_array_mut().unwrap()[R_OPINION]["replies"] = Value::Array(replies);
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
    let (who, why, asked) = opinion_with(vec![cut.clone()], 1_000_000).await;
    assert_eq!(
        (who.as_str(), asked),
        ("built-in", 3),
        "a cut answer is asked twice more"
    );
    assert!(why[0].contains("cut"), "{why:?}");
    // Cut once, then whole: the whole one is used.
    let (who, why, asked) = opinion_with(vec![cut, reply(OPINION)], 1_000_000).await;
    assert_eq!((who.as_str(), asked, why.len()), ("model:scripted", 2, 0));

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
    // 100 tokens per answer, 150 a day: the opinion and the proposal spend it; the lesson is
    // deferred and the rest is thought by the built-in mind without a call.
    let server = Scripted::start(valid());
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.url, &karma, 150);
    let labels = conformance::check(&m).await;
    assert_eq!(
        labels,
        [MODEL, MODEL, "deferred", "built-in", "built-in", "built-in"].map(String::from)
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
    rules.as_array_mut().unwrap()[R_ACT]["replies"] = json!([reply(&invented)]);
    let server = Scripted::start(rules);
    let karma = Karma::in_memory().unwrap();
    let m = mind(&server.ollama_url(), &karma, 1_000_000);
    let labels = conformance::check(&m).await;
    assert_eq!(
        labels,
        [MODEL, "built-in", MODEL, MODEL, MODEL, MODEL].map(String::from)
    );
    let reqs = server.requests();
    // Ollama gets the ask's JSON Schema as `format`; the proposal's names the real tools only.
    assert!(
        reqs.iter()
            .all(|(p, b)| p == "/api/chat" && b["format"].is_object()),
        "{reqs:?}"
    );
    let acts: Vec<&Value> = reqs
        .iter()
        .map(|(_, b)| b)
        .filter(|b| b.to_string().contains("Carry out the decided task"))
        .collect();
    assert_eq!(acts.len(), 2, "asked once more, told which tools exist");
    let tools = &acts[0]["format"]["anyOf"][0]["properties"]["tool_calls"]["items"]["properties"]
        ["tool_name"]["enum"];
    assert_eq!(tools, &json!(["record_plan"]));
    let last = messages(acts[1]).pop().unwrap().1;
    assert!(
        last.contains("There is no tool named \"wire_money\"") && last.contains("record_plan"),
        "{last}"
    );
    let why = karma.fallbacks().unwrap();
    assert!(
        why[0].reason.contains("does not exist: wire_money"),
        "{why:?}"
    );
    assert_eq!(m.label(), "model:scripted");

    // Told, the model picks a real tool: its answer is used.
    let mut rules = valid();
    rules.as_array_mut().unwrap()[R_ACT]["replies"] = json!([reply(&invented), reply(ACT)]);
    let server = Scripted::start(rules);
    let m = mind(&server.url, &Karma::in_memory().unwrap(), 1_000_000);
    assert_eq!(conformance::check(&m).await[1], MODEL);
}

/// Issue 15: every request carries its ask's JSON Schema and temperature (writing warm,
/// judging cold); a server that refuses schemas is asked for `json_object` from then on; a
/// 5xx or a dropped answer is retried before the built-in mind stands in.
#[tokio::test]
async fn requests_carry_the_schema_and_temperature_and_errors_are_retried() {
    let server = Scripted::start(valid());
    let m = mind(&server.url, &Karma::in_memory().unwrap(), 1_000_000);
    assert_eq!(conformance::check(&m).await, [MODEL; 6].map(String::from));
    for (_, body) in server.requests() {
        let format = &body["response_format"];
        assert_eq!(format["type"], "json_schema", "{body}");
        let name = format["json_schema"]["name"].as_str().unwrap();
        let text = body.to_string();
        let (want, temperature) = if text.contains("Write the post in") {
            ("soul_draft", 0.8)
        } else if text.contains("Give your opinion") {
            ("soul_opinion", 0.0)
        } else if text.contains("The word lists found nothing") {
            ("soul_review", 0.0)
        } else if text.contains("Score it.") {
            ("soul_evaluation", 0.0)
        } else {
            ("soul_proposal", 0.0)
        };
        assert_eq!(
            (name, body["temperature"].as_f64().unwrap()),
            (want, temperature)
        );
    }

    // A server without JSON Schema support (400 on a json_schema request): asked again with
    // json_object, and never offered a schema again.
    let mut rules = valid();
    rules
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"match": "\"json_schema\"", "replies": [{"status": 400, "content": "response_format json_schema is not supported"}]}));
    let server = Scripted::start(rules);
    let m = mind(&server.url, &Karma::in_memory().unwrap(), 1_000_000);
    assert_eq!(conformance::check(&m).await, [MODEL; 6].map(String::from));
    let formats: Vec<String> = server
        .requests()
        .iter()
        .map(|(_, b)| b["response_format"]["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(formats[..2], ["json_schema", "json_object"], "{formats:?}");
    assert!(
        formats[2..].iter().all(|f| f == "json_object"),
        "{formats:?}"
    );

    // A 502 and a 503, then the answer: used. Three 500s: the built-in mind.
    let bad = |status| json!({"status": status, "content": "upstream failed"});
    let (who, why, asked) = opinion_with(vec![bad(502), bad(503), reply(OPINION)], 1_000_000).await;
    assert_eq!((who.as_str(), asked, why.len()), ("model:scripted", 3, 0));
    let (who, why, asked) = opinion_with(vec![bad(500)], 1_000_000).await;
    assert_eq!((who.as_str(), asked), ("built-in", 3));
    assert!(why[0].contains("HTTP 500"), "{why:?}");
    // A 404 (a wrong model name, say) is not retried.
    let (who, _, asked) = opinion_with(vec![bad(404)], 1_000_000).await;
    assert_eq!((who.as_str(), asked), ("built-in", 1));
}
