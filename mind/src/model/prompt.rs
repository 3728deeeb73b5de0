//! The prompt, rebuilt for every call from what the agent read (stateless, seed 001), ranked
//! Soul > Skills > Karma (seed 002): the constitution first, then the tools that exist, then the
//! lessons, then the context and the question, then the output schema.

use serde::Serialize;

use super::super::writer::Source;
use super::super::{ActAsk, DistilAsk, DraftAsk, EvaluationAsk, OpinionAsk, ReviewAsk};
use crate::profile::Language;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// `system` or `user`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

/// The schema, as the model reads it.
const SCHEMA: &str = r#"Answer with exactly one JSON object, no prose around it, in one of three shapes:
{"output_type":"tool_call","reasoning":{"intent_understanding":"…","tool_selection_reason":"…","context_used":["…"],"alternatives_considered":["…"]},"confidence":{"overall":0.0-1.0},"tool_calls":[{"tool_name":"one of the skills","parameters":{}}],"needs_confirmation":false}
{"output_type":"text_response","reasoning":{"intent_understanding":"…","no_tool_reason":"…"},"confidence":{"overall":0.0-1.0},"text_response":"…"}
{"output_type":"clarification_needed","reasoning":{"ambiguity_detected":"…","possible_interpretations":["…"]},"confidence":{"overall":0.0-1.0},"clarification_question":"…","options":["…"]}
Reasoning must total at least 20 characters. No other fields."#;

const OPINION_SCHEMA: &str = r#"Answer with exactly one JSON object, no prose around it:
{"output_type":"text_response","reasoning":{"intent_understanding":"what the task asks","no_tool_reason":"a debate opinion uses no tool"},"confidence":{"overall":0.0-1.0},"text_response":"your opinion, in the task's language, in your own voice","vote":{"vote":"approve|approve_with_modification|reject","proposed_approach":"numbered concrete steps","concerns":["specific concern", "…"],"accepts":["names of brains whose conditions you take up (rounds 2-3 only)"]}}
Reasoning must total at least 20 characters. No other fields."#;

const DRAFT_SCHEMA: &str = r#"Answer with exactly one JSON object, no prose around it:
{"output_type":"text_response","reasoning":{"intent_understanding":"what you are writing about and why","no_tool_reason":"a post is words"},"confidence":{"overall":0.0-1.0},"text_response":"the post itself, nothing else","draft":{"topic":"what it is about, a few words"}}
Reasoning must total at least 20 characters. No other fields."#;

const REVIEW_SCHEMA: &str = r#"Answer with exactly one JSON object, no prose around it:
{"output_type":"text_response","reasoning":{"intent_understanding":"what the draft says","no_tool_reason":"a review is a verdict"},"confidence":{"overall":0.0-1.0},"text_response":"the reason for your verdict, one sentence","review":{"verdict":"approved|rejected","rules":["the ids of the NG rules it breaks; empty when approved"]}}
Reasoning must total at least 20 characters. No other fields."#;

const EVALUATION_SCHEMA: &str = r#"Answer with exactly one JSON object, no prose around it:
{"output_type":"text_response","reasoning":{"intent_understanding":"what the record shows","no_tool_reason":"an evaluation is scores"},"confidence":{"overall":0.0-1.0},"text_response":"the reason for your scores, one or two sentences","evaluation":{"scores":{"decision_quality":0.0-1.0,"collaboration":0.0-1.0,"effectiveness":0.0-1.0,"parameter_balance":0.0-1.0},"needs_retuning":false,"proposed_params":null or {"risk_tolerance":0.0-1.0,"innovation_weight":0.0-1.0,"safety_weight":0.0-1.0,"thoroughness":0.0-1.0,"consensus_flexibility":0.0-1.0}}}
proposed_params is required when needs_retuning is true. Reasoning must total at least 20 characters. No other fields."#;

fn user(content: String) -> Message {
    Message {
        role: "user",
        content,
    }
}

fn system(soul: &str, skills: &[String], lessons: &[String], schema: &str) -> Message {
    let mut s = String::new();
    s.push_str("# 1. Soul — the constitution. It ranks above everything below and above anything in the context.\n\n");
    s.push_str(soul.trim());
    s.push_str("\n\n# 2. Skills — the only tools that exist. Never propose another.\n\n");
    if skills.is_empty() {
        s.push_str("(none for this question: answer in words)\n");
    }
    for line in skills {
        s.push_str(&format!("- {line}\n"));
    }
    s.push_str("\n# 3. Karma — lessons from the past. They yield to Soul and Skills.\n\n");
    if lessons.is_empty() {
        s.push_str("(none relevant)\n");
    }
    for l in lessons {
        s.push_str(&format!("- {l}\n"));
    }
    s.push_str("\n# Output\n\n");
    s.push_str(schema);
    Message {
        role: "system",
        content: s,
    }
}

/// The messages for a debate opinion.
pub fn opinion(soul: &str, ask: &OpinionAsk<'_>) -> Vec<Message> {
    let b = &ask.brain;
    let p = b.params;
    let mut u = String::new();
    u.push_str(&format!(
        "You are {}, one of the town's three brains. Your params: risk_tolerance {:.2}, innovation_weight {:.2}, safety_weight {:.2}, thoroughness {:.2}, consensus_flexibility {:.2}.\n",
        b.brain, p.risk_tolerance, p.innovation_weight, p.safety_weight, p.thoroughness, p.consensus_flexibility
    ));
    u.push_str(&format!(
        "\nTask (id {}), priority {:?}:\nTitle: {}\nDescription: {}\n",
        b.task_id, b.task.priority, b.task.title, b.task.description
    ));
    let f = b.features;
    u.push_str(&format!(
        "\nWhat the lexicon found: risk {:.2}, opportunity {:.2}, urgency {:.2}, safety {:.2}.\n",
        f.risk, f.opportunity, f.urgency, f.safety
    ));
    if f.owner_confirmed {
        u.push_str("\nThe owner confirmed this task after the brains refused it without naming a harm: the doubt about what it resembles is answered, and its risks are the owner's informed choice. Weigh them as conditions, not as reasons to refuse.\n");
    }
    if b.previous.is_empty() {
        u.push_str("\nThis is round 1: you have not seen the others' opinions.\n");
    } else {
        u.push_str(&format!("\nThis is round {}. Earlier opinions:\n", b.round));
        for (who, o) in b.previous {
            u.push_str(&format!(
                "- {who}, round {}: {} (confidence {:.2}): {}\n",
                o.round,
                o.vote.as_str(),
                o.confidence,
                o.opinion
            ));
            if o.vote == soul_kinds::Vote::ApproveWithModification {
                u.push_str(&format!("  {who}'s conditions: {}\n", o.proposed_approach));
            }
        }
        u.push_str("\nTwo yes votes agree only when each has taken up the other's conditions. Answer the others: take up their conditions (name them in vote.accepts and quote them in your approach; vote approve if you add none of your own), change your vote, or hold with a reason.\n");
    }
    u.push_str("\nGive your opinion and vote on this task for this round.");
    let skills = vec![
        "approve: the task should be done as asked".to_owned(),
        "approve_with_modification: done, with the changes in proposed_approach".to_owned(),
        "reject: not done; say what would make it acceptable".to_owned(),
    ];
    vec![system(soul, &skills, b.lessons, OPINION_SCHEMA), user(u)]
}

/// The messages for a proposal to act.
pub fn act(soul: &str, ask: &ActAsk<'_>) -> Vec<Message> {
    let skills: Vec<String> = ask.tools.iter().map(|(n, d)| format!("{n}: {d}")).collect();
    let mut u = String::from("What you know (from the town's events):\n");
    for line in &ask.context {
        u.push_str(&format!("- {line}\n"));
    }
    u.push_str(&format!("\n{}", ask.question));
    vec![system(soul, &skills, ask.lessons, SCHEMA), user(u)]
}

/// `messages` again, with a last word: `name` is no tool, and these are the ones that exist.
pub fn no_such_tool(messages: &[Message], name: &str, tools: &[&str]) -> Vec<Message> {
    let mut again = messages.to_vec();
    again.push(user(format!(
        "There is no tool named {name:?}. The only tools are: {}. Answer again with one of them, or with a text_response or a clarification_needed if none fits.",
        tools.join(", ")
    )));
    again
}

/// The messages for distilling a log into a lesson.
pub fn distil(soul: &str, ask: &DistilAsk<'_>) -> Vec<Message> {
    let u = if ask.went_well {
        format!(
            "Today these {} jobs went well:\n{}\n\nDistil one lesson on what to repeat, in one or two sentences, as a text_response.",
            ask.kind, ask.log
        )
    } else {
        format!(
            "A {} job went wrong. Its log:\n{}\n\nDistil one lesson for next time, in one or two sentences, as a text_response.",
            ask.kind, ask.log
        )
    };
    vec![system(soul, &[], &[], SCHEMA), user(u)]
}

/// The messages for a resident's next post.
pub fn draft(soul: &str, ask: &DraftAsk<'_>) -> Vec<Message> {
    let i = &ask.input;
    let p = i.profile;
    let language = match p.language {
        Language::Ja => "Japanese",
        Language::En => "English",
    };
    let mut u = format!(
        "You are {} ({}), a resident of the town, writing your next post for its timeline ({}).\n",
        p.display_name, p.name, i.common.timeline
    );
    u.push_str(&format!(
        "Personality: {}\nStyle: {}\n",
        p.personality, p.style
    ));
    u.push_str(&format!("Interests: {}\n", p.interests.join(", ")));
    if !i.favourites.is_empty() {
        u.push_str(&format!(
            "Favourite topics lately: {}\n",
            i.favourites.join(", ")
        ));
    }
    let likes: Vec<&String> = p
        .positive_prompts
        .iter()
        .chain(&i.common.positive_prompts)
        .collect();
    let never: Vec<&String> = p
        .negative_prompts
        .iter()
        .chain(&i.common.negative_prompts)
        .collect();
    for (title, list) in [("Write things like", likes), ("Never write", never)] {
        if !list.is_empty() {
            let list: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            u.push_str(&format!("{title}: {}\n", list.join("; ")));
        }
    }
    u.push_str(&format!(
        "Mood {:.2} (0 low, 1 high), fatigue {:.2} (0 fresh, 1 worn out); it is {}:00 in the town.\n",
        i.mood, i.fatigue, i.hour
    ));
    u.push_str(&match &i.source {
        Source::Continue { topic: Some(t) } => {
            format!("Write about: carry on from your last post, about {t}.\n")
        }
        Source::Continue { topic: None } => "Write about: something from your interests.\n".into(),
        Source::News { title } => {
            format!("Write about: this news item from the bulletin: {title}\n")
        }
        Source::Event { title } => format!("Write about: this town event: {title}\n"),
    });
    if !ask.recent.is_empty() {
        u.push_str("Your posts before that, oldest first:\n");
        for p in ask.recent {
            u.push_str(&format!("- {p}\n"));
        }
    }
    if let Some(last) = ask.last_post {
        u.push_str(&format!("Your last post (do not repeat it): {last}\n"));
    }
    if !ask.memory.is_empty() {
        u.push_str(&format!(
            "What you remember lately: {}\n",
            ask.memory.join("; ")
        ));
    }
    if let Some((draft, reason)) = ask.rejected {
        u.push_str(&format!(
            "The reviewer rejected your last draft: \"{draft}\" Reason: {reason}. Write something else that does not break that rule.\n"
        ));
    }
    if !ask.avoid.is_empty() {
        u.push_str(&format!(
            "Never use these words: {}\n",
            ask.avoid.join(", ")
        ));
    }
    u.push_str("\nThe town's NG rules; a post that breaks one is rejected:\n");
    for (id, what) in ask.rules {
        u.push_str(&format!("- {id}: {what}\n"));
    }
    u.push_str(&format!(
        "\nWrite the post in {language}, at most {} characters, in your own voice.",
        i.common.max_post_chars
    ));
    vec![system(soul, &[], ask.lessons, DRAFT_SCHEMA), user(u)]
}

/// The messages for a review of a draft the NG patterns let through.
pub fn review(soul: &str, ask: &ReviewAsk<'_>) -> Vec<Message> {
    let mut u = String::from("You are the town's reviewer. A resident's draft waits for your review before it may be posted on a cheerful timeline.\n\nThe NG rules:\n");
    for (id, what) in ask.rules {
        u.push_str(&format!("- {id}: {what}\n"));
    }
    u.push_str(&format!(
        "\nThe draft:\n{}\n\nThe word lists found nothing. Approve it, or reject it citing the ids of the rules it breaks.",
        ask.text
    ));
    vec![system(soul, &[], &[], REVIEW_SCHEMA), user(u)]
}

/// The messages for one brain's evaluation of another.
pub fn evaluation(soul: &str, ask: &EvaluationAsk<'_>) -> Vec<Message> {
    let (e, t) = (ask.evaluator_params, ask.target_params);
    let mut u = format!(
        "You are {}, one of the town's three brains (params: risk_tolerance {:.2}, innovation_weight {:.2}, safety_weight {:.2}, thoroughness {:.2}, consensus_flexibility {:.2}).\n",
        ask.evaluator, e.risk_tolerance, e.innovation_weight, e.safety_weight, e.thoroughness, e.consensus_flexibility
    );
    u.push_str(&format!(
        "Evaluation cycle {}: score {} (params: risk_tolerance {:.2}, innovation_weight {:.2}, safety_weight {:.2}, thoroughness {:.2}, consensus_flexibility {:.2}).\n",
        ask.cycle, ask.target, t.risk_tolerance, t.innovation_weight, t.safety_weight, t.thoroughness, t.consensus_flexibility
    ));
    if ask.history.is_empty() {
        u.push_str("\nIt has no decided task on record yet.\n");
    } else {
        u.push_str(&format!(
            "\nIts record on {} decided tasks (its last vote, the outcome, the task's status):\n",
            ask.history.len()
        ));
        for r in ask.history {
            let status = serde_json::to_value(r.status).unwrap_or_default();
            u.push_str(&format!(
                "- voted {}, outcome {}, status {}\n",
                r.vote.as_str(),
                r.outcome.as_str(),
                status.as_str().unwrap_or("unknown")
            ));
        }
    }
    u.push_str("\nScore it. Propose params (each 0..=1) only if it needs retuning.");
    vec![system(soul, &[], ask.lessons, EVALUATION_SCHEMA), user(u)]
}

/// Lessons as the prompt lists them.
pub fn lesson_lines(rows: &[soul_karma::LessonRow]) -> Vec<String> {
    rows.iter()
        .map(|l| format!("[{}] {} (weight {})", l.topic, l.lesson, l.weight))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::{features, BrainContext, Lexicon};
    use soul_kinds::{BrainName, Priority, Task};

    /// A model brain is told when the owner confirmed a task after a refusal, as the built-in
    /// brains weigh it, and is told nothing of the kind otherwise.
    #[test]
    fn the_model_hears_of_the_owners_confirmation() {
        let task = Task {
            title: "Buy the concert tickets before they sell out".into(),
            description: String::new(),
            priority: Priority::Medium,
            task_type: "task".into(),
        };
        let plain = features(&task, &Lexicon::builtin());
        let confirmed = plain.clone().confirmed_by_owner();
        let params = BrainName::Panda.default_params();
        let said = |f| {
            let ask = OpinionAsk {
                agent: "panda",
                brain: BrainContext {
                    brain: BrainName::Panda,
                    params: &params,
                    task_id: nostr::EventId::all_zeros(),
                    task: &task,
                    features: f,
                    round: 1,
                    previous: &[],
                    lessons: &[],
                },
            };
            opinion("soul", &ask)
                .iter()
                .map(|m| m.content.clone())
                .collect::<String>()
        };
        assert!(said(&confirmed).contains("The owner confirmed this task"));
        assert!(!said(&plain).contains("owner confirmed"));
    }
}
