//! The prompt, rebuilt for every call from what the agent read (stateless, seed 001), ranked
//! Soul > Skills > Karma (seed 002): the constitution first, then the tools that exist, then the
//! lessons, then the context and the question, then the output schema.

use serde::Serialize;

use super::super::{ActAsk, DistilAsk, OpinionAsk};

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
{"output_type":"text_response","reasoning":{"intent_understanding":"what the task asks","no_tool_reason":"a debate opinion uses no tool"},"confidence":{"overall":0.0-1.0},"text_response":"your opinion, in the task's language, in your own voice","vote":{"vote":"approve|approve_with_modification|reject","proposed_approach":"numbered concrete steps","concerns":["specific concern", "…"]}}
Reasoning must total at least 20 characters. No other fields."#;

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
        }
    }
    u.push_str("\nGive your opinion and vote on this task for this round.");
    let skills = vec![
        "approve: the task should be done as asked".to_owned(),
        "approve_with_modification: done, with the changes in proposed_approach".to_owned(),
        "reject: not done; say what would make it acceptable".to_owned(),
    ];
    vec![
        system(soul, &skills, b.lessons, OPINION_SCHEMA),
        Message {
            role: "user",
            content: u,
        },
    ]
}

/// The messages for a proposal to act.
pub fn act(soul: &str, ask: &ActAsk<'_>) -> Vec<Message> {
    let skills: Vec<String> = ask.tools.iter().map(|(n, d)| format!("{n}: {d}")).collect();
    let mut u = String::from("What you know (from the town's events):\n");
    for line in &ask.context {
        u.push_str(&format!("- {line}\n"));
    }
    u.push_str(&format!("\n{}", ask.question));
    vec![
        system(soul, &skills, ask.lessons, SCHEMA),
        Message {
            role: "user",
            content: u,
        },
    ]
}

/// The messages for distilling a log into a lesson.
pub fn distil(soul: &str, ask: &DistilAsk<'_>) -> Vec<Message> {
    let u = format!(
        "A {} job ended. Its log:\n{}\n\nDistil one lesson for next time, in one or two sentences, as a text_response.",
        ask.kind, ask.log
    );
    vec![
        system(soul, &[], &[], SCHEMA),
        Message {
            role: "user",
            content: u,
        },
    ]
}

/// Lessons as the prompt lists them.
pub fn lesson_lines(rows: &[soul_karma::LessonRow]) -> Vec<String> {
    rows.iter()
        .map(|l| format!("[{}] {} (weight {})", l.topic, l.lesson, l.weight))
        .collect()
}
