//! The conformance check every [`Mind`] passes: the same asks, answers within the contract.
//!
//! Run by the unit tests for [`super::BuiltIn`] and by the cross-process tests for
//! [`super::ModelMind`] against a model server process.

use nostr::EventId;
use soul_kinds::{BrainName, Priority, SoulContent, Task};

use super::brain::{features, BrainContext, Lexicon};
use super::{ActAsk, DistilAsk, Mind, OpinionAsk, Proposal, Shape, ToolCall};

/// The task every conformance run asks about.
pub fn task() -> Task {
    Task {
        title: "Back up the family photos to the NAS".into(),
        description: "Copy every photo from the laptop to the NAS, then check the copy.".into(),
        priority: Priority::Medium,
        task_type: "task".into(),
    }
}

/// Asks `mind` for an opinion, a proposal and a lesson; panics with the broken rule.
/// Returns the three `mind` labels it reported (who actually thought each answer).
pub async fn check(mind: &dyn Mind) -> [String; 3] {
    let lexicon = Lexicon::builtin();
    let task = task();
    let f = features(&task, &lexicon);
    let params = BrainName::Panda.default_params();
    let lessons =
        vec!["[backup] Verify that a backup restores before trusting it (weight 80)".to_owned()];
    let ask = OpinionAsk {
        agent: "panda",
        brain: BrainContext {
            brain: BrainName::Panda,
            params: &params,
            task_id: EventId::all_zeros(),
            task: &task,
            features: &f,
            round: 1,
            previous: &[],
            lessons: &lessons,
        },
    };
    let o = mind.opinion(&ask).await;
    o.value
        .validate()
        .unwrap_or_else(|e| panic!("{}: opinion breaks the kind's rules: {e}", o.mind));
    assert_eq!(o.value.round, 1, "{}: the round asked", o.mind);
    assert!((0.0..=1.0).contains(&o.value.confidence));
    assert!(
        !o.value.opinion.trim().is_empty(),
        "{}: an opinion says something",
        o.mind
    );

    let default = Proposal {
        shape: Shape::Tool(vec![ToolCall {
            tool: "record_plan".into(),
            parameters: serde_json::Map::new(),
        }]),
        reasoning: "two of three brains approved; the plan is recorded as decided".into(),
        confidence: 0.9,
        confirmation_question: None,
    };
    let act = ActAsk {
        agent: "triceratops",
        question: "Carry out the decided task.".into(),
        context: vec![
            format!("task: {}", task.title),
            "decision: approved 3-0".into(),
        ],
        tools: vec![(
            "record_plan".into(),
            "record the decided plan as the result".into(),
        )],
        lessons: &lessons,
        default,
    };
    let p = mind.propose(&act).await;
    assert!(
        p.value.reasoning.chars().count() >= super::schema::MIN_REASONING,
        "{}: reasoning",
        p.mind
    );
    assert!(
        (0.0..=1.0).contains(&p.value.confidence),
        "{}: confidence",
        p.mind
    );
    for c in p.value.tools() {
        assert!(
            act.tools.iter().any(|(n, _)| *n == c.tool),
            "{}: invented tool {}",
            p.mind,
            c.tool
        );
    }

    let d = DistilAsk {
        agent: "triceratops",
        kind: "execution",
        log: "restart of reporter failed: no answer within 300 s",
    };
    let l = mind.distil(&d).await;
    let label = match l {
        Some(t) => {
            assert!(!t.value.lesson.trim().is_empty() && (1..=100).contains(&t.value.weight));
            t.mind
        }
        None => "deferred".into(),
    };
    [o.mind, p.mind, label]
}

#[cfg(test)]
#[tokio::test]
async fn built_in_mind_conforms() {
    let labels = check(&super::BuiltIn).await;
    assert_eq!(
        labels,
        ["built-in", "built-in", "built-in"].map(String::from)
    );
}
