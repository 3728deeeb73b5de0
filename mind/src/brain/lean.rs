//! The lean: how much a brain with given params favours a task with given features.
//!
//! `score = base + opportunity·innovation + safety·(0.2 + 0.6·safety_weight)
//!          − risk'·(0.35 + safety_weight·(1 − risk_tolerance)) ± noise·(1 − thoroughness)`,
//! where `risk' = max(harm, mention)·(1 + urgency/2)`: haste makes a risky task riskier, but a
//! safe task is not made risky by a deadline. `mention` is the risk words' score scaled by
//! `0.6·(1 − risk_tolerance)` (none in a task with protective intent or one the owner
//! confirmed after a refusal; in one the learned
//! reading is sure is ordinary, only the risks of trying something, `venture`): a word is not a deed,
//! what the task does is its `harm`, but a cautious brain still minds the words. A harm above the brain's threshold (`harm_threshold`) is always a no. The constant part of the risk weight keeps even a bold brain from
//! cheering a reckless task; the noise is the only randomness and a thorough brain has little.

use rand::Rng;
use soul_kinds::{BrainName, Params, Vote};

use super::features::{Category, Features, Hit};
use super::{rng, Purpose};

/// A task with nothing notable in it is still the owner's wish: a small benefit of the doubt.
const BASE: f64 = 0.1;
/// Largest noise, for a brain with thoroughness 0.
const NOISE: f64 = 0.12;
/// How much risk words weigh, for a brain with risk tolerance 0, when the task does no harm
/// with them: "pay off the car loan" names a loan, it does not take one.
const MENTION: f64 = 0.6;

/// The score and what follows from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lean {
    /// Above 0 leans yes, at or below 0 leans no.
    pub score: f64,
    /// 0..=1, from |score| and thoroughness.
    pub confidence: f64,
}

/// The lean of `brain` with `params` on a task. The noise is drawn from a stream that does not
/// depend on the round, so a brain that is not persuaded keeps its vote across rounds.
pub(crate) fn lean(
    brain: BrainName,
    params: &Params,
    task_id: nostr::EventId,
    f: &Features,
) -> Lean {
    let p = clamp_params(params);
    // A task the learned reading is sure is ordinary does no harm with its risk words, but
    // the risk of trying something (production, experimental) is not harm: a cautious brain
    // still minds it.
    let minded = if f.protective || f.owner_confirmed {
        0.0
    } else if f.surely_ordinary {
        f.venture
    } else {
        f.risk
    };
    let mention = minded * MENTION * (1.0 - p.risk_tolerance);
    let risk = (f.harm.max(mention) * (1.0 + f.urgency / 2.0)).min(1.0);
    let noise = (rng(task_id, brain, 0, Purpose::Noise).random::<f64>() * 2.0 - 1.0)
        * NOISE
        * (1.0 - p.thoroughness);
    let mut score =
        BASE + f.opportunity * p.innovation_weight + f.safety * (0.2 + 0.6 * p.safety_weight)
            - risk * (0.35 + p.safety_weight * (1.0 - p.risk_tolerance))
            + noise;
    let threshold = harm_threshold(&p);
    if f.harm > threshold {
        // No gain and no safeguard buys a harm: the further above the line, the surer the no.
        score = score.min(-0.2 - (f.harm - threshold));
    }
    Lean {
        score,
        confidence: confidence(score, p.thoroughness),
    }
}

/// The severity above which this brain refuses a harm whatever else the task offers: panda
/// (risk tolerance 0.2) 0.45, triceratops (0.5) 0.6, gorilla (0.8) 0.75.
pub(crate) fn harm_threshold(p: &Params) -> f64 {
    0.35 + 0.5 * p.risk_tolerance.clamp(0.0, 1.0)
}

/// Sure when the score is far from 0, and surer when the brain looked closely.
pub(crate) fn confidence(score: f64, thoroughness: f64) -> f64 {
    let strength = (score.abs() / 0.5).min(1.0);
    let c = 0.25 + 0.45 * strength + 0.25 * thoroughness.clamp(0.0, 1.0);
    (c.clamp(0.05, 0.97) * 100.0).round() / 100.0
}

/// The vote for a score: no at or below 0; yes with modification when the brain has concerns.
pub(crate) fn vote(score: f64, has_concerns: bool) -> Vote {
    if score <= 0.0 {
        Vote::Reject
    } else if has_concerns {
        Vote::ApproveWithModification
    } else {
        Vote::Approve
    }
}

/// The risk and urgency hits this brain raises as concerns: a careful, thorough brain notices
/// smaller risks than a bold, quick one.
pub(crate) fn noticed<'a>(params: &Params, f: &'a Features) -> Vec<&'a Hit> {
    let p = clamp_params(params);
    let attention = 0.4 + 0.3 * p.safety_weight + 0.3 * p.thoroughness;
    let rush = 0.3 + 0.7 * p.thoroughness;
    f.hits
        .iter()
        .filter(|h| match h.category {
            // Every brain names a harm it saw, whatever its character.
            Category::Harm => true,
            Category::Risk => h.weight * attention >= 0.15,
            Category::Urgency => h.weight * rush >= 0.15,
            _ => false,
        })
        .collect()
}

/// Params as given, but every value within 0..=1 (NaN as 0.5), so that a broken params event
/// cannot make the arithmetic above leave its range.
pub(crate) fn clamp_params(p: &Params) -> Params {
    let c = |v: f64| if v.is_nan() { 0.5 } else { v.clamp(0.0, 1.0) };
    Params {
        risk_tolerance: c(p.risk_tolerance),
        innovation_weight: c(p.innovation_weight),
        safety_weight: c(p.safety_weight),
        thoroughness: c(p.thoroughness),
        consensus_flexibility: c(p.consensus_flexibility),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_rises_with_the_score_and_thoroughness() {
        assert!(confidence(0.6, 0.5) > confidence(0.1, 0.5));
        assert!(confidence(-0.6, 0.5) > confidence(0.1, 0.5));
        assert!(confidence(0.3, 0.9) > confidence(0.3, 0.1));
        for s in [-10.0, -0.3, 0.0, 0.3, 10.0, f64::NAN] {
            let c = confidence(s, 0.5);
            assert!(
                (0.0..=1.0).contains(&c) || c.is_nan() && s.is_nan(),
                "{s} → {c}"
            );
        }
    }

    #[test]
    fn votes_follow_the_score() {
        let cases = [
            (-0.2, false, Vote::Reject),
            (0.0, true, Vote::Reject),
            (0.2, true, Vote::ApproveWithModification),
            (0.2, false, Vote::Approve),
        ];
        for (score, concerns, want) in cases {
            assert_eq!(vote(score, concerns), want, "{score} {concerns}");
        }
    }
}
