//! The conformance check every [`Mind`] passes: the same asks, answers within the contract.
//!
//! Run by the unit tests for [`super::BuiltIn`] and by the cross-process tests for
//! [`super::ModelMind`] against a model server process.

use nostr::EventId;
use soul_kinds::{
    BrainName, Outcome, Priority, Review, ReviewVerdict, SoulContent, Task, TaskStatus, Vote,
};

use super::brain::{features, BrainContext, Lexicon, TaskRecord};
use super::writer::{self, Source};
use super::{
    ActAsk, DistilAsk, DraftAsk, EvaluationAsk, Mind, OpinionAsk, Proposal, ReviewAsk, Shape,
    ToolCall,
};
use crate::profile::{Common, Language, Profile};

/// The task every conformance run asks about.
pub fn task() -> Task {
    Task {
        title: "Back up the family photos to the NAS".into(),
        description: "Copy every photo from the laptop to the NAS, then check the copy.".into(),
        priority: Priority::Medium,
        task_type: "task".into(),
    }
}

/// The resident every conformance run asks for a post.
pub fn resident() -> Profile {
    Profile {
        name: "mia".into(),
        display_name: "Mia".into(),
        language: Language::En,
        personality: "A cheerful gardener who notices small things.".into(),
        interests: vec!["basil".into(), "morning tea".into()],
        style: "Short, warm sentences.".into(),
        positive_prompts: vec!["what grew this week".into()],
        negative_prompts: vec!["complaints".into()],
        posting_interval_minutes: 60,
        endings: Vec::new(),
        emoji: Vec::new(),
    }
}

/// [`resident`] writing in `language`.
pub fn resident_in(language: Language) -> Profile {
    let mut p = resident();
    p.language = language;
    if language == Language::Ja {
        p.personality = "小さなことに気づく、明るい園芸好き。".into();
        p.interests = vec!["バジル".into(), "朝のお茶".into()];
    }
    p
}

/// The word every conformance draft must avoid (as if a review had quoted it).
pub const AVOIDED: &str = "tanaka";

/// Asks `mind` for an opinion, a proposal, a lesson, a post, a review and an evaluation;
/// panics with the broken rule. Returns the six `mind` labels it reported (who actually
/// thought each answer, `deferred` for a lesson left for later).
pub async fn check(mind: &dyn Mind) -> [String; 6] {
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
        went_well: false,
    };
    let l = mind.distil(&d).await;
    let label = match l {
        Some(t) => {
            assert!(!t.value.lesson.trim().is_empty() && (1..=100).contains(&t.value.weight));
            t.mind
        }
        None => "deferred".into(),
    };

    let w = draft(mind, &lessons).await;
    let r = review(mind).await;
    let e = evaluation(mind, &lessons).await;
    [o.mind, p.mind, label, w, r, e]
}

async fn draft(mind: &dyn Mind, lessons: &[String]) -> String {
    let profile = resident();
    let common = Common::default();
    let max = common.max_post_chars;
    let accept = |t: &str| !t.to_lowercase().contains(AVOIDED) && t.chars().count() <= max;
    let rules = vec![(
        "NG1".to_owned(),
        "real people's names — no real person may be named".to_owned(),
    )];
    let recent = vec!["Bought a new pot for the basil.".to_owned()];
    let memory = vec!["posted basil: Repotted the basil today.".to_owned()];
    let ask = DraftAsk {
        agent: "mia",
        input: writer::Input {
            profile: &profile,
            common: &common,
            source: Source::Continue {
                topic: Some("basil".into()),
            },
            mood: 0.7,
            fatigue: 0.2,
            hour: 9,
            favourites: &[],
            said: &[],
        },
        seed: 7,
        lessons,
        rules: &rules,
        avoid: &[AVOIDED.to_owned()],
        last_post: Some("Repotted the basil today."),
        recent: &recent,
        memory: &memory,
        rejected: Some((
            "The mayor's basil is the best in town.",
            "mentions \"mayor\" (NG1: real people's names)",
        )),
        accept: &accept,
    };
    let t = mind.draft(&ask).await;
    let w = t
        .value
        .unwrap_or_else(|| panic!("{}: no post for an easy ask", t.mind));
    assert!(
        accept(&w.text),
        "{}: the post fails the check: {}",
        t.mind,
        w.text
    );
    assert!(
        writer::written_in(&w.text, Language::En),
        "{}: the resident's language",
        t.mind
    );
    assert!(!w.topic.trim().is_empty(), "{}: a topic", t.mind);
    t.mind
}

async fn review(mind: &dyn Mind) -> String {
    let rules = vec![
        ("NG1".to_owned(), "real people's names".to_owned()),
        ("NG6".to_owned(), "unfit for a cheerful timeline".to_owned()),
    ];
    // The patterns' rejection stands.
    let found = Review {
        verdict: ReviewVerdict::Rejected,
        reason: "mentions \"Tanaka\" (NG1: real people's names)".into(),
        rules: vec!["NG1".into()],
    };
    let ask = ReviewAsk {
        agent: "reviewer",
        text: "Had tea with Tanaka today.",
        rules: &rules,
        found: &found,
    };
    let t = mind.review(&ask).await;
    assert_eq!(t.value, found, "{}: a pattern's rejection stands", t.mind);
    // A clean draft: approved, or rejected citing a rule that exists.
    let found = Review {
        verdict: ReviewVerdict::Approved,
        reason: "no NG rule applies".into(),
        rules: Vec::new(),
    };
    let ask = ReviewAsk {
        text: "The basil on the balcony has three new leaves.",
        found: &found,
        ..ask
    };
    let t = mind.review(&ask).await;
    t.value
        .validate()
        .unwrap_or_else(|e| panic!("{}: review breaks the kind's rules: {e}", t.mind));
    assert!(
        t.value
            .rules
            .iter()
            .all(|r| rules.iter().any(|(id, _)| id == r)),
        "{}: cites only rules that exist",
        t.mind
    );
    t.mind
}

async fn evaluation(mind: &dyn Mind, lessons: &[String]) -> String {
    let (me, target) = (BrainName::Panda, BrainName::Gorilla);
    let (mp, tp) = (me.default_params(), target.default_params());
    let history = [
        TaskRecord {
            outcome: Outcome::Approved,
            vote: Vote::Approve,
            status: TaskStatus::Failed,
        },
        TaskRecord {
            outcome: Outcome::Rejected,
            vote: Vote::Approve,
            status: TaskStatus::Rejected,
        },
    ];
    let ask = EvaluationAsk {
        agent: "panda",
        evaluator: me,
        evaluator_params: &mp,
        target,
        target_params: &tp,
        cycle: "conformance-1",
        history: &history,
        lessons,
    };
    let t = mind.evaluate(&ask).await;
    t.value
        .validate()
        .unwrap_or_else(|e| panic!("{}: evaluation breaks the kind's rules: {e}", t.mind));
    assert_eq!(
        t.value.cycle, "conformance-1",
        "{}: the cycle asked",
        t.mind
    );
    assert!(
        !t.value.needs_retuning || t.value.proposed_params.is_some(),
        "{}: a retune proposes params",
        t.mind
    );
    t.mind
}

#[cfg(test)]
#[tokio::test]
async fn built_in_mind_conforms() {
    let labels = check(&super::BuiltIn).await;
    assert_eq!(labels, ["built-in"; 6].map(String::from));
}
