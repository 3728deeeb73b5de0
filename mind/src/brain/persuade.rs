//! Rounds 2 and 3: a brain reads the others' latest opinions and may change its mind.
//!
//! A brain in the minority switches with probability `flexibility × min(1, pressure)`, where
//! `pressure = (opponents − allies)² × (1 + mean opponent confidence) / 4`. Two opponents give
//! pressure ≥ 1, so a fully flexible brain always joins a two-brain majority; a lone opponent (a
//! 1–1 split while the third is silent) gives at most 0.5; flexibility 0 never switches. The draw
//! is seeded, so the outcome is as repeatable as the rest.

use rand::Rng;
use soul_kinds::{BrainName, Opinion, Vote};

use super::lean::clamp_params;
use super::opinion::BrainContext;
use super::voice::{self, fill, names, pick, stance};
use super::{cite, clip, rng, Language, Purpose};

/// The vote after reading the others, and what the brain says about them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    pub vote: Vote,
    pub confidence: f64,
    /// "After reading gorilla's point about …, I now …", or `None` in round 1.
    pub sentence: Option<String>,
}

/// Reads `ctx.previous` and decides whether `own` (the brain's lean) stands.
pub(crate) fn consider(ctx: &BrainContext, own: Vote, confidence: f64, concerns: bool) -> Turn {
    let stay = Turn {
        vote: own,
        confidence,
        sentence: None,
    };
    if ctx.round <= 1 {
        return stay;
    }
    let others = latest_of_others(ctx.brain, ctx.previous);
    if others.is_empty() {
        return stay;
    }
    let language = ctx.features.language;
    let (allies, opponents): (Vec<_>, Vec<_>) = others
        .iter()
        .partition(|(_, o)| o.vote.is_yes() == own.is_yes());
    // Its own stream: the decision to switch must not depend on how many phrases were drawn.
    let mut words = rng(ctx.task_id, ctx.brain, ctx.round, Purpose::Persuade);
    let draw: f64 = words.random();
    let v = voice::voice(ctx.brain, language);
    let who = |set: &[&(BrainName, &Opinion)]| {
        names(&set.iter().map(|(b, _)| *b).collect::<Vec<_>>(), language)
    };

    if opponents.len() <= allies.len() {
        let text = fill(
            pick(&mut words, v.agreed),
            &[("who", &who(&allies)), ("stance", stance(own, language))],
        );
        let boost = 0.05 * allies.len() as f64;
        return Turn {
            vote: own,
            confidence: round2((confidence + boost).min(0.97)),
            sentence: Some(text),
        };
    }

    let flexibility = clamp_params(ctx.params).consensus_flexibility;
    let mean_confidence = opponents
        .iter()
        .map(|(_, o)| o.confidence.clamp(0.0, 1.0))
        .sum::<f64>()
        / opponents.len() as f64;
    let excess = (opponents.len() - allies.len()) as f64;
    let pressure = excess * excess * (1.0 + mean_confidence) / 4.0;
    let chance = flexibility * pressure.min(1.0);
    if draw < chance {
        let new = match (own.is_yes(), concerns) {
            (true, _) => Vote::Reject,
            (false, true) => Vote::ApproveWithModification,
            (false, false) => Vote::Approve,
        };
        // Convinced by the surest opponent; ties go to the first by name, for determinism.
        let (lead, lead_opinion) = opponents
            .iter()
            .max_by(|a, b| {
                a.1.confidence
                    .total_cmp(&b.1.confidence)
                    .then(b.0.cmp(&a.0))
            })
            .map(|(b, o)| (*b, *o))
            .unwrap_or((opponents[0].0, opponents[0].1));
        let point = point_of(ctx, lead_opinion, language);
        let text = fill(
            pick(&mut words, v.changed),
            &[
                ("who", voice::name(lead, language)),
                ("point", &point),
                ("stance", stance(new, language)),
            ],
        );
        return Turn {
            vote: new,
            confidence: round2(0.35 + 0.3 * mean_confidence * flexibility),
            sentence: Some(text),
        };
    }
    let text = fill(
        pick(&mut words, v.held),
        &[("who", &who(&opponents)), ("stance", stance(own, language))],
    );
    Turn {
        vote: own,
        // Holding out against the others costs some certainty, more so the harder they pushed.
        confidence: round2(confidence * (1.0 - 0.3 * chance)),
        sentence: Some(text),
    }
}

/// Each other brain's opinion from its latest round, by name.
pub(super) fn latest_of_others(
    me: BrainName,
    previous: &[(BrainName, Opinion)],
) -> Vec<(BrainName, &Opinion)> {
    let mut latest: Vec<(BrainName, &Opinion)> = Vec::new();
    for (brain, opinion) in previous.iter().filter(|(b, _)| *b != me) {
        match latest.iter_mut().find(|(b, _)| b == brain) {
            Some(slot) if opinion.round >= slot.1.round => slot.1 = opinion,
            Some(_) => {}
            None => latest.push((*brain, opinion)),
        }
    }
    latest.sort_by_key(|(b, _)| *b);
    latest
}

/// What the convincing brain argued, quoted: the task's words that its opinion cites (risks for
/// a no, gains and safeguards for a yes), else its first concern or sentence.
fn point_of(ctx: &BrainContext, lead: &Opinion, language: Language) -> String {
    let f = ctx.features;
    let pool: Vec<String> = if lead.vote.is_yes() {
        f.opportunity_terms
            .iter()
            .chain(&f.safety_terms)
            .cloned()
            .collect()
    } else {
        f.risk_terms.clone()
    };
    let said = format!("{} {}", lead.opinion, lead.concerns.join(" ")).to_lowercase();
    let cited: Vec<String> = pool
        .iter()
        .filter(|t| said.contains(&t.to_lowercase()))
        .cloned()
        .collect();
    let terms = if cited.is_empty() { pool } else { cited };
    if !terms.is_empty() {
        return cite(&terms, language);
    }
    let fallback = lead
        .concerns
        .first()
        .map(String::as_str)
        .unwrap_or_else(|| {
            lead.opinion
                .split(['.', '。', '!', '！'])
                .next()
                .unwrap_or("")
        });
    let fallback = clip(fallback.trim(), 80);
    match (language, fallback.is_empty()) {
        (Language::En, true) => "the task".to_owned(),
        (Language::Ja, true) => "この件".to_owned(),
        (Language::En, false) => format!("\"{fallback}\""),
        (Language::Ja, false) => format!("「{fallback}」"),
    }
}

fn round2(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 100.0).round() / 100.0
}
